// Who may decide (man/hangar.conf.5 approvers, four_eyes; man/hangar-spool.5 "Who asked"): the
// kernel judges each control request by the uid the OS says dropped it, answers every request
// (control/done), and a refused one changes nothing but its ledger entry. Pure: no disk.
#include <gtest/gtest.h>

#include "base/sha256.h"
#include "kernel/kernel.h"
#include "kernel/kernel_testutil.h"

namespace hangar {
namespace {

const Dropper kAna{1001, "ana"};  // an approver
const Dropper kBob{1002, "bob"};  // a requester
const Dropper kEve{1003, "eve"};  // another requester

std::string MissionText(const std::string& id) {
  return "{\"hangar\":1,\"id\":\"" + id +
         "\",\"requester\":\"t\",\"drone\":\"script\",\"future\":\"f\",\"now\":\"n\","
         "\"max_minutes\":1}";
}

KernelSetup DecideSetup(bool four_eyes = false) {
  KernelSetup s = ScriptSetup(2);
  s.approvers = {0, kAna.uid};
  s.config.four_eyes = four_eyes;
  return s;
}

// A mission in hold/ at start, dropped by BY.
Recovered HeldBy(const std::string& id, const Dropper& by) {
  Recovered r;
  r.id = id;
  r.phase = Phase::kHold;
  r.mission_bytes = MissionText(id);
  r.accepted = 500;
  r.now = 1000;
  r.intake_sha256 = Sha256Hex(r.mission_bytes);
  r.by = by;
  return r;
}

ControlDropped Asked(const Dropper& by, const std::string& body, const std::string& name = "req") {
  return ControlDropped{name, "{\"hangar\":1," + body + "}", "", 5000, by};
}

json::Value AnswerOf(const std::vector<Action>& acts) {
  auto c = Only<ConsumeControl>(acts);
  EXPECT_EQ(c.size(), 1u);
  return c.empty() ? json::Value() : Json(c[0].answer);
}

// Nothing but the refusal's entry and the request's filing: no move, no launch, no grant.
void ExpectRefused(const std::vector<Action>& acts, const std::string& rule) {
  auto recs = Only<Record>(acts);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].kind, "control.refused");
  EXPECT_EQ(recs[0].body["rule"].as_string(), rule);
  EXPECT_TRUE(Only<Move>(acts).empty());
  EXPECT_TRUE(Only<Launch>(acts).empty());
  auto c = Only<ConsumeControl>(acts);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(c[0].bad);
  json::Value a = Json(c[0].answer);
  EXPECT_EQ(a["status"].as_string(), "refused");
  EXPECT_EQ(a["rule"].as_string(), rule);
  EXPECT_EQ(a["ledger_seq"].as_int(), recs[0].seq);
}

TEST(KernelDecide, ARequesterCannotApproveItsOwnHeldMission) {
  KernelSetup s = DecideSetup();
  State st;
  Decide(s, &st, HeldBy("H", kBob));
  auto acts = Decide(s, &st, Asked(kBob, R"("request":"approve","id":"H","by":"root")"));
  ExpectRefused(acts, "control.not-approver");
  EXPECT_EQ(st.missions["H"].phase, Phase::kHold);
  // The ledger names who asked as the OS said, and keeps the claim apart.
  json::Value body = Only<Record>(acts)[0].body;
  EXPECT_EQ(body["uid"].as_int(), 1002);
  EXPECT_EQ(body["user"].as_string(), "bob");
  EXPECT_EQ(body["claimed_by"].as_string(), "root");
  EXPECT_EQ(body.find("by"), nullptr);
  // Nor deny, grant, revoke or reanchor.
  for (const char* r :
       {R"("request":"deny","id":"H","why":"x")",
        R"("request":"grant","op":"git.push","mission":"H")",
        R"("request":"revoke","op":"git.push","mission":"H")", R"("request":"reanchor","why":"x")"})
    ExpectRefused(Decide(s, &st, Asked(kBob, r)), "control.not-approver");
  EXPECT_TRUE(st.grants.Active(6000).empty());
}

