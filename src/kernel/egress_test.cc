// The proxy's decisions (kernel/egress.h): only listed destinations, only allowed methods, and no
// internal address after resolution unless the list names that exact address and port.
#include "kernel/egress.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

Destination D(const std::string& text) {
  Result<Destination> d = ParseDestination(text);
  EXPECT_TRUE(d.ok()) << text << ": " << d.status().message();
  return d.ok() ? *d : Destination{};
}

TEST(Egress, DestinationsParseStrictly) {
  EXPECT_EQ(D("API.OpenAI.com:443").Text(), "api.openai.com:443");
  EXPECT_EQ(D("127.0.0.1:8080").Text(), "127.0.0.1:8080");
  EXPECT_EQ(D("[0:0::1]:8080").Text(), "[::1]:8080");
  for (const char* bad : {"api.openai.com", "api.openai.com:0", "api.openai.com:65536",
                          "api.openai.com:08", ":443", "a..b:443", "-a.com:443", "a-.com:443",
                          "a_b.com:443", "::1:80", "[zz]:80", "host:44x", "a b:80"})
    EXPECT_FALSE(ParseDestination(bad).ok()) << bad;
  // Found by fuzz/egress_fuzz: a NUL ended the text inet_pton read, so this passed as 1.2.3.4.
  EXPECT_FALSE(ParseDestination(std::string("1.2.3.4\0evil:80", 15)).ok());
  EXPECT_FALSE(CheckEgressPattern(std::string("1.2.3.4\0x:80", 12)).ok());
  EXPECT_EQ(ParseDestination("api.openai.com").status().message(),
            "destination \"api.openai.com\": expected HOST:PORT, such as \"api.openai.com:443\"");
}

TEST(Egress, AddressesAreClassified) {
  struct Case {
    const char* address;
    AddressKind kind;
  };
  for (const Case& c : std::vector<Case>{{"8.8.8.8", AddressKind::kPublic},
                                         {"127.0.0.1", AddressKind::kLoopback},
                                         {"127.255.1.2", AddressKind::kLoopback},
                                         {"10.1.2.3", AddressKind::kPrivate},
                                         {"172.16.0.1", AddressKind::kPrivate},
                                         {"172.31.255.255", AddressKind::kPrivate},
                                         {"172.32.0.1", AddressKind::kPublic},
                                         {"192.168.1.1", AddressKind::kPrivate},
                                         {"100.64.0.1", AddressKind::kPrivate},
                                         {"169.254.169.254", AddressKind::kLinkLocal},
                                         {"0.0.0.0", AddressKind::kUnspecified},
                                         {"224.0.0.1", AddressKind::kMulticast},
                                         {"255.255.255.255", AddressKind::kReserved},
                                         {"192.0.2.10", AddressKind::kReserved},
                                         {"::", AddressKind::kUnspecified},
                                         {"::1", AddressKind::kLoopback},
                                         {"::ffff:127.0.0.1", AddressKind::kLoopback},
                                         {"::ffff:169.254.169.254", AddressKind::kLinkLocal},
                                         {"fe80::1", AddressKind::kLinkLocal},
                                         {"fd00:ec2::254", AddressKind::kUniqueLocal},
                                         {"ff02::1", AddressKind::kMulticast},
                                         {"64:ff9b::7f00:1", AddressKind::kReserved},
                                         {"2606:4700::1111", AddressKind::kPublic}}) {
    std::optional<AddressKind> k = ClassifyAddress(c.address);
    ASSERT_TRUE(k.has_value()) << c.address;
    EXPECT_EQ(AddressKindName(*k), std::string(AddressKindName(c.kind))) << c.address;
  }
  EXPECT_FALSE(ClassifyAddress("localhost").has_value());
}

TEST(Egress, OnlyListedDestinationsAndMethods) {
  EgressRules r{{D("api.openai.com:443")}, {"GET", "HEAD"}};
  EXPECT_TRUE(JudgeAsked(r, D("API.openai.com:443")).allowed);
  EgressDecision other = JudgeAsked(r, D("evil.example:443"));
  EXPECT_FALSE(other.allowed);
  EXPECT_EQ(other.rule, "egress.unlisted");
  EXPECT_FALSE(JudgeAsked(r, D("api.openai.com:80")).allowed);  // the port is part of it
  EXPECT_TRUE(JudgeMethod(r, "GET").allowed);
  EXPECT_EQ(JudgeMethod(r, "POST").rule, "egress.method");
  EXPECT_TRUE(JudgeMethod(EgressRules{}, "POST").allowed);  // no list: any method
}

