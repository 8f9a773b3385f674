#include "kernel/egress.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstdint>

namespace hangar {

namespace {

// The canonical text of a numeric IPv6 address (inet_ntop), or nullopt. inet_pton reads a C
// string: text with a NUL in it is no address (it would be read as the part before the NUL).
std::optional<std::string> CanonicalV6(const std::string& text) {
  in6_addr a{};
  if (text.find('\0') != std::string::npos || inet_pton(AF_INET6, text.c_str(), &a) != 1)
    return std::nullopt;
  char out[INET6_ADDRSTRLEN] = "";
  inet_ntop(AF_INET6, &a, out, sizeof out);
  return std::string(out);
}

bool IsV4(const std::string& text) {
  in_addr a{};
  return text.find('\0') == std::string::npos && inet_pton(AF_INET, text.c_str(), &a) == 1;
}

bool ValidName(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  size_t label = 0;
  for (size_t i = 0; i <= host.size(); i++) {
    if (i == host.size() || host[i] == '.') {
      if (label == 0 || label > 63 || host[i - 1] == '-' || host[i - label] == '-') return false;
      label = 0;
      continue;
    }
    const char c = host[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
    label++;
  }
  return true;
}

AddressKind KindV4(const std::array<uint8_t, 4>& b) {
  const uint32_t a = uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3];
  auto in = [&](uint32_t net, int bits) { return (a >> (32 - bits)) == (net >> (32 - bits)); };
  if (in(0x00000000, 8)) return AddressKind::kUnspecified;
  if (in(0x7f000000, 8)) return AddressKind::kLoopback;
  if (in(0x0a000000, 8) || in(0xac100000, 12) || in(0xc0a80000, 16) || in(0x64400000, 10))
    return AddressKind::kPrivate;
  if (in(0xa9fe0000, 16)) return AddressKind::kLinkLocal;
  if (in(0xe0000000, 4)) return AddressKind::kMulticast;
  if (in(0xf0000000, 4) || in(0xc0000000, 24) || in(0xc6120000, 15) || in(0xc0000200, 24) ||
      in(0xc6336400, 24) || in(0xcb007100, 24))
    return AddressKind::kReserved;  // 240/4 (and broadcast), IETF, benchmarking, documentation
  return AddressKind::kPublic;
}

EgressDecision Refuse(std::string rule, std::string reason) {
  return {false, std::move(rule), std::move(reason)};
}

// Printable ASCII without spaces: the only bytes a destination or pattern may hold (a NUL would
// end the C string inet_pton reads, letting "1.2.3.4\0anything" pass as an address).
bool Printable(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

}  // namespace

std::string Destination::Text() const {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
         std::to_string(port);
}

Result<Destination> ParseDestination(std::string_view text) {
  if (!Printable(text))
    return Status::Invalid("destination: expected HOST:PORT in printable ASCII, no spaces");
  const std::string shown = "destination \"" + std::string(text.substr(0, 300)) + "\"";
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos)
    return Status::Invalid(shown + ": expected HOST:PORT, such as \"api.openai.com:443\"");
  std::string host(text.substr(0, colon));
  const std::string_view port = text.substr(colon + 1);
  Destination d;
  if (port.empty() || port.size() > 5 || port[0] == '0' ||
      !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      (d.port = std::stoi(std::string(port))) > 65535)
    return Status::Invalid(shown + ": expected a port from 1 to 65535 after the last \":\"");
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    std::optional<std::string> v6 = CanonicalV6(host.substr(1, host.size() - 2));
    if (!v6) return Status::Invalid(shown + ": not an IPv6 address between the brackets");
    d.host = *v6;
    return d;
  }
  if (host.find(':') != std::string::npos)
    return Status::Invalid(shown + ": write an IPv6 address in brackets, as \"[::1]:8080\"");
  std::transform(host.begin(), host.end(), host.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; });
  if (!IsV4(host) && !ValidName(host))
    return Status::Invalid(shown +
                           ": expected a DNS name (letters, digits, hyphens, dots) or an "
                           "IP address before the port");
  d.host = host;
  return d;
}

const char* AddressKindName(AddressKind k) {
  switch (k) {
    case AddressKind::kPublic:
      return "public";
    case AddressKind::kLoopback:
      return "loopback";
    case AddressKind::kPrivate:
      return "private";
    case AddressKind::kLinkLocal:
      return "link-local";
    case AddressKind::kUniqueLocal:
      return "unique-local";
    case AddressKind::kUnspecified:
      return "unspecified";
    case AddressKind::kMulticast:
      return "multicast";
    case AddressKind::kReserved:
      return "reserved";
  }
  return "?";
}

