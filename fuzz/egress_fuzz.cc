// The egress parsers (kernel/egress.h): ParseDestination, what a drone names in a CONNECT or a
// plain-HTTP request and what missions, profiles and policies list; CheckEgressPattern, a
// policy's or an allowlist's HOST:PORT pattern; ClassifyAddress, what a name resolved to. Line 1
// of the input is the destination, the rest a pattern, and both are classified as addresses.
// Promises checked: an accepted destination's host is a lower-case name, a dotted IPv4 address
// or an IPv6 address, its port 1-65535; its text parses back to it; as a pattern it is accepted
// and matches it; a host that ClassifyAddress reads is an address.
#include <string>

#include "fuzz.h"
#include "kernel/egress.h"

using namespace hangar;

namespace {

bool HostChars(const std::string& host) {
  if (host.empty()) return false;
  for (char c : host)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == ':'))
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [text, pattern] = fuzz::FirstLine(fuzz::Bytes(data, size));
  (void)ClassifyAddress(text);
  (void)ClassifyAddress(pattern);
  Status p = CheckEgressPattern(pattern);
  Result<Destination> d = ParseDestination(text);
  if (p.ok() && d.ok()) (void)EgressPatternMatches(pattern, *d);
  if (!d.ok()) {
    FUZZ_CHECK(d.status().code() == Code::kInvalid);
    return 0;
  }
  FUZZ_CHECK(HostChars(d->host));
  FUZZ_CHECK(d->port >= 1 && d->port <= 65535);
  Result<Destination> back = ParseDestination(d->Text());
  FUZZ_CHECK(back.ok() && *back == *d);
  FUZZ_CHECK(CheckEgressPattern(d->Text()).ok());
  FUZZ_CHECK(EgressPatternMatches(d->Text(), *d));
  return 0;
}
