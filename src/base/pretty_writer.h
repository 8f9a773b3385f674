// PrettyWriter: a JSON document written member by member straight into text, byte for byte as
// json::WritePretty writes the same document built as a tree (two spaces of indentation, ": "
// after a key, a final "\n"). For the files the kernel writes at every launch and return
// (plan.json, return.json): building them as a tree only to write it out was a fifth of the
// decisions' work, and copied every subtree an observation brought (a room's manifest).
//
// The caller gives each object's members in sorted (byte) order of their keys, as the canonical
// text has them. sorted() says whether every object's did; the builders' tests check it for every
// shape they write.
//
//   PrettyWriter w;
//   w.Open().Key("argv").Strings(argv).Key("id").Str(id).Close();
//   std::string text = w.Take();
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"

namespace hangar::json {

class PrettyWriter {
 public:
  // expect: the bytes the document is likely to take (a plan or a return some 2 to 4 KiB, a gate
  // file a few hundred): one allocation, no regrowth, and no more held while the text waits.
  explicit PrettyWriter(size_t expect = 1024) {
    out_.reserve(expect);
    frames_.reserve(8);
  }

  PrettyWriter& Open();  // an object: {
  PrettyWriter& Close();
  PrettyWriter& OpenArray();  // [
  PrettyWriter& CloseArray();
  // The next value is the member named key of the object open.
  PrettyWriter& Key(std::string_view key);

  PrettyWriter& Null();
  PrettyWriter& Bool(bool b);
  PrettyWriter& Int(int64_t i);
  PrettyWriter& OptInt(const std::optional<int>& i);  // null when absent
  PrettyWriter& Str(std::string_view s);
  PrettyWriter& Time(int64_t ms);     // Str(FormatTime(ms)) (base/timefmt.h), without the string
  PrettyWriter& Val(const Value& v);  // a tree, as WritePretty writes it
  PrettyWriter& Strings(const std::vector<std::string>& a);              // an array of strings
  PrettyWriter& StringMap(const std::map<std::string, std::string>& m);  // an object of strings

  // Every object's keys came in increasing order (the text is canonical).
  bool sorted() const { return sorted_; }
  // The document, with its final "\n"; the writer is empty again.
  std::string Take();

 private:
  struct Frame {
    bool object = false;
    bool empty = true;
    // The last key written, for the order check: where its bytes stand in out_ between the
    // quotes (a key, written once, is not copied again), or in last_key when it needed escapes.
    size_t key_at = 0, key_size = 0;
    bool key_copied = false;
    std::string last_key = {};
  };
  void BeforeValue();                    // the comma and indentation an array's element needs
  void Break(bool comma, size_t depth);  // [","] "\n" and depth levels of indentation
  PrettyWriter& Begin(bool object);
  PrettyWriter& End();

  std::string out_;
  std::vector<Frame> frames_;
  bool after_key_ = false;
  bool sorted_ = true;
};

}  // namespace hangar::json
