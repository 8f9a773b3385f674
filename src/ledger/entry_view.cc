#include "ledger/entry_view.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <charconv>
#include <cstring>
#include <string>

#include "base/json.h"
#include "base/timefmt.h"
#include "ledger/entry.h"

namespace hangar::ledger {

namespace {

// Nesting deeper than this in a body is left to the reference reader (simdjson allows 1024).
constexpr int kMaxDepth = 64;

// Offset of the first '"', '\\' or control character in s from i on; s.size() when none.
size_t FindSpecial(std::string_view s, size_t i) {
  const size_t n = s.size();
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  const __m128i control_max = _mm_set1_epi8(0x1f);
  for (; i + 16 <= n; i += 16) {
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(c, control_max), control_max);  // c <= 0x1f
    __m128i hit =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(c, quote), _mm_cmpeq_epi8(c, backslash)), control);
    if (int mask = _mm_movemask_epi8(hit)) return i + size_t(__builtin_ctz(unsigned(mask)));
  }
#endif
  for (; i < n; i++) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\' || c < 0x20) return i;
  }
  return n;
}

// A recognizer of canonical JSON: the texts that json::Write(json::Parse(text)) reproduces byte
// for byte, with integers only. Sorted, unique keys; no whitespace; strings with only the escapes
// AppendQuoted writes (\" \\ \b \f \n \r \t, and \u00xx for the other control characters, in
// lower-case hex) and no raw control character; integers as std::to_chars writes an int64 (so no
// "-0", leading zero, fraction or exponent). UTF-8 is checked once for the whole line by the
// caller. Each method consumes one token at pos_ or returns false.
class Canonical {
 public:
  explicit Canonical(std::string_view text) : s_(text) {}
  size_t pos() const { return pos_; }
  bool AtEnd() const { return pos_ == s_.size(); }

  bool Literal(std::string_view lit) {
    if (s_.compare(pos_, lit.size(), lit) != 0) return false;
    pos_ += lit.size();
    return true;
  }

  // A string token; *raw is its text between the quotes, *plain whether it has no escape (then
  // raw is the value).
  bool String(std::string_view* raw, bool* plain) {
    if (pos_ >= s_.size() || s_[pos_] != '"') return false;
    size_t begin = ++pos_;
    *plain = true;
    // Most strings have no escape: then the first special byte is the closing quote.
    size_t end = FindSpecial(s_, begin);
    if (end < s_.size() && s_[end] == '"') {
      *raw = s_.substr(begin, end - begin);
      pos_ = end + 1;
      return true;
    }
    for (;;) {
      if (pos_ >= s_.size()) return false;
      unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') break;
      if (c < 0x20) return false;
      if (c != '\\') {
        pos_++;
        continue;
      }
      *plain = false;
      if (pos_ + 1 >= s_.size()) return false;
      char e = s_[pos_ + 1];
      if (e == '"' || e == '\\' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
        pos_ += 2;
        continue;
      }
      // \u00xx for a control character that has no short escape
      if (e != 'u' || s_.compare(pos_ + 2, 2, "00") != 0 || pos_ + 6 > s_.size()) return false;
      int hi = Hex(s_[pos_ + 4]), lo = Hex(s_[pos_ + 5]);
      if (hi < 0 || hi > 1 || lo < 0) return false;
      int v = hi * 16 + lo;
      if (v == '\b' || v == '\f' || v == '\n' || v == '\r' || v == '\t') return false;
      pos_ += 6;
    }
    *raw = s_.substr(begin, pos_ - begin);
    pos_++;
    return true;
  }

  bool Int(int64_t* out) {
    size_t begin = pos_;
    bool negative = pos_ < s_.size() && s_[pos_] == '-';
    if (negative) pos_++;
    if (pos_ >= s_.size() || s_[pos_] < '0' || s_[pos_] > '9') return false;
    if (s_[pos_] == '0') {
      if (negative) return false;  // "-0": the canonical text of 0 is "0"
      pos_++;
      *out = 0;
      return true;
    }
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') pos_++;
    auto [ptr, ec] = std::from_chars(s_.data() + begin, s_.data() + pos_, *out);
    return ec == std::errc() && ptr == s_.data() + pos_;  // out of int64: a double to json
  }

  bool Value(int depth) {
    if (pos_ >= s_.size()) return false;
    switch (s_[pos_]) {
      case '{':
        return Object(depth + 1);
      case '[':
        return Array(depth + 1);
      case '"': {
        std::string_view raw;
        bool plain;
        return String(&raw, &plain);
      }
      case 't':
        return Literal("true");
      case 'f':
        return Literal("false");
      case 'n':
        return Literal("null");
      default: {
        int64_t unused;
        return Int(&unused);
      }
    }
  }

  bool Object(int depth) {
    if (depth > kMaxDepth || !Literal("{")) return false;
    if (Literal("}")) return true;
    std::string_view last;
    bool last_plain = true;
    for (bool first = true;; first = false) {
      std::string_view key;
      bool plain;
      if (!String(&key, &plain)) return false;
      if (!first && !Increasing(last, last_plain, key, plain)) return false;
      last = key;
      last_plain = plain;
      if (!Literal(":") || !Value(depth)) return false;
      if (Literal("}")) return true;
      if (!Literal(",")) return false;
    }
  }

