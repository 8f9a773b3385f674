// English: is a listed verb, in the clause around it, asked for? The word classes below are the
// whole vocabulary the rules know; act_text.h says how each class is used.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "kernel/act_text_parts.h"

namespace hangar::act_text {

namespace {

enum : uint32_t {
  kNeg = 1u << 0,           // negates the rest of its clause: not, never, without
  kRefuse = 1u << 1,        // negates the verb right after it: avoid, stop, forget
  kReset = 1u << 2,         // ends a negation; an imperative may follow: but, then, and
  kLeadIn = 1u << 3,        // may come before an imperative: please, then, first
  kAdverb = 1u << 4,        // skipped when looking for the word before a verb
  kCue = 1u << 5,           // a base form after it is a verb: to, must, will, please
  kModal = 1u << 6,         // "can you post" is a request
  kObjPronoun = 1u << 7,    // "let me post"
  kSubject = 1u << 8,       // "we post"
  kSubject3 = 1u << 9,      // "it posts"
  kNounCue = 1u << 10,      // a form after it is a noun: the, our, last, of
  kObjectNext = 1u << 11,   // a form before it is a verb: "post the", "posts it"
  kFiniteNext = 1u << 12,   // a clause-opening form before it is a noun: "post got", "push is"
  kProgressive = 1u << 13,  // an -ing form after it is asked: are, start, by, before
  kAux = 1u << 14,          // do does did: "did we post" asks about the past
  kPastBe = 1u << 15,       // was were: "was posting"
  kTool = 1u << 16,         // git npm cargo: "git push"
  kToReport = 1u << 17,     // "failed to post", "used to post"
  kForbidden = 1u << 18,    // prohibited forbidden banned
  kPermit = 1u << 19,       // "not allowed", "not permitted"
  kCopula = 1u << 20,       // is are: "make sure it is posted", "posting is not allowed"
  kConj = 1u << 21,         // and or nor
  kGet = 1u << 22,          // "get it posted"
  kEnsure = 1u << 23,       // "make sure", "ensure"
};

using Lexicon = std::unordered_map<std::string_view, uint32_t>;

// Space-separated words per class; string literals, so the keys live as long as the program.
Lexicon BuildLexicon() {
  Lexicon m;
  auto add = [&](uint32_t cls, std::string_view words) {
    for (size_t b = 0; b < words.size();) {
      size_t e = std::min(words.find(' ', b), words.size());
      if (e > b) m[words.substr(b, e - b)] |= cls;
      b = e + 1;
    }
  };
  add(kNeg,
      "not never no nor neither cannot without nothing none nobody unable nowhere "
      "prohibited forbidden banned disallowed");
  add(kRefuse,
      "avoid avoids avoiding avoided stop stops stopping stopped quit cease ceased forget "
      "forgets forgot fail fails failed skip skips skipped refrain refrains refrained "
      "hesitate neglect neglected omit omitted");
  add(kReset,
      "but then so and however although though if when whenever before after once until "
      "till unless because since while whereas where");
  add(kLeadIn,
      "please kindly just also then and so now first firstly second secondly next finally "
      "lastly afterwards later today tomorrow tonight again ok okay yes go do simply only "
      "always immediately quickly directly soon asap additionally still too or");
  add(kAdverb,
      "also just then now still only really actually first finally immediately quickly "
      "directly always again soon all both definitely certainly probably maybe today "
      "automatically manually publicly already ever too");
  add(kCue,
      "to must should shall will would can could may might better gotta please kindly "
      "let's go come pls plz");
  add(kModal, "must should shall will would can could may might");
  add(kObjPronoun, "me us him them");
  add(kSubject, "i we you they");
  add(kSubject3, "he she it who that");
  add(kNounCue,
      "a an the this that these those my our your their his her its whose every each any "
      "some last previous latest recent new old blog single same another other many few "
      "more most several one two three which what top best worst popular viral original "
      "next good of in on at for about from with by into onto via per under over between "
      "through during like as than among regarding around within across toward towards "
      "word verb term");
  add(kObjectNext,
      "the a an it them this these those our my your their his her its everything all me "
      "us him something both every some");
  add(kFiniteNext,
      "is was are were got gets has had did does will would should can could must may "
      "might isn't wasn't didn't doesn't failed fails went seems seemed looks looked");
  add(kProgressive,
      "am is are be keep keeps start starts begin begins continue continues resume finish "
      "consider try by when while after before upon");
  add(kAux, "do does did");
  add(kPastBe, "was were");
  add(kTool,
      "git gh npm yarn pnpm cargo docker podman gem helm twine poetry mvn gradle hg svn "
      "jj kubectl pip");
  add(kToReport, "failed tried used wanted attempted managed refused forgot unable declined");
  add(kForbidden, "prohibited forbidden banned disallowed");
  add(kPermit, "allowed permitted ok okay needed necessary required acceptable wanted");
  add(kCopula, "is are am was were be");
  add(kConj, "and or nor");
  add(kGet, "get gets getting");
  add(kEnsure, "ensure sure");
  return m;
}

bool EndsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

bool IsContractedIs(std::string_view w) {
  for (std::string_view c :
       {"it's", "that's", "he's", "she's", "there's", "here's", "what's", "who's", "where's"}) {
    if (w == c) return true;
  }
  return false;
}

// The classes of a word: the lexicon, then what its ending says.
uint32_t ClassOf(std::string_view w) {
  static const Lexicon kLexicon = BuildLexicon();
  auto it = kLexicon.find(w);
  uint32_t c = it == kLexicon.end() ? 0 : it->second;
  if (EndsWith(w, "n't")) c |= kNeg;
  if (EndsWith(w, "'ll") || EndsWith(w, "'d")) c |= kCue;
  if (EndsWith(w, "'re") || EndsWith(w, "'m")) c |= kProgressive | kCopula;
  if (EndsWith(w, "'s") && w != "let's") {
    c |= IsContractedIs(w) ? kProgressive | kCopula : kNounCue;  // "week's post": possessive
  }
  static constexpr std::string_view kNotAdverbs[] = {
      "reply",  "apply",    "supply", "comply", "imply", "rely", "multiply",
      "family", "assembly", "italy",  "july",   "holy",  "ally", "belly",
      "fly",    "jelly",    "bully",  "rally",  "tally"};
  if (w.size() >= 5 && EndsWith(w, "ly") && it == kLexicon.end()) {
    bool adverb = true;
    for (std::string_view n : kNotAdverbs) adverb = adverb && w != n;
    if (adverb) c |= kAdverb | kLeadIn;
  }
  return c;
}

using Forms = std::unordered_map<std::string, std::vector<ActMatcher::EnForm>>;
using Form = ActMatcher::Form;
constexpr size_t kNone = static_cast<size_t>(-1);

// The scan of one sentence, clause by clause.
class EnglishScan {
 public:
  EnglishScan(const Sentence& s, const Forms& forms, const std::vector<std::string>& ja_stems)
      : s_(s), toks_(s.tokens), forms_(forms), ja_stems_(ja_stems), judged_(toks_.size()) {}

