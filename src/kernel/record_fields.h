// The pieces every record hangar writes for its replay shares (man/hangar-signals.5): a text that
// may not be UTF-8 written as itself or {"hex": HEX}, and a strict reader of one object's members
// that names the field of whatever is missing or unknown. Pure.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/json.h"
#include "base/simdjson_util.h"
#include "base/status.h"
#include "kernel/kernel.h"

namespace hangar {

// Where a record's bytes go and come from (content-addressed blobs, "sha256:HEX"): the shell
// decides where blobs live (ledger/signal_log.h).
using BlobOut = std::function<std::string(std::string_view bytes)>;
using BlobIn = std::function<Result<std::string>(const std::string& ref)>;

}  // namespace hangar

namespace hangar::record {

// The bytes of s as lower-case hex digits, two a byte: MaybeHex's "hex".
std::string Hex(std::string_view s);

// A text that may not be UTF-8: itself when it is, else {"hex": HEX}.
json::Value MaybeHex(const std::string& s);
// Who dropped a file: {"uid", "user"}.
json::Value DropperJson(const Dropper& by);
// A mission's writes as the shell resolved them, a list in the map's (sorted) order: a path as
// written need not be UTF-8, so it is no key. {"as_written", "path", "error"} each.
json::Value ResolvedJson(const ResolvedWrites& r);
// The bytes of the blob whose reference is at FIELD, through IN; fails naming FIELD when IN
// cannot give them back.
std::string ReadBlob(simdjson::dom::element e, const std::string& field, const BlobIn& in);
// Reads what MaybeHex wrote; fails (strict::Fail) naming FIELD otherwise.
std::string ReadText(simdjson::dom::element e, const std::string& field);

// Reads the members of one object: each one asked for must be there, and Done fails on any
// other (nothing in a record is ignored). Failures go through strict::Fail, naming the member.
class Fields {
 public:
  Fields(simdjson::dom::element e, std::string field);
  simdjson::dom::element operator[](std::string_view k);
  bool Has(std::string_view k) const;
  std::string Path(std::string_view k) const;
  void Done() const;

 private:
  // A record's objects are small: a list searched in order beats a map built for each.
  std::string field_;
  std::vector<std::pair<std::string_view, simdjson::dom::element>> members_;
  std::vector<bool> used_;
};

}  // namespace hangar::record
