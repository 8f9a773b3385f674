// WorkerPool<T>: a few threads that run tasks off the event loop, so that no slow task delays
// intake: observations and op handlers (T = Signal: room manifests, done-checks) and launches (T =
// Launched: starting hangar-shim, daemon.h). Results come back through Drain(); ready_fd()
// becomes readable (an eventfd) whenever one is waiting. Submit, Drain and Wait are called by the
// event-loop thread.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hangar {

template <typename T>
class WorkerPool {
 public:
  explicit WorkerPool(int threads) : event_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    for (int i = 0; i < threads; i++) threads_.emplace_back([this] { Loop(); });
  }
  // Waits for running tasks; pending ones are dropped (what they were for stays as it is on disk).
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> g(mu_);
      stop_ = true;
      tasks_.clear();
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
    close(event_fd_);
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Submit(std::function<T()> task) {
    {
      std::lock_guard<std::mutex> g(mu_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }
  // The results finished since the last Drain, in the order they finished.
  std::vector<T> Drain() {
    uint64_t n;
    (void)!read(event_fd_, &n, sizeof n);
    std::lock_guard<std::mutex> g(mu_);
    std::vector<T> out;
    out.swap(done_);
    return out;
  }
  // Until every task submitted (pending ones too) has finished; their results wait for Drain.
  void Wait() {
    std::unique_lock<std::mutex> lk(mu_);
    idle_.wait(lk, [this] { return busy_ == 0 && tasks_.empty(); });
  }
  int ready_fd() const { return event_fd_; }
  int in_flight() const {
    std::lock_guard<std::mutex> g(mu_);
    return busy_ + int(tasks_.size());
  }

 private:
  void Loop() {
    for (;;) {
      std::function<T()> task;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [this] { return stop_ || !tasks_.empty(); });
        if (stop_) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
        busy_++;
      }
      T result = task();
      {
        std::lock_guard<std::mutex> g(mu_);
        done_.push_back(std::move(result));
        busy_--;
      }
      idle_.notify_all();
      uint64_t one = 1;
      (void)!write(event_fd_, &one, sizeof one);
    }
  }

  mutable std::mutex mu_;
  std::condition_variable cv_, idle_;
  std::deque<std::function<T()>> tasks_;
  std::vector<T> done_;
  int busy_ = 0;
  bool stop_ = false;
  int event_fd_ = -1;
  std::vector<std::thread> threads_;
};

}  // namespace hangar
