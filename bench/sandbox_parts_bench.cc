// hangar-bench-sandbox-parts: what each mechanism a sandbox could be made of costs one launch on
// this machine (issue 26: "measure the alternatives ... and choose the fastest that keeps every
// sandbox guarantee"). Each way starts /bin/true N times from a small parent, waiting for each:
//
//   exec            fork and execve, nothing else: the floor of every way below
//   userns          + a user namespace of its own (uid and gid maps written)
//   userns+ro       + a mount namespace whose whole tree is made read-only by one
//                   mount_setattr(AT_RECURSIVE) (kernel 5.12), instead of a remount per mount
//   namespaces      hangar's shape without bwrap: user, mount, IPC, network and PID namespaces,
//                   the tree read-only, a /dev of its own as bwrap's --dev makes it, two hidden
//                   directories under empty read-only tmpfs, the room bound writable by path and
//                   checked against its descriptor, a /proc of the new PID namespace, nested user
//                   namespaces refused, every capability dropped; left out beside bwrap: the
//                   pivot into a new root
//   namespaces+net0 the same, but the network namespace entered (setns) from one made once at
//                   the start instead of a new one per launch (root only: the namespace belongs
//                   to the initial user namespace)
//   landlock+seccomp no namespace: a Landlock ruleset (read anywhere, write in the room) and a
//                   seccomp filter refusing unix sockets, as hangar-confine enters them
//   bwrap           bubblewrap with the argv hangar's shape gives it (shell/bwrap_command.h),
//                   without Landlock and hangar-confine
//
// Interleaved in rounds, so that a machine slowing down weighs on every way. Prints the median
// and p90 wall time per launch, the CPU time of the launched processes (getrusage of the reaped
// children) and of the whole machine (/proc/stat: a network namespace is torn down by a kernel
// worker, after its last process is gone) per launch. A way this machine cannot run is printed
// with its reason and left out. Writes JSON with --json FILE. These are costs, not a sandbox:
// which guarantees a way keeps is the sandbox tests' to prove (tests/blackbox/redteam_*).
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/mount.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "base/json.h"
#include "bench_cli.h"

namespace {

using namespace hangar;

// What the child of a launch was given: the scratch paths and the pre-made network namespace.
struct Scratch {
  std::string room, hide1, hide2;
  int room_fd = -1;  // the room, opened before any namespace (as BwrapCommand opens it)
  int net_fd = -1;   // an empty network namespace made once; -1 when it could not be
};

// The child's failure: a step's number as its exit status, so that the parent can say which.
[[noreturn]] void Fail(int step) {
  _exit(100 + step);
}

bool WriteProc(const char* path, const std::string& text) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, text.data(), text.size()) == ssize_t(text.size());
  close(fd);
  return ok;
}

// unshare(2) of FLAGS (CLONE_NEWUSER among them), the caller's ids mapped to themselves inside.
void Unshare(int flags) {
  const uid_t uid = geteuid();
  const gid_t gid = getegid();
  if (unshare(flags) != 0) Fail(7);
  if (!WriteProc("/proc/self/setgroups", "deny")) Fail(1);
  if (!WriteProc("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1"))
    Fail(2);
  if (!WriteProc("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1"))
    Fail(3);
}

int SetAttr(const char* path, unsigned flags, uint64_t set, uint64_t clr) {
  mount_attr a{};
  a.attr_set = set;
  a.attr_clr = clr;
  return int(syscall(SYS_mount_setattr, AT_FDCWD, path, flags, &a, sizeof a));
}

void ReadOnlyTree() {
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) Fail(4);
  if (SetAttr("/", AT_RECURSIVE, MOUNT_ATTR_RDONLY, 0) != 0) Fail(5);
}

[[noreturn]] void ExecTrue() {
  char prog[] = "/bin/true";
  char* argv[] = {prog, nullptr};
  char* envp[] = {nullptr};
  execve(prog, argv, envp);
  Fail(0);
}

