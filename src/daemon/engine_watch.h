// EngineWatch: the drones hangard runs through an engine launcher (systemd, Slurm), and what their
// engine says of them. hangard learns a direct drone's end from its supervisor's exit record; an
// engine-run drone's end only by asking the engine, every launchers.poll_s (man/hangar.conf.5).
//
// What it promises: a drone is taken as gone only when its engine says it knows none, and, for a
// start whose answer was not settled (the engine's tool failed, timed out or was cut short by a
// crash: launch/launcher.h StartUnsettled), only kEngineSettleMs after it was launched or found;
// an engine that does not answer is asked again, said once while it lasts, never taken as an end.
// Launchers are made on first use, one per name, through the factory given.
//
// Thread: the daemon's loop only.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"
#include "env/env.h"
#include "kernel/exit_info.h"
#include "kernel/layout.h"
#include "kernel/plan.h"
#include "launch/launcher.h"

namespace hangar {

// A unit or job whose start is not settled may still appear: "the engine knows none" counts only
// after this long.
inline constexpr TimeMs kEngineSettleMs = 60000;

class EngineWatch {
 public:
  using MakeFn = std::function<std::unique_ptr<Launcher>(const std::string& name)>;
  using SayFn = std::function<void(const std::string& line)>;
  EngineWatch(Env* env, Layout layout, MakeFn make, SayFn say);

  // The launcher named NAME (made on first use); nullptr when there is none of that name.
  Launcher* For(const std::string& name);

  // Mission ID's drone runs under its plan's engine since NOW; Forget: it is no longer watched.
  void Track(const std::string& id, const Plan& plan, TimeMs now);
  void Forget(const std::string& id);
  const Plan* PlanOf(const std::string& id) const;  // nullptr: not an engine-run drone
  bool empty() const { return runs_.empty(); }

  // One look at every tracked drone, one ObserveAll per launcher. Ended: the engine reports its
  // end (exit); Gone: it knows no such drone and no end (lost; `line` says so, for the caller to
  // say as it decides it); Running: pending or running. A drone whose engine did not answer, or
  // whose start is not settled yet, is not in the list; `unanswered` says the last such answer.
  struct Seen {
    enum class Kind { kEnded, kGone, kRunning };
    Kind kind;
    std::string id;
    ExitInfo exit = {};
    std::string line = {};
  };
  struct Looked {
    std::vector<Seen> seen;
    std::string unanswered;  // "" when every engine answered
  };
  Looked Look(TimeMs now);
  // Says UNANSWERED once while it lasts (the caller's look is over), not at every look.
  void SayUnanswered(const std::string& unanswered);

  // At start, before recovery: for each engine-run mission in running/ without an exit record
  // whose launch key was taken, the engine is asked. An end it reports is written as the
  // mission's run/exit.json (and said); a drone it runs, cannot say of, or whose start is not
  // settled is tracked, and its run directory is in the returned set (recovery takes it as
  // alive; its settle time starts when its engine answered). Errors: a failed listing of
  // running/ or write of an exit record.
  Result<std::set<std::string>> CollectEnds();

 private:
  Env* env_;
  Layout layout_;
  MakeFn make_;
  SayFn say_;
  std::map<std::string, std::unique_ptr<Launcher>> launchers_;  // by name, made on first use
  std::map<std::string, Plan> runs_;                            // mission id -> its plan
  std::map<std::string, TimeMs> since_;  // when each was launched (or found at start)
  std::string said_;                     // the last "engine does not answer" line said
};

}  // namespace hangar
