// The kernel's window: a running drone's op requests judged, recorded, run once or answered, and
// the drone observed only once its acts are over. Pure: no disk.
#include <gtest/gtest.h>

#include <type_traits>

#include "base/sha256.h"
#include "kernel/kernel.h"
#include "kernel/kernel_testutil.h"

namespace hangar {
namespace {

constexpr TimeMs kT = 1767225600000;  // 2026-01-01T00:00:00Z

// A profile, two op handlers, and a policy that allows post.message and grant-lists git.push.
KernelSetup WindowSetup(int slots = 1) {
  KernelSetup s = ScriptSetup(slots);
  s.config.ops["post.message"] =
      OpHandler{"post.message", {"/usr/lib/hangar/post", "--to", "chat"}, {{"PATH", "/bin"}}, 30};
  s.config.ops["git.push"] =
      OpHandler{"git.push", {"/usr/lib/hangar/push"}, {{"PATH", "/bin"}}, 60};
  Policy pol = DefaultPolicy();
  pol.ops["post.message"] = OpAccess::kAllow;
  pol.ops["git.push"] = OpAccess::kGrant;
  s.policy = pol;
  s.policy_sha256 = PolicyDigest(pol);
  s.text_rules = TextRules(pol);
  return s;
}

std::string MissionText(const std::string& id) {
  return "{\"hangar\":1,\"id\":\"" + id +
         "\",\"requester\":\"alice\",\"drone\":\"script\",\"future\":\"f\",\"now\":\"n\","
         "\"max_minutes\":1,\"ops\":[\"post.message\",\"git.push\"]}";
}

std::string Str(const json::Value& v, const char* k) {
  const json::Value* x = v.is_object() ? v.find(k) : nullptr;
  return x && x->is_string() ? x->as_string() : "(missing)";
}

// shell/declaration.h's record of a valid DECLARATION.json naming these ops.
json::Value Declared(const std::vector<std::string>& ops = {"post.message", "git.push"}) {
  json::Object content{{"will", json::Array{}},
                       {"will_not", json::Array{}},
                       {"ops", json::Array(ops.begin(), ops.end())},
                       {"external_acts", json::Array{}}};
  return json::Object{{"present", true}, {"valid", true}, {"content", std::move(content)}};
}

std::string Request(const std::string& op, const std::string& key,
                    const std::string& args = R"({"text":"hi"})") {
  return R"({"op":")" + op + R"(", "args": )" + args + R"(, "key":")" + key + "\"}";
}

OpRequested Req(const std::string& id, const std::string& name, const std::string& bytes,
                OpKeyState key = OpKeyState::kFree, TimeMs now = kT) {
  OpRequested q;
  q.id = id;
  q.name = name;
  q.bytes = bytes;
  q.declaration = Declared();
  q.key = key;
  q.now = now;
  return q;
}

OpFinished Ran(const std::string& id, const std::string& name, const std::string& op,
               const std::string& key, int rc = 0, TimeMs now = kT + 1000) {
  OpFinished f = OpRan(id, name, op, key, rc, now);
  f.output = json::Object{{"file", name + ".out"}, {"size", 3}, {"sha256", Sha256Hex("ok\n")}};
  f.output_text = "ok\n";
  return f;
}

ControlDropped Control(const std::string& body, TimeMs now = kT) {
  return ControlDropped{"req", "{\"hangar\":1," + body + "}", "", now, kRoot};
}

// The index of the first action of type T (whose Record kind is `kind`, for Record); -1 if none.
template <typename T>
int IndexOf(const std::vector<Action>& acts, const std::string& kind = "") {
  for (size_t i = 0; i < acts.size(); i++) {
    const T* x = std::get_if<T>(&acts[i]);
    if constexpr (std::is_same_v<T, Record>) {
      if (x && x->kind == kind) return int(i);
    } else {
      if (x) return int(i);
    }
  }
  return -1;
}

class KernelWindowTest : public ::testing::Test {
 protected:
  void SetUp() override { Launch("M1"); }

  void Launch(const std::string& id) {
    auto acts =
        hangar::Decide(s_, &st_, Dropped{id + ".json", MissionText(id), "", kT - 10000, {}});
    ASSERT_EQ(Only<hangar::Launch>(acts).size(), 1u) << id;
    ASSERT_EQ(st_.missions[id].phase, Phase::kRunning);
  }

