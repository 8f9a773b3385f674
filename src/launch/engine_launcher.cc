#include "launch/engine_launcher.h"

#include <map>
#include <optional>

#include "base/json.h"
#include "base/timefmt.h"
#include "launch/sandbox_command.h"
#include "launch/sandbox_command.h"

namespace hangar {

namespace {

using State = EngineReport::State;

std::string ProgramOf(const std::vector<std::string>& argv) {
  return argv.empty() ? std::string("(none)") : argv[0];
}

// systemd: the unit hangar-ID-N.service runs `hangar-shim --exec`; its end is what ExecStopPost
// kept (run/unit-ended.json) or, until the manager forgets the unit, what `systemctl show` says.
class SystemdLauncher : public Launcher {
 public:
  SystemdLauncher(Env* env, std::string shim, CommandRunner run, SystemdOptions o)
      : env_(env), shim_(std::move(shim)), run_(std::move(run)), o_(std::move(o)) {}

  Status Start(const Plan& plan, const std::string& plan_file, const std::string& sha256) override {
    const SystemdOptions o = For(plan);
    if (Status s = CheckSystemdShim(shim_); !s.ok()) return Status::Invalid(s.message());
    // The unit runs on this host: a program it could not execute fails here, as under the direct
    // launcher, not as a unit that exited 127. (A Slurm job may run on another node, whose
    // programs this host cannot judge: there hangar-shim --exec says it, exit 127.)
    if (Result<std::string> p = PlanProgram(plan); !p.ok())
      return Status::Invalid(p.status().message());
    const std::string unit = UnitName(plan.id, plan.attempt);
    Result<std::vector<EngineReport>> known = Show(plan, {unit});
    if (!known.ok())
      return Status::Io("cannot ask systemd about " + unit + ": " + known.status().message());
    if (known->at(0).state != State::kUnknown)
      return Status::Exists("unit " + unit + " already exists (" + known->at(0).detail +
                            "): never started again under the same name");
    if (Status s = WriteStartRecord(env_, plan, "systemd", unit); !s.ok())
      return Status::Io("cannot write " + plan.run + "/" + kStartRecord + ": " + s.message());
    const std::vector<std::string> argv = SystemdRunArgv(plan, shim_, plan_file, sha256, o);
    CommandResult r = run_(argv);
    if (!r.ok())
      return r.started && !r.rc ? Status::Unavailable(r.Describe(ProgramOf(argv)))
                                : Status::Io(r.Describe(ProgramOf(argv)));
    (void)WriteEngineRecord(env_, plan, "systemd", unit, unit);  // not kept: the name identifies it
    return Status::Ok();
  }

  Result<EngineReport> Observe(const Plan& plan) override { return ObserveAll({plan})[0]; }

  // Each drone's ExecStopPost record first; then one `systemctl show` per manager (system, user)
  // for the units without one.
  std::vector<Result<EngineReport>> ObserveAll(const std::vector<Plan>& plans) override {
    std::vector<std::optional<Result<EngineReport>>> got(plans.size());
    for (bool user : {false, true}) {
      std::vector<size_t> ask;
      std::vector<std::string> units;
      for (size_t i = 0; i < plans.size(); ++i) {
        if (plans[i].systemd_user != user) continue;
        Result<EngineReport> ended = Ended(plans[i]);
        if (ended.ok() || ended.status().code() != Code::kNotFound) {
          got[i] = ended;
          continue;
        }
        ask.push_back(i);
        units.push_back(UnitName(plans[i].id, plans[i].attempt));
      }
      if (ask.empty()) continue;
      Result<std::vector<EngineReport>> shown = Show(plans[ask[0]], units);
      for (size_t k = 0; k < ask.size(); ++k) {
        const Plan& plan = plans[ask[k]];
        if (!shown.ok()) {
          got[ask[k]] = shown.status();
          continue;
        }
        const EngineReport& r = shown->at(k);
        if (r.state == State::kUnknown) {
          // Ended and forgotten between the two looks: its ExecStopPost record is there now.
          if (Result<EngineReport> ended = Ended(plan); ended.status().code() != Code::kNotFound) {
            got[ask[k]] = ended;
            continue;
          }
        }
        got[ask[k]] = r.state == State::kEnded ? Completed(env_, plan, r, env_->Now()) : r;
      }
    }
    std::vector<Result<EngineReport>> out;
    for (auto& g : got) out.push_back(*g);
    return out;
  }

