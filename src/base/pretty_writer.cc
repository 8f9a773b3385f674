#include "base/pretty_writer.h"

#include <charconv>

#include "base/timefmt.h"

namespace hangar::json {

namespace {

// A comma, a line break and the indentation of up to 16 levels: one append for all three.
constexpr std::string_view kBreak = ",\n                                ";

}  // namespace

void PrettyWriter::Break(bool comma, size_t depth) {
  const size_t spaces = 2 * depth;
  if (spaces + 2 <= kBreak.size()) {
    out_.append(kBreak.data() + !comma, spaces + 1 + comma);
    return;
  }
  if (comma) out_.push_back(',');
  out_.push_back('\n');
  out_.append(spaces, ' ');
}

void PrettyWriter::BeforeValue() {
  if (after_key_) {  // a member's value: its key wrote what comes before it
    after_key_ = false;
    return;
  }
  if (frames_.empty()) return;  // the document itself
  Frame& f = frames_.back();
  Break(!f.empty, frames_.size());
  f.empty = false;
}

PrettyWriter& PrettyWriter::Key(std::string_view key) {
  Frame& f = frames_.back();
  if (!f.empty) {
    const std::string_view last = f.key_copied
                                      ? std::string_view(f.last_key)
                                      : std::string_view(out_).substr(f.key_at, f.key_size);
    if (!KeyBefore(last, key)) sorted_ = false;
  }
  Break(!f.empty, frames_.size());
  f.empty = false;
  const size_t at = out_.size();
  AppendQuoted(&out_, key);
  f.key_copied = out_.size() != at + key.size() + 2;  // escaped: its bytes are not the key's
  if (f.key_copied) {
    f.last_key.assign(key.data(), key.size());
  } else {
    f.key_at = at + 1;
    f.key_size = key.size();
  }
  out_.append(": ", 2);
  after_key_ = true;
  return *this;
}

PrettyWriter& PrettyWriter::Begin(bool object) {
  BeforeValue();
  out_.push_back(object ? '{' : '[');
  frames_.push_back(Frame{object, true});
  return *this;
}

PrettyWriter& PrettyWriter::End() {
  const bool object = frames_.back().object, empty = frames_.back().empty;
  frames_.pop_back();
  if (!empty) Break(false, frames_.size());
  out_.push_back(object ? '}' : ']');
  return *this;
}

PrettyWriter& PrettyWriter::Open() {
  return Begin(true);
}
PrettyWriter& PrettyWriter::Close() {
  return End();
}
PrettyWriter& PrettyWriter::OpenArray() {
  return Begin(false);
}
PrettyWriter& PrettyWriter::CloseArray() {
  return End();
}

PrettyWriter& PrettyWriter::Null() {
  BeforeValue();
  out_.append("null");
  return *this;
}

PrettyWriter& PrettyWriter::Bool(bool b) {
  BeforeValue();
  out_.append(b ? "true" : "false");
  return *this;
}

PrettyWriter& PrettyWriter::Int(int64_t i) {
  BeforeValue();
  char buf[24];
  out_.append(buf, std::to_chars(buf, buf + sizeof buf, i).ptr);
  return *this;
}

PrettyWriter& PrettyWriter::OptInt(const std::optional<int>& i) {
  return i ? Int(*i) : Null();
}

PrettyWriter& PrettyWriter::Str(std::string_view s) {
  BeforeValue();
  AppendQuoted(&out_, s);
  return *this;
}

PrettyWriter& PrettyWriter::Time(int64_t ms) {
  BeforeValue();
  out_.push_back('"');  // a time's text needs no escape
  AppendTime(&out_, ms);
  out_.push_back('"');
  return *this;
}

PrettyWriter& PrettyWriter::Val(const Value& v) {
  BeforeValue();
  AppendPretty(&out_, v, int(frames_.size()));
  return *this;
}

PrettyWriter& PrettyWriter::Strings(const std::vector<std::string>& a) {
  OpenArray();
  for (const std::string& s : a) Str(s);
  return CloseArray();
}

PrettyWriter& PrettyWriter::StringMap(const std::map<std::string, std::string>& m) {
  Open();
  for (const auto& [k, v] : m) Key(k).Str(v);
  return Close();
}

std::string PrettyWriter::Take() {
  out_.push_back('\n');
  std::string text = std::move(out_);
  out_.clear();
  frames_.clear();
  after_key_ = false;
  sorted_ = true;
  return text;
}

}  // namespace hangar::json
