#include "base/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

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

}  // namespace
}  // namespace hangar