// A /dev of its own over the read-only tree, as bwrap's --dev makes it: a tmpfs with the host's
// null, zero, full, random, urandom and tty bound in (cloned before the tmpfs covers them), a
// devpts instance, the standard links and an empty /dev/shm.
void MinimalDev() {
  const char* nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
  int trees[6];
  for (int i = 0; i < 6; ++i) {
    const std::string host = std::string("/dev/") + nodes[i];
    trees[i] = int(syscall(SYS_open_tree, AT_FDCWD, host.c_str(), OPEN_TREE_CLONE | O_CLOEXEC));
    if (trees[i] < 0) Fail(15);
  }
  if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") != 0) Fail(16);
  for (int i = 0; i < 6; ++i) {
    const std::string at = std::string("/dev/") + nodes[i];
    const int fd = open(at.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
    if (fd < 0) Fail(17);
    close(fd);
    if (syscall(SYS_move_mount, trees[i], "", AT_FDCWD, at.c_str(), MOVE_MOUNT_F_EMPTY_PATH) != 0)
      Fail(18);
    close(trees[i]);
  }
  if (mkdir("/dev/pts", 0755) != 0 || mkdir("/dev/shm", 01777) != 0) Fail(19);
  if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666") !=
      0)
    Fail(19);
  if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=268435456") != 0) Fail(19);
  const char* links[][2] = {{"/proc/self/fd", "/dev/fd"},
                            {"/proc/self/fd/0", "/dev/stdin"},
                            {"/proc/self/fd/1", "/dev/stdout"},
                            {"/proc/self/fd/2", "/dev/stderr"},
                            {"pts/ptmx", "/dev/ptmx"}};
  for (const auto& l : links)
    if (symlink(l[0], l[1]) != 0) Fail(19);
}

// Every capability gone, from the bounding set too, and none to be regained by an execve.
void DropCapabilities() {
  for (int cap = 0; cap <= CAP_LAST_CAP; ++cap)
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) Fail(28);
  __user_cap_header_struct head{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct none[2] = {};
  if (syscall(SYS_capset, &head, none) != 0) Fail(28);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) Fail(28);
}

// hangar's shape by hand: the namespaces, the tree read-only, the hidden directories emptied, the
// room writable, then a child as the PID namespace's first process with its own /proc.
[[noreturn]] void Namespaces(const Scratch& s, bool premade_net) {
  if (premade_net && setns(s.net_fd, CLONE_NEWNET) != 0) Fail(6);
  Unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWPID |
          (premade_net ? 0 : CLONE_NEWNET));
  // No user namespace inside this one (bwrap's --disable-userns), while /proc/sys is writable.
  if (!WriteProc("/proc/sys/user/max_user_namespaces", "0")) Fail(26);
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) Fail(4);
  // The room bound by path (a descriptor from outside the user namespace cannot be cloned), then
  // compared with the descriptor opened before, as bwrap's --bind-fd does.
  if (mount(s.room.c_str(), s.room.c_str(), nullptr, MS_BIND, nullptr) != 0) Fail(8);
  struct stat bound {
  }, opened{};
  if (stat(s.room.c_str(), &bound) != 0 || fstat(s.room_fd, &opened) != 0 ||
      bound.st_dev != opened.st_dev || bound.st_ino != opened.st_ino)
    Fail(27);
  if (SetAttr("/", AT_RECURSIVE, MOUNT_ATTR_RDONLY, 0) != 0) Fail(5);
  if (SetAttr(s.room.c_str(), 0, 0, MOUNT_ATTR_RDONLY) != 0) Fail(9);
  MinimalDev();
  if (SetAttr("/dev", 0, MOUNT_ATTR_RDONLY, 0) != 0) Fail(29);  // its shm and pts stay as made
  for (const std::string& h : {s.hide1, s.hide2})
    if (mount("tmpfs", h.c_str(), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=0") != 0)
      Fail(10);
  const pid_t pid = fork();
  if (pid < 0) Fail(11);
  if (pid == 0) {
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) Fail(12);
    if (chdir(s.room.c_str()) != 0) Fail(13);
    DropCapabilities();
    ExecTrue();
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) Fail(14);
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

[[noreturn]] void LandlockSeccomp(const Scratch& s) {
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = (LANDLOCK_ACCESS_FS_REFER << 1) - 1;  // ABI 2: every access it knows
  const int rs = int(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (rs < 0) Fail(20);
  const uint64_t read =
      LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
  for (const auto& [path, access] :
       {std::pair<std::string, uint64_t>{"/", read}, {s.room, attr.handled_access_fs}}) {
    landlock_path_beneath_attr pb{};
    pb.allowed_access = access;
    pb.parent_fd = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (pb.parent_fd < 0) Fail(21);
    if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0) Fail(22);
    close(pb.parent_fd);
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) Fail(23);
  if (syscall(SYS_landlock_restrict_self, rs, 0) != 0) Fail(24);
  sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{sizeof code / sizeof code[0], code};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) Fail(25);
  if (chdir(s.room.c_str()) != 0) Fail(13);
  ExecTrue();
}

