// The Slurm launcher's pure parts: the exact sbatch command line and batch script for a plan, the
// command lines that observe and cancel its job, and the parsers of what they print. Identity is
// the job id plus the exact job name "hangar-ID-ATTEMPT" (never a prefix). Tested on outputs
// recorded from a real Slurm 22.05 (scripts/slurm-test-cluster), no cluster needed.
//
// The batch script runs `hangar-shim --exec PLAN_FILE SHA256` (launch/exec_plan.h), which checks
// the plan's bytes against the hash the gate passed and execs the sandboxed drone. Slurm enforces
// the deadline (--time, whole minutes rounded up; state TIMEOUT; Slurm checks every 30 s, so a
// job ends 0-30 s after its limit). The job gets no environment of hangard's (--export=NONE): the
// drone's comes from plan.json. docs/slurm.md has the measured behaviour these parsers rely on.
//
// How an ended job is reported, whichever tool said it: COMPLETED/FAILED give rc or signal;
// TIMEOUT sets timed_out, CANCELLED (or "CANCELLED by UID") cancelled, with the signal that
// ended the job (15). A job that ended without ever having a node (cancelled while pending,
// refused) gets no rc, signal or start, and `error` unless it was cancelled. Slurm prints local
// time to the second; times are read with mktime in the process's time zone.
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
int64_t SlurmMinutes(int64_t deadline_ms);  // --time: whole minutes, rounded up; at least 1

// The batch script (run/job.sh): "#!/bin/sh\n" and one exec line of SHIM --exec PLAN_FILE SHA256,
// each argument single-quoted for sh.
std::string BatchScript(const std::string& shim, const std::string& plan_file,
                        const std::string& sha256);

// sbatch --parsable --job-name=hangar-ID-N --time=M (the plan's enforced_deadline_ms in minutes)
//   --chdir=ROOM --output=RUN/slurm.out
//   --error=RUN/slurm.err --export=NONE --no-requeue [--partition=P] [--mem=MB M] SCRIPT
// (% in RUN doubled: sbatch expands %j and the like in --output and --error). --no-requeue: Slurm
// would otherwise run the job again after a node failure, twice under one launch key. --mem: the
// plan's memory_mb, when set (the shim's rlimits apply inside the job as well). Slurm runs
// the job in /tmp when ROOM does not exist: the shim must not rely on the working directory.
std::vector<std::string> SbatchArgv(const Plan& plan, const std::string& script,
                                    const SlurmOptions& o);
// The job id sbatch --parsable printed ("123" or "123;cluster"). Invalid otherwise.
Result<std::string> ParseSbatch(std::string_view out);

// squeue -h -t all -j ID[,ID...]
//   -O 'JobID:|,Name:|,State:|,exit_code:|,Reason:|,StartTime:|,EndTime:|,NodeList:'
// ("Field:|": the whole value, then |; without the ":" squeue pads or cuts a field to 20
// characters and prints no separator). JOB_IDS must not be empty. squeue lists the jobs it
// still has, in its own order; when it has none of them it exits 1 with "Invalid job id
// specified" on stderr and nothing on stdout: no jobs.
std::vector<std::string> SqueueArgv(const std::vector<std::string>& job_ids, const SlurmOptions& o);
// squeue -h --me -t all -n NAME -O ... : hangard's own jobs of one exact name (after a crash
// between sbatch and the record of its id; another user's job of that name is none of ours). squeue
// matches the whole name; the caller still compares report.name.
std::vector<std::string> SqueueByNameArgv(const std::string& name, const SlurmOptions& o);
// One report per line of squeue's stdout (a job it still retains); exit_code is a raw wait status,
// decoded. PENDING/CONFIGURING/REQUEUED/REQUEUE_HOLD/REQUEUE_FED/SPECIAL_EXIT/RESV_DEL_HOLD ->
// kPending (its times are the scheduler's guesses: not reported); RUNNING/COMPLETING/SUSPENDED/
// STOPPED/SIGNALING/RESIZING/STAGE_OUT -> kRunning (started set); COMPLETED, FAILED, TIMEOUT,
// CANCELLED, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL, DEADLINE, REVOKED -> kEnded.
// Invalid, naming the line and field, for a line that is not 8 fields, a job id that is not
// digits, an unknown state, a bad exit_code or time.
Result<std::vector<EngineReport>> ParseSqueue(std::string_view out);

// scontrol -o show job ID, and its one line (JobId=, JobName=, JobState=, Reason=,
// ExitCode=RC:SIGNAL, StartTime=, EndTime=, NodeList=; the paths after Command= may hold spaces
// and are not read). OUT is what scontrol printed, stdout then stderr: NotFound when it says
// "Invalid job id specified" (never known, or purged MinJobAge after its end); Invalid naming
// the field otherwise.
std::vector<std::string> ScontrolShowArgv(const std::string& job_id, const SlurmOptions& o);
Result<EngineReport> ParseScontrolShowJob(std::string_view out);

// sacct -c -j ID -n -P -o JobID,JobName,State,ExitCode,Start,End,NodeList: the jobcomp/filetxt
// log, after the job was purged (with -j, sacct searches from the epoch). The parser reads the
// line of exactly JOB_ID, the last one when the id ended more than once; lines of other ids are
// not it. The log writes ExitCode 0:0 for a job Slurm timed out or cancelled (though it was
// signalled): then no rc or signal is reported. NotFound when the log has no line for the id;
// Invalid, naming the line and field, for any malformed line.
std::vector<std::string> SacctCompletionArgv(const std::string& job_id, const SlurmOptions& o);
Result<EngineReport> ParseSacctCompletion(std::string_view out, const std::string& job_id);

// scancel ID (it returns 0 for an unknown id too: the launcher checks the state after).
std::vector<std::string> ScancelArgv(const std::string& job_id, const SlurmOptions& o);

}  // namespace hangar
