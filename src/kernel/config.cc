#include "kernel/config.h"

#include <algorithm>
#include <set>

#include "base/sha256.h"
#include "base/simdjson_util.h"
#include "base/strict_json.h"
#include "kernel/control.h"
#include "kernel/mission.h"

namespace hangar {

using simdjson::dom::element;
using simdjson::dom::element_type;

namespace {

using strict::Fail;

std::string Dir(const std::string& file) {
  size_t slash = file.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : file.substr(0, slash);
}

std::string Resolve(const std::string& base, const std::string& p) {
  return p[0] == '/' ? p : base + "/" + p;
}

// Lists of non-empty strings, as every list of the config is.
std::vector<std::string> Strings(element v, const std::string& k, bool non_empty) {
  return strict::Strings(v, k, {.non_empty_items = true, .non_empty = non_empty});
}

Profile ParseProfile(const std::string& name, element e) {
  const std::string f = "profiles." + name;
  Profile p;
  p.name = name;
  bool has_argv = false, has_egress = false, has_prompt = false;
  std::string program;
  std::vector<std::string> args, tools;
  strict::Members(
      e, f,
      "a profile has harness, argv, program, args, allowed_tools, prompt, last_message, env, "
      "egress, egress_methods, sandbox, launcher",
      [&](const std::string& key, const std::string& k, element v) {
        if (key == "argv") {
          has_argv = true;
          p.argv = Strings(v, k, true);
        } else if (key == "harness") {
          std::string h = strict::NonEmptyString(v, k);
          if (h == "command")
            p.harness = Harness::kCommand;
          else if (h == "codex")
            p.harness = Harness::kCodex;
          else if (h == "claude")
            p.harness = Harness::kClaude;
          else
            Fail(k, "expected \"command\", \"codex\" or \"claude\"");
        } else if (key == "program") {
          program = strict::NonEmptyString(v, k);
        } else if (key == "args") {
          args = Strings(v, k, false);
        } else if (key == "allowed_tools") {
          tools = Strings(v, k, false);
        } else if (key == "prompt") {
          has_prompt = true;
          std::string s = strict::NonEmptyString(v, k);
          if (s == "stdin")
            p.prompt = PromptVia::kStdin;
          else if (s == "file")
            p.prompt = PromptVia::kFile;
          else if (s == "both")
            p.prompt = PromptVia::kBoth;
          else
            Fail(k, "expected \"stdin\", \"file\" or \"both\"");
        } else if (key == "last_message") {
          p.last_message = strict::NonEmptyString(v, k);
        } else if (key == "sandbox") {
          p.sandbox = strict::NonEmptyString(v, k);
          if (!SandboxedEngine(p.sandbox) && p.sandbox != "none")
            Fail(k, "expected \"bwrap\", \"namespaces\" or \"none\"");
        } else if (key == "env") {
          p.env = strict::StringMap(v, k);
        } else if (key == "egress") {
          has_egress = true;
          for (const std::string& s : Strings(v, k, false)) {
            Result<Destination> d = ParseDestination(s);
            if (!d.ok()) Fail(k, d.status().message());
            if (std::find(p.egress.begin(), p.egress.end(), *d) != p.egress.end())
              Fail(k, d->Text() + " given twice");
            p.egress.push_back(*d);
          }
        } else if (key == "egress_methods") {
          p.egress_methods = Strings(v, k, true);
          std::set<std::string> given;
          for (const std::string& m : p.egress_methods) {
            if (m.size() > 20 ||
                !std::all_of(m.begin(), m.end(), [](char c) { return c >= 'A' && c <= 'Z'; }))
              Fail(k,
                   "\"" + m.substr(0, 40) + "\": expected an HTTP method in capitals (GET, HEAD)");
            if (m == "CONNECT")
              Fail(k,
                   "CONNECT is how HTTPS is reached, judged by destination; the list limits "
                   "plain-HTTP requests");
            if (!given.insert(m).second) Fail(k, m + " given twice");
          }
        } else if (key == "launcher") {
          p.launcher = strict::NonEmptyString(v, k);
          if (p.launcher != "direct" && p.launcher != "systemd" && p.launcher != "slurm")
            Fail(k, "expected \"direct\", \"systemd\" or \"slurm\"");
        } else {
          return false;
        }
        return true;
      });
  const bool preset = p.harness != Harness::kCommand;
  if (!preset && (!program.empty() || !args.empty()))
    Fail(f + "." + (program.empty() ? "args" : "program"),
         "only a codex or claude profile builds its argv from program and args");
  if (!tools.empty() && p.harness != Harness::kClaude)
    Fail(f + ".allowed_tools", "only a claude profile has allowed_tools");
  if (has_argv && (!program.empty() || !args.empty()))
    Fail(f + ".argv", "give argv, or program and args, not both");
  if (!has_argv && !preset) Fail(f + ".argv", "missing required field");
  if (!has_argv && program.empty()) Fail(f + ".program", "missing required field (or give argv)");
  if (p.harness == Harness::kCodex && p.last_message.empty()) p.last_message = kCodexLastMessage;
  // An agent reaches its vendor's API unless the profile names its own destinations (another
  // base URL, a local model server): network "egress" is its default (plan.h).
  if (!has_egress && p.harness == Harness::kCodex) p.egress = {{"api.openai.com", 443}};
  if (!has_egress && p.harness == Harness::kClaude) p.egress = {{"api.anthropic.com", 443}};
  if (!has_argv)
    p.argv = BuildHarnessArgv(p.harness, program, args, SandboxedEngine(p.sandbox), tools,
                              p.last_message);
  // A harness keeps its state under the room (the sandbox lets it write nowhere else), unless
  // the profile's env says where; variables the profile sets are never replaced.
  auto state_dir = [&](const char* var, const char* dir) {
    if (p.env.count(var)) return;
    p.env[var] = std::string("{room}/") + dir;
    p.room_dirs.push_back(dir);
  };
  if (p.harness == Harness::kCodex) {
    p.stdout_file = "events.jsonl";
    state_dir("CODEX_HOME", ".codex");
  }
  if (p.harness == Harness::kClaude) {
    p.stdout_file = "stream.jsonl";
    state_dir("CLAUDE_CONFIG_DIR", ".claude");
    state_dir("CLAUDE_CODE_TMPDIR", ".claude-tmp");
    // No update checks, telemetry or side requests: only the model API is reached.
    p.env.emplace("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    p.env.emplace("DISABLE_AUTOUPDATER", "1");
  }
  if (p.harness != Harness::kCommand && !has_prompt) p.prompt = PromptVia::kStdin;
  return p;
}

OpHandler ParseOp(const std::string& name, element e) {
  const std::string f = "ops." + name;
  if (!ValidOpName(name)) Fail(f, "expected an op name ([a-z][a-z0-9._-]*, at most 64 bytes)");
  OpHandler h;
  h.name = name;
  bool has_argv = false;
  strict::Members(e, f, "an op has argv, env, timeout_s",
                  [&](const std::string& key, const std::string& k, element v) {
                    if (key == "argv") {
                      has_argv = true;
                      h.argv = Strings(v, k, true);
                      if (!h.argv[0].starts_with("/")) Fail(k + "[0]", "expected an absolute path");
                    } else if (key == "env") {
                      h.env = strict::StringMap(v, k);
                    } else if (key == "timeout_s") {
                      h.timeout_s = int(strict::IntegerIn(v, k, 1, 3600));
                    } else {
                      return false;
                    }
                    return true;
                  });
  if (!has_argv) Fail(f + ".argv", "missing required field");
  if (!h.env.count("PATH")) h.env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  return h;
}

constexpr char kFields[] =
    "a config has hangar, spool, anchor, policy, ledger_name, checkpoint, rooms, slots, "
    "kill_grace_s, notify_retry_s, canary_s, queue_warm, manifest, drone_user, approvers, "
    "allowed_signers, "
    "four_eyes, "
    "record_signals, limits, retention, launchers, profiles, ops";

// Reads the top-level field K of the config into C (relative paths from BASE); false when a config
// has no such field.
bool ReadField(const std::string& k, element v, const std::string& base, Config* c) {
  if (k == "hangar") {
    if (v.type() != element_type::INT64 || v.get_int64().value_unsafe() != 1)
      Fail(k, "expected 1 (the only config format version this hangar reads)");
  } else if (k == "spool") {
    c->spool = Resolve(base, strict::NonEmptyString(v, k));
  } else if (k == "anchor") {
    c->anchor = Resolve(base, strict::NonEmptyString(v, k));
  } else if (k == "policy") {
    c->policy = Resolve(base, strict::NonEmptyString(v, k));
  } else if (k == "ledger_name") {
    c->ledger_name = strict::NonEmptyString(v, k);
    if (!ValidId(c->ledger_name))
      Fail(k, "expected a name of letters, digits, '.', '_' and '-' (at most 64)");
  } else if (k == "checkpoint") {
    strict::Members(v, k, "checkpoint has every, seconds, key",
                    [&](const std::string& ck, const std::string& f, element cv) {
                      if (ck == "every")
                        c->checkpoint_every = strict::IntegerIn(cv, f, 1, int64_t(1) << 40);
                      else if (ck == "seconds")
                        c->checkpoint_seconds = strict::IntegerIn(cv, f, 1, 86400 * 366);
                      else if (ck == "key")
                        c->checkpoint_key = Resolve(base, strict::NonEmptyString(cv, f));
                      else
                        return false;
                      return true;
                    });
  } else if (k == "rooms") {
    c->rooms = strict::NonEmptyString(v, k);
  } else if (k == "slots") {
    c->slots = int(strict::IntegerIn(v, k, 0, 4096));
  } else if (k == "kill_grace_s") {
    c->kill_grace_s = int(strict::IntegerIn(v, k, 0, 3600));
  } else if (k == "canary_s") {
    c->canary_s = int(strict::IntegerIn(v, k, 0, 86400));
  } else if (k == "queue_warm") {
    c->queue_warm = int(strict::IntegerIn(v, k, 1, 1 << 20));
  } else if (k == "notify_retry_s") {
    c->notify_retry_s = int(strict::IntegerIn(v, k, 1, 86400));
  } else if (k == "manifest") {
    strict::Members(v, k, "manifest has max_entries, max_hash_bytes",
                    [&](const std::string& mk, const std::string& f, element mv) {
                      if (mk == "max_entries")
                        c->manifest_max_entries = strict::IntegerIn(mv, f, 1, int64_t(1) << 40);
                      else if (mk == "max_hash_bytes")
                        c->manifest_max_hash_bytes = strict::IntegerIn(mv, f, 0, int64_t(1) << 62);
                      else
                        return false;
                      return true;
                    });
  } else if (k == "drone_user") {
    c->drone_user = strict::NonEmptyString(v, k);
    if (c->drone_user.empty() || c->drone_user.size() > 32 ||
        c->drone_user.find_first_of(":/\n") != std::string::npos)
      Fail(k, "expected a login name");
  } else if (k == "approvers") {
    c->approvers = Strings(v, k, false);
    for (const std::string& a : c->approvers) {
      const std::string name = a.starts_with("@") ? a.substr(1) : a;
      if (name.empty() || name.size() > 32 || name.find_first_of(":/@\n, ") != std::string::npos)
        Fail(k, "expected login names and @groups, got \"" + a + "\"");
    }
  } else if (k == "allowed_signers") {
    c->allowed_signers = strict::NonEmptyString(v, k);
    if (c->allowed_signers.empty() || c->allowed_signers[0] != '/')
      Fail(k, "expected an absolute path to an OpenSSH allowed_signers file");
  } else if (k == "four_eyes") {
    c->four_eyes = strict::Bool(v, k);
  } else if (k == "record_signals") {
    c->record_signals = strict::Bool(v, k);
  } else if (k == "limits") {
    strict::Members(v, k, "limits has processes, file_mb, memory_mb, shm_mb, ops_per_minute",
                    [&](const std::string& lk, const std::string& f, element lv) {
                      if (lk == "processes")
                        c->limits.processes = strict::IntegerIn(lv, f, 16, 1 << 22);
                      else if (lk == "file_mb")
                        c->limits.file_mb = strict::IntegerIn(lv, f, 1, int64_t(1) << 30);
                      else if (lk == "memory_mb")
                        c->limits.memory_mb = strict::IntegerIn(lv, f, 64, int64_t(1) << 30);
                      else if (lk == "shm_mb")
                        c->limits.shm_mb = strict::IntegerIn(lv, f, 1, int64_t(1) << 20);
                      else if (lk == "ops_per_minute")
                        c->limits.ops_per_minute = int(strict::IntegerIn(lv, f, 1, 100000));
                      else
                        return false;
                      return true;
                    });
  } else if (k == "retention") {
    strict::Members(v, k, "retention has returned, denied, rejected, every_s",
                    [&](const std::string& rk, const std::string& f, element rv) {
                      if (rk == "every_s") {
                        c->retention.every_s = int(strict::IntegerIn(rv, f, 60, 86400));
                        return true;
                      }
                      std::optional<TimeMs>* span = rk == "returned"   ? &c->retention.returned
                                                    : rk == "denied"   ? &c->retention.denied
                                                    : rk == "rejected" ? &c->retention.rejected
                                                                       : nullptr;
                      if (!span) return false;
                      *span = ParseDurationMs(strict::NonEmptyString(rv, f));
                      if (!*span || **span < 60'000)
                        Fail(f,
                             "expected a span of at least a minute: N followed by s, m, h or d "
                             "(\"30d\", \"12h\")");
                      return true;
                    });
  } else if (k == "launchers") {
    strict::Members(v, k, "launchers has systemd_user, slurm_partition, poll_s",
                    [&](const std::string& lk, const std::string& f, element lv) {
                      if (lk == "systemd_user")
                        c->launchers.systemd_user = strict::Bool(lv, f);
                      else if (lk == "slurm_partition")
                        c->launchers.slurm_partition = strict::NonEmptyString(lv, f);
                      else if (lk == "poll_s")
                        c->launchers.poll_s = int(strict::IntegerIn(lv, f, 1, 3600));
                      else
                        return false;
                      return true;
                    });
  } else if (k == "profiles") {
    strict::Members(
        v, k, "",
        [&](const std::string& name, const std::string&, element pv) {
          Profile& p = c->profiles[name] = ParseProfile(name, pv);
          p.sha256 = Sha256Hex(json::Write(json::FromElement(pv)));
          return true;
        },
        "expected an object of profiles");
  } else if (k == "ops") {
    strict::Members(
        v, k, "",
        [&](const std::string& name, const std::string&, element ov) {
          c->ops[name] = ParseOp(name, ov);
          return true;
        },
        "expected an object of op handlers");
  } else {
    return false;
  }
  return true;
}

Config Parse(element root, const std::string& file) {
  Config c;
  c.file = file;
  const std::string base = Dir(file);
  bool has_hangar = false;
  strict::Members(
      root, "", kFields,
      [&](const std::string& k, const std::string&, element v) {
        has_hangar = has_hangar || k == "hangar";
        return ReadField(k, v, base, &c);
      },
      "expected a JSON object");
  if (!has_hangar) Fail("hangar", "missing required field");
  if (c.profiles.empty()) Fail("profiles", "expected at least one drone profile");
  if (c.rooms.empty()) c.rooms = "rooms";
  return c;
}

}  // namespace

const char* HarnessName(Harness h) {
  switch (h) {
    case Harness::kCodex:
      return "codex";
    case Harness::kClaude:
      return "claude";
    case Harness::kCommand:
      break;
  }
  return "command";
}

std::vector<std::string> BuildHarnessArgv(Harness h, const std::string& program,
                                          const std::vector<std::string>& args, bool sandboxed,
                                          const std::vector<std::string>& allowed_tools,
                                          const std::string& last_message) {
  std::vector<std::string> argv{program};
  if (h == Harness::kCodex) {
    // Unattended and reproducible: no user config or rules files, no plugin sync (it reaches
    // github.com), no login shell (it would reset PATH), no analytics.
    argv.insert(argv.end(),
                {"exec", "--skip-git-repo-check", "--ephemeral", "--json", "--ignore-user-config",
                 "--ignore-rules", "--disable", "plugins", "-c", "allow_login_shell=false", "-c",
                 "analytics.enabled=false", "-C", "{room}", "-o", last_message});
    if (sandboxed)
      argv.push_back("--dangerously-bypass-approvals-and-sandbox");
    else
      argv.insert(argv.end(), {"-s", "workspace-write"});
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("-");  // the prompt on stdin
  } else if (h == Harness::kClaude) {
    argv.insert(argv.end(), {"-p", "--output-format", "stream-json", "--verbose",
                             "--permission-mode", "dontAsk"});
    if (!allowed_tools.empty()) {
      std::string joined;
      for (const std::string& t : allowed_tools) joined += (joined.empty() ? "" : ",") + t;
      argv.insert(argv.end(), {"--allowedTools", joined});
    }
    argv.insert(argv.end(), args.begin(), args.end());
  } else {
    argv.insert(argv.end(), args.begin(), args.end());
  }
  return argv;
}

Result<Config> ParseConfig(std::string_view text, const std::string& file) {
  auto c = strict::ReadDocument<Config>(text, [&](element root) { return Parse(root, file); });
  if (const ParseError* e = std::get_if<ParseError>(&c))
    return Status::Invalid(file + ": " + e->Text());
  return std::move(std::get<Config>(c));
}

}  // namespace hangar
