#include "kernel/kernel.h"

#include <algorithm>
#include <cstdio>

#include "base/id.h"
#include "base/sha256.h"
#include "kernel/control.h"
#include "kernel/gate.h"
#include "kernel/prompt.h"
#include "kernel/retry.h"
#include "kernel/return_record.h"
#include "kernel/window.h"

namespace hangar {

namespace {

// control/done/NAME.json must fit in a file name (255 bytes): longer names get no answer.
constexpr size_t kMaxAnsweredName = 200;
const std::string kNoId;

class Decider {
 public:
  Decider(const KernelSetup& setup, State* st) : s_(setup), st_(st) {}

  std::vector<Action> Run(const Signal& sig) {
    const TimeMs now = std::visit([](const auto& x) { return x.now; }, sig);
    const bool was_behind = st_->clock_behind;
    CheckClock(now);
    std::visit([this](const auto& x) { On(x); }, sig);
    if (was_behind && !st_->clock_behind) Pump(now);
    return std::move(out_);
  }

 private:
  // ---- helpers ----
  bool Used(const std::string& id) const { return st_->missions.count(id) > 0; }

  std::string FreshId(TimeMs now) {
    for (;;) {
      char n[16];
      snprintf(n, sizeof n, "%06llu", static_cast<unsigned long long>(++st_->counter % 1000000));
      std::string id = CompactTime(now) + "-" + n;
      if (!Used(id)) return id;
    }
  }

  // The file's name, without a trailing ".json", when it is a valid unused id.
  std::string IdFromName(const std::string& name) const {
    std::string n = name;
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0) n.resize(n.size() - 5);
    return ValidId(n) && !Used(n) ? n : "";
  }

  static MissionRec Rec(Phase p, TimeMs accepted) {
    MissionRec r;
    r.phase = p;
    r.accepted = accepted;
    return r;
  }

  void Log(std::string line) { out_.push_back(hangar::Log{std::move(line)}); }

  // Puts the ledger entry for a decision before the actions that carry it out; returns its seq.
  int64_t Ledger(std::string kind, json::Object body, TimeMs now, bool new_epoch = false) {
    const int64_t seq = ++st_->ledger_seq;
    // Never dated before an earlier entry, whatever the clock says now.
    st_->ledger_time = std::max(st_->ledger_time, now);
    out_.push_back(
        Record{seq, std::move(kind), json::Value(std::move(body)), st_->ledger_time, new_epoch});
    return seq;
  }

  // A clock well behind the ledger's latest time (set back, or a restore onto a machine whose
  // clock is wrong) holds launches until it catches up: recorded once, then said when over.
  void CheckClock(TimeMs now) {
    const bool behind = st_->ledger_time > 0 && now + kClockSlackMs < st_->ledger_time;
    if (behind && !st_->clock_behind) {
      st_->clock_behind = true;
      Ledger("clock.behind",
             {{"now", FormatTime(now)}, {"ledger_time", FormatTime(st_->ledger_time)}}, now);
      Log("the clock (" + FormatTime(now) + ") is behind the ledger's latest time (" +
          FormatTime(st_->ledger_time) + "): launches are held until it catches up");
    } else if (!behind && st_->clock_behind && now >= st_->ledger_time) {
      st_->clock_behind = false;
      Log("the clock has caught up with the ledger's latest time: launches resume");
    }
  }

  static json::Value Rules(const GateResult& g) {
    json::Array a;
    for (const std::string& r : g.rules) a.push_back(r);
    return a;
  }
  json::Object GateBody(const std::string& id, int stage, const GateResult& g) const {
    return {{"id", id},          {"stage", stage},     {"verdict", VerdictName(g.verdict)},
            {"rules", Rules(g)}, {"reason", g.reason}, {"policy", s_.policy_sha256}};
  }

  static std::string Text(const json::Value& v) { return json::WritePretty(v); }

  // m: the mission as taken in, when it parsed; its drone and requester go into the record, so a
  // reader listing thousands of missions (hangar ls) needs no second file of each.
  json::Value IntakeRecord(const std::string& id, const Dropped& d, const Mission* m = nullptr) {
    json::Object o;
    o["hangar"] = 1;
    o["id"] = id;
    o["name"] = json::ValidUtf8(d.name) ? d.name : std::string("(not UTF-8)");
    o["sha256"] = d.read_error.empty() ? json::Value(Sha256Hex(d.bytes)) : json::Value(nullptr);
    o["bytes"] = d.read_error.empty() ? json::Value(int64_t(d.bytes.size())) : json::Value(nullptr);
    o["time"] = FormatTime(d.now);
    PutDropper(o, d.by);
    if (m) {
      o["drone"] = m->drone;
      o["requester"] = m->requester;
    }
    return o;
  }

  // Who dropped a file, as the OS said: "uid" and "user" (null when unknown).
  static void PutDropper(json::Object& o, const Dropper& by) {
    o["uid"] = by.uid >= 0 ? json::Value(by.uid) : json::Value(nullptr);
    o["user"] = by.uid >= 0 ? json::Value(by.user) : json::Value(nullptr);
  }
  // A control request's ledger body: BODY, who asked as the OS said, and the "by" the request
  // itself claimed (kept, never shown as who decided).
  json::Object Asked(json::Object body) const {
    PutDropper(body, asker_);
    if (!claimed_.empty()) body["claimed_by"] = claimed_;
    return body;
  }

  static json::Value Why(const std::string& id, const std::string& field, const std::string& reason,
                         TimeMs now) {
    json::Object o;
    o["hangar"] = 1;
    o["id"] = id;
    o["field"] = field;
    o["reason"] = reason;
    o["time"] = FormatTime(now);
    return o;
  }

  void Reject(const Dropped& d, const std::string& id, const std::string& field,
              const std::string& reason) {
    json::Value intake = IntakeRecord(id, d);
    json::Object body{
        {"id", id}, {"sha256", intake["sha256"]}, {"field", field}, {"reason", reason}};
    PutDropper(body, d.by);
    const int64_t seq = Ledger("mission.rejected", std::move(body), d.now);
    intake["ledger_seq"] = seq;
    json::Value why = Why(id, field, reason, d.now);
    why["ledger_seq"] = seq;
    Intake in;
    in.name = d.name;
    in.id = id;
    in.to = Phase::kRejected;
    in.files["intake.json"] = Text(intake);
    in.files["why.json"] = Text(why);
    out_.push_back(std::move(in));
    st_->missions[id] = Rec(Phase::kRejected, d.now);
    Log(id + " rejected: " + (field.empty() ? reason : field + ": " + reason));
  }

