// The parts of act_text.h shared by act_text.cc (sentences, words, quotes), act_text_en.cc
// (English rules) and act_text_ja.cc (Japanese tails). Not for use outside these files.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/act_text.h"

namespace hangar::act_text {

struct Judgement {
  bool asked = false;
  std::string rule;
};

// A word, a clause break or a run of Japanese inside one sentence. Offsets are into the text.
struct Token {
  enum class Kind { kWord, kBreak, kJa };
  Kind kind = Kind::kWord;
  std::string text;  // kWord: lower-case ASCII ("don't", "post-mortem"); kJa: the bytes
  size_t begin = 0, end = 0;
  bool comma = false;    // kBreak made by , or 、
  bool mention = false;  // inside a quote that holds one term
};

struct Sentence {
  std::string_view text;  // trimmed
  size_t begin = 0;       // offset of text in the whole text
  std::vector<Token> tokens;
  std::vector<std::pair<size_t, size_t>> mentions;  // one-term quotes [begin, end), text offsets
  bool InMention(size_t offset) const;
};

// The sentences of text for which wanted(sentence) is true, each with its tokens and one-term
// quotes.
std::vector<Sentence> ReadSentences(std::string_view text,
                                    const std::function<bool(std::string_view)>& wanted);

// The sentence for ActHit: whole up to kExcerptMax bytes; longer, the kExcerptMax bytes around
// offset (a text offset), cut at character boundaries and marked with "…" where cut.
constexpr size_t kExcerptMax = 240;
std::string Excerpt(const Sentence& s, size_t offset);

// The Unicode code point at s[i] (U+FFFD for a bad byte) and its length in bytes.
char32_t DecodeAt(std::string_view s, size_t i, size_t* len);
// Hiragana, katakana, CJK ideographs, 々 and full-width letters and digits.
bool IsJaLetter(char32_t c);

// Judges every English occurrence of a listed form in s; appends one hit per occurrence.
void JudgeEnglish(const Sentence& s, const std::vector<std::string>& verbs,
                  const std::unordered_map<std::string, std::vector<ActMatcher::EnForm>>& forms,
                  const std::vector<std::string>& ja_stems, std::vector<ActHit>* out);

// Japanese: judges what follows a verb. after: the sentence bytes after the stem (or after an
// English verb); before: the sentence bytes before it. ja_stems: for stems joined by と/や/も.
Judgement JudgeJaTail(std::string_view before, std::string_view after,
                      const std::vector<std::string>& ja_stems);

// Judges every occurrence of every stem in s; appends one hit per occurrence.
void JudgeJapanese(const Sentence& s, const std::vector<std::string>& listed,
                   const std::vector<std::string>& ja_stems, std::vector<ActHit>* out);

}  // namespace hangar::act_text
