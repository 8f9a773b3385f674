#include "cli/ending.h"

#include "cli/exit_code.h"

namespace hangar::cli {

Result<std::optional<Ending>> LookForEnding(const SpoolView& view, const Layout& l,
                                            const std::string& id) {
  auto ret =
      view.ReadJson(l.MissionDir(Phase::kReturned, id) + "/return.json", SpoolView::kMaxReturnFile);
  if (ret.ok()) {
    const std::string outcome = StringField(*ret, "outcome");
    return std::optional<Ending>(Ending{outcome == "done" ? kExitOk : kExitNotDone, *ret,
                                        id + " " + (outcome.empty() ? "(no outcome)" : outcome)});
  }
  if (ret.status().code() != Code::kNotFound) return ret.status();
  for (Phase p : {Phase::kDenied, Phase::kRejected}) {
    const std::string dir = l.MissionDir(p, id);
    auto why = view.ReadJson(dir + "/why.json");
    if (!why.ok() && !view.Exists(dir)) continue;
    json::Object doc;
    doc["hangar"] = 1;
    doc["id"] = id;
    doc["state"] = std::string(PhaseName(p));
    doc["outcome"] = std::string(PhaseName(p));
    doc["why"] = why.ok() ? *why : json::Value();
    std::string line = id + " " + std::string(PhaseName(p));
    if (why.ok()) {
      const std::string field = StringField(*why, "field");
      line += ": " + (field.empty() ? "" : field + ": ") + StringField(*why, "reason");
    }
    return std::optional<Ending>(Ending{kExitNotDone, doc, line});
  }
  return std::optional<Ending>();
}

}  // namespace hangar::cli
