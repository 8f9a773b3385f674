// ActMatcher: the verb lists expanded to their forms, and each sentence that may hold one handed
// to the rules: English in act_text_en.cc, Japanese in act_text_ja.cc. Reading the text (sentences,
// quotes, words) is in act_text_read.cc.
#include "kernel/act_text.h"

#include <algorithm>
#include <functional>

#include "kernel/act_text_parts.h"

namespace hangar {

namespace {

using Form = ActMatcher::Form;

struct Irregular {
  std::string_view base, past, participle;
};

constexpr Irregular kIrregular[] = {
    {"buy", "bought", "bought"},
    {"send", "sent", "sent"},
    {"sell", "sold", "sold"},
    {"pay", "paid", "paid"},
    {"spend", "spent", "spent"},
    {"make", "made", "made"},
    {"write", "wrote", "written"},
    {"put", "put", "put"},
    {"set", "set", "set"},
    {"run", "ran", "run"},
    {"give", "gave", "given"},
    {"take", "took", "taken"},
    {"lend", "lent", "lent"},
    {"build", "built", "built"},
    {"get", "got", "gotten"},
    {"go", "went", "gone"},
    {"do", "did", "done"},
    {"say", "said", "said"},
    {"tell", "told", "told"},
    {"leave", "left", "left"},
    {"bring", "brought", "brought"},
    {"read", "read", "read"},
    {"cut", "cut", "cut"},
    {"drive", "drove", "driven"},
    {"broadcast", "broadcast", "broadcast"},
    {"withdraw", "withdrew", "withdrawn"},
    {"quit", "quit", "quit"},
    {"forward", "forwarded", "forwarded"},
};

bool IsVowel(char c) {
  return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}

// Ends consonant-vowel-consonant (ship, submit): its -ed and -ing forms may double the last
// letter. Both spellings are listed; the wrong one never occurs in text.
bool EndsCvc(const std::string& v) {
  size_t n = v.size();
  if (n < 3) return false;
  char last = v[n - 1];
  return !IsVowel(last) && last != 'w' && last != 'x' && last != 'y' && IsVowel(v[n - 2]) &&
         !IsVowel(v[n - 3]);
}

bool EndsWith(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::vector<std::pair<std::string, Form>> FormsOf(const std::string& v) {
  std::vector<std::pair<std::string, Form>> out = {{v, Form::kBase}};
  size_t n = v.size();
  bool consonant_y = n >= 2 && v[n - 1] == 'y' && !IsVowel(v[n - 2]);
  std::string stem_y = consonant_y ? v.substr(0, n - 1) : v;
  if (EndsWith(v, "s") || EndsWith(v, "sh") || EndsWith(v, "ch") || EndsWith(v, "x") ||
      EndsWith(v, "z") || EndsWith(v, "o")) {
    out.emplace_back(v + "es", Form::kThird);
  } else if (consonant_y) {
    out.emplace_back(stem_y + "ies", Form::kThird);
  } else {
    out.emplace_back(v + "s", Form::kThird);
  }
  std::string doubled = EndsCvc(v) ? v + v.back() : "";
  if (EndsWith(v, "ie")) {
    out.emplace_back(v.substr(0, n - 2) + "ying", Form::kIng);
  } else if (EndsWith(v, "e") && !EndsWith(v, "ee") && !EndsWith(v, "ye") && !EndsWith(v, "oe")) {
    out.emplace_back(v.substr(0, n - 1) + "ing", Form::kIng);
  } else {
    out.emplace_back(v + "ing", Form::kIng);
  }
  if (!doubled.empty()) out.emplace_back(doubled + "ing", Form::kIng);
  const Irregular* irr = nullptr;
  for (const Irregular& i : kIrregular) {
    if (i.base == v) irr = &i;
  }
  if (irr) {
    out.emplace_back(std::string(irr->past), Form::kPast);
    if (irr->participle != irr->past) out.emplace_back(std::string(irr->participle), Form::kPast);
    if (v == "get") out.emplace_back("got", Form::kPast);
  } else {
    out.emplace_back(EndsWith(v, "e") ? v + "d"
                     : consonant_y    ? stem_y + "ied"
                                      : v + "ed",
                     Form::kPast);
    if (!doubled.empty()) out.emplace_back(doubled + "ed", Form::kPast);
  }
  return out;
}

}  // namespace

ActMatcher::ActMatcher(const ActVerbs& verbs) : en_(verbs.en), ja_(verbs.ja) {
  for (size_t i = 0; i < en_.size(); ++i) {
    std::string v = en_[i];
    for (char& c : v) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    if (v.empty()) continue;
    en_letters_only_ = en_letters_only_ &&
                       std::all_of(v.begin(), v.end(), [](char c) { return c >= 'a' && c <= 'z'; });
    for (auto& [form, kind] : FormsOf(v)) {
      std::vector<EnForm>& list = en_forms_[form];
      bool seen = std::any_of(list.begin(), list.end(),
                              [&](const EnForm& f) { return f.verb == i && f.form == kind; });
      if (!seen) list.push_back({i, kind});
    }
  }
  for (const std::string& j : ja_) {
    std::string stem = j;
    if (stem.size() > 6 && EndsWith(stem, "する")) stem.resize(stem.size() - 6);
    ja_stems_.push_back(stem);
  }
}

// Could s hold a listed verb? Cheap and generous: any run of letters that is a listed form
// (so "post-mortem" passes; the tokens decide), or any stem as bytes.
bool ActMatcher::MayHold(std::string_view s) const {
  for (const std::string& stem : ja_stems_) {
    if (!stem.empty() && s.find(stem) != std::string_view::npos) return true;
  }
  if (en_forms_.empty()) return false;
  if (!en_letters_only_) return true;
  std::string word;
  for (size_t i = 0; i < s.size();) {
    auto letter = [&](size_t k) {
      return k < s.size() && ((s[k] | 0x20) >= 'a' && (s[k] | 0x20) <= 'z');
    };
    if (!letter(i)) {
      ++i;
      continue;
    }
    word.clear();
    for (; letter(i); ++i) word.push_back(static_cast<char>(s[i] | 0x20));
    if (en_forms_.count(word)) return true;
  }
  return false;
}

std::vector<ActHit> ActMatcher::Explain(std::string_view text) const {
  std::vector<ActHit> hits;
  auto wanted = [this](std::string_view s) { return MayHold(s); };
  for (const act_text::Sentence& s : act_text::ReadSentences(text, wanted)) {
    if (!en_forms_.empty()) act_text::JudgeEnglish(s, en_, en_forms_, ja_stems_, &hits);
    if (!ja_stems_.empty()) act_text::JudgeJapanese(s, ja_, ja_stems_, &hits);
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const ActHit& a, const ActHit& b) { return a.offset < b.offset; });
  return hits;
}

std::vector<ActHit> ActMatcher::Find(std::string_view text) const {
  std::vector<ActHit> hits = Explain(text);
  std::erase_if(hits, [](const ActHit& h) { return !h.asked; });
  return hits;
}

std::vector<ActHit> FindAskedActs(std::string_view text, const ActVerbs& verbs) {
  return ActMatcher(verbs).Find(text);
}

}  // namespace hangar
