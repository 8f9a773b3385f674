// Reading text for act_text: sentences, one-term quotes (mentions), words and clause breaks,
// on UTF-8 bytes. No locale, no allocation beyond the tokens.
#include <algorithm>
#include <array>
#include <string_view>

#include "kernel/act_text_parts.h"

namespace hangar {

namespace act_text {

namespace {

bool IsAlnum(unsigned char c) {
  return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}
bool IsWordByte(unsigned char c) {
  return IsAlnum(c) || c == '_';
}
bool IsAsciiSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

// Blank: an ASCII space, U+3000 (ideographic space) or U+00A0. Returns its length, 0 if none.
size_t BlankAt(std::string_view s, size_t i) {
  if (IsAsciiSpace(s[i])) return 1;
  size_t len = 0;
  char32_t c = DecodeAt(s, i, &len);
  return c == 0x3000 || c == 0xA0 ? len : 0;
}

std::string_view Trim(std::string_view s, size_t* dropped_front) {
  size_t b = 0, e = s.size();
  while (b < e) {
    size_t n = BlankAt(s, b);
    if (n == 0) break;
    b += n;
  }
  while (e > b) {
    if (IsAsciiSpace(s[e - 1])) {
      --e;
    } else if (e - b >= 3 && (s.substr(e - 3, 3) == "\u3000")) {
      e -= 3;
    } else if (e - b >= 2 && (s.substr(e - 2, 2) == "\u00a0")) {
      e -= 2;
    } else {
      break;
    }
  }
  *dropped_front = b;
  return s.substr(b, e - b);
}

// Can a sentence end before s[j]? After . ! ? it can at the end, a blank, a closing quote or
// bracket, or Japanese; not inside "v1.2" or "x.com".
bool EndsBefore(std::string_view s, size_t j) {
  if (j >= s.size()) return true;
  unsigned char c = s[j];
  if (IsAsciiSpace(c) || c == '"' || c == '\'' || c == '`' || c == ')' || c == ']') return true;
  if (c < 0x80) return false;
  size_t len = 0;
  char32_t cp = DecodeAt(s, j, &len);
  return IsJaLetter(cp) || cp == 0x3000 || cp == 0x201D || cp == 0x2019 || cp == 0x300D ||
         cp == 0x300F || cp == 0xFF09;
}

// A . after one letter ends no sentence: "e.g.", "i.e.", "U.S.", "J. Smith".
bool AfterInitial(std::string_view s, size_t dot) {
  return dot >= 1 && IsAlnum(s[dot - 1]) && !(s[dot - 1] >= '0' && s[dot - 1] <= '9') &&
         (dot == 1 || s[dot - 2] == '.' || IsAsciiSpace(s[dot - 2]));
}

std::vector<std::pair<size_t, size_t>> SplitSentences(std::string_view t) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t start = 0;
  auto cut = [&](size_t end, size_t next) {
    out.emplace_back(start, end);
    start = next;
  };
  for (size_t i = 0; i < t.size();) {
    unsigned char c = t[i];
    if (c == '\n') {
      cut(i, i + 1);
      ++i;
    } else if (c == '.' || c == '!' || c == '?') {
      size_t j = i + 1;
      while (j < t.size() && (t[j] == '.' || t[j] == '!' || t[j] == '?')) ++j;
      if (EndsBefore(t, j) && !(c == '.' && AfterInitial(t, i))) cut(j, j);
      i = j;
    } else if (c >= 0x80) {
      size_t len = 0;
      char32_t cp = DecodeAt(t, i, &len);
      if (cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F) cut(i + len, i + len);  // 。！？
      i += len;
    } else {
      ++i;
    }
  }
  cut(t.size(), t.size());
  return out;
}

// A quote that holds one term: one ASCII word ('post') or up to four Japanese characters
// (「投稿」, 「投稿する」). Several words are read as text of their own.
bool OneTerm(std::string_view content) {
  size_t dropped = 0;
  content = Trim(content, &dropped);
  if (content.empty()) return false;
  bool ascii = std::all_of(content.begin(), content.end(),
                           [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (ascii) {
    return std::all_of(content.begin(), content.end(),
                       [](char c) { return IsWordByte(c) || c == '-' || c == '\''; });
  }
  size_t chars = 0;
  for (size_t i = 0; i < content.size();) {
    size_t len = 0;
    if (!IsJaLetter(DecodeAt(content, i, &len))) return false;
    i += len;
    ++chars;
  }
  return chars <= 4;
}

struct QuoteMark {
  size_t at = 0, len = 0;  // sentence-relative
  bool is_break = false;   // opens or closes a quote of several words
};

// An ASCII ' opens a quote when no letter is before it and one is after, and closes one when
// no letter follows: "don't" and "users' posts" are no quotes.
bool SingleOpens(std::string_view s, size_t i) {
  return (i == 0 || !IsAlnum(s[i - 1])) && i + 1 < s.size() && IsAlnum(s[i + 1]);
}
bool SingleCloses(std::string_view s, size_t i) {
  return i > 0 && !IsAsciiSpace(s[i - 1]) && (i + 1 >= s.size() || !IsAlnum(s[i + 1]));
}

// Finds the quotes of one sentence: marks to skip or to read as clause breaks, and the
// sentence-relative spans of one-term quotes.
void FindQuotes(std::string_view s, std::vector<QuoteMark>* marks,
                std::vector<std::pair<size_t, size_t>>* mentions) {
  static constexpr std::array<std::pair<char32_t, char32_t>, 4> kPairs = {
      {{0x201C, 0x201D}, {0x2018, 0x2019}, {0x300C, 0x300D}, {0x300E, 0x300F}}};
  // Kinds: 0 ", 1 `, 2 ', 3.. the pairs. Once a kind finds no closer after some opener, no
  // later opener can find one: remembering that keeps unclosed quotes linear.
  std::array<bool, 3 + kPairs.size()> closerless = {};
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    size_t open_len = 1, close = std::string_view::npos, close_len = 1, kind = 0;
    bool searched = false;
    if ((c == '"' || c == '`') && !closerless[kind = c == '"' ? 0 : 1]) {
      searched = true;
      close = s.find(static_cast<char>(c), i + 1);
    } else if (c == '\'' && SingleOpens(s, i) && !closerless[kind = 2]) {
      searched = true;
      for (size_t k = i + 1; k < s.size() && close == std::string_view::npos; ++k) {
        if (s[k] == '\'' && SingleCloses(s, k)) close = k;
      }
    } else if (c >= 0x80) {
      char32_t cp = DecodeAt(s, i, &open_len);
      for (size_t p = 0; p < kPairs.size(); ++p) {
        if (cp != kPairs[p].first || closerless[kind = 3 + p]) continue;
        searched = true;
        for (size_t k = i + open_len; k < s.size() && close == std::string_view::npos;) {
          size_t len = 0;
          char32_t kc = DecodeAt(s, k, &len);
          // ’ inside a word is an apostrophe (don’t), not a closing quote.
          bool apostrophe = kc == 0x2019 && k + len < s.size() && IsAlnum(s[k + len]);
          if (kc == kPairs[p].second && !apostrophe) {
            close = k;
            close_len = len;
          }
          k += len;
        }
        break;
      }
    }
    if (close == std::string_view::npos) {
      if (searched) closerless[kind] = true;
      i += c >= 0x80 ? open_len : 1;
      continue;
    }
    std::string_view content = s.substr(i + open_len, close - i - open_len);
    bool one = OneTerm(content);
    marks->push_back({i, open_len, !one});
    marks->push_back({close, close_len, !one});
    if (one) mentions->emplace_back(i, close + close_len);
    i = close + close_len;
  }
}

// Characters that end a clause (inside a sentence). Quotes count when they hold several words.
bool IsBreakChar(char32_t c) {
  static constexpr std::u32string_view kBreaks =
      U",;:()[]{}|*>#\"`\u2013\u2014\u2022\u2026、，；：（）「」『』“”‘｜";
  return kBreaks.find(c) != std::u32string_view::npos;
}

// Appends the word s[b, e) lower-cased, with ’ read as '. A word of letters joined by / and
// nothing else that marks a path or URL ("post/tweet") becomes words joined by "or".
void PushWord(std::string_view s, size_t base, size_t b, size_t e, std::vector<Token>* out) {
  std::string w;
  for (size_t i = b; i < e; ++i) {
    unsigned char c = s[i];
    if (c == 0xE2) {  // ’ (E2 80 99), the only non-ASCII byte a word may hold
      w.push_back('\'');
      i += 2;
    } else {
      w.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
    }
  }
  bool slash_list = w.find('/') != std::string::npos && w.find_first_of(".:@") == std::string::npos;
  if (!slash_list) {
    out->push_back({Token::Kind::kWord, std::move(w), base + b, base + e});
    return;
  }
  size_t from = 0;
  while (true) {
    size_t slash = w.find('/', from);
    size_t to = slash == std::string::npos ? w.size() : slash;
    out->push_back({Token::Kind::kWord, w.substr(from, to - from), base + b + from, base + b + to});
    if (slash == std::string::npos) break;
    out->push_back({Token::Kind::kWord, "or", base + b + slash, base + b + slash + 1});
    from = slash + 1;
  }
}

std::vector<Token> Tokenize(std::string_view s, size_t base, const std::vector<QuoteMark>& marks) {
  std::vector<Token> out;
  size_t next_mark = 0;
  for (size_t i = 0; i < s.size();) {
    while (next_mark < marks.size() && marks[next_mark].at < i) ++next_mark;
    if (next_mark < marks.size() && marks[next_mark].at == i) {
      const QuoteMark& m = marks[next_mark];
      if (m.is_break) out.push_back({Token::Kind::kBreak, "", base + i, base + i + m.len});
      i += m.len;
      continue;
    }
    unsigned char c = s[i];
    if (IsWordByte(c)) {
      size_t j = i + 1;
      while (j < s.size()) {
        unsigned char d = s[j];
        if (IsWordByte(d)) {
          ++j;
        } else if ((d == '\'' || d == '-' || d == '.' || d == '/' || d == ':' || d == '@' ||
                    d == '+') &&
                   j + 1 < s.size() && IsAlnum(s[j + 1])) {
          ++j;
        } else if (s.substr(j, 3) == "\u2019" && j + 3 < s.size() && IsAlnum(s[j + 3])) {
          j += 3;
        } else {
          break;
        }
      }
      PushWord(s, base, i, j, &out);
      i = j;
      continue;
    }
    if (c < 0x80) {
      bool lone_dash = c == '-' && (i + 1 >= s.size() || IsAsciiSpace(s[i + 1]));
      if (c == '&') {
        out.push_back({Token::Kind::kWord, "and", base + i, base + i + 1});
      } else if (IsBreakChar(c) || lone_dash) {
        out.push_back({Token::Kind::kBreak, "", base + i, base + i + 1, c == ','});
      }
      ++i;
      continue;
    }
    size_t len = 0;
    char32_t cp = DecodeAt(s, i, &len);
    if (IsJaLetter(cp)) {
      size_t j = i + len;
      while (j < s.size()) {
        size_t l = 0;
        if (!IsJaLetter(DecodeAt(s, j, &l))) break;
        j += l;
      }
      out.push_back({Token::Kind::kJa, std::string(s.substr(i, j - i)), base + i, base + j});
      i = j;
      continue;
    }
    if (IsBreakChar(cp)) {
      out.push_back(
          {Token::Kind::kBreak, "", base + i, base + i + len, cp == 0x3001 || cp == 0xFF0C});
    }
    i += len;
  }
  return out;
}

}  // namespace

char32_t DecodeAt(std::string_view s, size_t i, size_t* len) {
  unsigned char c = s[i];
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) {
    *len = 1;
    return 0xFFFD;
  }
  char32_t cp = n == 1 ? c : c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    unsigned char d = s[i + k];
    if ((d & 0xC0) != 0x80) {
      *len = 1;
      return 0xFFFD;
    }
    cp = (cp << 6) | (d & 0x3F);
  }
  *len = n;
  return cp;
}