TEST(KernelDecide, AnUnknownOwnerIsNobody) {
  KernelSetup s = DecideSetup();
  State st;
  Decide(s, &st, HeldBy("H", kBob));
  ExpectRefused(Decide(s, &st, Asked(Dropper{}, R"("request":"approve","id":"H")")),
                "control.not-approver");
  ExpectRefused(Decide(s, &st, Asked(Dropper{}, R"("request":"cancel","id":"H")")),
                "control.not-owner");
  EXPECT_EQ(st.missions["H"].phase, Phase::kHold);
}

TEST(KernelDecide, AnApproverApprovesAndTheAnswerSaysSo) {
  KernelSetup s = DecideSetup();
  State st;
  Decide(s, &st, HeldBy("H", kBob));
  auto acts = Decide(s, &st, Asked(kAna, R"("request":"approve","id":"H","by":"mallory")"));
  auto recs = Only<Record>(acts);
  ASSERT_GE(recs.size(), 1u);
  EXPECT_EQ(recs[0].kind, "person.approved");
  EXPECT_EQ(recs[0].body["by"].as_string(), "ana");
  EXPECT_EQ(recs[0].body["uid"].as_int(), 1001);
  EXPECT_EQ(recs[0].body["claimed_by"].as_string(), "mallory");
  EXPECT_EQ(st.missions["H"].phase, Phase::kRunning);  // queued, then launched in a free slot
  json::Value a = AnswerOf(acts);
  EXPECT_EQ(a["status"].as_string(), "done");
  EXPECT_EQ(a["effect"].as_string(), "queued");
  EXPECT_EQ(a["request"].as_string(), "approve");
  EXPECT_EQ(a["user"].as_string(), "ana");
  EXPECT_TRUE(a["rule"].is_null());
  EXPECT_EQ(a["request_sha256"].as_string(),
            Sha256Hex(R"({"hangar":1,"request":"approve","id":"H","by":"mallory"})"));
  EXPECT_EQ(a["ledger_seq"].as_int(), st.ledger_seq);
}

TEST(KernelDecide, OnlyTheOwnerOrAnApproverCancels) {
  KernelSetup s = DecideSetup();
  State st;
  Decide(s, &st, HeldBy("B1", kBob));
  Decide(s, &st, HeldBy("B2", kBob));
  ExpectRefused(Decide(s, &st, Asked(kEve, R"("request":"cancel","id":"B1")")),
                "control.not-owner");
  EXPECT_EQ(st.missions["B1"].phase, Phase::kHold);
  EXPECT_EQ(AnswerOf(Decide(s, &st, Asked(kBob, R"("request":"cancel","id":"B1")")))["effect"]
                .as_string(),
            "returned");
  EXPECT_EQ(st.missions["B1"].phase, Phase::kReturned);
  EXPECT_EQ(AnswerOf(Decide(s, &st, Asked(kAna, R"("request":"cancel","id":"B2")")))["status"]
                .as_string(),
            "done");
  EXPECT_EQ(st.missions["B2"].phase, Phase::kReturned);
}

TEST(KernelDecide, FourEyesKeepsAnApproverFromApprovingOrGrantingItsOwn) {
  KernelSetup s = DecideSetup(/*four_eyes=*/true);
  State st;
  Decide(s, &st, HeldBy("A", kAna));
  ExpectRefused(Decide(s, &st, Asked(kAna, R"("request":"approve","id":"A")")),
                "control.self-approval");
  ExpectRefused(Decide(s, &st, Asked(kAna, R"("request":"grant","op":"git.push","mission":"A")")),
                "control.self-approval");
  EXPECT_EQ(st.missions["A"].phase, Phase::kHold);
  // Another approver may; and without four_eyes, so may its owner.
  EXPECT_EQ(AnswerOf(Decide(s, &st, Asked(kRoot, R"("request":"approve","id":"A")")))["status"]
                .as_string(),
            "done");
  KernelSetup one = DecideSetup(false);
  State st1;
  Decide(one, &st1, HeldBy("A", kAna));
  EXPECT_EQ(AnswerOf(Decide(one, &st1, Asked(kAna, R"("request":"approve","id":"A")")))["status"]
                .as_string(),
            "done");
}

