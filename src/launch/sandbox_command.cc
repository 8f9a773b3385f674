#include "launch/sandbox_command.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "kernel/path_norm.h"
#include "launch/drone_exec.h"
#include "shell/landlock.h"

namespace hangar {

namespace {

// Why the plan's user could not execute PROGRAM (a path; relative: from the room), judged on the
// host before any launcher or sandbox starts, so that every launcher and sandbox fails the launch
// with the same reason instead of a drone that "exited 1" or 127 (bwrap's or hangar-confine's
// execvp failing inside). "" when it can, as far as the mode bits say.
std::string NotExecutableBy(const std::string& program, const Plan& plan) {
  const std::string full = program[0] == '/' ? program : plan.room + "/" + program;
  struct stat st {};
  if (stat(full.c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  const uid_t uid = plan.uid >= 0 ? uid_t(plan.uid) : geteuid();
  const gid_t gid = plan.gid >= 0 ? gid_t(plan.gid) : getegid();
  const mode_t bit = uid == 0           ? (S_IXUSR | S_IXGRP | S_IXOTH)
                     : st.st_uid == uid ? S_IXUSR
                     : st.st_gid == gid ? S_IXGRP
                                        : S_IXOTH;
  if (!(st.st_mode & bit)) return std::string(std::strerror(EACCES)) + " (not executable)";
  return "";
}

// The sandbox cuts the drone's network: any network but "host".
bool CutsNetwork(const Plan& plan) {
  return plan.network != "host";
}

}  // namespace

Result<std::string> PlanProgram(const Plan& plan) {
  const std::string& name = plan.argv[0];
  auto path = plan.env.find("PATH");
  std::optional<std::string> exe =
      FindProgram(name, path == plan.env.end() ? "" : path->second, plan.room);
  if (!exe) return Status::NotFound("cannot execute " + name + ": " + std::strerror(ENOENT));
  if (std::string why = NotExecutableBy(*exe, plan); !why.empty())
    return Status::NotFound("cannot execute " + name + ": " + why);
  return *exe;
}

Result<DroneCommand> PlanCommand(const Plan& plan, const std::string& run_now) {
  Result<std::string> exe = PlanProgram(plan);
  if (!exe.ok()) return exe.status();
  return SandboxCommand(plan, *exe, ConfineProgram(), LandlockAbi(), run_now);
}

std::string RunRelative(const Plan& plan, const std::string& path) {
  if (!PathInside(path, plan.run) || path.rfind(plan.run + "/", 0) != 0) return "";
  return path.substr(plan.run.size() + 1);
}

std::string InRunNow(const Plan& plan, const std::string& run_now, const std::string& path) {
  const std::string below = RunRelative(plan, path);
  return run_now.empty() || run_now == plan.run || below.empty() ? path : run_now + "/" + below;
}

std::string ConfineProgram() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (ec ? std::filesystem::path("/proc/self/exe") : self).parent_path() / "hangar-confine";
}

Status HandOverRoom(const Plan& plan, int last_message) {
  if (plan.uid < 0) return Status::Ok();
  const uid_t uid = uid_t(plan.uid);
  const gid_t gid = gid_t(plan.gid);
  Result<UniqueFd> room = OpenRoom(plan.room);
  if (!room.ok()) return room.status();
  if (fchown(room->get(), uid, gid) != 0)
    return Status::Errno("give room " + plan.room + " to uid " + std::to_string(uid), errno);
  std::vector<std::string> dirs = plan.room_dirs;
  dirs.push_back("ops");
  for (const std::string& d : dirs)
    if (fchownat(room->get(), d.c_str(), uid, gid, AT_SYMLINK_NOFOLLOW) != 0 && errno != ENOENT)
      return Status::Errno("give " + plan.room + "/" + d + " to uid " + std::to_string(uid), errno);
  if (!plan.last_message.empty()) {
    UniqueFd fd(last_message >= 0
                    ? dup(last_message)
                    : open(plan.last_message.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (fd.get() < 0 || fchown(fd.get(), uid, gid) != 0)
      return Status::Errno("give " + plan.last_message + " to uid " + std::to_string(uid), errno);
  }
  return Status::Ok();
}

bool SandboxCutsNetwork(const Plan& plan) {
  return plan.sandbox.engine == "namespaces" && CutsNetwork(plan);
}

Result<DroneCommand> SandboxCommand(const Plan& plan, const std::string& program,
                                    const std::string& confine, int kernel_abi,
                                    const std::string& run_now) {
  if (plan.sandbox.engine == "none") {
    DroneCommand cmd;
    cmd.exe = program;
    cmd.argv = plan.argv;
    return cmd;
  }
  if (!SandboxedEngine(plan.sandbox.engine))
    return Status::Invalid("sandbox engine \"" + plan.sandbox.engine + "\" is unknown");
  if (plan.sandbox.write.empty() || plan.sandbox.write[0] != plan.room)
    return Status::Invalid("the plan's sandbox does not bind its room first");
  if (plan.sandbox.landlock_abi >= kLandlockHidesFrom && kernel_abi < kLandlockHidesFrom)
    return Status::Unavailable(
        "the plan's sandbox hides paths by a Landlock ruleset (ABI " +
        std::to_string(plan.sandbox.landlock_abi) + " on hangard's host), and this kernel has " +
        (kernel_abi > 0 ? "ABI " + std::to_string(kernel_abi) + ", too old to make it"
                        : "no Landlock") +
        ": the drone is not run in less of a sandbox than its plan");
  BwrapSpec spec;
  spec.bwrap = plan.sandbox.bwrap;
  spec.confine = confine;
  spec.hide = plan.sandbox.hide;
  spec.room = plan.room;
  spec.writes.assign(plan.sandbox.write.begin() + 1, plan.sandbox.write.end());
  if (!plan.last_message.empty() && !PathInside(plan.last_message, plan.room)) {
    spec.last_message = plan.last_message;
    if (std::string now = InRunNow(plan, run_now, plan.last_message); now != plan.last_message)
      spec.last_message_now = now;
  }
  spec.cut_network = CutsNetwork(plan);
  if (plan.network == "egress") {
    spec.egress_socket = plan.egress.socket;
    spec.forwarder = plan.egress.forwarder;
    spec.forward_port = plan.egress.port;
  }
  spec.shm_mb = plan.shm_mb;
  spec.landlock = kernel_abi >= kLandlockHidesFrom;
  spec.namespaces = plan.sandbox.engine == "namespaces";
  return BwrapCommand(spec, program, {plan.argv.begin() + 1, plan.argv.end()});
}

}  // namespace hangar
