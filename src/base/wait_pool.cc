#include "base/wait_pool.h"

#include <unistd.h>

#include <algorithm>
#include <system_error>

#include "base/parallel.h"

namespace hangar {

WaitPool::WaitPool(size_t threads) : threads_(threads), owner_(getpid()) {}

WaitPool::~WaitPool() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  work_.notify_all();
  for (std::thread& t : pool_) t.join();
}

WaitPool::Batch* WaitPool::Take(size_t* item) {
  if (queue_.empty()) return nullptr;
  Batch* b = queue_.front();
  *item = b->next++;
  if (b->next == b->n) queue_.pop_front();
  return b;
}

void WaitPool::Work() {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    work_.wait(lk, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    size_t i = 0;
    Batch* b = Take(&i);
    lk.unlock();
    (*b->fn)(i);
    lk.lock();
    if (++b->done == b->n) done_.notify_all();
  }
}

void WaitPool::Each(size_t n, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  if (n == 1) return fn(0);
  if (getpid() != owner_) return EachConcurrently(n, threads_ + 1, fn);
  Batch b{&fn, n};
  {
    std::lock_guard<std::mutex> lk(mu_);
    while (pool_.size() < std::min(threads_, n - 1)) {
      try {
        pool_.emplace_back([this] { Work(); });
      } catch (const std::system_error&) {
        break;
      }
    }
    queue_.push_back(&b);
  }
  for (size_t k = 1; k < n; ++k) work_.notify_one();
  // The caller takes its own batch's items while any is left: another caller's batch queued
  // first may hold every pool thread.
  std::unique_lock<std::mutex> lk(mu_);
  while (b.next < b.n) {
    const size_t i = b.next++;
    if (b.next == b.n) queue_.erase(std::find(queue_.begin(), queue_.end(), &b));
    lk.unlock();
    fn(i);
    lk.lock();
    ++b.done;
  }
  done_.wait(lk, [&] { return b.done == b.n; });
}

}  // namespace hangar