  // An id for a mission that could not be parsed: its own "id" when readable, valid and unused.
  std::string RejectedId(const Dropped& d) {
    if (d.read_error.empty()) {
      Result<json::Value> v = json::Parse(d.bytes);
      if (v.ok() && v->is_object())
        if (const json::Value* id = v->find("id");
            id && id->is_string() && ValidId(id->as_string()) && !Used(id->as_string()))
          return id->as_string();
    }
    std::string n = IdFromName(d.name);
    return n.empty() ? FreshId(d.now) : n;
  }

  // ---- signals ----
  void On(const Dropped& d) {
    if (!d.read_error.empty()) return Reject(d, RejectedId(d), "", d.read_error);
    MissionOrError parsed = ParseMission(d.bytes);
    if (auto* e = std::get_if<ParseError>(&parsed))
      return Reject(d, RejectedId(d), e->field, e->reason);
    Mission m = std::get<Mission>(std::move(parsed));
    ApplyProfileDefaults(&m, s_.config);
    if (!m.id.empty() && Used(m.id)) {
      std::string where(PhaseName(st_->missions[m.id].phase));
      return Reject(d, FreshId(d.now), "id",
                    "duplicate: id " + m.id + " is already in the spool (" + where + ")");
    }
    if (!s_.config.profiles.count(m.drone)) {
      std::string known;
      for (const auto& [name, p] : s_.config.profiles) known += (known.empty() ? "" : ", ") + name;
      std::string id = m.id.empty() ? RejectedId(d) : m.id;
      return Reject(d, id, "drone",
                    "no drone profile named \"" + m.drone + "\" in " + s_.config.file +
                        " (known: " + known + ")");
    }
    if (m.id.empty()) {
      m.id = IdFromName(d.name);
      if (m.id.empty()) m.id = FreshId(d.now);
    }
    const GateSite site = s_.Site();
    GateResult g = GateStage1(m, s_.policy, s_.text_rules, site, d.resolved);
    Phase to = g.verdict == Verdict::kAllow  ? Phase::kQueued
               : g.verdict == Verdict::kHold ? Phase::kHold
                                             : Phase::kDenied;
    json::Value intake = IntakeRecord(m.id, d, &m);
    json::Object body = GateBody(m.id, 1, g);
    body["sha256"] = intake["sha256"];
    body["requester"] = m.requester;
    body["drone"] = m.drone;
    PutDropper(body, d.by);
    const int64_t seq = Ledger(to == Phase::kQueued ? "mission.accepted"
                               : to == Phase::kHold ? "mission.held"
                                                    : "mission.denied",
                               std::move(body), d.now);
    intake["ledger_seq"] = seq;
    json::Value g1 = g.ToJson(1, d.now);
    g1["ledger_seq"] = seq;
    std::vector<std::string> writable = WritablePaths(m, site, d.resolved);
    if (!m.writes.empty()) g1["writes"] = json::Array(writable.begin(), writable.end());
    Intake in;
    in.name = d.name;
    in.id = m.id;
    in.to = to;
    in.files["intake.json"] = Text(intake);
    in.files["gate1.json"] = Text(g1);
    if (to == Phase::kHold) in.notify_dir = m.notify_dir;
    if (to == Phase::kDenied) {
      json::Value why = Why(m.id, "", "gate stage 1: " + g.reason, d.now);
      why["ledger_seq"] = seq;
      in.files["why.json"] = Text(why);
    }
    out_.push_back(std::move(in));
    MissionRec rec = Rec(to, d.now);
    if (to != Phase::kDenied) rec.mission = m;
    rec.sha256 = Sha256Hex(d.bytes);
    rec.resolved = d.resolved;
    rec.owner = d.by;
    rec.unproven = st_->rolled_back && d.found_at_start && to != Phase::kDenied;
    const std::string id = m.id;
    st_->missions[id] = std::move(rec);
    if (to == Phase::kQueued) st_->queue.push_back(id);
    Log(id + " accepted -> " + std::string(PhaseName(to)));
    Pump(d.now);
  }

  void On(const Recovered& r) {
    // Renames are atomic, so only a copy of a live spool (rsync of a running hangard's) holds a
    // mission in two state directories. The one found first stands (recovery hands them over
    // terminal first, then running, hold, queued: the furthest it got); the other is left alone.
    if (auto known = st_->missions.find(r.id); known != st_->missions.end()) {
      Log(r.id + " is also in " + std::string(PhaseName(r.phase)) +
          "/ (a copied spool?): left "
          "alone; the mission is the one in " +
          std::string(PhaseName(known->second.phase)) + "/");
      return;
    }
    MissionRec rec = Rec(r.phase, r.accepted);
    rec.attempt = r.attempt;
    rec.held_plan_sha256 = r.held_plan_sha256;
    rec.approved_sha256 = r.approved_sha256;
    rec.approved_plan_sha256 = r.approved_plan_sha256;
    rec.owner = r.by;
    rec.unproven = st_->rolled_back && (r.phase == Phase::kHold || r.phase == Phase::kQueued);
    if (r.phase == Phase::kHold || r.phase == Phase::kQueued || r.phase == Phase::kRunning) {
      rec.sha256 = Sha256Hex(r.mission_bytes);
      MissionOrError parsed = ParseMission(r.mission_bytes);
      if (auto* m = std::get_if<Mission>(&parsed)) {
        rec.mission = *m;
        ApplyProfileDefaults(&*rec.mission, s_.config);
        rec.mission->id = r.id;
        rec.resolved = r.resolved;
      } else {
        rec.error = "mission.json unreadable at recovery: " + std::get<ParseError>(parsed).Text();
        Log(r.id + " in " + std::string(PhaseName(r.phase)) + ": " + rec.error);
      }
    }
    // A mission file changed in the spool after intake is not what was judged or approved: it
    // waits for a person again, and no earlier approval carries over to it.
    if ((r.phase == Phase::kQueued || r.phase == Phase::kHold) && rec.mission &&
        !r.intake_sha256.empty() && rec.sha256 != r.intake_sha256) {
      const std::string reason = "mission.json changed after intake (sha256 " + rec.sha256 +
                                 ", taken in as " + r.intake_sha256 + "); a person must look again";
      GateResult g{Verdict::kHold, {"mission.changed"}, reason};
      json::Object body = GateBody(r.id, 1, g);
      body["sha256"] = rec.sha256;
      body["intake_sha256"] = r.intake_sha256;
      json::Value g1 = g.ToJson(1, r.now);
      g1["ledger_seq"] = Ledger("mission.held", std::move(body), r.now);
      Move mv{r.id, r.phase, Phase::kHold, {}, rec.mission->notify_dir};
      mv.files["gate1.json"] = Text(g1);
      out_.push_back(std::move(mv));
      Log(r.id + " " + std::string(PhaseName(r.phase)) + " -> hold (" + reason + ")");
      rec.phase = Phase::kHold;
      rec.held_plan_sha256.clear();
      rec.approved_sha256.clear();
      rec.approved_plan_sha256.clear();
    }
    const bool queue = rec.phase == Phase::kQueued && rec.mission;
    st_->missions[r.id] = std::move(rec);
    if (queue) st_->queue.push_back(r.id);
    if (r.phase == Phase::kRunning) {
      st_->running++;
      if (r.exit) {
        On(DroneExited{r.id, *r.exit, r.now});
        return;
      }
      if (!r.supervisor_alive) {
        On(SupervisorGone{r.id, r.now});
        return;
      }
      Log(r.id + " running: supervisor alive, re-attached");
    }
    Pump(r.now);
  }

