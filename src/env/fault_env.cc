#include "env/fault_env.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <functional>

namespace hangar {

namespace {

// Every item of V but the first, separated by spaces: a log line's ARGs after the call's path.
std::string AfterFirst(const std::vector<std::string>& v) {
  std::string rest;
  for (size_t i = 1; i < v.size(); ++i) rest += (rest.empty() ? "" : " ") + v[i];
  return rest;
}

struct ErrnoName {
  const char* name;
  int value;
};
constexpr ErrnoName kErrnos[] = {
    {"ENOSPC", ENOSPC}, {"EIO", EIO},       {"EDQUOT", EDQUOT},
    {"EROFS", EROFS},   {"EACCES", EACCES}, {"EPERM", EPERM},
    {"EMFILE", EMFILE}, {"ENFILE", ENFILE}, {"ENOMEM", ENOMEM},
};

const char* NameOfErrno(int value) {
  for (const ErrnoName& e : kErrnos)
    if (e.value == value) return e.name;
  return "E?";
}

// text with anything unprintable shown as '?', for a message on one line.
std::string Printable(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

Status Malformed(std::string_view text, const std::string& reason) {
  return Status::Invalid("cannot use HANGAR_FAULT=\"" + Printable(text) + "\": " + reason);
}

// A path on one log line: a newline or backslash escaped.
void AppendEscaped(std::string* line, const std::string& path) {
  for (char c : path) {
    if (c == '\n')
      *line += "\\n";
    else if (c == '\\')
      *line += "\\\\";
    else
      *line += c;
  }
}

void WriteAllTo(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a log or stderr that cannot be written is no reason to stop the call
    text.remove_prefix(size_t(n));
  }
}

}  // namespace

Result<FaultPlan> ParseFaultPlan(std::string_view text) {
  const std::string expected = "expected crash-before=N, crash-after=N or fail=N:ERRNO[:sticky]";
  FaultPlan plan;
  size_t eq = text.find('=');
  if (eq == std::string_view::npos) return Malformed(text, expected);
  std::string_view kind = text.substr(0, eq), rest = text.substr(eq + 1);
  if (kind == "crash-before")
    plan.kind = FaultPlan::Kind::kCrashBefore;
  else if (kind == "crash-after")
    plan.kind = FaultPlan::Kind::kCrashAfter;
  else if (kind == "fail")
    plan.kind = FaultPlan::Kind::kFail;
  else
    return Malformed(text, expected);

  std::string_view number = rest.substr(0, rest.find(':'));
  rest.remove_prefix(number.size());
  const char* end = number.data() + number.size();
  auto [ptr, ec] = std::from_chars(number.data(), end, plan.at);
  if (number.empty() || ptr != end || ec != std::errc() || number[0] == '0')
    return Malformed(text, "the call number \"" + Printable(number) +
                               "\" is not a decimal number from 1 without leading zeros");
  if (plan.kind != FaultPlan::Kind::kFail) {
    if (!rest.empty())
      return Malformed(text, "nothing may follow the call number of " + std::string(kind));
    return plan;
  }

  if (rest.empty()) return Malformed(text, "fail needs an errno: fail=N:ERRNO[:sticky]");
  rest.remove_prefix(1);  // ':'
  std::string_view name = rest.substr(0, rest.find(':'));
  rest.remove_prefix(name.size());
  for (const ErrnoName& e : kErrnos)
    if (name == e.name) plan.error = e.value;
  if (plan.error == 0) {
    std::string known;
    for (const ErrnoName& e : kErrnos) known += (known.empty() ? "" : ", ") + std::string(e.name);
    return Malformed(text, "unknown errno \"" + Printable(name) + "\" (one of " + known + ")");
  }
  if (rest == ":sticky")
    plan.sticky = true;
  else if (!rest.empty())
    return Malformed(text, "only \":sticky\" may follow the errno");
  return plan;
}

std::string DescribeFaultPlan(const FaultPlan& plan) {
  const std::string n = std::to_string(plan.at);
  switch (plan.kind) {
    case FaultPlan::Kind::kNone:
      return "no fault, mutating calls counted";
    case FaultPlan::Kind::kFail:
      return std::string(plan.sticky ? "every mutating call from " : "mutating call ") + n +
             " fails with " + NameOfErrno(plan.error);
    case FaultPlan::Kind::kCrashBefore:
      return "exit " + std::to_string(kFaultCrashStatus) + " before mutating call " + n;
    case FaultPlan::Kind::kCrashAfter:
      return "exit " + std::to_string(kFaultCrashStatus) + " after mutating call " + n;
  }
  return "";
}

FaultEnv::FaultEnv(Env* base, FaultPlan plan) : base_(base), plan_(plan) {}

FaultEnv::~FaultEnv() {
  if (log_fd_ >= 0) close(log_fd_);
}

Status FaultEnv::OpenLog(const std::string& path) {
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return Status::Errno("open fault log " + path, errno);
  std::lock_guard<std::mutex> lock(mu_);
  if (log_fd_ >= 0) close(log_fd_);
  log_fd_ = fd;
  return Status::Ok();
}

uint64_t FaultEnv::calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_;
}

