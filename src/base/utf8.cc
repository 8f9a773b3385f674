#include "base/utf8.h"

#include "base/json.h"

namespace hangar {

namespace {

// Length of the valid UTF-8 sequence at s[i], or minus the length of its longest valid-looking
// prefix (at least one byte), which becomes a single U+FFFD as Unicode recommends.
int SequenceAt(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  int n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return -1;
  }
  for (int k = 1; k < n; k++) {
    if (i + k >= s.size()) return -k;
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return -k;
  }
  return n;
}

}  // namespace

std::string ReplaceInvalidUtf8(std::string_view s) {
  if (json::ValidUtf8(s)) return std::string(s);
  std::string out;
  for (size_t i = 0; i < s.size();) {
    int n = SequenceAt(s, i);
    if (n > 0) {
      out.append(s.substr(i, size_t(n)));
    } else {
      out.append("\xEF\xBF\xBD");
      n = -n;
    }
    i += size_t(n);
  }
  return out;
}

std::string_view Utf8Prefix(std::string_view s, size_t max) {
  if (s.size() <= max) return s;
  size_t n = max;
  // Back off continuation bytes (10xxxxxx), then the lead byte they belong to.
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) n--;
  return s.substr(0, n);
}

}  // namespace hangar