// A listed name that resolves to an internal address (DNS under an attacker's control, or a
// rebinding) is refused; only an exact ip:port on the list reaches an internal service.
TEST(Egress, InternalAddressesAreRefusedAfterResolution) {
  EgressRules r{{D("api.openai.com:443"), D("127.0.0.1:8080")}, {}};
  EXPECT_TRUE(JudgeResolved(r, D("api.openai.com:443"), {"104.18.7.192"}).allowed);
  EgressDecision loop = JudgeResolved(r, D("api.openai.com:443"), {"104.18.7.192", "127.0.0.1"});
  EXPECT_FALSE(loop.allowed);
  EXPECT_EQ(loop.rule, "egress.internal");
  EXPECT_EQ(loop.reason,
            "api.openai.com:443 resolves to 127.0.0.1, a loopback address the egress list does "
            "not name as 127.0.0.1:443");
  EXPECT_FALSE(JudgeResolved(r, D("api.openai.com:443"), {"169.254.169.254"}).allowed);
  EXPECT_FALSE(JudgeResolved(r, D("api.openai.com:443"), {"::ffff:10.0.0.1"}).allowed);
  EXPECT_TRUE(JudgeResolved(r, D("127.0.0.1:8080"), {"127.0.0.1"}).allowed);
  EXPECT_FALSE(JudgeResolved(r, D("127.0.0.1:8081"), {"127.0.0.1"}).allowed);
  EXPECT_EQ(JudgeResolved(r, D("api.openai.com:443"), {}).rule, "egress.unresolved");
}

TEST(Egress, PolicyPatternsMatchNamesSubdomainsAndPorts) {
  for (const char* ok : {"*:*", "*.example.com:443", "api.openai.com:*", "10.0.0.1:80", "[::1]:*"})
    EXPECT_TRUE(CheckEgressPattern(ok).ok()) << ok;
  for (const char* bad :
       {"example.com", "*example.com:443", "Example.com:443", "*.com:0", "a..b:*", "**.x:1"})
    EXPECT_FALSE(CheckEgressPattern(bad).ok()) << bad;
  EXPECT_TRUE(EgressPatternMatches("*.example.com:443", D("api.example.com:443")));
  EXPECT_TRUE(EgressPatternMatches("*.example.com:*", D("a.b.example.com:8443")));
  EXPECT_FALSE(EgressPatternMatches("*.example.com:443", D("example.com:443")));
  EXPECT_FALSE(EgressPatternMatches("*.example.com:443", D("evilexample.com:443")));
  EXPECT_FALSE(EgressPatternMatches("*.example.com:443", D("api.example.com:80")));
  EXPECT_TRUE(EgressPatternMatches("*:*", D("[::1]:9")));
  EXPECT_TRUE(EgressPatternMatches("[::1]:*", D("[::1]:9")));
}

// Found by fuzz/egress: the address readers stopped at a NUL byte (inet_pton of c_str()), so
// "127.0.0.1\0x:443" parsed as a destination whose host held the NUL and classified as the
// loopback address: a policy pattern "127.0.0.1:*" did not match it, while the proxy, resolving
// the host as a C string, would connect to 127.0.0.1.
TEST(Egress, NulByteInHostReadAsTheAddressBeforeIt) {
  using namespace std::string_literals;
  for (const std::string& bad :
       {"127.0.0.1\0x:443"s, "127.0.0.1\0:443"s, "[::1\0x]:443"s, "api.openai.com\0:443"s})
    EXPECT_FALSE(ParseDestination(bad).ok()) << bad;
  EXPECT_FALSE(ClassifyAddress("127.0.0.1\0x"s).has_value());
  EXPECT_FALSE(ClassifyAddress("::1\0"s).has_value());
  EXPECT_FALSE(CheckEgressPattern("127.0.0.1\0x:*"s).ok());
}

}  // namespace
}  // namespace hangar
