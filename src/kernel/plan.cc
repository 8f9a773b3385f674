#include "kernel/plan.h"

#include <set>

#include "base/pretty_writer.h"
#include "kernel/path_norm.h"

namespace hangar {

std::string ExpandTemplate(const std::string& s, const std::map<std::string, std::string>& vars) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '{') {
      size_t close = s.find('}', i);
      if (close != std::string::npos) {
        auto it = vars.find(s.substr(i + 1, close - i - 1));
        if (it != vars.end()) {
          out += it->second;
          i = close + 1;
          continue;
        }
      }
    }
    out.push_back(s[i++]);
  }
  return out;
}

std::map<std::string, std::string> TemplateVars(const std::string& id, const std::string& room,
                                                const std::string& run, const std::string& bindir) {
  return {
      {"room", room}, {"run", run}, {"id", id}, {"bindir", bindir}, {"prompt", run + "/prompt.md"}};
}

int64_t LauncherGranularityMs(const std::string& launcher) {
  if (launcher == "direct") return 1;
  if (launcher == "systemd") return 1000;
  if (launcher == "slurm") return 60000;
  return -1;
}

int64_t RoundUpDeadline(int64_t deadline_ms, int64_t granularity_ms) {
  return (deadline_ms + granularity_ms - 1) / granularity_ms * granularity_ms;
}

void ApplyProfileDefaults(Mission* m, const Config& config) {
  if (m->network_given) return;
  auto p = config.profiles.find(m->drone);
  if (p != config.profiles.end() && p->second.harness != Harness::kCommand) m->network = "egress";
}

std::vector<std::string> EgressAllowlist(const Mission& m, const Profile& p) {
  std::set<std::string> all;
  for (const Destination& d : p.egress) all.insert(d.Text());
  for (const Destination& d : m.egress) all.insert(d.Text());
  return {all.begin(), all.end()};
}

Plan BuildPlan(const Mission& m, const Profile& p, const PlanPlaces& where, int attempt) {
  Plan plan;
  plan.id = m.id;
  plan.attempt = attempt;
  plan.room = where.room;
  plan.run = where.run;
  const std::map<std::string, std::string> vars =
      TemplateVars(m.id, where.room, where.run, where.bindir);
  const std::string prompt = vars.at("prompt");
  for (const std::string& a : p.argv) plan.argv.push_back(ExpandTemplate(a, vars));
  for (const auto& [k, v] : p.env) plan.env[k] = ExpandTemplate(v, vars);
  if (!plan.env.count("PATH")) plan.env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  plan.env["HANGAR_MISSION"] = m.id;
  plan.env["HANGAR_ATTEMPT"] = std::to_string(attempt);
  plan.env["HOME"] = plan.env.count("HOME") ? plan.env["HOME"] : where.room;
  if (p.prompt == PromptVia::kStdin || p.prompt == PromptVia::kBoth) plan.stdin_path = prompt;
  plan.prompt_in_room = p.prompt == PromptVia::kFile || p.prompt == PromptVia::kBoth;
  plan.last_message = p.last_message.empty() ? "" : ExpandTemplate(p.last_message, vars);
  plan.stdout_file = p.stdout_file;
  plan.room_dirs = p.room_dirs;
  plan.network = m.network;
  if (m.network == "egress") {
    plan.egress.allow = EgressAllowlist(m, p);
    plan.egress.methods = p.egress_methods;
    plan.egress.proxy = where.bindir + "/hangar-egress";
    plan.egress.forwarder = where.socat;
    plan.egress.socket = where.run + "/egress.sock";
    for (const std::string& v : kEgressProxyVars) plan.env[v] = kEgressProxyUrl;
  }
  plan.sandbox.engine = p.sandbox;
  if (SandboxedEngine(p.sandbox)) {
    if (p.sandbox == "bwrap") plan.sandbox.bwrap = where.bwrap;
    std::set<std::string> hide;
    for (const std::string& h : where.hide) hide.insert(NormalizeAbsolute(h));
    plan.sandbox.hide.assign(hide.begin(), hide.end());
    plan.sandbox.landlock_abi = HidingLandlockAbi(where.landlock_abi);
  }
  plan.sandbox.write.push_back(where.room);
  for (const std::string& w : where.writes) plan.sandbox.write.push_back(w);
  plan.deadline_ms = m.deadline_ms();
  plan.grace_ms = int64_t(where.kill_grace_s) * 1000;
  plan.launcher = p.launcher;
  const int64_t g = LauncherGranularityMs(p.launcher);
  plan.enforced_deadline_ms = g > 0 ? RoundUpDeadline(plan.deadline_ms, g) : 0;
  plan.processes = where.limits.processes;
  plan.file_mb = where.limits.file_mb;
  plan.memory_mb = where.limits.memory_mb;
  plan.shm_mb = where.limits.shm_mb;
  plan.uid = where.uid;
  plan.gid = where.gid;
  if (p.launcher == "systemd") plan.systemd_user = where.launchers.systemd_user;
  if (p.launcher == "slurm") plan.slurm_partition = where.launchers.slurm_partition;
  plan.workspace = where.workspace;
  return plan;
}

