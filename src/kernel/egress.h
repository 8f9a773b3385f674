// Egress (issue 20; man/hangar-mission.5, network "egress"): the destinations a drone may reach
// through hangar's proxy, and the proxy's decision on one connection. A drone in egress mode has
// no network but loopback; its one way out is the proxy, which asks these functions, in order:
//
//   JudgeAsked     the destination as the drone asked for it (CONNECT host:port, or the host of a
//                  plain-HTTP request) is on the allowlist: rule "egress.unlisted" otherwise;
//   JudgeMethod    a plain-HTTP request's method is allowed: rule "egress.method" otherwise;
//   JudgeResolved  after DNS resolution, every address the name resolved to is public, unless the
//                  allowlist names that exact address and port: rule "egress.internal" otherwise
//                  (loopback, RFC 1918 and CGNAT, link-local with the cloud metadata address, ULA,
//                  unspecified, multicast and reserved addresses), "egress.unresolved" for none.
//
// The proxy then connects to the address it judged (never resolving again), so a name that
// resolves to 127.0.0.1, or changes its answer between two lookups, never reaches an internal
// service. Pure: the caller resolves names and reads no file for these functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace hangar {

struct Destination {
  std::string host;  // a lower-case DNS name, a dotted IPv4 address, or an IPv6 address
  int port = 0;      // 1 .. 65535
  // "host:port", or "[v6]:port" for an IPv6 address.
  std::string Text() const;
  bool operator==(const Destination&) const = default;
};

// "api.openai.com:443", "127.0.0.1:8080", "[::1]:8080": a DNS name (letters, digits and hyphens in
// dot-separated labels of 1 to 63 bytes, at most 253 bytes, taken lower-case), an IPv4 address or a
// bracketed IPv6 address, then ":" and a decimal port from 1 to 65535. Invalid naming what is
// wrong.
Result<Destination> ParseDestination(std::string_view text);

// What a numeric address is. An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as its IPv4.
enum class AddressKind {
  kPublic,
  kLoopback,     // 127.0.0.0/8, ::1
  kPrivate,      // 10/8, 172.16/12, 192.168/16, 100.64/10 (CGNAT), fec0::/10
  kLinkLocal,    // 169.254/16 (the cloud metadata address 169.254.169.254), fe80::/10
  kUniqueLocal,  // fc00::/7
  kUnspecified,  // 0.0.0.0/8, ::
  kMulticast,    // 224/4, ff00::/8
  kReserved,     // 240/4 and the broadcast address, 192.0.0/24, 198.18/15, 64:ff9b::/96 ...
};
const char* AddressKindName(AddressKind k);  // "public", "loopback", "private", ...
// The kind of a numeric address (dotted IPv4 or IPv6 text); nullopt when text is no address.
std::optional<AddressKind> ClassifyAddress(std::string_view text);

// A destination pattern of the policy (hangar-policy.5, egress): "HOST:PORT" where HOST is a name
// or address as in ParseDestination, "*.SUFFIX" (every name below SUFFIX, not SUFFIX itself) or
// "*" (any), and PORT a port or "*". Invalid naming what is wrong.
Status CheckEgressPattern(std::string_view pattern);
// Whether d matches a pattern CheckEgressPattern accepted.
bool EgressPatternMatches(std::string_view pattern, const Destination& d);

struct EgressRules {
  std::vector<Destination> allow;    // exactly these host:port (a name matches case-insensitively)
  std::vector<std::string> methods;  // the plain-HTTP methods allowed; empty: any method
};

struct EgressDecision {
  bool allowed = false;
  std::string rule;    // why it was refused ("egress.unlisted", ...); "" when allowed
  std::string reason;  // one sentence a person reads; "" when allowed
};

EgressDecision JudgeAsked(const EgressRules& rules, const Destination& asked);
EgressDecision JudgeMethod(const EgressRules& rules, std::string_view method);
// addresses: what asked.host resolved to (numeric text), or asked.host itself when it is numeric.
EgressDecision JudgeResolved(const EgressRules& rules, const Destination& asked,
                             const std::vector<std::string>& addresses);

}  // namespace hangar