  std::vector<Action> Decide(const Signal& sig) { return hangar::Decide(s_, &st_, sig); }

  // The one Record of kind `kind` in acts.
  Record RecordOf(const std::vector<Action>& acts, const std::string& kind) {
    int i = IndexOf<Record>(acts, kind);
    EXPECT_GE(i, 0) << "no Record " << kind;
    return i >= 0 ? std::get<Record>(acts[i]) : Record{};
  }

  AnswerOp AnswerIn(const std::vector<Action>& acts) {
    auto a = Only<AnswerOp>(acts);
    EXPECT_EQ(a.size(), 1u);
    return a.empty() ? AnswerOp{} : a[0];
  }

  KernelSetup s_ = WindowSetup(2);
  State st_;
};

TEST_F(KernelWindowTest, AnAllowedRequestIsRecordedThenRun) {
  const std::string bytes =
      Request("post.message", "k1", R"({"text": "hi",  "channel": "ops", "n": 1})");
  const int64_t before = st_.ledger_seq;
  auto acts = Decide(Req("M1", "p1", bytes));
  const int rec_at = IndexOf<Record>(acts, "op.allowed");
  const int run_at = IndexOf<RunOp>(acts);
  ASSERT_GE(rec_at, 0);
  ASSERT_GE(run_at, 0);
  EXPECT_LT(rec_at, run_at);
  EXPECT_TRUE(Only<AnswerOp>(acts).empty());
  const Record& rec = std::get<Record>(acts[rec_at]);
  EXPECT_EQ(rec.seq, before + 1);
  EXPECT_EQ(st_.ledger_seq, before + 1);
  EXPECT_EQ(Str(rec.body, "op"), "post.message");
  EXPECT_EQ(Str(rec.body, "key"), "k1");
  EXPECT_EQ(Str(rec.body, "request"), "p1");
  EXPECT_EQ(Str(rec.body, "request_sha256"), Sha256Hex(bytes));

  const RunOp& run = std::get<RunOp>(acts[run_at]);
  EXPECT_EQ(run.id, "M1");
  EXPECT_EQ(run.name, "p1");
  EXPECT_EQ(run.op, "post.message");
  EXPECT_EQ(run.key, "k1");
  EXPECT_EQ(run.handler.argv, (std::vector<std::string>{"/usr/lib/hangar/post", "--to", "chat"}));
  EXPECT_EQ(run.env.at("HANGAR_MISSION"), "M1");
  EXPECT_EQ(run.env.at("HANGAR_OP"), "post.message");
  EXPECT_EQ(run.env.at("HANGAR_OP_KEY"), "k1");
  EXPECT_EQ(run.env.at("HANGAR_REQUESTER"), "alice");
  EXPECT_EQ(run.env.at("PATH"), "/bin");  // the handler's configured environment, kept
  // The args as the handler reads them: canonical JSON, whatever spacing and order the drone used.
  ASSERT_TRUE(run.files.count("p1.args.json"));
  EXPECT_EQ(run.files.at("p1.args.json"), R"({"channel":"ops","n":1,"text":"hi"})"
                                          "\n");
  EXPECT_EQ(run.files.at("p1.request.json"), bytes);
  EXPECT_EQ(Str(rec.body, "args_sha256"), Sha256Hex(R"({"channel":"ops","n":1,"text":"hi"})"));
  EXPECT_TRUE(st_.missions["M1"].ops.get().running.count("k1"));
}

TEST_F(KernelWindowTest, ARefusedRequestIsRecordedThenAnsweredNamingTheRecord) {
  const std::string bytes = "{ \"op\":\"post.message\",\"args\":{},\"key\":\"k1\" }\n";
  OpRequested q = Req("M1", "p1", bytes);
  q.declaration = Declared({"git.push"});  // post.message not declared
  auto acts = Decide(q);
  EXPECT_TRUE(Only<RunOp>(acts).empty());
  const int rec_at = IndexOf<Record>(acts, "op.refused");
  const int ans_at = IndexOf<AnswerOp>(acts);
  ASSERT_GE(rec_at, 0);
  ASSERT_GE(ans_at, 0);
  EXPECT_LT(rec_at, ans_at);
  const Record& rec = std::get<Record>(acts[rec_at]);
  const AnswerOp& a = std::get<AnswerOp>(acts[ans_at]);
  EXPECT_EQ(a.id, "M1");
  EXPECT_EQ(a.name, "p1");
  EXPECT_EQ(a.key, "k1");
  EXPECT_FALSE(a.keep);
  EXPECT_FALSE(a.release);
  json::Value res = Json(a.result);
  EXPECT_EQ(Str(res, "status"), "refused");
  EXPECT_EQ(Str(res, "rule"), "op.undeclared");
  EXPECT_EQ(Str(res, "request"), "p1");
  EXPECT_EQ(Str(res, "op"), "post.message");
  ASSERT_TRUE(res.find("ledger_seq"));
  EXPECT_EQ(res.find("ledger_seq")->as_int(), rec.seq);
  EXPECT_EQ(Str(rec.body, "rule"), "op.undeclared");
  EXPECT_EQ(Str(rec.body, "result_sha256"), Sha256Hex(a.result));
  // The request is kept byte for byte beside the answer.
  ASSERT_TRUE(a.files.count("p1.request.json"));
  EXPECT_EQ(a.files.at("p1.request.json"), bytes);
  EXPECT_EQ(a.files.at("p1.result.json"), a.result);
}

TEST_F(KernelWindowTest, ARequestThatDoesNotParseIsRefusedNamingTheField) {
  auto acts = Decide(Req("M1", "p1", R"({"op":"post.message","args":{},"key":"../k"})"));
  json::Value res = Json(AnswerIn(acts).result);
  EXPECT_EQ(Str(res, "rule"), "op.request");
  EXPECT_NE(Str(res, "reason").find("key"), std::string::npos) << Str(res, "reason");
  EXPECT_TRUE(res.find("op")->is_null());
}

TEST_F(KernelWindowTest, AnUnreadableRequestIsRefusedWithTheReadError) {
  OpRequested q = Req("M1", "p1", "");
  q.read_error = "ops/p1.json: a symbolic link, not followed";
  auto acts = Decide(q);
  AnswerOp a = AnswerIn(acts);
  json::Value res = Json(a.result);
  EXPECT_EQ(Str(res, "rule"), "op.request");
  EXPECT_EQ(Str(res, "reason"), "ops/p1.json: a symbolic link, not followed");
  EXPECT_FALSE(a.files.count("p1.request.json"));  // nothing was read, nothing is kept
}

TEST_F(KernelWindowTest, ARequestIsAnsweredOnce) {
  OpRequested refused = Req("M1", "p1", Request("post.message", "k1"));
  refused.declaration = Declared({});
  ASSERT_EQ(Only<AnswerOp>(Decide(refused)).size(), 1u);
  const int64_t seq = st_.ledger_seq;
  EXPECT_TRUE(Decide(refused).empty());
  // Seen again, now with a declaration that would allow it: still the first answer stands.
  EXPECT_TRUE(Decide(Req("M1", "p1", Request("post.message", "k1"))).empty());
  // An allowed request seen again while (or after) it runs is not run twice.
  ASSERT_EQ(Only<RunOp>(Decide(Req("M1", "p2", Request("post.message", "k2")))).size(), 1u);
  EXPECT_TRUE(Decide(Req("M1", "p2", Request("post.message", "k2"))).empty());
  EXPECT_EQ(st_.ledger_seq, seq + 1);
}

TEST_F(KernelWindowTest, AFinishedOpIsRecordedAndAnsweredKeepingItsKey) {
  Decide(Req("M1", "p1", Request("post.message", "k1")));
  auto acts = Decide(Ran("M1", "p1", "post.message", "k1", 0));
  const int rec_at = IndexOf<Record>(acts, "op.result");
  const int ans_at = IndexOf<AnswerOp>(acts);
  ASSERT_GE(rec_at, 0);
  ASSERT_GE(ans_at, 0);
  EXPECT_LT(rec_at, ans_at);
  const Record& rec = std::get<Record>(acts[rec_at]);
  const AnswerOp& a = std::get<AnswerOp>(acts[ans_at]);
  EXPECT_TRUE(a.keep);  // the key now holds the result: asked again, it is not run again
  EXPECT_FALSE(a.release);
  EXPECT_EQ(a.key, "k1");
  json::Value res = Json(a.result);
  EXPECT_EQ(Str(res, "status"), "executed");
  EXPECT_EQ(res.find("rc")->as_int(), 0);
  EXPECT_EQ(Str(res, "output_text"), "ok\n");
  EXPECT_EQ(res.find("ledger_seq")->as_int(), rec.seq);
  EXPECT_EQ(Str(rec.body, "output_sha256"), Sha256Hex("ok\n"));
  EXPECT_TRUE(st_.missions["M1"].ops.get().running.empty());
}

TEST_F(KernelWindowTest, AnOpThatCouldNotStartIsAnsweredReleasingItsKey) {
  Decide(Req("M1", "p1", Request("post.message", "k1")));
  OpFinished f;
  f.id = "M1";
  f.name = "p1";
  f.op = "post.message";
  f.key = "k1";
  f.started = false;
  f.error = "cannot run /usr/lib/hangar/post: No such file or directory";
  f.now = kT + 10;
  auto acts = Decide(f);
  const int rec_at = IndexOf<Record>(acts, "op.unrun");
  const int ans_at = IndexOf<AnswerOp>(acts);
  ASSERT_GE(rec_at, 0);
  ASSERT_GE(ans_at, 0);
  EXPECT_LT(rec_at, ans_at);
  const AnswerOp& a = std::get<AnswerOp>(acts[ans_at]);
  EXPECT_TRUE(a.release);  // nothing ran: the same key may be asked for again
  EXPECT_FALSE(a.keep);
  json::Value res = Json(a.result);
  EXPECT_EQ(Str(res, "status"), "error");
  EXPECT_EQ(Str(res, "error"), f.error);
  EXPECT_TRUE(Only<RunOp>(Decide(Req("M1", "p2", Request("post.message", "k1")))).size() == 1u);
}

TEST_F(KernelWindowTest, AKeyDoneBeforeGivesItsStoredResultAgainWithoutRunning) {
  Decide(Req("M1", "p1", Request("post.message", "k1")));
  const std::string first = AnswerIn(Decide(Ran("M1", "p1", "post.message", "k1", 3))).result;
  // What the shell reads back from ops/keys/k1.result.json: the stored answer, canonical.
  const std::string stored = json::Write(Json(first));
  OpRequested again = Req("M1", "p2", Request("post.message", "k1"), OpKeyState::kDone, kT + 5000);
  again.stored_result = stored;
  auto acts = Decide(again);
  EXPECT_TRUE(Only<RunOp>(acts).empty());
  const int rec_at = IndexOf<Record>(acts, "op.repeated");
  const int ans_at = IndexOf<AnswerOp>(acts);
  ASSERT_GE(rec_at, 0);
  ASSERT_GE(ans_at, 0);
  EXPECT_LT(rec_at, ans_at);
  const Record& rec = std::get<Record>(acts[rec_at]);
  EXPECT_EQ(Str(rec.body, "stored_sha256"), Sha256Hex(stored));
  const AnswerOp& a = std::get<AnswerOp>(acts[ans_at]);
  EXPECT_FALSE(a.keep);
  EXPECT_FALSE(a.release);
  json::Value res = Json(a.result);
  EXPECT_TRUE(res.find("repeat")->as_bool());
  EXPECT_EQ(Str(res, "repeat_of"), "p1");
  EXPECT_EQ(Str(res, "request"), "p2");
  EXPECT_EQ(res.find("ledger_seq")->as_int(), rec.seq);
  // Everything else is the stored result.
  json::Value old = Json(first);
  for (const char* k : {"status", "op", "key", "output_text"}) EXPECT_EQ(Str(res, k), Str(old, k));
  EXPECT_EQ(res.find("rc")->as_int(), 3);
}

TEST_F(KernelWindowTest, AKeyTakenWithoutAResultIsInDoubtAndNotRunAgain) {
  auto acts = Decide(Req("M1", "p1", Request("post.message", "k1"), OpKeyState::kTaken));
  EXPECT_TRUE(Only<RunOp>(acts).empty());
  EXPECT_GE(IndexOf<Record>(acts, "op.refused"), 0);
  json::Value res = Json(AnswerIn(acts).result);
  EXPECT_EQ(Str(res, "status"), "refused");
  EXPECT_EQ(Str(res, "rule"), "op.key_in_doubt");
}

TEST_F(KernelWindowTest, ASecondRequestUnderARunningKeyIsRefused) {
  ASSERT_EQ(Only<RunOp>(Decide(Req("M1", "p1", Request("post.message", "k1")))).size(), 1u);
  // The shell sees k1's key file taken (by the running act): running wins over in-doubt.
  auto acts = Decide(Req("M1", "p2", Request("post.message", "k1"), OpKeyState::kTaken));
  EXPECT_TRUE(Only<RunOp>(acts).empty());
  json::Value res = Json(AnswerIn(acts).result);
  EXPECT_EQ(Str(res, "rule"), "op.key_running");
  EXPECT_EQ(Str(res, "request"), "p2");
  // Another key runs alongside.
  EXPECT_EQ(Only<RunOp>(Decide(Req("M1", "p3", Request("post.message", "k2")))).size(), 1u);
}

TEST_F(KernelWindowTest, ADroneThatEndsWhileItsOpRunsIsObservedOnceTheOpEnds) {
  Decide(Req("M1", "p1", Request("post.message", "k1")));
  ExitInfo e;
  e.rc = 0;
  auto acts = Decide(DroneExited{"M1", e, kT + 100});
  EXPECT_TRUE(Only<Observe>(acts).empty());
  EXPECT_EQ(st_.running, 0);  // the slot is free already
  // A request left after the drone's end is not taken up.
  EXPECT_TRUE(Decide(Req("M1", "p9", Request("post.message", "k9"))).empty());
  acts = Decide(Ran("M1", "p1", "post.message", "k1", 0, kT + 200));
  const int ans_at = IndexOf<AnswerOp>(acts);
  const int obs_at = IndexOf<Observe>(acts);
  ASSERT_GE(ans_at, 0);
  ASSERT_GE(obs_at, 0);
  EXPECT_LT(ans_at, obs_at);
  EXPECT_EQ(std::get<Observe>(acts[obs_at]).mission_ops, "/s/running/M1/ops");
  EXPECT_EQ(Only<Observe>(acts).size(), 1u);
}

TEST_F(KernelWindowTest, ADroneWithTwoOpsRunningWaitsForBoth) {
  Decide(Req("M1", "p1", Request("post.message", "k1")));
  Decide(Req("M1", "p2", Request("post.message", "k2")));
  ExitInfo e;
  e.rc = 0;
  EXPECT_TRUE(Only<Observe>(Decide(DroneExited{"M1", e, kT + 100})).empty());
  EXPECT_TRUE(Only<Observe>(Decide(Ran("M1", "p2", "post.message", "k2"))).empty());
  EXPECT_EQ(Only<Observe>(Decide(Ran("M1", "p1", "post.message", "k1"))).size(), 1u);
}

TEST_F(KernelWindowTest, ADroneWithNoOpRunningIsObservedAtOnce) {
  Decide(Req("M1", "p1", Request("post.message", "k1")));
  Decide(Ran("M1", "p1", "post.message", "k1"));
  ExitInfo e;
  e.rc = 0;
  EXPECT_EQ(Only<Observe>(Decide(DroneExited{"M1", e, kT + 100})).size(), 1u);
}

TEST_F(KernelWindowTest, AGrantControlRequestAllowsAGrantListedOpForThatMission) {
  Launch("M2");
  auto acts = Decide(Req("M1", "p1", Request("git.push", "k1")));
  EXPECT_EQ(Str(Json(AnswerIn(acts).result), "rule"), "ops.grant.git.push");

  acts = Decide(Control(R"("request":"grant","op":"git.push","mission":"M1","by":"ana")"));
  ASSERT_EQ(Only<ConsumeControl>(acts).size(), 1u);
  EXPECT_FALSE(Only<ConsumeControl>(acts)[0].bad);
  EXPECT_EQ(RecordOf(acts, "grant").body["mission"].as_string(), "M1");

  acts = Decide(Req("M1", "p2", Request("git.push", "k2")));
  ASSERT_EQ(Only<RunOp>(acts).size(), 1u);
  EXPECT_EQ(Only<RunOp>(acts)[0].handler.argv[0], "/usr/lib/hangar/push");
  // The grant names M1: M2, of the same requester, still needs one.
  acts = Decide(Req("M2", "p1", Request("git.push", "k1")));
  EXPECT_TRUE(Only<RunOp>(acts).empty());
  EXPECT_EQ(Str(Json(AnswerIn(acts).result), "rule"), "ops.grant.git.push");

  // Revoked, it is refused again.
  Decide(Control(R"("request":"revoke","op":"git.push","mission":"M1")"));
  acts = Decide(Req("M1", "p3", Request("git.push", "k3")));
  EXPECT_EQ(Str(Json(AnswerIn(acts).result), "rule"), "ops.grant.git.push");
}

TEST_F(KernelWindowTest, AGrantThatExpiresStopsAllowing) {
  Decide(Control(
      R"("request":"grant","op":"git.push","requester":"alice","until":"2026-01-01T00:01:00Z")"));
  EXPECT_EQ(
      Only<RunOp>(Decide(Req("M1", "p1", Request("git.push", "k1"), OpKeyState::kFree, kT + 59999)))
          .size(),
      1u);
  auto acts = Decide(Req("M1", "p2", Request("git.push", "k2"), OpKeyState::kFree, kT + 60000));
  EXPECT_EQ(Str(Json(AnswerIn(acts).result), "rule"), "ops.grant.git.push");
}

TEST_F(KernelWindowTest, AFailedClosedLedgerRunsNothing) {
  Decide(LedgerFailed{"hash mismatch at seq 2", kT});
  auto acts = Decide(Req("M1", "p1", Request("post.message", "k1")));
  EXPECT_TRUE(Only<RunOp>(acts).empty());
  EXPECT_EQ(Str(Json(AnswerIn(acts).result), "rule"), "ledger.fail-closed");
}

TEST_F(KernelWindowTest, RequestsForAMissionNotRunningGetNoAction) {
  const int64_t seq = st_.ledger_seq;
  EXPECT_TRUE(Decide(Req("nope", "p1", Request("post.message", "k1"))).empty());
  EXPECT_TRUE(Decide(Ran("nope", "p1", "post.message", "k1")).empty());
  // Queued (no slot free): not running yet.
  s_.config.slots = 1;
  Decide(Dropped{"Q.json", MissionText("Q"), "", kT, {}});
  ASSERT_EQ(st_.missions["Q"].phase, Phase::kQueued);
  EXPECT_TRUE(Decide(Req("Q", "p1", Request("post.message", "k1"))).empty());
  // Returned: over.
  ExitInfo e;
  e.rc = 0;
  Decide(DroneExited{"M1", e, kT + 1});
  Decide(Observed{"M1", Observation{}, kT + 2});
  ASSERT_EQ(st_.missions["M1"].phase, Phase::kReturned);
  const int64_t after = st_.ledger_seq;
  EXPECT_TRUE(Decide(Req("M1", "p1", Request("post.message", "k1"))).empty());
  EXPECT_TRUE(Decide(Ran("M1", "p1", "post.message", "k1")).empty());
  EXPECT_EQ(st_.ledger_seq, after);
  EXPECT_GT(after, seq);
}

}  // namespace
}  // namespace hangar

