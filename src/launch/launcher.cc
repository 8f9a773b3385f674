#include "launch/launcher.h"

#include <fcntl.h>
#include <signal.h>

#include "launch/direct_launcher.h"
#include "launch/engine_launcher.h"
#include "launch/sandbox_command.h"
#include "launch/supervisor.h"
#include "shell/scan.h"

namespace hangar {

namespace {

// hangar-shim on this machine: started and cancelled through direct_launcher.h, observed by its
// run/lock and run/exit.json.
class DirectLauncher : public Launcher {
 public:
  DirectLauncher(Env* env, std::string shim, ShimZygote* zygote)
      : env_(env), shim_(std::move(shim)), zygote_(zygote) {}

  Status Start(const Plan& plan, const std::string& plan_file, const std::string& sha256) override {
    return zygote_ ? zygote_->Start(plan_file, sha256, SandboxCutsNetwork(plan))
                   : StartShim(shim_, plan_file, sha256);
  }

  // The zygote's begun request, kept (ShimZygote::Begun).
  struct ZygoteBegun : Begun {
    explicit ZygoteBegun(ShimZygote::Begun b) : request(std::move(b)) {}
    ShimZygote::Begun request;
  };

  std::unique_ptr<Begun> Begin(const Plan& plan, const std::string& plan_file,
                               const std::string& sha256, const std::string& plan_text,
                               const std::string& run_now) override {
    if (!zygote_) return nullptr;
    // Only for a drone made before its go; not opened (gone, not a directory): the launch is
    // begun without it, its sandbox made after the go.
    UniqueFd run(SandboxBeforeGo(plan)
                     ? open(run_now.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                     : -1);
    std::optional<ShimZygote::Begun> b =
        zygote_->Begin(plan_file, sha256, plan_text, SandboxCutsNetwork(plan), run.get());
    return b ? std::make_unique<ZygoteBegun>(std::move(*b)) : nullptr;
  }

  Status StartBegun(const Plan& plan, const std::string& plan_file, const std::string& sha256,
                    std::unique_ptr<Begun> begun) override {
    auto* mine = dynamic_cast<ZygoteBegun*>(begun.get());
    if (!zygote_ || !mine) return Start(plan, plan_file, sha256);
    return zygote_->Start(plan_file, sha256, std::move(mine->request));
  }

  Result<EngineReport> Observe(const Plan& plan) override {
    EngineReport r;
    r.name = r.id = plan.run;
    if (SupervisorAlive(plan.run)) {
      r.state = EngineReport::State::kRunning;
      return r;
    }
    Result<ExitInfo> e = ReadExit(env_, plan.run);  // after the lock test: see scan.h
    if (e.ok()) {
      r.state = EngineReport::State::kEnded;
      r.exit = *e;
    } else if (e.status().code() != Code::kNotFound) {
      return e.status();
    }
    return r;
  }

  Status Cancel(const Plan& plan) override { return SignalSupervisor(plan.run, SIGTERM); }

 private:
  Env* env_;
  std::string shim_;
  ShimZygote* zygote_;
};

}  // namespace

std::vector<Result<EngineReport>> Launcher::ObserveAll(const std::vector<Plan>& plans) {
  std::vector<Result<EngineReport>> out;
  for (const Plan& plan : plans) {
    if (!out.empty() && out.back().status().code() == Code::kUnavailable)
      out.push_back(out.back().status());
    else
      out.push_back(Observe(plan));
  }
  return out;
}

bool StartUnsettled(Env* env, const Plan& plan) {
  return !env->Exists(plan.run + "/" + kEngineRecord) && env->Exists(plan.run + "/" + kStartRecord);
}

std::unique_ptr<Launcher> MakeLauncher(const std::string& name, Env* env, const std::string& shim,
                                       CommandRunner run, ShimZygote* zygote) {
  if (name == "direct") return std::make_unique<DirectLauncher>(env, shim, zygote);
  if (name == "systemd") return MakeSystemdLauncher(env, shim, std::move(run), SystemdOptions{});
  if (name == "slurm") return MakeSlurmLauncher(env, shim, std::move(run), SlurmOptions{});
  return nullptr;
}

}  // namespace hangar
