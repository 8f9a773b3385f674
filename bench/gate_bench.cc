// hangar-bench-gate: how many gate decisions per second, stage 1 (the mission) and stage 2 (the
// exact plan), with a policy of about 200 rules. Prints a table (figure, value, target, ratio) and
// writes JSON with --json FILE. Not part of the library; scripts/bench-gate runs it.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "base/json.h"
#include "kernel/gate.h"
#include "kernel/policy.h"

namespace {

using hangar::json::Array;
using hangar::json::Object;
using hangar::json::Value;

// About 200 rules: 60 denied and 60 held verbs, 40 denied and 20 granted ops, 20 env globs.
std::string BigPolicy() {
  Array deny, hold, allow, odeny, ogrant, env;
  auto word = [](const char* p, int i) {
    std::string w = p;
    for (int n = i; n >= 0; n = n / 26 - 1) w += char('a' + n % 26);
    return w;
  };
  for (int i = 0; i < 60; i++) deny.push_back(word("deny", i));
  for (int i = 0; i < 60; i++) hold.push_back(word("hold", i));
  for (int i = 0; i < 40; i++) allow.push_back(word("ok", i));
  for (int i = 0; i < 40; i++) odeny.push_back("svc" + std::to_string(i) + ".drop");
  for (int i = 0; i < 20; i++) ogrant.push_back("svc" + std::to_string(i) + ".push");
  for (int i = 0; i < 20; i++) env.push_back("*_SECRET" + std::to_string(i) + "*");
  Object p{{"hangar_policy", 1},
           {"acts", Object{{"deny", deny}, {"hold", hold}, {"allow", allow}, {"unknown", "hold"}}},
           {"max_minutes", 240},
           {"network", Object{{"allow", Array{"none"}}, {"hold", Array{"host"}}}},
           {"ops", Object{{"deny", odeny}, {"grant", ogrant}, {"unknown", "deny"}}},
           {"env_deny", env}};
  // 14 text rules of the reference policy's kind, 2-5 verbs each in English and Japanese.
  const char* en[] = {"post", "tweet", "send",    "email",  "push",  "deploy", "release",
                      "buy",  "pay",   "publish", "delete", "merge", "share",  "upload"};
  const char* ja[] = {"投稿",     "ツイート", "送信", "メール送信",  "プッシュ",
                      "デプロイ", "リリース", "購入", "支払",        "公開",
                      "削除",     "マージ",   "共有", "アップロード"};
  Array text;
  for (int i = 0; i < 14; i++) {
    Object verbs, rule;
    Array ev, jv;
    ev.emplace_back(std::string(en[i]));
    ev.emplace_back(std::string(en[(i + 1) % 14]));
    jv.emplace_back(std::string(ja[i]));
    jv.emplace_back(std::string(ja[(i + 3) % 14]));
    verbs["en"] = ev;
    verbs["ja"] = jv;
    rule["id"] = "rule" + std::to_string(i);
    rule["verbs"] = verbs;
    rule["why"] = "a person decides";
    text.emplace_back(rule);
  }
  p["text_rules"] = text;
  return hangar::json::Write(Value(p));
}

template <typename F>
double PerSecond(int n, F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; i++) f(i);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return n / s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string json_out;
  int n = 1000000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--json") json_out = argv[i + 1];
    if (a == "--decisions") n = std::stoi(argv[i + 1]);
  }
  auto parsed = hangar::ParsePolicy(BigPolicy(), "bench-policy.json");
  if (!parsed.ok()) {
    std::fprintf(stderr, "hangar-bench-gate: %s\n", parsed.status().message().c_str());
    return 1;
  }
  const hangar::Policy& policy = *parsed;
  const size_t rules = policy.RuleIds().size();
  const hangar::TextRules text(policy);
  std::vector<hangar::Mission> missions(64);
  for (size_t i = 0; i < missions.size(); i++) {
    hangar::Mission& m = missions[i];
    m.id = "M" + std::to_string(i);
    m.drone = "script";
    m.max_minutes = 30;
    m.acts = {"okb", i % 3 ? "okc" : "holdd", i % 7 ? "oke" : "denyf"};
    m.ops = {"svc" + std::to_string(i % 20) + ".push"};
    // A realistic task text: a few sentences, English or Japanese, a negated act in some.
    m.future = i % 2 ? "Read the failing tests in src/, find why the parser rejects empty "
                       "arrays, fix it and add a regression test. Do not push to main; leave the "
                       "branch for review. Write a short summary in REPORT.md."
                     : "src/ の失敗しているテストを読み、空配列が拒否される原因を調べて修正し、"
                       "回帰テストを追加する。main にはプッシュしない。REPORT.md に要約を書く。";
    m.now = "CI fails on the parser tests since yesterday's commit.";
    m.constraints = {"never post anything outside the repository", "keep the public API"};
  }
  std::vector<hangar::Plan> plans(missions.size());
  for (size_t i = 0; i < plans.size(); i++) {
    hangar::Plan& p = plans[i];
    p.id = missions[i].id;
    p.launcher = "direct";
    p.argv = {"/usr/bin/true"};
    p.room = "/var/spool/hangar/rooms/" + p.id;
    p.network = "none";
    p.deadline_ms = p.enforced_deadline_ms = missions[i].deadline_ms();
    for (int k = 0; k < 10; k++) p.env["VAR_" + std::to_string(k)] = "x";
    p.sandbox.bwrap = "/usr/bin/bwrap";
    p.sandbox.hide = policy.deny_read;
    p.sandbox.hide.push_back("/var/spool/hangar");
    p.sandbox.write = {p.room, "/srv/build/" + p.id};
  }
  const hangar::GateSite site{
      "/var/spool/hangar/rooms", "/home/hangar", {"/var/spool/hangar"},           "/usr/bin/bwrap",
      "/usr/lib/hangar",         false,          hangar::DroneLimits{0, 0, 0, 60}};
  size_t sink = 0;
  // Warm up, then measure.
  for (int i = 0; i < 10000; i++) sink += GateStage1(missions[i % 64], policy, text).rules.size();
  double s1 = PerSecond(n, [&](int i) {
    sink += hangar::GateStage1(missions[size_t(i) % missions.size()], policy, text).rules.size();
  });
  double s2 = PerSecond(n, [&](int i) {
    size_t k = size_t(i) % plans.size();
    sink += hangar::GateStage2(missions[k], plans[k], policy, site).rules.size();
  });
  const double target = 100000;
  std::printf("gate bench: policy of %zu rules, %d decisions per stage\n", rules, n);
  std::printf("%-22s %12s %-12s %10s %7s\n", "figure", "value", "unit", "target", "ratio");
  std::printf("%-22s %12.0f %-12s %10s %7.2f\n", "stage1_decisions", s1, "decisions/s", ">= 100000",
              s1 / target);
  std::printf("%-22s %12.0f %-12s %10s %7s\n", "stage2_decisions", s2, "decisions/s", "-", "-");
  if (!json_out.empty()) {
    Object o{{"policy_rules", int64_t(rules)},
             {"decisions", n},
             {"stage1_per_s", int64_t(s1)},
             {"stage2_per_s", int64_t(s2)},
             {"stage1_target_per_s", int64_t(target)}};
    std::ofstream(json_out) << hangar::json::WritePretty(Value(o));
  }
  return sink == 0xdeadbeef ? 2 : 0;  // keeps the work observable
}