  // The answer to control/new/NAME (man/hangar-spool.5, control/done): status done, refused (for
  // who asked: RULE names why) or invalid; none for a name too long to answer under.
  std::string Answer(const ControlDropped& c, const ControlRequest* r, const char* status,
                     const std::string& rule, const std::string& reason, TimeMs now) const {
    if (c.name.size() > kMaxAnsweredName) return "";
    json::Object a{{"hangar", 1},
                   {"name", json::ValidUtf8(c.name) ? c.name : std::string("(not UTF-8)")},
                   {"request", r ? json::Value(ControlKindName(r->kind)) : json::Value(nullptr)},
                   {"status", status},
                   {"rule", rule.empty() ? json::Value(nullptr) : json::Value(rule)},
                   {"reason", reason.empty() ? json::Value(nullptr) : json::Value(reason)},
                   {"effect", effect_.empty() ? json::Value(nullptr) : json::Value(effect_)},
                   {"ledger_seq", st_->ledger_seq},
                   {"request_sha256", Sha256Hex(c.bytes)},
                   {"time", FormatTime(now)}};
    PutDropper(a, c.by);
    return Text(json::Value(std::move(a)));
  }

  // Who may ask for what (man/hangar.conf.5, approvers and four_eyes), judged on the uid the OS
  // says dropped the request: {rule, reason} of a refusal, or nothing when it may.
  std::optional<std::pair<std::string, std::string>> Refusal(const ControlRequest& r,
                                                             const ControlDropped& c) const {
    const bool approver = c.by.uid >= 0 && s_.approvers.count(c.by.uid);
    const std::string who = c.by.uid < 0
                                ? std::string("a request of unknown owner")
                                : "uid " + std::to_string(c.by.uid) + " (" + c.by.user + ")";
    auto owner_of = [&](const std::string& id) -> int64_t {
      auto it = st_->missions.find(id);
      if (it != st_->missions.end() && it->second.owner.uid >= 0) return it->second.owner.uid;
      return r.kind == ControlKind::kRetry && c.retry ? c.retry->owner_uid : -1;
    };
    const char* verb = ControlKindName(r.kind);
    if (r.kind == ControlKind::kApprove &&
        (!s_.config.allowed_signers.empty() || !r.signature.empty()))
      return SignedRefusal(r, c);
    if (r.kind == ControlKind::kCancel || r.kind == ControlKind::kRetry) {
      const int64_t owner = owner_of(r.id);
      if (approver || (owner >= 0 && owner == c.by.uid)) return std::nullopt;
      return std::make_pair(
          std::string("control.not-owner"),
          who + " may not " + verb + " mission " + r.id +
              ": it neither dropped it nor is an approver (hangar.conf approvers)");
    }
    if (!approver)
      return std::make_pair(std::string("control.not-approver"),
                            who + " may not " + verb + ": not an approver (hangar.conf approvers)");
    const std::string& id = r.kind == ControlKind::kApprove ? r.id
                            : r.kind == ControlKind::kGrant ? r.mission
                                                            : kNoId;
    if (s_.config.four_eyes && !id.empty() && owner_of(id) == c.by.uid)
      return std::make_pair(std::string("control.self-approval"),
                            who + " dropped mission " + id + ", so may not " + verb +
                                " for it: four_eyes wants another approver");
    return std::nullopt;
  }

  // An approve under allowed_signers (or signed at all): the signer decides, not the uid that
  // dropped it. Refused unless it is signed, the signature verified, it signed the mission (and
  // plan) as held now, and, with four_eyes, the signer is not the mission's owner by name.
  std::optional<std::pair<std::string, std::string>> SignedRefusal(const ControlRequest& r,
                                                                   const ControlDropped& c) const {
    auto no = [](const std::string& why) {
      return std::make_optional(std::make_pair(std::string("control.bad-signature"), why));
    };
    auto it = st_->missions.find(r.id);
    if (it == st_->missions.end() || it->second.phase != Phase::kHold)
      return std::nullopt;  // ApproveOrDeny says why: no such mission, or not held
    const MissionRec& rec = it->second;
    if (s_.config.allowed_signers.empty())
      return no("a signed approve, but the config names no allowed_signers to check it against");
    if (r.signature.empty())
      return no(
          "approvals must be signed (hangar approve --sign KEY): the config names "
          "allowed_signers " +
          s_.config.allowed_signers);
    if (!c.signature || !c.signature->verified)
      return no("the signature of principal " + r.principal + " does not verify against " +
                s_.config.allowed_signers +
                (c.signature && !c.signature->error.empty() ? ": " + c.signature->error : ""));
    if (c.signature->mission_sha256 != rec.sha256 ||
        c.signature->plan_sha256 != rec.held_plan_sha256)
      return no("the signature is of mission " + r.id + " as it was (sha256 " +
                c.signature->mission_sha256 + "), not as it is held now (sha256 " + rec.sha256 +
                ")");
    if (s_.config.four_eyes && !rec.owner.user.empty() && rec.owner.user == r.principal)
      return std::make_pair(std::string("control.self-approval"),
                            "principal " + r.principal + " dropped mission " + r.id +
                                ", so may not approve it: four_eyes wants another signer");
    return std::nullopt;
  }

