// hangar patch / hangar apply: the change a workspace mission returned (man/hangar-return.5,
// CHANGE), as hangar computed it: printed, or applied to a checkout of its base by the user's own
// git. Nothing is ever applied by hangard.
#include <filesystem>

#include "base/id.h"
#include "base/sha256.h"
#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "cli/spool_view.h"
#include "launch/command.h"

namespace hangar::cli {

namespace {

constexpr size_t kMaxPatch = size_t(1) << 30;

struct Taken {
  std::string id, dir, base, workspace, patch;  // patch: its bytes, sha256 checked
  json::Value change;
};

// The returned mission's change and its patch, read and checked against return.json; an exit
// status other than kExitOk with the reason printed when there is none to take.
int Take(const Context& ctx, const std::string& id, Taken* t) {
  if (!ValidId(id)) return FailTo(ctx.err, kExitUsage, "read the change of " + id, kIdGrammar);
  SpoolView view(ctx.env, ctx.layout);
  Result<MissionRef> ref = view.Find(id);
  if (!ref.ok())
    return FailTo(ctx.err, ExitForRead(ref.status()), "read the change of " + id,
                  ref.status().message());
  if (ref->phase != Phase::kReturned)
    return FailTo(ctx.err, kExitNoInput, "read the change of " + id,
                  "it is " + ref->state + ", not returned: its change is computed when it returns");
  t->id = id;
  t->dir = ref->path;
  Result<json::Value> ret = view.ReadJson(t->dir + "/return.json", SpoolView::kMaxReturnFile);
  if (!ret.ok())
    return FailTo(ctx.err, ExitForRead(ret.status()), "read " + t->dir + "/return.json",
                  ret.status().message());
  const json::Value* change = ret->find("change");
  if (!change || !change->is_object())
    return FailTo(ctx.err, kExitNoInput, "read the change of " + id,
                  "it is no workspace mission (return.json has no change)");
  t->change = *change;
  t->base = StringField(*change, "base");
  const json::Value* patch = change->find("patch");
  if (!patch || !patch->is_object()) {
    const std::string why = StringField(*change, "error");
    return FailTo(ctx.err, kExitNoInput, "read the change of " + id,
                  "hangar computed no patch" + (why.empty() ? "" : ": " + why));
  }
  const std::string file = t->dir + "/run/change.patch";
  Result<std::string> bytes = ctx.env->ReadFile(file, kMaxPatch);
  if (!bytes.ok())
    return FailTo(ctx.err, ExitForRead(bytes.status()), "read " + file, bytes.status().message());
  if (Sha256Hex(*bytes) != StringField(*patch, "sha256"))
    return FailTo(ctx.err, kExitData, "read " + file,
                  "its sha256 is not the one return.json recorded: it changed after the return");
  t->patch = std::move(bytes).value();
  if (Result<json::Value> intake = view.ReadJson(t->dir + "/intake.json"); intake.ok())
    if (const json::Value* w = intake->find("workspace"); w && w->is_object())
      t->workspace = StringField(*w, "git");
  return kExitOk;
}

}  // namespace

int RunPatch(const Context& ctx, const std::string& id) {
  Taken t;
  if (int rc = Take(ctx, id, &t); rc != kExitOk) return rc;
  if (ctx.json) {
    json::Value v = t.change;
    v["id"] = id;
    v["patch_text"] = t.patch;
    PrintJson(ctx.out, v);
  } else {
    ctx.out << t.patch;
  }
  return kExitOk;
}

int RunApply(const Context& ctx, const std::string& id, const std::string& to, bool three_way) {
  Taken t;
  if (int rc = Take(ctx, id, &t); rc != kExitOk) return rc;
  const std::string target = to.empty() ? t.workspace : to;
  const std::string what = "apply the change of " + id + " to " + target;
  if (target.empty())
    return FailTo(ctx.err, kExitUsage, "apply the change of " + id,
                  "intake.json names no repository: give --to PATH");
  if (t.patch.empty()) {
    ctx.out << id << ": the change is empty; nothing to apply\n";
    return kExitOk;
  }
  // The user's own git, in the user's repository, with the user's configuration: this is the
  // person taking the change, not the kernel reading a drone's work.
  auto git = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"git", "-C", target});
    return RunCommand(args, std::chrono::minutes(5));
  };
  CommandResult dirty = git({"status", "--porcelain", "--untracked-files=no"});
  if (!dirty.ok()) return FailTo(ctx.err, kExitNoInput, what, dirty.Describe("git status"));
  if (!dirty.out.empty())
    return FailTo(ctx.err, kExitData, what,
                  "it has uncommitted changes (git status): commit or stash them first");
  CommandResult head = git({"rev-parse", "--verify", "HEAD"});
  std::string at = head.out.substr(0, head.out.find('\n'));
  if (!head.ok() || at != t.base) {
    if (!three_way)
      return FailTo(ctx.err, kExitData, what,
                    "it is at " + (at.empty() ? std::string("no commit") : at) +
                        ", not the mission's base " + t.base +
                        " (check out the base, or give --3way to merge)");
  }
  const std::filesystem::path tmp = std::filesystem::temp_directory_path() /
                                    ("hangar-" + id + "-" + std::to_string(getpid()) + ".patch");
  Status w = ctx.env->WriteFileAtomic(tmp.parent_path().string(), tmp.filename().string(), t.patch);
  if (!w.ok()) return FailTo(ctx.err, kExitCantCreate, what, w.message());
  std::vector<std::string> args = {"apply", "--index", "--whitespace=nowarn"};
  if (three_way) args.push_back("--3way");
  args.push_back(tmp.string());
  CommandResult r = git(args);
  std::error_code ec;
  std::filesystem::remove(tmp, ec);
  if (!r.ok()) return FailTo(ctx.err, kExitData, what, r.Describe("git apply"));
  ctx.out << "applied the change of " << id << " (" << t.patch.size() << " bytes, base " << t.base
          << ") to " << Printable(target) << ", staged: git -C " << Printable(target)
          << " diff --cached shows it\n";
  return kExitOk;
}

}  // namespace hangar::cli
