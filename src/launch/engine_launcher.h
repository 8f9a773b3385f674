// The systemd and Slurm launchers (launch/launcher.h), on the pure parts of launch/systemd_unit.h
// and launch/slurm_job.h. What they share: the record of what was started (run/engine.json), the
// record of a cancel (run/cancel.json), and filling in what the engine did not say.
#pragma once

#include <memory>
#include <string>

#include "launch/launcher.h"
#include "launch/slurm_job.h"
#include "launch/systemd_unit.h"

namespace hangar {

std::unique_ptr<Launcher> MakeSystemdLauncher(Env* env, const std::string& shim, CommandRunner run,
                                              SystemdOptions o);
std::unique_ptr<Launcher> MakeSlurmLauncher(Env* env, const std::string& shim, CommandRunner run,
                                            SlurmOptions o);

// Writes run/engine.json for what LAUNCHER started as NAME (ENGINE_ID: the job id; the unit name).
Status WriteEngineRecord(Env* env, const Plan& plan, const std::string& launcher,
                         const std::string& name, const std::string& engine_id);
// Writes run/engine-start.json (launch/launcher.h) for NAME, before the engine is asked.
Status WriteStartRecord(Env* env, const Plan& plan, const std::string& launcher,
                        const std::string& name);
// The engine id run/engine.json names; NotFound when there is none.
Result<std::string> ReadEngineId(Env* env, const Plan& plan);
// True when run/cancel.json exists: an end observed now is hangar's cancel.
bool CancelRecorded(Env* env, const Plan& plan);
Status WriteCancelRecord(Env* env, const Plan& plan);

// An ended report made whole: cancelled when hangar asked for it (and the deadline did not fire
// first), started and ended filled from run/engine.json's submission time and NOW where the engine
// gave none.
EngineReport Completed(Env* env, const Plan& plan, EngineReport r, TimeMs now);

}  // namespace hangar
