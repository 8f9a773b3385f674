#include "launch/network_pool.h"

#include <sys/stat.h>
#include <unistd.h>

#include <set>

#include "gtest/gtest.h"

namespace hangar {
namespace {

ino_t Inode(int fd) {
  struct stat st {};
  EXPECT_EQ(fstat(fd, &st), 0);
  return st.st_ino;
}

TEST(NetworkPool, KeepsDepthReadyAndGivesEachOnceOldestFirst) {
  NetworkPool pool(2);
  std::string why;
  const NetworkPool::Made first = pool.MakeOne(&why);
  if (first == NetworkPool::Made::kOff) {
    EXPECT_EQ(pool.MakeOne(&why), NetworkPool::Made::kFull);  // off for good: not tried again
    EXPECT_EQ(pool.Take(), -1);
    GTEST_SKIP() << "no network namespace for this user here: " << why;
  }
  ASSERT_EQ(first, NetworkPool::Made::kOne) << why;
  ASSERT_EQ(pool.MakeOne(&why), NetworkPool::Made::kOne) << why;
  EXPECT_EQ(pool.MakeOne(&why), NetworkPool::Made::kFull);
  ASSERT_EQ(pool.ready().size(), 2u);
  const int oldest = pool.ready().front();
  std::set<ino_t> given;
  const int a = pool.Take();
  EXPECT_EQ(a, oldest);
  ASSERT_EQ(pool.MakeOne(&why), NetworkPool::Made::kOne) << why;  // topped up behind it
  const int b = pool.Take();
  const int c = pool.Take();
  EXPECT_EQ(pool.Take(), -1);
  for (int fd : {a, b, c}) {
    ASSERT_GE(fd, 0);
    given.insert(Inode(fd));
    close(fd);
  }
  EXPECT_EQ(given.size(), 3u);  // three namespaces, none given twice
}

}  // namespace
}  // namespace hangar
