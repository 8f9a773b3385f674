#include "cli/spool_view.h"

#include <sys/stat.h>

#include <algorithm>

#include "base/parallel.h"
#include "kernel/mission.h"

namespace hangar::cli {

const std::vector<std::string>& StateNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {std::string(kIncoming)};
    for (Phase p : kAllPhases) n.emplace_back(PhaseName(p));
    return n;
  }();
  return names;
}

std::string StringField(const json::Value& v, const std::string& key) {
  if (!v.is_object()) return "";
  const json::Value* f = v.find(key);
  return f && f->is_string() ? f->as_string() : "";
}

std::string DropId(const std::string& name, const std::string& bytes) {
  if (auto v = json::Parse(bytes); v.ok()) {
    std::string id = StringField(*v, "id");
    if (!id.empty()) return id;
  }
  const std::string_view ext = ".json";
  if (name.size() > ext.size() && name.ends_with(ext))
    return name.substr(0, name.size() - ext.size());
  return name;
}

Status SpoolView::CheckReadable() const {
  return env_->ListDir(layout_.spool).status();
}

std::vector<std::string> SpoolView::Entries(const std::string& dir) const {
  auto names = env_->ListDir(dir);
  if (!names.ok()) return {};
  std::vector<std::string>& out = names.value();
  std::erase_if(out, [](const std::string& n) { return n.starts_with("."); });
  return std::move(out);
}

std::vector<MissionRef> SpoolView::IncomingRefs() const {
  std::vector<MissionRef> refs;
  for (const std::string& name : Entries(layout_.IncomingNew())) {
    const std::string path = layout_.IncomingNew() + "/" + name;
    auto bytes = env_->ReadFile(path, kMaxSmallFile);
    if (!bytes.ok() && bytes.status().code() == Code::kNotFound) continue;  // taken meanwhile
    refs.push_back(
        {DropId(name, bytes.ok() ? *bytes : ""), std::string(kIncoming), std::nullopt, path});
  }
  return refs;
}

std::optional<MissionRef> SpoolView::Locate(const std::string& id) const {
  if (!ValidId(id)) return std::nullopt;
  // Look in lifecycle order, twice: a mission moving forward while we look is found further on.
  for (int round = 0; round < 2; ++round) {
    for (MissionRef& r : IncomingRefs())
      if (r.id == id) return r;
    for (Phase p : kAllPhases) {
      const std::string dir = layout_.MissionDir(p, id);
      if (env_->Exists(dir)) return MissionRef{id, std::string(PhaseName(p)), p, dir};
      // Being taken in right now (hangar-spool(5), intake): still "incoming" to a reader.
      const std::string taking = layout_.StateDir(p) + "/." + id + ".tmp";
      if (env_->Exists(taking)) return MissionRef{id, std::string(kIncoming), std::nullopt, taking};
    }
  }
  return std::nullopt;
}

Result<MissionRef> SpoolView::Find(const std::string& id) const {
  if (Status s = CheckReadable(); !s.ok()) return s;
  if (std::optional<MissionRef> r = Locate(id)) return *r;
  if (std::string purged = PurgedText(id); !purged.empty()) return Status::NotFound(purged);
  return Status::NotFound("no such mission in " + layout_.spool);
}

std::string SpoolView::PurgedText(const std::string& id) const {
  if (!ValidId(id) || !env_->Exists(layout_.Tombstone(id))) return "";
  Result<json::Value> t = ReadJson(layout_.Tombstone(id));
  std::string when;
  if (t.ok()) {
    const std::string state = StringField(*t, "state"), time = StringField(*t, "purged");
    const json::Value* seq = t->find("ledger_seq");
    when = (state.empty() ? "" : " from " + state) + (time.empty() ? "" : " at " + time) +
           (seq && seq->is_int() ? " (ledger seq " + std::to_string(seq->as_int()) + ")" : "");
  }
  return "id " + id + " was purged" + when + " (purged/" + id + ".json); ids are never reused";
}

