// Threads kept to wait on the disk for their callers: EachConcurrently's work (fn(i) for each i of
// a batch, the caller's thread among those that run it) without a thread made and joined for each
// batch. A spool's fsyncs wait in batches of two to eight several times a mission; a thread made
// and joined costs some 30 us of the caller's time (and more of the machine's) where a parked one
// is woken for a few (docs/BENCHMARKS.md).
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hangar {

class WaitPool {
 public:
  // Up to THREADS threads besides the callers', made at the first batch that needs them (one
  // that cannot be made leaves its share to the others).
  explicit WaitPool(size_t threads);
  ~WaitPool();
  WaitPool(const WaitPool&) = delete;
  WaitPool& operator=(const WaitPool&) = delete;

  // fn(i) for each i of [0, n), each once, on the caller's thread and up to n - 1 of the pool's
  // at once; returns when every call has returned. Any thread may call it, several at once (each
  // caller runs its own batch's items until none is left untaken, so a batch ends even when
  // every pool thread is busy with others). An FN that throws in a batch the pool runs ends the
  // process (std::terminate); a batch of one runs on the caller's thread alone, as a plain call.
  // In a child forked after a pool was made (which has none of its threads), EachConcurrently
  // does the work instead.
  void Each(size_t n, const std::function<void(size_t)>& fn);
  // AWAY on one of the pool's threads while HERE runs on the caller's; returns when both have. The
  // caller runs AWAY itself after HERE when no pool thread took it meanwhile (every one busy with
  // other batches), so it always ends. For work that must stay on its caller's thread beside work
  // that needs only the disk. In a forked child (no pool threads), AWAY then HERE on the caller's.
  void Beside(const std::function<void()>& away, const std::function<void()>& here);

 private:
  struct Batch {
    const std::function<void(size_t)>* fn;
    size_t n;
    size_t next = 0;  // the first item not yet taken
    size_t done = 0;  // the items whose call has returned
  };
  void Work();
  // Up to WANT threads made (fewer when one cannot be), under mu_.
  void Grow(size_t want);
  // The next item of the first batch queued (the queue is not empty), under mu_: the batch leaves
  // the queue with its last.
  Batch* Take(size_t* item);

  const size_t threads_;
  const pid_t owner_;
  std::mutex mu_;
  std::condition_variable work_, done_;
  std::deque<Batch*> queue_;
  std::vector<std::thread> pool_;
  bool stop_ = false;
};

}  // namespace hangar
