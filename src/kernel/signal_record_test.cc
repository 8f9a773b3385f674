// The signal record's codec: every kind of signal reads back as exactly itself (its text written
// again is the same), a history of signals read back decides exactly what the originals decided,
// step by step, to the same state; a record with a field too many, a blob missing or another
// version is refused naming it. Pure: the blobs live in a map.
#include "kernel/signal_record.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "base/sha256.h"
#include "kernel/kernel_testutil.h"
#include "kernel/record_fields.h"

namespace hangar {
namespace {

constexpr TimeMs kT = 1'700'000'000'000;

using record::MaybeHex;

// An action whole, as canonical JSON, the texts it writes by sha256: what the Twin below compares
// (stricter than DecisionText, which leaves explanations out).
json::Value FilesJson(const std::map<std::string, std::string>& files) {
  json::Object o;
  for (const auto& [name, text] : files) o[name] = Sha256Hex(text);
  return o;
}

struct ActionWriter {
  json::Value operator()(const Intake& a) const {
    return json::Object{{"action", "intake"},
                        {"name", MaybeHex(a.name)},
                        {"id", a.id},
                        {"to", std::string(PhaseName(a.to))},
                        {"files", FilesJson(a.files)},
                        {"notify_dir", a.notify_dir ? json::Value(*a.notify_dir) : json::Value()}};
  }
  json::Value operator()(const Launch& a) const {
    return json::Object{{"action", "launch"},
                        {"id", a.id},
                        {"attempt", a.attempt},
                        {"plan_sha256", a.plan_sha256},
                        {"gate2_sha256", Sha256Hex(a.gate2_text)},
                        {"prompt_sha256", Sha256Hex(a.prompt)}};
  }
  json::Value operator()(const Observe& a) const {
    return json::Object{{"action", "observe"}, {"id", a.id}, {"room", a.room}, {"run", a.run}};
  }
  json::Value operator()(const Kill& a) const {
    return json::Object{{"action", "kill"}, {"id", a.id}};
  }
  json::Value operator()(const Move& a) const {
    return json::Object{{"action", "move"},
                        {"id", a.id},
                        {"from", std::string(PhaseName(a.from))},
                        {"to", std::string(PhaseName(a.to))},
                        {"files", FilesJson(a.files)},
                        {"notify_dir", a.notify_dir ? json::Value(*a.notify_dir) : json::Value()}};
  }
  json::Value operator()(const ConsumeControl& a) const {
    return json::Object{{"action", "consume-control"},
                        {"name", MaybeHex(a.name)},
                        {"bad", a.bad},
                        {"why_sha256", Sha256Hex(a.why)},
                        {"answer_sha256", Sha256Hex(a.answer)}};
  }
  json::Value operator()(const Log& a) const {
    return json::Object{{"action", "log"}, {"line", MaybeHex(a.line)}};
  }
  json::Value operator()(const Record& a) const {
    return json::Object{{"action", "record"}, {"seq", a.seq},   {"kind", a.kind},
                        {"body", a.body},     {"time", a.time}, {"new_epoch", a.new_epoch}};
  }
  json::Value operator()(const RunOp& a) const {
    return json::Object{{"action", "run-op"}, {"id", a.id},   {"name", MaybeHex(a.name)},
                        {"op", a.op},         {"key", a.key}, {"files", FilesJson(a.files)}};
  }
  json::Value operator()(const AnswerOp& a) const {
    return json::Object{{"action", "answer-op"},
                        {"id", a.id},
                        {"name", MaybeHex(a.name)},
                        {"key", a.key},
                        {"result_sha256", Sha256Hex(a.result)},
                        {"keep", a.keep},
                        {"release", a.release}};
  }
  json::Value operator()(const Retry& a) const {
    return json::Object{
        {"action", "retry"}, {"id", a.id}, {"previous", a.previous}, {"files", FilesJson(a.files)}};
  }
  json::Value operator()(const WriteMemory& a) const {
    return json::Object{{"action", "write-memory"},
                        {"requester", a.requester},
                        {"version", a.version},
                        {"text", a.text}};
  }
  json::Value operator()(const Purge& a) const {
    return json::Object{{"action", "purge"},
                        {"id", a.id},
                        {"from", std::string(PhaseName(a.from))},
                        {"tombstone", a.tombstone}};
  }
  json::Value operator()(const Warm& a) const {
    return json::Object{{"action", "warm"}, {"ids", json::Array(a.ids.begin(), a.ids.end())}};
  }
};

json::Value ActionToJson(const Action& a) {
  return std::visit(ActionWriter{}, a);
}

class Blobs {
 public:
  BlobOut Out() {
    return [this](std::string_view bytes) {
      const std::string ref = "sha256:" + Sha256Hex(bytes);
      store_[ref] = std::string(bytes);
      return ref;
    };
  }
  BlobIn In() {
    return [this](const std::string& ref) -> Result<std::string> {
      auto it = store_.find(ref);
      if (it == store_.end()) return Status::NotFound("no blob " + ref);
      return it->second;
    };
  }
  void Forget() { store_.clear(); }