[[noreturn]] void Bwrap(const Scratch& s) {
  std::vector<std::string> args = {"bwrap",
                                   "--unshare-user",
                                   "--disable-userns",
                                   "--cap-drop",
                                   "ALL",
                                   "--ro-bind",
                                   "/",
                                   "/",
                                   "--dev",
                                   "/dev",
                                   "--proc",
                                   "/proc",
                                   "--size",
                                   "268435456",
                                   "--tmpfs",
                                   "/dev/shm",
                                   "--tmpfs",
                                   s.hide1,
                                   "--tmpfs",
                                   s.hide2,
                                   "--bind",
                                   s.room,
                                   s.room,
                                   "--remount-ro",
                                   s.hide1,
                                   "--remount-ro",
                                   s.hide2,
                                   "--unshare-pid",
                                   "--unshare-ipc",
                                   "--unshare-net",
                                   "--die-with-parent",
                                   "--chdir",
                                   s.room,
                                   "--",
                                   "/bin/true"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  char* envp[] = {nullptr};
  execve("/usr/bin/bwrap", argv.data(), envp);
  Fail(30);
}

struct Way {
  std::string name;
  std::function<void()> child;  // runs in the forked child; never returns
  std::vector<double> wall_ms;
  double child_cpu_s = 0, machine_cpu_s = 0;
  std::string unavailable;
};

// The machine's busy CPU seconds so far (/proc/stat: user, nice, system, irq, softirq, steal).
double MachineCpu() {
  std::ifstream f("/proc/stat");
  std::string cpu;
  uint64_t v[8] = {};
  f >> cpu;
  for (uint64_t& x : v) f >> x;
  return double(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / double(sysconf(_SC_CLK_TCK));
}

// One launch; its exit status (0: /bin/true ran), or -1 when the fork failed.
int Launch(Way& w) {
  const auto t0 = bench::Clock::now();
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) w.child();
  int status = 0;
  waitpid(pid, &status, 0);
  w.wall_ms.push_back(bench::Since(t0) * 1000);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size())))];
}

double Round3(double x) {
  return std::round(x * 1000) / 1000;
}

