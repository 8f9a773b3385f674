// Retrying a mission (man/hangar-spool.5 "RETRY"): a returned mission whose attempt did not end
// normally goes back to queued/ to be launched as attempt N+1 under a new key. The kernel decides
// from what the shell read of the mission (RetryFacts); these are the rules it decides by. Pure.
#pragma once

#include <string>

#include "kernel/gate.h"

namespace hangar {

// What the shell read of returned/ID for a retry request. The kernel never reads it itself.
struct RetryFacts {
  std::string read_error;     // return.json could not be read: why ("" when it was)
  std::string outcome;        // return.json "outcome"
  bool ran = false;           // return.json "exit" is not null: the supervisor recorded an end
  int attempt = 0;            // the last attempt: the larger of return.json's and launch.json's
  std::string mission_bytes;  // mission.json
  std::string intake_sha256;  // intake.json "sha256": the bytes taken in
  TimeMs accepted = 0;        // intake.json "time"
  int64_t owner_uid = -1;     // intake.json "uid" and "user": who dropped the mission (may
  std::string owner_user;     // retry it)
  ResolvedWrites resolved;    // the mission's "writes", resolved again now
  // Why attempt N may still be alive: its supervisor's lock run/lock is held, or the shim or the
  // drone that run/shim.json names (pid and start time) still exists. "" when nothing of it lives.
  std::string alive;
};

// Why a return with this outcome is not retried, or "" when it is: lost, failed, timed_out and
// killed are; cancelled only when the cancel stopped a drone that ran (ran: the return records its
// exit); done, and a cancel before the drone ran, are not (a person decided it should not run:
// submit it again). Shared by the kernel and `hangar retry`, which says so before it asks.
std::string RetryOutcomeRefusal(const std::string& outcome, bool ran, int attempt);

// retry.json, written into the mission directory of the new attempt (man/hangar-spool.5).
struct RetryRecord {
  std::string id, by, outcome;
  int previous = 0;  // the attempt that did not end normally; its files are in attempts/PREVIOUS
  int64_t ledger_seq = 0;
  TimeMs time = 0;
};
std::string RetryRecordText(const RetryRecord& r);

}  // namespace hangar