  Status Cancel(const Plan& plan) override {
    if (Status s = WriteCancelRecord(env_, plan); !s.ok()) return s;
    const std::vector<std::string> argv =
        SystemctlStopArgv(UnitName(plan.id, plan.attempt), For(plan));
    CommandResult r = run_(argv);
    if (!r.ok()) return Status::Unavailable(r.Describe(ProgramOf(argv)));
    return Status::Ok();
  }

 private:
  SystemdOptions For(const Plan& plan) const {
    SystemdOptions o = o_;
    o.user = plan.systemd_user;
    return o;
  }

  // What `systemctl show` says of UNITS, in their order, from PLAN's manager.
  Result<std::vector<EngineReport>> Show(const Plan& plan, const std::vector<std::string>& units) {
    const std::vector<std::string> argv = SystemctlShowArgv(units, For(plan));
    CommandResult r = run_(argv);
    if (!r.ok()) return Status::Unavailable(r.Describe(ProgramOf(argv)));
    return ParseSystemctlShow(r.out, units);
  }

  // What ExecStopPost kept; NotFound when it has not run (yet).
  Result<EngineReport> Ended(const Plan& plan) {
    Result<std::string> text = env_->ReadFile(plan.run + "/unit-ended.json", 1 << 16);
    if (!text.ok()) return text.status();
    Result<json::Value> doc = json::Parse(*text);
    if (!doc.ok()) return Status::Invalid(plan.run + "/unit-ended.json: " + doc.status().message());
    Result<EngineReport> r = ReportFromUnitEnded(*doc);
    if (!r.ok()) return Status::Invalid(plan.run + "/unit-ended.json: " + r.status().message());
    if (const std::string unit = UnitName(plan.id, plan.attempt); r->name != unit)
      return Status::Invalid(plan.run + "/unit-ended.json: unit: " + r->name + ", not " + unit);
    return Completed(env_, plan, *r, env_->Now());
  }

  Env* env_;
  std::string shim_;
  CommandRunner run_;
  SystemdOptions o_;
};

// Slurm: the job hangar-ID-N runs run/job.sh (`hangar-shim --exec`). Observed by squeue while the
// controller retains it, by scontrol, then by sacct -c over the completion log once purged.
class SlurmLauncher : public Launcher {
 public:
  SlurmLauncher(Env* env, std::string shim, CommandRunner run, SlurmOptions o)
      : env_(env), shim_(std::move(shim)), run_(std::move(run)), o_(std::move(o)) {}

  Status Start(const Plan& plan, const std::string& plan_file, const std::string& sha256) override {
    const SlurmOptions o = For(plan);
    const std::string name = JobName(plan.id, plan.attempt);
    Result<std::vector<EngineReport>> same = ByName(name);
    if (!same.ok())
      return Status::Io("cannot ask Slurm about job " + name + ": " + same.status().message());
    if (!same->empty())
      return Status::Exists("Slurm already has job " + same->front().id + " named " + name +
                            ": never submitted again under the same name");
    if (Status s = WriteStartRecord(env_, plan, "slurm", name); !s.ok())
      return Status::Io("cannot write " + plan.run + "/" + kStartRecord + ": " + s.message());
    if (Status s = env_->WriteFileAtomic(plan.run, "job.sh", BatchScript(shim_, plan_file, sha256));
        !s.ok())
      return Status::Io("cannot write " + plan.run + "/job.sh: " + s.message());
    const std::vector<std::string> argv = SbatchArgv(plan, plan.run + "/job.sh", o);
    CommandResult r = run_(argv);
    // sbatch that ran may have reached the controller even when it says it failed ("Socket timed
    // out" after the job was made): only its answer tells, so it is asked by the job's name.
    if (!r.ok())
      return r.started ? Status::Unavailable(r.Describe(ProgramOf(argv)))
                       : Status::Io(r.Describe(ProgramOf(argv)));
    Result<std::string> job = ParseSbatch(r.out);
    if (!job.ok()) return Status::Unavailable("sbatch: " + job.status().message());
    // Not kept: the job runs all the same, and is found again by its exact name.
    (void)WriteEngineRecord(env_, plan, "slurm", name, *job);
    return Status::Ok();
  }

