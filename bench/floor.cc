// hangar-bench-floor: the least any durable spooler must do per job, as a yardstick for
// scripts/bench-peers. Per job: create a job file in tmp/, write a few bytes, fsync it, rename it
// into queue/, fsync queue/; posix_spawn /bin/true and wait for it; record the completion the same
// way (tmp/ -> done/). --no-sync drops the fsyncs. --parallel K: K worker threads share the jobs.
// Prints one JSON line: {"jobs":N,"seconds":S,"jobs_per_s":R,"sync":true|false,"parallel":K}.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "hangar-bench-floor: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(1);
}

struct Dirs {
  std::string tmp, queue, done;
  int queue_fd = -1, done_fd = -1;
};

// Durably puts `text` at dir/name: written in tmp/, fsynced, renamed, the directory fsynced.
void Publish(const Dirs& d, const std::string& dir, int dir_fd, const std::string& name,
             const std::string& text, bool sync) {
  const std::string tmp = d.tmp + "/" + name;
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) Die("open " + tmp);
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    Die("write " + tmp);
  }
  if (sync && ::fsync(fd) != 0) Die("fsync " + tmp);
  if (::close(fd) != 0) Die("close " + tmp);
  if (::rename(tmp.c_str(), (dir + "/" + name).c_str()) != 0) Die("rename " + tmp);
  if (sync && ::fsync(dir_fd) != 0) Die("fsync " + dir);
}

void RunJob(const Dirs& d, long i, bool sync) {
  const std::string id = "j" + std::to_string(i);
  Publish(d, d.queue, d.queue_fd, id, "{\"job\":" + std::to_string(i) + ",\"argv\":[\"true\"]}\n",
          sync);
  char arg0[] = "true";
  char* argv[] = {arg0, nullptr};
  pid_t pid;
  if (int e = ::posix_spawn(&pid, "/bin/true", nullptr, nullptr, argv, environ); e != 0) {
    errno = e;
    Die("posix_spawn /bin/true");
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) Die("waitpid");
  }
  Publish(d, d.done, d.done_fd, id, "{\"exit\":" + std::to_string(WEXITSTATUS(status)) + "}\n",
          sync);
}

int OpenDir(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) {
    errno = ec.value();
    Die("mkdir " + path);
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) Die("open " + path);
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  long jobs = 1000, parallel = 1;
  bool sync = true;
  std::string dir;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    if (a == "--no-sync") {
      sync = false;
    } else if (a == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if ((a == "--jobs" || a == "--parallel") && i + 1 < argc) {
      long& n = a == "--jobs" ? jobs : parallel;
      if ((n = std::atol(argv[++i])) < 1) {
        std::fprintf(stderr, "hangar-bench-floor: %s wants a positive number\n", a.c_str());
        return 2;
      }
    } else {
      std::fprintf(stderr,
                   "usage: hangar-bench-floor [--jobs N] [--dir D] [--no-sync] [--parallel K]\n");
      return 2;
    }
  }
  std::string made;  // a scratch directory of our own, removed at the end
  if (dir.empty()) {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/hangar-bench-floor.XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) Die("mkdtemp " + tmpl);
    dir = made = tmpl;
  }
  Dirs d{dir + "/tmp", dir + "/queue", dir + "/done"};
  OpenDir(d.tmp);
  d.queue_fd = OpenDir(d.queue);
  d.done_fd = OpenDir(d.done);

  std::atomic<long> next{0};
  const auto t0 = std::chrono::steady_clock::now();
  {
    std::vector<std::jthread> workers;
    for (long w = 0; w < parallel; w++) {
      workers.emplace_back([&] {
        for (long i; (i = next.fetch_add(1)) < jobs;) RunJob(d, i, sync);
      });
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("{\"jobs\":%ld,\"seconds\":%.6f,\"jobs_per_s\":%.1f,\"sync\":%s,\"parallel\":%ld}\n",
              jobs, s, jobs / s, sync ? "true" : "false", parallel);
  if (!made.empty()) std::filesystem::remove_all(made);
  return 0;
}