  void On(const ControlDropped& c) {
    const std::string shown = json::ValidUtf8(c.name) ? c.name : std::string("(not UTF-8)");
    asker_ = c.by;
    claimed_.clear();
    effect_.clear();
    const ControlRequest* req = nullptr;
    auto bad = [&](const std::string& rule, const std::string& why) {
      const std::string bad_name = "request." + FreshId(c.now);
      json::Object body{{"name", shown}, {"kept_as", bad_name}, {"rule", rule}, {"reason", why}};
      if (req) body["request"] = ControlKindName(req->kind);
      const int64_t seq = Ledger("control.refused", Asked(std::move(body)), c.now);
      json::Value w = Why("", "", why, c.now);
      w["name"] = shown;
      w["rule"] = rule;
      w["ledger_seq"] = seq;
      const bool invalid = rule == "control.invalid";
      out_.push_back(
          ConsumeControl{c.name, true, bad_name, Text(w),
                         Answer(c, req, invalid ? "invalid" : "refused", rule, why, c.now)});
      Log("control " + shown + " refused (" + rule + ", kept as control/bad/" + bad_name +
          "): " + why);
    };
    if (!c.read_error.empty()) return bad("control.invalid", c.read_error);
    auto parsed = ParseControl(c.bytes);
    if (auto* e = std::get_if<ParseError>(&parsed)) return bad("control.invalid", e->Text());
    const ControlRequest& r = std::get<ControlRequest>(parsed);
    req = &r;
    claimed_ = r.by;
    if (auto no = Refusal(r, c)) return bad(no->first, no->second);
    std::string refused;
    switch (r.kind) {
      case ControlKind::kCancel:
        refused = Cancel(r, c.now);
        break;
      case ControlKind::kApprove:
      case ControlKind::kDeny:
        refused = ApproveOrDeny(r, c.now);
        break;
      case ControlKind::kGrant:
      case ControlKind::kRevoke:
        refused = GrantOrRevoke(r, c.now);
        break;
      case ControlKind::kReanchor:
        refused = Reanchor(r, c.now);
        break;
      case ControlKind::kRetry:
        refused = RetryMission(r, c.retry, c.now);
        break;
    }
    if (!refused.empty()) return bad("control.invalid", refused);
    out_.push_back(ConsumeControl{c.name, false, "", "", Answer(c, &r, "done", "", "", c.now)});
  }

  // Each returns why the request is refused, or "" once it is recorded and carried out.
  std::string Cancel(const ControlRequest& r, TimeMs now) {
    const std::string& id = r.id;
    auto it = st_->missions.find(id);
    if (it == st_->missions.end()) return "cancel: no mission " + id;
    MissionRec& rec = it->second;
    const bool unrun = rec.phase == Phase::kHold || rec.phase == Phase::kQueued;
    const bool kill = rec.phase == Phase::kRunning && !rec.exited;
    effect_ = unrun ? "returned" : kill ? "kill" : "none";
    Ledger("mission.cancel", Asked({{"id", id}, {"effect", effect_}}), now);
    if (unrun) {
      const Phase from = rec.phase;
      if (from == Phase::kQueued) std::erase(st_->queue, id);
      Finish(id, rec, from,
             BuildUnrunReturn(id, rec, "cancelled", "cancelled on request before it ran",
                              s_.config.limits, now),
             now);
    } else if (kill) {
      out_.push_back(Kill{id});
      Log(id + " running: cancel requested, stopping the drone");
    } else {
      Log(id + " already " + std::string(PhaseName(rec.phase)) +
          (rec.exited ? " (drone ended)" : "") + ": cancel has nothing to stop");
    }
    return "";
  }

  // approve or deny a held mission: a person's decision, recorded before it takes effect.
  std::string ApproveOrDeny(const ControlRequest& r, TimeMs now) {
    const char* verb = ControlKindName(r.kind);
    auto it = st_->missions.find(r.id);
    if (it == st_->missions.end()) return std::string(verb) + ": no mission " + r.id;
    MissionRec& rec = it->second;
    if (rec.phase != Phase::kHold)
      return std::string(verb) + ": mission " + r.id + " is " + std::string(PhaseName(rec.phase)) +
             ", not held";
    if (r.kind == ControlKind::kApprove && !st_->fail_closed.empty())
      return "approve: the ledger is failed closed (" + st_->fail_closed +
             "); approvals wait for a reanchor";
    if (r.kind == ControlKind::kApprove) {
      json::Object binds = Asked({{"id", r.id},
                                  {"by", r.principal.empty() ? asker_.user : r.principal},
                                  {"why", r.why},
                                  {"mission_sha256", rec.sha256},
                                  {"plan_sha256", rec.held_plan_sha256}});
      if (!r.principal.empty()) binds["signed_by"] = r.principal;
      const int64_t seq = Ledger("person.approved", binds, now);
      json::Object a = binds;
      a["hangar"] = 1;
      a["time"] = FormatTime(now);
      a["ledger_seq"] = seq;
      rec.approved_sha256 = rec.sha256;
      rec.approved_plan_sha256 = rec.held_plan_sha256;
      Move mv{r.id, Phase::kHold, Phase::kQueued, {}, std::nullopt};
      mv.files["approve.json"] = Text(json::Value(std::move(a)));
      out_.push_back(std::move(mv));
      effect_ = "queued";
      Log(r.id + " hold -> queued (approved by " +
          (r.principal.empty() ? asker_.user : r.principal + ", signed") + ")");
      rec.phase = Phase::kQueued;
      if (rec.mission) st_->queue.push_back(r.id);
      Pump(now);
      return "";
    }
    const int64_t seq =
        Ledger("person.denied", Asked({{"id", r.id}, {"by", asker_.user}, {"why", r.why}}), now);
    json::Value why = Why(r.id, "", "denied by a person: " + r.why, now);
    why["by"] = asker_.user;
    if (!claimed_.empty()) why["claimed_by"] = claimed_;
    effect_ = "denied";
    why["ledger_seq"] = seq;
    Move mv{r.id, Phase::kHold, Phase::kDenied, {}, std::nullopt};
    mv.files["why.json"] = Text(why);
    out_.push_back(std::move(mv));
    Log(r.id + " hold -> denied (" + r.why + ")");
    rec.phase = Phase::kDenied;
    rec.mission.reset();
    return "";
  }

