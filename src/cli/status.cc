// hangar status: is the kernel there, how many missions are in each state, who waits longest, and
// which returns wait for delivery. It reports a kernel that is down; that is not an error.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "cli/spool_view.h"

namespace hangar::cli {

std::optional<bool> KernelAlive(const std::string& lock_file) {
  int fd = open(lock_file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return errno == ENOENT ? std::optional<bool>(false) : std::nullopt;
  int rc = flock(fd, LOCK_SH | LOCK_NB);
  int e = errno;
  close(fd);  // also drops our shared lock when we got it
  if (rc == 0) return false;
  return e == EWOULDBLOCK ? std::optional<bool>(true) : std::nullopt;
}

namespace {

// presence: hangard.json as read once (null when absent or unreadable).
json::Value KernelJson(const json::Value& presence, const Layout& l) {
  json::Object k;
  std::optional<bool> alive = KernelAlive(l.LockFile());
  k["alive"] = alive ? json::Value(*alive) : json::Value();
  k["pid"] = json::Value();
  k["started"] = json::Value();
  if (presence.is_object())
    for (const char* key : {"pid", "started"})
      if (const json::Value* v = presence.find(key)) k[key] = *v;
  return k;
}

json::Value OldestJson(const SpoolView& view, Phase p, TimeMs now) {
  std::optional<MissionRow> r = view.Oldest(p);
  if (!r) return json::Value();
  json::Object o;
  o["id"] = r->ref.id;
  o["age_s"] = int64_t(std::max<int64_t>(0, now - *r->time) / 1000);
  return o;
}

// Returns waiting in notify/: <id>.json records {"id","dir","reason"} (hangar-spool(5)).
json::Value NotifyJson(Env* env, const SpoolView& view, const Layout& l) {
  json::Array waiting;
  auto names = env->ListDir(l.Notify());
  if (!names.ok()) return waiting;
  for (const std::string& n : *names) {
    if (n.starts_with(".") || !n.ends_with(".json")) continue;
    const std::string id = n.substr(0, n.size() - 5);
    json::Object o;
    o["id"] = id;
    auto why = view.ReadJson(l.Notify() + "/" + n);
    const std::string reason = why.ok() ? StringField(*why, "reason") : "";
    const std::string dir = why.ok() ? StringField(*why, "dir") : "";
    o["dir"] = dir.empty() ? json::Value() : json::Value(dir);
    o["reason"] = reason.empty() ? json::Value() : json::Value(reason);
    waiting.emplace_back(std::move(o));
  }
  return waiting;
}

// What hangard.json says under `key` ("ledger", "policy", "sandbox"): null when no hangard wrote
// it yet.
json::Value PresenceObject(const json::Value& presence, const char* key) {
  if (presence.is_object())
    if (const json::Value* v = presence.find(key); v && v->is_object()) return *v;
  return json::Value(nullptr);
}

// A string member of hangard.json for a line of ours: Printable, as FormatTable shows cells.
std::string Shown(const json::Value& v, const char* key) {
  return Printable(StringField(v, key));
}

std::string PolicyLine(const json::Value& p) {
  if (!p.is_object()) return "unknown (hangard has not said)";
  const std::string file = Shown(p, "file");
  return (file.empty() ? std::string("built-in default") : file) + ", sha256 " +
         Shown(p, "sha256").substr(0, 16) + "…";
}

std::string SandboxLine(const json::Value& s) {
  if (!s.is_object()) return "unknown (hangard has not said)";
  auto names_at = [&](const char* key) {
    const json::Value* profiles = s.find(key);
    std::string names;
    if (profiles && profiles->is_array())
      for (const json::Value& p : profiles->as_array())
        if (p.is_string()) names += (names.empty() ? "" : ", ") + Printable(p.as_string());
    return names;
  };
  const std::string names = names_at("profiles"), own = names_at("namespaces");
  const std::string bwrap = Shown(s, "bwrap");
  // bubblewrap's part, then engine "namespaces"' (no program: hangar-confine makes it itself).
  std::string line;
  if (!names.empty())
    line = bwrap.empty() ? "MISSING: bubblewrap is not installed; missions of " + names +
                               " are denied at launch (apt-get install bubblewrap)"
                         : bwrap + " for " + names;
  else if (own.empty())
    line = bwrap.empty() ? "none (no profile asks for bubblewrap)" : bwrap;
  if (!own.empty())
    line += std::string(line.empty() ? "" : "; ") + "namespaces (hangar-confine) for " + own;
  return line;
}

// "processes 1024 (RLIMIT_NPROC), files 4096 MiB (RLIMIT_FSIZE), memory 8192 MiB a process
// (RLIMIT_DATA), /dev/shm 256 MiB, ops 60/min a mission".
std::string LimitsLine(const json::Value& s) {
  const json::Value* l = s.is_object() ? s.find("limits") : nullptr;
  if (!l || !l->is_object()) return "unknown (hangard has not said)";
  auto n = [&](const char* k) {
    const json::Value* v = l->find(k);
    return v && v->is_int() ? std::to_string(v->as_int()) : std::string("?");
  };
  const json::Value* enforced = l->find("processes_enforced");
  const bool root = enforced && enforced->is_bool() && !enforced->as_bool();
  const json::Value* uid = l->find("drone_uid");
  const std::string as = uid && uid->is_int() ? "drones as uid " + n("drone_uid") + "; " : "";
  return as + "processes " + n("processes") +
         (root ? " (RLIMIT_NPROC: NOT enforced, drones run as uid 0)" : " (RLIMIT_NPROC)") +
         ", files " + n("file_mb") + " MiB (RLIMIT_FSIZE), memory " + n("memory_mb") +
         " MiB a process (RLIMIT_DATA), /dev/shm " + n("shm_mb") + " MiB, ops " +
         n("ops_per_minute") + "/min a mission";
}

std::string LedgerLine(const json::Value& l) {
  if (!l.is_object()) return "unknown (hangard has not said)";
  std::string s = Shown(l, "state") == "ok"
                      ? "ok"
                      : "FAIL-CLOSED: " + Shown(l, "reason") +
                            " (no launch or grant until `hangar ledger reanchor --why ...`)";
  s += "; " + Shown(l, "name") + ", anchor " + Shown(l, "anchor");
  if (const json::Value* same = l.find("anchor_same_filesystem");
      same && same->is_bool() && same->as_bool())
    s += "\nwarning   the anchor is on the spool's filesystem: it guards against edits, not "
         "against losing the disk; put it on another mount";
  return s;
}

// hangard.json's "work": whether hangard takes work, and why not (man/hangard.8, STORAGE
// FAILURES).
std::string WorkLine(const json::Value& w, const json::Value& storage) {
  if (!w.is_object()) return "unknown (no running hangard has said)";
  const std::string state = Shown(w, "state"), reason = Shown(w, "reason");
  const std::string since = Shown(w, "since");
  if (state == "stopped" && Shown(storage, "state") == "full")
    return "STOPPED" + (since.empty() ? "" : " since " + since) + ": " + reason +
           " (storage full: no intake, launch, control, op or grant; running drones go on and "
           "their supervisors keep their ends; hangard restarts in place by itself once space "
           "returns)";
  if (state == "stopped")
    return "STOPPED" + (since.empty() ? "" : " since " + since) + ": " + reason +
           " (no intake, launch, control, op or grant; running drones go on under their "
           "supervisors; fix the disk, then restart hangard: it recovers from the spool)";
  if (state == "intake-paused")
    return "intake paused" + (since.empty() ? "" : " since " + since) + ": " + reason +
           " (drops wait in incoming/new and are tried again every few seconds; nothing is "
           "rejected for it)";
  return state;
}

// The spool's filesystem, as statvfs says now and as hangard said: "ok, 12034 MiB free" or
// "FULL ...". The CLI reads the free space itself: a full disk may keep hangard from saying so.
std::string StorageLine(const json::Value& s) {
  const json::Value* free = s.find("free_bytes");
  const std::string mib =
      free && free->is_int() ? std::to_string(free->as_int() >> 20) + " MiB free" : "free unknown";
  const json::Value* rooms = s.find("rooms_on_spool_filesystem");
  const std::string shared =
      rooms && rooms->is_bool() && rooms->as_bool()
          ? "; the rooms are on this filesystem: a drone can fill it (hangar.conf(5), rooms)"
          : "";
  if (Shown(s, "state") == "full")
    return "FULL since " + Shown(s, "since") + ", " + mib +
           " now: hangard's work waits and resumes by itself once 8 MiB are free" + shared;
  if (free && free->is_int() && free->as_int() < (int64_t{1} << 20))
    return "FULL: " + std::to_string(free->as_int()) +
           " bytes free (hangard has not said; it stops its work at its next write and resumes "
           "by itself once space returns)" +
           shared;
  return "ok, " + mib + shared;
}

// "approvers root, hangar, alice; four_eyes off": who may approve, deny, grant, revoke, reanchor.
std::string DecideLine(const json::Value& d) {
  const json::Value* a = d.is_object() ? d.find("approvers") : nullptr;
  if (!a || !a->is_array()) return "unknown (hangard has not said)";
  std::string names;
  for (const json::Value& e : a->as_array())
    names += (names.empty() ? "" : ", ") + Shown(e, "user");
  const json::Value* four = d.find("four_eyes");
  return "approvers " + names + "; four_eyes " +
         (four && four->is_bool() && four->as_bool() ? "on" : "off");
}

// "ok" or "BEHIND the ledger's latest time T: launches held until it catches up".
std::string ClockLine(const json::Value& c) {
  const json::Value* behind = c.is_object() ? c.find("behind") : nullptr;
  if (!behind || !behind->is_bool()) return "unknown (hangard has not said)";
  if (!behind->as_bool()) return "ok";
  return "BEHIND the ledger's latest time " + Shown(c, "ledger_time") +
         ": launches held until it catches up (fix the clock: NTP)";
}

// hangard.json's "canaries" (man/hangard.8, CANARY), one line each: "profile P: canary M1 FAILED
// (why); 3 missions wait: hangar release-canary P". None: "none waiting".
std::vector<std::string> CanaryLines(const json::Value& canaries) {
  std::vector<std::string> lines;
  if (!canaries.is_array()) return {"unknown (hangard has not said)"};
  for (const json::Value& c : canaries.as_array()) {
    if (!c.is_object()) continue;
    const std::string profile = Shown(c, "profile"), stage = Shown(c, "stage");
    const json::Value* w = c.find("waiting");
    const int64_t waiting = w && w->is_int() ? w->as_int() : 0;
    std::string line = "profile " + profile + ": ";
    if (stage == "failed")
      line += "canary " + Shown(c, "canary") + " FAILED (" + Shown(c, "reason") + ")";
    else if (stage == "running")
      line += "canary " + Shown(c, "canary") + " runs until " + Shown(c, "until");
    else
      line += "its definition changed; its next mission runs alone as the canary";
    line += "; " + std::to_string(waiting) + (waiting == 1 ? " mission waits" : " missions wait");
    if (stage == "failed") line += ": hangar release-canary " + profile + " lets them go";
    lines.push_back(line);
  }
  if (lines.empty()) lines.push_back("none waiting");
  return lines;
}

std::string KernelLine(const json::Value& k) {
  const json::Value& alive = *k.find("alive");
  std::string s = alive.is_null()   ? "unknown (cannot open hangard.lock)"
                  : alive.as_bool() ? "alive"
                                    : "not running";
  if (alive.is_bool() && alive.as_bool()) {
    if (const json::Value* pid = k.find("pid"); pid->is_int())
      s += ", pid " + std::to_string(pid->as_int());
    if (std::string st = Shown(k, "started"); !st.empty()) s += ", started " + st;
  }
  return s;
}

void PrintHuman(std::ostream& out, const json::Value& doc) {
  const json::Value& counts = *doc.find("counts");
  const json::Value& oldest = *doc.find("oldest");
  const json::Array& notify = doc.find("notify_waiting")->as_array();
  std::vector<Row> rows;
  for (const std::string& state : StateNames()) {
    Row r = {state, std::to_string(counts.find(state)->as_int())};
    if (const json::Value* o = oldest.find(state); o && o->is_object())
      r.push_back("oldest " + StringField(*o, "id") + ", " +
                  FormatAge(o->find("age_s")->as_int() * 1000));
    rows.push_back(r);
  }
  rows.push_back({"control", std::to_string(counts.find("control")->as_int())});
  rows.push_back({"purged", std::to_string(counts.find("purged")->as_int())});
  rows.push_back({"notify", std::to_string(notify.size())});
  // The kernel line apart, so its long value does not widen the count column; state names are at
  // most 8 characters, so 10 aligns it with the counts.
  out << "kernel    " << KernelLine(*doc.find("kernel")) << "\n"
      << "work      " << WorkLine(*doc.find("work"), *doc.find("storage")) << "\n"
      << "storage   " << StorageLine(*doc.find("storage")) << "\n"
      << "ledger    " << LedgerLine(*doc.find("ledger")) << "\n"
      << "policy    " << PolicyLine(*doc.find("policy")) << "\n"
      << "sandbox   " << SandboxLine(*doc.find("sandbox")) << "\n"
      << "limits    " << LimitsLine(*doc.find("sandbox")) << "\n"
      << "decide    " << DecideLine(*doc.find("decide")) << "\n"
      << "clock     " << ClockLine(*doc.find("clock")) << "\n";
  for (const std::string& line : CanaryLines(*doc.find("canaries")))
    out << "canary    " << line << "\n";
  out << FormatTable(rows);
  std::vector<Row> waiting;
  for (const json::Value& n : notify) {
    const std::string reason = StringField(n, "reason");
    waiting.push_back({"  " + StringField(n, "id"), reason.empty() ? "-" : reason});
  }
  out << FormatTable(waiting);
}

}  // namespace

// status --check: 0 when hangard runs and takes work, 1 when it runs but its work is stopped or
// paused, its ledger has failed closed or a profile's canary failed (its missions wait for a
// person), 69 when it does not run (or that cannot be told); one line says which.
int Check(const json::Value& doc, std::ostream& out) {
  const json::Value& kernel = *doc.find("kernel");
  const json::Value& alive = *kernel.find("alive");
  if (!alive.is_bool() || !alive.as_bool()) {
    out << "hangard: " << KernelLine(kernel) << "\n";
    return kExitUnavailable;
  }
  const json::Value& work = *doc.find("work");
  const json::Value& ledger = *doc.find("ledger");
  std::string trouble;
  if (work.is_object() && Shown(work, "state") != "ok")
    trouble = "work " + WorkLine(work, *doc.find("storage"));
  else if (ledger.is_object() && Shown(ledger, "state") != "ok")
    trouble = "ledger " + LedgerLine(ledger);
  else if (const json::Value& c = *doc.find("canaries"); c.is_array())
    for (const json::Value& e : c.as_array())  // a profile's work stands still until a person acts
      if (e.is_object() && Shown(e, "stage") == "failed") {
        trouble = "canary " + CanaryLines(json::Array{e}).front();
        break;
      }
  out << Printable("hangard: " + KernelLine(kernel) +
                   (trouble.empty() ? ", taking work" : "; " + trouble))
      << "\n";
  return trouble.empty() ? kExitOk : kExitNotDone;
}

int RunStatus(const Context& ctx, bool check) {
  SpoolView view(ctx.env, ctx.layout);
  if (Status s = view.CheckReadable(); !s.ok()) return Fail(ctx.err, kExitNoInput, s.message());
  const TimeMs now = ctx.env->Now();
  json::Object doc;
  json::Value presence(nullptr);
  if (auto st = view.ReadJson(ctx.layout.StatusFile()); st.ok()) presence = *st;
  doc["kernel"] = KernelJson(presence, ctx.layout);
  // The work's state is hangard's now: a hangard that is not running says nothing of it.
  const json::Value* alive = doc["kernel"].find("alive");
  const bool running = alive->is_bool() && alive->as_bool();  // before doc grows
  doc["work"] = running ? PresenceObject(presence, "work") : json::Value(nullptr);
  doc["ledger"] = PresenceObject(presence, "ledger");
  doc["policy"] = PresenceObject(presence, "policy");
  doc["sandbox"] = PresenceObject(presence, "sandbox");
  doc["decide"] = PresenceObject(presence, "decide");
  doc["clock"] = PresenceObject(presence, "clock");
  // A canary's hold is hangard's now: a hangard that is not running holds nothing.
  const json::Value* canaries = presence.is_object() ? presence.find("canaries") : nullptr;
  doc["canaries"] = running && canaries && canaries->is_array() ? *canaries : json::Value(nullptr);
  // The free space now, from the CLI's own statvfs; hangard's word on the rest while it runs.
  json::Value said = running ? PresenceObject(presence, "storage") : json::Value(nullptr);
  json::Object storage{
      {"state", said.is_object() && Shown(said, "state") == "full" ? "full" : "ok"},
      {"since",
       said.is_object() && said.find("since") ? *said.find("since") : json::Value(nullptr)},
      {"free_bytes", nullptr},
      {"rooms_on_spool_filesystem", said.is_object() && said.find("rooms_on_spool_filesystem")
                                        ? *said.find("rooms_on_spool_filesystem")
                                        : json::Value(nullptr)}};
  if (Result<uint64_t> f = ctx.env->FreeBytes(ctx.layout.spool); f.ok())
    storage["free_bytes"] = int64_t(*f);
  doc["storage"] = std::move(storage);
  json::Object counts;
  for (const auto& [state, n] : view.Counts()) counts[state] = n;
  doc["counts"] = counts;
  json::Object oldest;
  for (Phase p : {Phase::kQueued, Phase::kHold})
    oldest[std::string(PhaseName(p))] = OldestJson(view, p, now);
  doc["oldest"] = oldest;
  doc["notify_waiting"] = NotifyJson(ctx.env, view, ctx.layout);
  if (check && !ctx.json) return Check(doc, ctx.out);
  if (ctx.json)
    PrintJson(ctx.out, doc);
  else
    PrintHuman(ctx.out, doc);
  if (check) {
    std::ostringstream line;  // --json: the document says it; the exit status alone follows
    return Check(doc, line);
  }
  return kExitOk;
}

}  // namespace hangar::cli
