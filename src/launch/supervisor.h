// The supervisor: hangar-shim's logic. It runs one drone exactly as a plan says, enforces the
// plan's deadline from outside the drone, and writes what it saw to run/exit.json
// (docs/ARCHITECTURE.md, "hangar-shim"). shim_main.cc is only the entry point; the pure parts below
// are unit-tested, the process as a whole is tested by driving bin/hangar-shim.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"
#include "kernel/exit_info.h"
#include "kernel/plan.h"

namespace hangar {

// Exit statuses of hangar-shim's first process (sysexits(3) where one fits).
inline constexpr int kShimStarted =
    0;  // the drone was launched (or its exec failed: see exit.json)
inline constexpr int kShimNotStarted = 1;  // nothing was launched; the reason is on stderr
inline constexpr int kShimUsage = 64;      // EX_USAGE
inline constexpr int kShimBadPlan = 78;    // EX_CONFIG: the plan could not be read or is invalid

// The whole program for `hangar-shim PLAN_FILE SHA256`: SHA256 is the plan's hash as the gate
// passed it; a plan whose bytes hash otherwise was changed after the gate and is never run. Forks:
// the first process returns once the supervisor has reported (kShimStarted, kShimNotStarted,
// kShimBadPlan); the supervisor returns when the drone's story is written to exit.json (or it could
// not start). Without space for exit.json (ENOSPC, EDQUOT) it keeps the record and its lock and
// tries again every second until the write succeeds: a full disk delays an end, never loses it.
// Call once, from main, in a process that has no other threads.
// NET: a network namespace made for this launch alone (the shim zygote's, launch/shim_zygote.h),
// or -1. The drone enters it when its sandbox of engine "namespaces" cuts the network and its
// child takes hangar-confine's steps itself (DroneSpec::net); otherwise it is closed unused.
int RunShim(const std::string& plan_file, const std::string& plan_sha256, int net = -1);

// RunShim for a launch begun before its records are durable (launch/shim_zygote.h, the zygote's
// child of a begun request): the plan's bytes are in PLAN_FD (read from its start, then closed;
// PLAN_FILE only names the plan in messages), and hangard sends "g" on the socket GO once the
// launch's key and move are durable. Before the go it loads and checks the plan and, when
// CommandBeforeGo, makes the drone's command (its program found, the hidden paths resolved, the
// Landlock ruleset made, the room and writes opened); it writes nothing anywhere and starts
// nothing. The command is thus what the disk said at the begin, some milliseconds (hangard's
// fsync waits) before the go; one that failed then is made again after the go. Without the go (the
// end of the stream: hangard withdrew the launch, or ended) it returns kShimNotStarted, having run
// nothing; with it, it goes on as RunShim, the command made. A plan refused returns kShimBadPlan at
// once (hangard learns it after its go, as from RunShim).
// NET as RunShim's.
// RUN (when not -1): the plan's run directory where it is until the launch's move (queued/ID/run),
// open. With it, when SandboxBeforeGo, the supervisor is forked before the go and takes its
// steps up to the drone's program in that directory: the lock taken, the drone's files made
// (stdout, stderr), the room handed over, the drone's process forked with its sandbox made (its
// namespaces, mounts, Landlock and system-call filter). That process then waits for the
// supervisor's word, given on the go, before it executes the drone's program; the drone's clock
// (exit.json's started, the deadline) starts at the go. Without the go, the supervisor kills that
// process and ends, and the drone's program was never executed; what it made stays in the run
// directory of a mission still queued, and the next attempt's supervisor makes it anew.
int RunShimBegun(const std::string& plan_file, const std::string& plan_sha256, int plan_fd, int go,
                 int net = -1, int run = -1);

// Whether PLAN's drone command may be made before the launch's go: it depends on nothing the
// supervisor makes first (a workspace's checkout in the room, the egress proxy's socket, a
// last-message file outside the room). Otherwise it is made where RunShim makes it.
bool CommandBeforeGo(const Plan& plan);

// Whether PLAN's drone may be made up to its program before the launch's go (RunShimBegun, RUN):
// a sandbox of engine "namespaces", which the supervisor's own child makes (launch/drone_exec.h;
// under bwrap the sandbox is bwrap's program, executed at the go), no workspace, no network
// "egress", and a last-message file, if any, in the room or in the run directory. One in the run
// directory (codex's) is made by the supervisor there, and the command, made after it, binds it
// from where it is then, or from its name once the move came (NamespaceSandbox::Bind, before).
bool SandboxBeforeGo(const Plan& plan);

// Checks that TEXT hashes to PLAN_SHA256 and parses it as a plan (PLAN_FILE names it in messages).
Result<Plan> LoadPlanText(const std::string& text, const std::string& plan_file,
                          const std::string& plan_sha256);

// Reads PLAN_FILE and checks that its bytes hash to plan_sha256 (the plan the gate passed), for
// any launcher. Invalid or NotFound with a message of the shape "cannot read plan FILE: reason".
Result<Plan> LoadPlanFile(const std::string& plan_file, const std::string& plan_sha256);

// Reads PLAN_FILE, checks that its bytes hash to plan_sha256 (the plan the gate passed) and that
// it is a plan this launcher runs ("launcher":"direct"). Invalid or NotFound with a message of the
// shape "cannot read plan FILE: reason".
Result<Plan> LoadShimPlan(const std::string& plan_file, const std::string& plan_sha256);

}  // namespace hangar