  Result<EngineReport> Observe(const Plan& plan) override {
    const std::string name = JobName(plan.id, plan.attempt);
    Result<std::string> job = ReadEngineId(env_, plan);
    if (!job.ok()) {
      // Submitted, but its id was not kept (a crash in between): found by its exact name.
      Result<std::vector<EngineReport>> same = ByName(name);
      if (!same.ok()) return same.status();
      if (same->empty()) return EngineReport{};  // never submitted, or long forgotten
      job = same->front().id;
      (void)WriteEngineRecord(env_, plan, "slurm", name, *job);  // found: kept from now on
    }
    Result<EngineReport> r = Look(*job);
    if (!r.ok()) return r;
    return Checked(plan, *r);
  }

  std::vector<Result<EngineReport>> ObserveAll(const std::vector<Plan>& plans) override {
    std::vector<std::optional<Result<EngineReport>>> got(plans.size());
    std::vector<std::string> job_of(plans.size());  // the id kept for each plan, or ""
    std::map<std::string, size_t> by_job;
    std::vector<std::string> jobs;
    for (size_t i = 0; i < plans.size(); ++i)
      if (Result<std::string> job = ReadEngineId(env_, plans[i]); job.ok()) {
        job_of[i] = *job;
        by_job[*job] = i;
        jobs.push_back(*job);
      }
    if (!jobs.empty()) {
      const std::vector<std::string> argv = SqueueArgv(jobs, o_);
      CommandResult r = run_(argv);
      if (r.ok()) {
        Result<std::vector<EngineReport>> all = ParseSqueue(r.out);
        if (!all.ok()) return std::vector<Result<EngineReport>>(plans.size(), all.status());
        for (const EngineReport& e : *all) {
          auto at = by_job.find(e.id);
          if (at == by_job.end()) continue;
          const Plan& plan = plans[at->second];
          got[at->second] = Checked(plan, e);
        }
      } else if (!r.started || !r.rc ||
                 r.err.find("Invalid job id specified") == std::string::npos) {
        // squeue says "Invalid job id" (rc 1) when it retains none of them: asked one by one
        // below; any other failure is the controller's, and then nobody is asked again now.
        return std::vector<Result<EngineReport>>(plans.size(),
                                                 Status::Unavailable(r.Describe(ProgramOf(argv))));
      }
    }
    std::vector<Result<EngineReport>> out;
    for (size_t i = 0; i < plans.size(); ++i) {
      if (got[i]) {
        out.push_back(*got[i]);
      } else if (!out.empty() && out.back().status().code() == Code::kUnavailable) {
        out.push_back(out.back().status());
      } else if (!job_of[i].empty()) {
        // Its id was kept and squeue, just asked, no longer has it: purged.
        Result<EngineReport> r = LookPurged(job_of[i]);
        out.push_back(r.ok() ? Checked(plans[i], *r) : r);
      } else {
        out.push_back(Observe(plans[i]));  // no id kept: found by its exact name
      }
    }
    return out;
  }

