#include "shell/change.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

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

// An exclude pattern matching exactly NAME at the top of the work tree.
std::string ExactPattern(const std::string& name) {
  std::string p = "/";
  for (char c : name) {
    if (c == '*' || c == '?' || c == '[' || c == '\\' || c == '!' || c == '#') p += '\\';
    p += c;
  }
  return p;
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
  GitRun Git(std::vector<std::string> args, bool work_tree = false, int out_fd = -1) {
    GitCall c;
    c.args = std::move(args);
    c.git_dir = dir_;
    c.uid = ob_.check_sandbox.uid;
    c.gid = ob_.check_sandbox.gid;
    c.env["GIT_INDEX_FILE"] = dir_ + "/hangar.index";
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

  const Observe& ob_;
  const std::string dir_;
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
  // The room's objects hold the drone's commits; borrowed only while the room's .git borrows
  // exactly the source's objects (a drone that pointed it elsewhere lends hangar nothing).
  const std::string& source = ob_.workspace->objects;
  std::optional<std::string> alt = ReadBeneath(room, ".git/objects/info/alternates", 65536);
  const bool room_objects =
      alt && (*alt == source + "\n" || *alt == source) && OpenDirBeneath(room, ".git/objects").ok();
  if (!room_objects)
    o_["room_objects"] =
        "not borrowed: the room's .git/objects/info/alternates "
        "is not the one the checkout wrote";
  const std::string alternates =
      (room_objects ? ob_.room + "/.git/objects\n" : std::string()) + source + "\n";
  std::string exclude;
  for (const std::string& own : ob_.room_own) exclude += ExactPattern(own) + "\n";
  for (const auto& [rel, text] :
       {std::pair{"objects/info/alternates", alternates}, std::pair{"info/exclude", exclude}}) {
    const std::string path = dir_ + "/" + rel;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (fd.get() < 0 || write(fd.get(), text.data(), text.size()) != ssize_t(text.size()))
      return Fail("write " + path + ": " + strerror(errno));
  }
  return true;
}

bool ChangeRun::WritePatch(const std::string& base, const std::string& tree) {
  const std::string tmp = ob_.run + "/.change.patch.tmp", final = ob_.run + "/change.patch";
  UniqueFd fd(open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (fd.get() < 0) return Fail("create " + tmp + ": " + strerror(errno));
  UniqueFd out = AboveStdio(dup(fd.get()));
  GitRun r = Git({"diff-tree", "-p", "--binary", "-M", "--full-index", "--no-ext-diff",
                  "--no-textconv", "--no-color", base, tree},
                 false, out.get());
  if (!r.ok) return Fail(r.error);
  Result<FileHash> h = HashFd(fd.get(), INT64_MAX);
  if (!h.ok() || fsync(fd.get()) != 0 || rename(tmp.c_str(), final.c_str()) != 0)
    return Fail("write " + final + ": " + (h.ok() ? strerror(errno) : h.status().message()));
  o_["patch"] =
      json::Object{{"file", "run/change.patch"}, {"size", h->size}, {"sha256", h->sha256}};
  return true;
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
  if (r.ok) r = Git({"add", "--all"}, true);
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
  int64_t omitted = 0;
  json::Array files = NameStatus(names.out, kMaxChangeFiles, &omitted);
  std::vector<std::pair<int64_t, int64_t>> n = NumStat(counts.out);
  for (size_t i = 0; i < files.size() && i < n.size(); i++) {
    files[i]["added"] = n[i].first < 0 ? json::Value(nullptr) : json::Value(n[i].first);
    files[i]["deleted"] = n[i].second < 0 ? json::Value(nullptr) : json::Value(n[i].second);
  }
  o_["files"] = std::move(files);
  o_["files_omitted"] = omitted;
  std::string why;
  const std::string head = RoomHead(room->get(), &why);
  o_["head"] = head.empty() ? json::Value(nullptr) : json::Value(head);
  if (head.empty()) o_["head_error"] = why;
  // What the drone left uncommitted: its HEAD's tree against the work tree's (the base's when it
  // committed nothing, or when its HEAD cannot be read).
  const std::string from = head.empty() ? base : head;
  GitRun left = from == base ? names : Git(with({"--name-status", from, tree}));
  int64_t left_omitted = 0;
  if (left.ok) {
    o_["uncommitted"] = NameStatus(left.out, kMaxChangeFiles, &left_omitted);
    o_["uncommitted_omitted"] = left_omitted;
  } else {
    o_["uncommitted_error"] = left.error;
  }
  if (head.empty() || head == base) {
    o_["commits"] = json::Array{};
    o_["commits_omitted"] = 0;
  } else {
    GitRun log = Git({"log", "-z", "--reverse", "--no-decorate", "--no-show-signature",
                      "--format=%H%x09%s", base + ".." + head});
    if (!log.ok) {
      o_["commits_error"] = log.error;
    } else {
      json::Array commits;
      int64_t more = 0;
      for (const std::string& c : SplitZ(log.out)) {
        const size_t tab = c.find('\t');
        if (tab == std::string::npos) continue;
        if (commits.size() >= kMaxChangeCommits) {
          more++;
          continue;
        }
        json::Object one;
        one["id"] = c.substr(0, tab);
        one["subject"] = ReplaceInvalidUtf8(c.substr(tab + 1));
        commits.emplace_back(std::move(one));
      }
      o_["commits"] = std::move(commits);
      o_["commits_omitted"] = more;
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
                std::to_string(count) + " files changed, more than " + std::to_string(c.max_files));
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
