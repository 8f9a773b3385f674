// hangar approve / deny / retry / grant / revoke / release-canary / ledger reanchor: requests to
// the kernel. Like cancel, the CLI decides nothing: it drops a control request (control/tmp, then
// one rename into control/new), checked first by the same parser the kernel uses, and the kernel
// validates, records it in the ledger and acts. Until then nothing is approved or granted.
#include <unistd.h>

#include "base/id.h"
#include "cli/answer.h"
#include "cli/commands.h"
#include "cli/drop.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "cli/spool_view.h"
#include "kernel/control.h"
#include "kernel/retry.h"
#include "launch/command.h"
#include "shell/scan.h"

namespace hangar::cli {

namespace {

// approve and deny are for held missions: say so here rather than in control/bad later.
int RequireHeld(const Context& ctx, const std::string& what, const std::string& id) {
  SpoolView view(ctx.env, ctx.layout);
  Result<MissionRef> ref = view.Find(id);
  if (!ref.ok()) return FailTo(ctx.err, kExitNoInput, what, ref.status().message());
  if (!ref->phase || *ref->phase != Phase::kHold)
    return FailTo(ctx.err, kExitNoInput, what, "not held (it is " + ref->state + ")");
  return kExitOk;
}

}  // namespace

int RunApprove(const Context& ctx, const std::string& id, const std::string& why,
               const std::string& sign_key, const std::string& principal) {
  const std::string what = "approve " + id;
  if (int rc = RequireHeld(ctx, what, id); rc != kExitOk) return rc;
  json::Object r{{"request", "approve"}, {"id", id}};
  if (!why.empty()) r["why"] = why;
  if (!principal.empty() && sign_key.empty())
    return FailTo(ctx.err, kExitUsage, what, "--principal is for --sign");
  if (!sign_key.empty()) {
    // The message binds the mission (and plan) as held now, read as hangard will read them.
    std::string mission_sha256, plan_sha256;
    Result<std::string> message =
        HeldApprovalMessage(ctx.env, ctx.layout, id, &mission_sha256, &plan_sha256);
    if (!message.ok()) return FailTo(ctx.err, kExitIo, what, message.status().message());
    CommandResult sig =
        RunCommand({"ssh-keygen", "-q", "-Y", "sign", "-f", sign_key, "-n", kSignatureNamespace},
                   std::chrono::minutes(5), {}, *message);
    if (!sig.ok() || sig.out.find("-----BEGIN SSH SIGNATURE-----") == std::string::npos)
      return FailTo(ctx.err, kExitCantCreate, what,
                    "cannot sign with " + sign_key + ": " + sig.Describe("ssh-keygen -Y sign"));
    r["principal"] = principal.empty() ? Asker() : principal;
    r["signature"] = sig.out;
  }
  return DropControlRequest(ctx, std::move(r), what, id, "approved " + id);
}

int RunDeny(const Context& ctx, const std::string& id, const std::string& why) {
  const std::string what = "deny " + id;
  if (int rc = RequireHeld(ctx, what, id); rc != kExitOk) return rc;
  return DropControlRequest(ctx, {{"request", "deny"}, {"id", id}, {"why", why}}, what, id,
                            "denied " + id);
}

int RunGrant(const Context& ctx, const GrantArgs& a, bool revoke) {
  json::Object r{{"request", revoke ? "revoke" : "grant"}, {"op", a.op}};
  if (!a.mission.empty()) r["mission"] = a.mission;
  if (!a.requester.empty()) r["requester"] = a.requester;
  if (!a.until.empty()) {
    if (revoke) return FailTo(ctx.err, kExitUsage, "revoke " + a.op, "--until is for grant");
    r["until"] = a.until;
  }
  const std::string subject =
      a.mission.empty() ? "requester " + a.requester : "mission " + a.mission;
  const std::string verb = revoke ? "revoke " : "grant ";
  return DropControlRequest(
      ctx, std::move(r), verb + a.op, a.op,
      std::string(revoke ? "revoked " : "granted ") + a.op + " for " + subject);
}

// retry is for a returned mission whose attempt did not end normally: say so here, by the kernel's
// own rule (kernel/retry.h), rather than in control/bad later. Whether anything of the attempt
// still lives is for the kernel to find out.
int RunRetry(const Context& ctx, const std::string& id) {
  const std::string what = "retry " + id;
  SpoolView view(ctx.env, ctx.layout);
  Result<MissionRef> ref = view.Find(id);
  if (!ref.ok()) return FailTo(ctx.err, kExitNoInput, what, ref.status().message());
  if (!ref->phase || *ref->phase != Phase::kReturned)
    return FailTo(ctx.err, kExitNoInput, what,
                  "not returned (it is " + ref->state + "); only a returned mission is retried");
  const std::string file = ref->path + "/return.json";
  Result<json::Value> ret = view.ReadJson(file, SpoolView::kMaxReturnFile);
  if (!ret.ok()) return FailTo(ctx.err, kExitIo, what, ret.status().message());
  const json::Value* exit = ret->is_object() ? ret->find("exit") : nullptr;
  const json::Value* attempt = ret->is_object() ? ret->find("attempt") : nullptr;
  const std::string why =
      RetryOutcomeRefusal(StringField(*ret, "outcome"), exit && exit->is_object(),
                          attempt && attempt->is_int() ? int(attempt->as_int()) : 0);
  if (!why.empty()) return FailTo(ctx.err, kExitNoInput, what, why);
  return DropControlRequest(ctx, {{"request", "retry"}, {"id", id}}, what, id,
                            "retry of " + id + " taken");
}

int RunReleaseCanary(const Context& ctx, const std::string& profile, const std::string& why) {
  json::Object r{{"request", "release-canary"}, {"profile", profile}};
  if (!why.empty()) r["why"] = why;
  return DropControlRequest(ctx, std::move(r), "release-canary " + profile, "",
                            "profile " + profile + " released: its missions launch as usual");
}

int RunReanchor(const Context& ctx, const std::string& why) {
  return DropControlRequest(ctx, {{"request", "reanchor"}, {"why", why}}, "reanchor the ledger", "",
                            "ledger reanchored: a new epoch starts");
}

}  // namespace hangar::cli
