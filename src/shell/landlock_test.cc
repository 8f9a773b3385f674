#include "shell/landlock.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "base/scratch_dir_testutil.h"
#include "gtest/gtest.h"
#include "shell/path_resolve.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;

// "ok" when PATH opens for reading, else the errno's name.
std::string TryRead(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == EACCES ? "EACCES" : "errno " + std::to_string(errno);
  close(fd);
  return "ok";
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Writes TEXT to PATH's side and renames it over PATH, as useradd writes /etc/gshadow.
void ReplaceByRename(const std::string& path, const std::string& text) {
  Write(path + ".new", text);
  fs::rename(path + ".new", path);
}

// Makes the ruleset, as the shim does (SEE opened as bwrap's binds are), and enters it, as confine
// does: "" or why not. KEPT, when given, gets the hidden paths the ruleset keeps.
std::string Restrict(const std::vector<std::string>& hide, const std::vector<std::string>& see,
                     std::vector<std::string>* kept = nullptr) {
  std::vector<int> fds;
  for (const std::string& p : see) fds.push_back(open(p.c_str(), O_PATH | O_CLOEXEC));
  int fd = -1;
  std::vector<std::string> k;
  std::string why = ReadRuleset(hide, fds, &fd, &k);
  for (int f : fds) close(f);
  if (kept) *kept = k;
  if (!why.empty()) return why;
  if (fd < 0) return "no ruleset";
  why = EnterRuleset(fd);
  close(fd);
  return why;
}

// Runs BODY in a child process (Landlock binds the process for good) and returns what it printed:
// one line per check that did not go as expected.
template <typename F>
std::string InChild(F body) {
  int p[2];
  if (pipe(p) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    const std::string out = body();
    (void)!write(p[1], out.data(), out.size());
    _exit(0);
  }
  close(p[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(p[0], buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  close(p[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) out += "child did not exit 0\n";
  return out;
}

// A scratch tree:
//   etc/passwd  etc/shadow  etc/ssl/cert  home/u/.netrc  home/u/notes  spool/other
//   spool/rooms/r/file  work/w (a write outside the room)
class LandlockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (LandlockAbi() < 1) GTEST_SKIP() << "skipped: this kernel offers no Landlock";
    ASSERT_FALSE(scratch_.path().empty());
    d_ = fs::canonical(scratch_.path());
    for (const char* s : {"/etc/ssl", "/home/u", "/spool/rooms/r", "/work"})
      fs::create_directories(d_ + s);
    for (const char* f : {"/etc/passwd", "/etc/shadow", "/etc/ssl/cert", "/home/u/.netrc",
                          "/home/u/notes", "/spool/other", "/spool/rooms/r/file", "/work/w"})
      Write(d_ + f, "x");
  }

  // Adds a line to *BAD unless reading d_ + REL gives WANT ("ok", "EACCES").
  void Expect(const std::string& rel, const std::string& want, std::string* bad) const {
    const std::string got = TryRead(d_ + rel);
    if (got != want) *bad += rel + ": " + got + ", expected " + want + "\n";
  }

  // Restrict with etc/shadow and HIDDEN, which the ruleset must leave out: "" or what went wrong.
  std::string RestrictKeepingShadowAlone(const std::string& hidden) const {
    std::vector<std::string> kept;
    if (std::string why = Restrict({hidden, d_ + "/etc/shadow"}, {}, &kept); !why.empty())
      return "Restrict: " + why + "\n";
    if (kept != std::vector<std::string>{d_ + "/etc/shadow"})
      return "kept " + std::to_string(kept.size()) + " paths, expected etc/shadow alone\n";
    return "";
  }

  ScratchDir scratch_{"landlock"};
  std::string d_;
};

TEST_F(LandlockTest, HiddenPathsStayUnreadableWhenReplacedOrCreatedLater) {
  // home/u is a person's home (not root's): a hidden path missing there is covered (Guarded).
  if (geteuid() == 0) {
    ASSERT_EQ(chown((d_ + "/home/u").c_str(), 65534, 65534), 0);
  }
  const std::string out = InChild([&] {
    std::string bad;
    auto expect = [&](const std::string& rel, const std::string& want) { Expect(rel, want, &bad); };
    const std::string why =
        Restrict({d_ + "/etc/shadow", d_ + "/home/u/.netrc", d_ + "/home/u/.aws", d_ + "/spool"},
                 {d_ + "/spool/rooms/r", d_ + "/work"});
    if (!why.empty()) return "Restrict: " + why + "\n";
    expect("/etc/passwd", "ok");          // beside a hidden file
    expect("/etc/ssl/cert", "ok");        // beneath a directory beside it
    expect("/etc/shadow", "EACCES");      // hidden
    expect("/home/u/.netrc", "EACCES");   //
    expect("/home/u/notes", "ok");        //
    expect("/spool/other", "EACCES");     // inside a hidden directory
    expect("/spool/rooms/r/file", "ok");  // the room, seen inside it
    expect("/work/w", "ok");              // a write
    expect("/etc", "ok");                 // a directory's names stay listable
    if (std::string got = TryRead("/proc/self/status"); got != "ok")  // the sandbox's own /proc
      bad += "/proc/self/status: " + got + ", expected ok\n";
    if (std::string got = TryRead("/dev/null"); got != "ok")
      bad += "/dev/null: " + got + ", expected ok\n";
    // The host replaces the hidden files by rename (writes are not Landlock's here): the new
    // inode is as hidden as the old one. Without Landlock a mount over the old one is detached.
    ReplaceByRename(d_ + "/etc/shadow", "new secret");
    ReplaceByRename(d_ + "/home/u/.netrc", "new secret");
    expect("/etc/shadow", "EACCES");
    expect("/home/u/.netrc", "EACCES");
    // Created after the launch: a hidden path that did not exist, and a file beside it.
    fs::create_directory(d_ + "/home/u/.aws");
    Write(d_ + "/home/u/.aws/credentials", "secret");
    expect("/home/u/.aws/credentials", "EACCES");
    Write(d_ + "/etc/ssl/new", "x");
    expect("/etc/ssl/new", "ok");  // beneath a directory's rule
    Write(d_ + "/spool/rooms/r/new", "x");
    expect("/spool/rooms/r/new", "ok");
    Write(d_ + "/etc/new", "x");
    expect("/etc/new", "EACCES");  // directly beside a hidden file: fail closed until next launch
    return bad;
  });
  EXPECT_EQ(out, "");
}

TEST_F(LandlockTest, AHiddenPathInsideAnotherIsCoveredAndSeeInsideHiddenWins) {
  const std::string out = InChild([&] {
    std::string bad;
    auto expect = [&](const std::string& rel, const std::string& want) { Expect(rel, want, &bad); };
    // spool/rooms/r is inside the hidden spool: were spool's own entries listed as an ancestor's
    // (for the hidden spool/other), spool/rooms would be granted whole.
    const std::string why = Restrict({d_ + "/spool", d_ + "/spool/other", d_ + "/etc/shadow"},
                                     {d_ + "/etc/shadow", d_ + "/etc"});
    if (!why.empty()) return "Restrict: " + why + "\n";
    expect("/spool/rooms/r/file", "EACCES");
    expect("/spool/other", "EACCES");
    expect("/etc/shadow", "EACCES");  // hidden and seen: hidden
    expect("/etc/passwd", "ok");      // /etc is an ancestor: its entries by their own rules
    return bad;
  });
  EXPECT_EQ(out, "");
}

TEST_F(LandlockTest, AMissingHiddenPathInARootOwnedDirectoryIsLeftOut) {
  // A system account's home (/bin for bin): covering its missing ~/.ssh would grant each entry of
  // /usr/bin one by one at every launch. Left out, as without Landlock: created later, readable.
  if (geteuid() != 0) GTEST_SKIP() << "skipped: a root-owned scratch directory needs root";
  const std::string out = InChild([&] {
    std::string bad;
    auto expect = [&](const std::string& rel, const std::string& want) { Expect(rel, want, &bad); };
    if (std::string why = RestrictKeepingShadowAlone(d_ + "/home/u/.aws"); !why.empty()) return why;
    fs::create_directory(d_ + "/home/u/.aws");
    Write(d_ + "/home/u/.aws/credentials", "x");
    expect("/home/u/.aws/credentials", "ok");  // the documented gap (man/hangard.8, SANDBOX)
    expect("/home/u/notes", "ok");
    return bad;
  });
  EXPECT_EQ(out, "");
}

TEST_F(LandlockTest, FilesStillMoveAndLinkBetweenDirectories) {
  // A ruleset that does not handle REFER denies every cross-directory rename and link (EXDEV):
  // git mv, a build writing in a temporary directory and renaming into place.
  const std::string out = InChild([&] {
    if (std::string why = Restrict({d_ + "/etc/shadow"}, {d_ + "/work"}); !why.empty())
      return "Restrict: " + why + "\n";
    std::string bad;
    fs::create_directories(d_ + "/work/a");
    fs::create_directories(d_ + "/work/b");
    Write(d_ + "/work/a/x", "x");
    if (rename((d_ + "/work/a/x").c_str(), (d_ + "/work/b/x").c_str()) != 0)
      bad += std::string("rename a/x b/x: ") + std::strerror(errno) + "\n";
    if (link((d_ + "/work/b/x").c_str(), (d_ + "/work/a/y").c_str()) != 0)
      bad += std::string("link b/x a/y: ") + std::strerror(errno) + "\n";
    return bad;
  });
  EXPECT_EQ(out, "");
}

TEST_F(LandlockTest, AHardLinkOfAHiddenFileBesideItGrantsNothing) {
  // Rules bind inodes: an entry beside a hidden file that is the same file must get no rule, or
  // it would grant the hidden path itself (and its other name).
  ASSERT_EQ(link((d_ + "/etc/shadow").c_str(), (d_ + "/etc/shadow.hl").c_str()), 0);
  const std::string out = InChild([&] {
    std::string bad;
    auto expect = [&](const std::string& rel, const std::string& want) { Expect(rel, want, &bad); };
    if (std::string why = Restrict({d_ + "/etc/shadow"}, {}); !why.empty())
      return "Restrict: " + why + "\n";
    expect("/etc/shadow", "EACCES");
    expect("/etc/shadow.hl", "EACCES");
    expect("/etc/passwd", "ok");
    return bad;
  });
  EXPECT_EQ(out, "");
}

// The sandbox hands ReadRuleset what its walk saw (shell/path_resolve.h, DiskLook): the ruleset
// is made from those answers, and hides as one made by asking the disk again, a hard link beside a
// hidden file included (its inode comes from the answers).
TEST_F(LandlockTest, MadeFromTheCallersLookupsItHidesTheSame) {
  ASSERT_EQ(link((d_ + "/etc/shadow").c_str(), (d_ + "/etc/shadow.hl").c_str()), 0);
  const std::vector<std::string> hide = {d_ + "/etc/shadow", d_ + "/home/u/.netrc",
                                         d_ + "/home/u/.aws"};
  DiskLook look;
  for (const std::string& h : hide) ASSERT_TRUE(ResolveExistingPath(h, "", &look).ok());
  const int64_t walked = look.calls();
  const LstatFn seen = look.LstatFunction();
  int plain_fd = -1, seen_fd = -1;
  std::vector<std::string> plain_kept, seen_kept;
  ASSERT_EQ(ReadRuleset(hide, {}, &plain_fd, &plain_kept), "");
  ASSERT_EQ(ReadRuleset(hide, {}, &seen_fd, &seen_kept, seen), "");
  close(plain_fd);
  EXPECT_EQ(seen_kept, plain_kept);
  EXPECT_EQ(look.calls(), walked);  // every path it looked at, the walk had seen
  const std::string out = InChild([&] {
    std::string bad;
    auto expect = [&](const std::string& rel, const std::string& want) { Expect(rel, want, &bad); };
    if (std::string why = EnterRuleset(seen_fd); !why.empty()) return "EnterRuleset: " + why;
    expect("/etc/shadow", "EACCES");
    expect("/etc/shadow.hl", "EACCES");
    expect("/home/u/.netrc", "EACCES");
    expect("/etc/passwd", "ok");
    expect("/home/u/notes", "ok");
    return bad;
  });
  close(seen_fd);
  EXPECT_EQ(out, "");
  // And what it is told is what it judges by: a hidden path said to be gone from a root-owned
  // directory is left out (as AMissingHiddenPathInARootOwnedDirectoryIsLeftOut), where the disk
  // still has it.
  if (geteuid() == 0) {
    const LstatFn lying = [&](const std::string& p, struct stat* st) {
      return p == d_ + "/etc/shadow" ? ENOENT : look.Lstat(p, st);
    };
    int fd = -1;
    std::vector<std::string> kept;
    ASSERT_EQ(ReadRuleset({d_ + "/etc/shadow"}, {}, &fd, &kept, lying), "");
    if (fd >= 0) close(fd);
    EXPECT_TRUE(kept.empty());
  }
}

TEST_F(LandlockTest, BeneathADirectoryTheSupervisorCannotListTheHiddenPathIsLeftToTheMounts) {
  // hangard run as a user, a colleague's 0711 home: listing it fails, so granting what is beside
  // the hidden path is impossible; the path is left out (kept says so) rather than every tool in
  // that home made unreadable.
  if (geteuid() != 0) GTEST_SKIP() << "skipped: changing to another user needs root";
  fs::permissions(d_, fs::perms(0755));
  fs::permissions(d_ + "/home", fs::perms(0755));
  fs::permissions(d_ + "/home/u", fs::perms(0711));
  const std::string out = InChild([&] {
    if (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 ||
        setresuid(65534, 65534, 65534) != 0)
      return std::string("could not become nobody\n");
    std::string bad;
    auto expect = [&](const std::string& rel, const std::string& want) { Expect(rel, want, &bad); };
    if (std::string why = RestrictKeepingShadowAlone(d_ + "/home/u/.netrc"); !why.empty())
      return why;
    expect("/home/u/notes", "ok");  // searchable, not listable: still readable
    return bad;
  });
  EXPECT_EQ(out, "");
}

TEST_F(LandlockTest, AnEntryGoneBetweenTheListingAndItsOpenIsNoError) {
  // The host renames a temporary over a hidden file in a loop (as useradd does): the temporary,
  // listed beside it, may be gone when opened. That is skipped; it once left ENOENT in errno,
  // which the end of the listing took for readdir's own failure, and the launch failed. (A
  // directory holding only the two: the temporary is the listing's last entry to open.)
  fs::create_directory(d_ + "/vault");
  Write(d_ + "/vault/key", "x");
  std::atomic<bool> stop{false};
  std::thread host([&] {
    while (!stop) ReplaceByRename(d_ + "/vault/key", "new");
  });
  std::string first_error;
  int failed = 0;
  for (int i = 0; i < 1000; i++) {
    int fd = -1;
    std::vector<std::string> kept;
    const std::string why = ReadRuleset({d_ + "/vault/key"}, {}, &fd, &kept);
    if (fd >= 0) close(fd);
    if (!why.empty() && failed++ == 0) first_error = why;
  }
  stop = true;
  host.join();
  EXPECT_EQ(failed, 0) << first_error;
}

TEST_F(LandlockTest, MadeWithTheSupervisorsRightsADirectoryTheDroneCannotListStillGrants) {
  // A drone user may search a directory it cannot list (mode 711, as a test's scratch directory):
  // the ruleset is made outside, with the supervisor's rights, so what lies beside a hidden path
  // there stays readable to the drone.
  if (geteuid() != 0) GTEST_SKIP() << "skipped: changing to another user needs root";
  fs::permissions(d_, fs::perms(0755));  // mkdtemp made it 0700
  fs::permissions(d_ + "/home", fs::perms(0755));
  fs::permissions(d_ + "/home/u", fs::perms(0711));
  const std::string out = InChild([&] {
    int fd = -1;
    std::vector<std::string> kept;
    if (std::string why = ReadRuleset({d_ + "/home/u/.netrc"}, {}, &fd, &kept); !why.empty())
      return "ReadRuleset: " + why + "\n";
    if (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 ||
        setresuid(65534, 65534, 65534) != 0)
      return std::string("could not become nobody\n");
    if (std::string why = EnterRuleset(fd); !why.empty()) return "EnterRuleset: " + why + "\n";
    std::string bad;
    if (std::string got = TryRead(d_ + "/home/u/notes"); got != "ok")
      bad += "home/u/notes: " + got + ", expected ok\n";
    if (std::string got = TryRead(d_ + "/home/u/.netrc"); got != "EACCES")
      bad += "home/u/.netrc: " + got + ", expected EACCES\n";
    return bad;
  });
  EXPECT_EQ(out, "");
}

}  // namespace
}  // namespace hangar
