// The Slurm launcher's pure parts: the exact sbatch command line and batch script for a plan, the
// command lines that observe and cancel its job, and the parsers of what they print. Identity is
// the job id plus the exact job name "hangar-ID-ATTEMPT" (never a prefix). Tested on outputs
// recorded from a real Slurm 22.05 (scripts/slurm-test-cluster), no cluster needed.
//
// The batch script runs `hangar-shim --exec PLAN_FILE SHA256` (launch/exec_plan.h), which checks
// the plan's bytes against the hash the gate passed and execs the sandboxed drone. Slurm enforces
// the deadline (--time, whole minutes rounded up; state TIMEOUT). The job gets no environment of
// hangard's (--export=NONE): the drone's comes from plan.json.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kernel/plan.h"
#include "launch/engine_report.h"

namespace hangar {

struct SlurmOptions {
  std::string partition;  // empty: the cluster's default
  std::string sbatch = "sbatch", squeue = "squeue", scontrol = "scontrol", scancel = "scancel",
              sacct = "sacct";
};

std::string JobName(const std::string& id, int attempt);  // "hangar-ID-ATTEMPT"
int64_t SlurmMinutes(int64_t deadline_ms);                // --time: whole minutes, rounded up

// The batch script (run/job.sh): "#!/bin/sh\n" and one exec line of SHIM --exec PLAN_FILE SHA256,
// each argument single-quoted for sh.
std::string BatchScript(const std::string& shim, const std::string& plan_file,
                        const std::string& sha256);

// sbatch --parsable --job-name=hangar-ID-N --time=M --chdir=ROOM --output=RUN/slurm.out
//   --error=RUN/slurm.err --export=NONE [--partition=P] SCRIPT
std::vector<std::string> SbatchArgv(const Plan& plan, const std::string& script,
                                    const SlurmOptions& o);
// The job id sbatch --parsable printed ("123" or "123;cluster"). Invalid otherwise.
Result<std::string> ParseSbatch(std::string_view out);

// squeue -h -t all -j ID[,ID...] -O 'JobID:|,Name:|,State:|,exit_code:|,Reason:|...'
// (whatever fields the parser needs; the test pins them).
std::vector<std::string> SqueueArgv(const std::vector<std::string>& job_ids, const SlurmOptions& o);
// squeue -h -t all -n NAME -O ... : the jobs of one exact name (after a crash between sbatch and
// the record of its id).
std::vector<std::string> SqueueByNameArgv(const std::string& name, const SlurmOptions& o);
// One report per line squeue printed (a job it still retains); exit_code is a raw wait status,
// decoded. PENDING/CONFIGURING -> kPending; RUNNING/COMPLETING/SUSPENDED -> kRunning; COMPLETED,
// FAILED, TIMEOUT (timed_out), CANCELLED (cancelled), NODE_FAIL, OUT_OF_MEMORY, PREEMPTED,
// BOOT_FAIL, DEADLINE -> kEnded.
Result<std::vector<EngineReport>> ParseSqueue(std::string_view out);

// scontrol -o show job ID, and its one line (JobState=, ExitCode=rc:signal, Reason=, JobName=,
// StartTime=, EndTime=). NotFound when scontrol says the id is invalid (purged).
std::vector<std::string> ScontrolShowArgv(const std::string& job_id, const SlurmOptions& o);
Result<EngineReport> ParseScontrolShowJob(std::string_view out);

// sacct -c (the jobcomp/filetxt log, after the job was purged) for one job id, and its parser.
// NotFound when the log has no line for the id.
std::vector<std::string> SacctCompletionArgv(const std::string& job_id, const SlurmOptions& o);
Result<EngineReport> ParseSacctCompletion(std::string_view out, const std::string& job_id);

// scancel ID (it returns 0 for an unknown id too: the launcher checks the state after).
std::vector<std::string> ScancelArgv(const std::string& job_id, const SlurmOptions& o);

}  // namespace hangar
