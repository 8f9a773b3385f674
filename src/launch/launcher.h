// The launcher interface: one for the direct launcher (hangar-shim), systemd units and Slurm jobs.
// hangard builds the plan, the gate judges it (stage 2 refuses a launcher that cannot enforce the
// mission's deadline to within its granularity, kernel/plan.h LauncherGranularityMs), then the
// launcher starts exactly that plan, observes it, and cancels it. An ended drone's story becomes
// run/exit.json (kernel/exit_info.h), from which the return is built with the room.
//
// Identity is exact: the direct launcher's supervisor by pid and start time (run/shim.json), a
// unit by its full name, a job by its id and exact name. At most once: Start is called only after
// the attempt's launch key was taken, and an engine launcher refuses to start a unit or job whose
// name the engine already knows.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "env/env.h"
#include "kernel/plan.h"
#include "launch/command.h"
#include "launch/engine_report.h"
#include "launch/shim_zygote.h"

namespace hangar {

class Launcher {
 public:
  virtual ~Launcher() = default;

  // Starts exactly the plan in PLAN_FILE, whose bytes hash to SHA256 (as the gate passed them).
  //   Ok           started (an engine launcher: the engine accepted it; its identity is kept in
  //                run/engine.json)
  //   Exists       the engine already knows a unit or job of this name: nothing was started
  //   Invalid      the plan was refused; nothing was started
  //   Io           nothing was started: the message says why
  //   Unavailable  no answer in time: whether it runs is unknown (Observe before anything else)
  virtual Status Start(const Plan& plan, const std::string& plan_file,
                       const std::string& sha256) = 0;

  // A launch begun while its records are not durable yet (launch/shim_zygote.h, Begin): what the
  // launcher can make from the plan's bytes alone is made during the launch's waits. Null when
  // there is nothing to begin (an engine launcher; the direct launcher without a zygote ready):
  // StartBegun is then Start. Destroyed without StartBegun, a begun launch is withdrawn, and
  // nothing of it runs. Never waits: hangard's loop calls it. RUN_NOW is the plan's run directory
  // where it is until the launch's move (queued/ID/run), made already: the direct launcher's
  // supervisor may make the drone's sandbox there before the go.
  struct Begun {
    virtual ~Begun() = default;
  };
  virtual std::unique_ptr<Begun> Begin(const Plan& /*plan*/, const std::string& /*plan_file*/,
                                       const std::string& /*sha256*/,
                                       const std::string& /*plan_text*/,
                                       const std::string& /*run_now*/) {
    return nullptr;
  }
  // Start, for a launch BEGUN (null: as Start), once its records are durable; the same answers.
  virtual Status StartBegun(const Plan& plan, const std::string& plan_file,
                            const std::string& sha256, std::unique_ptr<Begun> /*begun*/) {
    return Start(plan, plan_file, sha256);
  }
  // What the engine says of the plan's drone now. Unavailable when the engine did not answer:
  // never taken as "gone" (a drone is declared lost only when the engine says it knows none).
  virtual Result<EngineReport> Observe(const Plan& plan) = 0;

  // Observe for each of PLANS, in order, in as few calls of the engine's tools as it can (Slurm:
  // one squeue for every job whose id was kept). Once the engine does not answer, the plans not
  // asked yet get that answer too: an engine that is down is not asked N times per look.
  virtual std::vector<Result<EngineReport>> ObserveAll(const std::vector<Plan>& plans);

  // Stops the drone (its end is then observed as cancelled). Ok once the engine took the request.
  virtual Status Cancel(const Plan& plan) = 0;
};

// The launcher a plan names: "direct" (the shim at SHIM, forked by ZYGOTE when given:
// launch/shim_zygote.h), "systemd", "slurm". Engine launchers run their tools through RUN and
// keep their files through ENV. nullptr for any other name.
std::unique_ptr<Launcher> MakeLauncher(const std::string& name, Env* env, const std::string& shim,
                                       CommandRunner run, ShimZygote* zygote = nullptr);

// run/engine.json, the engine launcher's record of what it started:
// {"hangar":1,"launcher":L,"name":NAME,"id":ENGINE_ID,"submitted":TIME}.
inline constexpr const char* kEngineRecord = "engine.json";
// run/engine-start.json: written (durably) just before an engine launcher asks its engine to
// start the drone. Without it the engine was never asked, so "the engine knows none" is final;
// with it and no engine.json, the answer may still be on its way (a tool cut short by a crash or a
// timeout may have reached the engine), and hangard waits a while before it believes "none".
inline constexpr const char* kStartRecord = "engine-start.json";
// True when the engine was asked to start PLAN's drone (run/engine-start.json) but what it started
// was not kept (no run/engine.json): "the engine knows none" may not be final yet.
bool StartUnsettled(Env* env, const Plan& plan);
// run/cancel.json: written before an engine launcher asks its engine to stop the drone, so the end
// it observes next (also after a restart) is known as a cancel.
inline constexpr const char* kCancelRecord = "cancel.json";

}  // namespace hangar