  bool Array(int depth) {
    if (depth > kMaxDepth || !Literal("[")) return false;
    if (Literal("]")) return true;
    for (;;) {
      if (!Value(depth)) return false;
      if (Literal("]")) return true;
      if (!Literal(",")) return false;
    }
  }

 private:
  static int Hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  }

  // The value of a string token that String accepted.
  static std::string Unescape(std::string_view raw) {
    std::string out;
    for (size_t i = 0; i < raw.size(); i++) {
      if (raw[i] != '\\') {
        out.push_back(raw[i]);
        continue;
      }
      char e = raw[++i];
      switch (e) {
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u':
          out.push_back(char(Hex(raw[i + 3]) * 16 + Hex(raw[i + 4])));
          i += 4;
          break;
        default:  // '"' or '\\'
          out.push_back(e);
      }
    }
    return out;
  }

  // Keys in json::Object (std::map) order, strictly: by the bytes of their values.
  static bool Increasing(std::string_view a, bool a_plain, std::string_view b, bool b_plain) {
    if (a_plain && b_plain) return a < b;
    return (a_plain ? std::string(a) : Unescape(a)) < (b_plain ? std::string(b) : Unescape(b));
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// The views of a line that the reference reader accepted as e: in a canonical line every member
// stands where its canonical text puts it.
bool ViewFromEntry(std::string_view line, const Entry& e, EntryView* out) {
  char num[24];
  auto len = [&](int64_t v) { return size_t(std::to_chars(num, num + sizeof num, v).ptr - num); };
  EntryView v;
  v.line = line;
  v.seq = e.seq;
  v.epoch = e.epoch;
  v.body = line.substr(8, json::Write(e.body).size());                         // {"body":
  v.hash_member = 8 + v.body.size() + 9 + len(e.epoch);                        // ,"epoch":
  v.hash = line.substr(v.hash_member + 9, 64);                                 // ,"hash":"
  v.kind = line.substr(v.hash_member + kHashMemberBytes + 9, e.kind.size());   // ,"kind":"
  v.prev = line.substr(v.kind.data() - line.data() + v.kind.size() + 10, 64);  // ","prev":"
  size_t seq_at = size_t(v.prev.data() - line.data()) + 64 + 8;                // ","seq":
  v.time = line.substr(seq_at + len(e.seq) + 9, e.time.size());                // ,"time":"
  if (v.hash != e.hash || v.kind != e.kind || v.prev != e.prev || v.time != e.time ||
      line.substr(v.hash_member, 9) != ",\"hash\":\"")
    return false;
  *out = v;
  return true;
}

}  // namespace

bool ScanEntryLine(std::string_view line, EntryView* out) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  // The members in key order, each in the one form a valid value can take: numbers >= 1 in
  // canonical decimal, a 64-hex hash, a kind and a time that need no escapes.
  Canonical c(line);
  EntryView v;
  v.line = line;
  if (!c.Literal("{\"body\":")) return false;
  size_t body_at = c.pos();
  if (!c.Object(1)) return false;
  v.body = line.substr(body_at, c.pos() - body_at);
  if (!c.Literal(",\"epoch\":") || !c.Int(&v.epoch) || v.epoch < 1) return false;
  v.hash_member = c.pos();
  if (!c.Literal(",\"hash\":\"")) return false;
  v.hash = line.substr(c.pos(), 64);
  if (!IsHexHash(v.hash) || !c.Literal(v.hash) || !c.Literal("\",\"kind\":\"")) return false;
  size_t kind_end = line.find('"', c.pos());
  if (kind_end == std::string_view::npos) return false;
  v.kind = line.substr(c.pos(), kind_end - c.pos());
  if (!IsValidKind(v.kind) || !c.Literal(v.kind) || !c.Literal("\",\"prev\":\"")) return false;
  v.prev = line.substr(c.pos(), 64);
  if (!IsHexHash(v.prev) || !c.Literal(v.prev) || !c.Literal("\",\"seq\":") || !c.Int(&v.seq) ||
      v.seq < 1 || !c.Literal(",\"time\":\""))
    return false;
  v.time = line.substr(c.pos(), 24);
  if (!IsFormattedTime(v.time) || !c.Literal(v.time) || !c.Literal("\"}") || !c.AtEnd())
    return false;
  if (v.seq == 1 && v.prev != kGenesisPrev) return false;
  if (!json::ValidUtf8(line)) return false;
  *out = v;
  return true;
}

Status ParseEntryView(std::string_view line, EntryView* out) {
  if (ScanEntryLine(line, out)) return Status::Ok();  // takes off the "\n" itself
  // The reference reader decides what the scan declined (a body nested deeper than kMaxDepth)
  // and says why a line is refused.
  Result<Entry> e = ParseEntryLine(line);
  if (!e.ok()) return e.status();
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (ViewFromEntry(line, *e, out)) return Status::Ok();
  return Status::Invalid("bad ledger entry: cannot locate its members (please report this line)");
}

void EntryHasher::Hash(const EntryView& v, char out[64]) {
  sha_.Reset();
  sha_.Update(v.prev);
  sha_.Update(v.line.substr(0, v.hash_member));
  sha_.Update(v.line.substr(v.hash_member + kHashMemberBytes));
  sha_.FinishHex(out);
}

bool EntryHasher::Matches(const EntryView& v) {
  char h[64];
  Hash(v, h);
  return v.hash.size() == 64 && std::memcmp(h, v.hash.data(), 64) == 0;
}

}  // namespace hangar::ledger
