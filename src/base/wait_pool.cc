#include "base/wait_pool.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>

#include "base/parallel.h"

namespace hangar {

namespace {

// Set in every child forked after a pool was made (pthread_atfork): such a child has none of its
// threads, and maybe a lock a thread held at the fork; the pid alone could be the owner's again
// in a new PID namespace.
std::atomic<bool> forked{false};

// An item that throws ends the process, as it would on a thread of its own (std::thread): the
// batch it belongs to lives on its caller's stack, which must not unwind under the others.
void Run(const std::function<void(size_t)>& fn, size_t i) noexcept {
  fn(i);
}

}  // namespace

WaitPool::WaitPool(size_t threads) : threads_(threads), owner_(getpid()) {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, [] { forked = true; }); });
}

WaitPool::~WaitPool() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  work_.notify_all();
  for (std::thread& t : pool_) t.join();
}

WaitPool::Batch* WaitPool::Take(size_t* item) {
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
    Run(*b->fn, i);
    lk.lock();
    if (++b->done == b->n) done_.notify_all();
  }
}

void WaitPool::Grow(size_t want) {
  while (pool_.size() < std::min(threads_, want)) {
    try {
      pool_.emplace_back([this] { Work(); });
    } catch (const std::system_error&) {
      break;
    }
  }
}

void WaitPool::Beside(const std::function<void()>& away, const std::function<void()>& here) {
  if (forked || getpid() != owner_) {
    away();
    return here();
  }
  const std::function<void(size_t)> fn = [&away](size_t) { away(); };
  Batch b{&fn, 1};
  {
    std::lock_guard<std::mutex> lk(mu_);
    Grow(1);
    queue_.push_back(&b);
  }
  work_.notify_one();
  here();
  std::unique_lock<std::mutex> lk(mu_);
  if (b.next < b.n) {  // no pool thread took it: every one is busy, or none could be made
    b.next = b.n;
    queue_.erase(std::find(queue_.begin(), queue_.end(), &b));
    lk.unlock();
    Run(fn, 0);
    lk.lock();
    ++b.done;
  }
  done_.wait(lk, [&] { return b.done == b.n; });
}

void WaitPool::Each(size_t n, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  if (n == 1) return fn(0);
  if (forked || getpid() != owner_) return EachConcurrently(n, threads_ + 1, fn);
  Batch b{&fn, n};
  {
    std::lock_guard<std::mutex> lk(mu_);
    Grow(n - 1);
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
    Run(fn, i);
    lk.lock();
    ++b.done;
  }
  done_.wait(lk, [&] { return b.done == b.n; });
}

}  // namespace hangar
