#include "shell/git.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "shell/child_run.h"

namespace hangar {

namespace {

constexpr size_t kMaxOut = size_t(16) << 20, kMaxErr = size_t(64) << 10;

// The environment of every git hangar runs: nothing of hangard's, nothing of a user's.
std::map<std::string, std::string> GitEnv(const GitCall& call) {
  std::map<std::string, std::string> env = {
      {"PATH", "/usr/bin:/bin"},    {"HOME", "/nonexistent"},           {"LC_ALL", "C"},
      {"GIT_CONFIG_NOSYSTEM", "1"}, {"GIT_CONFIG_GLOBAL", "/dev/null"}, {"GIT_ATTR_NOSYSTEM", "1"},
      {"GIT_TERMINAL_PROMPT", "0"}, {"GIT_NO_REPLACE_OBJECTS", "1"},    {"GIT_OPTIONAL_LOCKS", "0"},
      {"GIT_PAGER", "cat"},
  };
  if (!call.git_dir.empty()) env["GIT_DIR"] = call.git_dir;
  if (!call.work_tree.empty()) env["GIT_WORK_TREE"] = call.work_tree;
  for (const auto& [k, v] : call.env) env[k] = v;
  return env;
}

std::vector<std::string> GitArgv(const GitCall& call) {
  std::vector<std::string> argv = {"git", "--no-pager",
                                   "-c",  "core.hooksPath=/dev/null",
                                   "-c",  "core.fsmonitor=false",
                                   "-c",  "core.untrackedCache=false",
                                   "-c",  "core.pager=cat",
                                   "-c",  "core.askPass=",
                                   "-c",  "credential.helper=",
                                   "-c",  "protocol.allow=never",
                                   "-c",  "gc.auto=0",
                                   "-c",  "maintenance.auto=false"};
  for (const std::string* dir : {&call.git_dir, &call.work_tree})
    if (!dir->empty()) {
      argv.push_back("-c");
      argv.push_back("safe.directory=" + *dir);
    }
  argv.insert(argv.end(), call.args.begin(), call.args.end());
  return argv;
}

std::string FirstLine(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

}  // namespace

const std::string& GitProgram() {
  static const std::string git = FindProgram("git", {{"PATH", "/usr/bin:/bin"}});
  return git;
}

std::string WithoutNewline(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

bool ObjectId(const std::string& text) {
  if (text.size() != 40 && text.size() != 64) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

GitRun RunGit(const GitCall& call) {
  GitRun r;
  const std::string what = "git " + (call.args.empty() ? std::string() : call.args[0]);
  if (GitProgram().empty()) {
    r.error = what + ": git is not installed (Debian package git)";
    return r;
  }
  UniqueFd out =
      call.out_fd >= 0 ? UniqueFd() : AboveStdio(memfd_create("hangar-git", MFD_CLOEXEC));
  UniqueFd err = AboveStdio(memfd_create("hangar-git-err", MFD_CLOEXEC));
  UniqueFd in = AboveStdio(open("/dev/null", O_RDONLY | O_CLOEXEC));
  UniqueFd cwd = AboveStdio(open(call.cwd.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if ((call.out_fd < 0 && out.get() < 0) || err.get() < 0 || in.get() < 0 || cwd.get() < 0) {
    r.error = what + ": cannot prepare its stdio and cwd " + call.cwd + ": " + std::strerror(errno);
    return r;
  }
  ChildFds fds{cwd.get(), in.get(), call.out_fd >= 0 ? call.out_fd : out.get(), err.get()};
  fds.uid = call.uid;
  fds.gid = call.gid;
  ChildEnd e = RunChild(GitProgram(), GitArgv(call), GitEnv(call), fds, call.timeout);
  if (call.out_fd < 0) {
    r.out = ReadCaptured(out.get(), kMaxOut);
    struct stat st {};
    r.out_cut = fstat(out.get(), &st) == 0 && size_t(st.st_size) > kMaxOut;
  }
  r.err = ReadCaptured(err.get(), kMaxErr);
  if (!e.started) {
    r.error = what + ": " + e.error;
  } else if (e.timed_out) {
    r.error = what + ": timed out after " + std::to_string(call.timeout.count() / 1000) + " s";
  } else if (!e.rc) {
    r.error = what + ": " + (e.signal ? "killed by signal " + std::to_string(*e.signal) : e.error);
  } else if (*e.rc != 0) {
    r.error = what + ": exit " + std::to_string(*e.rc);
    if (!r.err.empty()) r.error += ": " + FirstLine(r.err);
  } else {
    r.ok = true;
  }
  return r;
}

}  // namespace hangar
