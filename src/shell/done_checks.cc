#include "shell/done_checks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "kernel/plan.h"
#include "shell/bwrap_command.h"
#include "shell/change.h"
#include "shell/child_run.h"
#include "shell/landlock.h"
#include "shell/manifest.h"

namespace hangar {

namespace {

// "regular file, N bytes" when PATH is one beneath ROOM (setting *passed), else why not.
std::string FileDetail(int room, const std::string& path, bool* passed) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (path.starts_with("/") || name.empty() || name == "." || name == "..") {
    return "not a path inside the room";
  }
  Result<UniqueFd> fd = OpenDirBeneath(room, dir);
  if (!fd.ok()) return fd.status().code() == Code::kNotFound ? "missing" : fd.status().message();
  struct stat st {};
  if (fstatat(fd->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return errno == ENOENT ? "missing" : Status::Errno("stat " + path, errno).message();
  }
  if (!S_ISREG(st.st_mode)) return NotRegularReason(st.st_mode);
  *passed = true;
  return "regular file, " + std::to_string(st.st_size) + " bytes";
}

json::Value Output(int fd, const std::string& name, std::string* error) {
  if (fsync(fd) != 0) *error = Status::Errno("fsync " + name, errno).message();
  Result<FileHash> h = HashFd(fd, INT64_MAX);
  if (!h.ok()) {
    *error = "cannot hash " + name + ": " + h.status().message();
    return nullptr;
  }
  json::Object o;
  o["file"] = name;
  o["size"] = h->size;
  o["sha256"] = h->sha256;
  return o;
}

json::Object RunCheck(const std::string& room_path, const Result<UniqueFd>& room,
                      const DoneCheck& c, const std::map<std::string, std::string>& env,
                      const std::string& out_dir, const CheckSandbox& sandbox, int n) {
  json::Object r{{"check", c.ToJson()}, {"passed", false},    {"rc", nullptr},
                 {"signal", nullptr},   {"timed_out", false}, {"duration_ms", 0},
                 {"output", nullptr},   {"error", nullptr}};
  const std::string program = c.argv.empty() ? "" : FindProgram(c.argv[0], env);
  std::string error;
  if (!room.ok()) {
    error = room.status().message();
  } else if (program.empty()) {
    error = "cannot run " + (c.argv.empty() ? "\"\"" : c.argv[0]) + ": program not found in PATH";
  } else if (!sandbox.namespaces && sandbox.bwrap.empty()) {
    error = "cannot run " + c.argv[0] +
            ": bubblewrap (bwrap) is not installed, and a check never runs unsandboxed";
  }
  Result<SandboxedCommand> cmd = Status::Invalid("not built");
  if (error.empty()) {
    BwrapSpec spec;
    spec.bwrap = sandbox.bwrap;
    spec.confine = sandbox.confine;
    spec.hide = sandbox.hide;
    spec.room = room_path;
    spec.room_fd = room->get();
    spec.room_writable = false;
    spec.shm_mb = sandbox.limits.shm_mb;
    spec.landlock = LandlockAbi() >= kLandlockHidesFrom;
    spec.namespaces = sandbox.namespaces;
    cmd = BwrapCommand(spec, program, {c.argv.begin() + 1, c.argv.end()});
    if (!cmd.ok()) error = "cannot sandbox " + c.argv[0] + ": " + cmd.status().message();
  }
  const std::string name = "check-" + std::to_string(n) + ".out";
  UniqueFd in, out;
  if (error.empty()) {
    in = AboveStdio(open("/dev/null", O_RDONLY | O_CLOEXEC));
    out = AboveStdio(open((out_dir + "/" + name).c_str(),
                          O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (in.get() < 0) error = Status::Errno("open /dev/null", errno).message();
    if (out.get() < 0) error = Status::Errno("create " + out_dir + "/" + name, errno).message();
  }
  if (!error.empty()) {
    r["error"] = error;
    return r;
  }
  ChildEnd e = RunChild(
      cmd->exe, cmd->argv, env,
      {room->get(), in.get(), out.get(), -1, cmd->inherit(), sandbox.limits.processes,
       sandbox.limits.file_mb, sandbox.limits.memory_mb, sandbox.uid, sandbox.gid, getpid()},
      std::chrono::milliseconds(c.timeout_ms));
  r["duration_ms"] = e.duration_ms;
  if (e.rc) r["rc"] = *e.rc;
  if (e.signal) r["signal"] = *e.signal;
  r["timed_out"] = e.timed_out;
  error = e.error;
  r["output"] = Output(out.get(), name, &error);
  if (!error.empty()) r["error"] = error;
  r["passed"] = error.empty() && !e.timed_out && e.rc && *e.rc == c.rc;
  return r;
}

}  // namespace

CheckRun RunDoneChecks(const std::string& room, const std::vector<DoneCheck>& checks,
                       const std::map<std::string, std::string>& env, const std::string& out_dir,
                       const CheckSandbox& sandbox, const json::Value& change) {
  CheckRun run;
  json::Array results;
  const Result<UniqueFd> room_fd = OpenRoom(room);
  bool wrote = false;
  for (size_t i = 0; i < checks.size(); i++) {
    const DoneCheck& c = checks[i];
    json::Object r;
    if (c.kind == DoneCheck::Kind::kFile) {
      bool passed = false;
      r["check"] = c.ToJson();
      r["detail"] =
          room_fd.ok() ? FileDetail(room_fd->get(), c.file, &passed) : room_fd.status().message();
      r["passed"] = passed;
    } else if (c.kind == DoneCheck::Kind::kChanged) {
      r = JudgeChange(c, change);
    } else {
      r = RunCheck(room, room_fd, c, env, out_dir, sandbox, int(i + 1));
      wrote = wrote || !r["output"].is_null();
    }
    run.all_passed = run.all_passed && r["passed"].as_bool();
    results.emplace_back(std::move(r));
  }
  if (wrote) {
    UniqueFd dir(open(out_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() >= 0) fsync(dir.get());  // the outputs' names, so that return.json's are durable
  }
  run.results = std::move(results);
  return run;
}

}  // namespace hangar
