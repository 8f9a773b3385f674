#include "replay/replayer.h"

#include <algorithm>

#include "kernel/decision_digest.h"
#include "kernel/setup_record.h"
#include "kernel/signal_record.h"
#include "ledger/entry.h"
#include "ledger/store.h"
#include "replay/comparer.h"
#include "replay/read_ahead.h"

namespace hangar::replay {

namespace {

Status BadLedgerLink(int64_t n, int64_t seq, const std::string& hash, const LiveLedger& live) {
  const LiveEntry* e = live.At(seq);
  return Status::Invalid(
      "signal record line " + std::to_string(n) + " follows ledger seq " + std::to_string(seq) +
      " (hash " + hash + "), but the ledger " +
      (seq > live.head()
           ? "ends at seq " + std::to_string(live.head())
           : "holds hash " + (e ? e->hash : std::string(ledger::kGenesisPrev)) + " there") +
      ": the record is not this ledger's history");
}

bool Linked(int64_t seq, const std::string& hash, const LiveLedger& live) {
  if (seq == 0) return hash == ledger::kGenesisPrev;
  const LiveEntry* e = live.At(seq);
  return e && e->hash == hash;
}

}  // namespace

const char* StepClassName(StepClass c) {
  switch (c) {
    case StepClass::kSame:
      return "same";
    case StepClass::kDecisionDiffers:
      return "decision differs";
    case StepClass::kStateDiffers:
      return "state differs only";
    case StepClass::kExtra:
      return "extra";
    case StepClass::kMissing:
      return "missing";
  }
  return "?";
}

Result<Summary> Replay(ledger::SignalReader& reader, const LiveLedger& live,
                       const ReplayOptions& options, const StepSink& step_out,
                       const RecordSink& record_out) {
  Summary sum;
  std::optional<KernelSetup> setup;
  State st;
  int64_t unfinished = 0;       // a line whose entries never reached the ledger (0: none)
  std::string unfinished_why;   // what the ledger holds where its entries would be
  int64_t unfinished_head = 0;  // from it on: the staged head the next line of its batch follows
  int64_t unfinished_from = 0;  // and the head its batch followed
  bool new_start = false;       // a start line came: the comparer compares the shared state anew
  int64_t covered = 0;          // the ledger's seqs the lines read account for
  bool stopped_early = false;   // --to: the rest of the record is not read
  ReadAhead ahead(&reader);
  Comparer compare(step_out, record_out);
  // A refusal comes after the steps before it, and after a record sink's failure among them.
  auto refused = [&](Status s) {
    Summary ignored;
    Status c = compare.Finish(&ignored);
    return c.ok() ? s : c;
  };
  for (;;) {
    Result<std::optional<ledger::Line>> next = ahead.Next();
    if (!next.ok()) return refused(next.status());
    std::optional<ledger::Line> cur = std::move(next).value();
    if (!cur) break;
    if (auto* s = std::get_if<ledger::StartLine>(&*cur)) {
      if (!Linked(s->ledger_seq, s->ledger_hash, live))
        return refused(BadLedgerLink(s->n, s->ledger_seq, s->ledger_hash, live));
      unfinished = 0;
      new_start = true;
      covered = std::max(covered, s->ledger_seq);
      SetupFacts facts = s->facts;
      if (!options.policy_file.empty()) {
        facts.policy_file = options.policy_file;
        facts.policy_text = options.policy_text;
      }
      if (!options.config_file.empty()) {
        facts.config_file = options.config_file;
        facts.config_text = options.config_text;
      }
      Result<KernelSetup> built = BuildSetup(facts);
      if (!built.ok())
        return refused(Status::Invalid("start line " + std::to_string(s->n) + ": " +
                                       built.status().message()));
      setup = std::move(built).value();
      setup->file_texts = false;  // nothing here writes them, and no decision reads them
      st = State{};
      st.ledger_seq = s->ledger_seq;
      st.ledger_time = s->ledger_time;
      st.ready = false;  // as hangard starts: nothing launches before recovery is over
      Result<GrantBook> grants = live.GrantsAt(s->ledger_seq);
      if (!grants.ok()) return refused(grants.status());
      st.grants = std::move(grants).value();
      Result<RequesterBook> requesters = live.RequestersAt(s->ledger_seq);
      if (!requesters.ok()) return refused(requesters.status());
      st.requesters = std::move(requesters).value();
      Result<CanaryBook> canaries = live.CanariesAt(s->ledger_seq);
      if (!canaries.ok()) return refused(canaries.status());
      st.canaries = std::move(canaries).value();
      ++sum.starts;
      if (std::find(sum.builds.begin(), sum.builds.end(), s->build) == sum.builds.end())
        sum.builds.push_back(s->build);
      continue;
    }
    ledger::SignalLine& line = std::get<ledger::SignalLine>(*cur);
    if (!setup)
      return refused(Status::Invalid("signal record line " + std::to_string(line.n) +
                                     ": a signal before any start line"));
    if (line.ledger_seq >= options.to) {
      stopped_early = true;
      break;
    }
    // After a line whose entries never reached the ledger, the rest of its start is the rest of
    // its batch: lines written with it, whose entries went nowhere either (daemon/daemon.h, THE
    // BATCH). Each follows the one before on the ledger as staged, which the ledger never held.
    if (unfinished) {
      if (const LiveEntry* e = live.At(line.ledger_seq + 1);
          line.records > 0 && e && e->signal_record == line.hash)
        return refused(
            Status::Invalid("signal record line " + std::to_string(unfinished) +
                            ": its decision's ledger entries are not on the ledger (" +
                            unfinished_why + "), yet line " + std::to_string(line.n) +
                            ", decided after it by the same start, has its entries there: the "
                            "record is not this ledger's history"));
      if (line.ledger_seq + line.records - unfinished_from > ledger::kMaxBatchEntries)
        return refused(Status::Invalid("signal record lines " + std::to_string(unfinished) + ".." +
                                       std::to_string(line.n) +
                                       " have no entries on the ledger, more "
                                       "than one batch of hangard holds (" +
                                       std::to_string(ledger::kMaxBatchEntries) +
                                       "): the record is not this ledger's history"));
      if (line.ledger_seq != unfinished_head)
        return refused(Status::Invalid(
            "signal record line " + std::to_string(line.n) + " follows ledger seq " +
            std::to_string(line.ledger_seq) + ", but the unwritten batch before it (from line " +
            std::to_string(unfinished) + ") ends at seq " + std::to_string(unfinished_head) +
            ": the record is not this ledger's history"));
    } else if (!Linked(line.ledger_seq, line.ledger_hash, live)) {
      return refused(BadLedgerLink(line.n, line.ledger_seq, line.ledger_hash, live));
    }
    Decided d;
    Step& step = d.step;
    step.n = line.n;
    step.ledger_seq = line.ledger_seq;
    step.time = std::visit([](const auto& x) { return x.now; }, line.signal);
    std::vector<std::string> live_rules;
    if (line.records > 0) {
      const LiveEntry* first = live.At(line.ledger_seq + 1);
      step.committed = first && first->signal_record == line.hash;
      if (!step.committed) {
        if (!unfinished) {
          unfinished = line.n;
          unfinished_from = line.ledger_seq;
          unfinished_why =
              !first ? "the ledger ends at seq " + std::to_string(live.head())
                     : "seq " + std::to_string(line.ledger_seq + 1) + " is another decision's";
        }
        ++sum.uncommitted;
      }
      for (int64_t i = 1; step.committed && i <= line.records; ++i) {
        const LiveEntry* e = live.At(line.ledger_seq + i);
        if (!e || e->signal_record != line.hash)
          return refused(Status::Invalid("ledger seq " + std::to_string(line.ledger_seq + i) +
                                         " should be entry " + std::to_string(i) + " of " +
                                         std::to_string(line.records) + " of signal record line " +
                                         std::to_string(line.n) +
                                         ", but it does not name that line"));
        d.live_kinds.push_back(e->kind);
        if (!e->id.empty()) d.live_ids.push_back(e->id);
        if (!e->verdict.empty()) live_rules.push_back(e->verdict);
      }
    }
    covered = std::max(covered, line.ledger_seq + (step.committed ? line.records : 0));
    if (unfinished) unfinished_head = line.ledger_seq + line.records;
    st.ledger_seq = line.ledger_seq;  // the live numbering: see replayer.h
    d.acts = Decide(*setup, &st, line.signal);
    step.signal = SignalKind(line.signal);
    step.missions = TouchedIds(line.signal, d.acts);
    d.state_text = StepText(st, step.missions);  // over the ids the live one used
    d.global_text = GlobalText(st);
    step.was = step.committed ? Joined(d.live_kinds) : "(not on the ledger: hangard stopped first)";
    step.rules_was = Joined(live_rules);
    d.live_decision = std::move(line.decision);
    d.live_state = std::move(line.state);
    d.live_global = std::move(line.global);
    d.live_acts = line.acts;
    d.new_start = new_start;
    new_start = false;
    d.in_range =
        line.ledger_seq + 1 >= options.from && (!options.since || step.time >= *options.since);
    ++sum.fed;
    compare.Push(std::move(d));
    if (compare.failed()) break;
  }
  if (Status c = compare.Finish(&sum); !c.ok()) return c;
  ahead.Finish();  // the reader is this thread's again
  // Every entry a decision made names its line, written with it (the line first, and a start cuts
  // entries whose lines a crash took): one past the lines read means the record was cut, unless
  // hangard wrote it after the record was opened.
  if (int64_t seq = live.FirstNamingALine(covered); seq && !stopped_early && !reader.grown())
    return Status::Invalid("ledger seq " + std::to_string(seq) +
                           " names a signal record line after the record's last (" + reader.path() +
                           " ends early: cut or lost)");
  return sum;
}

}  // namespace hangar::replay
