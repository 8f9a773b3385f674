#include "base/wait_pool.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace hangar {
namespace {

// How many of a batch of four items saw all four started at once: each item waits for the others
// to start, giving up after GIVE_UP (in a row, the first would give up having seen only itself).
int SawAllFourStarted(WaitPool* pool, std::chrono::seconds give_up) {
  std::atomic<int> started{0}, saw_all{0};
  pool->Each(4, [&](size_t) {
    started++;
    const auto until = std::chrono::steady_clock::now() + give_up;
    while (started.load() < 4 && std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
    if (started.load() == 4) saw_all++;
  });
  return saw_all.load();
}

// Every item once, whatever the batch's size, and the waits overlap: with three pool threads,
// each of four calls sees all four started (in a row, the first would give up after 10 s having
// seen only itself).
TEST(WaitPool, CallsEveryItemOnceWithTheWaitsOverlapping) {
  WaitPool pool(3);
  for (size_t n : {size_t(0), size_t(1), size_t(3), size_t(100)}) {
    std::vector<std::atomic<int>> seen(n);
    pool.Each(n, [&](size_t i) { seen[i]++; });
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << "n " << n << " item " << i;
  }
  EXPECT_EQ(SawAllFourStarted(&pool, std::chrono::seconds(10)), 4);
}

// The threads are kept: fifty batches run on the caller's thread and the pool's three, not on a
// thread made for each (the kernel's thread ids are never handed out again this soon).
TEST(WaitPool, KeepsItsThreadsFromBatchToBatch) {
  WaitPool pool(3);
  std::mutex mu;
  std::set<pid_t> tids;
  for (int b = 0; b < 50; ++b)
    pool.Each(4, [&](size_t) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      std::lock_guard<std::mutex> lk(mu);
      tids.insert(gettid());
    });
  EXPECT_GE(tids.size(), 2u);
  EXPECT_LE(tids.size(), 4u);
}

// Several callers at once, more than the pool has threads: every batch ends, every item once.
TEST(WaitPool, ManyCallersAtOnceEachFinishTheirBatch) {
  WaitPool pool(2);
  std::vector<std::atomic<int>> seen(8 * 30);
  std::vector<std::thread> callers;
  for (int c = 0; c < 8; ++c)
    callers.emplace_back([&, c] {
      for (int b = 0; b < 10; ++b)
        pool.Each(3, [&](size_t i) { seen[c * 30 + b * 3 + i]++; });
    });
  for (std::thread& t : callers) t.join();
  for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i].load(), 1) << i;
}

// Beside: HERE on the caller's thread, AWAY on a pool thread at the same time (each waits for the
// other to start: in a row, the first would give up after 10 s having seen only itself).
TEST(WaitPool, BesideRunsHereOnTheCallerAndAwayAtTheSameTime) {
  WaitPool pool(2);
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> started{0};
    std::atomic<bool> away_saw{false}, here_saw{false};
    pid_t away_tid = 0, here_tid = 0;
    auto meet = [&](std::atomic<bool>* saw, pid_t* tid) {
      *tid = gettid();
      started++;
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (started.load() < 2 && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
      *saw = started.load() == 2;
    };
    pool.Beside([&] { meet(&away_saw, &away_tid); }, [&] { meet(&here_saw, &here_tid); });
    ASSERT_TRUE(away_saw && here_saw) << "round " << round;
    EXPECT_EQ(here_tid, gettid());
    EXPECT_NE(away_tid, gettid());
  }
}

// Every pool thread busy with another caller's batch: Beside still ends, the caller running AWAY
// itself after HERE.
TEST(WaitPool, BesideEndsWhenEveryPoolThreadIsBusy) {
  WaitPool pool(1);
  std::atomic<int> blocked{0};
  std::atomic<bool> release{false};
  std::thread other([&] {
    pool.Each(2, [&](size_t) {
      blocked++;
      while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
  });
  while (blocked.load() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::vector<std::string> order;
  pid_t away_tid = 0;
  pool.Beside(
      [&] {
        away_tid = gettid();
        order.push_back("away");
      },
      [&] { order.push_back("here"); });
  release = true;
  other.join();
  EXPECT_EQ(order, (std::vector<std::string>{"here", "away"}));
  EXPECT_EQ(away_tid, gettid());
}

// A child forked from the process that made the pool has none of its threads (nor perhaps a
// usable lock): its batches still end, every item once, and still wait at once (on threads of
// their own: the pool's caller alone would run the four one after the other, the first giving
// up after 5 s having seen only itself).
TEST(WaitPool, AForkedChildStillWaitsAtOnce) {
  WaitPool pool(3);
  pool.Each(4, [](size_t) {});  // the threads made in the parent
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(30);
    _exit(SawAllFourStarted(&pool, std::chrono::seconds(5)) == 4 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

}  // namespace
}  // namespace hangar
