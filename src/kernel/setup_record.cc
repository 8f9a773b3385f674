#include "kernel/setup_record.h"

#include <algorithm>

#include "base/strict_json.h"
#include "kernel/record_fields.h"

namespace hangar {

using record::Fields;
using record::MaybeHex;
using record::ReadText;

Result<KernelSetup> BuildSetup(const SetupFacts& f) {
  KernelSetup setup;
  Result<Config> config = ParseConfig(f.config_text, f.config_file);
  if (!config.ok()) return Status::Invalid("cannot load config: " + config.status().message());
  setup.config = std::move(config).value();
  if (!f.policy_file.empty()) {
    Result<Policy> policy = ParsePolicy(f.policy_text, f.policy_file);
    if (!policy.ok()) return Status::Invalid("cannot load policy: " + policy.status().message());
    setup.policy = std::move(policy).value();
  }
  setup.policy_sha256 = PolicyDigest(setup.policy);
  setup.text_rules = TextRules(setup.policy);
  if (setup.config.slots == 0) setup.config.slots = std::max(1, f.cpus);
  const Layout layout = Layout::Make(f.spool, setup.config.rooms);
  setup.spool = layout.spool;
  setup.rooms = layout.rooms;
  setup.bindir = f.bindir;
  setup.anchor = f.anchor;
  setup.home = f.home;
  // The policy's home patterns (~*/.ssh: every home; ~/.codex: hangard's) stand for the paths in
  // the home directories that existed at start (the digest above is the file's, whatever they are).
  setup.policy = ExpandHomePatterns(setup.policy, f.homes, setup.home);
  setup.bwrap = f.bwrap;
  setup.socat = f.socat;
  setup.root = f.root;
  setup.approvers = f.approvers;
  setup.drone_uid = f.drone_uid;
  setup.drone_gid = f.drone_gid;
  setup.landlock_abi = f.landlock_abi;
  return setup;
}

json::Value SetupFactsJson(const SetupFacts& f, const BlobOut& out) {
  return json::Object{
      {"config", json::Object{{"file", MaybeHex(f.config_file)}, {"bytes", out(f.config_text)}}},
      {"policy", f.policy_file.empty() ? json::Value()
                                       : json::Object{{"file", MaybeHex(f.policy_file)},
                                                      {"bytes", out(f.policy_text)}}},
      {"spool", MaybeHex(f.spool)},
      {"bindir", MaybeHex(f.bindir)},
      {"anchor", MaybeHex(f.anchor)},
      {"home", MaybeHex(f.home)},
      {"bwrap", MaybeHex(f.bwrap)},
      {"socat", MaybeHex(f.socat)},
      {"homes",
       [&] {
         json::Array a;
         for (const std::string& h : f.homes) a.push_back(MaybeHex(h));
         return a;
       }()},
      {"root", f.root},
      {"drone_uid", f.drone_uid},
      {"drone_gid", f.drone_gid},
      {"approvers", json::Array(f.approvers.begin(), f.approvers.end())},
      {"cpus", f.cpus},
      {"landlock_abi", f.landlock_abi}};
}

SetupFacts ReadSetupFactsAt(simdjson::dom::element e, const std::string& field, const BlobIn& in) {
  Fields f(e, field);
  auto text = [&](const char* k) { return ReadText(f[k], f.Path(k)); };
  SetupFacts s;
  {
    Fields c(f["config"], f.Path("config"));
    s.config_file = ReadText(c["file"], c.Path("file"));
    s.config_text = record::ReadBlob(c["bytes"], c.Path("bytes"), in);
    c.Done();
  }
  if (simdjson::dom::element p = f["policy"]; !p.is_null()) {
    Fields pf(p, f.Path("policy"));
    s.policy_file = ReadText(pf["file"], pf.Path("file"));
    s.policy_text = record::ReadBlob(pf["bytes"], pf.Path("bytes"), in);
    pf.Done();
  }
  s.spool = text("spool");
  s.bindir = text("bindir");
  s.anchor = text("anchor");
  s.home = text("home");
  s.bwrap = text("bwrap");
  s.socat = text("socat");
  strict::Items(
      f["homes"], f.Path("homes"), "expected a list of paths",
      [&](simdjson::dom::element v, const std::string& vf) { s.homes.push_back(ReadText(v, vf)); });
  s.root = strict::Bool(f["root"], f.Path("root"));
  s.drone_uid = strict::Integer(f["drone_uid"], f.Path("drone_uid"));
  s.drone_gid = strict::Integer(f["drone_gid"], f.Path("drone_gid"));
  strict::Items(f["approvers"], f.Path("approvers"), "expected a list of uids",
                [&](simdjson::dom::element v, const std::string& vf) {
                  s.approvers.insert(strict::Integer(v, vf));
                });
  s.cpus = int(strict::IntegerIn(f["cpus"], f.Path("cpus"), 1, 1 << 20));
  // Recorded from hangar-kernel/4 on; a start of an older build read as one without Landlock.
  if (f.Has("landlock_abi"))
    s.landlock_abi = int(strict::IntegerIn(f["landlock_abi"], f.Path("landlock_abi"), 0, 1000));
  f.Done();
  return s;
}

}  // namespace hangar