namespace hangar {
namespace {

// limits.ops_per_minute: a drone that asks for acts in a loop gets at most that many handler runs
// in any 60 s; a refused request takes no key, so it may be asked again once the minute has passed.
TEST_F(KernelWindowTest, HandlerRunsPerMinuteAreCapped) {
  s_.config.limits.ops_per_minute = 2;
  EXPECT_EQ(
      Only<RunOp>(Decide(Req("M1", "p1", Request("post.message", "k1"), OpKeyState::kFree, kT)))
          .size(),
      1u);
  EXPECT_EQ(Only<RunOp>(
                Decide(Req("M1", "p2", Request("post.message", "k2"), OpKeyState::kFree, kT + 10)))
                .size(),
            1u);
  auto third = Decide(Req("M1", "p3", Request("post.message", "k3"), OpKeyState::kFree, kT + 20));
  EXPECT_TRUE(Only<RunOp>(third).empty());
  const json::Value res = Json(AnswerIn(third).result);
  EXPECT_EQ(Str(res, "rule"), "op.rate");
  EXPECT_EQ(Str(RecordOf(third, "op.refused").body, "rule"), "op.rate");
  // Another mission has a minute of its own.
  Launch("M2");
  EXPECT_EQ(Only<RunOp>(
                Decide(Req("M2", "p1", Request("post.message", "k1"), OpKeyState::kFree, kT + 30)))
                .size(),
            1u);
  // Once the first run is 60 s old, one more may start; the refused key too.
  EXPECT_EQ(Only<RunOp>(Decide(Req("M1", "p4", Request("post.message", "k3"), OpKeyState::kFree,
                                   kT + 60001)))
                .size(),
            1u);
}

}  // namespace
}  // namespace hangar
