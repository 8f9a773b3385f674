// RecordHarness: decides signals and records them as Daemon::Decided does (daemon/daemon.cc), on a
// real ledger and signal record in SPOOL, for the replay's tests and benchmark: each decision's
// line added and flushed, then its entries, each carrying the line's hash, staged after the head
// the line names and committed with its own decision or, as in a daemon's batch, a later one.
// Header only; nothing in the product uses it (hangard records through the daemon itself).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "env/env.h"
#include "kernel/kernel.h"
#include "kernel/setup_record.h"
#include "ledger/fold_books.h"
#include "ledger/signal_log.h"
#include "ledger/store.h"

namespace hangar::replay {

class RecordHarness {
 public:
  RecordHarness(Env* env, std::string spool, SetupFacts facts)
      : env_(env), spool_(std::move(spool)), facts_(std::move(facts)) {}

  // A start of hangard: the ledger and the record opened, a fresh state not yet ready but for the
  // books folded from the ledger (as hangard folds them), the start line written.
  Status Start(TimeMs ledger_time = 0) {
    store_ = std::make_unique<ledger::LedgerStore>(env_, spool_, "live");
    if (Status s = store_->Open(); !s.ok()) return s;
    log_ = std::make_unique<ledger::SignalLog>(env_, spool_, "live");
    std::string said;
    if (Status s = log_->Open(&said); !s.ok()) return s;
    Result<KernelSetup> setup = BuildSetup(facts_);
    if (!setup.ok()) return setup.status();
    setup_ = std::move(setup).value();
    state_ = State{};
    if (Status s = ledger::FoldBooks(*store_, &state_.grants, &state_.requesters, &state_.canaries);
        !s.ok())
      return s;
    state_.ledger_seq = store_->head_seq();
    state_.ledger_time = ledger_time;
    state_.ready = false;
    return log_->Start(facts_, store_->head_seq(), store_->head_hash(), ledger_time);
  }
  // kCommit: the entries written with those staged before; kStage: staged, for a later Step's
  // commit (a batch) or a Start that drops them (hangard stopped before the batch's entries);
  // kLose: the line alone, its entries never staged (hangard stopped after the line).
  enum class Entries { kCommit, kStage, kLose };
  Result<std::vector<Action>> Step(const Signal& sig, Entries entries = Entries::kCommit) {
    const int64_t seq = store_->staged_seq();
    const std::string hash = store_->staged_hash();
    std::vector<Action> acts = Decide(setup_, &state_, sig);
    Result<std::string> line = log_->Add(sig, acts, state_, seq, hash);
    if (!line.ok()) return line.status();
    if (Status s = log_->Flush(); !s.ok()) return s;
    std::vector<ledger::Draft> drafts;
    for (const Action& a : acts) {
      if (auto* r = std::get_if<Record>(&a)) {
        json::Value body = r->body;
        body["signal_record"] = *line;
        drafts.push_back(ledger::Draft{r->kind, std::move(body), r->time, r->new_epoch});
      }
    }
    if (entries != Entries::kLose && !drafts.empty())
      if (Result<std::vector<ledger::Entry>> es = store_->Stage(drafts); !es.ok())
        return es.status();
    if (entries == Entries::kCommit)
      if (Status s = store_->Commit(); !s.ok()) return s;
    return acts;
  }

 private:
  Env* env_;
  std::string spool_;
  SetupFacts facts_;
  KernelSetup setup_;
  State state_;
  std::unique_ptr<ledger::LedgerStore> store_;
  std::unique_ptr<ledger::SignalLog> log_;
};

}  // namespace hangar::replay
