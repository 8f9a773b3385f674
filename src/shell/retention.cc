#include "shell/retention.h"

#include <algorithm>

#include "base/id.h"

namespace hangar {

Result<std::vector<EndedMission>> EndedMissions(Env* env, const Layout& l,
                                                const std::vector<Phase>& phases) {
  std::vector<EndedMission> out;
  for (Phase p : phases) {
    if (!Terminal(p)) continue;
    Result<std::vector<Env::DirEntry>> entries = env->ListEntries(l.StateDir(p));
    if (!entries.ok() && entries.status().code() == Code::kNotFound) continue;
    if (!entries.ok()) return entries.status();
    std::vector<EndedMission> here;
    for (const Env::DirEntry& e : *entries) {
      if (!e.dir || !ValidId(e.name)) continue;
      const std::string dir = l.MissionDir(p, e.name);
      const std::string mark = dir + (p == Phase::kReturned ? "/return.json" : "/why.json");
      Result<Env::FileInfo> info = env->Lstat(mark);
      if (!info.ok()) info = env->Lstat(dir);
      if (!info.ok()) continue;  // gone while we looked
      here.push_back(EndedMission{e.name, p, info->modified});
    }
    std::sort(here.begin(), here.end(),
              [](const EndedMission& a, const EndedMission& b) { return a.id < b.id; });
    out.insert(out.end(), here.begin(), here.end());
  }
  return out;
}

std::vector<std::string> Expired(const std::vector<EndedMission>& missions, const Retention& r,
                                 TimeMs now) {
  std::vector<const EndedMission*> old;
  for (const EndedMission& m : missions) {
    const std::optional<TimeMs>& span = m.phase == Phase::kReturned ? r.returned
                                        : m.phase == Phase::kDenied ? r.denied
                                                                    : r.rejected;
    if (span && m.ended + *span <= now) old.push_back(&m);
  }
  std::stable_sort(old.begin(), old.end(), [](const EndedMission* a, const EndedMission* b) {
    return a->ended < b->ended;
  });
  std::vector<std::string> ids;
  for (const EndedMission* m : old) ids.push_back(m->id);
  return ids;
}

}  // namespace hangar
