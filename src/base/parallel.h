// Independent work over the machine's cores: a deep queue's files, read at start-up. Contiguous
// parts, so callers can keep per-part results and join them in order. And independent waits at
// once: a batch's fsyncs, which then share the disk's cache flushes (and a journal's commits).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <system_error>
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
// [0, n), each on a thread of its own (the first on the caller's; a part no thread can be had for
// too); returns once all are done.
inline void SplitAcross(size_t n, size_t min_each,
                        const std::function<void(size_t, size_t, size_t)>& fn) {
  const size_t parts = Parts(n, min_each);
  auto run = [&](size_t part) { fn(n * part / parts, n * (part + 1) / parts, part); };
  std::vector<std::thread> others;
  std::vector<size_t> here = {0};
  for (size_t t = 1; t < parts; ++t) {
    try {
      others.emplace_back(run, t);
    } catch (const std::system_error&) {
      here.push_back(t);
    }
  }
  for (size_t t : here) run(t);
  for (std::thread& th : others) th.join();
}

// Calls fn(i) for each i of [0, n), on up to MAX_THREADS threads at once (the caller's among them),
// each taking the next i not yet taken; returns once all are done. For work that waits rather than
// computes: fsync(2)s waiting at once share the disk's cache flushes and a journal's commits,
// where the same fsyncs in a row wait for one each (docs/BENCHMARKS.md, make bench-fsync). A
// thread that cannot be had leaves its share to the others.
inline void EachConcurrently(size_t n, size_t max_threads, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  auto run = [&] {
    for (size_t i = next++; i < n; i = next++) fn(i);
  };
  std::vector<std::thread> others;
  const size_t threads = std::min(n, std::max<size_t>(1, max_threads));
  for (size_t t = 1; t < threads; ++t) {
    try {
      others.emplace_back(run);
    } catch (const std::system_error&) {
      break;
    }
  }
  run();
  for (std::thread& th : others) th.join();
}

}  // namespace hangar