 private:
  std::map<std::string, std::string> store_;
};

std::string Mission(const std::string& id, const std::string& extra = "") {
  return "{\"hangar\":1,\"id\":\"" + id +
         "\",\"requester\":\"t\",\"drone\":\"script\",\"future\":\"f\",\"now\":\"n\","
         "\"max_minutes\":1" +
         extra + "}";
}

// One signal of every kind, with the optional parts set and texts that are not UTF-8.
std::vector<Signal> EveryKind() {
  std::vector<Signal> all;
  Dropped d{"bad-\xff.json", Mission("D1"), "", kT, {}, Dropper{1000, "ann"}, true};
  d.resolved["~/out"] = ResolvedPath{"/home/ann/out", ""};
  d.resolved["/x\xfe"] = ResolvedPath{"", "cannot resolve /x\xfe"};
  all.push_back(d);
  Recovered r;
  r.id = "R1";
  r.phase = Phase::kRunning;
  r.mission_bytes = Mission("R1");
  r.attempt = 2;
  ExitInfo e;
  e.rc = 3;
  e.timed_out = true;
  e.started = kT - 5;
  e.ended = kT;
  r.exit = e;
  r.intake_sha256 = Sha256Hex(r.mission_bytes);
  r.by = Dropper{0, "root"};
  all.push_back(r);
  ControlDropped c{"c.json", R"({"hangar":1,"request":"retry","id":"R1"})", "", kT, kRoot};
  RetryFacts f;
  f.outcome = "lost";
  f.ran = true;
  f.attempt = 2;
  f.mission_bytes = Mission("R1");
  f.owner_uid = 1000;
  f.owner_user = "ann";
  f.alive = "";
  c.retry = f;
  c.signature = SignatureCheck{false, "no such principal", "aa", ""};
  all.push_back(c);
  all.push_back(LaunchDone{"L1", false, true, false, "launch.L1.1", kT});
  ExitInfo killed;
  killed.signal = 9;
  killed.cancelled = true;
  all.push_back(DroneExited{"X1", killed, kT});
  all.push_back(SupervisorGone{"G1", kT});
  Observation o;
  o.room = Json(R"({"manifest":[{"path":"REPORT.md","size":3}],"errors":[]})");
  o.checks = Json(R"([{"file":"REPORT.md","passed":false}])");
  o.checks_passed = false;
  o.harness = Json(R"({"kind":"codex","events":4})");
  all.push_back(Observed{"O1", o, kT});
  all.push_back(Ready{kT});
  all.push_back(LedgerFailed{"rolled back", kT, true, {7, 9}});
  OpRequested q;
  q.id = "W1";
  q.name = "post";
  q.bytes = R"({"op":"post.message","args":{},"key":"k"})";
  q.declaration = Json(R"({"present":true,"valid":true,"content":{"ops":["post.message"]}})");
  q.key = OpKeyState::kDone;
  q.stored_result = R"({"status":"executed"})";
  q.now = kT;
  all.push_back(q);
  OpFinished fin;
  fin.id = "W1";
  fin.name = "post";
  fin.op = "post.message";
  fin.key = "k";
  fin.started = true;
  fin.rc = 0;
  fin.output = Json(R"({"file":"post.out","size":3})");
  fin.output_text = "ok\xff";
  fin.output_cut = true;
  fin.now = kT;
  all.push_back(fin);
  all.push_back(IntakeFailed{"i.json", "I1", "No space left on device", kT});
  Recovered tomb;  // a tombstone: purged, nothing but its id, phase, attempts and owner read
  tomb.id = "P1";
  tomb.phase = Phase::kDenied;
  tomb.purged = true;
  tomb.attempt = 1;
  tomb.by = Dropper{1000, "ann"};
  all.push_back(tomb);
  all.push_back(Tick{kT + 60'000});
  all.push_back(RecoveredEnded{{{"E1", Phase::kReturned, kT - 9, 2, Dropper{1000, "ann"}, false},
                                {"E2", Phase::kDenied, kT - 8, 0, Dropper{-1, "\xff"}, true}},
                               kT});
  all.push_back(RecoveredEnded{{}, kT});
  all.push_back(RecoveredCold{
      {{"C1", kT - 9, 1, Dropper{1000, "ann"}, Sha256Hex("c1"), "", ""},
       {"C2", kT - 8, 0, Dropper{-1, "\xff"}, Sha256Hex("c2"), Sha256Hex("c2"), Sha256Hex("plan")}},
      kT});
  all.push_back(Warmed{"C1", Mission("C1"), "", {}, kT});
  all.push_back(Warmed{"C2", "", "No such file or directory", {}, kT});
  ControlDropped cancel{"x.json", R"({"hangar":1,"request":"cancel","id":"C1"})", "", kT, kRoot};
  cancel.cancel_mission = Mission("C1");
  all.push_back(cancel);
  return all;
}

TEST(SignalRecord, EveryKindReadsBackAsItself) {
  Blobs blobs;
  for (const Signal& s : EveryKind()) {
    const std::string text = json::Write(SignalToJson(s, blobs.Out()));
    Result<Signal> back = ParseSignal(text, blobs.In());
    ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << text;
    EXPECT_EQ(back->index(), s.index()) << text;
    EXPECT_EQ(json::Write(SignalToJson(*back, blobs.Out())), text);
  }
}

// A dropped mission comes back parsed (Dropped::parsed), so a replay's reading thread parses it
// and the deciding one does not: what ParseMission makes of its bytes, a parse error too. The Twin
// below decides the same with it as the live kernel without it.
TEST(SignalRecord, ADroppedMissionIsReadBackParsed) {
  Blobs blobs;
  for (const std::string& bytes :
       {std::string("{\"hangar\":1,\"id\":\"P1\"}"), std::string("{no")}) {
    const Dropped drop{"p.json", bytes, "", kT, {}, kRoot};
    Result<Signal> back = ParseSignal(json::Write(SignalToJson(drop, blobs.Out())), blobs.In());
    ASSERT_TRUE(back.ok()) << back.status().message();
    const Dropped& d = std::get<Dropped>(*back);
    ASSERT_NE(d.parsed, nullptr) << bytes;
    const MissionOrError want = ParseMission(bytes);
    ASSERT_EQ(d.parsed->index(), want.index()) << bytes;
    if (auto* e = std::get_if<ParseError>(&want)) {
      EXPECT_EQ(std::get<ParseError>(*d.parsed).field, e->field);
      EXPECT_EQ(std::get<ParseError>(*d.parsed).reason, e->reason);
    } else {
      EXPECT_EQ(std::get<hangar::Mission>(*d.parsed).id, "P1");
    }
  }
  const Dropped unread{"f", "", "not a regular file", kT, {}, kRoot};
  Result<Signal> back = ParseSignal(json::Write(SignalToJson(unread, blobs.Out())), blobs.In());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(std::get<Dropped>(*back).parsed, nullptr) << "nothing read, nothing to parse";
}

TEST(SignalRecord, NonUtf8TextsAndBytesSurvive) {
  Blobs blobs;
  const Signal s = EveryKind()[0];
  Result<Signal> back = ParseSignal(json::Write(SignalToJson(s, blobs.Out())), blobs.In());
  ASSERT_TRUE(back.ok()) << back.status().message();
  const Dropped& d = std::get<Dropped>(*back);
  EXPECT_EQ(d.name, "bad-\xff.json");
  EXPECT_EQ(d.resolved.at("/x\xfe").error, "cannot resolve /x\xfe");
  EXPECT_EQ(d.by.user, "ann");
  EXPECT_TRUE(d.found_at_start);
  Result<Signal> op =
      ParseSignal(json::Write(SignalToJson(EveryKind()[10], blobs.Out())), blobs.In());
  ASSERT_TRUE(op.ok()) << op.status().message();
  EXPECT_EQ(std::get<OpFinished>(*op).output_text, "ok\xff");
}

// The live kernel and a replaying one, side by side: each decides a signal, the replaying one
// from its record; their actions and their states must be the same after every step.
// With replay_texts false, the replaying one leaves the texts no decision reads out, as a replay
// does (KernelSetup::file_texts): what a replay compares must still be the same, and the texts
// whose sha256 goes on the ledger too.
class Twin {
 public:
  explicit Twin(bool replay_texts = true) {
    s_.config.ops["post.message"] = OpHandler{"post.message", {"/h/post"}, {{"PATH", "/bin"}}, 30};
    s_.policy.ops["post.message"] = OpAccess::kAllow;
    s_.policy_sha256 = PolicyDigest(s_.policy);
    r_ = s_;
    r_.file_texts = replay_texts;
  }
  void Step(const Signal& sig) {
    const std::string text = json::Write(SignalToJson(sig, blobs_.Out()));
    Result<Signal> back = ParseSignal(text, blobs_.In());
    ASSERT_TRUE(back.ok()) << back.status().message();
    std::vector<Action> live = Decide(s_, &live_, sig), again = Decide(r_, &replay_, *back);
    ASSERT_EQ(live.size(), again.size()) << text;
    for (size_t i = 0; i < live.size(); ++i)
      if (r_.file_texts)
        EXPECT_EQ(json::Write(ActionToJson(live[i])), json::Write(ActionToJson(again[i])));
      else
        ExpectSameButTexts(live[i], again[i]);
    EXPECT_EQ(DecisionText(live), DecisionText(again)) << text;
    EXPECT_EQ(StateDigest(live_), StateDigest(replay_)) << "after " << text;
    steps_++;
  }
  const State& live() const { return live_; }
  int steps() const { return steps_; }
  int texts_left_out() const { return left_out_; }

 private:
  // The same files by name; the same text, or none where the setup leaves it out: at intake and
  // at launch (a move out of queued), as KernelSetup::file_texts says.
  void ExpectSameButTexts(const Action& live, const Action& again) {
    auto files = [](const Action& a) -> const std::map<std::string, std::string>* {
      if (auto* in = std::get_if<Intake>(&a)) return &in->files;
      if (auto* mv = std::get_if<Move>(&a)) return &mv->files;
      return nullptr;
    };
    std::set<std::string> left_out;
    if (std::holds_alternative<Intake>(live)) left_out = {"intake.json", "gate1.json", "why.json"};
    if (auto* mv = std::get_if<Move>(&live); mv && mv->from == Phase::kQueued)
      left_out = {"gate2.json", "why.json"};
    if (const auto* l = files(live), *r = files(again); l && r) {
      ASSERT_EQ(l->size(), r->size());
      for (auto li = l->begin(), ri = r->begin(); li != l->end(); ++li, ++ri) {
        ASSERT_EQ(li->first, ri->first);
        EXPECT_FALSE(li->second.empty()) << li->first;
        if (left_out.count(li->first) && !r_.file_texts) {
          EXPECT_EQ(ri->second, "") << li->first;
          left_out_++;
        } else {
          EXPECT_EQ(ri->second, li->second) << li->first;
        }
      }
    }
    if (auto* l = std::get_if<Launch>(&live)) {
      const Launch& r = std::get<Launch>(again);
      EXPECT_EQ(r.plan_text, l->plan_text);
      EXPECT_EQ(r.plan_sha256, l->plan_sha256);
      EXPECT_EQ(r.gate2_text, "");
      EXPECT_EQ(r.prompt, "");
      EXPECT_FALSE(l->gate2_text.empty() || l->prompt.empty());
      left_out_ += 2;
    }
  }

  KernelSetup s_ = ScriptSetup(1), r_;
  State live_, replay_;
  int left_out_ = 0;
  Blobs blobs_;
  int steps_ = 0;
};

void DecideTheHistory(Twin& t) {
  auto control = [](const std::string& body, TimeMs now) {
    return ControlDropped{"c" + std::to_string(now), "{\"hangar\":1," + body + "}", "", now, kRoot};
  };
  // Held at intake, approved, launched; an op allowed and finished; the drone ends, is observed.
  t.Step(Dropped{"w.json",
                 Mission("W", ",\"network\":\"host\",\"ops\":[\"post.message\"]"),
                 "",
                 kT,
                 {},
                 kRoot});
  t.Step(control(R"("request":"approve","id":"W","why":"ok")", kT + 1));
  t.Step(LaunchDone{"W", true, false, true, "", kT + 2});
  OpRequested q;
  q.id = "W";
  q.name = "r1";
  q.bytes = R"({"op":"post.message","args":{"text":"hi"},"key":"k1"})";
  q.declaration = Json(
      R"({"present":true,"valid":true,"content":{"will":[],"will_not":[],"ops":["post.message"],"external_acts":[]}})");
  q.now = kT + 3;
  t.Step(q);
  const OpFinished f = OpRan("W", "r1", "post.message", "k1", 0, kT + 4);
  t.Step(f);
  ExitInfo e;
  e.rc = 0;
  t.Step(DroneExited{"W", e, kT + 5});
  Observation o;
  o.room = Json(R"({"manifest":[]})");
  t.Step(Observed{"W", o, kT + 6});
  // Rejected, denied; lost and retried; a grant; failed closed and reanchored; an intake undone.
  t.Step(Dropped{"bad.json", "{not json", "", kT + 7, {}, kRoot});
  t.Step(Dropped{"l.json", Mission("L"), "", kT + 8, {}, kRoot});
  t.Step(SupervisorGone{"L", kT + 9});
  t.Step(Observed{"L", Observation{}, kT + 10});
  ControlDropped retry = control(R"("request":"retry","id":"L")", kT + 11);
  RetryFacts facts;
  facts.outcome = "lost";
  facts.ran = true;
  facts.attempt = 1;
  facts.mission_bytes = Mission("L");
  facts.intake_sha256 = Sha256Hex(Mission("L"));
  retry.retry = facts;
  t.Step(retry);
  t.Step(control(R"("request":"grant","op":"post.message","requester":"t")", kT + 12));
  t.Step(LedgerFailed{"anchor missing", kT + 13});
  t.Step(control(R"("request":"reanchor","why":"checked")", kT + 14));
  t.Step(Dropped{"n.json", Mission("N"), "", kT + 15, {}, kRoot});
  t.Step(IntakeFailed{"n.json", "N", "No space left on device", kT + 16});
  EXPECT_EQ(t.steps(), 17);
  EXPECT_EQ(t.live().missions.at("W").phase, Phase::kReturned);
  EXPECT_EQ(t.live().missions.at("L").attempt, 2);
}

TEST(SignalRecord, AHistoryReadBackDecidesTheSameStepByStep) {
  Twin t;
  DecideTheHistory(t);
}

// As a replay decides (KernelSetup::file_texts false): the same decisions and states, the texts of
// intake.json, gate1.json, gate2.json, why.json and the prompt left out, plan.json's and
// return.json's the same.
TEST(SignalRecord, AReplayLeavingTextsOutDecidesTheSameStepByStep) {
  Twin t(false);
  DecideTheHistory(t);
  EXPECT_GE(t.texts_left_out(), 8);
}

TEST(SignalRecord, ARecordThatIsNotExactlyOneIsRefusedNamingTheField) {
  Blobs blobs;
  json::Value v = SignalToJson(LaunchDone{"L1", true, false, true, "", kT}, blobs.Out());
  v["extra"] = 1;
  Result<Signal> extra = ParseSignal(json::Write(v), blobs.In());
  ASSERT_FALSE(extra.ok());
  EXPECT_NE(extra.status().message().find("extra: unknown field"), std::string::npos)
      << extra.status().message();
  v = SignalToJson(LaunchDone{"L1", true, false, true, "", kT}, blobs.Out());
  v["hangar"] = 2;
  EXPECT_NE(ParseSignal(json::Write(v), blobs.In()).status().message().find("hangar"),
            std::string::npos);
  const std::string dropped = json::Write(SignalToJson(EveryKind()[0], blobs.Out()));
  blobs.Forget();
  Result<Signal> no_blob = ParseSignal(dropped, blobs.In());
  ASSERT_FALSE(no_blob.ok());
  EXPECT_NE(no_blob.status().message().find("bytes: no blob sha256:"), std::string::npos)
      << no_blob.status().message();
  EXPECT_FALSE(ParseSignal("[]", blobs.In()).ok());
  EXPECT_FALSE(ParseSignal(R"({"hangar":1,"signal":"launched"})", blobs.In()).ok());
}

TEST(SignalRecord, TheStateDigestFollowsWhatDecidesTheNextDecisions) {
  State a, b;
  EXPECT_EQ(StateDigest(a), StateDigest(b));
  a.missions["M"].phase = Phase::kHold;
  b.missions["M"].phase = Phase::kHold;
  EXPECT_EQ(StateDigest(a), StateDigest(b));
  b.missions["M"].phase = Phase::kQueued;
  EXPECT_NE(StateDigest(a), StateDigest(b));
  b = a;
  b.queue.push_back("M");
  EXPECT_NE(StateDigest(a), StateDigest(b));
  b = a;
  (void)b.grants.Apply(
      GrantRecord{5, "grant", Json(R"({"op":"x","requester":"t","by":"root","until":null})")});
  EXPECT_NE(StateDigest(a), StateDigest(b));
}

TEST(SignalRecord, EachKindIsNamedAsItsRecordNamesIt) {
  Blobs blobs;
  for (const Signal& sig : EveryKind())
    EXPECT_EQ(SignalToJson(sig, blobs.Out()).find("signal")->as_string(), SignalKind(sig));
}

// The decision a replay compares: what is done, not how it is explained. The gate's rules, reason
// and policy digest, a file's text and an answer's text are the state's or explanation; a verdict
// (the entry's kind, where the mission goes) is the decision.
TEST(SignalRecord, TheDecisionTextKeepsWhatIsDoneNotItsExplanation) {
  Record accepted{7, "mission.accepted",
                  Json(R"({"id":"M","verdict":"allow","rules":["acts.allow.read"],)"
                       R"("reason":"","policy":"aa"})"),
                  kT};
  Intake in;
  in.name = "m.json";
  in.id = "M";
  in.files["gate1.json"] = "rules: acts.allow.read";
  const std::string base = DecisionText({accepted, in, Log{"M accepted"}});
  Record other_rule = accepted;
  other_rule.body = Json(R"({"id":"M","verdict":"allow","rules":["acts.unknown"],)"
                         R"("reason":"x","policy":"bb"})");
  Intake other_text = in;
  other_text.files["gate1.json"] = "rules: acts.unknown";
  EXPECT_EQ(DecisionText({other_rule, other_text}), base)
      << "explanations and logs are not compared";
  Record held = accepted;
  held.kind = "mission.held";
  EXPECT_NE(DecisionText({held, in}), base);
  Intake to_hold = in;
  to_hold.to = Phase::kHold;
  EXPECT_NE(DecisionText({accepted, to_hold}), base);
  Record later = accepted;
  later.seq = 8;
  EXPECT_NE(DecisionText({later, in}), base);
  EXPECT_NE(DecisionText({accepted}), base) << "an act left out";
}

// Written straight into a string, the decision's text must still be canonical JSON (what
// json::Write makes of it parsed back), for every kind of action, with texts that are not UTF-8.
TEST(SignalRecord, TheDecisionTextIsCanonicalJson) {
  Intake in;
  in.name = "n\xff";
  in.id = "I";
  in.files = {{"b.json", "x"}, {"a\xfe", "y"}};
  in.notify_dir = "/n";
  Launch l;
  l.id = "L";
  l.plan_sha256 = "ab";
  Move m;
  m.id = "M";
  m.files["return.json"] = "{}";
  ConsumeControl c;
  c.name = "c\xff";
  c.bad = true;
  RunOp r;
  r.id = "R";
  r.name = "r1";
  r.op = "post";
  r.key = "k";
  AnswerOp a;
  a.id = "R";
  a.name = "r1";
  a.key = "k";
  a.keep = true;
  Retry t;
  t.id = "T";
  t.previous = 2;
  Observe o;
  o.id = "O";
  const std::vector<Action> acts = {
      in,
      l,
      o,
      Kill{"K"},
      m,
      c,
      Log{"x"},
      Record{3, "mission.accepted", Json(R"({"id":"I","rules":["r"],"z":[1,{"b":"\u00e9"}]})"), kT},
      Record{4, "clock.behind", json::Value("not an object"), kT, true},
      r,
      a,
      t};
  const std::string text = DecisionText(acts);
  Result<json::Value> back = json::Parse(text);
  ASSERT_TRUE(back.ok()) << text;
  EXPECT_EQ(json::Write(*back), text);
  EXPECT_EQ(back->as_array().size(), acts.size() - 1) << "the log line is left out";
  EXPECT_EQ(DecisionText({}), "[]");
}

// The mission's text is written by hand for speed: it must be the canonical JSON of every member,
// sorted, with texts that are not UTF-8, as json::Write makes it of the parsed text.
TEST(SignalRecord, TheMissionTextIsCanonicalJson) {
  MissionRec r;
  r.phase = Phase::kRunning;
  r.accepted = kT;
  r.attempt = 2;
  r.exited = true;
  ExitInfo e;
  e.rc = 1;
  r.exit = e;
  r.error = "bad \xff";
  r.gate = "stage 2 allow ";
  r.sha256 = "aa";
  r.owner = Dropper{1000, "ann\xfe"};
  r.ops = OpsBook{{kT, kT + 1}, {"k1", "k\"2"}, {"r1"}};
  r.approval = Approval{"bb", "", "cc"};
  r.resolved["~/x"] = ResolvedPath{"/h/x", ""};
  for (const MissionRec& m : {r, MissionRec{}}) {
    std::string text;
    AppendMissionText(&text, m);
    Result<json::Value> back = json::Parse(text);
    ASSERT_TRUE(back.ok()) << text;
    EXPECT_EQ(json::Write(*back), text);
    EXPECT_EQ(back->as_object().size(), 21u) << text;
    // Bytes that are no UTF-8 as record::MaybeHex writes them: {"hex": "..."}.
    const json::Value& owner = *back->find("owner");
    EXPECT_EQ(*back->find("error"), record::MaybeHex(m.error)) << text;
    EXPECT_EQ(*owner.find("user"), record::MaybeHex(m.owner.user)) << text;
    EXPECT_EQ(owner.find("uid")->as_int(), m.owner.uid) << text;
  }
  EXPECT_NE(record::MaybeHex(r.error), json::Value(r.error)) << "the hex form is tested";
}

// The mission's exit is written straight into its text too: the very bytes json::Write makes of
// ExitInfo::ToJson (recorded step digests were made of those), whatever the exit holds.
TEST(SignalRecord, TheMissionTextsExitIsTheExitsOwnJson) {
  std::vector<ExitInfo> exits(5);
  exits[1].rc = 0;
  exits[1].started = kT;
  exits[1].ended = kT + 1500;
  exits[2].signal = 9;
  exits[2].timed_out = true;
  exits[3].rc = -1;
  exits[3].cancelled = true;
  exits[4].error = "cannot exec \"x\": \xff\n";
  for (const ExitInfo& e : exits) {
    MissionRec r;
    r.exit = e;
    std::string text;
    AppendMissionText(&text, r);
    const std::string want = "\"exit\":" + json::Write(e.ToJson()) + ",";
    EXPECT_NE(text.find(want), std::string::npos) << text << "\nwants " << want;
  }
}

TEST(SignalRecord, TheStepDigestCoversTheDecisionsMissionsTheGlobalDigestTheRest) {
  State a;
  a.missions["M"].phase = Phase::kQueued;
  a.missions["N"].phase = Phase::kQueued;
  State b = a;
  b.missions["N"].phase = Phase::kRunning;
  EXPECT_EQ(StepDigest(a, {"M"}), StepDigest(b, {"M"})) << "N is not this decision's";
  EXPECT_NE(StepDigest(a, {"M", "N"}), StepDigest(b, {"M", "N"}));
  b = a;
  b.missions["M"].gate = "stage 1 allow acts.unknown";
  EXPECT_NE(StepDigest(a, {"M"}), StepDigest(b, {"M"})) << "the gate's rules are state";
  EXPECT_EQ(GlobalDigest(a), GlobalDigest(b));
  b = a;
  b.missions.erase("M");
  EXPECT_NE(StepDigest(a, {"M"}), StepDigest(b, {"M"})) << "a mission forgotten";
  b = a;
  b.running = 1;
  EXPECT_EQ(StepDigest(a, {"M"}), StepDigest(b, {"M"}));
  EXPECT_NE(GlobalDigest(a), GlobalDigest(b));
  b = a;
  b.queue.push_back("M");
  EXPECT_NE(GlobalDigest(a), GlobalDigest(b));
  b = a;
  (void)b.grants.Apply(
      GrantRecord{5, "grant", Json(R"({"op":"x","requester":"t","by":"root","until":null})")});
  EXPECT_NE(StepDigest(a, {}), StepDigest(b, {})) << "grants in force are every decision's";
}

TEST(SignalRecord, TouchedIdsAreTheSignalsAndEachActionsOnce) {
  Launch launch;
  launch.id = "B";
  Move move;
  move.id = "A";
  const std::vector<Action> acts = {Record{1, "mission.accepted", Json(R"({"id":"A"})"), kT},
                                    launch, move, Record{2, "grant", Json(R"({"op":"x"})"), kT},
                                    Log{"C"}};
  EXPECT_EQ(TouchedIds(SupervisorGone{"Z", kT}, acts), (std::vector<std::string>{"A", "B", "Z"}));
  EXPECT_EQ(TouchedIds(Ready{kT}, {}), std::vector<std::string>{});
}

}  // namespace
}  // namespace hangar