Result<uint64_t> FaultEnv::FreeBytes(const std::string& path) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (plan_.kind == FaultPlan::Kind::kFail && plan_.sticky && calls_ >= plan_.at &&
        (plan_.error == ENOSPC || plan_.error == EDQUOT))
      return uint64_t{0};
  }
  return base_->FreeBytes(path);
}

Result<uint64_t> FaultEnv::Begin(const Call& call) {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t n = ++calls_;
  const bool crash =
      plan_.kind == FaultPlan::Kind::kCrashBefore || plan_.kind == FaultPlan::Kind::kCrashAfter;
  if (crash && n > plan_.at) {
    // The process is ending at call plan_.at: nothing numbered later may reach the disk.
    lock.unlock();
    for (;;) pause();
  }
  const bool strikes =
      plan_.kind != FaultPlan::Kind::kNone && (n == plan_.at || (plan_.sticky && n > plan_.at));
  if (log_fd_ >= 0) {
    std::string line = std::to_string(n) + " " + call.name + " ";
    AppendEscaped(&line, call.path);
    if (!call.to.empty()) AppendEscaped(&(line += " "), call.to);
    line += "\n";
    if (strikes) {
      line += "fault " + std::to_string(n) + " ";
      line += plan_.kind == FaultPlan::Kind::kFail ? std::string("fail ") + NameOfErrno(plan_.error)
              : plan_.kind == FaultPlan::Kind::kCrashAfter ? "crash-after"
                                                           : "crash-before";
      line += "\n";
    }
    WriteAllTo(log_fd_, line);
  }
  if (!strikes) return n;
  if (plan_.kind == FaultPlan::Kind::kCrashBefore) Crash(std::move(lock), "before", call);
  if (plan_.kind == FaultPlan::Kind::kCrashAfter) return n;  // Intercept crashes after it
  return Status::Errno(call.what, plan_.error);
}

void FaultEnv::Crash(std::unique_lock<std::mutex> lock, const char* when, const Call& call) {
  // Every call numbered before the crash point completes first (the later ones wait in Begin):
  // the disk then holds exactly calls 1 .. at-1, and call `at` or not, whatever the threads did.
  done_.wait(lock, [&] { return done_below_ == plan_.at - 1; });
  WriteAllTo(2, std::string(program_invocation_short_name) + ": fault injected: exit " +
                    std::to_string(kFaultCrashStatus) + " " + when + " mutating call " +
                    std::to_string(plan_.at) + " (" + call.name + " " + Printable(call.path) +
                    ")\n");
  _exit(kFaultCrashStatus);
}

Status FaultEnv::Intercept(const Call& call, const std::function<Status()>& perform) {
  Result<uint64_t> n = Begin(call);
  if (!n.ok()) return n.status();
  Status s = perform();
  std::unique_lock<std::mutex> lock(mu_);
  if (*n < plan_.at && ++done_below_ == plan_.at - 1) done_.notify_all();
  if (plan_.kind == FaultPlan::Kind::kCrashAfter && *n == plan_.at)
    Crash(std::move(lock), "after", call);
  return s;
}

Status FaultEnv::WriteFileAtomic(const std::string& dir, const std::string& name,
                                 std::string_view data) {
  return Intercept({"write", "write " + AtomicTmpPath(dir, name), dir + "/" + name},
                   [&] { return base_->WriteFileAtomic(dir, name, data); });
}

Status FaultEnv::WriteFileVisible(const std::string& dir, const std::string& name,
                                  std::string_view data) {
  return Intercept({"write-visible", "write " + AtomicTmpPath(dir, name), dir + "/" + name},
                   [&] { return base_->WriteFileVisible(dir, name, data); });
}

Status FaultEnv::WriteFilesAtomic(const std::string& dir, const Files& files) {
  return WriteFiles("write-files", dir, files,
                    [&] { return base_->WriteFilesAtomic(dir, files); });
}

Status FaultEnv::WriteFilesDirLater(const std::string& dir, const Files& files) {
  return WriteFiles("write-files-dir-later", dir, files,
                    [&] { return base_->WriteFilesDirLater(dir, files); });
}

Status FaultEnv::WriteFiles(const char* call, const std::string& dir, const Files& files,
                            const std::function<Status()>& perform) {
  if (files.empty()) return Status::Ok();
  std::string names;  // the log's ARG: DIR/NAME for the first, then ",NAME" for each other
  for (const auto& [name, data] : files) names += (names.empty() ? "" : ",") + std::string(name);
  // An injected failure names the first file as RealEnv's would (nothing is written before it).
  const std::string first(files.front().first);
  return Intercept({call, "write " + AtomicTmpPath(dir, first), dir + "/" + first, names},
                   perform);
}

