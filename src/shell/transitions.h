// The shell's spool transitions: each kernel action that moves a mission between state directories,
// done as a sequence of durable steps (Env) so that a crash between any two steps leaves the spool
// in a state the next start understands (docs/ARCHITECTURE.md "Ids and intake", "Keys").
// A non-Ok Status is an I/O failure of the spool itself: hangard stops its work (daemon/daemon.h)
// rather than guess; the directories stay the truth for the next start.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "env/env.h"
#include "kernel/kernel.h"
#include "kernel/layout.h"

namespace hangar {

// incoming/new/NAME -> STATE/ID with the kernel's files (raw bytes moved, never copied):
// PerformIntakes of this one.
Status PerformIntake(Env* env, const Layout& l, const Intake& in);

// A batch's intakes (the drops one turn took), each as above, with the directory fsyncs they share
// made once for all: the fsyncs of an intake are those of its state directory, of its own .ID.tmp
// and of incoming/new, so N intakes into queued/ make 3 + 3N fsyncs instead of 6N. Each step is
// taken for every intake before the next step, and each sync comes before anything relies on it,
// as for one intake alone:
//   1. STATE/.ID.tmp made (MakeDirVisible); 2. the state directories fsynced: the .ID.tmp
//   directories are durable before a drop moves into them, and never vanish with it; 3. the
//   kernel's files written into .ID.tmp, each fsynced, their names not yet (steps 2 and 3 are one
//   WriteTogether: the directories' and the files' fsyncs wait at once); 4. the drop renamed into
//   .ID.tmp (RenameLater); 5. every .ID.tmp (at once) and then incoming/new fsynced: the drop's
//   new name durable before its old one's removal; 6. .ID.tmp renamed to STATE/ID (RenameLater);
//   7. the state directories fsynced.
// Until step 7 a crash or a power loss leaves .ID.tmp directories (RecoverIntakes puts their drops
// back) or drops still in incoming/new, never a mission lost or in two places. INS must name
// distinct STATE/.ID.tmp directories. A step of one intake that fails for want of space
// (NoSpace) drops that intake from the steps after it and is put in its slot of NO_SPACE (sized as
// INS; Ok for the others), for UndoIntake. Any other failure, and a failed sync whatever its
// errno, stops every step after its own and is returned (hangard's work stops; a failed sync of
// step 2 comes with step 3's files written, which the undo or the next start's recovery removes
// with their .ID.tmp); when it came between steps 4 and 5, the drops already moved are synced
// where they are first, best effort.
// With UNSYNCED, step 7 leaves the state directory LATER out of its fsync and appends it to
// *UNSYNCED: the caller syncs it before anything relies on those intakes (hangard hands it to the
// first wait of the batch's launch, PrepareLaunches' SYNC_FIRST, which a launch out of queued/
// needs before its key anyway; a power loss before that sync leaves .ID.tmp, as above).
Status PerformIntakes(Env* env, const Layout& l, const std::vector<const Intake*>& ins,
                      std::vector<Status>* no_space, const std::string& later = "",
                      std::vector<std::string>* unsynced = nullptr);
// PerformIntakes in two halves, for a caller with something to do between them.
// BeginIntakes: steps 1 to 5, each drop moved into its STATE/.ID.tmp with the kernel's files, all
// durable; nothing a reader takes for a mission yet (a start puts those drops back,
// RecoverIntakes), so it may go before or alongside the decision's ledger entries (hangard,
// Env::Alongside): a crash before the entries are durable leaves a drop that is decided again, as
// one before the intake. Fills NO_SPACE as PerformIntakes does; a failure is returned as there.
// MADE (when given) is called with the index of each intake whose .ID.tmp is made, after step 1,
// beside the first wait (Env::Alongside: MADE on the caller's thread): hangard begins there the
// launch of a drop its batch takes in and launches at once (PlaceLaunchAtIntake; daemon/daemon.h,
// LAUNCHES BEGUN AT INTAKE).
Status BeginIntakes(Env* env, const Layout& l, const std::vector<const Intake*>& ins,
                    std::vector<Status>* no_space,
                    const std::function<void(size_t)>& made = nullptr);
// FinishIntakes: steps 6 and 7 for the intakes BeginIntakes took through (Ok in NO_SPACE, which
// a rename that fails for want of space sets), LATER and UNSYNCED as PerformIntakes'.
Status FinishIntakes(Env* env, const Layout& l, const std::vector<const Intake*>& ins,
                     std::vector<Status>* no_space, const std::string& later = "",
                     std::vector<std::string>* unsynced = nullptr);

// True when s says the disk or the quota is full (ENOSPC, EDQUOT): an intake that fails so waits
// for space (the drop stays in incoming/new); any other failure of the spool stops hangard's work.
bool NoSpace(const Status& s);

// The places of launch X begun at its intake IN, in its STATE/.ID.tmp (BeginIntakes' MADE):
// .ID.tmp/run with prompt.md first, then the room (rooms/ID, ops/, the profile's room_dirs,
// MISSION.md): what BeginLaunches makes, by the same steps, in the other order (there a room that
// fails must stop the launch before run/). So an unfinished intake holding no run/ made no room,
// and one holding run/ may have: UndoIntake and RecoverIntakes then remove both. Nothing a reader
// takes for a launch: the mission is not in queued/ yet. The run directory made, or the first
// failure (the launch is then not begun there; BeginLaunches meets what is left, after the
// records, as for any launch).
Result<std::string> PlaceLaunchAtIntake(Env* env, const Layout& l, const Intake& in,
                                        const Launch& x);

// After PerformIntake failed: puts the raw file back into incoming/new (as NAME, or
// NAME.recovered.N when a newer drop took that name) when it went into STATE/.ID.tmp, and removes
// .ID.tmp, its run/ (a launch begun at intake) with everything in it, and then the room that
// launch made (rooms/ID, unless a mission ID stands in a state directory). Best effort, every step
// tried; the first failure is returned (the next start's RecoverIntakes finishes the job).
// NotFound when the intake is done after all (STATE/ID exists): its failure came after the last
// rename, and the mission is where the kernel put it.
Status UndoIntake(Env* env, const Layout& l, const Intake& in);

// Puts back every intake cut short by a crash (STATE/.ID.tmp directories, first all fsynced): the
// raw file returns to incoming/new under its name (or NAME.recovered.N when a newer drop took that
// name meanwhile), and the .ID.tmp goes with its run/ and that launch's room, as in UndoIntake.
// Then finishes every move to returned/ cut short after return.json was written (a live state
// directory holding a return.json), except a retry cut short before its last step (queued/ID with
// retry.json, shell/retry.h FinishRetry), which is completed instead. A return out of running/
// writes its return.json before its mission.returned entry is durable (BeginReturns): such a
// move is finished only when BACKED says the ledger holds that entry (given the mission's id and
// return.json's bytes); else return.json is removed, and the start observes the ended drone
// again, as after a crash before it was written. Returns what it did, a line each.
using ReturnBacked = std::function<bool(const std::string& id, const std::string& text)>;
Result<std::vector<std::string>> RecoverIntakes(Env* env, const Layout& l,
                                                const ReturnBacked& backed);

// Writes the files into FROM/ID and renames it to TO/ID, each durable before the next: TO/ID is
// never durable without its files (a returned mission without its return.json), as it could be
// if FROM/ID and TO were fsynced at once and a power loss came between the two. WRITTEN: the
// files are already there, durable (BeginReturns); the rename alone is left.
Status PerformMove(Env* env, const Layout& l, const Move& mv, bool written = false);

// True for a move whose files may be written before its decision's entries are durable: a return
// out of running/ (return.json into running/ID, which no reader takes for a returned mission; a
// start finishes the move only when the ledger backs it, RecoverIntakes).
bool BeginsEarly(const Move& mv);
// The first half of PerformMove for each of MOVES (BeginsEarly): their files written into
// FROM/ID, their data fsynced at once, then their directories at once. So it may go alongside the
// entries of their decisions (hangard, Env::Alongside), and PerformMove(WRITTEN) after them.
// One status a move: a directory that failed, or the sync that failed for all.
std::vector<Status> BeginReturns(Env* env, const Layout& l, const std::vector<const Move*>& moves);

// Everything of a launch before the supervisor starts. Whatever can fail for this mission alone
// (its room, its prompt) is done before the O_EXCL key, so a failure there leaves no key behind:
// the room (and MISSION.md), run/ with prompt.md; then plan.json, gate2.json, the key and
// launch.json by one WriteTogether (their data, the key and keys/ fsynced at once; the key only
// once the files are written; launch.json only once the key is made, a keyed file; for a room
// that failed the plan and gate2 alone, which say what was tried); then queued/ID -> running/ID,
// and one SyncDirs makes the move, every name in running/ID and the room durable, running/ID,
// running/ and rooms/ at once, then queued/ (3 fsync waits, where each call durable alone made 9).
// A failure of the room's making is the mission's, reported in the result (where its directory is,
// whether the key already existed) for LaunchDone. A failed write, sync or rename of the spool
// itself (plan.json, gate2.json, launch.json, run/, the key, the rename) is not: it is in
// `storage`, and the spool is in a state only the next start may read (hangard stops its work). At
// start, before recovery reads running/: what a launch cut short by a crash may have left unsynced
// made durable, as PrepareLaunch's closing sync would have (returned/ first, for a return renamed
// before the launch; then every running/ID, running/ and rooms/ at once, then queued/). Without
// it, a launch cut between its move and that sync, then ended lost by recovery, could be taken
// back by a later power loss into queued/ID as well as returned/ID.
Status SyncCutLaunches(Env* env, const Layout& l);

struct LaunchPrep {
  bool ok = false;
  bool key_existed = false;
  bool in_running = false;
  std::string dir;    // the mission directory now
  std::string error;  // when not ok
  Status storage;     // not Ok: the spool failed (error says the same)
};
// SYNC_FIRST: directories the caller left unsynced (a batch's intakes into queued/, PerformIntakes'
// UNSYNCED), fsynced in the launch's first wait, with its plan's data and key; when that fsync
// fails, every launch stops there as for a failure of the spool (storage).
LaunchPrep PrepareLaunch(Env* env, const Layout& l, const Launch& launch, TimeMs now,
                         const std::vector<std::string>& sync_first = {});

// PrepareLaunch of several missions (a turn's launches), each step for every launch before the
// next step, so that their fsyncs wait at once: the rooms in turn, the plans, gate2s, launch.jsons
// and keys of all by one WriteTogether, the moves, one closing SyncLaunched: 3 fsync waits for the
// turn (up to 64 files and keys, some 16 launches; past that each part waits on its own), where
// one launch after the other waited 3 each. Each launch keeps its own order (its key durable before
// its move, its move before its go: MOVED, beside the closing sync) and its result is what
// PrepareLaunch would say of it, but for a spool failure: a plan.json or gate2.json whose write(2)
// fails stops every launch of the batch before any key is taken (WriteTogether takes no key then;
// each says "not created"), those before it too. A failure found later (a file's fsync or rename,
// which RealEnv meets after the keys are made, in the same wait), and any failure of the spool for
// launch I after the keys, stops every launch from I on where it is (hangard stops its work at I,
// as it would have); launches that got further than they would have alone (their key, their move)
// end lost at the next start, never launched twice. The missions are distinct. MADE (when given) is
// called with the index of each launch whose room and run/ are made, before the first wait: hangard
// begins those launches there (launch/launcher.h, Begin), so that what depends only on the plan is
// made during the waits. MOVED (when given) is called with the index of each launch moved into
// running/, after every move and before the closing sync: hangard says go to those it began there,
// so that the drone's program starts beside that sync. Its key and its ledger entry are durable
// then, and a power loss that takes the move back ends the attempt lost, as before the go
// (hangar-spool(5), THE RULES).
std::vector<LaunchPrep> PrepareLaunches(Env* env, const Layout& l,
                                        const std::vector<const Launch*>& launches, TimeMs now,
                                        const std::vector<std::string>& sync_first = {},
                                        const std::function<void(size_t)>& made = nullptr,
                                        const std::function<void(size_t)>& moved = nullptr);

// PrepareLaunches in two halves, for a caller with something to do between them. BeginLaunches:
// the rooms, run/ and prompts, MADE, then the one WriteTogether (SYNC_FIRST in it) with every key
// and launch.json; FinishLaunches: the moves and the closing sync, each launch where the begin
// left it. Between them nothing a reader takes for a launch is there but the keys: a mission
// stays in queued/ (with its plan.json, gate2.json and launch.json) until its move. So the begin
// may go beside the launches' ledger entries (hangard, Env::Alongside), the move after them: the
// key then stands before its entry is durable, and carries that entry's seq ("ledger_seq", from
// Launch::seq) for a start to drop it when the ledger does not hold it (shell/unbacked_keys.h).
// FinishLaunches' SYNC_FIRST: directories the caller left unsynced since the begin (a batch's
// intakes), fsynced before the moves in a wait of their own. Its CLOSING_FIRST: directories that
// must be durable before running/ is (returned/, for returns renamed out of running/ before the
// launch), fsynced after the moves, once MOVED is told, as the closing sync's first wait: a drone
// begun then goes without waiting for them, for they keep nothing of its launch.
struct LaunchesBegun {
  std::vector<LaunchPrep> r;
  size_t cut = 0;  // the first launch whose spool failed (r.size(): none)
};
LaunchesBegun BeginLaunches(Env* env, const Layout& l, const std::vector<const Launch*>& launches,
                            TimeMs now, const std::vector<std::string>& sync_first = {},
                            const std::function<void(size_t)>& made = nullptr);
std::vector<LaunchPrep> FinishLaunches(Env* env, const Layout& l,
                                       const std::vector<const Launch*>& launches,
                                       LaunchesBegun begun,
                                       const std::vector<std::string>& sync_first = {},
                                       const std::function<void(size_t)>& moved = nullptr,
                                       const std::vector<std::string>& closing_first = {});
// A launch stopped where it was by an earlier one's failure (of launch ID, ERROR) says so, as a
// failure of the spool: the status, its message into *SAID. StopAfterCut: so for each launch of B
// after its cut that has no error of its own.
Status NotFinished(const std::string& id, const std::string& error, std::string* said);
void StopAfterCut(const std::vector<const Launch*>& launches, LaunchesBegun* b);

// Writes memory/REQUESTER/vVERSION.json (kernel.h WriteMemory), making memory/REQUESTER first.
// Ok when the file is there already with the same bytes (written before a stop); Exists when it
// holds other bytes (a spool restored over a newer ledger, an edit): nothing replaces it, the
// ledger's sha256 says which is right, and `hangar memory log` and the resume pack show it.
Status PerformWriteMemory(Env* env, const Layout& l, const WriteMemory& w);

// Removes control/new/NAME, or moves it to control/bad/BAD_NAME with BAD_NAME.why.json.
Status PerformConsumeControl(Env* env, const Layout& l, const ConsumeControl& c);

}  // namespace hangar
