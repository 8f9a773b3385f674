// SetupFacts: what hangard builds the kernel's setup from, as facts: the config's and the
// policy's bytes and what it found on the host at start (its programs, home directories, user,
// the approvers' uids). hangard builds its KernelSetup from them with BuildSetup and records them
// as the signal record's start line (man/hangar-signals.5); a replay builds the same setup from
// the recorded facts, by the same code, or from them with another policy or config put in.
// Pure: reading the files and looking at the host is the shell's (hangard_main.cc).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/simdjson_util.h"
#include "base/status.h"
#include "kernel/kernel.h"
#include "kernel/signal_record.h"

namespace hangar {

struct SetupFacts {
  std::string config_file, config_text;
  // The config's "policy" file and its bytes; config "policy" empty: the built-in default policy
  // (policy_file empty too). A replay's --policy puts its own file and bytes here.
  std::string policy_file, policy_text;
  std::string spool;                 // absolute
  std::string bindir, anchor, home;  // absolute
  std::string bwrap, socat;          // the programs found, or empty
  std::vector<std::string> homes;    // the home directories at start (policy "~*/" patterns)
  bool root = false;
  int64_t drone_uid = -1, drone_gid = -1;
  std::set<int64_t> approvers;  // resolved
  int cpus = 1;                 // config slots 0: one slot per cpu
  int landlock_abi = 0;         // the host's Landlock ABI (shell/landlock.h); 0: none
};

// The setup as hangard runs with it. Invalid naming the file and field for a config or policy
// that does not parse.
Result<KernelSetup> BuildSetup(const SetupFacts& f);

// As the start line's "setup" member: the config's and the policy's bytes through OUT.
json::Value SetupFactsJson(const SetupFacts& f, const BlobOut& out);
// Reads what SetupFactsJson wrote at FIELD; throws strict::Failure naming the field.
SetupFacts ReadSetupFactsAt(simdjson::dom::element e, const std::string& field, const BlobIn& in);

}  // namespace hangar
