#include "replay/replay_ledger.h"

namespace hangar::replay {

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
  (void)Close();
}

Status ReplayLedger::Add(Record r, const Step& step) {
  json::Value body = std::move(r.body);
  if (!body.is_object()) body = json::Object{{"body", std::move(body)}};
  body["replay_of"] = json::Object{{"line", step.n}, {"seq", r.seq}};
  drafts_.push_back(ledger::Draft{std::move(r.kind), std::move(body), r.time, false});
  if (drafts_.size() < kBatch) return Status::Ok();
  return Hand();
}

Status ReplayLedger::Hand() {
  std::unique_lock<std::mutex> lock(mu_);
  if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
  cv_.wait(lock, [&] { return waiting_.size() < kInFlight || !written_.ok(); });
  if (!written_.ok()) return written_;
  if (!drafts_.empty()) waiting_.push_back(std::move(drafts_));
  drafts_ = {};
  drafts_.reserve(kBatch);
  lock.unlock();
  cv_.notify_all();
  return Status::Ok();
}

void ReplayLedger::Run() {
  for (;;) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return closing_ || !waiting_.empty(); });
    if (waiting_.empty()) return;  // closing, and all written
    std::vector<ledger::Draft> batch = std::move(waiting_.front());
    lock.unlock();
    Status s = written_.ok() ? Write(std::move(batch)) : written_;  // after a failure: nothing more
    lock.lock();
    waiting_.pop_front();
    if (written_.ok()) written_ = s;
    lock.unlock();
    cv_.notify_all();
  }
}

Status ReplayLedger::Close() {
  std::unique_lock<std::mutex> lock(mu_);
  closing_ = true;
  lock.unlock();
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  return written_;
}

Status ReplayLedger::Write(std::vector<ledger::Draft> drafts) {
  Result<std::vector<ledger::Entry>> es = store_.AppendBatch(std::move(drafts));
  if (!es.ok()) return es.status();
  std::vector<ledger::AnchorMark> marks;
  marks.reserve(es->size());
  for (const ledger::Entry& e : *es) marks.push_back({e.epoch, e.seq, e.hash});
  return anchor_->AppendBatch(marks);
}

Status ReplayLedger::Flush() {
  if (Status s = Hand(); !s.ok()) return s;
  return Close();
}

}  // namespace hangar::replay
