// Replayer: feeds the recorded signals, in order, to this binary's decide() and compares, after
// every one, the decision and the state with what the live kernel recorded (man/hangar.1 REPLAY).
//
// Each start line (a start of hangard) begins from a fresh State not yet ready, as hangard did: the
// ledger's head and time as recorded, the grants folded from the live ledger up to that head, the
// setup built from the recorded facts (kernel/setup_record.h), or from them with the policy or
// config the replay was given. Before each signal the replay's ledger head is put where the live
// one was, so its entries carry the live seqs and a decision that differs does not shift the rest.
//
// What is checked and refused (Invalid: the record cannot be trusted) rather than reported as a
// difference: a signal line or start line naming a ledger entry (seq, hash) the live ledger does
// not hold; a decision whose ledger entries do not all carry its line's hash; a decision whose
// entries never reached the ledger followed, in the same start, by one whose entries did, or by a
// line that does not follow it on the ledger as staged. A crash that keeps a batch's lines and
// not its entries (daemon/daemon.h, THE BATCH) is the only way to have lines without their
// entries: they are then the last of their start, each following the one before as staged. (The
// other way round, entries without their lines, a power loss can leave until the next start of
// hangard cuts them; a replay before that start refuses the record as cut.)
//
// Each step is classified: same; decision differs (its actions, DecisionText, differ); state
// differs only (same actions, another state digest: e.g. another rule gave the same verdict);
// extra (the replay decides acts where the live kernel decided none); missing (the reverse).
// The state compared is the decision's missions and the grants (StepDigest) and, where it first
// stops matching, the shared rest (GlobalDigest: the queue, the slots, the counter...), which a
// decision that differs changes for every step after it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernel/kernel.h"
#include "ledger/signal_reader.h"
#include "replay/live_ledger.h"

namespace hangar::replay {

enum class StepClass { kSame, kDecisionDiffers, kStateDiffers, kExtra, kMissing };
const char* StepClassName(StepClass c);

struct Step {
  int64_t n = 0;           // the signal line
  int64_t ledger_seq = 0;  // the ledger head the live decision followed
  TimeMs time = 0;         // the signal's clock
  std::string signal;      // its kind (dropped, control, ...)
  std::vector<std::string> missions;
  StepClass cls = StepClass::kSame;
  bool committed = true;   // its entries reached the live ledger (false: hangard stopped first)
  std::string was, would;  // the ledger entries' kinds, live and replayed
  std::string rules_was, rules_would;  // the rules they name
  bool widening = false;  // more is allowed than was: deny/hold -> allow, a grant now in force
  std::string part;       // what differs: the actions, the gate's rules, the shared state...
};

// The counts are of the steps in range (--from, --since); fed counts every signal decided.
struct Summary {
  int64_t fed = 0;
  int64_t signals = 0, same = 0, differ = 0, state_only = 0, uncommitted = 0, starts = 0;
  int64_t widening = 0;
  std::optional<Step> first_divergence;
  std::vector<std::string> builds;  // the kernel builds that decided the record, once each
};

struct ReplayOptions {
  // Put in place of the recorded ones at every start (empty file: the recorded one).
  std::string policy_file, policy_text, config_file, config_text;
  int64_t from = 0;             // report steps from the one that wrote ledger seq FROM on
  int64_t to = INT64_MAX;       // stop after the steps up to ledger seq TO
  std::optional<TimeMs> since;  // report steps whose signal came at or after this time
};

using StepSink = std::function<void(const Step&)>;
// Each Record is handed over (moved): the sink may keep it.
using RecordSink = std::function<Status(Record, const Step&)>;

// Every step goes to STEP (those in range), every Record the replay decided to RECORD, in order,
// both called from the replay's comparing thread (replay/comparer.h), never at once; the first
// failure RECORD returns ends the replay with it.
// READER must have been opened before LIVE was loaded (a running hangard appends to both): every
// line it reads was then written before the ledger was read, so the head each names is in it and
// only the last one's own entries can be missing. Entries past the last line read must name no
// line, unless the record has grown since it was opened (hangard wrote on); else it was cut.
Result<Summary> Replay(ledger::SignalReader& reader, const LiveLedger& live,
                       const ReplayOptions& options, const StepSink& step,
                       const RecordSink& record);

}  // namespace hangar::replay
