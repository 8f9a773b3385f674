#include "shell/change.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "base/plural.h"
#include "base/utf8.h"
#include "env/nofollow.h"
#include "shell/child_run.h"
#include "shell/git.h"
#include "shell/room_git.h"

namespace hangar {

namespace {

std::vector<std::string> SplitZ(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < s.size()) {
    size_t end = s.find('\0', at);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

json::Value Path(const std::string& p) {
  return ReplaceInvalidUtf8(p);
}

// Lists of {"status","path","from"} from `diff-tree -r -M --name-status -z` output.
json::Array NameStatus(const std::string& z, size_t max, int64_t* omitted) {
  json::Array out;
  std::vector<std::string> t = SplitZ(z);
  for (size_t i = 0; i < t.size();) {
    const std::string st = t[i++];
    if (st.empty()) continue;
    json::Object o;
    o["status"] = std::string(1, st[0]);
    if ((st[0] == 'R' || st[0] == 'C') && i < t.size()) o["from"] = Path(t[i++]);
    o["path"] = i < t.size() ? Path(t[i++]) : json::Value("");
    if (out.size() < max)
      out.emplace_back(std::move(o));
    else
      (*omitted)++;
  }
  return out;
}

// The line counts of `diff-tree -r -M --numstat -z`, in its order: {added, deleted}, -1 binary.
std::vector<std::pair<int64_t, int64_t>> NumStat(const std::string& z) {
  std::vector<std::pair<int64_t, int64_t>> out;
  std::vector<std::string> t = SplitZ(z);
  for (size_t i = 0; i < t.size(); i++) {
    const std::string& rec = t[i];
    const size_t a = rec.find('\t'), b = a == std::string::npos ? a : rec.find('\t', a + 1);
    if (b == std::string::npos) continue;
    auto num = [](const std::string& s) -> int64_t {
      return s == "-" || s.empty() ? -1 : std::strtoll(s.c_str(), nullptr, 10);
    };
    out.push_back({num(rec.substr(0, a)), num(rec.substr(a + 1, b - a - 1))});
    if (b + 1 == rec.size()) i += 2;  // a rename: its two paths follow
  }
  return out;
}

class ChangeRun {
 public:
  explicit ChangeRun(const Observe& ob) : ob_(ob), dir_(ob.run + "/change.git") {}
  json::Value Run();

 private:
  enum class Objects { kOwn, kWithRoom };
  // hangar's git in its own repository. Its objects are its own and the source's; the room's
  // (kWithRoom, when they may be borrowed) only to read the drone's commits, never for the tree,
  // the files or the patch: an object in the room's store is whatever the drone wrote under that
  // name, and git reads a blob or a tree without checking its hash.
  GitRun Git(std::vector<std::string> args, bool work_tree = false, int out_fd = -1,
             Objects objects = Objects::kOwn) {
    GitCall c;
    c.args = std::move(args);
    c.git_dir = dir_;
    c.uid = ob_.check_sandbox.uid;
    c.gid = ob_.check_sandbox.gid;
    c.env["GIT_INDEX_FILE"] = dir_ + "/hangar.index";
    if (objects == Objects::kWithRoom && !room_objects_.empty())
      c.env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = room_objects_;
    if (work_tree) {
      c.work_tree = ob_.room;
      c.cwd = ob_.room;
    }
    c.out_fd = out_fd;
    return RunGit(c);
  }
  bool Fail(std::string why) {
    o_["error"] = std::move(why);
    return false;
  }
  bool Prepare(int room);
  bool WritePatch(const std::string& base, const std::string& tree);
  void ListIgnored();

  const Observe& ob_;
  const std::string dir_;
  std::string room_objects_;  // the room's object directory, when it may be borrowed
  json::Object o_;
};

bool ChangeRun::Prepare(int room) {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);  // an earlier observation's, cut short
  if (mkdir(dir_.c_str(), 0700) != 0) return Fail("create " + dir_ + ": " + strerror(errno));
  if (ob_.check_sandbox.uid >= 0 &&
      chown(dir_.c_str(), uid_t(ob_.check_sandbox.uid), gid_t(ob_.check_sandbox.gid)) != 0)
    return Fail("give " + dir_ + " to the drone's user: " + strerror(errno));
  GitCall init;
  init.args = {"init", "--bare", "--quiet", "--template=", dir_};
  init.uid = ob_.check_sandbox.uid;
  init.gid = ob_.check_sandbox.gid;
  if (GitRun r = RunGit(init); !r.ok) return Fail(r.error);
  // The room's objects hold the drone's commits; borrowed (for those alone) only while the
  // room's .git borrows exactly the source's objects (a drone that pointed it elsewhere lends
  // hangar nothing).
  const std::string& source = ob_.workspace->objects;
  std::optional<std::string> alt = ReadBeneath(room, ".git/objects/info/alternates", 65536);
  if (alt && (*alt == source + "\n" || *alt == source) && OpenDirBeneath(room, ".git/objects").ok())
    room_objects_ = ob_.room + "/.git/objects";
  else
    o_["room_objects"] =
        "not borrowed: the room's .git/objects/info/alternates "
        "is not the one the checkout wrote";
  // Written beneath hangar's repository without following a link: it is the drone's user's.
  UniqueFd git(open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  Result<UniqueFd> info = git.get() >= 0 ? OpenDirBeneath(git.get(), "objects/info")
                                         : Result<UniqueFd>(Status::Errno("open " + dir_, errno));
  const std::string path = dir_ + "/objects/info/alternates", text = source + "\n";
  UniqueFd fd(info.ok() ? openat(info->get(), "alternates",
                                 O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)
                        : -1);
  if (fd.get() < 0 || write(fd.get(), text.data(), text.size()) != ssize_t(text.size()))
    return Fail("write " + path + ": " + (info.ok() ? strerror(errno) : info.status().message()));
  return true;
}

bool ChangeRun::WritePatch(const std::string& base, const std::string& tree) {
  const std::string tmp = ob_.run + "/.change.patch.tmp", final = ob_.run + "/change.patch";
  unlink(tmp.c_str());  // an earlier observation's, cut short
  UniqueFd fd(open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (fd.get() < 0) return Fail("create " + tmp + ": " + strerror(errno));
  UniqueFd out = AboveStdio(dup(fd.get()));
  GitRun r = Git({"diff-tree", "-p", "--binary", "-M", "--full-index", "--no-ext-diff",
                  "--no-textconv", "--no-color", base, tree},
                 false, out.get());
  if (!r.ok) {
    unlink(tmp.c_str());
    return Fail(r.error);
  }
  // Durable before return.json names its sha256: the file, its rename, the run directory.
  Result<FileHash> h = HashFd(fd.get(), INT64_MAX);
  UniqueFd run(h.ok() ? open(ob_.run.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1);
  if (!h.ok() || fsync(fd.get()) != 0 || rename(tmp.c_str(), final.c_str()) != 0 || run.get() < 0 ||
      fsync(run.get()) != 0)
    return Fail("write " + final + ": " + (h.ok() ? strerror(errno) : h.status().message()));
  o_["patch"] =
      json::Object{{"file", "run/change.patch"}, {"size", h->size}, {"sha256", h->sha256}};
  return true;
}

// The files the room's .gitignore files leave out of the change (untracked, ignored): listed,
// hangar's own files aside, so that a drone that hides files from the patch is seen doing it.
void ChangeRun::ListIgnored() {
  GitRun r =
      Git({"ls-files", "-z", "--others", "--ignored", "--exclude-per-directory=.gitignore"}, true);
  if (!r.ok || r.out_cut) {
    o_["ignored_error"] = r.ok ? "longer than hangar lists (16 MiB of git's listing)" : r.error;
    return;
  }
  json::Array listed;
  int64_t more = 0;
  for (const std::string& p : SplitZ(r.out)) {
    const bool own =
        std::any_of(ob_.room_own.begin(), ob_.room_own.end(),
                    [&](const std::string& o) { return p == o || p.starts_with(o + "/"); });
    if (own) continue;
    if (listed.size() < kMaxChangeFiles)
      listed.emplace_back(Path(p));
    else
      more++;
  }
  o_["ignored"] = std::move(listed);
  o_["ignored_omitted"] = more;
}

json::Value ChangeRun::Run() {
  const std::string& base = ob_.workspace->commit;
  o_["base"] = base;
  for (const char* k : {"head", "commits", "files", "uncommitted", "patch", "error"})
    o_[k] = nullptr;
  Result<UniqueFd> room = OpenRoom(ob_.room);
  if (!room.ok()) {
    Fail(room.status().message());
    return o_;
  }
  if (!Prepare(room->get())) return o_;
  GitRun r = Git({"read-tree", base});
  // Everything in the work tree but hangar's own files, left out by pathspec (a .gitignore the
  // drone writes cannot bring them back in). What the room's .gitignore files leave out is
  // listed apart (ignored): never in the tree, the files or the patch.
  std::vector<std::string> add = {"add", "--all", "--", ":(top)"};
  for (const std::string& own : ob_.room_own) add.push_back(":(top,exclude,literal)" + own);
  if (r.ok) r = Git(add, true);
  if (r.ok) r = Git({"write-tree"});
  if (!r.ok) {
    Fail(r.error);
    return o_;
  }
  const std::string tree = WithoutNewline(r.out);
  if (!WritePatch(base, tree)) return o_;
  const std::vector<std::string> diff = {"diff-tree",     "-r",           "-M", "-z",
                                         "--no-ext-diff", "--no-textconv"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> a = diff;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  GitRun names = Git(with({"--name-status", base, tree}));
  GitRun counts = names.ok ? Git(with({"--numstat", base, tree})) : names;
  if (!counts.ok) {
    Fail(counts.error);
    return o_;
  }
  if (names.out_cut || counts.out_cut) {
    Fail("more files changed than hangar lists (16 MiB of git's listing): not listed, not judged");
    return o_;
  }
  int64_t omitted = 0;
  json::Array files = NameStatus(names.out, kMaxChangeFiles, &omitted);
  std::vector<std::pair<int64_t, int64_t>> n = NumStat(counts.out);
  for (size_t i = 0; i < files.size() && i < n.size(); i++) {
    files[i]["added"] = n[i].first < 0 ? json::Value(nullptr) : json::Value(n[i].first);
    files[i]["deleted"] = n[i].second < 0 ? json::Value(nullptr) : json::Value(n[i].second);
  }
  o_["files"] = std::move(files);
  o_["files_omitted"] = omitted;
  ListIgnored();
  std::string why;
  const std::string head = RoomHead(room->get(), &why);
  o_["head"] = head.empty() ? json::Value(nullptr) : json::Value(head);
  if (head.empty()) o_["head_error"] = why;
  // What the drone left uncommitted: its HEAD's tree against the work tree's (the base's when it
  // committed nothing, or when its HEAD cannot be read).
  const std::string from = head.empty() ? base : head;
  GitRun left = from == base
                    ? names
                    : Git(with({"--name-status", from, tree}), false, -1, Objects::kWithRoom);
  int64_t left_omitted = 0;
  if (left.ok && left.out_cut) {
    o_["uncommitted_error"] = "longer than hangar lists (16 MiB of git's listing)";
  } else if (left.ok) {
    o_["uncommitted"] = NameStatus(left.out, kMaxChangeFiles, &left_omitted);
    o_["uncommitted_omitted"] = left_omitted;
  } else {
    o_["uncommitted_error"] = left.error;
  }
  if (head.empty() || head == base) {
    o_["commits"] = json::Array{};
    o_["commits_omitted"] = 0;
  } else {
    // The latest kMaxChangeCommits, oldest first; their subjects cut at 512 characters (git pads
    // a shorter one with spaces), so that git's listing stays within what hangar reads.
    GitRun count = Git({"rev-list", "--count", base + ".." + head}, false, -1, Objects::kWithRoom);
    GitRun log = count.ok ? Git({"log", "-z", "--no-decorate", "--no-show-signature",
                                 "--max-count=" + std::to_string(kMaxChangeCommits),
                                 "--format=%H%x09%<(512,trunc)%s", base + ".." + head},
                                false, -1, Objects::kWithRoom)
                          : count;
    if (!log.ok) {
      o_["commits_error"] = log.error;
    } else {
      json::Array commits;
      for (const std::string& c : SplitZ(log.out)) {
        const size_t tab = c.find('\t');
        if (tab == std::string::npos) continue;
        json::Object one;
        one["id"] = c.substr(0, tab);
        const size_t end = c.find_last_not_of(' ');
        one["subject"] = ReplaceInvalidUtf8(end > tab ? c.substr(tab + 1, end - tab) : "");
        commits.emplace_back(std::move(one));
      }
      std::reverse(commits.begin(), commits.end());
      const int64_t total = std::atoll(count.out.c_str());
      o_["commits_omitted"] = std::max<int64_t>(0, total - int64_t(commits.size()));
      o_["commits"] = std::move(commits);
    }
  }
  return o_;
}

bool Matches(const std::vector<std::string>& globs, const std::string& path) {
  for (const std::string& g : globs)
    if (fnmatch(g.c_str(), path.c_str(), 0) == 0) return true;
  return false;
}

}  // namespace

json::Value ObserveChange(const Observe& ob) {
  if (!ob.workspace) return nullptr;
  ChangeRun run(ob);
  json::Value v = run.Run();
  std::error_code ec;
  std::filesystem::remove_all(ob.run + "/change.git", ec);  // the patch stays; its scratch goes
  return v;
}

json::Object JudgeChange(const DoneCheck& c, const json::Value& change) {
  json::Object r;
  r["check"] = c.ToJson();
  auto done = [&](bool passed, std::string detail) {
    r["passed"] = passed;
    r["detail"] = std::move(detail);
    return r;
  };
  const json::Value* files = change.is_object() ? change.find("files") : nullptr;
  const json::Value* error = change.is_object() ? change.find("error") : nullptr;
  if (error && error->is_string()) return done(false, "no change computed: " + error->as_string());
  if (!files || !files->is_array()) return done(false, "no change computed");
  const json::Value* more = change.find("files_omitted");
  const int64_t omitted = more && more->is_int() ? more->as_int() : 0;
  const int64_t count = int64_t(files->as_array().size()) + omitted;
  if (c.max_files >= 0 && count > c.max_files)
    return done(false,
                Plural(count, "file") + " changed, more than " + std::to_string(c.max_files));
  if (!c.paths.empty()) {
    if (omitted > 0)
      return done(false, std::to_string(omitted) + " changed files are not listed: not judged");
    for (const json::Value& f : files->as_array())
      for (const char* side : {"path", "from"})
        if (const json::Value* p = f.find(side);
            p && p->is_string() && !Matches(c.paths, p->as_string()))
          return done(false, p->as_string() + " changed, outside the check's paths");
  }
  return done(true, std::to_string(count) + " file" + (count == 1 ? "" : "s") + " changed");
}

}  // namespace hangar