bool IsJaLetter(char32_t c) {
  return (c >= 0x3041 && c <= 0x30FF && c != 0x30FB) ||  // hiragana, katakana (not ・)
         (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) || c == 0x3005 ||
         (c >= 0xFF10 && c <= 0xFF19) || (c >= 0xFF21 && c <= 0xFF3A) ||
         (c >= 0xFF41 && c <= 0xFF5A) || (c >= 0xFF66 && c <= 0xFF9F);
}

bool Sentence::InMention(size_t offset) const {
  for (auto [b, e] : mentions) {
    if (offset >= b && offset < e) return true;
  }
  return false;
}

std::string Excerpt(const Sentence& s, size_t offset) {
  if (s.text.size() <= kExcerptMax) return std::string(s.text);
  size_t at = offset - s.begin;
  size_t b = at > kExcerptMax / 2 ? at - kExcerptMax / 2 : 0;
  size_t e = std::min(b + kExcerptMax, s.text.size());
  b = e - std::min(e, kExcerptMax);
  auto continuation = [&](size_t i) {
    return (static_cast<unsigned char>(s.text[i]) & 0xC0) == 0x80;
  };
  while (b < at && continuation(b)) ++b;
  while (e < s.text.size() && e > at && continuation(e)) --e;
  return (b > 0 ? "…" : "") + std::string(s.text.substr(b, e - b)) + (e < s.text.size() ? "…" : "");
}

std::vector<Sentence> ReadSentences(std::string_view text,
                                    const std::function<bool(std::string_view)>& wanted) {
  std::vector<Sentence> out;
  for (auto [b, e] : SplitSentences(text)) {
    size_t dropped = 0;
    std::string_view s = Trim(text.substr(b, e - b), &dropped);
    if (s.empty() || !wanted(s)) continue;
    Sentence sentence;
    sentence.text = s;
    sentence.begin = b + dropped;
    std::vector<QuoteMark> marks;
    FindQuotes(s, &marks, &sentence.mentions);
    for (auto& [mb, me] : sentence.mentions) {
      mb += sentence.begin;
      me += sentence.begin;
    }
    sentence.tokens = Tokenize(s, sentence.begin, marks);
    for (Token& t : sentence.tokens) t.mention = sentence.InMention(t.begin);
    out.push_back(std::move(sentence));
  }
  return out;
}

}  // namespace act_text

}  // namespace hangar