  Status Cancel(const Plan& plan) override {
    if (Status s = WriteCancelRecord(env_, plan); !s.ok()) return s;
    Result<EngineReport> now = Observe(plan);
    if (!now.ok()) return Status::Unavailable(now.status().message());
    if (now->state == State::kEnded) return Status::Ok();
    // Not known (yet): a job whose submission is not settled may still appear; asked again.
    if (now->state == State::kUnknown)
      return Status::Unavailable("Slurm knows no job " + JobName(plan.id, plan.attempt) + " yet");
    const std::vector<std::string> argv = ScancelArgv(now->id, For(plan));
    CommandResult r = run_(argv);
    if (!r.ok()) return Status::Unavailable(r.Describe(ProgramOf(argv)));
    return Status::Ok();  // scancel says 0 for any id: the end is observed, not assumed
  }

 private:
  // R as the answer for PLAN: a job of another name under its id is refused, never taken for it;
  // an end is made whole (Completed).
  Result<EngineReport> Checked(const Plan& plan, const EngineReport& r) {
    const std::string name = JobName(plan.id, plan.attempt);
    if (r.state != State::kUnknown && r.name != name && !r.name.empty())
      return Status::Invalid("Slurm job " + r.id + " is named " + r.name + ", not " + name);
    if (r.state == State::kEnded) return Completed(env_, plan, r, env_->Now());
    return r;
  }

  SlurmOptions For(const Plan& plan) const {
    SlurmOptions o = o_;
    o.partition = plan.slurm_partition;
    return o;
  }

  Result<std::vector<EngineReport>> ByName(const std::string& name) {
    const std::vector<std::string> argv = SqueueByNameArgv(name, o_);
    CommandResult r = run_(argv);
    if (!r.ok()) return Status::Unavailable(r.Describe(ProgramOf(argv)));
    Result<std::vector<EngineReport>> all = ParseSqueue(r.out);
    if (!all.ok()) return all.status();
    std::vector<EngineReport> same;
    for (const EngineReport& e : *all)
      if (e.name == name) same.push_back(e);
    return same;
  }

  // squeue while the controller retains the job, then the purged job's way (LookPurged).
  Result<EngineReport> Look(const std::string& job) {
    std::vector<std::string> argv = SqueueArgv({job}, o_);
    CommandResult r = run_(argv);
    if (r.ok()) {
      Result<std::vector<EngineReport>> all = ParseSqueue(r.out);
      if (!all.ok()) return all.status();
      for (const EngineReport& e : *all)
        if (e.id == job) return e;
    } else if (!r.started || !r.rc) {
      return Status::Unavailable(r.Describe(ProgramOf(argv)));
    }
    return LookPurged(job);
  }

  // A job squeue no longer lists: scontrol, then the completion log (sacct -c); unknown to both,
  // an empty report.
  Result<EngineReport> LookPurged(const std::string& job) {
    std::vector<std::string> argv = ScontrolShowArgv(job, o_);
    CommandResult r = run_(argv);
    if (r.started && r.rc) {
      Result<EngineReport> e = ParseScontrolShowJob(r.out + r.err);
      if (e.ok()) return e;
      if (e.status().code() != Code::kNotFound) {
        if (*r.rc != 0) return Status::Unavailable(r.Describe(ProgramOf(argv)));
        return e;
      }
    } else {
      return Status::Unavailable(r.Describe(ProgramOf(argv)));
    }
    argv = SacctCompletionArgv(job, o_);
    r = run_(argv);
    if (!r.ok()) return Status::Unavailable(r.Describe(ProgramOf(argv)));
    Result<EngineReport> e = ParseSacctCompletion(r.out, job);
    if (e.status().code() == Code::kNotFound) return EngineReport{};
    return e;
  }

