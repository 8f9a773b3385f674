#include "launch/exec_plan.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

#include "base/json.h"
#include "env/env.h"
#include "launch/checkout.h"
#include "launch/drone_exec.h"
#include "launch/sandbox_command.h"
#include "launch/supervisor.h"
#include "launch/systemd_unit.h"
#include "shell/child_run.h"

extern char** environ;

namespace hangar {

namespace {

int Fail(int code, const std::string& why) {
  std::string line = "hangar-shim: " + why + "\n";
  (void)!write(2, line.data(), line.size());
  return code;
}

}  // namespace

int ExecPlan(const std::string& plan_file, const std::string& plan_sha256) {
  Result<Plan> loaded = LoadPlanFile(plan_file, plan_sha256);
  if (!loaded.ok()) return Fail(kExecBadPlan, loaded.status().message());
  const Plan& plan = *loaded;
  if (plan.launcher != "systemd" && plan.launcher != "slurm")
    return Fail(kExecBadPlan, "cannot read plan " + plan_file + ": plan.json: launcher: \"" +
                                  plan.launcher + "\" is not run by an engine (--exec)");
  auto sys = [&](const std::string& what) {
    return Fail(kExecCannotRun,
                "cannot start drone for mission " + plan.id + ": " + what + ": " + strerror(errno));
  };
  const std::string in_path = plan.stdin_path.empty() ? "/dev/null" : plan.stdin_path;
  // Each above 2 (AboveStdio), so that the dup2 onto 0..2 below cannot lose one: an engine may
  // start us with a standard descriptor closed, and then open(2) returns it.
  const UniqueFd in = AboveStdio(open(in_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) return sys("open stdin " + in_path);
  const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW;
  const UniqueFd out = AboveStdio(open((plan.run + "/" + plan.stdout_file).c_str(), flags, 0644));
  if (out.get() < 0) return sys("create " + plan.run + "/" + plan.stdout_file);
  const UniqueFd err = AboveStdio(open((plan.run + "/stderr").c_str(), flags, 0644));
  if (err.get() < 0) return sys("create " + plan.run + "/stderr");
  // The sandbox binds exactly this file writable, so it must be there first (as the supervisor).
  if (!plan.last_message.empty()) {
    int fd = open(plan.last_message.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return sys("create " + plan.last_message);
    close(fd);
  }
  if (Status s = HandOverRoom(plan); !s.ok())
    return Fail(kExecCannotRun, "cannot start drone for mission " + plan.id + ": " + s.message());
  if (Status s = MakeCheckout(plan); !s.ok())
    return Fail(kExecCannotRun, "cannot start drone for mission " + plan.id + ": " + s.message());
  if (chdir(plan.room.c_str()) != 0) return sys("enter room " + plan.room);
  Result<DroneCommand> cmd = PlanCommand(plan);
  if (!cmd.ok())
    return Fail(kExecCannotRun,
                "cannot start drone for mission " + plan.id + ": " + cmd.status().message());
  std::vector<std::string> env_text;
  for (const auto& [k, v] : plan.env) env_text.push_back(k + "=" + v);
  std::vector<char*> argv, envp;
  for (const std::string& a : cmd->argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (std::string& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  // The drone starts with every signal at its default and none blocked, whatever the engine left.
  DefaultEverySignal();
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // stderr last: until then a failure is told on the engine's stderr (the journal, slurm.err).
  const int saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
  if (dup2(in.get(), 0) < 0 || dup2(out.get(), 1) < 0 || dup2(err.get(), 2) < 0) {
    if (saved >= 0) dup2(saved, 2);
    return sys("connect the drone's stdin, stdout and stderr");
  }
  // Nothing of the engine's (slurmstepd's, systemd's) reaches the drone but stdio.
  close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
  for (int fd : cmd->inherit()) fcntl(fd, F_SETFD, 0);  // the sandbox's binds
  if (int e = SetDroneLimits(plan.processes, plan.file_mb, plan.memory_mb); e != 0) {
    if (saved >= 0) dup2(saved, 2);
    errno = e;
    return sys("set the drone's limits");
  }
  if (int e = BecomeDroneUser(plan.uid, plan.gid); e != 0) {
    if (saved >= 0) dup2(saved, 2);
    errno = e;
    return sys("change to the drone's user");
  }
  execve(cmd->exe.c_str(), argv.data(), envp.data());
  const int e = errno;
  if (saved >= 0) dup2(saved, 2);
  errno = e;
  return sys("execute " + plan.argv[0]);
}

int RecordUnitEnded(const std::string& run_dir) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv(*e);
    size_t eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  json::Value rec = UnitEndedRecord(env, RealEnv()->Now());
  Status s = RealEnv()->WriteFileAtomic(run_dir, "unit-ended.json", json::WritePretty(rec));
  if (!s.ok()) return Fail(74, "cannot record the unit's end in " + run_dir + ": " + s.message());
  return 0;
}

}  // namespace hangar