  // Judges each listed form; calls emit(token index, verb index, judgement).
  template <typename Emit>
  void Run(Emit emit);

 private:
  bool IsWord(size_t i) const { return i < toks_.size() && toks_[i].kind == Token::Kind::kWord; }
  bool IsListed(size_t i) const { return IsWord(i) && forms_.count(toks_[i].text) > 0; }
  std::string_view Word(size_t i) const { return IsWord(i) ? toks_[i].text : std::string_view(); }
  uint32_t Class(size_t i) const { return IsWord(i) && !IsListed(i) ? ClassOf(toks_[i].text) : 0; }
  // The word before i in its clause, adverbs skipped; kNone at the clause start.
  size_t Prev(size_t i) const;
  bool ListGoesOn(size_t comma) const;
  // "that", "which" or "who" after a word of its clause: the start of a relative clause.
  bool IsRelative(size_t i) const {
    const std::string_view w = Word(i);
    return (w == "that" || w == "which" || w == "who") && Prev(i) != kNone;
  }
  std::optional<std::string> RefusedBy(size_t i) const;
  std::optional<std::string> ForbiddenAfter(size_t i, bool gerund) const;
  void FindMarkers();
  Judgement Judge(size_t i, Form form) const;
  Judgement JudgeBase(size_t i) const;
  Judgement JudgeThird(size_t i) const;
  Judgement JudgePast(size_t i) const;
  Judgement JudgeIng(size_t i) const;
  void NewClause(size_t begin) {
    clause_start_ = true;
    negated_ = false;
    neg_word_.clear();
    ensure_ = false;
    have_ = false;
    aside_ = false;
    clause_begin_ = begin;
  }

