// Independent work over the machine's cores: a deep queue's files, read at start-up. Contiguous
// parts, so callers can keep per-part results and join them in order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace hangar {

// How many parts SplitAcross cuts n items into: one per core, at most 4, each of at least
// min_each items; 1 when n is small.
inline size_t Parts(size_t n, size_t min_each) {
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max<size_t>(1, std::min<size_t>({cores, 4, n / std::max<size_t>(1, min_each)}));
}

// Calls fn(begin, end, part) for each of the Parts(n, min_each) contiguous ranges covering
// [0, n), each on a thread of its own (the first on the caller's); returns once all are done.
inline void SplitAcross(size_t n, size_t min_each,
                        const std::function<void(size_t, size_t, size_t)>& fn) {
  const size_t parts = Parts(n, min_each);
  const size_t share = (n + parts - 1) / std::max<size_t>(1, parts);
  std::vector<std::thread> others;
  for (size_t t = 1; t < parts; ++t)
    others.emplace_back([&, t] { fn(std::min(n, t * share), std::min(n, (t + 1) * share), t); });
  fn(0, std::min(n, share), 0);
  for (std::thread& th : others) th.join();
}

}  // namespace hangar
