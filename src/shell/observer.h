// The observer: what the kernel sees of a mission whose drone ended — the room manifest, the
// declaration, the done-checks it runs itself, and digests of the drone's output files. Nothing the
// drone says about itself is taken as true; its files are hashed and stored as data.
// Safe to call from several worker threads at once.
#pragma once

#include "kernel/kernel.h"
#include "shell/manifest.h"

namespace hangar {

Observation ObserveMission(const Observe& ob, const ManifestLimits& limits);

// {"file": NAME, "present": bool, "size": N, "sha256": hex} for PATH (never follows a symlink).
json::Value FileDigest(const std::string& path, const std::string& name);

inline constexpr size_t kMaxHarnessStream = size_t(64) << 20;  // 64 MiB of events read at most

// What the harness itself reported, from its stream at PATH (codex events.jsonl, claude
// stream.jsonl): {"harness","file","report"} (or "error"); null for a command profile.
json::Value HarnessReport(Harness h, const std::string& path);

inline constexpr size_t kMaxConnectionsListed = 1000;  // the rest counted as "omitted"

// The egress proxy's record at PATH (run/connections.jsonl, written by hangar-egress outside the
// sandbox): {"list": [one object per connection, in order of ending], "omitted": N}; an absent file
// is an empty list (the drone made no connection).
json::Value ConnectionsRecord(const std::string& path);

}  // namespace hangar