  // retry a returned mission whose attempt did not end normally: attempt N+1 under a new key, once
  // nothing of attempt N may still be alive (man/hangar-spool.5 "RETRY").
  std::string RetryMission(const ControlRequest& r, const std::optional<RetryFacts>& facts,
                           TimeMs now) {
    const std::string& id = r.id;
    auto it = st_->missions.find(id);
    if (it == st_->missions.end()) return "retry: no mission " + id;
    MissionRec& rec = it->second;
    if (rec.phase != Phase::kReturned)
      return "retry: mission " + id + " is " + std::string(PhaseName(rec.phase)) +
             ", not returned" +
             (rec.phase == Phase::kRunning ? " (its attempt has not ended)" : "");
    if (!facts) return "retry: nothing was read of returned/" + id;
    const RetryFacts& f = *facts;
    if (!f.read_error.empty()) return "retry: " + f.read_error;
    const int previous = std::max(rec.attempt, f.attempt);
    if (std::string why = RetryOutcomeRefusal(f.outcome, f.ran, previous); !why.empty())
      return "retry: mission " + id + ": " + why;
    if (!f.alive.empty())
      return "retry: attempt " + std::to_string(previous) + " of " + id +
             " may still be alive: " + f.alive;
    if (!st_->fail_closed.empty())
      return "retry: the ledger is failed closed (" + st_->fail_closed +
             "); retries wait for a reanchor";
    MissionOrError parsed = ParseMission(f.mission_bytes);
    if (auto* e = std::get_if<ParseError>(&parsed))
      return "retry: returned/" + id + "/mission.json: " + e->Text();
    const std::string sha = Sha256Hex(f.mission_bytes);
    if (!f.intake_sha256.empty() && sha != f.intake_sha256)
      return "retry: returned/" + id + "/mission.json changed after intake (sha256 " + sha +
             ", taken in as " + f.intake_sha256 + "); submit it again to have it judged";
    const int64_t seq = Ledger("mission.retry",
                               Asked({{"id", id},
                                      {"by", asker_.user},
                                      {"previous", previous},
                                      {"previous_outcome", f.outcome},
                                      {"attempt", previous + 1},
                                      {"key", LaunchKeyName(id, previous + 1)},
                                      {"mission_sha256", sha}}),
                               now);
    Retry rt{id, previous, {}};
    rt.files["retry.json"] = RetryRecordText({id, asker_.user, f.outcome, previous, seq, now});
    effect_ = "queued (attempt " + std::to_string(previous + 1) + ")";
    out_.push_back(std::move(rt));
    Log(id + " returned -> queued (retry by " + asker_.user + ": attempt " +
        std::to_string(previous) + " " + f.outcome + ", attempt " + std::to_string(previous + 1) +
        " next)");
    // A fresh attempt: nothing of the last one's end carries over, nor an approval of its plan.
    MissionRec next = Rec(Phase::kQueued, f.accepted ? f.accepted : rec.accepted);
    next.mission = std::get<Mission>(std::move(parsed));
    ApplyProfileDefaults(&*next.mission, s_.config);
    next.mission->id = id;
    next.attempt = previous;
    next.sha256 = sha;
    next.resolved = f.resolved;
    next.owner = rec.owner.uid >= 0 ? rec.owner : Dropper{f.owner_uid, f.owner_user};
    rec = std::move(next);
    st_->queue.push_back(id);
    Pump(now);
    return "";
  }

  std::string GrantOrRevoke(const ControlRequest& r, TimeMs now) {
    const bool grant = r.kind == ControlKind::kGrant;
    if (grant && !st_->fail_closed.empty())
      return "grant: the ledger is failed closed (" + st_->fail_closed +
             "); grants wait for a reanchor";
    if (grant && r.until && *r.until <= std::max(now, st_->ledger_time))
      return "until: " + FormatTime(*r.until) + " is past";
    json::Object body = Asked({{"op", r.op}, {"by", asker_.user}});
    if (!r.mission.empty()) body["mission"] = r.mission;
    if (!r.requester.empty()) body["requester"] = r.requester;
    if (grant) body["until"] = r.until ? json::Value(FormatTime(*r.until)) : json::Value(nullptr);
    GrantRecord e{0, grant ? "grant" : "revoke", body};
    e.seq = Ledger(e.kind, std::move(body), now);
    (void)st_->grants.Apply(e);  // the kernel's own well-formed body: it always applies
    effect_ = grant ? "granted" : "revoked";
    Log(std::string(grant ? "granted " : "revoked ") + r.op + " for " +
        (r.mission.empty() ? "requester " + r.requester : "mission " + r.mission));
    return "";
  }

  std::string Reanchor(const ControlRequest& r, TimeMs now) {
    if (st_->fail_closed.empty())
      return "reanchor: the ledger is not failed closed; there is nothing to reanchor";
    // After a rollback, what waited at the start on the restored spool may have launched after
    // the backup was taken: returned lost, never launched by the reanchor.
    std::vector<std::string> unproven;
    if (st_->rolled_back)
      for (const auto& [id, rec] : st_->missions)
        if (rec.unproven && (rec.phase == Phase::kHold || rec.phase == Phase::kQueued))
          unproven.push_back(id);
    json::Object body = Asked({{"why", r.why}, {"by", asker_.user}, {"failure", st_->fail_closed}});
    if (st_->rolled_back) body["returned_lost"] = json::Array(unproven.begin(), unproven.end());
    if (!st_->unvouched_grants.empty())
      body["void"] = json::Array(st_->unvouched_grants.begin(), st_->unvouched_grants.end());
    // The kernel's own well-formed body: it always applies.
    (void)st_->grants.Apply(GrantRecord{0, "ledger.reanchor", body});
    st_->unvouched_grants.clear();
    Ledger("ledger.reanchor", std::move(body), now, /*new_epoch=*/true);
    for (const std::string& id : unproven) {
      MissionRec& rec = st_->missions[id];
      const Phase from = rec.phase;
      if (from == Phase::kQueued) std::erase(st_->queue, id);
      rec.lost = true;
      Finish(id, rec, from,
             BuildUnrunReturn(id, rec, "lost",
                              "the spool was restored from a backup older than its ledger's "
                              "anchor, and this mission waited in it: whether it was launched "
                              "after the backup cannot be ruled out, so it is not launched again "
                              "by itself (`hangar retry " +
                                  id + "` launches it, knowingly)",
                              s_.config.limits, now),
             now);
    }
    effect_ = "reanchored";
    Log("ledger reanchored (" + r.why + "): a new epoch starts; launches resume" +
        (unproven.empty() ? std::string()
                          : "; " + std::to_string(unproven.size()) +
                                " missions found on the restored spool returned lost"));
    st_->fail_closed.clear();
    st_->rolled_back = false;
    Pump(now);
    return "";
  }

  void On(const LedgerFailed& f) {
    if (f.rolled_back) st_->rolled_back = true;
    st_->unvouched_grants.insert(st_->unvouched_grants.end(), f.unvouched_grants.begin(),
                                 f.unvouched_grants.end());
    if (!st_->fail_closed.empty()) return;  // already closed: the first reason stands
    st_->fail_closed = f.reason;
    Ledger("ledger.fail-closed", {{"reason", f.reason}, {"rolled_back", f.rolled_back}}, f.now);
    Log("FAIL-CLOSED: " + f.reason + "; no launch or grant until `hangar ledger reanchor`");
  }

