#include "cli/spool_view.h"

#include <sys/stat.h>

#include <algorithm>

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
  std::vector<std::string> out;
  for (std::string& n : names.value())
    if (!n.starts_with(".")) out.push_back(std::move(n));
  return out;
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
  return Status::NotFound("no such mission in " + layout_.spool);
}

std::vector<MissionRef> SpoolView::Refs(const std::string& state) const {
  std::vector<MissionRef> refs;
  if (state.empty() || state == kIncoming) refs = IncomingRefs();
  for (Phase p : kAllPhases) {
    if (!state.empty() && state != PhaseName(p)) continue;
    for (const std::string& id : Entries(layout_.StateDir(p)))
      refs.push_back({id, std::string(PhaseName(p)), p, layout_.MissionDir(p, id)});
  }
  std::stable_sort(refs.begin(), refs.end(),
                   [](const MissionRef& a, const MissionRef& b) { return a.id < b.id; });
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

MissionRow SpoolView::Describe(const MissionRef& ref) const {
  MissionRow row{ref, "", "", "", std::nullopt, {}};
  std::string mission_file = ref.path;
  if (ref.phase) {
    mission_file = ref.path + (*ref.phase == Phase::kRejected ? "/mission.raw" : "/mission.json");
    if (auto intake = ReadJson(ref.path + "/intake.json"); intake.ok())
      row.time = ParseTime(StringField(*intake, "time"));
    if (*ref.phase == Phase::kReturned)
      if (auto ret = ReadJson(ref.path + "/return.json", kMaxReturnFile); ret.ok())
        row.outcome = StringField(*ret, "outcome");
    if (*ref.phase == Phase::kHold || *ref.phase == Phase::kDenied) {
      Result<json::Value> gate = ReadJson(ref.path + "/gate2.json");
      if (!gate.ok()) gate = ReadJson(ref.path + "/gate1.json");
      const json::Value* rules = gate.ok() ? gate->find("rules") : nullptr;
      if (rules && rules->is_array())
        for (const json::Value& r : rules->as_array())
          if (r.is_string()) row.rules.push_back(r.as_string());
    }
  }
  if (auto m = ReadJson(mission_file); m.ok()) {
    row.drone = StringField(*m, "drone");
    row.requester = StringField(*m, "requester");
  }
  if (!row.time) row.time = Mtime(ref.path);
  return row;
}

std::vector<MissionRow> SpoolView::List(const std::string& state) const {
  std::vector<MissionRow> rows;
  for (const MissionRef& r : Refs(state)) rows.push_back(Describe(r));
  return rows;
}

std::map<std::string, int> SpoolView::Counts() const {
  std::map<std::string, int> c;
  c[std::string(kIncoming)] = int(Entries(layout_.IncomingNew()).size());
  for (Phase p : kAllPhases)
    c[std::string(PhaseName(p))] = int(Entries(layout_.StateDir(p)).size());
  c["control"] = int(Entries(layout_.ControlNew()).size());
  return c;
}

std::optional<MissionRow> SpoolView::Oldest(Phase p) const {
  std::optional<MissionRow> best;
  for (const MissionRef& r : Refs(std::string(PhaseName(p)))) {
    MissionRow row = Describe(r);
    if (!row.time) continue;
    if (!best || *row.time < *best->time)
      best = std::move(row);  // Refs is sorted: ties keep the smaller id
  }
  return best;
}

}  // namespace hangar::cli