TEST(KernelDecide, AnInvalidRequestIsAnsweredInvalid) {
  KernelSetup s = DecideSetup();
  State st;
  auto acts = Decide(s, &st, Asked(kAna, R"("request":"approve","id":"NOPE")"));
  json::Value a = AnswerOf(acts);
  EXPECT_EQ(a["status"].as_string(), "invalid");
  EXPECT_EQ(a["rule"].as_string(), "control.invalid");
  EXPECT_NE(a["reason"].as_string().find("no mission NOPE"), std::string::npos);
  a = AnswerOf(Decide(s, &st, ControlDropped{"x", "not json", "", 5000, kAna}));
  EXPECT_EQ(a["status"].as_string(), "invalid");
  EXPECT_TRUE(a["request"].is_null());
}

TEST(KernelDecide, AMissionRemembersWhoDroppedIt) {
  KernelSetup s = DecideSetup();
  State st;
  auto acts = Decide(s, &st, Dropped{"m", MissionText("M"), "", 1000, {}, kBob});
  auto recs = Only<Record>(acts);
  ASSERT_GE(recs.size(), 1u);
  EXPECT_EQ(recs[0].kind, "mission.accepted");
  EXPECT_EQ(recs[0].body["uid"].as_int(), 1002);
  EXPECT_EQ(recs[0].body["user"].as_string(), "bob");
  auto in = Only<Intake>(acts);
  ASSERT_EQ(in.size(), 1u);
  json::Value intake = Json(in[0].files["intake.json"]);
  EXPECT_EQ(intake["uid"].as_int(), 1002);
  EXPECT_EQ(intake["user"].as_string(), "bob");
  EXPECT_EQ(st.missions["M"].owner.uid, 1002);
}

// A name too long for control/done/NAME.json gets no answer file; the request is still decided.
TEST(KernelDecide, ANameTooLongForAnAnswerIsDecidedWithoutOne) {
  KernelSetup s = DecideSetup();
  State st;
  auto acts =
      Decide(s, &st, Asked(kAna, R"("request":"reanchor","why":"x")", std::string(220, 'n')));
  auto c = Only<ConsumeControl>(acts);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(c[0].answer.empty());
  EXPECT_EQ(Only<Record>(acts)[0].kind, "control.refused");  // not failed closed: invalid
}

// With allowed_signers, the signer decides: unsigned or unverified approves are refused whoever
// dropped them (root included), a verified one of the bytes as held is taken from anyone.
TEST(KernelDecide, UnderAllowedSignersOnlyAVerifiedSignatureOfTheHeldBytesApproves) {
  KernelSetup s = DecideSetup(/*four_eyes=*/true);
  s.config.allowed_signers = "/etc/hangar/allowed_signers";
  State st;
  Decide(s, &st, HeldBy("H", kBob));
  const std::string sha = Sha256Hex(MissionText("H"));
  const std::string signed_body =
      R"("request":"approve","id":"H","principal":"alice","signature":"-----BEGIN SSH SIGNATURE-----")";
  auto with = [&](const Dropper& by, std::optional<SignatureCheck> check, const std::string& body) {
    ControlDropped c = Asked(by, body);
    c.signature = std::move(check);
    return Decide(s, &st, c);
  };
  ExpectRefused(with(kRoot, std::nullopt, R"("request":"approve","id":"H")"),
                "control.bad-signature");
  ExpectRefused(with(kBob, SignatureCheck{false, "exit 255", sha, ""}, signed_body),
                "control.bad-signature");
  ExpectRefused(with(kBob, SignatureCheck{true, "", std::string(64, 'a'), ""}, signed_body),
                "control.bad-signature");  // verified, but of other bytes
  // The owner by name, signing its own: four_eyes.
  ExpectRefused(with(kBob, SignatureCheck{true, "", sha, ""},
                     R"("request":"approve","id":"H","principal":"bob","signature":"x")"),
                "control.self-approval");
  EXPECT_EQ(st.missions["H"].phase, Phase::kHold);
  auto acts = with(kBob, SignatureCheck{true, "", sha, ""}, signed_body);
  EXPECT_EQ(AnswerOf(acts)["status"].as_string(), "done");
  auto recs = Only<Record>(acts);
  ASSERT_GE(recs.size(), 1u);
  EXPECT_EQ(recs[0].body["signed_by"].as_string(), "alice");
  EXPECT_EQ(recs[0].body["by"].as_string(), "alice");
  EXPECT_EQ(recs[0].body["user"].as_string(), "bob") << "who dropped it, still recorded";
}

}  // namespace
}  // namespace hangar
