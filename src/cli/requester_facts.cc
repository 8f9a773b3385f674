#include "cli/requester_facts.h"

#include <simdjson.h>

#include <map>
#include <set>

#include "base/sha256.h"
#include "base/strict_json.h"
#include "cli/commands.h"
#include "cli/ledger_place.h"
#include "cli/spool_view.h"
#include "ledger/checkpoint.h"
#include "ledger/scan.h"
#include "ledger/signing_key.h"
#include "ledger/store.h"

namespace hangar::cli {

namespace {

constexpr size_t kMaxStoredMemory = 128 * 1024;

// The few members of a mission entry's body the pack reads.
struct MissionBody {
  std::string id, requester, outcome, reason, why;
  int64_t stage = 0;
};

bool ReadMissionBody(simdjson::dom::parser& parser, std::string_view body, MissionBody* out) {
  simdjson::dom::element root;
  if (parser.parse(body.data(), body.size()).get(root)) return false;
  std::string_view s;
  auto str = [&](const char* k, std::string* to) {
    if (!root[k].get(s)) *to = std::string(s);
  };
  str("id", &out->id);
  str("requester", &out->requester);
  str("outcome", &out->outcome);
  str("reason", &out->reason);
  str("why", &out->why);
  int64_t stage = 0;
  if (!root["stage"].get(stage)) out->stage = stage;
  return true;
}

std::string GrantKey(const json::Value& body) {
  MemoryRef r;
  r.kind = MemoryRef::Kind::kGrant;
  if (const json::Value* op = body.find("op"); op && op->is_string()) r.grant = op->as_string();
  if (const json::Value* m = body.find("mission"); m && m->is_string()) r.mission = m->as_string();
  if (const json::Value* q = body.find("requester"); q && q->is_string())
    r.requester = q->as_string();
  return r.Text();
}

// The highest vN.json in memory/REQUESTER, read as it stands (its refs say what to look up).
std::optional<RequesterMemory> NewestFile(const Context& ctx, const std::string& requester) {
  Result<std::vector<std::string>> names = ctx.env->ListDir(ctx.layout.MemoryOf(requester));
  if (!names.ok()) return std::nullopt;
  int64_t best = 0;
  for (const std::string& n : *names)
    if (n.size() > 6 && n[0] == 'v' && n.ends_with(".json")) {
      const std::string digits = n.substr(1, n.size() - 6);
      if (digits.find_first_not_of("0123456789") == std::string::npos && digits.size() < 12)
        best = std::max<int64_t>(best, std::stoll(digits));
    }
  if (best == 0) return std::nullopt;
  PackVersion v;
  v.version = best;
  StoredMemory s = ReadStoredMemory(ctx, requester, v);
  return s.memory;
}

std::string KernelLine(const Context& ctx) {
  SpoolView view(ctx.env, ctx.layout);
  Result<json::Value> presence = view.ReadJson(ctx.layout.StatusFile());
  if (presence.ok() && presence->is_object())
    if (const json::Value* l = presence->find("ledger"); l && l->is_object())
      if (const json::Value* st = l->find("state");
          st && st->is_string() && st->as_string() == "fail-closed") {
        const json::Value* why = l->find("reason");
        return "failed closed: " + (why && why->is_string() ? why->as_string() : std::string());
      }
  std::optional<bool> alive = KernelAlive(ctx.layout.LockFile());
  return alive && *alive ? "running" : alive ? "not running" : "unknown (its lock cannot be read)";
}

std::string CheckpointLine(const Context& ctx, const LedgerPlace& place) {
  if (place.anchor_file.empty()) return "";
  const std::string file = place.anchor_file.substr(0, place.anchor_file.rfind('/') + 1) +
                           ledger::CheckpointFileName(place.name);
  if (!ctx.env->Exists(file)) return "";
  Result<ledger::Checkpoint> c = ledger::ReadCheckpoint(ctx.env, file);
  if (!c.ok()) return "cannot read " + file + ": " + c.status().message();
  std::string line = "seq " + std::to_string(c->size) + " (epoch " + std::to_string(c->epoch) +
                     ") signed " + FormatTime(c->time);
  Result<ledger::PublicKey> pub =
      ledger::PublicKey::Load(ctx.env, ledger::PublicKeyPath(place.key_file));
  if (!pub.ok()) return line + ", signature not checked: " + pub.status().message();
  Status s = ledger::VerifySignature(*c, *pub);
  return line + (s.ok() ? ", signature verified" : ", signature does not verify: " + s.message());
}

}  // namespace

StoredMemory ReadStoredMemory(const Context& ctx, const std::string& requester,
                              const PackVersion& v) {
  StoredMemory s;
  s.version = v;
  s.path = ctx.layout.MemoryOf(requester) + "/" + Layout::MemoryName(v.version);
  Result<std::string> text = ctx.env->ReadFile(s.path, kMaxStoredMemory);
  if (!text.ok()) {
    s.problem = "cannot read " + s.path + ": " + text.status().message();
    return s;
  }
  s.text = *text;
  if (!v.sha256.empty() && Sha256Hex(s.text) != v.sha256) {
    s.problem = s.path + " has sha256 " + Sha256Hex(s.text) + ", but the ledger (seq " +
                std::to_string(v.seq) + ") stored " + v.sha256 + ": changed after it was stored";
    return s;
  }
  auto parsed = ParseRequesterMemory(s.text);
  if (auto* e = std::get_if<ParseError>(&parsed)) {
    s.problem = s.path + ": " + e->Text();
    return s;
  }
  s.memory = std::get<RequesterMemory>(std::move(parsed));
  if (s.memory->requester != requester) {
    s.problem = s.path + " is a work state of requester " + s.memory->requester;
    s.memory.reset();
  }
  return s;
}

Result<PackFacts> GatherRequesterFacts(const Context& ctx, const std::string& requester) {
  PackFacts f;
  f.requester = requester;
  std::optional<RequesterMemory> tentative = NewestFile(ctx, requester);
  std::set<int64_t> cited_seqs;
  if (tentative)
    for (const MemoryRef& r : tentative->refs)
      if (r.kind == MemoryRef::Kind::kSeq) cited_seqs.insert(r.seq);

  LedgerPlace place = FindLedger(ctx, "");
  ledger::LedgerStore store(ctx.env, ctx.layout.spool, place.name);
  if (Status s = store.OpenForReading(); !s.ok()) return s;
  GrantBook book;
  std::map<std::string, size_t> mine;  // id -> index in f.missions
  std::map<std::string, TimeMs> launched;
  std::vector<std::pair<int64_t, std::string>> since;  // (seq, line), cut to the latest version
  simdjson::dom::parser parser;
  ledger::ScanOptions options;
  options.hash_epoch = -1;  // no entry's hash is recomputed here
  Status scan = ledger::ScanLedger(store, options, [&](const ledger::EntryView& v, bool) {
    f.head_seq = v.seq;
    const TimeMs t = ParseRfc3339(v.time).value_or(0);
    f.head_time = std::max(f.head_time, t);
    if (cited_seqs.count(v.seq)) f.cited_kinds[v.seq] = std::string(v.kind);
    const std::string_view kind = v.kind;
    if (kind.starts_with("mission.") || kind.starts_with("person.")) {
      MissionBody b;
      if (!ReadMissionBody(parser, v.body, &b) || b.id.empty()) return Status::Ok();
      f.known_missions.insert(b.id);
      const bool intake = b.stage == 1 && (kind == "mission.accepted" || kind == "mission.held" ||
                                           kind == "mission.denied");
      if (intake && b.requester == requester && !mine.count(b.id)) {
        mine[b.id] = f.missions.size();
        PackMission m;
        m.id = b.id;
        m.accepted = t;
        f.missions.push_back(std::move(m));
      }
      auto it = mine.find(b.id);
      if (it == mine.end()) return Status::Ok();
      PackMission& m = f.missions[it->second];
      m.seq = v.seq;
      std::string change;
      if (kind == "mission.accepted") {
        m.state = "queued";
      } else if (kind == "mission.held") {
        m.state = "hold";
        m.why = b.reason;
        change = "held at stage " + std::to_string(b.stage);
      } else if (kind == "mission.denied") {
        m.state = "denied";
        m.why = b.reason;
        change = "denied at stage " + std::to_string(b.stage);
      } else if (kind == "mission.launched") {
        m.state = "running";
        m.why.clear();
        launched[m.id] = t;
        change = "launched";
      } else if (kind == "mission.returned") {
        m.state = "returned";
        m.outcome = b.outcome;
        m.deadline.reset();
        change = "returned " + b.outcome;
      } else if (kind == "mission.retry") {
        m.state = "queued";
        m.outcome.clear();
        change = "queued again (retry)";
      } else if (kind == "person.approved") {
        m.state = "queued";
        m.approved = true;
        m.why.clear();
        change = "approved by a person";
      } else if (kind == "person.denied") {
        m.state = "denied";
        m.why = "denied by a person: " + b.why;
        change = "denied by a person";
      }
      if (!change.empty()) since.emplace_back(v.seq, "mission " + m.id + " " + change);
      return Status::Ok();
    }
    if (GrantBook::Folds(kind)) {
      Result<json::Value> body = json::Parse(v.body);
      if (!body.ok()) return body.status();
      if (Status a = book.Apply(GrantRecord{v.seq, std::string(kind), *body}); !a.ok()) return a;
      if (kind == "ledger.reanchor") return Status::Ok();
      const std::string key = GrantKey(*body);
      const json::Value* m = body->find("mission");
      const json::Value* q = body->find("requester");
      const bool ours = (q && q->is_string() && q->as_string() == requester) ||
                        (m && m->is_string() && mine.count(m->as_string()));
      if (kind == "revoke") f.grant_revoked[key] = v.seq;
      if (kind == "grant") f.grant_revoked.erase(key);
      if (ours) since.emplace_back(v.seq, key + (kind == "grant" ? " granted" : " revoked"));
      return Status::Ok();
    }
    if (kind == "memory.stored") {
      Result<json::Value> body = json::Parse(v.body);
      if (!body.ok()) return body.status();
      if (StringField(*body, "requester") != requester) return Status::Ok();
      PackVersion pv;
      pv.seq = v.seq;
      pv.time = t;
      pv.sha256 = StringField(*body, "sha256");
      pv.user = StringField(*body, "user");
      if (const json::Value* n = body->find("version"); n && n->is_int()) pv.version = n->as_int();
      if (const json::Value* u = body->find("uid"); u && u->is_int()) pv.uid = u->as_int();
      f.versions.push_back(pv);
    }
    return Status::Ok();
  });
  if (!scan.ok()) return scan;

  f.grants.clear();
  for (const Grant& g : book.Active(f.head_time))
    if (g.requester == requester || mine.count(g.mission)) f.grants.push_back(g);
  const int64_t latest_seq = f.versions.empty() ? 0 : f.versions.back().seq;
  for (auto& [seq, line] : since)
    if (seq > latest_seq && !f.versions.empty())
      f.since.push_back("seq " + std::to_string(seq) + ": " + line);

  // The deadlines of running ones: the launch entry's time and the mission's max_minutes.
  SpoolView view(ctx.env, ctx.layout);
  for (PackMission& m : f.missions)
    if (m.state == "running" && launched.count(m.id)) {
      Result<json::Value> mj =
          view.ReadJson(ctx.layout.MissionDir(Phase::kRunning, m.id) + "/mission.json");
      if (!mj.ok() || !mj->is_object()) continue;
      const json::Value* mm = mj->find("max_minutes");
      if (mm && (mm->is_int() || mm->is_double()))
        m.deadline = launched[m.id] + TimeMs(mm->as_double() * 60000 + 0.5);
    }

  if (!f.versions.empty()) {
    StoredMemory latest = ReadStoredMemory(ctx, requester, f.versions.back());
    f.latest = latest.memory;
    f.latest_problem = latest.problem;
  }
  if (f.latest) {
    for (const MemoryRef& r : f.latest->refs) {
      if (r.kind == MemoryRef::Kind::kMission) {
        auto it = mine.find(r.mission);
        if (it != mine.end())
          f.missions[it->second].room = ctx.env->Exists(ctx.layout.Room(r.mission));
      }
      if (r.kind == MemoryRef::Kind::kPath && ctx.env->Exists(r.path))
        f.paths_present.insert(r.path);
      // A seq the newest file did not cite (it was not the ledger's latest): looked up now.
      if (r.kind == MemoryRef::Kind::kSeq && !cited_seqs.count(r.seq) && r.seq <= f.head_seq) {
        const Status found = Status::Exists("found");  // ends the walk at the entry
        Status s = store.ForEach(r.seq, [&](const ledger::Entry& e) {
          if (e.seq != r.seq) return Status::Ok();
          f.cited_kinds[e.seq] = e.kind;
          return found;
        });
        if (!s.ok() && s.code() != Code::kExists) return s;
      }
    }
  }
  f.kernel = KernelLine(ctx);
  f.checkpoint = CheckpointLine(ctx, place);
  return f;
}

}  // namespace hangar::cli
