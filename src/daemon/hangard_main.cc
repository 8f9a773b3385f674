// hangard: the hangar kernel daemon. See man/hangard.8.
#include <malloc.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "daemon/daemon.h"
#include "daemon/sd_notify.h"
#include "daemon/stderr_log.h"
#include "env/env.h"
#include "env/fault_env.h"
#include "kernel/config.h"
#include "kernel/policy.h"
#include "kernel/setup_record.h"
#include "kernel/version.h"
#include "launch/drone_exec.h"
#include "shell/landlock.h"
#include "shell/namespace_sandbox.h"
#include "shell/users.h"

namespace {

constexpr int kExUsage = 64, kExIoErr = 74, kExTempFail = 75, kExConfig = 78;

std::string SelfDir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, size_t(n));
  return p.substr(0, p.rfind('/'));
}

std::string Absolute(const std::string& p) {
  if (p.empty() || p[0] == '/') return p;
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) return p;
  return std::string(cwd) + "/" + p;
}

// bubblewrap on hangard's PATH (else the usual places): the sandbox every "bwrap" profile needs.
// Empty when it is not installed: stage 2 then denies those launches, never runs them unsandboxed.
// The same for socat, the forwarder inside an egress sandbox (network "egress").
std::string FindTool(const char* name) {
  const char* path = getenv("PATH");
  std::string dirs = path && *path ? path : "";
  dirs += (dirs.empty() ? "" : ":") + std::string("/usr/bin:/bin");
  return hangar::FindProgram(name, dirs, "/").value_or("");
}

int Fail(int code, const std::string& msg) {
  hangar::WriteStderr(hangar::StderrIsJournal(), hangar::Priority::kErr, "", msg);
  return code;
}

