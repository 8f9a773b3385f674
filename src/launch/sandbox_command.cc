#include "launch/sandbox_command.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "kernel/path_norm.h"
#include "launch/drone_exec.h"
#include "shell/path_resolve.h"

namespace hangar {

Result<DroneCommand> PlanCommand(const Plan& plan) {
  const std::string& name = plan.argv[0];
  auto path = plan.env.find("PATH");
  std::optional<std::string> exe =
      FindProgram(name, path == plan.env.end() ? "" : path->second, plan.room);
  if (!exe) return Status::NotFound("cannot execute " + name + ": " + std::strerror(ENOENT));
  return SandboxCommand(plan, *exe);
}

Result<DroneCommand> SandboxCommand(const Plan& plan, const std::string& program) {
  DroneCommand cmd;
  if (plan.sandbox.engine == "none") {
    cmd.exe = program;
    cmd.argv = plan.argv;
    return cmd;
  }
  if (plan.sandbox.engine != "bwrap")
    return Status::Invalid("sandbox engine \"" + plan.sandbox.engine + "\" is unknown");
  cmd.exe = plan.sandbox.bwrap;
  std::vector<std::string>& a = cmd.argv;
  a = {plan.sandbox.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"};
  for (const std::string& h : plan.sandbox.hide) {
    Result<std::string> real = ResolveExistingPath(h);
    if (!real.ok()) return Status::Io("cannot hide " + h + ": " + real.status().message());
    struct stat st {};
    if (lstat(real->c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) continue;  // nothing there to read
      return Status::Errno("hide " + *real, errno);
    }
    if (S_ISDIR(st.st_mode))
      a.insert(a.end(), {"--tmpfs", *real});
    else
      a.insert(a.end(), {"--ro-bind", "/dev/null", *real});
  }
  for (size_t i = 0; i < plan.sandbox.write.size(); i++) {
    const std::string& w = plan.sandbox.write[i];
    struct stat st {};
    if (stat(w.c_str(), &st) != 0)
      return Status::Errno("bind " + w + " writable into the sandbox", errno);
    if (i > 0) {
      Result<std::string> real = ResolveExistingPath(w);
      if (!real.ok()) return real.status();
      if (*real != w)
        return Status::Invalid("write " + w + " now resolves to " + *real +
                               ": a symbolic link changed after the gate judged it");
    }
    a.insert(a.end(), {"--bind", w, w});
  }
  if (!plan.last_message.empty() && !PathInside(plan.last_message, plan.room))
    a.insert(a.end(), {"--bind", plan.last_message, plan.last_message});
  a.insert(a.end(), {"--unshare-pid", "--unshare-ipc", "--die-with-parent"});
  if (plan.network != "host") a.push_back("--unshare-net");
  a.insert(a.end(), {"--chdir", plan.room, "--", program});
  a.insert(a.end(), plan.argv.begin() + 1, plan.argv.end());
  return cmd;
}

}  // namespace hangar
