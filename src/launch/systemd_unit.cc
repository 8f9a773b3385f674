#include "launch/systemd_unit.h"

#include <csignal>
#include <cstdio>
#include <optional>
#include <utility>

namespace hangar {

namespace {

constexpr char kShowProperties[] =
    "Id,LoadState,ActiveState,SubState,Result,ExecMainStatus,ExecMainCode,ExecMainStartTimestamp,"
    "ExecMainExitTimestamp";

// systemd 252 expands $VAR and ${VAR} in every argument of ExecStart= when it executes it, and
// turns "$$" into "$" (systemd.service(5), "Command lines"; systemd-run(1) example 6).
std::string DoubleDollars(std::string_view s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '$') out += '$';
  }
  return out;
}

// One word of a command line as systemd-run splits a property's value (systemd.syntax(7),
// "Quoting"): double-quoted, with \\ and \" and \xNN for control characters, the escapes its
// C-unescaping accepts. An unknown escape such as "\;" makes systemd-run refuse the line.
std::string QuoteWord(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20 || c == 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

// RuntimeMaxSec: whole seconds, rounded up, at least 1 (0 would not mean "no limit").
int64_t RuntimeMaxSec(int64_t deadline_ms) {
  int64_t s = deadline_ms <= 0 ? 0 : (deadline_ms + 999) / 1000;
  return s < 1 ? 1 : s;
}

std::vector<std::string> Head(const std::string& program, const SystemdOptions& o) {
  std::vector<std::string> argv = {program};
  if (o.user) argv.push_back("--user");
  return argv;
}

bool IsDigits(std::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::optional<int> ParseInt(std::string_view s) {
  bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  if (!IsDigits(s)) return std::nullopt;
  int v = std::stoi(std::string(s));
  return negative ? -v : v;
}

// "Mon 2026-11-30 12:00:00.123456 UTC" (--timestamp=us+utc) or without the fraction; empty when
// the manager has no time. Anything else (a local zone, "n/a") is left as 0.
TimeMs ParseShowTimestamp(std::string_view v) {
  constexpr std::string_view kUtc = " UTC";
  if (v.size() < 4 + 19 + kUtc.size() || v[3] != ' ' || !v.ends_with(kUtc)) return 0;
  std::string_view when = v.substr(4, v.size() - 4 - kUtc.size());  // 2026-11-30 12:00:00.123456
  if (when[10] != ' ') return 0;
  std::string rfc(when);
  rfc[10] = 'T';
  std::optional<TimeMs> t = ParseRfc3339(rfc + "Z");
  return t ? *t : 0;
}

// The names systemd gives signals ($EXIT_STATUS; signal_to_string in its signal-util.c): the
// classic names without "SIG", "RTMIN+N" for real-time ones, the number for any other.
std::optional<int> SignalNumber(std::string_view name) {
  static const std::pair<const char*, int> kNames[] = {
      {"HUP", SIGHUP},       {"INT", SIGINT},       {"QUIT", SIGQUIT}, {"ILL", SIGILL},
      {"TRAP", SIGTRAP},     {"ABRT", SIGABRT},     {"BUS", SIGBUS},   {"FPE", SIGFPE},
      {"KILL", SIGKILL},     {"USR1", SIGUSR1},     {"SEGV", SIGSEGV}, {"USR2", SIGUSR2},
      {"PIPE", SIGPIPE},     {"ALRM", SIGALRM},     {"TERM", SIGTERM},
#ifdef SIGSTKFLT
      {"STKFLT", SIGSTKFLT},
#endif
      {"CHLD", SIGCHLD},     {"CONT", SIGCONT},     {"STOP", SIGSTOP}, {"TSTP", SIGTSTP},
      {"TTIN", SIGTTIN},     {"TTOU", SIGTTOU},     {"URG", SIGURG},   {"XCPU", SIGXCPU},
      {"XFSZ", SIGXFSZ},     {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH},
      {"IO", SIGIO},         {"PWR", SIGPWR},       {"SYS", SIGSYS},
  };
  for (const auto& [n, number] : kNames)
    if (name == n) return number;
  if (name.starts_with("RTMIN+")) {
    std::string_view n = name.substr(6);
    if (!IsDigits(n)) return std::nullopt;
    int sig = SIGRTMIN + std::stoi(std::string(n));
    if (sig > SIGRTMAX) return std::nullopt;
    return sig;
  }
  if (IsDigits(name)) {
    int sig = std::stoi(std::string(name));
    if (sig >= 1 && sig <= SIGRTMAX) return sig;
  }
  return std::nullopt;
}

Status BadShow(const std::string& where, const std::string& why) {
  return Status::Invalid("cannot read systemctl show: " + where + ": " + why);
}

using Block = std::vector<std::pair<std::string, std::string>>;

// The blocks of KEY=VALUE lines, split at blank lines (systemctl prints one between units).
Result<std::vector<Block>> SplitBlocks(std::string_view text) {
  std::vector<Block> blocks;
  bool open = false;
  size_t line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    if (line.empty()) {
      open = false;
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return BadShow("line " + std::to_string(line_no), "expected KEY=VALUE");
    if (!open) blocks.emplace_back();
    open = true;
    blocks.back().emplace_back(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
  }
  return blocks;
}

Result<EngineReport> ReportFromBlock(const Block& block, const std::string& unit, size_t index) {
  std::string where = "unit " + std::to_string(index + 1) + " (" + unit + ")";
  std::map<std::string, std::string> p;
  for (const auto& [k, v] : block)
    if (!p.emplace(k, v).second) return BadShow(where, k + "= twice (a separator missing?)");
  auto it = p.find("Id");
  if (it == p.end()) return BadShow(where, "no Id=");
  if (it->second != unit) return BadShow(where, "Id=" + it->second + ", expected " + unit);

  EngineReport r;
  r.id = r.name = unit;
  if (p.count("LoadState") && p["LoadState"] == "not-found") {
    r.state = EngineReport::State::kUnknown;
    r.detail = "LoadState=not-found";
    return r;
  }
  for (const char* k : {"LoadState", "ActiveState", "SubState", "Result", "ExecMainCode",
                        "ExecMainStatus", "ExecMainStartTimestamp", "ExecMainExitTimestamp"})
    if (!p.count(k)) return BadShow(where, std::string("no ") + k + "=");
  const std::string& load = p["LoadState"];
  if (load != "loaded") {
    r.state = EngineReport::State::kEnded;
    r.exit.error = "systemd could not load the unit (LoadState=" + load + ")";
    r.detail = "LoadState=" + load;
    return r;
  }

  const std::string& active = p["ActiveState"];
  const std::string& result = p["Result"];
  r.detail = "ActiveState=" + active + " SubState=" + p["SubState"] + " Result=" + result;
  std::optional<int> code = ParseInt(p["ExecMainCode"]);
  std::optional<int> status = ParseInt(p["ExecMainStatus"]);
  if (!code || *code < 0 || *code > 3)
    return BadShow(where, "ExecMainCode=" + p["ExecMainCode"] + ", expected 0, 1, 2 or 3");
  if (!status)
    return BadShow(where, "ExecMainStatus=" + p["ExecMainStatus"] + ", expected a number");
  r.exit.started = ParseShowTimestamp(p["ExecMainStartTimestamp"]);

  if (active == "activating") {
    r.state = EngineReport::State::kPending;
  } else if (active == "active" || active == "reloading" || active == "deactivating") {
    r.state = EngineReport::State::kRunning;
  } else if (active == "inactive" || active == "failed" || active == "maintenance") {
    if (*code == 0 && active != "failed") {
      r.state = EngineReport::State::kPending;  // loaded, its start job not run yet
      return r;
    }
    r.state = EngineReport::State::kEnded;
    r.exit.ended = ParseShowTimestamp(p["ExecMainExitTimestamp"]);
    r.exit.timed_out = result == "timeout";
    if (*code == 0) r.exit.error = "systemd started no main process (Result=" + result + ")";
    if (*code == 1) r.exit.rc = *status;
    if (*code >= 2) r.exit.signal = *status;  // 2 killed, 3 dumped core
  } else {
    return BadShow(where, "ActiveState=" + active +
                              ", expected activating, active, reloading, deactivating, "
                              "inactive, failed or maintenance");
  }
  return r;
}

Status BadRecord(const std::string& field, const std::string& why) {
  return Status::Invalid("unit-ended.json: " + field + ": " + why);
}

}  // namespace

std::string UnitName(const std::string& id, int attempt) {
  return "hangar-" + id + "-" + std::to_string(attempt) + ".service";
}

Status CheckSystemdShim(const std::string& shim) {
  auto refuse = [&](const std::string& why) {
    return Status::Invalid("cannot run " + shim + " under systemd-run: " + why);
  };
  if (shim.empty() || shim[0] != '/') return refuse("expected an absolute path");
  for (unsigned char c : shim) {
    if (c == '$') return refuse("systemd would expand the '$' in its argv[0]");
    if (c < 0x20 || c == 0x7f) return refuse("a control character in the path");
  }
  return Status::Ok();
}

std::vector<std::string> SystemdRunArgv(const Plan& plan, const std::string& shim,
                                        const std::string& plan_file, const std::string& sha256,
                                        const SystemdOptions& o) {
  std::string unit = UnitName(plan.id, plan.attempt);
  std::vector<std::string> argv = Head(o.systemd_run, o);
  for (std::string a : {
           "--unit=" + unit,
           "--description=hangar " + plan.id + " attempt " + std::to_string(plan.attempt),
           std::string("--quiet"),
           std::string("--collect"),
           std::string("--property=Type=exec"),
           "--property=RuntimeMaxSec=" + std::to_string(RuntimeMaxSec(plan.enforced_deadline_ms)),
           // The plan's grace between SIGTERM and SIGKILL, at the deadline and at a stop (0
           // would mean no SIGKILL ever: at least a second).
           "--property=TimeoutStopSec=" + std::to_string(RuntimeMaxSec(plan.grace_ms)),
           "--setenv=HANGAR_UNIT=" + unit,
           "--working-directory=" + plan.room,
       })
    argv.push_back(std::move(a));
  // The limits as the unit's cgroup (a total across the drone's processes, which the shim's
  // rlimits are not): systemd.resource-control(5).
  if (plan.memory_mb > 0)
    argv.push_back("--property=MemoryMax=" + std::to_string(plan.memory_mb) + "M");
  if (plan.processes > 0)
    argv.push_back("--property=TasksMax=" + std::to_string(plan.processes));
  for (std::string a : {
           // ':' turns off $ expansion for this command (ExecStopPostEx, flag no-env-expand).
           "--property=ExecStopPost=:" + QuoteWord(shim) + " --unit-ended " + QuoteWord(plan.run),
           std::string("--"),
           shim,
           std::string("--exec"),
           DoubleDollars(plan_file),
           DoubleDollars(sha256),
       })
    argv.push_back(std::move(a));
  return argv;
}

std::vector<std::string> SystemctlShowArgv(const std::vector<std::string>& units,
                                           const SystemdOptions& o) {
  std::vector<std::string> argv = Head(o.systemctl, o);
  for (const char* a : {"show", "--timestamp=us+utc", "-p", kShowProperties, "--"})
    argv.push_back(a);
  argv.insert(argv.end(), units.begin(), units.end());
  return argv;
}

std::vector<std::string> SystemctlStopArgv(const std::string& unit, const SystemdOptions& o) {
  std::vector<std::string> argv = Head(o.systemctl, o);
  // --no-block: hangard's loop does not wait out the unit's stop timeout; the end is observed.
  for (const char* a : {"stop", "--no-block", "--"}) argv.push_back(a);
  argv.push_back(unit);
  return argv;
}

Result<std::vector<EngineReport>> ParseSystemctlShow(std::string_view text,
                                                     const std::vector<std::string>& units) {
  Result<std::vector<Block>> blocks = SplitBlocks(text);
  if (!blocks.ok()) return blocks.status();
  if (blocks->size() != units.size())
    return BadShow("output", std::to_string(blocks->size()) + " blocks for " +
                                 std::to_string(units.size()) + " units");
  std::vector<EngineReport> reports;
  for (size_t i = 0; i < units.size(); ++i) {
    Result<EngineReport> r = ReportFromBlock((*blocks)[i], units[i], i);
    if (!r.ok()) return r.status();
    reports.push_back(std::move(r).value());
  }
  return reports;
}

json::Value UnitEndedRecord(const std::map<std::string, std::string>& env, TimeMs now) {
  auto get = [&](const char* name) -> json::Value {
    auto it = env.find(name);
    if (it == env.end() || !json::ValidUtf8(it->second)) return nullptr;
    return it->second;
  };
  json::Object o;
  o["hangar"] = 1;
  o["unit"] = get("HANGAR_UNIT");
  o["service_result"] = get("SERVICE_RESULT");
  o["exit_code"] = get("EXIT_CODE");
  o["exit_status"] = get("EXIT_STATUS");
  o["time"] = FormatTime(now);
  return o;
}

Result<EngineReport> ReportFromUnitEnded(const json::Value& record) {
  if (!record.is_object()) return BadRecord("", "expected an object");
  const json::Value* ver = record.find("hangar");
  if (!ver || !ver->is_int() || ver->as_int() != 1) return BadRecord("hangar", "expected 1");
  auto text = [&](const char* k) -> std::optional<std::string> {
    const json::Value* v = record.find(k);
    if (!v || !v->is_string() || v->as_string().empty()) return std::nullopt;
    return v->as_string();
  };
  auto is_null = [&](const char* k) {
    const json::Value* v = record.find(k);
    return !v || v->is_null();
  };

  EngineReport r;
  r.state = EngineReport::State::kEnded;
  std::optional<std::string> unit = text("unit");
  if (!unit) return BadRecord("unit", "expected the unit's name");
  r.id = r.name = *unit;
  std::optional<std::string> result = text("service_result");
  if (!result) return BadRecord("service_result", "expected $SERVICE_RESULT, such as success");
  std::optional<std::string> time = text("time");
  std::optional<TimeMs> ended = time ? ParseTime(*time) : std::nullopt;
  if (!ended) return BadRecord("time", "expected a time such as 2026-11-29T19:05:43.123Z");
  r.exit.ended = *ended;
  r.exit.timed_out = *result == "timeout";
  r.detail = "SERVICE_RESULT=" + *result;

  // systemd sets neither when it started no main process (Result=start-limit-hit, resources).
  if (is_null("exit_code") && is_null("exit_status")) {
    r.exit.error = "systemd started no main process (SERVICE_RESULT=" + *result + ")";
    return r;
  }
  std::optional<std::string> code = text("exit_code");
  if (!code || (*code != "exited" && *code != "killed" && *code != "dumped"))
    return BadRecord("exit_code", "expected exited, killed or dumped");
  std::optional<std::string> status = text("exit_status");
  r.detail += " EXIT_CODE=" + *code + " EXIT_STATUS=" + status.value_or("");
  if (*code == "exited") {
    std::optional<int> rc = status && IsDigits(*status) ? ParseInt(*status) : std::nullopt;
    if (!rc || *rc > 255) return BadRecord("exit_status", "expected an exit status 0-255");
    r.exit.rc = *rc;
  } else {
    std::optional<int> sig = status ? SignalNumber(*status) : std::nullopt;
    if (!sig) return BadRecord("exit_status", "expected a signal name such as TERM");
    r.exit.signal = *sig;
  }
  return r;
}

}  // namespace hangar
