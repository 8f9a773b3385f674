// The pieces every record hangar writes for its replay shares (man/hangar-signals.5): a text that
// may not be UTF-8 written as itself or {"hex": HEX}, and a strict reader of one object's members
// that names the field of whatever is missing or unknown. Pure.
#pragma once

#include <map>
#include <set>
#include <string>

#include "base/json.h"
#include "base/simdjson_util.h"

namespace hangar::record {

// A text that may not be UTF-8: itself when it is, else {"hex": HEX}.
json::Value MaybeHex(const std::string& s);
// Reads what MaybeHex wrote; fails (strict::Fail) naming FIELD otherwise.
std::string ReadText(simdjson::dom::element e, const std::string& field);

// Reads the members of one object: each one asked for must be there, and Done fails on any
// other (nothing in a record is ignored). Failures go through strict::Fail, naming the member.
class Fields {
 public:
  Fields(simdjson::dom::element e, std::string field);
  simdjson::dom::element operator[](const std::string& k);
  bool Has(const std::string& k) const { return members_.count(k) > 0; }
  std::string Path(const std::string& k) const;
  void Done() const;

 private:
  std::string field_;
  std::map<std::string, simdjson::dom::element> members_;
  std::set<std::string> used_;
};

}  // namespace hangar::record