Status FaultEnv::CreateFileAtomic(const std::string& dir, const std::string& name,
                                  std::string_view data, mode_t mode) {
  return Intercept({"create-atomic", "create " + AtomicTmpPath(dir, name), dir + "/" + name},
                   [&] { return base_->CreateFileAtomic(dir, name, data, mode); });
}

Status FaultEnv::CreateExclusive(const std::string& dir, const std::string& name,
                                 std::string_view data) {
  return Intercept({"create", "create " + dir + "/" + name, dir + "/" + name},
                   [&] { return base_->CreateExclusive(dir, name, data); });
}

Status FaultEnv::Rename(const std::string& from, const std::string& to) {
  return Intercept({"rename", "rename " + from + " to " + to, from, to},
                   [&] { return base_->Rename(from, to); });
}

Status FaultEnv::RenameNoReplace(const std::string& from, const std::string& to) {
  return Intercept({"rename-noreplace", "rename " + from + " to " + to, from, to},
                   [&] { return base_->RenameNoReplace(from, to); });
}

Status FaultEnv::RenameLater(const std::string& from, const std::string& to) {
  return Intercept({"rename-later", "rename " + from + " to " + to, from, to},
                   [&] { return base_->RenameLater(from, to); });
}

Status FaultEnv::SyncDirs(const std::vector<std::string>& dirs, const std::string& then) {
  if (dirs.empty()) return Status::Ok();
  // The log's ARGs: each directory, the first as the call's path, THEN last.
  std::string rest = AfterFirst(dirs);
  if (!then.empty()) rest += (rest.empty() ? "" : " ") + then;
  return Intercept({"sync-dirs", "fsync " + dirs.front(), dirs.front(), rest},
                   [&] { return base_->SyncDirs(dirs, then); });
}

Status FaultEnv::SyncPaths(const std::vector<std::string>& paths) {
  if (paths.empty()) return Status::Ok();
  // The log's ARGs: each path, the first as the call's path.
  return Intercept({"sync-paths", "fsync " + paths.front(), paths.front(), AfterFirst(paths)},
                   [&] { return base_->SyncPaths(paths); });
}

Status FaultEnv::MakeDir(const std::string& path) {
  return Intercept({"mkdir", "create directory " + path, path},
                   [&] { return base_->MakeDir(path); });
}

Status FaultEnv::MakeDirVisible(const std::string& path) {
  return Intercept({"mkdir-visible", "create directory " + path, path},
                   [&] { return base_->MakeDirVisible(path); });
}

Status FaultEnv::Remove(const std::string& path) {
  return Intercept({"remove", "remove " + path, path}, [&] { return base_->Remove(path); });
}

Status FaultEnv::RemoveTree(const std::string& path) {
  return Intercept({"remove-tree", "remove " + path, path},
                   [&] { return base_->RemoveTree(path); });
}

Status FaultEnv::AppendDurable(const std::string& path, std::string_view data) {
  return Intercept({"append", "write " + path, path},
                   [&] { return base_->AppendDurable(path, data); });
}

Status FaultEnv::Truncate(const std::string& path, uint64_t size) {
  return Intercept({"truncate", "truncate " + path, path},
                   [&] { return base_->Truncate(path, size); });
}

Status FaultEnv::WriteMaildir(const std::string& dir, const std::string& name,
                              std::string_view data, int64_t owner) {
  return Intercept({"maildir", "write " + dir + "/tmp/" + name, dir + "/new/" + name},
                   [&] { return base_->WriteMaildir(dir, name, data, owner); });
}

Result<std::unique_ptr<FaultEnv>> FaultEnvFromVariables(Env* base, const char* fault,
                                                        const char* log, const char* clock_ms) {
  if (!fault && !log && !clock_ms) return std::unique_ptr<FaultEnv>();
  TimeMs offset = 0;
  if (clock_ms) {
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(clock_ms, &end, 10);
    if (!*clock_ms || *end || errno != 0)
      return Status::Invalid("cannot use HANGAR_FAULT_CLOCK_MS=\"" + Printable(clock_ms) +
                             "\": expected a signed integer of milliseconds");
    offset = TimeMs(v);
  }
  FaultPlan plan;
  if (fault) {
    Result<FaultPlan> parsed = ParseFaultPlan(fault);
    if (!parsed.ok()) return parsed.status();
    plan = *parsed;
  }
  auto env = std::make_unique<FaultEnv>(base, plan);
  env->SetClockOffset(offset);
  if (log) {
    if (log[0] != '/')
      return Status::Invalid("cannot use HANGAR_FAULT_LOG=\"" + Printable(log) +
                             "\": not an absolute path");
    if (Status s = env->OpenLog(log); !s.ok()) return s;
  }
  return env;
}

}  // namespace hangar