std::optional<PlanWorkspace> WorkspaceOf(const Mission& m, const ResolvedWrites& resolved) {
  if (!m.workspace) return std::nullopt;
  PlanWorkspace w;
  auto r = resolved.find(m.workspace->git);
  if (r == resolved.end() || !r->second.error.empty() || !r->second.git ||
      !r->second.git->error.empty())
    return w;
  w.git = r->second.path;
  w.objects = r->second.git->objects;
  w.commit = r->second.git->commit;
  return w;
}

json::Value PlanWorkspace::ToJson() const {
  return json::Object{{"git", git}, {"objects", objects}, {"commit", commit}};
}

namespace {

void WriteEgress(json::PrettyWriter& w, const EgressPlan& e) {
  w.Open()
      .Key("allow")
      .Strings(e.allow)
      .Key("forwarder")
      .Str(e.forwarder)
      .Key("methods")
      .Strings(e.methods)
      .Key("port")
      .Int(e.port)
      .Key("proxy")
      .Str(e.proxy)
      .Key("socket")
      .Str(e.socket)
      .Close();
}

void WriteSandbox(json::PrettyWriter& w, const Sandbox& s) {
  w.Open().Key("bwrap").Str(s.bwrap).Key("engine").Str(s.engine).Key("hide").Strings(s.hide);
  if (s.landlock_abi != kLandlockUnsaid) w.Key("landlock_abi").Int(s.landlock_abi);
  w.Key("write").Strings(s.write).Close();
}

}  // namespace

// Members in sorted order of their keys (json::PrettyWriter), optional ones where they sort.
std::string Plan::Text() const {
  json::PrettyWriter w(4096);
  w.Open().Key("argv").Strings(argv).Key("attempt").Int(attempt);
  w.Key("deadline_ms").Int(deadline_ms);
  if (network == "egress") WriteEgress(w.Key("egress"), egress);
  w.Key("enforced_deadline_ms").Int(enforced_deadline_ms);
  w.Key("env").StringMap(env);
  w.Key("grace_ms").Int(grace_ms);
  w.Key("hangar").Int(1).Key("id").Str(id);
  w.Key("last_message").Str(last_message).Key("launcher").Str(launcher);
  w.Key("limits")
      .Open()
      .Key("file_mb")
      .Int(file_mb)
      .Key("memory_mb")
      .Int(memory_mb)
      .Key("processes")
      .Int(processes)
      .Key("shm_mb")
      .Int(shm_mb)
      .Close();
  w.Key("network").Str(network).Key("prompt_in_room").Bool(prompt_in_room);
  w.Key("room").Str(room);
  if (!room_dirs.empty()) w.Key("room_dirs").Strings(room_dirs);
  w.Key("run").Str(run);
  WriteSandbox(w.Key("sandbox"), sandbox);
  if (launcher == "slurm") w.Key("slurm_partition").Str(slurm_partition);
  w.Key("stdin").Str(stdin_path).Key("stdout_file").Str(stdout_file);
  if (launcher == "systemd") w.Key("systemd_user").Bool(systemd_user);
  if (uid >= 0) w.Key("user").Open().Key("gid").Int(gid).Key("uid").Int(uid).Close();
  if (workspace) w.Key("workspace").Val(workspace->ToJson());
  w.Close();
  return w.Take();
}

json::Value Plan::ToJson() const {
  return json::Parse(Text()).value();
}