void Warn(const std::string& msg) {
  hangar::WriteStderr(hangar::StderrIsJournal(), hangar::Priority::kWarning, "", "warning: " + msg);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace hangar;
  // One malloc arena: hangard's memory is its kernel state (about a KiB per mission known), and
  // every extra arena a worker thread opens (recovery reads a deep queue on several) keeps tens of
  // MiB that are never handed back. Its threads spend their time in system calls, not in malloc.
  mallopt(M_ARENA_MAX, 1);
  CLI::App app{"hangard: the hangar kernel daemon (runs in the foreground)"};
  app.set_version_flag("--version", VersionLine("hangard"));
  std::string spool, config_path, anchor;
  app.add_option("--spool", spool, "spool directory (else the config's \"spool\")");
  app.add_option(
      "--anchor", anchor,
      "ledger anchor directory, meant to be another mount (else the config's \"anchor\")");
  app.add_option("--config", config_path, "config file (default SPOOL/hangar.conf)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kExUsage;
  }
  if (spool.empty() && config_path.empty())
    return Fail(kExUsage, "cannot start: give --spool DIR or --config FILE");
  spool = Absolute(spool);
  if (config_path.empty()) config_path = DefaultConfigPath(spool);
  config_path = Absolute(config_path);

  Env* env = RealEnv();
  // A testing aid (man/hangard.8, ENVIRONMENT): crash-safety tests make hangard fail or end at its
  // Nth mutating call, or count its calls. Never set in production; said loudly when set.
  Result<std::unique_ptr<FaultEnv>> fault =
      FaultEnvFromVariables(RealEnv(), getenv("HANGAR_FAULT"), getenv("HANGAR_FAULT_LOG"),
                            getenv("HANGAR_FAULT_CLOCK_MS"));
  if (!fault.ok())
    return Fail(fault.status().code() == Code::kInvalid ? kExUsage : kExIoErr,
                fault.status().message());
  if (FaultEnv* f = fault->get()) {
    env = f;
    const char* fault_log = getenv("HANGAR_FAULT_LOG");
    Warn("faults are injected, for testing only: " + DescribeFaultPlan(f->plan()) +
         (fault_log ? std::string("; mutating calls logged to ") + fault_log : "") +
         (f->clock_offset() ? "; the clock is off by " + std::to_string(f->clock_offset()) + " ms"
                            : ""));
  }

  Result<std::string> text = env->ReadFile(config_path, 1 << 20);
  if (!text.ok()) return Fail(kExConfig, text.status().message());
  Result<Config> config = ParseConfig(*text, config_path);
  if (!config.ok()) return Fail(kExConfig, "cannot load config: " + config.status().message());
  if (spool.empty()) spool = config->spool;
  if (spool.empty())
    return Fail(kExConfig,
                "cannot start: " + config_path + ": spool: not given here nor by --spool");
  if (!env->Exists(spool))
    return Fail(kExConfig, "cannot start: spool " + spool + " does not exist");

  if (anchor.empty()) anchor = config->anchor;
  if (anchor.empty())
    return Fail(kExConfig, "cannot start: no ledger anchor: give --anchor DIR or \"anchor\" in " +
                               config_path + " (a directory on another mount)");
  anchor = Absolute(anchor);
  if (struct stat st{}; stat(anchor.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Fail(kExConfig, "cannot start: anchor " + anchor +
                               " is not a directory (mount the anchor filesystem there)");

  // What the setup is built from, as facts (kernel/setup_record.h): recorded as the signal
  // record's start line, so a replay builds the same setup by the same code.
  SetupFacts facts;
  facts.config_file = config_path;
  facts.config_text = *text;
  // The policy is validated whole before anything starts: a bad one never loads half-way.
  if (!config->policy.empty()) {
    Result<std::string> ptext = env->ReadFile(config->policy, 1 << 20);
    if (!ptext.ok()) return Fail(kExConfig, "cannot load policy: " + ptext.status().message());
    facts.policy_file = config->policy;
    facts.policy_text = *ptext;
  }
  facts.cpus = int(std::max(1u, std::thread::hardware_concurrency()));
  facts.spool = spool;
  facts.bindir = SelfDir();
  facts.anchor = anchor;
  if (const char* home = getenv("HOME"); home && home[0] == '/')
    facts.home = home;
  else
    facts.home = "/";
  facts.homes = HomeDirectories();
  facts.bwrap = FindTool("bwrap");
  facts.socat = FindTool("socat");
  facts.landlock_abi = LandlockAbi();  // what the plans' sandboxes hide by (kernel/plan.h)
  facts.root = geteuid() == 0;
  Result<std::set<int64_t>> approvers = ResolveApprovers(config->approvers, geteuid());
  if (!approvers.ok())
    return Fail(kExConfig, "cannot start: " + config_path + ": " + approvers.status().message());
  facts.approvers = std::move(approvers).value();
  if (const std::string& a = config->allowed_signers; !a.empty()) {
    if (Result<std::string> t = env->ReadFile(a, 1 << 20); !t.ok())
      return Fail(kExConfig,
                  "cannot start: " + config_path + ": allowed_signers: " + t.status().message());
  }
  if (!config->drone_user.empty()) {
    if (!facts.root)
      return Fail(kExConfig, "cannot start: " + config_path +
                                 ": drone_user: only a hangard run "
                                 "as root can run drones as " +
                                 config->drone_user +
                                 " (leave it out: drones then run as hangard's own user)");
    const passwd* pw = getpwnam(config->drone_user.c_str());
    if (!pw)
      return Fail(kExConfig, "cannot start: " + config_path + ": drone_user: no user named " +
                                 config->drone_user);
    if (pw->pw_uid == 0)
      return Fail(kExConfig, "cannot start: " + config_path +
                                 ": drone_user: " + config->drone_user + " is uid 0");
    facts.drone_uid = pw->pw_uid;
    facts.drone_gid = pw->pw_gid;
  }
  Result<KernelSetup> built = BuildSetup(facts);
  if (!built.ok()) return Fail(kExConfig, built.status().message());
  KernelSetup setup = std::move(built).value();
  Layout layout = Layout::Make(spool, setup.config.rooms);
  for (const auto& [name, profile] : setup.config.profiles)
    if (profile.sandbox == "bwrap" && setup.bwrap.empty())
      Warn("profile " + name +
           " runs drones in bubblewrap, which is not installed (Debian package bubblewrap): its "
           "missions are denied at launch, never run unsandboxed");
  // Engine "namespaces": the host asked once, as the drones' user, whichever profiles name it.
  std::vector<std::string> own;
  for (const auto& [name, profile] : setup.config.profiles)
    if (profile.sandbox == "namespaces") own.push_back(name);
  if (!own.empty())
    if (std::string why = hangar::NamespaceSandboxUnavailable(facts.drone_uid, facts.drone_gid);
        !why.empty())
      for (const std::string& name : own)
        Warn("profile " + name +
             " runs drones in hangar-confine's own sandbox (sandbox \"namespaces\"), which this "
             "host refuses: " +
             why + "; its launches will fail (sandbox \"bwrap\" needs the same)");
  // An engine launcher needs its tools on hangard's PATH; without them each launch fails (the
  // mission returns failed with the reason), so say it once at start.
  for (const auto& [name, profile] : setup.config.profiles) {
    const char* tool = profile.launcher == "systemd" ? "systemd-run"
                       : profile.launcher == "slurm" ? "sbatch"
                                                     : nullptr;
    const char* path = getenv("PATH");
    if (tool && !hangar::FindProgram(tool, path ? path : "", "/"))
      Warn("profile " + name + " runs drones with launcher " + profile.launcher + ", but " + tool +
           " is not on hangard's PATH: its launches will fail");
  }
  ManifestLimits limits{setup.config.manifest_max_entries, setup.config.manifest_max_hash_bytes};

  Daemon d(env, setup, facts, layout, limits, setup.bindir + "/hangar-shim", config_path, anchor);
  Status s = d.Start();
  // Invalid: something only the operator can fix (the anchor, the checkpoint key, a damaged
  // ledger); restarting will not heal it.
  if (!s.ok())
    return Fail(s.code() == Code::kUnavailable ? kExTempFail
                : s.code() == Code::kInvalid   ? kExConfig
                                               : kExIoErr,
                s.message());
  SdNotify("READY=1");
  s = d.Run();
  if (d.restart()) {
    // Space came back after a stop for a full disk (daemon/daemon.h): start again in place, as a
    // fresh process would (the same pid for systemd and for the supervisors' records), on the real
    // environment: a fault plan given for this run is not the next start's.
    std::fflush(stderr);
    d.ReleaseShimZygote();  // else it ends as a zombie of the new image, which knows it not
    SdNotify("STATUS=restarting in place: space is back on the spool");
    unsetenv("HANGAR_FAULT");
    unsetenv("HANGAR_FAULT_LOG");
    execv("/proc/self/exe", argv);
    Fail(0, std::string("cannot restart in place (") + std::strerror(errno) +
                "); exiting for a restart");
    _exit(kExTempFail);
  }
  SdNotify("STOPPING=1");
  std::fflush(stderr);
  // Observations still in flight are redone at the next start (their missions stay in running/);
  // do not wait for their done-checks here.
  if (!s.ok()) {
    Fail(0, "fatal: " + s.message());
    _exit(kExIoErr);
  }
  _exit(0);
}
