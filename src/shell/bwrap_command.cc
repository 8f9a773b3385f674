#include "shell/bwrap_command.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "kernel/path_norm.h"
#include "shell/child_run.h"
#include "shell/landlock.h"
#include "shell/namespace_sandbox.h"
#include "shell/path_resolve.h"

namespace hangar {

std::vector<int> SandboxedCommand::inherit() const {
  std::vector<int> out;
  for (const UniqueFd& fd : fds) out.push_back(fd.get());
  if (room_fd >= 0 && (fds.empty() || fds[0].get() != room_fd)) out.push_back(room_fd);
  return out;
}

Result<UniqueFd> OpenWithoutLinks(const std::string& path) {
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const long fd = syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how);
  if (fd >= 0) return AboveStdio(int(fd));
  if (errno == ELOOP) {
    Result<std::string> now = ResolveExistingPath(path);
    return Status::Invalid("write " + path + " now resolves to " +
                           (now.ok() ? *now : "a path through a symbolic link") +
                           ": a symbolic link changed after the gate judged it");
  }
  return Status::Errno("bind " + path + " writable into the sandbox", errno);
}

Result<SandboxedCommand> BwrapCommand(const BwrapSpec& spec, const std::string& program,
                                      const std::vector<std::string>& args) {
  SandboxedCommand cmd;
  cmd.exe = spec.namespaces ? spec.confine : spec.bwrap;
  std::vector<std::string>& a = cmd.argv;
  NamespaceSandbox own;  // spec.namespaces: what CONFINE --sandbox makes
  own.cut_network = spec.cut_network;
  own.shm_bytes = spec.shm_mb << 20;
  own.chdir = spec.room;
  a = {spec.bwrap, "--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--ro-bind", "/", "/",
       "--dev",    "/dev",           "--proc",           "/proc"};
  if (spec.shm_mb > 0)
    a.insert(a.end(), {"--size", std::to_string(spec.shm_mb << 20), "--tmpfs", "/dev/shm"});
  // The hidden paths' mounts are written once the ruleset says which files it keeps hidden.
  std::vector<std::string> hidden_dirs, hidden_files;
  std::vector<std::string> ruled_hide;  // for Landlock (shell/landlock.h)
  DiskLook look;  // the homes' credentials share their directories: each walked once
  for (const std::string& h : spec.hide) {
    Result<std::string> real = ResolveExistingPath(h, "", &look);
    // Beneath a directory hangard may not enter (another user's home, when hangard is not root):
    // the drone, which runs with no more rights than hangard, cannot read it either.
    if (!real.ok() && real.status().sys_errno() == EACCES) continue;
    if (!real.ok()) return Status::Io("cannot hide " + h + ": " + real.status().message());
    // Landlock hides it whatever it names later, even when it does not exist yet.
    if (spec.landlock) ruled_hide.push_back(*real);
    bool covered = false;  // inside a directory already hidden (the config in the spool)
    for (const std::string& d : hidden_dirs) covered = covered || PathInside(*real, d);
    if (covered) continue;
    struct stat st {};
    if (const int err = look.Lstat(*real, &st); err != 0) {
      if (err == ENOENT || err == ENOTDIR || err == EACCES) continue;  // nothing to read
      return Status::Errno("hide " + *real, err);
    }
    (S_ISDIR(st.st_mode) ? hidden_dirs : hidden_files).push_back(*real);
  }
  std::vector<std::string> binds;  // the room, the writes, the last-message file
  std::vector<int> see;            // their descriptors, which the ruleset lets the drone read
  cmd.room_fd = spec.room_fd;
  if (cmd.room_fd < 0) {
    Result<UniqueFd> room = OpenRoom(spec.room);
    if (!room.ok()) return room.status();
    cmd.fds.emplace_back(fcntl(room->get(), F_DUPFD_CLOEXEC, 3));  // above 2, close-on-exec
    if (cmd.fds.back().get() < 0) return Status::Errno("duplicate the room's descriptor", errno);
    cmd.room_fd = cmd.fds.back().get();
  }
  binds.insert(binds.end(), {spec.room_writable ? "--bind-fd" : "--ro-bind-fd",
                             std::to_string(cmd.room_fd), spec.room});
  own.binds.push_back({cmd.room_fd, spec.room, spec.room_writable, ""});
  see.push_back(cmd.room_fd);
  for (const std::string& w : spec.writes) {
    Result<UniqueFd> fd = OpenWithoutLinks(w);
    if (!fd.ok()) return fd.status();
    binds.insert(binds.end(), {"--bind-fd", std::to_string(fd->get()), w});
    own.binds.push_back({fd->get(), w, true, ""});
    see.push_back(fd->get());
    cmd.fds.push_back(std::move(fd).value());
  }
  if (!spec.last_message.empty()) {
    const std::string& now =
        spec.last_message_now.empty() ? spec.last_message : spec.last_message_now;
    const int flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
    int opened = open(now.c_str(), flags);
    // The launch's move came first: the file is at its name now.
    if (opened < 0 && errno == ENOENT && now != spec.last_message)
      opened = open(spec.last_message.c_str(), flags);
    UniqueFd fd = AboveStdio(opened);
    struct stat st {};
    if (fd.get() < 0 || fstat(fd.get(), &st) != 0)
      return Status::Errno("bind " + spec.last_message + " writable into the sandbox", errno);
    if (!S_ISREG(st.st_mode))
      return Status::Invalid("bind " + spec.last_message +
                             " writable into the sandbox: not a regular file");
    binds.insert(binds.end(), {"--bind-fd", std::to_string(fd.get()), spec.last_message});
    own.binds.push_back({fd.get(), spec.last_message, true, spec.last_message_now});
    see.push_back(fd.get());
    cmd.fds.push_back(std::move(fd));
  }
  // The ruleset, made from the very descriptors bwrap binds (no path walked again). A hidden path
  // it cannot keep (under /proc or /dev, beneath a directory hangard cannot list) is left out.
  std::vector<std::string> kept;
  int ruleset = -1;
  if (!ruled_hide.empty())
    if (std::string why = ReadRuleset(ruled_hide, see, &ruleset, &kept, look.LstatFunction());
        !why.empty())
      return Status::Io("cannot make the Landlock ruleset that hides paths: " + why);
  if (ruleset >= 0) {
    cmd.fds.push_back(AboveStdio(ruleset));
    if (cmd.fds.back().get() < 0) return Status::Errno("keep the Landlock ruleset", errno);
  }
  for (const std::string& d : hidden_dirs) a.insert(a.end(), {"--tmpfs", d});
  own.hide_dirs = hidden_dirs;
  for (const std::string& f : hidden_files) {
    // A file the ruleset keeps gets no mount: a mount on a file the host replaces by rename
    // (useradd does so to /etc/gshadow) is detached, and fails the launch when the rename meets
    // bwrap's mount.
    // (Nor one inside a hidden directory, even one named after it: the tmpfs hides it.)
    bool ruled = false;
    for (const std::string& k : kept) ruled = ruled || PathInside(f, k);
    for (const std::string& d : hidden_dirs) ruled = ruled || PathInside(f, d);
    if (!ruled) a.insert(a.end(), {"--ro-bind", "/dev/null", f});
    if (!ruled) own.hide_files.push_back(f);
  }
  a.insert(a.end(), binds.begin(), binds.end());
  // The egress proxy's socket: hangar's own file in the hidden run directory (a drone never writes
  // there), bound at its path so the forwarder inside finds it where the plan says.
  if (!spec.egress_socket.empty())
    a.insert(a.end(), {"--bind", spec.egress_socket, spec.egress_socket});
  own.socket = spec.egress_socket;
  // Once every bind is made beneath them: the hiding tmpfs and /dev read-only, so that the drone
  // can write nowhere but its binds (and /dev/shm, whose size is capped).
  for (const std::string& d : hidden_dirs) a.insert(a.end(), {"--remount-ro", d});
  a.insert(a.end(), {"--remount-ro", "/dev"});
  a.insert(a.end(), {"--unshare-pid", "--unshare-ipc", "--die-with-parent"});
  if (spec.cut_network) a.push_back("--unshare-net");
  a.insert(a.end(), {"--chdir", spec.room, "--", spec.confine});
  if (spec.namespaces) {  // the same sandbox, made by CONFINE instead of bwrap
    a = {spec.confine, "--sandbox"};
    for (std::string& arg : NamespaceSandboxArgs(own)) a.push_back(std::move(arg));
  }
  if (!spec.egress_socket.empty())
    a.insert(a.end(),
             {"--forward", std::to_string(spec.forward_port), spec.forwarder, spec.egress_socket});
  // hangar-confine starts egress's forwarder before its filter; only Landlock keeps the drone, its
  // parent-to-be, from tracing it (a less restricted process). No egress without it.
  if (!spec.egress_socket.empty() && ruleset < 0)
    return Status::Invalid(
        "network \"egress\" needs a Landlock ruleset (Landlock ABI 2 or later, and a hidden path): "
        "without it the drone could ptrace its forwarder, which the system-call filter does not "
        "bind");
  if (ruleset >= 0) a.insert(a.end(), {"--landlock", std::to_string(cmd.fds.back().get())});
  a.insert(a.end(), {spec.cut_network ? "unix-deny" : "unix-allow", program});
  a.insert(a.end(), args.begin(), args.end());
  return cmd;
}

}  // namespace hangar