Result<Plan> Plan::FromJson(const json::Value& v) {
  auto bad = [](const std::string& f, const std::string& why) {
    return Status::Invalid("plan.json: " + f + ": " + why);
  };
  if (!v.is_object()) return bad("", "expected an object");
  const json::Value* ver = v.find("hangar");
  if (!ver || !ver->is_int() || ver->as_int() != 1) return bad("hangar", "expected 1");
  Plan p;
  for (auto [k, out] :
       {std::pair{"id", &p.id}, std::pair{"launcher", &p.launcher}, std::pair{"room", &p.room},
        std::pair{"run", &p.run}, std::pair{"stdin", &p.stdin_path},
        std::pair{"last_message", &p.last_message}, std::pair{"network", &p.network}}) {
    const json::Value* x = v.find(k);
    if (!x || !x->is_string()) return bad(k, "expected a string");
    *out = x->as_string();
  }
  for (auto [k, out] :
       {std::pair{"deadline_ms", &p.deadline_ms}, std::pair{"grace_ms", &p.grace_ms}}) {
    const json::Value* x = v.find(k);
    if (!x || !x->is_int() || x->as_int() < 0) return bad(k, "expected a non-negative integer");
    *out = x->as_int();
  }
  // Absent in plans of hangar before the engine launchers: the direct launcher's, exact.
  p.enforced_deadline_ms = p.deadline_ms;
  if (const json::Value* x = v.find("enforced_deadline_ms")) {
    if (!x->is_int() || x->as_int() < 0)
      return bad("enforced_deadline_ms", "expected a non-negative integer");
    p.enforced_deadline_ms = x->as_int();
  }
  if (p.network == "egress") {
    const json::Value* e = v.find("egress");
    if (!e || !e->is_object()) return bad("egress", "expected an object (network \"egress\")");
    for (auto [k, out] :
         {std::pair{"proxy", &p.egress.proxy}, std::pair{"forwarder", &p.egress.forwarder},
          std::pair{"socket", &p.egress.socket}}) {
      const json::Value* x = e->find(k);
      if (!x || !x->is_string()) return bad(std::string("egress.") + k, "expected a string");
      *out = x->as_string();
    }
    const json::Value* port = e->find("port");
    if (!port || !port->is_int() || port->as_int() < 1 || port->as_int() > 65535)
      return bad("egress.port", "expected a port from 1 to 65535");
    p.egress.port = int(port->as_int());
    const json::Value* allow = e->find("allow");
    if (!allow || !allow->is_array()) return bad("egress.allow", "expected a list");
    for (const json::Value& d : allow->as_array()) {
      if (!d.is_string() || !ParseDestination(d.as_string()).ok())
        return bad("egress.allow", "expected a list of \"host:port\"");
      p.egress.allow.push_back(d.as_string());
    }
    // Absent in plans of hangar before egress_methods: any method.
    if (const json::Value* methods = e->find("methods")) {
      if (!methods->is_array()) return bad("egress.methods", "expected a list");
      for (const json::Value& x : methods->as_array()) {
        if (!x.is_string()) return bad("egress.methods", "expected a list of strings");
        p.egress.methods.push_back(x.as_string());
      }
    }
  }
  // Absent in plans of hangar before the limits: none.
  if (const json::Value* x = v.find("limits")) {
    if (!x->is_object()) return bad("limits", "expected an object");
    for (const auto& [k, n] : x->as_object()) {
      int64_t* out = k == "processes"   ? &p.processes
                     : k == "file_mb"   ? &p.file_mb
                     : k == "memory_mb" ? &p.memory_mb
                     : k == "shm_mb"    ? &p.shm_mb
                                        : nullptr;
      if (!out) return bad("limits." + k, "unknown field");
      if (!n.is_int() || n.as_int() < 0)
        return bad("limits." + k, "expected a non-negative integer");
      *out = n.as_int();
    }
  }
  if (const json::Value* x = v.find("user")) {
    const json::Value* u = x->is_object() ? x->find("uid") : nullptr;
    const json::Value* g = x->is_object() ? x->find("gid") : nullptr;
    if (!u || !g || !u->is_int() || !g->is_int() || u->as_int() < 0 || g->as_int() < 0 ||
        x->as_object().size() != 2)
      return bad("user", "expected {\"uid\": N, \"gid\": N}");
    p.uid = u->as_int();
    p.gid = g->as_int();
  }
  if (const json::Value* x = v.find("systemd_user")) {
    if (!x->is_bool()) return bad("systemd_user", "expected true or false");
    p.systemd_user = x->as_bool();
  }
  if (const json::Value* x = v.find("slurm_partition")) {
    if (!x->is_string()) return bad("slurm_partition", "expected a string");
    p.slurm_partition = x->as_string();
  }
  if (const json::Value* x = v.find("workspace")) {
    PlanWorkspace w;
    for (auto [k, out] : {std::pair{"git", &w.git}, std::pair{"objects", &w.objects},
                          std::pair{"commit", &w.commit}}) {
      const json::Value* f = x->is_object() ? x->find(k) : nullptr;
      if (!f || !f->is_string()) return bad(std::string("workspace.") + k, "expected a string");
      *out = f->as_string();
    }
    if (x->as_object().size() != 3) return bad("workspace", "expected git, objects and commit");
    p.workspace = std::move(w);
  }
  // Absent in plans of hangar before the harness profiles: the drone's stdout was "stdout".
  if (const json::Value* so = v.find("stdout_file")) {
    if (!so->is_string()) return bad("stdout_file", "expected a string");
    p.stdout_file = so->as_string();
  }
  if (const json::Value* rd = v.find("room_dirs")) {
    if (!rd->is_array()) return bad("room_dirs", "expected a list of names");
    for (const json::Value& d : rd->as_array()) {
      if (!d.is_string() || d.as_string().empty() || d.as_string() == "." ||
          d.as_string() == ".." || d.as_string().find('/') != std::string::npos)
        return bad("room_dirs", "expected plain directory names");
      p.room_dirs.push_back(d.as_string());
    }
  }
  const json::Value* att = v.find("attempt");
  if (!att || !att->is_int() || att->as_int() < 1)
    return bad("attempt", "expected an integer >= 1");
  p.attempt = int(att->as_int());
  const json::Value* pir = v.find("prompt_in_room");
  if (!pir || !pir->is_bool()) return bad("prompt_in_room", "expected true or false");
  p.prompt_in_room = pir->as_bool();
  const json::Value* argv = v.find("argv");
  if (!argv || !argv->is_array() || argv->as_array().empty())
    return bad("argv", "expected a non-empty list");
  for (const json::Value& a : argv->as_array()) {
    if (!a.is_string()) return bad("argv", "expected strings");
    p.argv.push_back(a.as_string());
  }
  const json::Value* env = v.find("env");
  if (!env || !env->is_object()) return bad("env", "expected an object");
  for (const auto& [k, x] : env->as_object()) {
    if (!x.is_string()) return bad("env." + k, "expected a string");
    p.env[k] = x.as_string();
  }
  const json::Value* sb = v.find("sandbox");
  if (!sb || !sb->is_object()) return bad("sandbox", "expected an object");
  // A plan of hangar-kernel/3 or before (an engine's drone running across an upgrade, a Slurm job
  // still queued) does not say: its supervisor decides by its own kernel, as it did then.
  if (!sb->find("landlock_abi")) p.sandbox.landlock_abi = kLandlockUnsaid;
  for (const auto& [k, x] : sb->as_object()) {
    const std::string f = "sandbox." + k;
    if (k == "engine" || k == "bwrap") {
      if (!x.is_string()) return bad(f, "expected a string");
      (k == "engine" ? p.sandbox.engine : p.sandbox.bwrap) = x.as_string();
    } else if (k == "hide" || k == "write") {
      if (!x.is_array()) return bad(f, "expected a list of absolute paths");
      for (const json::Value& e : x.as_array()) {
        if (!e.is_string() || e.as_string().empty() || e.as_string()[0] != '/')
          return bad(f, "expected a list of absolute paths");
        (k == "hide" ? p.sandbox.hide : p.sandbox.write).push_back(e.as_string());
      }
    } else if (k == "landlock_abi") {
      if (!x.is_int() || x.as_int() < 0 || x.as_int() > 1000)
        return bad(f, "expected a Landlock ABI (an integer, 0: none)");
      p.sandbox.landlock_abi = int(x.as_int());
    } else {
      return bad(f, "unknown field");
    }
  }
  if (!SandboxedEngine(p.sandbox.engine) && p.sandbox.engine != "none")
    return bad("sandbox.engine", "expected \"bwrap\", \"namespaces\" or \"none\"");
  if (p.sandbox.engine == "bwrap" && p.sandbox.bwrap.empty())
    return bad("sandbox.bwrap", "the bubblewrap program is not named");
  if (p.sandbox.write.empty() || p.sandbox.write[0] != p.room)
    return bad("sandbox.write", "expected the room first");
  if (p.deadline_ms <= 0) return bad("deadline_ms", "a plan without a deadline is never run");
  if (p.stdout_file.empty() || p.stdout_file.find('/') != std::string::npos ||
      p.stdout_file[0] == '.')
    return bad("stdout_file", "expected a plain file name");
  return p;
}

std::vector<std::string> RoomOwn(const std::string& room, bool prompt_in_room,
                                 const std::vector<std::string>& room_dirs,
                                 const std::string& last_message) {
  std::vector<std::string> own = {"ops", "DECLARATION.json"};
  if (prompt_in_room) own.push_back("MISSION.md");
  own.insert(own.end(), room_dirs.begin(), room_dirs.end());
  if (PathInside(last_message, room)) own.push_back(last_message.substr(room.size() + 1));
  return own;
}

}  // namespace hangar
