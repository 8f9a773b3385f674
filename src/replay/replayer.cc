#include "replay/replayer.h"

#include <algorithm>
#include <set>

#include "base/sha256.h"
#include "kernel/setup_record.h"
#include "kernel/signal_record.h"
#include "ledger/entry.h"
#include "ledger/store.h"
#include "replay/read_ahead.h"

namespace hangar::replay {

namespace {

const std::set<std::string> kRestrictive = {"mission.held", "mission.denied", "mission.rejected",
                                            "op.refused", "control.refused"};
const std::set<std::string> kPermissive = {"mission.accepted", "mission.launched", "op.allowed",
                                           "grant", "person.approved"};

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::string RulesOf(const json::Value& body) {
  std::vector<std::string> out;
  if (const json::Value* r = body.find("rules"); r && r->is_array())
    for (const json::Value& x : r->as_array())
      if (x.is_string()) out.push_back(x.as_string());
  if (const json::Value* r = body.find("rule"); r && r->is_string() && !r->as_string().empty())
    out.push_back(r->as_string());
  return Join(out);
}

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
  bool global_differs = false;  // the shared state differs already: reported where it began
  int64_t covered = 0;          // the ledger's seqs the lines read account for
  bool stopped_early = false;   // --to: the rest of the record is not read
  ReadAhead ahead(&reader);
  for (;;) {
    Result<std::optional<ledger::Line>> next = ahead.Next();
    if (!next.ok()) return next.status();
    std::optional<ledger::Line> cur = std::move(next).value();
    if (!cur) break;
    if (auto* s = std::get_if<ledger::StartLine>(&*cur)) {
      if (!Linked(s->ledger_seq, s->ledger_hash, live))
        return BadLedgerLink(s->n, s->ledger_seq, s->ledger_hash, live);
      unfinished = 0;
      global_differs = false;
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
        return Status::Invalid("start line " + std::to_string(s->n) + ": " +
                               built.status().message());
      setup = std::move(built).value();
      st = State{};
      st.ledger_seq = s->ledger_seq;
      st.ledger_time = s->ledger_time;
      st.ready = false;  // as hangard starts: nothing launches before recovery is over
      Result<GrantBook> grants = live.GrantsAt(s->ledger_seq);
      if (!grants.ok()) return grants.status();
      st.grants = std::move(grants).value();
      Result<RequesterBook> requesters = live.RequestersAt(s->ledger_seq);
      if (!requesters.ok()) return requesters.status();
      st.requesters = std::move(requesters).value();
      Result<CanaryBook> canaries = live.CanariesAt(s->ledger_seq);
      if (!canaries.ok()) return canaries.status();
      st.canaries = std::move(canaries).value();
      ++sum.starts;
      if (std::find(sum.builds.begin(), sum.builds.end(), s->build) == sum.builds.end())
        sum.builds.push_back(s->build);
      continue;
    }
    ledger::SignalLine& line = std::get<ledger::SignalLine>(*cur);
    if (!setup)
      return Status::Invalid("signal record line " + std::to_string(line.n) +
                             ": a signal before any start line");
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
        return Status::Invalid("signal record line " + std::to_string(unfinished) +
                               ": its decision's ledger entries are not on the ledger (" +
                               unfinished_why + "), yet line " + std::to_string(line.n) +
                               ", decided after it by the same start, has its entries there: the "
                               "record is not this ledger's history");
      if (line.ledger_seq + line.records - unfinished_from > ledger::kMaxBatchEntries)
        return Status::Invalid("signal record lines " + std::to_string(unfinished) + ".." +
                               std::to_string(line.n) +
                               " have no entries on the ledger, more "
                               "than one batch of hangard holds (" +
                               std::to_string(ledger::kMaxBatchEntries) +
                               "): the record is not this ledger's history");
      if (line.ledger_seq != unfinished_head)
        return Status::Invalid(
            "signal record line " + std::to_string(line.n) + " follows ledger seq " +
            std::to_string(line.ledger_seq) + ", but the unwritten batch before it (from line " +
            std::to_string(unfinished) + ") ends at seq " + std::to_string(unfinished_head) +
            ": the record is not this ledger's history");
    } else if (!Linked(line.ledger_seq, line.ledger_hash, live)) {
      return BadLedgerLink(line.n, line.ledger_seq, line.ledger_hash, live);
    }
    Step step;
    step.n = line.n;
    step.ledger_seq = line.ledger_seq;
    step.time = std::visit([](const auto& x) { return x.now; }, line.signal);
    std::vector<std::string> live_kinds, live_rules, live_ids;
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
          return Status::Invalid("ledger seq " + std::to_string(line.ledger_seq + i) +
                                 " should be entry " + std::to_string(i) + " of " +
                                 std::to_string(line.records) + " of signal record line " +
                                 std::to_string(line.n) + ", but it does not name that line");
        live_kinds.push_back(e->kind);
        if (!e->id.empty()) live_ids.push_back(e->id);
        if (!e->verdict.empty()) live_rules.push_back(e->verdict);
      }
    }
    covered = std::max(covered, line.ledger_seq + (step.committed ? line.records : 0));
    if (unfinished) unfinished_head = line.ledger_seq + line.records;
    st.ledger_seq = line.ledger_seq;  // the live numbering: see replayer.h
    std::vector<Action> acts = Decide(*setup, &st, line.signal);
    std::vector<std::string> kinds, rules;
    const bool acts_at_all = Acts(acts);
    for (const Action& a : acts) {
      if (auto* r = std::get_if<Record>(&a)) {
        kinds.push_back(r->kind);
        if (std::string ru = RulesOf(r->body); !ru.empty()) rules.push_back(ru);
      }
    }
    step.signal = SignalKind(line.signal);
    step.missions = TouchedIds(line.signal, acts);
    const std::string state = StepDigest(st, step.missions);  // over the ids the live one used
    // The missions named: the replay's and those of the live decision's entries.
    for (const std::string& id : live_ids)
      if (std::find(step.missions.begin(), step.missions.end(), id) == step.missions.end())
        step.missions.push_back(id);
    std::sort(step.missions.begin(), step.missions.end());
    step.was = step.committed ? Join(live_kinds) : "(not on the ledger: hangard stopped first)";
    step.would = Join(kinds);
    step.rules_was = Join(live_rules);
    step.rules_would = Join(rules);
    const bool decision_same = Sha256Hex(DecisionText(acts)) == line.decision;
    for (Action& a : acts)
      if (auto* r = std::get_if<Record>(&a))
        if (Status s = record_out(std::move(*r), step); !s.ok()) return s;
    const bool state_same = state == line.state;
    const bool global_same = GlobalDigest(st) == line.global;
    const bool global_began = !global_same && !global_differs;
    global_differs = !global_same;
    if (!decision_same)
      step.cls = !line.acts && acts_at_all   ? StepClass::kExtra
                 : line.acts && !acts_at_all ? StepClass::kMissing
                                             : StepClass::kDecisionDiffers;
    else if (!state_same || global_began)
      step.cls = StepClass::kStateDiffers;
    // Which part: the digests say no more, what the entries name does.
    if (step.cls != StepClass::kSame)
      step.part = !decision_same                       ? "the actions"
                  : step.rules_was != step.rules_would ? "the gate's rules"
                  : !state_same                        ? "the missions' state or the grants"
                                                       : "the shared state (queue, slots, counter)";
    for (const std::string& k : kinds)
      if (kPermissive.count(k) &&
          std::find(live_kinds.begin(), live_kinds.end(), k) == live_kinds.end() &&
          std::any_of(live_kinds.begin(), live_kinds.end(),
                      [](const std::string& l) { return kRestrictive.count(l) > 0; }))
        step.widening = true;
    ++sum.fed;
    const bool in_range =
        line.ledger_seq + 1 >= options.from && (!options.since || step.time >= *options.since);
    if (!in_range) continue;  // fed for the state it leaves, not reported or counted
    ++sum.signals;
    if (step.cls == StepClass::kSame) {
      ++sum.same;
    } else {
      ++sum.differ;
      sum.state_only += step.cls == StepClass::kStateDiffers;
      sum.widening += step.widening;
      if (!sum.first_divergence) sum.first_divergence = step;
    }
    step_out(step);
  }
  ahead.Finish();  // the reader is this thread's again
  // Every entry a decision made names its line, written before it: one past the lines read means
  // the record was cut, unless hangard wrote it after the record was opened.
  if (int64_t seq = live.FirstNamingALine(covered); seq && !stopped_early && !reader.grown())
    return Status::Invalid("ledger seq " + std::to_string(seq) +
                           " names a signal record line after the record's last (" + reader.path() +
                           " ends early: cut or lost)");
  return sum;
}

}  // namespace hangar::replay
