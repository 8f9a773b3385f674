#include "shell/workspace.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>

#include "shell/git.h"
#include "shell/path_resolve.h"

namespace hangar {

namespace {

bool IsDir(const std::string& p) {
  struct stat st {};
  return lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// GIT_DIR for the repository at PATH, or "" with *why set.
std::string GitDirOf(const std::string& path, std::string* why) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *why = path + " is no directory";
    return "";
  }
  const std::string dotgit = path + "/.git";
  if (lstat(dotgit.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return dotgit;
    *why = dotgit +
           " is no directory (a linked worktree or a submodule): name the repository "
           "it belongs to";
    return "";
  }
  if (IsDir(path + "/objects") && IsDir(path + "/refs")) return path;  // a bare repository
  *why = path + " is not a git repository (no .git directory, and not a bare repository)";
  return "";
}

}  // namespace

void IntakeUser(int64_t dropper_uid, int64_t* uid, int64_t* gid) {
  *uid = *gid = -1;
  if (geteuid() != 0 || dropper_uid < 0) return;
  struct passwd pw {
  }, *found = nullptr;
  char buf[4096];
  if (getpwuid_r(uid_t(dropper_uid), &pw, buf, sizeof buf, &found) == 0 && found) {
    *uid = dropper_uid;
    *gid = found->pw_gid;
  } else {
    *uid = *gid = 65534;
  }
}

void ResolveWorkspace(const Mission& m, int64_t uid, int64_t gid, ResolvedWrites* resolved) {
  if (!m.workspace) return;
  const Workspace& w = *m.workspace;
  ResolvedPath& r = (*resolved)[w.git];
  GitResolution g;
  auto fail = [&](const char* field, std::string why) {
    g.field = field;
    g.error = std::move(why);
    r.git = g;
  };
  Result<std::string> real = ResolveExistingPath(w.git);
  if (!real.ok()) return fail("workspace.git", real.status().message());
  r.path = *real;
  std::string why;
  const std::string git_dir = GitDirOf(r.path, &why);
  if (git_dir.empty()) return fail("workspace.git", why);
  GitCall call;
  call.git_dir = git_dir;
  call.uid = uid;
  call.gid = gid;
  // 10 s for the two calls together: intake waits for them (hangar-mission.5, WORKSPACE).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  call.timeout = std::chrono::seconds(10);
  call.args = {"rev-parse", "--verify", "--quiet", w.ref + "^{commit}"};
  GitRun commit = RunGit(call);
  if (!commit.ok)
    return fail("workspace.ref",
                commit.err.empty() && commit.error.find("exit 1") != std::string::npos
                    ? "no commit named \"" + w.ref + "\" in " + r.path
                    : "cannot resolve \"" + w.ref + "\" in " + r.path + ": " + commit.error);
  g.commit = WithoutNewline(commit.out);
  if (!ObjectId(g.commit))
    return fail("workspace.ref", "git rev-parse gave no object id for \"" + w.ref + "\"");
  call.timeout = std::max(std::chrono::milliseconds(100),
                          std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now()));
  call.args = {"rev-parse", "--path-format=absolute", "--git-path", "objects"};
  GitRun objects = RunGit(call);
  if (!objects.ok)
    return fail("workspace.git", "cannot find the objects of " + r.path + ": " + objects.error);
  char buf[PATH_MAX];
  const std::string dir = WithoutNewline(objects.out);
  if (!realpath(dir.c_str(), buf) || !IsDir(buf))
    return fail("workspace.git", "the object directory " + dir + " of " + r.path + " is missing");
  g.objects = buf;
  r.git = g;
}

ResolvedWrites ResolveRecorded(std::string_view mission_bytes, const std::string& home,
                               const json::Value* intake) {
  MissionOrError parsed = ParseMission(mission_bytes);
  const Mission* m = std::get_if<Mission>(&parsed);
  if (!m) return {};
  ResolvedWrites resolved = ResolveWrites(*m, home);
  if (!m->workspace) return resolved;
  ResolvedPath& r = resolved[m->workspace->git];
  auto text = [&](const char* k) {
    const json::Value* v = intake && intake->is_object() ? intake->find(k) : nullptr;
    return v && v->is_string() ? v->as_string() : std::string();
  };
  GitResolution g{text("commit"), text("objects"), "", ""};
  if (!ObjectId(g.commit) || g.objects.empty() || text("git").empty()) {
    g = {"", "", "workspace", "intake.json records no resolved workspace"};
  } else {
    r.path = text("git");
    r.error.clear();
  }
  r.git = g;
  return resolved;
}

}  // namespace hangar