std::vector<MissionRef> SpoolView::Refs(const std::string& state) const {
  std::vector<MissionRef> refs;
  if (state.empty() || state == kIncoming) refs = IncomingRefs();
  for (Phase p : kAllPhases) {
    if (!state.empty() && state != PhaseName(p)) continue;
    const std::string dir = layout_.StateDir(p);
    std::vector<std::string> ids = Entries(dir);
    refs.reserve(refs.size() + ids.size());
    for (std::string& id : ids) {
      std::string path = dir + "/" + id;  // layout_.MissionDir(p, id)
      refs.push_back({std::move(id), std::string(PhaseName(p)), p, std::move(path)});
    }
  }
  auto by_id = [](const MissionRef& a, const MissionRef& b) { return a.id < b.id; };
  if (!std::is_sorted(refs.begin(), refs.end(), by_id))  // one state: sorted already
    std::stable_sort(refs.begin(), refs.end(), by_id);
  return refs;
}

std::optional<TimeMs> SpoolView::Mtime(const std::string& path) const {
  // A read-only stat: Env has no call for it and the CLI changes nothing here.
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return std::nullopt;
  return TimeMs(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

Result<json::Value> SpoolView::ReadJson(const std::string& path, size_t max_bytes) const {
  auto bytes = env_->ReadFile(path, max_bytes);
  if (!bytes.ok()) return bytes.status();
  auto v = json::Parse(*bytes);
  if (!v.ok()) return Status::Invalid("cannot read " + path + ": " + v.status().message());
  return v;
}

namespace {

// The string members names of the JSON text in bytes (json::StringMembers); nullopt when the file
// could not be read or is no JSON.
std::optional<std::vector<std::optional<std::string>>> Members(
    const Result<std::string>& bytes, std::initializer_list<std::string_view> names) {
  if (!bytes.ok()) return std::nullopt;
  auto m = json::StringMembers(*bytes, names);
  if (!m.ok()) return std::nullopt;
  return std::move(m).value();
}

}  // namespace

MissionRow SpoolView::Describe(const MissionRef& ref) const {
  return Describe(ref, nullptr);
}

MissionRow SpoolView::Describe(MissionRef ref, Env::Dir* state_dir) const {
  MissionRow row{std::move(ref), "", "", "", std::nullopt, {}, std::nullopt, std::nullopt, ""};
  const MissionRef& r = row.ref;
  // A file of the mission directory: below its state directory, held open, when given.
  auto read = [&](const std::string& name, size_t max_bytes) {
    return state_dir ? state_dir->ReadFile(r.id + "/" + name, max_bytes)
                     : env_->ReadFile(r.path + "/" + name, max_bytes);
  };
  std::string mission_file;  // relative to the mission directory; "" for a drop: r.path itself
  bool named = false;        // drone and requester known from intake.json
  if (r.phase) {
    mission_file = *r.phase == Phase::kRejected ? "mission.raw" : "mission.json";
    // intake.json names the drone and requester (hangar-spool(5)): one file per mission serves.
    // An older spool's does not, nor a rejected mission's: then the mission file says.
    if (auto intake = Members(read("intake.json", kMaxSmallFile), {"time", "drone", "requester"})) {
      std::optional<std::string>&time = (*intake)[0], &drone = (*intake)[1],
      &requester = (*intake)[2];
      row.time = ParseTime(time.value_or(""));
      if (drone && requester) {
        row.drone = std::move(*drone);
        row.requester = std::move(*requester);
        named = true;
      }
    }
    if (*r.phase == Phase::kReturned) {
      Result<std::string> bytes = read("return.json", kMaxReturnFile);
      Result<json::Value> ret =
          bytes.ok() ? json::Parse(*bytes) : Result<json::Value>(bytes.status());
      if (ret.ok() && ret->is_object()) {
        row.outcome = StringField(*ret, "outcome");
        if (const json::Value* t = ret->find("times"); t && t->is_object()) {
          row.started = ParseTime(StringField(*t, "started"));
          row.ended = ParseTime(StringField(*t, "ended"));
        }
      }
    }
    if (*r.phase == Phase::kRunning)
      if (auto launch = Members(read("launch.json", kMaxSmallFile), {"time"}))
        row.started = ParseTime((*launch)[0].value_or(""));
    if (*r.phase == Phase::kDenied || *r.phase == Phase::kRejected)
      if (auto why = Members(read("why.json", kMaxSmallFile), {"field", "reason"}))
        row.why =
            ((*why)[0] && !(*why)[0]->empty() ? *(*why)[0] + ": " : "") + (*why)[1].value_or("");
    if (*r.phase == Phase::kHold || *r.phase == Phase::kDenied) {
      auto gate = [&](const std::string& name) -> Result<json::Value> {
        Result<std::string> bytes = read(name, kMaxSmallFile);
        if (!bytes.ok()) return bytes.status();
        return json::Parse(*bytes);
      };
      Result<json::Value> g = gate("gate2.json");
      if (!g.ok()) g = gate("gate1.json");
      const json::Value* rules = g.ok() && g->is_object() ? g->find("rules") : nullptr;
      if (rules && rules->is_array())
        for (const json::Value& rule : rules->as_array())
          if (rule.is_string()) row.rules.push_back(rule.as_string());
    }
  }
  if (!named) {
    auto m = Members(mission_file.empty() ? env_->ReadFile(r.path, kMaxSmallFile)
                                          : read(mission_file, kMaxSmallFile),
                     {"drone", "requester"});
    if (m) {
      row.drone = (*m)[0].value_or("");
      row.requester = (*m)[1].value_or("");
    }
  }
  if (!row.time) row.time = Mtime(r.path);
  return row;
}

std::vector<MissionRow> SpoolView::DescribeAll(std::vector<MissionRef> refs) const {
  std::vector<MissionRow> rows(refs.size());
  // rows[begin, end), holding each state directory open once for all its missions in the range.
  auto describe = [&](size_t begin, size_t end) {
    std::map<Phase, std::unique_ptr<Env::Dir>> dirs;
    for (size_t i = begin; i < end; i++) {
      Env::Dir* dir = nullptr;
      if (const std::optional<Phase> p = refs[i].phase) {
        auto it = dirs.find(*p);
        if (it == dirs.end()) {
          Result<std::unique_ptr<Env::Dir>> d = env_->OpenDir(layout_.StateDir(*p));
          it = dirs.emplace(*p, d.ok() ? std::move(d).value() : nullptr).first;
        }
        dir = it->second.get();  // none when it cannot be opened: then by path, as Describe(ref)
      }
      rows[i] = Describe(std::move(refs[i]), dir);
    }
  };
  // Each file costs a few system calls, dear on a VM, and the threads share nothing but env_ (which
  // keeps no state): a large listing is cut into contiguous ranges, one thread each, in order.
  SplitAcross(refs.size(), kParallelFrom / 2,
              [&](size_t begin, size_t end, size_t) { describe(begin, end); });
  return rows;
}

std::vector<MissionRow> SpoolView::List(const std::string& state) const {
  return DescribeAll(Refs(state));
}

std::map<std::string, int> SpoolView::Counts() const {
  std::map<std::string, int> c;
  c[std::string(kIncoming)] = int(Entries(layout_.IncomingNew()).size());
  for (Phase p : kAllPhases)
    c[std::string(PhaseName(p))] = int(Entries(layout_.StateDir(p)).size());
  c["control"] = int(Entries(layout_.ControlNew()).size());
  c["purged"] = int(Entries(layout_.Purged()).size());  // tombstones
  return c;
}

std::optional<MissionRow> SpoolView::Oldest(Phase p) const {
  std::optional<MissionRow> best;
  for (MissionRow& row : DescribeAll(Refs(std::string(PhaseName(p))))) {
    if (!row.time) continue;
    if (!best || *row.time < *best->time)
      best = std::move(row);  // Refs is sorted: ties keep the smaller id
  }
  return best;
}

}  // namespace hangar::cli
