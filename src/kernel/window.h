// The window (man/hangar-ops.5): the only way a drone's request for an external act reaches the
// world. A drone writes ROOM/ops/NAME.json; the shell reads it as untrusted bytes; the kernel
// parses it here, strictly, and judges it by the checks below, in order. Pure.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "base/json.h"
#include "base/timefmt.h"
#include "kernel/grants.h"
#include "kernel/mission.h"
#include "kernel/policy.h"

namespace hangar {

inline constexpr size_t kMaxOpRequestBytes = 64 * 1024;

// {"op": OP, "args": {...}, "key": KEY}: OP an op name ([a-z][a-z0-9._-]*, at most 64 bytes),
// args an object (the handler's input), KEY the drone's idempotency key
// ([A-Za-z0-9][A-Za-z0-9._-]*, at most 64 bytes): one act per key and mission, however often it is
// asked for.
struct OpRequest {
  std::string op;
  json::Value args;
  std::string key;
};

using OpRequestOrError = std::variant<OpRequest, ParseError>;

// Strict: UTF-8 text of at most kMaxOpRequestBytes holding exactly those three members.
OpRequestOrError ParseOpRequest(std::string_view bytes);

// A request file's name: NAME.json with NAME an id ([A-Za-z0-9][A-Za-z0-9._-]*, at most 64 bytes)
// not ending in ".result". "" when `file` is not a request (a result, a dot file, anything else).
std::string OpRequestName(std::string_view file);

// The window's answer before anything runs: allowed, or refused by `rule` for `reason`.
struct OpJudgement {
  bool allowed = false;
  std::string rule;  // op.declaration, op.undeclared, op.unlisted, ops.deny.OP, ops.unknown,
                     // ops.grant.OP, ledger.fail-closed, op.handler
  std::string reason;
};

struct OpContext {
  const Mission* mission = nullptr;
  const json::Value* declaration = nullptr;  // shell/declaration.h's record, read at the request
  const Policy* policy = nullptr;
  const GrantBook* grants = nullptr;
  std::string fail_closed;  // why the ledger is not trusted; empty when it is
  bool has_handler = false;
  TimeMs now = 0;
};

// The checks, in order: the op is declared in a valid DECLARATION.json ("ops"); listed in the
// mission's ops; allowed by the policy, or on its grant list and granted in the ledger to the
// mission or its requester; the ledger is trusted; the config names a handler for it.
OpJudgement JudgeOp(const OpRequest& r, const OpContext& c);

// True when the declaration record is valid and its list `list` ("ops", "external_acts") holds op.
bool Declares(const json::Value& declaration, const char* list, const std::string& op);

}  // namespace hangar
