#include "shell/namespace_sandbox.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/mount.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "kernel/path_norm.h"
#include "shell/network_namespace.h"

namespace hangar {

namespace {

std::string Cannot(const std::string& what, int err) {
  return "cannot " + what + ": " + std::strerror(err);
}

std::string WriteFile(const char* path, const std::string& text) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Cannot(std::string("open ") + path, errno);
  const ssize_t n = write(fd, text.data(), text.size());
  const int err = errno;
  close(fd);
  if (n != ssize_t(text.size())) return Cannot(std::string("write ") + path, n < 0 ? err : EIO);
  return "";
}

int OpenTree(const std::string& path, unsigned flags) {
  return int(syscall(SYS_open_tree, AT_FDCWD, path.c_str(), flags | OPEN_TREE_CLOEXEC));
}

// Attaches the detached mount TREE at PATH and closes TREE. An error message, or "". With GONE_OK,
// a PATH that no longer exists is no error (a hidden file removed meanwhile, see Hide).
std::string Attach(int tree, const std::string& path, bool gone_ok = false) {
  const long rc =
      syscall(SYS_move_mount, tree, "", AT_FDCWD, path.c_str(), MOVE_MOUNT_F_EMPTY_PATH);
  const int err = errno;
  close(tree);
  return rc == 0 || (gone_ok && err == ENOENT) ? "" : Cannot("mount " + path, err);
}

int SetAttr(int dfd, const char* path, unsigned flags, uint64_t set, uint64_t clear = 0) {
  mount_attr a{};
  a.attr_set = set;
  a.attr_clr = clear;
  return int(syscall(SYS_mount_setattr, dfd, path, flags, &a, sizeof a));
}

// Makes the mount point PATH (a directory, or an empty file) and its missing parents. Only ever
// made inside a tmpfs of this sandbox: the machine is read-only when it runs (EROFS elsewhere).
std::string MakeMountPoint(const std::string& path, bool directory) {
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) return "";
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string up = path.substr(0, slash);
    if (lstat(up.c_str(), &st) != 0 && mkdir(up.c_str(), 0755) != 0 && errno != EEXIST)
      return Cannot("make the mount point " + up, errno);
  }
  if (directory) {
    if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
      return Cannot("make the mount point " + path, errno);
    return "";
  }
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0 && errno != EEXIST) return Cannot("make the mount point " + path, errno);
  if (fd >= 0) close(fd);
  return "";
}

