// WorkerPool: a few threads that run observations (room manifests, done-checks) off the event loop,
// so a slow done-check never delays intake. Results come back through Drain(); ready_fd() becomes
// readable (an eventfd) whenever one is waiting. Submit/Drain are called by the event-loop thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "kernel/kernel.h"

namespace hangar {

class WorkerPool {
 public:
  explicit WorkerPool(int threads);
  // Waits for running tasks; pending ones are dropped (their missions stay in running/).
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Submit(std::function<Signal()> task);
  std::vector<Signal> Drain();
  int ready_fd() const { return event_fd_; }
  int in_flight() const;

 private:
  void Loop();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<Signal()>> tasks_;
  std::vector<Signal> done_;
  int busy_ = 0;
  bool stop_ = false;
  int event_fd_ = -1;
  std::vector<std::thread> threads_;
};

}  // namespace hangar