  const Sentence& s_;
  const std::vector<Token>& toks_;
  const Forms& forms_;
  const std::vector<std::string>& ja_stems_;
  std::vector<std::optional<Judgement>> judged_;  // per token, for coordination
  // Per token, the nearest marker after it in its clause (kNone if none): "forbidden", "not
  // allowed" in forbid_; "is not", "isn't" in copula_not_. Found once, so no scan per verb.
  std::vector<size_t> forbid_, copula_not_;
  bool clause_start_ = true;  // only lead-ins so far in this clause
  bool negated_ = false;
  std::string neg_word_;
  bool ensure_ = false;  // "make sure" / "ensure" seen in this clause
  bool have_ = false;    // the clause opens with "have" (causative)
  bool aside_ = false;   // inside commas after a negator, before its verb
  size_t clause_begin_ = 0;
};

size_t EnglishScan::Prev(size_t i) const {
  while (i > clause_begin_) {
    --i;
    if (!IsWord(i)) return kNone;
    if (!(Class(i) & kAdverb)) return i;
  }
  return kNone;
}

// After a comma in a negated clause: does a list of single words closed by or/nor follow
// ("never post, tweet or publish")? Then the negation reaches over the comma.
bool EnglishScan::ListGoesOn(size_t comma) const {
  auto closes = [&](size_t j) { return Word(j) == "or" || Word(j) == "nor"; };
  // At most 16 items, so a long run of commas costs no more than a short one.
  for (size_t j = comma + 1, items = 0; IsWord(j) && !closes(j) && items < 16; ++items) {
    ++j;  // one word, then "or" or another comma
    if (closes(j)) return true;
    if (j >= toks_.size() || !toks_[j].comma) return false;
    ++j;
    if (closes(j)) return true;
  }
  return false;
}

// avoid/stop/forget/... right before the verb, with to/from/about/on/the... between.
std::optional<std::string> EnglishScan::RefusedBy(size_t i) const {
  for (size_t k = i, steps = 0; k > clause_begin_ && steps < 3; ++steps) {
    --k;
    if (Class(k) & kRefuse) return std::string(Word(k));
    std::string_view w = Word(k);
    if (w != "to" && w != "from" && w != "about" && w != "on" && w != "with" && w != "any" &&
        w != "the" && w != "a" && w != "doing" && w != "further" && w != "more") {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

void EnglishScan::FindMarkers() {
  size_t n = toks_.size(), forbid = kNone, copula_not = kNone;
  forbid_.assign(n + 1, kNone);
  copula_not_.assign(n + 1, kNone);
  for (size_t j = n; j-- > 0;) {
    uint32_t c = Class(j);
    std::string_view w = Word(j);
    if (!IsWord(j) || ((c & kReset) && !(c & kConj))) {  // a break, Japanese, but, if, ...
      forbid = copula_not = kNone;
    } else {
      bool not_word = w == "not" || EndsWith(w, "n't");
      if ((c & kForbidden) || (not_word && (Class(j + 1) & kPermit))) forbid = j;
      if (((c & kCopula) && Word(j + 1) == "not") || w == "isn't" || w == "aren't" ||
          w == "wasn't") {
        copula_not = j;
      }
    }
    forbid_[j] = forbid;
    copula_not_[j] = copula_not;
  }
}

// A verb whose clause forbids it: "pushing to main is forbidden", "push to main is not
// allowed"; a clause-opening gerund also by "is not": "posting is not an option".
std::optional<std::string> EnglishScan::ForbiddenAfter(size_t i, bool gerund) const {
  if (size_t j = forbid_[i + 1]; j != kNone) {
    if (Class(j) & kForbidden) return std::string(Word(j));
    return std::string(Word(j)) + " " + std::string(Word(j + 1));
  }
  if (size_t j = copula_not_[i + 1]; gerund && j != kNone) {
    return std::string(Word(j)) + (Word(j + 1) == "not" ? " not" : "");
  }
  return std::nullopt;
}

Judgement EnglishScan::Judge(size_t i, Form form) const {
  const Token& t = toks_[i];
  if (t.mention) return {false, "mention.quoted"};
  // An English verb followed by Japanese takes the Japanese tails: "main に push して".
  size_t rel = t.end - s_.begin;
  while (rel < s_.text.size() && s_.text[rel] == ' ') ++rel;
  size_t len = 0;
  if (rel < s_.text.size() && IsJaLetter(DecodeAt(s_.text, rel, &len))) {
    return JudgeJaTail(s_.text.substr(0, t.begin - s_.begin), s_.text.substr(rel), ja_stems_);
  }
  if (i >= 2 && (Class(i - 1) & kConj) && judged_[i - 2]) {
    // Joined to a verb: "post or tweet it", "never post or tweet". Joined to a noun: a noun,
    // unless an object follows ("every post and tweet" but "the post and publish it").
    const Judgement& before = *judged_[i - 2];
    bool verb = before.asked || before.rule.starts_with("en.negated") ||
                before.rule.starts_with("en.refused") || before.rule.starts_with("en.forbidden");
    bool object = (Class(i + 1) & kObjectNext) || Word(i + 1) == "to";
    if (verb) return {before.asked, "en.coordinated"};
    if (before.rule.starts_with("en.noun") && !object) return {false, "en.coordinated"};
  }
  if (std::optional<std::string> by = RefusedBy(i)) {
    if (negated_) return {true, "en.double-negation:" + neg_word_ + "+" + *by};
    return {false, "en.refused:" + *by};
  }
  if (negated_) return {false, "en.negated:" + neg_word_};
  if (Word(i + 1) == "nothing") return {false, "en.negated:nothing"};  // "send nothing"
  if (form != Form::kPast) {
    if (std::optional<std::string> f = ForbiddenAfter(i, form == Form::kIng && clause_start_)) {
      return {false, "en.forbidden:" + *f};
    }
  }
  if (i > 0 && toks_[i - 1].kind == Token::Kind::kJa && EndsWith(toks_[i - 1].text, "の")) {
    return {false, "en.noun:の"};
  }
  switch (form) {
    case Form::kBase:
      return JudgeBase(i);
    case Form::kThird:
      return JudgeThird(i);
    case Form::kPast:
      return JudgePast(i);
    case Form::kIng:
      return JudgeIng(i);
  }
  return {false, "en.noun"};
}

Judgement EnglishScan::JudgeBase(size_t i) const {
  if (clause_start_) {
    if (Class(i + 1) & kFiniteNext) return {false, "en.noun:subject"};
    // "Push notifications are enabled": a noun compound as the subject.
    if (IsWord(i + 1) && !(Class(i + 1) & kObjectNext) && (Class(i + 2) & kFiniteNext)) {
      return {false, "en.noun:subject"};
    }
    return {true, "en.imperative"};
  }
  size_t p = Prev(i);
  if (p == kNone) return {true, "en.imperative"};
  std::string pw(Word(p));
  uint32_t pc = Class(p);
  if (pc & kSubject) {
    size_t q = Prev(p);
    if (q != kNone && (Class(q) & kAux)) return {false, "en.question:" + std::string(Word(q))};
    if (q != kNone && (Class(q) & kModal)) {
      return {true, "en.request:" + std::string(Word(q)) + " " + pw};
    }
    return {true, "en.subject:" + pw};
  }
  if (pc & kAux) return {false, "en.report:" + pw};
  if (pw == "to") {
    size_t q = Prev(p);
    if (Word(q) == "how") return {false, "en.topic:how to"};
    if (Class(q) & kToReport) return {false, "en.report:" + std::string(Word(q)) + " to"};
    return {true, "en.after:to"};
  }
  // "a script that would post": a relative clause describes a thing; it asks for no act.
  if ((pc & kModal) && IsRelative(Prev(p))) return {false, "en.relative:" + pw};
  if (pc & (kCue | kObjPronoun)) return {true, "en.after:" + pw};
  if (pc & kTool) {
    size_t q = Prev(p);
    if (q != kNone && (Class(q) & kNounCue)) return {false, "en.noun:" + std::string(Word(q))};
    return {true, "en.tool:" + pw};
  }
  if (pc & kNounCue) return {false, "en.noun:" + pw};
  if (Class(i + 1) & kObjectNext) return {true, "en.object-follows"};
  return {false, "en.noun"};
}

Judgement EnglishScan::JudgeThird(size_t i) const {
  size_t p = Prev(i);
  // "a bot that posts to X", "the job which sends the mail": what a thing does, not an ask.
  if (IsRelative(p)) return {false, "en.relative:" + std::string(Word(p))};
  if (p != kNone && (Class(p) & kSubject3)) return {true, "en.subject:" + std::string(Word(p))};
  if (p != kNone && (Class(p) & kNounCue)) return {false, "en.noun:" + std::string(Word(p))};
  if ((Class(i + 1) & kObjectNext) || Word(i + 1) == "to") return {true, "en.object-follows"};
  return {false, "en.noun:plural"};
}

Judgement EnglishScan::JudgePast(size_t i) const {
  for (size_t k = i, steps = 0; k > clause_begin_ && steps < 4; ++steps) {
    --k;
    if (!IsWord(k)) break;
    std::string_view w = Word(k);
    uint32_t c = Class(k);
    if (w == "be") return {true, "en.passive:be"};
    if (c & kGet) return {true, "en.passive:" + std::string(w)};
    if ((c & kCopula) && ensure_ && w != "was" && w != "were") {
      return {true, "en.passive:make sure"};
    }
    if ((c & kSubject) || w == "he" || w == "she" || w == "who" || w == "been" || w == "was" ||
        w == "were" || w == "has" || w == "have" || w == "had") {
      break;
    }
  }
  if (have_) return {true, "en.causative:have"};
  return {false, "en.past"};
}

Judgement EnglishScan::JudgeIng(size_t i) const {
  size_t p = Prev(i);
  if (p != kNone) {
    uint32_t pc = Class(p);
    std::string pw(Word(p));
    if (pc & kPastBe) return {false, "en.past:" + pw};
    if (pc & kProgressive) return {true, "en.progressive:" + pw};
    if (pc & kNounCue) return {false, "en.noun:" + pw};
  }
  if (clause_start_) {
    if ((Class(i + 1) & kObjectNext) || Word(i + 1) == "to") return {true, "en.gerund"};
  }
  return {false, "en.noun:gerund"};
}

template <typename Emit>
void EnglishScan::Run(Emit emit) {
  FindMarkers();
  NewClause(0);
  for (size_t i = 0; i < toks_.size(); ++i) {
    const Token& t = toks_[i];
    if (t.kind == Token::Kind::kBreak) {
      // A comma right after a negator opens an aside: "do not, under any circumstances, post".
      if (t.comma && negated_ && i > 0 && Word(i - 1) == neg_word_) aside_ = true;
      if (!(t.comma && negated_ && (aside_ || ListGoesOn(i)))) NewClause(i + 1);
      continue;
    }
    if (t.kind == Token::Kind::kJa) {
      NewClause(i + 1);
      continue;
    }
    auto listed = forms_.find(t.text);
    if (listed != forms_.end()) {
      std::optional<Judgement> best;
      for (const ActMatcher::EnForm& f : listed->second) {
        Judgement j = Judge(i, f.form);
        emit(i, f.verb, j);
        if (!best || (j.asked && !best->asked)) best = j;
      }
      judged_[i] = best;
      clause_start_ = false;
      aside_ = false;
      continue;
    }
    uint32_t c = ClassOf(t.text);
    std::string_view next = Word(i + 1);
    if ((t.text == "why" && (Class(i + 1) & kNeg)) || (t.text == "not" && next == "only")) {
      if (t.text == "why") ++i;  // "why not post", "why don't we post": a suggestion
      continue;
    }
    if (t.text == "instead" || t.text == "rather") {
      if (next == (t.text == "instead" ? "of" : "than")) {
        negated_ = true;
        neg_word_ = t.text + " " + std::string(next);
        clause_start_ = false;
        ++i;
      } else if (t.text == "instead") {
        negated_ = false;  // "do not post; instead push": a fresh start
      }
      continue;
    }
    bool interjection = t.text == "no" && i + 1 < toks_.size() && !IsWord(i + 1);  // "No, post"
    if ((c & kNeg) && !interjection) {
      negated_ = true;
      neg_word_ = t.text;
      clause_start_ = false;
      continue;
    }
    if (c & kReset) {
      bool keep_ensure = ensure_;
      NewClause(clause_begin_);
      ensure_ = keep_ensure;
      continue;
    }
    if ((c & kLeadIn) && clause_start_) continue;
    if (t.text == "have" && clause_start_ && !(Class(i + 1) & kSubject)) have_ = true;
    if (c & kEnsure) ensure_ = true;
    clause_start_ = false;
  }
}

}  // namespace

void JudgeEnglish(const Sentence& s, const std::vector<std::string>& verbs, const Forms& forms,
                  const std::vector<std::string>& ja_stems, std::vector<ActHit>* out) {
  bool any = false;
  for (const Token& t : s.tokens)
    any = any || (t.kind == Token::Kind::kWord && forms.count(t.text));
  if (!any) return;
  EnglishScan scan(s, forms, ja_stems);
  // A word that is two forms of one verb ("put": base and past) gives one hit: asked if
  // either form is.
  std::vector<size_t> hit_of_verb;
  size_t last_token = kNone;
  scan.Run([&](size_t i, size_t verb, const Judgement& j) {
    if (i != last_token) {
      hit_of_verb.assign(verbs.size(), kNone);
      last_token = i;
    }
    if (hit_of_verb[verb] != kNone) {
      ActHit& h = (*out)[hit_of_verb[verb]];
      if (j.asked && !h.asked) {
        h.asked = true;
        h.rule = j.rule;
      }
      return;
    }
    hit_of_verb[verb] = out->size();
    out->push_back(
        {verbs[verb], s.tokens[i].begin, Excerpt(s, s.tokens[i].begin), j.asked, j.rule});
  });
}

}  // namespace hangar::act_text