  // The intake decided for id was not done (no space): forget the mission, and the launch the
  // same decision made of it (no supervisor started). Its drop waits in incoming/new.
  void On(const IntakeFailed& f) {
    auto it = st_->missions.find(f.id);
    if (it == st_->missions.end() || it->second.phase == Phase::kReturned ||
        (it->second.phase == Phase::kRunning && (it->second.attempt != 1 || it->second.exited)))
      return;  // not a mission this intake made
    if (it->second.phase == Phase::kRunning) st_->running--;
    std::erase(st_->queue, f.id);
    st_->missions.erase(it);
    const std::string shown = json::ValidUtf8(f.name) ? f.name : std::string("(not UTF-8)");
    Ledger("mission.intake-failed", {{"id", f.id}, {"name", shown}, {"reason", f.reason}}, f.now);
    Log(f.id + " not taken in: " + f.reason + "; " + shown + " waits in incoming/new");
    Pump(f.now);
  }

  void On(const LaunchDone& l) {
    auto it = st_->missions.find(l.id);
    if (it == st_->missions.end() || it->second.phase != Phase::kRunning) return;
    MissionRec& rec = it->second;
    if (l.ok) {
      Log(l.id + " launched (attempt " + std::to_string(rec.attempt) + ")");
      return;
    }
    st_->running--;
    const Phase from = l.in_running ? Phase::kRunning : Phase::kQueued;
    if (l.key_existed) {
      // The key says an attempt may have run: never launch it again by ourselves.
      rec.lost = true;
      rec.error = "launch key " + l.error + " already exists";
    } else {
      rec.error = "launch failed: " + l.error;
    }
    Finish(l.id, rec, from, BuildReturn(l.id, rec, nullptr, s_.config.limits, l.now), l.now);
    Pump(l.now);
  }

  // A running mission whose drone's end is (ended) or is not yet (!ended) known; else nullptr.
  MissionRec* Running(const std::string& id, bool ended) {
    auto it = st_->missions.find(id);
    if (it == st_->missions.end() || it->second.phase != Phase::kRunning ||
        it->second.exited != ended)
      return nullptr;
    return &it->second;
  }

  // The drone is over (its exit known, or its supervisor gone): its slot frees, the kernel looks.
  void EndDrone(const std::string& id, MissionRec& rec, TimeMs now) {
    rec.exited = true;
    st_->running--;
    if (rec.ops_running.empty()) {
      EmitObserve(id, rec);
    } else {
      rec.observe_waits = true;  // its room is looked at once the acts it asked for are over
      Log(id + " observed once its " + std::to_string(rec.ops_running.size()) + " running op" +
          (rec.ops_running.size() == 1 ? "" : "s") + " end");
    }
    Pump(now);
  }

  // ---- the window ----
  json::Object OpBody(const std::string& id, const std::string& name, const std::string& op,
                      const std::string& key) const {
    json::Object o{{"id", id}, {"request", name}};
    o["op"] = op.empty() ? json::Value(nullptr) : json::Value(op);
    o["key"] = key.empty() ? json::Value(nullptr) : json::Value(key);
    return o;
  }

  // Records `kind` with `body`, then answers the request with `result` (which names that entry).
  void Answer(const std::string& id, const std::string& name, const std::string& key,
              json::Object result, const std::string& kind, json::Object body,
              std::map<std::string, std::string> files, bool keep, bool release, TimeMs now) {
    result["hangar"] = 1;
    result["time"] = FormatTime(now);
    result["ledger_seq"] = st_->ledger_seq + 1;
    std::string text = Text(json::Value(std::move(result)));
    body["result_sha256"] = Sha256Hex(text);
    Ledger(kind, std::move(body), now);
    files[name + ".result.json"] = text;
    out_.push_back(AnswerOp{id, name, key, std::move(text), std::move(files), keep, release});
  }

  void On(const OpRequested& q) {
    MissionRec* rec = Running(q.id, false);
    // A request after the drone's end, or one already answered, stays in the room as evidence.
    if (!rec || !rec->mission || !rec->ops_seen.insert(q.name).second) return;
    std::map<std::string, std::string> files;
    if (q.read_error.empty()) files[q.name + ".request.json"] = q.bytes;
    json::Object body = OpBody(q.id, q.name, "", "");
    body["request_sha256"] = q.read_error.empty() ? json::Value(Sha256Hex(q.bytes)) : nullptr;
    auto refuse = [&](const std::string& op, const std::string& key, const std::string& rule,
                      const std::string& reason) {
      json::Object res = OpBody(q.id, q.name, op, key);
      res["status"] = "refused";
      res["rule"] = rule;
      res["reason"] = reason;
      body["op"] = res["op"];
      body["key"] = res["key"];
      body["rule"] = rule;
      body["reason"] = reason;
      Log(q.id + " op request ops/" + q.name + ".json refused (" + rule + "): " + reason);
      Answer(q.id, q.name, key, std::move(res), "op.refused", std::move(body), std::move(files),
             false, false, q.now);
    };
    if (!q.read_error.empty()) return refuse("", "", "op.request", q.read_error);
    OpRequestOrError parsed = ParseOpRequest(q.bytes);
    if (auto* e = std::get_if<ParseError>(&parsed))
      return refuse("", "", "op.request", "ops/" + q.name + ".json: " + e->Text());
    const OpRequest& r = std::get<OpRequest>(parsed);
    if (rec->ops_running.count(r.key))
      return refuse(r.op, r.key, "op.key_running",
                    "an act under key " + r.key + " runs now; ask again once its result is in");
    auto handler = s_.config.ops.find(r.op);
    const OpContext ctx{&*rec->mission,
                        &q.declaration,
                        &s_.policy,
                        &st_->grants,
                        st_->fail_closed,
                        handler != s_.config.ops.end(),
                        std::max(q.now, st_->ledger_time)};  // a clock set back revives no grant
    const OpJudgement j = JudgeOp(r, ctx);
    if (!j.allowed) return refuse(r.op, r.key, j.rule, j.reason);
    if (q.key == OpKeyState::kTaken)
      return refuse(r.op, r.key, "op.key_in_doubt",
                    "key " + r.key +
                        " was taken before and holds no result (its act ran, or was running when "
                        "hangard stopped): an act runs at most once, so it is not run again");
    body["op"] = r.op;
    body["key"] = r.key;
    while (!rec->op_starts.empty() && rec->op_starts.front() <= q.now - 60000)
      rec->op_starts.pop_front();
    if (q.key != OpKeyState::kDone && int(rec->op_starts.size()) >= s_.config.limits.ops_per_minute)
      return refuse(r.op, r.key, "op.rate",
                    "the window started " + std::to_string(rec->op_starts.size()) +
                        " handlers for this mission in the last 60 s, the config's "
                        "limits.ops_per_minute; ask again later");
    if (q.key == OpKeyState::kDone) {
      Result<json::Value> stored = json::Parse(q.stored_result);
      json::Object res = stored.ok() && stored->is_object() ? stored->as_object() : json::Object{};
      res["repeat_of"] = res.count("request") ? res["request"] : json::Value(nullptr);
      res["request"] = q.name;
      res["repeat"] = true;
      body["stored_sha256"] = Sha256Hex(q.stored_result);
      Log(q.id + " op " + r.op + " key " + r.key + ": done before, its result given again");
      return Answer(q.id, q.name, r.key, std::move(res), "op.repeated", std::move(body),
                    std::move(files), false, false, q.now);
    }
    body["args_sha256"] = Sha256Hex(json::Write(r.args));
    body["handler"] = json::Array(handler->second.argv.begin(), handler->second.argv.end());
    Ledger("op.allowed", std::move(body), q.now);
    rec->ops_running.insert(r.key);
    rec->op_starts.push_back(q.now);
    files[q.name + ".args.json"] = json::Write(r.args) + "\n";
    std::map<std::string, std::string> env = handler->second.env;
    env["HANGAR_MISSION"] = q.id;
    env["HANGAR_REQUESTER"] = rec->mission->requester;
    env["HANGAR_OP"] = r.op;
    env["HANGAR_OP_KEY"] = r.key;
    env["HANGAR_OP_REQUEST"] = q.name;
    Log(q.id + " op " + r.op + " (ops/" + q.name + ".json, key " + r.key + ") allowed: running " +
        handler->second.argv[0]);
    out_.push_back(
        RunOp{q.id, q.name, r.op, r.key, handler->second, std::move(env), std::move(files)});
  }

