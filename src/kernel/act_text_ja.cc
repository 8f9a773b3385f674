// Japanese: a サ変 stem (投稿, 送信, プッシュ) is judged by the tail that follows it. The tables
// below are the whole grammar; the longest tail that matches decides.
#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "kernel/act_text_parts.h"

namespace hangar::act_text {

namespace {

// The tails, space-separated; read once into a table by ReadTails.
// Asked: plain, polite, imperative, request, obligation, intention, sequence.
constexpr std::string_view kAsked =
    "する すること するように するよう すべき するべき する必要があ "
    "する必要あり するなら すれば する前 する予定 するつもり します しましょう "
    "しませんか しないか しよう しろ せよ しなさい して してください "
    "して下さい してくれ してほし して欲し してもらえ してもらい しておいて "
    "しておく しておけ してから している しています してね しといて しとけ "
    "しちゃって したい したら した後 したあと した上で したほうが した方が "
    "しないと しなければ しなきゃ しなくては しなくちゃ される されたら させ "
    "できる できます いたします いたしましょう ください 下さい お願い 願 頼 "
    "よろしく 行う 行って 行います 行いましょう 行え 行おう 必要 前に 控えめ";
// Not asked: negated, prohibited, no need, refrain, stop.
constexpr std::string_view kRefused =
    "しない しないで しません しなかった しなく しなくて しなくても しなくてい "
    "しなくてよ せず せぬ せんで するな するなど するべきでは すべきでは "
    "するべきでな すべきでな するべきじゃな すべきじゃな してはいけ してはなら "
    "してはだめ してはダメ しては駄目 してはいかん しちゃだめ しちゃダメ "
    "しちゃいけ しちゃ駄目 してほしくな して欲しくな してもらいたくな したくな "
    "することは禁 することを禁 すること禁止 することはできな することはできません "
    "することは許されな することは認められな することは控え することを控え "
    "することはやめ することをやめ することは避け することを避け するのは禁止 "
    "するのを禁止 するのはやめ するのをやめ するのは控え するのを控え "
    "するのは避け するのを避け するのはだめ するのはダメ するのはNG "
    "する必要はな する必要はありません する必要ない する必要なし する必要なく "
    "する必要もな する必要がな できな できません されな されず させな させず "
    "いたしません 禁止 厳禁 不要 不可 NG ダメ だめ 駄目 無用 控え 避け "
    "やめ 止め 中止 停止 見送 見合わせ 禁じ の禁止 の必要はな "
    "の必要はありません 必要ない 必要なし 必要なく 必要はな 必要はありません "
    "必要ありません 必要がな 必要もな 行わな 行いません 行わず 行っては";
// Not asked: the past (a report), a state, "not done".
constexpr std::string_view kPast =
    "されている されていな されていた した しました していた してしま してきた "
    "しておいた してあ された 済み 済 行った 行いました 行っていた していな "
    "してな してません しておりませ";

struct Tail {
  std::string_view text;
  bool asked;
};

std::vector<Tail> ReadTails() {
  std::vector<Tail> out;
  for (auto [list, asked] : {std::pair{kAsked, true}, {kRefused, false}, {kPast, false}}) {
    for (size_t b = 0; b < list.size();) {
      size_t e = std::min(list.find(' ', b), list.size());
      if (e > b) out.push_back({list.substr(b, e - b), asked});
      b = e + 1;
    }
  }
  return out;
}

constexpr std::string_view kParticles[] = {"を", "は", "も", "が"};

// Skipped after a particle: "投稿は絶対にしない". Longer spellings first.
constexpr std::string_view kAdverbs[] = {
    "絶対に", "絶対",   "決して",   "必ず",     "一切",   "今すぐに", "今すぐ",   "すぐに",
    "すぐ",   "直ちに", "早めに",   "もう",     "まだ",   "今日中に", "本日中に", "今日",
    "明日",   "今",     "ちゃんと", "きちんと", "二度と", "勝手に",   "自動的に", "自動で",
    "手動で", "再度",   "再び",     "無断で",   "実際に", "正しく",   "定期的に", "毎日",
    "毎回",   "すべて", "全て",     "一度も",   "、",     " ",        "\u3000"};

// Joins two stems: "投稿と送信をして", "投稿も送信もしない".
constexpr std::string_view kJoiners[] = {"および", "及び", "または", "と", "や", "・",
                                         "、",     "も",   "か",     "/",  "／"};

// Before a stem: 未公開, 非公開, 不購入, 無断... only as a prefix of the stem itself.
constexpr std::string_view kNegPrefixes[] = {"未", "非", "不", "無"};

// After に/へ/を/で, a stem that ends its clause is an order: "X に投稿。", "記事を公開".
constexpr std::string_view kTelegraphBefore[] = {"に", "へ", "を", "で"};
constexpr std::string_view kClauseEnds[] = {"、", "。", "，", "．", "！", "？", "!",
                                            "?",  ",",  ".",  ";",  ":",  "；", "："};

bool IsAsciiAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

std::string_view SkipBlanks(std::string_view s) {
  while (true) {
    if (s.starts_with(" ") || s.starts_with("\t")) {
      s.remove_prefix(1);
    } else if (s.starts_with("\u3000")) {
      s.remove_prefix(3);
    } else {
      return s;
    }
  }
}

std::string_view SkipAdverbs(std::string_view s) {
  for (bool again = true; again;) {
    again = false;
    for (std::string_view a : kAdverbs) {
      if (s.starts_with(a)) {
        s.remove_prefix(a.size());
        again = true;
        break;
      }
    }
  }
  return s;
}

const Tail* LongestTail(std::string_view s) {
  static const std::vector<Tail> kTails = ReadTails();
  const Tail* best = nullptr;
  for (const Tail& t : kTails) {
    // Cheap rejections first: most tails differ from s in the first or the third byte.
    if (s.empty() || t.text[0] != s[0]) continue;
    if (t.text.size() >= 3 && s.size() >= 3 && t.text[2] != s[2]) continue;
    if (s.starts_with(t.text) && (!best || t.text.size() > best->text.size())) best = &t;
  }
  return best;
}

Judgement FromTail(const Tail& t) {
  return {t.asked, "ja.tail:" + std::string(t.text)};
}

Judgement Judge(std::string_view before, std::string_view after,
                const std::vector<std::string>& stems, int depth) {
  after = SkipBlanks(after);
  if (depth < 8) {
    for (std::string_view j : kJoiners) {
      if (!after.starts_with(j)) continue;
      std::string_view rest = SkipBlanks(after.substr(j.size()));
      for (const std::string& stem : stems) {
        if (stem.empty() || !rest.starts_with(stem)) continue;
        Judgement next = Judge(before, rest.substr(stem.size()), stems, depth + 1);
        if (!next.rule.starts_with("ja.joined:")) next.rule = "ja.joined:" + next.rule;
        return next;
      }
    }
  }
  if (const Tail* t = LongestTail(after)) return FromTail(*t);
  for (std::string_view p : kParticles) {
    if (!after.starts_with(p)) continue;
    if (const Tail* t = LongestTail(SkipAdverbs(after.substr(p.size())))) return FromTail(*t);
    break;
  }
  // The clause ends, or the text goes on in English ("Xに投稿 and push").
  bool clause_ends = after.empty() || IsAsciiAlnum(after.front());
  for (std::string_view e : kClauseEnds) clause_ends = clause_ends || after.starts_with(e);
  if (clause_ends) {
    while (!before.empty() && (before.back() == ' ' || before.ends_with("\u3000"))) {
      before.remove_suffix(before.back() == ' ' ? 1 : 3);
    }
    for (std::string_view b : kTelegraphBefore) {
      if (before.ends_with(b)) return {true, "ja.telegraphic:" + std::string(b)};
    }
  }
  return {false, "ja.noun"};
}

}  // namespace

Judgement JudgeJaTail(std::string_view before, std::string_view after,
                      const std::vector<std::string>& ja_stems) {
  return Judge(before, after, ja_stems, 0);
}

void JudgeJapanese(const Sentence& s, const std::vector<std::string>& listed,
                   const std::vector<std::string>& ja_stems, std::vector<ActHit>* out) {
  std::string_view text = s.text;
  for (size_t k = 0; k < ja_stems.size(); ++k) {
    const std::string& stem = ja_stems[k];
    if (stem.empty()) continue;
    for (size_t pos = text.find(stem); pos != std::string_view::npos;
         pos = text.find(stem, pos + stem.size())) {
      // A stem spelt in ASCII matches whole words only.
      if ((IsAsciiAlnum(stem.front()) && pos > 0 && IsAsciiAlnum(text[pos - 1])) ||
          (IsAsciiAlnum(stem.back()) && pos + stem.size() < text.size() &&
           IsAsciiAlnum(text[pos + stem.size()]))) {
        continue;
      }
      std::string_view before = text.substr(0, pos);
      Judgement j;
      if (s.InMention(s.begin + pos)) {
        j = {false, "mention.quoted"};
      } else {
        for (std::string_view p : kNegPrefixes) {
          if (before.ends_with(p)) j = {false, "ja.prefix:" + std::string(p)};
        }
        if (j.rule.empty()) j = JudgeJaTail(before, text.substr(pos + stem.size()), ja_stems);
      }
      out->push_back({listed[k], s.begin + pos, Excerpt(s, s.begin + pos), j.asked, j.rule});
    }
  }
}

}  // namespace hangar::act_text
