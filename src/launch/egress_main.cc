// hangar-egress --socket PATH --rules FILE --log FILE: the egress proxy of one drone
// (launch/egress_proxy.h), serving on the unix socket PATH until SIGTERM or SIGINT. FILE of
// --rules: {"allow": ["host:port", ...], "methods": [...]}. Exit 0 after a signal; 64 on a usage
// error; 78 for rules that do not parse; 74 when the socket or the log cannot be made.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>

#include "env/env.h"
#include "kernel/version.h"
#include "launch/egress_proxy.h"

namespace {

std::atomic<bool> g_stop{false};

void OnSignal(int) {
  g_stop.store(true);
}

int Fail(int rc, const std::string& why) {
  std::fprintf(stderr, "hangar-egress: %s\n", why.c_str());
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hangar-egress: a drone's egress proxy (HTTP CONNECT and plain HTTP, by allowlist)"};
  app.set_version_flag("--version", hangar::VersionLine("hangar-egress"));
  hangar::EgressProxyOptions o;
  std::string rules;
  app.add_option("--socket", o.socket_path, "unix socket to serve on")->required();
  app.add_option("--rules", rules, "the allowlist (JSON)")->required();
  app.add_option("--log", o.log_path, "where each connection's record is appended")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 64;
  }
  hangar::Result<std::string> text = hangar::RealEnv()->ReadFile(rules, 1 << 20);
  if (!text.ok()) return Fail(78, text.status().message());
  hangar::Result<hangar::EgressRules> r = hangar::ParseEgressRules(*text);
  if (!r.ok()) return Fail(78, rules + ": " + r.status().message());
  o.rules = std::move(r).value();
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  hangar::Status s = hangar::ServeEgress(o, &g_stop);
  if (!s.ok()) return Fail(74, s.message());
  return 0;
}