  void On(const OpFinished& f) {
    auto it = st_->missions.find(f.id);
    if (it == st_->missions.end() || it->second.phase != Phase::kRunning) return;
    MissionRec& rec = it->second;
    rec.ops_running.erase(f.key);
    json::Object res = OpBody(f.id, f.name, f.op, f.key);
    json::Object body = OpBody(f.id, f.name, f.op, f.key);
    if (!f.started) {
      res["status"] = "error";
      res["error"] = f.error;
      body["error"] = f.error;
      Log(f.id + " op " + f.op + " key " + f.key + " could not run: " + f.error);
      Answer(f.id, f.name, f.key, std::move(res), "op.unrun", std::move(body), {}, false, true,
             f.now);
    } else {
      auto opt = [](const std::optional<int>& v) { return v ? json::Value(*v) : json::Value(); };
      res["status"] = "executed";
      for (json::Object* o : {&res, &body}) {
        (*o)["rc"] = opt(f.rc);
        (*o)["signal"] = opt(f.signal);
        (*o)["timed_out"] = f.timed_out;
        (*o)["error"] = f.error.empty() ? json::Value(nullptr) : json::Value(f.error);
      }
      res["output"] = f.output;
      res["output_text"] = json::ValidUtf8(f.output_text) ? json::Value(f.output_text) : nullptr;
      res["output_truncated"] = f.output_cut;
      const json::Value* sha = f.output.is_object() ? f.output.find("sha256") : nullptr;
      body["output_sha256"] = sha ? *sha : json::Value(nullptr);
      Log(f.id + " op " + f.op + " key " + f.key + " ran: " +
          (f.timed_out ? std::string("timed out")
           : f.rc      ? "rc " + std::to_string(*f.rc)
           : f.signal  ? "signal " + std::to_string(*f.signal)
                       : f.error));
      Answer(f.id, f.name, f.key, std::move(res), "op.result", std::move(body), {}, true, false,
             f.now);
    }
    if (rec.exited && rec.observe_waits && rec.ops_running.empty()) {
      rec.observe_waits = false;
      EmitObserve(f.id, rec);
    }
  }

  void On(const DroneExited& e) {
    MissionRec* rec = Running(e.id, false);
    if (!rec) return;
    rec->exit = e.exit;
    Log(e.id + " drone ended (" +
        (e.exit.rc       ? "rc " + std::to_string(*e.exit.rc)
         : e.exit.signal ? "signal " + std::to_string(*e.exit.signal)
                         : "not started") +
        (e.exit.timed_out ? ", deadline fired" : "") + (e.exit.cancelled ? ", cancelled" : "") +
        ")");
    EndDrone(e.id, *rec, e.now);
  }

  void On(const SupervisorGone& g) {
    MissionRec* rec = Running(g.id, false);
    if (!rec) return;
    rec->lost = true;
    Log(g.id + " lost: its supervisor is gone and left no exit record");
    EndDrone(g.id, *rec, g.now);
  }

  void On(const Ready& r) {
    st_->ready = true;
    Pump(r.now);
  }

  void On(const Observed& o) {
    MissionRec* rec = Running(o.id, true);
    if (!rec) return;
    Finish(o.id, *rec, Phase::kRunning, BuildReturn(o.id, *rec, &o.obs, s_.config.limits, o.now),
           o.now);
  }

  // ---- transitions ----
  void Finish(const std::string& id, MissionRec& rec, Phase from, json::Value ret, TimeMs now) {
    const int64_t seq = st_->ledger_seq + 1;
    ret["ledger_seq"] = seq;
    std::string text = Text(ret);
    Ledger("mission.returned",
           {{"id", id}, {"outcome", ret.find("outcome")->as_string()}, {"sha256", Sha256Hex(text)}},
           now);
    Move mv{id, from, Phase::kReturned, {}, std::nullopt};
    mv.files["return.json"] = std::move(text);
    if (rec.mission) mv.notify_dir = rec.mission->notify_dir;
    out_.push_back(std::move(mv));
    Log(id + " " + std::string(PhaseName(from)) + " -> returned (" +
        ret.find("outcome")->as_string() + ")");
    rec.phase = Phase::kReturned;
    rec.mission.reset();
  }

  void EmitObserve(const std::string& id, const MissionRec& rec) {
    Observe ob;
    ob.id = id;
    const Layout at = s_.Places();
    ob.room = at.Room(id);
    ob.run = at.RunDir(id);
    ob.mission_ops = at.MissionOps(id);
    if (rec.mission) {
      ob.checks = rec.mission->done_when;
      ob.egress = rec.mission->network == "egress";
      auto p = s_.config.profiles.find(rec.mission->drone);
      if (p != s_.config.profiles.end() && !p->second.last_message.empty())
        ob.last_message =
            ExpandTemplate(p->second.last_message, TemplateVars(id, ob.room, ob.run, s_.bindir));
      if (p != s_.config.profiles.end()) {
        ob.harness = p->second.harness;
        ob.stdout_file = p->second.stdout_file;
      }
    }
    ob.check_env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
                    {"HOME", ob.room},
                    {"LANG", "C.UTF-8"},
                    {"HANGAR_MISSION", id}};
    ob.check_sandbox = {s_.bwrap,     s_.bindir + "/hangar-confine",
                        s_.Hidden(),  s_.config.limits,
                        s_.drone_uid, s_.drone_gid};
    out_.push_back(std::move(ob));
  }

