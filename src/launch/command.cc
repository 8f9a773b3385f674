#include "launch/command.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "shell/child_run.h"
#include "shell/manifest.h"

extern char** environ;

namespace hangar {

namespace {

constexpr size_t kKeep = size_t(1) << 20;

}  // namespace

std::string CommandResult::Describe(const std::string& program) const {
  std::string s = program + ": ";
  if (!started) return s + error;
  if (!rc) return s + (error.empty() ? "killed" : error);
  s += "exit " + std::to_string(*rc);
  std::string first = err.substr(0, err.find('\n'));
  if (first.empty()) first = out.substr(0, out.find('\n'));
  if (!first.empty()) s += ": " + first;
  return s;
}

CommandResult RunCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                         const std::vector<std::string>& extra_env,
                         const std::optional<std::string>& input) {
  CommandResult r;
  if (argv.empty()) {
    r.error = "no command";
    return r;
  }
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv(*e);
    size_t eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const std::string& kv : extra_env) {
    size_t eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  const std::string program = FindProgram(argv[0], env);
  if (program.empty()) {
    r.error = "not found on PATH";
    return r;
  }
  UniqueFd out = AboveStdio(memfd_create("hangar-out", MFD_CLOEXEC));
  UniqueFd err = AboveStdio(memfd_create("hangar-err", MFD_CLOEXEC));
  UniqueFd in = AboveStdio(input ? memfd_create("hangar-in", MFD_CLOEXEC)
                                 : open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (input && in.get() >= 0) {
    size_t done = 0;
    while (done < input->size()) {
      ssize_t n = write(in.get(), input->data() + done, input->size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      done += size_t(n);
    }
    if (done != input->size() || lseek(in.get(), 0, SEEK_SET) != 0) in.Reset();
  }
  UniqueFd cwd = AboveStdio(open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (out.get() < 0 || err.get() < 0 || in.get() < 0 || cwd.get() < 0) {
    r.error = std::string("cannot prepare its stdio: ") + std::strerror(errno);
    return r;
  }
  ChildEnd e = RunChild(program, argv, env, {cwd.get(), in.get(), out.get(), err.get()}, timeout);
  r.started = e.started;
  r.out = ReadCaptured(out.get(), kKeep);
  r.err = ReadCaptured(err.get(), kKeep);
  if (!e.started) {
    r.error = e.error;
  } else if (e.timed_out) {
    r.error = "timed out after " + std::to_string(timeout.count()) + " ms";
  } else if (e.rc) {
    r.rc = e.rc;
  } else {
    r.error = e.signal ? "killed by signal " + std::to_string(*e.signal) : e.error;
  }
  return r;
}

}  // namespace hangar
