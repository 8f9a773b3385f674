#include "daemon/worker_pool.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace hangar {

WorkerPool::WorkerPool(int threads) : event_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  for (int i = 0; i < threads; i++) threads_.emplace_back([this] { Loop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
    tasks_.clear();
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
  close(event_fd_);
}

void WorkerPool::Submit(std::function<Signal()> task) {
  {
    std::lock_guard<std::mutex> g(mu_);
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

std::vector<Signal> WorkerPool::Drain() {
  uint64_t n;
  (void)!read(event_fd_, &n, sizeof n);
  std::lock_guard<std::mutex> g(mu_);
  std::vector<Signal> out;
  out.swap(done_);
  return out;
}

int WorkerPool::in_flight() const {
  std::lock_guard<std::mutex> g(mu_);
  return busy_ + int(tasks_.size());
}

void WorkerPool::Loop() {
  for (;;) {
    std::function<Signal()> task;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [this] { return stop_ || !tasks_.empty(); });
      if (stop_) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
      busy_++;
    }
    Signal result = task();
    {
      std::lock_guard<std::mutex> g(mu_);
      done_.push_back(std::move(result));
      busy_--;
    }
    uint64_t one = 1;
    (void)!write(event_fd_, &one, sizeof one);
  }
}

}  // namespace hangar