std::optional<AddressKind> ClassifyAddress(std::string_view text) {
  const std::string t(text);
  if (t.find('\0') != std::string::npos) return std::nullopt;  // inet_pton reads a C string
  in_addr v4{};
  if (inet_pton(AF_INET, t.c_str(), &v4) == 1) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v4.s_addr);
    return KindV4({p[0], p[1], p[2], p[3]});
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, t.c_str(), &v6) != 1) return std::nullopt;
  const uint8_t* b = v6.s6_addr;
  const bool zero10 = std::all_of(b, b + 10, [](uint8_t x) { return x == 0; });
  if (zero10 && b[10] == 0xff && b[11] == 0xff) return KindV4({b[12], b[13], b[14], b[15]});
  if (std::all_of(b, b + 15, [](uint8_t x) { return x == 0; }))
    return b[15] == 0   ? AddressKind::kUnspecified
           : b[15] == 1 ? AddressKind::kLoopback
                        : AddressKind::kReserved;
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return AddressKind::kLinkLocal;
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return AddressKind::kPrivate;  // site-local
  if ((b[0] & 0xfe) == 0xfc) return AddressKind::kUniqueLocal;
  if (b[0] == 0xff) return AddressKind::kMulticast;
  if (zero10 || (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b) ||
      (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8))
    return AddressKind::kReserved;  // IPv4-compatible, NAT64, documentation
  return AddressKind::kPublic;
}

Status CheckEgressPattern(std::string_view pattern) {
  if (!Printable(pattern))
    return Status::Invalid("destination pattern: expected HOST:PORT in printable ASCII, no spaces");
  const std::string shown = "destination pattern \"" + std::string(pattern.substr(0, 300)) + "\"";
  const size_t colon = pattern.rfind(':');
  if (colon == std::string_view::npos)
    return Status::Invalid(shown + ": expected HOST:PORT, such as \"*.example.com:*\"");
  std::string host(pattern.substr(0, colon));
  const std::string_view port = pattern.substr(colon + 1);
  if (port != "*" && !ParseDestination("x:" + std::string(port)).ok())
    return Status::Invalid(shown +
                           ": expected a port from 1 to 65535 or \"*\" after the last \":\"");
  if (host == "*") return Status::Ok();
  if (host.starts_with("*.")) host = host.substr(2);
  Result<Destination> d = ParseDestination(host + ":1");
  if (!d.ok() || (d->host != host && "[" + d->host + "]" != host))
    return Status::Invalid(shown +
                           ": expected a lower-case name, an address, \"*.SUFFIX\" or "
                           "\"*\" before the port");
  return Status::Ok();
}

bool EgressPatternMatches(std::string_view pattern, const Destination& d) {
  const size_t colon = pattern.rfind(':');
  const std::string_view host = pattern.substr(0, colon), port = pattern.substr(colon + 1);
  if (port != "*" && port != std::to_string(d.port)) return false;
  if (host == "*") return true;
  if (host.starts_with("*.")) {
    const std::string_view suffix = host.substr(1);  // ".example.com"
    return d.host.size() > suffix.size() && std::string_view(d.host).ends_with(suffix);
  }
  const std::string want =
      host.starts_with("[") ? std::string(host.substr(1, host.size() - 2)) : std::string(host);
  return want == d.host;
}

EgressDecision JudgeAsked(const EgressRules& rules, const Destination& asked) {
  for (const Destination& d : rules.allow)
    if (d == asked) return {true, "", ""};
  return Refuse("egress.unlisted", asked.Text() + " is not on the mission's egress list");
}

EgressDecision JudgeMethod(const EgressRules& rules, std::string_view method) {
  if (rules.methods.empty() ||
      std::find(rules.methods.begin(), rules.methods.end(), method) != rules.methods.end())
    return {true, "", ""};
  return Refuse("egress.method", "plain-HTTP method " + std::string(method.substr(0, 32)) +
                                     " is not among the allowed methods");
}

EgressDecision JudgeResolved(const EgressRules& rules, const Destination& asked,
                             const std::vector<std::string>& addresses) {
  if (addresses.empty()) return Refuse("egress.unresolved", asked.host + " resolved to no address");
  for (const std::string& a : addresses) {
    std::optional<AddressKind> kind = ClassifyAddress(a);
    if (!kind)
      return Refuse("egress.unresolved", asked.host + " resolved to " + a + ", not an address");
    if (*kind == AddressKind::kPublic) continue;
    // An internal address only where the allowlist names that very address and port.
    const std::string canonical = IsV4(a) ? a : CanonicalV6(a).value_or(a);
    const Destination exact{canonical, asked.port};
    if (std::find(rules.allow.begin(), rules.allow.end(), exact) != rules.allow.end()) continue;
    return Refuse("egress.internal",
                  asked.Text() + " resolves to " + a + ", a " + AddressKindName(*kind) +
                      " address the egress list does not name as " + exact.Text());
  }
  return {true, "", ""};
}

}  // namespace hangar
