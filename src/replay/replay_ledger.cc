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

ReplayLedger::~ReplayLedger() {
  (void)Wait();
}

Status ReplayLedger::Add(Record r, const Step& step) {
  json::Value body = std::move(r.body);
  if (!body.is_object()) body = json::Object{{"body", std::move(body)}};
  body["replay_of"] = json::Object{{"line", step.n}, {"seq", r.seq}};
  drafts_.push_back(ledger::Draft{std::move(r.kind), std::move(body), r.time, false});
  if (drafts_.size() < kBatch) return Status::Ok();
  if (Status s = Wait(); !s.ok()) return s;
  writing_ = std::move(drafts_);
  drafts_.clear();
  thread_ = std::thread([this] { written_ = Write(writing_); });
  return Status::Ok();
}

Status ReplayLedger::Wait() {
  if (thread_.joinable()) thread_.join();
  writing_.clear();
  return written_;
}

Status ReplayLedger::Write(const std::vector<ledger::Draft>& drafts) {
  Result<std::vector<ledger::Entry>> es = store_.AppendBatch(drafts);
  if (!es.ok()) return es.status();
  std::vector<ledger::AnchorMark> marks;
  marks.reserve(es->size());
  for (const ledger::Entry& e : *es) marks.push_back({e.epoch, e.seq, e.hash});
  return anchor_->AppendBatch(marks);
}

Status ReplayLedger::Flush() {
  if (Status s = Wait(); !s.ok()) return s;
  if (drafts_.empty()) return Status::Ok();
  Status s = Write(drafts_);
  drafts_.clear();
  return s;
}

}  // namespace hangar::replay
