// hangar config check [FILE]: a config read as hangard reads it (kernel/config.h), then what only
// a launch would find out: each profile's and op handler's program exists and can be executed (as
// its PATH finds it), every {placeholder} of a template is one hangar expands, and the policy the
// config names loads. Every problem is listed, each naming its field; nothing is changed.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "kernel/config.h"
#include "kernel/plan.h"
#include "kernel/policy.h"
#include "launch/drone_exec.h"

namespace hangar::cli {

namespace {

constexpr size_t kMaxConfigBytes = size_t(1) << 20;
const char* const kPlaceholders[] = {"room", "run", "id", "bindir", "prompt"};

// The placeholders of TEMPLATE that ExpandTemplate would leave as they are: "{nope}, ...".
std::string UnknownPlaceholders(const std::string& t) {
  std::string out;
  for (size_t open = t.find('{'); open != std::string::npos; open = t.find('{', open + 1)) {
    const size_t close = t.find('}', open);
    if (close == std::string::npos) break;
    const std::string name = t.substr(open + 1, close - open - 1);
    if (std::find(std::begin(kPlaceholders), std::end(kPlaceholders), name) ==
        std::end(kPlaceholders))
      out += (out.empty() ? "{" : ", {") + name + "}";
  }
  return out;
}

// Why PROGRAM (argv[0], {bindir} expanded) cannot be executed: a path is tried as it is, a bare
// name as the launch finds it on PATH (launch/drone_exec.h); "" when it can.
std::string NotExecutable(const std::string& program, const std::string& path) {
  if (program.find('/') == std::string::npos)
    return FindProgram(program, path, "/") ? "" : program + ": not found on PATH " + path;
  struct stat st {};
  if (stat(program.c_str(), &st) != 0) return program + ": " + strerror(errno);
  if (!S_ISREG(st.st_mode)) return program + ": not a regular file";
  if (access(program.c_str(), X_OK) != 0)
    return program + ": not executable (" + strerror(errno) + ")";
  return "";
}

std::string EnvPath(const std::map<std::string, std::string>& env) {
  auto it = env.find("PATH");
  return it == env.end() ? "/usr/local/bin:/usr/bin:/bin" : it->second;
}

}  // namespace

int RunConfigCheck(const Context& ctx, const std::string& file_arg) {
  const std::string file = file_arg.empty() ? ctx.config_path : file_arg;
  Result<std::string> text = ctx.env->ReadFile(file, kMaxConfigBytes);
  if (!text.ok())
    return FailTo(ctx.err, ExitForRead(text.status()), "check config " + file,
                  text.status().message());
  Result<Config> config = ParseConfig(*text, file);
  std::vector<std::string> problems;
  if (!config.ok()) problems.push_back(config.status().message());
  const std::string bindir = std::filesystem::read_symlink("/proc/self/exe").parent_path().string();
  const std::map<std::string, std::string> vars = TemplateVars("ID", "/ROOM", "/RUN", bindir);
  size_t policy_rules = 0;
  if (config.ok()) {
    auto program = [&](const std::string& field, const std::vector<std::string>& argv,
                       const std::map<std::string, std::string>& env) {
      if (argv.empty()) return;
      if (std::string why = NotExecutable(ExpandTemplate(argv[0], vars), EnvPath(env));
          !why.empty())
        problems.push_back(field + ".argv[0]: " + why);
    };
    auto templates = [&](const std::string& field, const std::string& t) {
      if (std::string bad = UnknownPlaceholders(t); !bad.empty())
        problems.push_back(field + ": " + bad +
                           " is no placeholder hangar expands (room, run, id, bindir, prompt)");
    };
    for (const auto& [name, p] : config->profiles) {
      const std::string f = "profiles." + name;
      program(f, p.argv, p.env);
      for (size_t i = 0; i < p.argv.size(); i++)
        templates(f + ".argv[" + std::to_string(i) + "]", p.argv[i]);
      for (const auto& [k, v] : p.env) templates(f + ".env." + k, v);
      templates(f + ".last_message", p.last_message);
    }
    for (const auto& [name, h] : config->ops) program("ops." + name, h.argv, h.env);
    if (!config->policy.empty()) {
      Result<std::string> bytes = ctx.env->ReadFile(config->policy, kMaxPolicyBytes);
      Result<Policy> policy =
          bytes.ok() ? ParsePolicy(*bytes, config->policy) : Result<Policy>(bytes.status());
      if (policy.ok())
        policy_rules = policy->RuleIds().size();
      else
        problems.push_back("policy: " + policy.status().message());
    }
  }
  const bool ok = problems.empty();
  if (ctx.json) {
    json::Object o{
        {"file", file}, {"ok", ok}, {"problems", json::Array(problems.begin(), problems.end())}};
    if (config.ok()) {
      o["profiles"] = int64_t(config->profiles.size());
      o["ops"] = int64_t(config->ops.size());
      o["policy"] = config->policy.empty() ? json::Value() : json::Value(config->policy);
    }
    PrintJson(ctx.out, o);
  } else if (ok) {
    ctx.out << Printable(file) << ": ok, " << config->profiles.size() << " profile"
            << (config->profiles.size() == 1 ? "" : "s") << ", " << config->ops.size()
            << " op handler" << (config->ops.size() == 1 ? "" : "s") << ", "
            << (config->policy.empty()
                    ? std::string("the default policy")
                    : "policy " + config->policy + " (" + std::to_string(policy_rules) + " rules)")
            << "\n";
  } else if (!config.ok()) {
    ctx.err << "hangar: " << Printable(problems[0]) << "\n";  // it names the file itself
  } else {
    for (const std::string& p : problems)
      ctx.err << "hangar: " << Printable(file) << ": " << Printable(p) << "\n";
  }
  return ok ? kExitOk : kExitConfig;
}

}  // namespace hangar::cli