  Env* env_;
  std::string shim_;
  CommandRunner run_;
  SlurmOptions o_;
};

}  // namespace

std::unique_ptr<Launcher> MakeSystemdLauncher(Env* env, const std::string& shim, CommandRunner run,
                                              SystemdOptions o) {
  return std::make_unique<SystemdLauncher>(env, shim, std::move(run), std::move(o));
}

std::unique_ptr<Launcher> MakeSlurmLauncher(Env* env, const std::string& shim, CommandRunner run,
                                            SlurmOptions o) {
  return std::make_unique<SlurmLauncher>(env, shim, std::move(run), std::move(o));
}

Status WriteEngineRecord(Env* env, const Plan& plan, const std::string& launcher,
                         const std::string& name, const std::string& engine_id) {
  json::Object o{{"hangar", 1},
                 {"launcher", launcher},
                 {"name", name},
                 {"id", engine_id},
                 {"submitted", FormatTime(env->Now())}};
  return env->WriteFileAtomic(plan.run, kEngineRecord, json::WritePretty(o));
}

Status WriteStartRecord(Env* env, const Plan& plan, const std::string& launcher,
                        const std::string& name) {
  json::Object o{
      {"hangar", 1}, {"launcher", launcher}, {"name", name}, {"time", FormatTime(env->Now())}};
  return env->WriteFileAtomic(plan.run, kStartRecord, json::WritePretty(o));
}

namespace {

Result<json::Value> ReadEngineRecord(Env* env, const Plan& plan) {
  Result<std::string> text = env->ReadFile(plan.run + "/" + kEngineRecord, 1 << 16);
  if (!text.ok()) return text.status();
  Result<json::Value> doc = json::Parse(*text);
  if (!doc.ok() || !doc->is_object())
    return Status::Invalid(plan.run + "/" + kEngineRecord + ": not a JSON object");
  return doc;
}

}  // namespace

Result<std::string> ReadEngineId(Env* env, const Plan& plan) {
  Result<json::Value> doc = ReadEngineRecord(env, plan);
  if (!doc.ok()) return doc.status();
  const json::Value* id = doc->find("id");
  if (!id || !id->is_string() || id->as_string().empty())
    return Status::Invalid(plan.run + "/" + kEngineRecord + ": id: expected a string");
  return id->as_string();
}

bool CancelRecorded(Env* env, const Plan& plan) {
  return env->Exists(plan.run + "/" + kCancelRecord);
}

Status WriteCancelRecord(Env* env, const Plan& plan) {
  if (CancelRecorded(env, plan)) return Status::Ok();
  json::Object o{{"hangar", 1}, {"time", FormatTime(env->Now())}};
  return env->WriteFileAtomic(plan.run, kCancelRecord, json::WritePretty(o));
}

EngineReport Completed(Env* env, const Plan& plan, EngineReport r, TimeMs now) {
  // A cancel counts when it came before the end (engines say times to the second): a drone that
  // ended by itself before hangar asked is not made a cancelled one.
  if (!r.exit.timed_out && !r.exit.cancelled && CancelRecorded(env, plan)) {
    Result<std::string> text = env->ReadFile(plan.run + "/" + kCancelRecord, 1 << 16);
    Result<json::Value> doc = text.ok() ? json::Parse(*text) : Result<json::Value>(text.status());
    const json::Value* t = doc.ok() && doc->is_object() ? doc->find("time") : nullptr;
    std::optional<TimeMs> asked = t && t->is_string() ? ParseTime(t->as_string()) : std::nullopt;
    r.exit.cancelled = !asked || r.exit.ended == 0 || r.exit.ended + 1000 >= *asked;
  }
  if (r.exit.ended == 0) r.exit.ended = now;
  if (r.exit.started == 0) {
    Result<json::Value> doc = ReadEngineRecord(env, plan);
    const json::Value* t = doc.ok() ? doc->find("submitted") : nullptr;
    std::optional<TimeMs> at = t && t->is_string() ? ParseTime(t->as_string()) : std::nullopt;
    r.exit.started = at ? *at : r.exit.ended;
  }
  return r;
}

}  // namespace hangar