// A wait status as an exit status: the code, or 128 + N for signal N (as a shell says it).
int ExitCode(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

[[noreturn]] void WaitAndExit(pid_t child) {
  int status = 0;
  pid_t ended;
  while ((ended = waitpid(child, &status, 0)) < 0 && errno == EINTR) {
  }
  _exit(ended == child ? ExitCode(status) : 126);
}

// Hidden paths come in two groups: those under /proc (IN_PROC), hidden inside the namespace's own
// /proc by its first process once it has mounted it, and the rest, hidden before.

// One read-only, nodev clone of /dev/null for each hidden file of the group, in NULLS at the
// file's index (-1 for the other group's). Cloned before anything covers /dev/null.
std::string CloneNulls(const NamespaceSandbox& s, bool in_proc, std::vector<int>* nulls) {
  for (const std::string& f : s.hide_files) {
    int tree = -1;
    if (PathInside(f, "/proc") == in_proc) {
      tree = OpenTree("/dev/null", OPEN_TREE_CLONE);
      if (tree < 0 || SetAttr(tree, "", AT_EMPTY_PATH,
                              MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV) != 0)
        return Cannot("bind /dev/null to hide " + f, errno);
    }
    nulls->push_back(tree);
  }
  return "";
}

// The group's hiding mounts: an empty tmpfs over each directory (listed in COVERED), a clone of
// NULLS over each file. Each tmpfs is made read-only later (ReadOnlyCovers), once the binds
// beneath it are made. A path gone since the caller listed it (a user removed meanwhile, a
// credentials directory deleted) has nothing to read: it is passed over, as the caller passes over
// one already gone when it lists them (shell/bwrap_command.cc), and what appears there later is no
// more hidden than anything made after the sandbox.
std::string Hide(const NamespaceSandbox& s, bool in_proc, const std::vector<int>& nulls,
                 std::vector<std::string>* covered) {
  for (const std::string& d : s.hide_dirs) {
    if (PathInside(d, "/proc") != in_proc) continue;
    if (mount("tmpfs", d.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") == 0)
      covered->push_back(d);
    else if (errno != ENOENT)
      return Cannot("hide " + d, errno);
  }
  for (size_t i = 0; i < s.hide_files.size(); i++)
    if (nulls[i] >= 0)
      if (std::string why = Attach(nulls[i], s.hide_files[i], true); !why.empty()) return why;
  return "";
}

// What the namespace's first process and the one that waits for it need no more: every
// capability, a working directory on the host's mounts (inherited: the room beneath the covers),
// and being traced or dumped by the drone.
std::string Retire() {
  if (chdir("/") != 0) return Cannot("leave the working directory", errno);
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return Cannot("become undumpable", errno);
  return DropAllCapabilities();
}

// The device nodes bwrap's --dev binds from the host.
constexpr const char* kDevNodes[] = {"null", "zero", "full", "random", "urandom", "tty"};

// A /dev of its own over the read-only machine: a tmpfs, the host's nodes (cloned in NODES, -1 for
// one the host lacks) bound in, a devpts instance, the standard links, /dev/shm.
std::string MakeDev(const int (&nodes)[std::size(kDevNodes)], int64_t shm_bytes) {
  if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
    return Cannot("mount a tmpfs on /dev", errno);
  for (size_t i = 0; i < std::size(kDevNodes); i++) {
    if (nodes[i] < 0) continue;
    const std::string at = std::string("/dev/") + kDevNodes[i];
    if (std::string why = MakeMountPoint(at, false); !why.empty()) return why;
    if (std::string why = Attach(nodes[i], at); !why.empty()) return why;
  }
  if (mkdir("/dev/pts", 0755) != 0 || mkdir("/dev/shm", 01777) != 0 ||
      chmod("/dev/shm", 01777) != 0)
    return Cannot("make /dev/pts and /dev/shm", errno);
  if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
            "newinstance,ptmxmode=0666,mode=620") != 0)
    return Cannot("mount devpts on /dev/pts", errno);
  if (shm_bytes > 0 && mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV,
                             ("mode=1777,size=" + std::to_string(shm_bytes)).c_str()) != 0)
    return Cannot("mount a tmpfs on /dev/shm", errno);
  const char* links[][2] = {{"/proc/self/fd", "/dev/fd"},       {"/proc/self/fd/0", "/dev/stdin"},
                            {"/proc/self/fd/1", "/dev/stdout"}, {"/proc/self/fd/2", "/dev/stderr"},
                            {"/proc/kcore", "/dev/core"},       {"pts/ptmx", "/dev/ptmx"}};
  for (const auto& l : links)
    if (symlink(l[0], l[1]) != 0) return Cannot(std::string("link ") + l[1], errno);
  return "";
}

// PID 1 of the new PID namespace: a /proc of its own (with the hidden paths under it, as bwrap
// mounts --proc before them), then the drone's process, which returns ""; this one drops what it
// holds, reaps until the drone's process ends and exits with its status.
std::string BecomeInit(const NamespaceSandbox& s) {
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
    return Cannot("mount /proc", errno);
  // What bwrap's --proc leaves read-only: the host's settings, reachable through any /proc.
  for (const char* sub : {"sys", "sysrq-trigger", "irq", "bus"}) {
    const std::string p = std::string("/proc/") + sub;
    if (mount(p.c_str(), p.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
      if (errno == ENOENT) continue;
      return Cannot("bind " + p, errno);
    }
    if (SetAttr(AT_FDCWD, p.c_str(), AT_RECURSIVE,
                MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC) != 0)
      return Cannot("make " + p + " read-only", errno);
  }
  std::vector<int> nulls;
  if (std::string why = CloneNulls(s, true, &nulls); !why.empty()) return why;
  std::vector<std::string> covered;
  if (std::string why = Hide(s, true, nulls, &covered); !why.empty()) return why;
  if (std::string why = ReadOnlyCovers(covered); !why.empty()) return why;
  const pid_t drone = fork();
  if (drone < 0) return Cannot("fork the drone's process", errno);
  if (drone == 0) {
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    if (chdir(s.chdir.c_str()) != 0) return Cannot("enter " + s.chdir, errno);
    return DropAllCapabilities();
  }
  if (!Retire().empty()) {
    kill(drone, SIGKILL);
    _exit(126);
  }
  for (;;) {
    int status = 0;
    const pid_t ended = wait(&status);
    if (ended == drone) _exit(ExitCode(status));
    if (ended < 0 && errno != EINTR) _exit(126);
  }
}

}  // namespace

