// Shims started ahead of their launch (docs/ARCHITECTURE.md, hangar-shim). A launch's hangar-shim
// spends milliseconds before it reads its plan: the exec, the dynamic linker relocating libcrypto
// and libstdc++, OpenSSL's start (docs/BENCHMARKS.md, shim). A warm shim (`hangar-shim --warm`)
// has done all that already and waits on its stdin, a unix socket whose other end only hangard
// holds, for "PLAN_FILE\nSHA256\n" and the end of the stream; it answers "y" (taken), and from
// then on it is the shim `hangar-shim PLAN_FILE SHA256` would be. Nothing of a mission reaches it
// before the launch's records are durable: it learns the plan only at the moment a cold shim
// would have been started.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"

namespace hangar {

// hangard's side: the warm shims of one direct launcher. Start may be called from several threads
// at once (the launch pool).
class WarmShims {
 public:
  // At most this many wait at once; a launch beyond them starts cold.
  static constexpr size_t kMaxWaiting = 4;

  explicit WarmShims(std::string shim_path) : shim_path_(std::move(shim_path)) {}
  ~WarmShims() { Release(); }
  WarmShims(const WarmShims&) = delete;
  WarmShims& operator=(const WarmShims&) = delete;

  // StartShim (launch/direct_launcher.h), the same answers, through a waiting shim when there is
  // one; a cold start when there is none, or when the one taken did not answer that it took the
  // plan (it ended, or said nothing in 10 s: killed), so a shim that dies waiting never fails a
  // launch.
  Status Start(const std::string& plan_file, const std::string& plan_sha256);

  // Ends the thread of WarmSoon (nothing is warmed after), then lets every waiting shim go (its
  // stdin closed: it exits without running anything) and reaps it. hangard calls it before it
  // re-executes itself, so that no shim of the old image is left a zombie of the new one.
  void Release();

  // Starts one more shim to wait for a launch (none when kMaxWaiting wait already, or when it
  // cannot be started: the launch then starts cold).
  void Warm();
  // Warm, on this object's own thread (started at the first call), returning at once: a spawn
  // holds the calling thread until the child has executed, and hangard's loop calls this, for
  // each direct launch of a batch when it commits the batch, so that the shim loads while the
  // launch's records and files reach the disk.
  void WarmSoon();

  // The waiting shims' pids, oldest first (for tests).
  std::vector<pid_t> waiting();

 private:
  struct Waiting {
    pid_t pid = -1;
    int go = -1;      // hangard's end of the socket: the plan goes there
    int report = -1;  // the memfd its stdout and stderr go to
  };

  void Loop();  // WarmSoon's thread

  const std::string shim_path_;
  std::mutex mu_;
  std::vector<Waiting> waiting_;  // guarded by mu_
  std::condition_variable asked_cv_;
  size_t asked_ = 0;       // WarmSoon calls not done yet; guarded by mu_
  bool released_ = false;  // guarded by mu_
  std::thread thread_;     // WarmSoon's, started by its first call
};

// The shim's side, `hangar-shim --warm`: makes ready, then waits on stdin for the plan's file and
// sha256 and runs RunShim (launch/supervisor.h) with them; returns its exit status. The end of
// the stream before any byte: hangard let it go; kShimNotStarted without a word. Anything but two
// lines: kShimUsage, and why on stderr.
int RunWarmShim();

}  // namespace hangar
