#include "kernel/control.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

ParseError Err(const std::string& text) {
  auto r = ParseControl(text);
  EXPECT_TRUE(std::holds_alternative<ParseError>(r)) << text;
  return std::holds_alternative<ParseError>(r) ? std::get<ParseError>(r) : ParseError{};
}

ControlRequest Ok(const std::string& text) {
  auto r = ParseControl(text);
  EXPECT_TRUE(std::holds_alternative<ControlRequest>(r))
      << text << ": "
      << (std::holds_alternative<ParseError>(r) ? std::get<ParseError>(r).Text() : "");
  return std::holds_alternative<ControlRequest>(r) ? std::get<ControlRequest>(r) : ControlRequest{};
}

TEST(Control, EachRequestParsesWithItsFields) {
  EXPECT_EQ(
      Ok(R"({"hangar":1,"request":"cancel","id":"M1","by":"u","time":"2026-01-01T00:00:00.000Z"})")
          .id,
      "M1");
  ControlRequest d = Ok(R"({"hangar":1,"request":"deny","id":"M1","why":"no"})");
  EXPECT_EQ(d.kind, ControlKind::kDeny);
  EXPECT_EQ(d.why, "no");
  ControlRequest g = Ok(
      R"({"hangar":1,"request":"grant","op":"git.push","requester":"al","until":"2030-01-01T00:00:00Z"})");
  EXPECT_EQ(g.requester, "al");
  ASSERT_TRUE(g.until);
  EXPECT_EQ(Ok(R"({"hangar":1,"request":"reanchor","why":"x"})").kind, ControlKind::kReanchor);
}

// A purge names 1 to kMaxPurgeIds valid ids, none twice.
TEST(Control, APurgeNamesItsIds) {
  ControlRequest p = Ok(R"({"hangar":1,"request":"purge","ids":["M1","M2"],"why":"disk"})");
  EXPECT_EQ(p.kind, ControlKind::kPurge);
  EXPECT_EQ(p.ids, (std::vector<std::string>{"M1", "M2"}));
  EXPECT_EQ(p.why, "disk");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"purge"})").field, "ids");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"purge","ids":[]})").field, "ids");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"purge","ids":["../x"]})").field, "ids[0]");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"purge","ids":["M1","M1"]})").field, "ids[1]");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"purge","ids":"M1"})").field, "ids");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"purge","ids":["M1"],"id":"M1"})").field, "id");
  std::string many = R"({"hangar":1,"request":"purge","ids":[)";
  for (size_t i = 0; i <= kMaxPurgeIds; ++i)
    many += (i ? ",\"M" : "\"M") + std::to_string(i) + "\"";
  EXPECT_EQ(Err(many + "]}").field, "ids");
}

// A release-canary names the profile; its why is optional, nothing else is read.
TEST(Control, AReleaseCanaryNamesItsProfile) {
  ControlRequest r = Ok(R"({"hangar":1,"request":"release-canary","profile":"codex"})");
  EXPECT_EQ(r.kind, ControlKind::kReleaseCanary);
  EXPECT_EQ(r.profile, "codex");
  EXPECT_EQ(r.why, "");
  EXPECT_EQ(Ok(R"({"hangar":1,"request":"release-canary","profile":"c","why":"ok"})").why, "ok");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"release-canary"})").field, "profile");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"release-canary","profile":""})").field, "profile");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"release-canary","profile":"c","id":"M1"})").field, "id");
}

TEST(Control, ErrorsNameTheField) {
  EXPECT_EQ(Err(R"({"hangar":2,"request":"cancel","id":"M1"})").field, "hangar");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"cancel","id":"../x"})").field, "id");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"deny","id":"M1"})").field, "why");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"cancel","id":"M1","approved":true})").field, "approved");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"grant","op":"Git Push","mission":"M1"})").field, "op");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"grant","op":"a","mission":"M1","until":"soon"})").field,
            "until");
  EXPECT_EQ(
      Err(R"({"hangar":1,"request":"revoke","op":"a","mission":"M1","until":"2030-01-01T00:00:00Z"})")
          .field,
      "until");
  EXPECT_NE(Err(R"({"hangar":1,"request":"grant","op":"a","mission":"M1","requester":"b"})")
                .reason.find("exactly one"),
            std::string::npos);
  EXPECT_EQ(Err(R"({"hangar":1,"request":"self-destruct"})").field, "request");
  EXPECT_EQ(Err("[1]").field, "");
}

// An unknown field is named with the fields that request has; a field given twice is refused, so
// no reader of the file can take the other value.
TEST(Control, UnknownFieldNamesTheKnownAndTwiceIsRefused) {
  EXPECT_EQ(Err(R"({"hangar":1,"request":"deny","id":"M1","why":"w","approved":true})").Text(),
            "approved: unknown field (a deny request has hangar, request, id, why, by, time)");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"cancel","id":"M1","id":"M2"})").Text(),
            "id: field given twice");
  // A missing or wrong field the request needs is named before a stray one.
  EXPECT_EQ(Err(R"({"hangar":1,"request":"cancel","id":"../x","approved":true})").field, "id");
  EXPECT_EQ(Err("{").Text(),
            "not valid JSON: The JSON document has an improper structure: missing or superfluous "
            "commas, braces, missing keys, etc.");
}

}  // namespace
}  // namespace hangar

namespace hangar {
namespace {

// A signed approve carries both its principal and its signature, on an approve only; the message
// it signs names the mission, its bytes and its plan, one per line.
TEST(Control, SignedApprovesCarryPrincipalAndSignature) {
  ControlRequest a = Ok(R"({"hangar":1,"request":"approve","id":"M1","principal":"alice",)"
                        R"("signature":"-----BEGIN SSH SIGNATURE-----\nx\n"})");
  EXPECT_EQ(a.principal, "alice");
  EXPECT_EQ(a.signature, "-----BEGIN SSH SIGNATURE-----\nx\n");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"approve","id":"M1","principal":"alice"})").Text(),
            "a signed approve needs both \"principal\" and \"signature\"");
  EXPECT_EQ(Err(R"({"hangar":1,"request":"deny","id":"M1","why":"w","signature":"s"})").field,
            "signature");
  EXPECT_EQ(ApprovalMessage("M1", "aa", ""),
            "hangar approve v1\nid M1\nmission_sha256 aa\nplan_sha256 \n");
}

}  // namespace
}  // namespace hangar