  void Pump(TimeMs now) {
    while (st_->ready && st_->fail_closed.empty() && !st_->clock_behind &&
           st_->running < s_.config.slots && !st_->queue.empty()) {
      const std::string id = st_->queue.front();
      st_->queue.pop_front();
      MissionRec& rec = st_->missions[id];
      if (rec.phase != Phase::kQueued || !rec.mission) continue;
      const Mission& m = *rec.mission;
      auto p = s_.config.profiles.find(m.drone);
      if (p == s_.config.profiles.end()) {
        const std::string reason =
            "no drone profile named \"" + m.drone + "\" in " + s_.config.file;
        const int64_t seq = Ledger("mission.denied",
                                   {{"id", id},
                                    {"stage", 2},
                                    {"verdict", "deny"},
                                    {"rules", json::Array{}},
                                    {"reason", reason}},
                                   now);
        json::Value why = Why(id, "drone", reason, now);
        why["ledger_seq"] = seq;
        Move mv{id, Phase::kQueued, Phase::kDenied, {}, std::nullopt};
        mv.files["why.json"] = Text(why);
        out_.push_back(std::move(mv));
        Log(id + " queued -> denied (profile " + m.drone + " gone from the config)");
        rec.phase = Phase::kDenied;
        rec.mission.reset();
        continue;
      }
      const int attempt = rec.attempt + 1;
      const GateSite site = s_.Site();
      const Layout at = s_.Places();
      PlanPlaces where{at.Room(id),
                       at.RunDir(id),
                       s_.bindir,
                       s_.config.kill_grace_s,
                       site.bwrap,
                       s_.Hidden(),
                       WritablePaths(m, site, rec.resolved),
                       s_.config.launchers,
                       s_.config.limits,
                       s_.drone_uid,
                       s_.drone_gid,
                       s_.socat};
      Plan plan = BuildPlan(m, p->second, where, attempt);
      std::string plan_text = Text(plan.ToJson());
      GateResult g = GateStage2(m, plan, s_.policy, site, rec.resolved, &p->second);
      const std::string plan_sha = Sha256Hex(plan_text);
      // A hold a person already approved for exactly this mission and this plan is passed.
      if (g.verdict == Verdict::kHold && !rec.approved_plan_sha256.empty() &&
          rec.approved_plan_sha256 == plan_sha && rec.approved_sha256 == rec.sha256) {
        g.verdict = Verdict::kAllow;
        g.rules.push_back("approved");
        g.reason = "held, and approved by a person for this mission and plan";
      }
      json::Value g2 = g.ToJson(2, now);
      g2["plan_sha256"] = plan_sha;
      json::Object body = GateBody(id, 2, g);
      body["plan_sha256"] = plan_sha;
      if (g.verdict == Verdict::kAllow) {
        body["attempt"] = attempt;
        body["key"] = LaunchKeyName(id, attempt);
      }
      g2["ledger_seq"] = Ledger(g.verdict == Verdict::kAllow  ? "mission.launched"
                                : g.verdict == Verdict::kHold ? "mission.held"
                                                              : "mission.denied",
                                std::move(body), now);
      if (g.verdict == Verdict::kAllow) {
        rec.attempt = attempt;
        rec.phase = Phase::kRunning;
        st_->running++;
        out_.push_back(Launch{id, attempt, std::move(plan), std::move(plan_text), Text(g2),
                              RenderPrompt(m), plan_sha});
        Log(id + " queued -> running");
        continue;
      }
      Phase to = g.verdict == Verdict::kHold ? Phase::kHold : Phase::kDenied;
      Move mv{id, Phase::kQueued, to, {}, std::nullopt};
      mv.files["gate2.json"] = Text(g2);
      if (to == Phase::kHold) mv.notify_dir = m.notify_dir;
      if (to == Phase::kDenied) {
        json::Value why = Why(id, "", "gate stage 2: " + g.reason, now);
        why["ledger_seq"] = g2["ledger_seq"];
        mv.files["why.json"] = Text(why);
      }
      out_.push_back(std::move(mv));
      Log(id + " queued -> " + std::string(PhaseName(to)) + " (gate stage 2: " + g.reason + ")");
      rec.phase = to;
      if (to == Phase::kDenied) rec.mission.reset();
      if (to == Phase::kHold) rec.held_plan_sha256 = plan_sha;
    }
  }

  const KernelSetup& s_;
  State* st_;
  std::vector<Action> out_;
  // The control request being decided: who dropped it, the "by" it claimed, what it did.
  Dropper asker_;
  std::string claimed_;
  std::string effect_;
};

}  // namespace

GateSite KernelSetup::Site() const {
  GateSite site{rooms, home, {spool}, bwrap, bindir, root, config.limits, drone_uid, drone_gid};
  site.socat = socat;
  if (!anchor.empty()) site.hangar_dirs.push_back(anchor);
  // The checkpoint signing key, when it lives elsewhere than the anchor directory.
  if (!config.checkpoint_key.empty()) site.hangar_dirs.push_back(config.checkpoint_key);
  for (const std::string* file : {&config.file, &config.policy, &config.allowed_signers})
    if (!file->empty() && (*file)[0] == '/') site.hangar_dirs.push_back(*file);
  return site;
}

std::vector<std::string> KernelSetup::Hidden() const {
  const GateSite site = Site();
  std::vector<std::string> hide;
  for (const std::string& d : policy.deny_read)
    if (!d.empty() && d[0] == '/') hide.push_back(d);  // a home pattern stands for its paths
  hide.insert(hide.end(), site.hangar_dirs.begin(), site.hangar_dirs.end());
  hide.push_back(rooms);  // every room: a drone's own is bound over it
  return hide;
}

std::vector<Action> Decide(const KernelSetup& setup, State* state, const Signal& signal) {
  return Decider(setup, state).Run(signal);
}

bool MayLaunch(const KernelSetup& setup, const State& state) {
  return state.ready && state.fail_closed.empty() && !state.clock_behind &&
         state.running < setup.config.slots;
}

}  // namespace hangar