std::string ReadOnlyCovers(const std::vector<std::string>& covered) {
  for (const std::string& d : covered)
    if (SetAttr(AT_FDCWD, d.c_str(), 0, MOUNT_ATTR_RDONLY) != 0 && errno != ENOENT)
      return Cannot("make " + d + " read-only", errno);
  return "";
}

std::vector<std::string> NamespaceSandboxArgs(const NamespaceSandbox& s) {
  std::vector<std::string> a;
  if (!s.cut_network) a.push_back("--share-net");
  if (s.shm_bytes > 0) a.insert(a.end(), {"--shm", std::to_string(s.shm_bytes)});
  for (const std::string& d : s.hide_dirs) a.insert(a.end(), {"--hide-dir", d});
  for (const std::string& f : s.hide_files) a.insert(a.end(), {"--hide-file", f});
  for (const NamespaceSandbox::Bind& b : s.binds)
    if (b.before.empty())
      a.insert(a.end(), {b.writable ? "--bind" : "--ro-bind", std::to_string(b.fd), b.path});
    else
      a.insert(a.end(), {"--bind-moving", std::to_string(b.fd), b.before, b.path});
  if (!s.socket.empty()) a.insert(a.end(), {"--socket", s.socket});
  a.insert(a.end(), {"--chdir", s.chdir, "--"});
  return a;
}

std::string ParseNamespaceSandboxArgs(int argc, char** argv, int* at, NamespaceSandbox* s) {
  *s = NamespaceSandbox{};
  auto path = [](const char* p) { return p[0] == '/'; };
  // A bind's inherited descriptor: above 2, in decimal; -1 when not.
  auto descriptor = [](const char* text) {
    char* end = nullptr;
    const long fd = std::strtol(text, &end, 10);
    return *end == '\0' && fd >= 3 && fd <= 1 << 20 ? int(fd) : -1;
  };
  for (int i = *at; i < argc;) {
    const std::string a = argv[i];
    const int left = argc - i - 1;  // the arguments after a
    if (a == "--") {
      if (s->chdir.empty()) return "--sandbox: expected --chdir DIR before --";
      *at = i + 1;
      return "";
    }
    if (a == "--share-net") {
      s->cut_network = false;
      i += 1;
    } else if (a == "--shm" && left >= 1) {
      char* end = nullptr;
      errno = 0;
      s->shm_bytes = std::strtoll(argv[i + 1], &end, 10);
      if (*end != '\0' || s->shm_bytes <= 0 || errno == ERANGE)
        return "--sandbox --shm: expected a size in bytes";
      i += 2;
    } else if ((a == "--hide-dir" || a == "--hide-file" || a == "--socket" || a == "--chdir") &&
               left >= 1) {
      if (!path(argv[i + 1])) return "--sandbox " + a + ": expected an absolute path";
      if (a == "--hide-dir") s->hide_dirs.emplace_back(argv[i + 1]);
      if (a == "--hide-file") s->hide_files.emplace_back(argv[i + 1]);
      if (a == "--socket") s->socket = argv[i + 1];
      if (a == "--chdir") s->chdir = argv[i + 1];
      i += 2;
    } else if ((a == "--bind" || a == "--ro-bind") && left >= 2) {
      const int fd = descriptor(argv[i + 1]);
      if (fd < 0 || !path(argv[i + 2]))
        return "--sandbox " + a + ": expected a descriptor above 2 and an absolute path";
      s->binds.push_back({fd, argv[i + 2], a == "--bind", ""});
      i += 3;
    } else if (a == "--bind-moving" && left >= 3) {
      const int fd = descriptor(argv[i + 1]);
      if (fd < 0 || !path(argv[i + 2]) || !path(argv[i + 3]))
        return "--sandbox --bind-moving: expected a descriptor above 2 and two absolute paths";
      s->binds.push_back({fd, argv[i + 3], true, argv[i + 2]});
      i += 4;
    } else {
      return "--sandbox: unexpected " + a + " (or its arguments missing)";
    }
  }
  return "--sandbox: expected -- after its arguments";
}

std::string DropAllCapabilities() {
  for (int cap = 0; cap < 64; cap++)
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
      if (errno == EINVAL) break;  // past the last capability this kernel knows
      return Cannot("drop capability " + std::to_string(cap) + " from the bounding set", errno);
    }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
    return Cannot("clear the ambient capabilities", errno);
  __user_cap_header_struct head{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capset, &head, none) != 0) return Cannot("drop every capability", errno);
  return "";
}

