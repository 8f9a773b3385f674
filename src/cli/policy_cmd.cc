// hangar policy check FILE: runs the kernel's own policy reader over a file (man/hangar-policy.5)
// and says whether hangard would load it. It only reads the file: no spool, no kernel needed.
#include <filesystem>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "kernel/policy.h"

namespace hangar::cli {

namespace {

struct Checked {
  int exit_code = kExitOk;
  std::string error;  // what follows "hangar: " on stderr; empty when the policy is valid
  std::optional<Policy> policy;
};

// Symlinks followed, a regular file only, at most kMaxPolicyBytes.
Checked Check(Env* env, const std::string& file) {
  namespace fs = std::filesystem;
  const std::string what = "cannot read policy " + file + ": ";
  std::error_code ec;
  fs::file_status st = fs::status(file, ec);
  if (ec || !fs::exists(st))
    return {kExitNoInput, what + (ec ? ec.message() : "no such file"), std::nullopt};
  if (!fs::is_regular_file(st)) return {kExitNoInput, what + "not a regular file", std::nullopt};
  uintmax_t size = fs::file_size(file, ec);
  if (!ec && size > kMaxPolicyBytes)
    return {
        kExitData,
        "cannot load policy: " + file + ": larger than 1 MiB (" + std::to_string(size) + " bytes)",
        std::nullopt};
  fs::path real = fs::canonical(file, ec);
  Result<std::string> text = env->ReadFile(ec ? file : real.string(), kMaxPolicyBytes);
  if (!text.ok()) return {ExitForRead(text.status()), what + text.status().message(), std::nullopt};
  Result<Policy> p = ParsePolicy(*text, file);
  if (!p.ok()) return {kExitData, "cannot load policy: " + p.status().message(), std::nullopt};
  return {kExitOk, "", std::move(p).value()};
}

}  // namespace

int RunPolicyCheck(const Context& ctx, const std::string& file) {
  Checked c = Check(ctx.env, file);
  const size_t rules = c.policy ? c.policy->RuleIds().size() : 0;
  const std::string digest = c.policy ? PolicyDigest(*c.policy) : "";
  if (ctx.json) {
    PrintJson(ctx.out, json::Object{{"file", file},
                                    {"ok", c.policy.has_value()},
                                    {"error", c.policy ? json::Value() : json::Value(c.error)},
                                    {"rules", c.policy ? json::Value(rules) : json::Value()},
                                    {"sha256", c.policy ? json::Value(digest) : json::Value()}});
    return c.exit_code;
  }
  if (!c.policy) return Fail(ctx.err, c.exit_code, c.error);
  ctx.out << Printable(file) << ": ok, policy v" << kPolicyVersion << ", " << rules
          << (rules == 1 ? " rule" : " rules") << " (sha256 " << digest << ")\n";
  return kExitOk;
}

}  // namespace hangar::cli
