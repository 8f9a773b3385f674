#include "cli/requester_facts.h"

#include <unistd.h>

#include <cerrno>
#include <map>
#include <set>
#include <unordered_map>

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

// The members of a ledger body the pack reads. A body with no nested object (every mission.* and
// person.* entry) is read where it lies: its canonical text (ledger/entry.h: sorted keys, no
// whitespace, strings escaped only where JSON requires) has a member's key only after '{' or ','
// at the top level, and a plain string value ends at the next quote. Anything else (a nested
// object, a value with an escape) is parsed, once.
class Body {
 public:
  explicit Body(std::string_view text) : text_(text), flat_(text.find('{', 1) == text.npos) {}

  std::optional<std::string_view> Str(std::string_view key) {
    if (flat_) {
      const std::string pat = "\"" + std::string(key) + "\":\"";
      for (size_t at = text_.find(pat); at != text_.npos; at = text_.find(pat, at + 1)) {
        if (at == 0 || (text_[at - 1] != '{' && text_[at - 1] != ',')) continue;
        const size_t from = at + pat.size(), to = text_.find('"', from);
        if (to == text_.npos) break;
        std::string_view v = text_.substr(from, to - from);
        if (v.find('\\') == v.npos) return v;
        break;  // escaped: parsed below
      }
      if (text_.find("\"" + std::string(key) + "\":") == text_.npos) return std::nullopt;
    }
    const json::Value* v = Parsed().is_object() ? Parsed().find(std::string(key)) : nullptr;
    if (!v || !v->is_string()) return std::nullopt;
    return std::string_view(v->as_string());
  }
  int64_t Int(std::string_view key) {
    if (flat_) {
      const std::string pat = "\"" + std::string(key) + "\":";
      for (size_t at = text_.find(pat); at != text_.npos; at = text_.find(pat, at + 1)) {
        if (at == 0 || (text_[at - 1] != '{' && text_[at - 1] != ',')) continue;
        int64_t n = 0;
        for (size_t i = at + pat.size(); i < text_.size() && text_[i] >= '0' && text_[i] <= '9';
             ++i)
          n = n * 10 + (text_[i] - '0');
        return n;
      }
      return 0;
    }
    const json::Value* v = Parsed().is_object() ? Parsed().find(std::string(key)) : nullptr;
    return v && v->is_int() ? v->as_int() : 0;
  }
  // Whether the body's "rules" name QUOTED_RULE (with its quotes: rule ids are plain strings).
  bool Rule(std::string_view quoted_rule) const {
    const size_t at = text_.find("\"rules\":[");
    return at != text_.npos && text_.compare(at + 9, 1, "]") != 0 &&
           text_.find(quoted_rule, at) != text_.npos;
  }

 private:
  const json::Value& Parsed() {
    if (!parsed_) {
      Result<json::Value> v = json::Parse(text_);
      parsed_ = v.ok() ? std::move(v).value() : json::Value();
    }
    return *parsed_;
  }
  std::string_view text_;
  bool flat_;
  std::optional<json::Value> parsed_;
};

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
  const std::string file = place.CheckpointFile();
  if (file.empty()) return "";
  // The anchor directory is hangard's (0700 when installed): say so rather than "none".
  if (access(place.AnchorDir().c_str(), X_OK) != 0 && errno == EACCES)
    return "cannot be read by this user (the anchor directory is hangard's)";
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
    s.state = "missing";
    return s;
  }
  s.text = *text;
  if (!v.sha256.empty() && Sha256Hex(s.text) != v.sha256) {
    s.problem = s.path + " has sha256 " + Sha256Hex(s.text) + ", but the ledger (seq " +
                std::to_string(v.seq) + ") stored " + v.sha256 + ": changed after it was stored";
    s.state = "changed";
    return s;
  }
  auto parsed = ParseRequesterMemory(s.text);
  if (auto* e = std::get_if<ParseError>(&parsed)) {
    s.problem = s.path + ": " + e->Text();
    s.state = "invalid";
    return s;
  }
  s.memory = std::get<RequesterMemory>(std::move(parsed));
  if (s.memory->requester != requester) {
    s.problem = s.path + " is a work state of requester " + s.memory->requester;
    s.state = "invalid";
    s.memory.reset();
  }
  return s;
}

