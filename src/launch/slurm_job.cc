#include "launch/slurm_job.h"

#include <sys/wait.h>

#include <charconv>
#include <ctime>
#include <map>
#include <optional>

namespace hangar {

namespace {

using State = EngineReport::State;

// The squeue fields ParseSqueue reads, in order. "Field:|" is the field with no width (printed
// whole, not cut to squeue's default 20 characters) and "|" after it; the last has no suffix.
constexpr const char* kSqueueFormat =
    "JobID:|,Name:|,State:|,exit_code:|,Reason:|,StartTime:|,EndTime:|,NodeList:";
constexpr const char* kSacctFields = "JobID,JobName,State,ExitCode,Start,End,NodeList";

// 'text' for sh: a single quote becomes '\''.
std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// sbatch expands %j, %x and the like in --output and --error; %% is a plain %.
std::string NoPatterns(const std::string& path) {
  std::string out;
  for (char c : path) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (size_t at = 0;;) {
    size_t end = s.find(sep, at);
    parts.push_back(s.substr(at, end == std::string_view::npos ? end : end - at));
    if (end == std::string_view::npos) return parts;
    at = end + 1;
  }
}

// The lines of a tool's output, without empty ones (the final newline).
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::string_view l : Split(text, '\n'))
    if (!l.empty()) lines.push_back(l);
  return lines;
}

