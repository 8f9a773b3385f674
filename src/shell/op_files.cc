#include "shell/op_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>

#include "kernel/window.h"
#include "shell/declaration.h"
#include "shell/manifest.h"

namespace hangar {

namespace {

// ROOM/ops, reached without following a symlink in either component.
Result<UniqueFd> OpenOps(const std::string& room) {
  Result<UniqueFd> r = OpenRoom(room);
  if (!r.ok()) return r.status();
  UniqueFd ops(openat(r->get(), "ops", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (ops.get() < 0) return Status::Errno("open " + room + "/ops", errno);
  return ops;
}

// ROOM/ops/NAME.json's bytes into *bytes; else why not.
std::string ReadRequestBytes(const std::string& room, const std::string& name, std::string* bytes) {
  const std::string shown = "ops/" + name + ".json";
  Result<UniqueFd> ops = OpenOps(room);
  if (!ops.ok()) return ops.status().message();
  UniqueFd fd(
      openat(ops->get(), (name + ".json").c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (fd.get() < 0)
    return errno == ELOOP ? shown + ": a symbolic link, not followed"
                          : Status::Errno("open " + shown, errno).message();
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return shown + ": " + NotRegularReason(st.st_mode);
  if (st.st_size > off_t(kMaxOpRequestBytes))
    return shown + ": " + std::to_string(st.st_size) + " bytes, more than " +
           std::to_string(kMaxOpRequestBytes);
  std::string b(kMaxOpRequestBytes + 1, '\0');
  size_t got = 0;
  while (got < b.size()) {
    ssize_t n = read(fd.get(), b.data() + got, b.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Errno("read " + shown, errno).message();
    if (n == 0) break;
    got += size_t(n);
  }
  if (got > kMaxOpRequestBytes)
    return shown + ": more than " + std::to_string(kMaxOpRequestBytes) + " bytes";
  b.resize(got);
  *bytes = std::move(b);
  return "";
}

}  // namespace

OpRequested ReadOpRequest(Env* env, const std::string& room, const std::string& mission_ops,
                          const std::string& id, const std::string& name, TimeMs now) {
  OpRequested q;
  q.id = id;
  q.name = name;
  q.now = now;
  q.declaration = ReadDeclaration(room);
  q.read_error = ReadRequestBytes(room, name, &q.bytes);
  if (!q.read_error.empty()) return q;
  // The key's state, for a request that names one (the kernel judges the rest).
  OpRequestOrError parsed = ParseOpRequest(q.bytes);
  if (auto* r = std::get_if<OpRequest>(&parsed)) {
    const std::string key = mission_ops + "/keys/" + r->key;
    if (env->Exists(key + ".json")) {
      q.key = OpKeyState::kTaken;
      Result<std::string> text = env->ReadFile(key + ".result.json", 4 << 20);
      Result<json::Value> v = text.ok() ? json::Parse(*text) : Result<json::Value>(text.status());
      if (v.ok() && v->is_object()) {
        q.key = OpKeyState::kDone;
        q.stored_result = json::Write(*v);
      }
    }
  }
  return q;
}

std::vector<std::string> ListOpRequests(const std::string& room) {
  std::vector<std::string> out;
  Result<UniqueFd> ops = OpenOps(room);
  if (!ops.ok()) return out;
  int fd = dup(ops->get());
  DIR* d = fd < 0 ? nullptr : fdopendir(fd);
  if (!d) {
    if (fd >= 0) close(fd);
    return out;
  }
  while (struct dirent* e = readdir(d)) {
    std::string n = OpRequestName(e->d_name);
    if (!n.empty()) out.push_back(std::move(n));
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

Status MakeOpsDir(const std::string& room) {
  Result<UniqueFd> r = OpenRoom(room);
  if (!r.ok()) return r.status();
  if (mkdirat(r->get(), "ops", 0755) != 0 && errno != EEXIST)
    return Status::Errno("create " + room + "/ops", errno);
  return Status::Ok();
}

Status TakeOpKey(Env* env, const std::string& mission_ops, const std::string& key,
                 const std::string& text) {
  Status s = env->MakeDir(mission_ops + "/keys");
  if (!s.ok() && s.code() != Code::kExists) return s;
  return env->CreateExclusive(mission_ops + "/keys", key + ".json", text);
}

Status WriteRoomResult(const std::string& room, const std::string& name, const std::string& text) {
  const std::string final_name = name + ".result.json";
  const std::string shown = room + "/ops/" + final_name;
  Result<UniqueFd> ops = OpenOps(room);
  if (!ops.ok()) return ops.status();
  const std::string tmp = "." + final_name + ".hangar-tmp";
  unlinkat(ops->get(), tmp.c_str(), 0);  // ours from an earlier try, or a drone's: never followed
  UniqueFd fd(
      openat(ops->get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (fd.get() < 0) return Status::Errno("create " + room + "/ops/" + tmp, errno);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Errno("write " + room + "/ops/" + tmp, errno);
    done += size_t(n);
  }
  if (renameat2(ops->get(), tmp.c_str(), ops->get(), final_name.c_str(), RENAME_NOREPLACE) != 0) {
    Status s = Status::Errno("rename into " + shown, errno);
    unlinkat(ops->get(), tmp.c_str(), 0);
    return s;
  }
  return Status::Ok();
}

json::Value ReadOpsEvidence(const std::string& mission_ops, const std::string& room, size_t max) {
  json::Array answered, unanswered;
  int64_t omitted = 0;
  std::set<std::string> names;
  std::vector<std::string> results;
  if (DIR* d = opendir(mission_ops.c_str())) {
    while (struct dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 12 && n.ends_with(".result.json") && n[0] != '.')
        results.push_back(n.substr(0, n.size() - 12));
    }
    closedir(d);
  }
  std::sort(results.begin(), results.end());
  for (const std::string& n : results) {
    names.insert(n);
    if (answered.size() >= max) {
      omitted++;
      continue;
    }
    std::ifstream in(mission_ops + "/" + n + ".result.json", std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Result<json::Value> v = json::Parse(text);
    if (!v.ok() || !v->is_object()) {
      omitted++;
      continue;
    }
    json::Object a{{"request", n}};
    for (const char* k : {"op", "key", "status", "rule", "rc", "repeat"})
      if (const json::Value* x = v->find(k)) a[k] = *x;
    answered.emplace_back(std::move(a));
  }
  for (const std::string& n : ListOpRequests(room)) {
    if (names.count(n)) continue;
    if (unanswered.size() >= max) {
      omitted++;
      continue;
    }
    std::string bytes;
    json::Object u{{"request", n}, {"op", nullptr}};
    if (ReadRequestBytes(room, n, &bytes).empty()) {
      OpRequestOrError parsed = ParseOpRequest(bytes);
      if (auto* r = std::get_if<OpRequest>(&parsed)) u["op"] = r->op;
    }
    unanswered.emplace_back(std::move(u));
  }
  return json::Object{{"answered", std::move(answered)},
                      {"unanswered", std::move(unanswered)},
                      {"omitted", omitted}};
}

}  // namespace hangar