std::string NamespaceSandboxUnavailable(int64_t uid, int64_t gid) {
  // The child's step that failed, and its errno, through a pipe.
  int said[2];
  if (pipe2(said, O_CLOEXEC) != 0) return Cannot("make a pipe", errno);
  const pid_t child = fork();
  if (child < 0) {
    const int err = errno;
    close(said[0]);
    close(said[1]);
    return Cannot("fork", err);
  }
  if (child == 0) {
    close(said[0]);
    int step = 0;
    if (uid >= 0 && (setgroups(0, nullptr) != 0 || setresgid(gid_t(gid), gid_t(gid), gid_t(gid)) ||
                     setresuid(uid_t(uid), uid_t(uid), uid_t(uid))))
      step = 1;
    else if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
      step = 2;
    else if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
             SetAttr(AT_FDCWD, "/", AT_RECURSIVE, MOUNT_ATTR_RDONLY) != 0)
      step = 3;
    const int report[2] = {step, step ? errno : 0};
    (void)!write(said[1], report, sizeof report);
    _exit(0);
  }
  close(said[1]);
  // Once it runs as the drones' user, any process of that user may stop it: hangard's start waits
  // for it 5 s at most, then kills it.
  int report[2] = {0, 0};
  pollfd p{said[0], POLLIN, 0};
  int ready;
  while ((ready = poll(&p, 1, 5000)) < 0 && errno == EINTR) {
  }
  const ssize_t n = ready > 0 ? read(said[0], report, sizeof report) : -1;
  close(said[0]);
  kill(child, SIGKILL);  // done already, or stopped
  while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
  }
  if (ready == 0) return "the probe did not answer within 5 s (stopped?)";
  if (n != ssize_t(sizeof report)) return "the probe ended without saying";
  const char* what[] = {"", "become the drone's user", "unshare a user and a mount namespace",
                        "make a mount tree read-only (mount_setattr, Linux 5.12)"};
  return report[0] == 0 ? "" : Cannot(what[report[0]], report[1]);
}