bool IsJobId(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::optional<int> ParseCount(std::string_view s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

// For messages: the text quoted, cut after 80 characters (scontrol's line is ~1500).
std::string Quoted(std::string_view s) {
  if (s.size() > 80) return "\"" + std::string(s.substr(0, 80)) + "...\"";
  return "\"" + std::string(s) + "\"";
}

Status Bad(const char* tool, std::string_view field, const std::string& why) {
  return Status::Invalid("cannot parse " + std::string(tool) + " output: " + std::string(field) +
                         ": " + why);
}

// Slurm prints times in the local time zone, to the second ("2026-11-30T11:50:21"), and
// N/A, Unknown or None when it has no time. 0 for those.
Result<TimeMs> SlurmTime(const char* tool, std::string_view field, std::string_view v) {
  if (v == "N/A" || v == "Unknown" || v == "None" || v.empty()) return TimeMs{0};
  const std::string expected = "expected YYYY-MM-DDTHH:MM:SS, got " + Quoted(v);
  if (v.size() != 19 || v[4] != '-' || v[7] != '-' || v[10] != 'T' || v[13] != ':' || v[16] != ':')
    return Bad(tool, field, expected);
  auto num = [&](size_t at, size_t n) { return ParseCount(v.substr(at, n)); };
  auto year = num(0, 4), mon = num(5, 2), day = num(8, 2), hour = num(11, 2), min = num(14, 2),
       sec = num(17, 2);
  if (!year || !mon || !day || !hour || !min || !sec || *mon < 1 || *mon > 12 || *day < 1 ||
      *day > 31 || *hour > 23 || *min > 59 || *sec > 60)
    return Bad(tool, field, expected);
  std::tm tm{};
  tm.tm_year = *year - 1900;
  tm.tm_mon = *mon - 1;
  tm.tm_mday = *day;
  tm.tm_hour = *hour;
  tm.tm_min = *min;
  tm.tm_sec = *sec;
  tm.tm_isdst = -1;  // the zone's rule for that date
  std::time_t t = std::mktime(&tm);
  if (t == std::time_t(-1)) return Bad(tool, field, expected);
  return TimeMs{int64_t(t) * 1000};
}

// Slurm's job state (the first word: sacct may say "CANCELLED by 0").
std::optional<State> StateOf(std::string_view word) {
  static const std::map<std::string_view, State> states = {
      {"PENDING", State::kPending},       {"CONFIGURING", State::kPending},
      {"REQUEUED", State::kPending},      {"REQUEUE_HOLD", State::kPending},
      {"REQUEUE_FED", State::kPending},   {"SPECIAL_EXIT", State::kPending},
      {"RESV_DEL_HOLD", State::kPending}, {"RUNNING", State::kRunning},
      {"COMPLETING", State::kRunning},    {"SUSPENDED", State::kRunning},
      {"STOPPED", State::kRunning},       {"SIGNALING", State::kRunning},
      {"RESIZING", State::kRunning},      {"STAGE_OUT", State::kRunning},
      {"COMPLETED", State::kEnded},       {"FAILED", State::kEnded},
      {"TIMEOUT", State::kEnded},         {"CANCELLED", State::kEnded},
      {"NODE_FAIL", State::kEnded},       {"OUT_OF_MEMORY", State::kEnded},
      {"PREEMPTED", State::kEnded},       {"BOOT_FAIL", State::kEnded},
      {"DEADLINE", State::kEnded},        {"REVOKED", State::kEnded},
  };
  auto it = states.find(word);
  if (it == states.end()) return std::nullopt;
  return it->second;
}

// How the job's process ended, in the tool's own encoding.
struct Exit {
  std::optional<int> rc, signal;
};

// squeue's exit_code: the raw wait status.
Result<Exit> WaitStatus(const char* tool, std::string_view field, std::string_view v) {
  auto s = ParseCount(v);
  if (!s) return Bad(tool, field, "expected a wait status, got " + Quoted(v));
  if (WIFSIGNALED(*s)) return Exit{std::nullopt, WTERMSIG(*s)};
  return Exit{WEXITSTATUS(*s), std::nullopt};
}

// scontrol's and sacct's ExitCode: "RC:SIGNAL".
Result<Exit> RcColonSignal(const char* tool, std::string_view field, std::string_view v) {
  size_t colon = v.find(':');
  auto rc = ParseCount(v.substr(0, colon));
  auto sig = colon == std::string_view::npos ? std::nullopt : ParseCount(v.substr(colon + 1));
  if (!rc || !sig) return Bad(tool, field, "expected RC:SIGNAL, got " + Quoted(v));
  if (*sig != 0) return Exit{std::nullopt, *sig};
  return Exit{*rc, std::nullopt};
}

// One job as a tool printed it, fields still text.
struct JobText {
  std::string_view id, name, state, reason, start, end, nodes;
};

// A tool's name and its names for the fields messages point at.
struct Tool {
  const char *name, *id, *state, *exit, *start, *end;
};
constexpr Tool kSqueue{"squeue", "JobID", "State", "exit_code", "StartTime", "EndTime"};
constexpr Tool kScontrol{"scontrol", "JobId", "JobState", "ExitCode", "StartTime", "EndTime"};
constexpr Tool kSacct{"sacct", "JobID", "State", "ExitCode", "Start", "End"};

// The report of one job. LOSSY: the tool writes ExitCode 0:0 for a job Slurm cancelled or timed
// out, though it was signalled (jobcomp/filetxt does), so that 0:0 says nothing of the drone.
Result<EngineReport> Report(const Tool& t, const JobText& j, const Result<Exit>& exit, bool lossy) {
  if (!IsJobId(j.id)) return Bad(t.name, t.id, "expected digits, got " + Quoted(j.id));
  std::string_view word = j.state.substr(0, j.state.find(' '));
  std::optional<State> state = StateOf(word);
  if (!state) return Bad(t.name, t.state, "unknown job state " + Quoted(j.state));
  if (!exit.ok()) return exit.status();
  EngineReport r;
  r.state = *state;
  r.id = std::string(j.id);
  r.name = std::string(j.name);
  r.detail = "State=" + std::string(j.state);
  if (!j.reason.empty()) r.detail += " Reason=" + std::string(j.reason);
  Result<TimeMs> start = SlurmTime(t.name, t.start, j.start);
  Result<TimeMs> end = SlurmTime(t.name, t.end, j.end);
  if (!start.ok()) return start.status();
  if (!end.ok()) return end.status();
  // A pending job's times are the scheduler's guesses; a running job's end is its time limit.
  if (r.state == State::kRunning) r.exit.started = *start;
  if (r.state != State::kEnded) return r;

  ExitInfo& e = r.exit;
  e.timed_out = word == "TIMEOUT";
  e.cancelled = word == "CANCELLED";
  e.ended = *end;
  // No node: it ended before it ran (cancelled while pending, or refused); its exit code is 0
  // and its StartTime the moment it ended.
  if (j.nodes.empty() || j.nodes == "(null)" || j.nodes == "None") {
    if (!e.cancelled) e.error = "Slurm ended the job before it ran: " + r.detail;
    return r;
  }
  e.started = *start;
  bool unknown = lossy && (e.timed_out || e.cancelled) && exit->rc == 0;
  if (!unknown) {
    e.rc = exit->rc;
    e.signal = exit->signal;
  }
  return r;
}

// The value of KEY in scontrol's one-line KEY=VALUE list; nullopt when absent.
using KeyValues = std::map<std::string_view, std::string_view>;
std::optional<std::string_view> Get(const KeyValues& kv, std::string_view key) {
  auto it = kv.find(key);
  if (it == kv.end()) return std::nullopt;
  return it->second;
}

}  // namespace

std::string JobName(const std::string& id, int attempt) {
  return "hangar-" + id + "-" + std::to_string(attempt);
}

int64_t SlurmMinutes(int64_t deadline_ms) {
  if (deadline_ms <= 0) return 1;  // --time=0 would mean no limit at all
  return (deadline_ms + 59999) / 60000;
}

std::string BatchScript(const std::string& shim, const std::string& plan_file,
                        const std::string& sha256) {
  return "#!/bin/sh\nexec " + ShellQuote(shim) + " " + ShellQuote("--exec") + " " +
         ShellQuote(plan_file) + " " + ShellQuote(sha256) + "\n";
}

std::vector<std::string> SbatchArgv(const Plan& plan, const std::string& script,
                                    const SlurmOptions& o) {
  std::vector<std::string> argv = {
      o.sbatch,
      "--parsable",
      "--job-name=" + JobName(plan.id, plan.attempt),
      "--time=" + std::to_string(SlurmMinutes(plan.enforced_deadline_ms)),
      "--chdir=" + plan.room,
      "--output=" + NoPatterns(plan.run + "/slurm.out"),
      "--error=" + NoPatterns(plan.run + "/slurm.err"),
      "--export=NONE",
      "--no-requeue"};
  if (!o.partition.empty()) argv.push_back("--partition=" + o.partition);
  // The job's memory on its node, as Slurm's task plugin enforces it (cgroup or RLIMIT_AS there).
  if (plan.memory_mb > 0) argv.push_back("--mem=" + std::to_string(plan.memory_mb) + "M");
  argv.push_back(script);
  return argv;
}

Result<std::string> ParseSbatch(std::string_view out) {
  std::string_view line = out;
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  std::string_view id = line.substr(0, line.find(';'));
  bool cluster_ok = id.size() == line.size() || line.size() > id.size() + 1;
  if (!IsJobId(id) || !cluster_ok || line.find('\n') != std::string_view::npos)
    return Bad("sbatch", "job id", "expected JOBID or JOBID;CLUSTER, got " + Quoted(out));
  return std::string(id);
}

std::vector<std::string> SqueueArgv(const std::vector<std::string>& job_ids,
                                    const SlurmOptions& o) {
  std::string ids;
  for (const std::string& id : job_ids) ids += (ids.empty() ? "" : ",") + id;
  return {o.squeue, "-h", "-t", "all", "-j", ids, "-O", kSqueueFormat};
}

std::vector<std::string> SqueueByNameArgv(const std::string& name, const SlurmOptions& o) {
  return {o.squeue, "-h", "--me", "-t", "all", "-n", name, "-O", kSqueueFormat};
}

Result<std::vector<EngineReport>> ParseSqueue(std::string_view out) {
  std::vector<EngineReport> reports;
  int n = 0;
  for (std::string_view line : Lines(out)) {
    ++n;
    std::vector<std::string_view> f = Split(line, '|');
    if (f.size() != 8)
      return Bad("squeue", "line " + std::to_string(n),
                 "expected 8 fields separated by |, got " + std::to_string(f.size()));
    JobText j{f[0], f[1], f[2], f[4], f[5], f[6], f[7]};
    Result<EngineReport> r =
        Report(kSqueue, j, WaitStatus(kSqueue.name, kSqueue.exit, f[3]), false);
    if (!r.ok()) return r.status();
    reports.push_back(std::move(r).value());
  }
  return reports;
}

std::vector<std::string> ScontrolShowArgv(const std::string& job_id, const SlurmOptions& o) {
  return {o.scontrol, "-o", "show", "job", job_id};
}

Result<EngineReport> ParseScontrolShowJob(std::string_view out) {
  if (out.substr(0, 6) != "JobId=" && out.find("Invalid job id specified") != out.npos)
    return Status::NotFound("Slurm has no such job (scontrol: Invalid job id specified)");
  std::vector<std::string_view> lines = Lines(out);
  if (lines.size() != 1 || lines[0].substr(0, 6) != "JobId=")
    return Bad("scontrol", "JobId", "expected one line starting JobId=, got " + Quoted(out));
  std::string_view line = lines[0];
  // The name may hold spaces: it is what lies between JobName= and UserId=.
  size_t name_at = line.find(" JobName="), user_at = line.find(" UserId=");
  if (name_at == line.npos || user_at == line.npos || user_at < name_at)
    return Bad("scontrol", "JobName", "expected JobName= before UserId=");
  KeyValues kv;
  kv["JobId"] = line.substr(6, name_at - 6);
  kv["JobName"] = line.substr(name_at + 9, user_at - name_at - 9);
  // Paths (Command=, WorkDir=, StdOut=...) come last and may hold spaces: stop before them.
  for (std::string_view word : Split(line.substr(user_at + 1), ' ')) {
    if (word.starts_with("Command=")) break;
    size_t eq = word.find('=');
    if (eq != word.npos) kv.emplace(word.substr(0, eq), word.substr(eq + 1));
  }
  for (const char* key : {"JobState", "Reason", "ExitCode", "StartTime", "EndTime", "NodeList"})
    if (!Get(kv, key)) return Bad("scontrol", key, "missing");
  JobText j{*Get(kv, "JobId"),     *Get(kv, "JobName"), *Get(kv, "JobState"), *Get(kv, "Reason"),
            *Get(kv, "StartTime"), *Get(kv, "EndTime"), *Get(kv, "NodeList")};
  return Report(kScontrol, j, RcColonSignal(kScontrol.name, kScontrol.exit, *Get(kv, "ExitCode")),
                false);
}

std::vector<std::string> SacctCompletionArgv(const std::string& job_id, const SlurmOptions& o) {
  return {o.sacct, "-c", "-j", job_id, "-n", "-P", "-o", kSacctFields};
}

Result<EngineReport> ParseSacctCompletion(std::string_view out, const std::string& job_id) {
  std::optional<EngineReport> last;
  int n = 0;
  for (std::string_view line : Lines(out)) {
    ++n;
    std::vector<std::string_view> f = Split(line, '|');
    if (f.size() != 7)
      return Bad("sacct", "line " + std::to_string(n),
                 "expected 7 fields separated by |, got " + std::to_string(f.size()));
    JobText j{f[0], f[1], f[2], "", f[4], f[5], f[6]};
    Result<EngineReport> r = Report(kSacct, j, RcColonSignal(kSacct.name, kSacct.exit, f[3]), true);
    if (!r.ok()) return r.status();
    if (f[0] == job_id) last = std::move(r).value();  // a requeued job has one line per end
  }
  if (!last) return Status::NotFound("Slurm's completion log has no job " + job_id);
  return *last;
}

std::vector<std::string> ScancelArgv(const std::string& job_id, const SlurmOptions& o) {
  return {o.scancel, job_id};
}

}  // namespace hangar
