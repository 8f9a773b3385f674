#include "replay/replay_ledger.h"

namespace hangar::replay {

namespace {

constexpr size_t kBatch = 4096;

}  // namespace

ReplayLedger::ReplayLedger(Env* env, const std::string& dir, const std::string& name)
    : store_(env, dir, name), anchor_path_(dir + "/" + name + ".anchor"), name_(name) {}

Status ReplayLedger::Open() {
  if (Status s = store_.Open(); !s.ok()) return s;
  Result<ledger::Anchor> a = ledger::Anchor::Bind(store_.env(), anchor_path_, name_);
  if (!a.ok()) return a.status();
  anchor_.emplace(std::move(a).value());
  return Status::Ok();
}

Status ReplayLedger::Add(const Record& r, const Step& step) {
  json::Value body = r.body;
  if (!body.is_object()) body = json::Object{{"body", body}};
  body["replay_of"] = json::Object{{"line", step.n}, {"seq", r.seq}};
  drafts_.push_back(ledger::Draft{r.kind, std::move(body), r.time, false});
  return drafts_.size() >= kBatch ? Flush() : Status::Ok();
}

Status ReplayLedger::Flush() {
  if (drafts_.empty()) return Status::Ok();
  Result<std::vector<ledger::Entry>> es = store_.AppendBatch(drafts_);
  drafts_.clear();
  if (!es.ok()) return es.status();
  std::vector<ledger::AnchorMark> marks;
  for (const ledger::Entry& e : *es) marks.push_back({e.epoch, e.seq, e.hash});
  return anchor_->AppendBatch(marks);
}

}  // namespace hangar::replay
