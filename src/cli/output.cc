#include "cli/output.h"

#include <algorithm>

namespace hangar::cli {

namespace {

// The length of the valid UTF-8 sequence at s[i] (2 to 4 bytes, no overlong form, no surrogate,
// at most U+10FFFF) and its code point in *cp; 0 when the bytes there are no such sequence.
size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  size_t n;
  uint32_t v, min;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2, v = c & 0x1f, min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3, v = c & 0x0f, min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4, v = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() - i < n) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0) != 0x80) return 0;
    v = v << 6 | (b(k) & 0x3f);
  }
  if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
  *cp = v;
  return n;
}

// Code points above U+007F that Printable escapes.
bool Steers(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
         (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

void AppendPrintable(std::string* out, std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  size_t run = 0;  // start of the bytes not yet copied: they need no escape
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    uint32_t cp = c;
    size_t n = c < 0x80 ? 1 : DecodeUtf8(s, i, &cp);
    const bool utf8 = n > 0;
    if (utf8 && cp >= 0x20 && cp != 0x7f && !Steers(cp)) {
      i += n;
      continue;
    }
    out->append(s.data() + run, i - run);
    if (utf8 && cp >= 0x80) {
      out->append("\\u");
      for (int shift = 12; shift >= 0; shift -= 4) out->push_back(kHex[(cp >> shift) & 15]);
    } else if (c == '\t') {
      out->append("\\t");
    } else if (c == '\n') {
      out->append("\\n");
    } else if (c == '\r') {
      out->append("\\r");
    } else {  // another control, DEL, or a byte that is not UTF-8 (escaped alone)
      n = 1;
      out->append("\\x");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    }
    i += n;
    run = i;
  }
  out->append(s.data() + run, s.size() - run);
}

std::string Printable(std::string_view s) {
  std::string out;
  AppendPrintable(&out, s);
  return out;
}

std::string FormatAge(int64_t ms) {
  int64_t s = std::max<int64_t>(ms, 0) / 1000;
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return std::to_string(s / 60) + "m";
  if (s < 86400) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

std::string FormatTable(size_t n, const std::function<const Row&(size_t, Row&)>& row) {
  Row scratch;
  std::string cell;  // the cell being measured, as printed
  std::vector<size_t> width;
  for (size_t i = 0; i < n; ++i) {
    const Row& r = row(i, scratch);
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (size_t c = 0; c < r.size(); ++c) {
      cell.clear();
      AppendPrintable(&cell, r[c]);
      width[c] = std::max(width[c], cell.size());
    }
  }
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    const Row& r = row(i, scratch);
    for (size_t c = 0; c < r.size(); ++c) {
      const size_t start = out.size();
      AppendPrintable(&out, r[c]);
      if (c + 1 < r.size()) out.append(width[c] - (out.size() - start) + 2, ' ');
    }
    out += '\n';
  }
  return out;
}

std::string FormatTable(const std::vector<Row>& rows) {
  return FormatTable(rows.size(), [&](size_t i, Row&) -> const Row& { return rows[i]; });
}

void PrintJson(std::ostream& out, const json::Value& v) {
  out << json::WritePretty(v);
}

int Fail(std::ostream& err, int exit_code, const std::string& message) {
  err << "hangar: " << Printable(message) << "\n";
  return exit_code;
}

int FailTo(std::ostream& err, int exit_code, const std::string& verb_object,
           const std::string& reason) {
  return Fail(err, exit_code, "cannot " + verb_object + ": " + reason);
}

}  // namespace hangar::cli