namespace {

// What the references of a work state make the scan look up: the seqs and mission ids cited.
struct Cited {
  std::set<int64_t> seqs;
  std::set<std::string, std::less<>> missions;
  static Cited Of(const std::optional<RequesterMemory>& m) {
    Cited c;
    if (m)
      for (const MemoryRef& r : m->refs) {
        if (r.kind == MemoryRef::Kind::kSeq) c.seqs.insert(r.seq);
        if (!r.mission.empty()) c.missions.insert(r.mission);
      }
    return c;
  }
  bool operator==(const Cited& o) const { return seqs == o.seqs && missions == o.missions; }
};

Result<PackFacts> Gather(const Context& ctx, const std::string& requester, const Cited& cited);

}  // namespace

Result<PackFacts> GatherRequesterFacts(const Context& ctx, const std::string& requester) {
  // The newest file's references say what to look up; when the ledger's latest version is
  // another (a file not on the ledger), the scan is made again for that one's.
  const Cited first = Cited::Of(NewestFile(ctx, requester));
  Result<PackFacts> f = Gather(ctx, requester, first);
  if (!f.ok() || Cited::Of(f->latest) == first) return f;
  return Gather(ctx, requester, Cited::Of(f->latest));
}

namespace {

Result<PackFacts> Gather(const Context& ctx, const std::string& requester, const Cited& cited) {
  PackFacts f;
  f.requester = requester;
  LedgerPlace place = FindLedger(ctx, "");
  ledger::LedgerStore store(ctx.env, ctx.layout.spool, place.name);
  if (Status s = store.OpenForReading(); !s.ok()) return s;
  GrantBook book;
  // id -> index in f.missions; looked up for every mission entry, by the body's own text.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, size_t, Hash, std::equal_to<>> mine;
  std::map<std::string, TimeMs, std::less<>> launched;
  std::string head_time;  // the last entry's: no entry is dated before an earlier one
  ledger::ScanOptions options;
  options.hash_epoch = -1;  // no entry's hash is recomputed here
  Status scan = ledger::ScanLedger(store, options, [&](const ledger::EntryView& v, bool) {
    f.head_seq = v.seq;
    head_time.assign(v.time);
    // Read where it is needed; a ledger time is as FormatTime writes it (ParseTime's fast path).
    auto t = [&v] { return ParseTime(v.time).value_or(0); };
    if (cited.seqs.count(v.seq)) f.cited_kinds[v.seq] = std::string(v.kind);
    const std::string_view kind = v.kind;
    if (kind.starts_with("mission.") || kind.starts_with("person.")) {
      Body b(v.body);
      std::optional<std::string_view> id = b.Str("id");
      if (!id) return Status::Ok();
      const bool intake =
          (kind == "mission.accepted" || kind == "mission.held" || kind == "mission.denied") &&
          b.Int("stage") == 1;
      if ((intake || kind == "mission.rejected") && cited.missions.count(*id))
        f.known_missions.insert(std::string(*id));
      auto it = mine.find(*id);
      if (it == mine.end()) {
        // Another uid's mission under this name, denied for it, is not the requester's.
        if (!intake || b.Str("requester") != std::string_view(requester) ||
            b.Rule("\"requester.owner\""))
          return Status::Ok();
        it = mine.emplace(std::string(*id), f.missions.size()).first;
        PackMission m;
        m.id = std::string(*id);
        m.accepted = t();
        f.missions.push_back(std::move(m));
      }
      PackMission& m = f.missions[it->second];
      m.seq = v.seq;
      std::string change;
      if (kind == "mission.accepted") {
        m.state = "queued";
      } else if (kind == "mission.held") {
        m.state = "hold";
        m.why = std::string(b.Str("reason").value_or(""));
        // Held again because its mission.json changed after intake: no approval carries.
        if (b.Rule("\"mission.changed\"")) m.approved = false;
        change = "held at stage " + std::to_string(b.Int("stage"));
      } else if (kind == "mission.denied") {
        m.state = "denied";
        m.why = std::string(b.Str("reason").value_or(""));
        change = "denied at stage " + std::to_string(b.Int("stage"));
      } else if (kind == "mission.launched") {
        m.state = "running";
        m.why.clear();
        launched[m.id] = t();
        change = "launched";
      } else if (kind == "mission.returned") {
        m.state = "returned";
        m.outcome = std::string(b.Str("outcome").value_or(""));
        m.deadline.reset();
        change = "returned " + m.outcome;
      } else if (kind == "mission.retry") {
        m.state = "queued";
        m.outcome.clear();
        change = "queued again (retry)";
      } else if (kind == "mission.intake-failed") {
        m.state.clear();  // forgotten: its drop waits in incoming/new to be taken in again
      } else if (kind == "person.approved") {
        m.state = "queued";
        m.approved = true;
        m.why.clear();
        change = "approved by a person";
      } else if (kind == "person.denied") {
        m.state = "denied";
        m.why = "denied by a person: " + std::string(b.Str("why").value_or(""));
        change = "denied by a person";
      }
      if (!change.empty() && !f.versions.empty())
        f.since.push_back("seq " + std::to_string(v.seq) + ": mission " + m.id + " " + change);
      return Status::Ok();
    }
    if (GrantBook::Folds(kind)) {
      Result<json::Value> body = json::Parse(v.body);
      if (!body.ok()) return body.status();
      if (Status a = book.Apply(GrantRecord{v.seq, std::string(kind), *body}); !a.ok()) return a;
      if (kind == "ledger.reanchor") return Status::Ok();
      const std::string key = GrantKey(*body);
      const std::string m = StringField(*body, "mission");
      const bool ours = StringField(*body, "requester") == requester || mine.count(m);
      if (kind == "revoke") f.grant_revoked[key] = v.seq;
      if (kind == "grant") f.grant_revoked.erase(key);
      if (ours && !f.versions.empty())
        f.since.push_back("seq " + std::to_string(v.seq) + ": " + key +
                          (kind == "grant" ? " granted" : " revoked"));
      return Status::Ok();
    }
    if (kind == "memory.stored") {
      Result<json::Value> body = json::Parse(v.body);  // nested (its refs): parsed whole
      if (!body.ok()) return body.status();
      if (StringField(*body, "requester") != requester) return Status::Ok();
      PackVersion pv;
      pv.seq = v.seq;
      pv.time = t();
      pv.sha256 = StringField(*body, "sha256");
      pv.user = StringField(*body, "user");
      if (const json::Value* n = body->find("version"); n && n->is_int()) pv.version = n->as_int();
      if (const json::Value* u = body->find("uid"); u && u->is_int()) pv.uid = u->as_int();
      f.versions.push_back(pv);
      f.since.clear();  // what changed since this version, from here on
    }
    return Status::Ok();
  });
  if (!scan.ok()) return scan;
  f.head_time = ParseTime(head_time).value_or(0);
  if (std::erase_if(f.missions, [](const PackMission& m) { return m.state.empty(); }) > 0)
    for (size_t i = 0; i < f.missions.size(); ++i) mine[f.missions[i].id] = i;

  f.grants.clear();
  for (const Grant& g : book.Active(f.head_time))
    if (g.requester == requester || mine.count(g.mission)) f.grants.push_back(g);

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
    }
  }
  f.kernel = KernelLine(ctx);
  f.checkpoint = CheckpointLine(ctx, place);
  return f;
}

}  // namespace

}  // namespace hangar::cli
