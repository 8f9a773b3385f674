#include "base/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace hangar {
namespace {

// Every item is handed out exactly once, in contiguous ranges that part numbers order.
TEST(SplitAcross, CoversEveryItemOnceInOrderedParts) {
  for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(1000), size_t(4097), size_t(100000)}) {
    std::vector<std::atomic<int>> seen(n);
    std::mutex mu;
    std::vector<std::pair<size_t, size_t>> ranges(Parts(n, 100));
    SplitAcross(n, 100, [&](size_t begin, size_t end, size_t part) {
      for (size_t i = begin; i < end; ++i) seen[i]++;
      std::lock_guard<std::mutex> lock(mu);
      ranges.at(part) = {begin, end};
    });
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << "n " << n << " item " << i;
    size_t next = 0;
    for (const auto& [begin, end] : ranges) {
      EXPECT_EQ(begin, std::min(next, n)) << n;
      next = std::max(next, end);
    }
    EXPECT_EQ(next, n);
  }
}

TEST(SplitAcross, SmallWorkStaysOnOnePart) {
  EXPECT_EQ(Parts(0, 512), 1u);
  EXPECT_EQ(Parts(511, 512), 1u);
  EXPECT_LE(Parts(1000000, 512), 4u);
}

// Every item once, and the waits overlap: with four threads, each of four calls sees all four
// started (in a row, the first would give up after 10 s, having seen only itself).
TEST(EachConcurrently, CallsEveryItemOnceWithTheWaitsOverlapping) {
  for (size_t n : {size_t(0), size_t(1), size_t(3), size_t(100)}) {
    std::vector<std::atomic<int>> seen(n);
    EachConcurrently(n, 8, [&](size_t i) { seen[i]++; });
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << "n " << n << " item " << i;
  }
  std::atomic<int> started{0}, saw_all{0};
  EachConcurrently(4, 4, [&](size_t) {
    started++;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 4 && std::chrono::steady_clock::now() < give_up)
      std::this_thread::yield();
    if (started.load() == 4) saw_all++;
  });
  EXPECT_EQ(saw_all.load(), 4);
}

}  // namespace
}  // namespace hangar