// A network namespace with no interface but its loopback (down), made once by a child that says
// when it has unshared; its descriptor, which holds the namespace once the child is gone. -1 when
// it cannot be made.
int MakeEmptyNet() {
  int p[2];
  if (pipe(p) != 0) return -1;
  const pid_t keeper = fork();
  if (keeper < 0) return -1;
  if (keeper == 0) {
    close(p[0]);
    if (unshare(CLONE_NEWNET) != 0) _exit(1);
    (void)!write(p[1], "u", 1);
    pause();  // until the parent has opened the namespace and killed us
    _exit(0);
  }
  close(p[1]);
  char c;
  const bool unshared = read(p[0], &c, 1) == 1;
  close(p[0]);
  const int fd =
      unshared ? open(("/proc/" + std::to_string(keeper) + "/ns/net").c_str(), O_RDONLY | O_CLOEXEC)
               : -1;
  kill(keeper, SIGKILL);
  waitpid(keeper, nullptr, 0);
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"What each mechanism a sandbox could be made of costs one launch"};
  int n = 300, rounds = 5;
  std::string json_out;
  app.add_option("--n", n, "launches each way")->check(CLI::Range(1, 100000));
  app.add_option("--rounds", rounds, "rounds the launches are interleaved in")
      ->check(CLI::Range(1, 1000));
  app.add_option("--json", json_out, "write the figures to this file");
  bench::Parse(app, argc, argv);

  char dir[] = "/tmp/hangar-bench-sandbox-parts.XXXXXX";
  if (!mkdtemp(dir)) bench::Die(std::string("mkdtemp: ") + std::strerror(errno));
  Scratch s{std::string(dir) + "/room", std::string(dir) + "/hide1", std::string(dir) + "/hide2"};
  for (const std::string& d : {s.room, s.hide1, s.hide2})
    if (mkdir(d.c_str(), 0755) != 0) bench::Die("mkdir " + d + ": " + std::strerror(errno));
  s.room_fd = open(s.room.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (s.room_fd < 0) bench::Die("open " + s.room + ": " + std::strerror(errno));
  s.net_fd = geteuid() == 0 ? MakeEmptyNet() : -1;

  std::vector<Way> ways;
  auto add = [&ways](std::string name, std::function<void()> child) {
    Way w;
    w.name = std::move(name);
    w.child = std::move(child);
    ways.push_back(std::move(w));
  };
  add("exec", [] { ExecTrue(); });
  add("userns", [] {
    Unshare(CLONE_NEWUSER);
    ExecTrue();
  });
  add("userns+ro", [] {
    Unshare(CLONE_NEWUSER | CLONE_NEWNS);
    ReadOnlyTree();
    ExecTrue();
  });
  add("namespaces", [&s] { Namespaces(s, false); });
  add("namespaces+net0", [&s] { Namespaces(s, true); });
  add("landlock+seccomp", [&s] { LandlockSeccomp(s); });
  add("bwrap", [&s] { Bwrap(s); });
  auto way = [&ways](const std::string& name) -> Way& {
    return *std::find_if(ways.begin(), ways.end(), [&](const Way& w) { return w.name == name; });
  };
  if (s.net_fd < 0)
    way("namespaces+net0").unavailable =
        geteuid() == 0 ? "no network namespace could be made" : "not root";
  if (access("/usr/bin/bwrap", X_OK) != 0) way("bwrap").unavailable = "/usr/bin/bwrap is missing";

  // One launch each first: a way that fails says why and is left out.
  for (Way& w : ways) {
    if (!w.unavailable.empty()) continue;
    const int rc = Launch(w);
    if (rc != 0)
      w.unavailable = "its launch exited " + std::to_string(rc) + " (step " +
                      std::to_string(rc >= 100 ? rc - 100 : rc) + " of " + w.name + ")";
    w.wall_ms.clear();
  }
  const int per_round = std::max(1, n / rounds);
  for (int r = 0; r < rounds; ++r) {
    for (Way& w : ways) {
      if (!w.unavailable.empty()) continue;
      const double c0 = bench::CpuSeconds(RUSAGE_CHILDREN), m0 = MachineCpu();
      for (int i = 0; i < per_round; ++i)
        if (Launch(w) != 0) bench::Die(w.name + ": a launch failed after the first succeeded");
      w.child_cpu_s += bench::CpuSeconds(RUSAGE_CHILDREN) - c0;
      w.machine_cpu_s += MachineCpu() - m0;
    }
  }
  if (s.net_fd >= 0) close(s.net_fd);
  close(s.room_fd);
  std::error_code ec;  // what a way left in the room goes with it
  std::filesystem::remove_all(dir, ec);

  std::printf("%-18s %9s %9s %12s %13s  (%d launches each, %d rounds, %s)\n", "way", "p50 ms",
              "p90 ms", "cpu ms/run", "machine ms", per_round * rounds, rounds,
              geteuid() == 0 ? "root" : "not root");
  json::Array rows;
  for (Way& w : ways) {
    if (!w.unavailable.empty()) {
      std::printf("%-18s unavailable: %s\n", w.name.c_str(), w.unavailable.c_str());
      rows.push_back(json::Object{{"way", w.name}, {"unavailable", w.unavailable}});
      continue;
    }
    const double launches = double(w.wall_ms.size());
    const double p50 = Quantile(w.wall_ms, 0.5), p90 = Quantile(w.wall_ms, 0.9);
    const double cpu = w.child_cpu_s * 1000 / launches, machine = w.machine_cpu_s * 1000 / launches;
    std::printf("%-18s %9.3f %9.3f %12.3f %13.3f\n", w.name.c_str(), p50, p90, cpu, machine);
    rows.push_back(json::Object{{"way", w.name},
                                {"p50_ms", Round3(p50)},
                                {"p90_ms", Round3(p90)},
                                {"cpu_ms", Round3(cpu)},
                                {"machine_cpu_ms", Round3(machine)}});
  }
  if (!json_out.empty()) {
    json::Object o{{"bench", "sandbox-parts"},
                   {"n", int64_t(per_round) * rounds},
                   {"rounds", rounds},
                   {"user", geteuid() == 0 ? "root" : "not root"},
                   {"ways", std::move(rows)}};
    std::ofstream f(json_out);
    f << json::WritePretty(json::Value(std::move(o)));
    f.close();
    if (!f) bench::Die("cannot write " + json_out + ": " + std::strerror(errno));
  }
  return 0;
}