std::string EnterNamespaceSandbox(const NamespaceSandbox& s) {
  const uid_t uid = geteuid();
  const gid_t gid = getegid();
  // Before anything: a TERM to the drone's group is for the drone (BecomeInit restores it there);
  // children are waited for (an ignored SIGCHLD, inherited, would reap them unseen).
  signal(SIGTERM, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGCHLD, SIG_DFL);
  // A network namespace entered before (network_entered) is checked, not made.
  const bool make_net = s.cut_network && !s.network_entered;
  if (s.cut_network && s.network_entered)
    if (std::string why = OnlyLoopback(); !why.empty()) return why;
  const int flags =
      CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWPID | (make_net ? CLONE_NEWNET : 0);
  if (unshare(flags) != 0) return Cannot("unshare the sandbox's namespaces", errno);
  for (const auto& [file, text] :
       {std::pair<const char*, std::string>{"/proc/self/setgroups", "deny"},
        {"/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1"},
        {"/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1"},
        // No user namespace inside this one (bwrap's --disable-userns); written while /proc/sys
        // is writable, before the machine is read-only.
        {"/proc/sys/user/max_user_namespaces", "0"}})
    if (std::string why = WriteFile(file, text); !why.empty()) return why;
  if (make_net)
    if (std::string why = LoopbackUp(); !why.empty()) return why;
  // Nothing mounted here reaches the host (the tree's mounts are copies, shared until now).
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return Cannot("make the sandbox's mounts private", errno);

  // Everything bound is cloned before anything covers it or the machine goes read-only.
  std::vector<int> binds;
  std::vector<bool> directory;
  for (const NamespaceSandbox::Bind& b : s.binds) {
    // One that may not be at its path yet is looked for where it was, then at its path: the
    // launch's move may come between the two (a rename: the file is at one or the other).
    const unsigned clone = OPEN_TREE_CLONE | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW;
    int tree = b.before.empty() ? -1 : OpenTree(b.before, clone);
    if (tree < 0) tree = OpenTree(b.path, clone);
    if (tree < 0) return Cannot("bind " + b.path + " into the sandbox", errno);
    struct stat cloned {
    }, opened{};
    if (fstat(tree, &cloned) != 0 || fstat(b.fd, &opened) != 0)
      return Cannot("examine " + b.path, errno);
    if (cloned.st_dev != opened.st_dev || cloned.st_ino != opened.st_ino)
      return "cannot bind " + b.path +
             " into the sandbox: it is no longer the file hangar opened (replaced since)";
    const uint64_t attrs =
        MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (b.writable ? 0 : MOUNT_ATTR_RDONLY);
    if (SetAttr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, attrs) != 0)
      return Cannot("set the mount flags of " + b.path, errno);
    binds.push_back(tree);
    directory.push_back(S_ISDIR(opened.st_mode));
    // Opened in the host's mounts, where its ".." leads out of every cover: not for the drone.
    close(b.fd);
  }
  int socket_tree = -1;
  if (!s.socket.empty()) {
    socket_tree = OpenTree(s.socket, OPEN_TREE_CLONE | AT_SYMLINK_NOFOLLOW);
    // Read-only: connect(2) works through it; chmod and touch of the proxy's socket do not.
    if (socket_tree < 0 || SetAttr(socket_tree, "", AT_EMPTY_PATH,
                                   MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_RDONLY) != 0)
      return Cannot("bind " + s.socket + " into the sandbox", errno);
  }
  std::vector<int> nulls;  // for the hidden files outside /proc (BecomeInit clones its own)
  if (std::string why = CloneNulls(s, false, &nulls); !why.empty()) return why;
  int nodes[std::size(kDevNodes)];  // the only mounts here where a device node opens
  for (size_t i = 0; i < std::size(kDevNodes); i++) {
    nodes[i] = OpenTree(std::string("/dev/") + kDevNodes[i], OPEN_TREE_CLONE);
    if (nodes[i] < 0 && errno != ENOENT)
      return Cannot(std::string("bind /dev/") + kDevNodes[i], errno);
    // Read-only: the node still reads and writes, but a root-run drone cannot chmod or touch the
    // host's own (chmod 000 /dev/null would break every program of the machine).
    if (nodes[i] >= 0 &&
        SetAttr(nodes[i], "", AT_EMPTY_PATH, MOUNT_ATTR_NOSUID | MOUNT_ATTR_RDONLY) != 0)
      return Cannot(std::string("bind /dev/") + kDevNodes[i], errno);
  }

  // The machine read-only, nosuid and nodev (no device node opens but /dev's own), then what is
  // made over it, in bwrap's order: /dev (and /proc, in BecomeInit) first, so that a hidden path
  // beneath them is hidden; the hidden paths before the binds, so that a room inside a hidden
  // directory (the spool) is visible again, and only the room.
  if (SetAttr(AT_FDCWD, "/", AT_RECURSIVE,
              MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV) != 0)
    return Cannot("make the machine read-only", errno);
  if (std::string why = MakeDev(nodes, s.shm_bytes); !why.empty()) return why;
  std::vector<std::string> covered;  // the hidden directories' tmpfs, made read-only below
  if (std::string why = Hide(s, false, nulls, &covered); !why.empty()) return why;
  for (size_t i = 0; i < s.binds.size(); i++) {
    if (std::string why = MakeMountPoint(s.binds[i].path, directory[i]); !why.empty()) return why;
    if (std::string why = Attach(binds[i], s.binds[i].path); !why.empty()) return why;
  }
  if (socket_tree >= 0) {
    if (std::string why = MakeMountPoint(s.socket, false); !why.empty()) return why;
    if (std::string why = Attach(socket_tree, s.socket); !why.empty()) return why;
  }
  // Once every bind is made beneath them: nothing writable but the binds, /dev/pts and /dev/shm.
  if (std::string why = ReadOnlyCovers(covered); !why.empty()) return why;
  if (SetAttr(AT_FDCWD, "/dev", 0, MOUNT_ATTR_RDONLY) != 0)
    return Cannot("make /dev read-only", errno);

  // The first process of the new PID namespace, which dies with this one; this one waits.
  int alive[2];
  if (pipe2(alive, O_CLOEXEC) != 0) return Cannot("make a pipe", errno);
  const pid_t init = fork();
  if (init < 0) return Cannot("fork the sandbox's first process", errno);
  if (init > 0) {
    close(alive[0]);
    if (!Retire().empty()) {
      kill(init, SIGKILL);
      _exit(126);
    }
    WaitAndExit(init);
  }
  close(alive[1]);
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return Cannot("set the death signal", errno);
  // Gone before the death signal was set: its write end is closed, the pipe reads its end.
  pollfd p{alive[0], POLLIN, 0};
  if (poll(&p, 1, 0) != 0) _exit(126);
  close(alive[0]);
  return BecomeInit(s);
}

}  // namespace hangar
