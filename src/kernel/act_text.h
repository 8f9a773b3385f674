// Text rules judge acts, not topics: does free text ASK FOR an act named by a verb list?
//
// "post the notes on X", "push to origin main", "X に投稿する" ask for an act; "do not post",
// "never push", "without publishing", "投稿しない", "投稿禁止" and "analyse why our last post got
// few replies" do not. The gate uses this to raise a verdict to hold. Free text is data here: it
// is matched by fixed rules written in this code, never executed, obeyed or sent to a model.
// Pure and deterministic: no disk, no clock, no locale, no state between calls; same lists and
// text, same hits. Linear in the text: a few microseconds for a mission of a few hundred bytes.
//
// How text is read (act_text_read.cc)
//   Sentences end at . ! ? (before a blank, a quote, Japanese or the end; not a . after one
//   letter: "e.g.", "i.e."), at 。！？ and at every newline. Clauses end at , ; : ( ) [ ] | * #,
//   a lone - (bullets), dashes, 、 and at a quote that holds several words: that quote is read
//   as text of its own ("Run `git push`" asks). A quote holding one term ('post', "push",
//   「投稿」) is a mention: never asked. URLs, paths (x.com/post/1, src/post.cc) and hyphenated
//   words (post-mortem, buy-in) are one word each, so they never match; "post/tweet" reads as
//   "post or tweet".
//
// English (act_text_en.cc; verbs are single ASCII words, matched by whole word in any case and
// expanded to their forms: post posts posted posting, buy buys bought buying, ship shipped).
// An occurrence is asked when it is used as a verb with a present or future sense:
//   imperative    first word of its clause, after lead-ins (please, then, and, or, also, just,
//                 first, now, so, do, go, -ly adverbs): "Post the notes", "then push the
//                 branch", "write the report and post it" ("and" starts a new clause)
//   after a cue   to, must, should, will, can, could, would, may, might, shall, let's, 'll, 'd,
//                 better, go, come, please, me/us/him/them: "you should post", "need to push",
//                 "let me post"; not "how to post" (a topic) nor "failed/tried/used to post"
//   subject       I/we/you/they + post, he/she/it + posts, "can you post" (a request);
//                 not after do/does/did ("why did we post", "do you post daily?")
//   object        a form followed by the/a/it/them/our/...: "the bot posts the summary"
//   progressive   "we are posting", "start posting", "by posting", "before pushing"
//   passive       "should be posted", "get it published", "make sure it is sent",
//                 "have the notes posted"
//   tool          git/gh/npm/cargo/docker/... + verb: "git push origin main"
//   coordination  a verb joined by and/or/nor to a listed verb just before it takes that verb's
//                 judgement: "post or tweet it" asks twice, "never post or tweet" not at all;
//                 after a noun it stays a noun unless an object follows ("every post and
//                 tweet", but "review the post and publish it" asks for publish)
//   Japanese tail an English verb followed by Japanese is judged by the Japanese tails below:
//                 "main に push して" asks, "push は禁止" does not
// and it is not asked when it is
//   negated       after a negator in its clause: not, n't, never, no, nor, neither, cannot,
//                 without, nothing, none, nobody, unable, prohibited, forbidden, banned,
//                 "instead of", "rather than" (so "no need to", "must not", "should not"); or
//                 right before "nothing" ("send nothing"). The scope ends with the clause and at
//                 but/then/so/however/instead, at if/when/before/after/until/unless/..., and at
//                 "and" unless "and" joins two listed verbs: "do not post; push to main" and
//                 "do not post the notes and publish them on the wiki" ask for the second verb.
//                 A comma keeps the scope in a list closed by or/nor ("never post, tweet or
//                 publish") and in an aside right after the negator ("do not, under any
//                 circumstances, post"); "No, post it" is an answer, not a negator.
//   relative      in a relative clause after a word: that/which/who + posts, or + a modal +
//                 post ("a bot that posts to X", "a script that would post", "the job which
//                 sends the mails"): what a thing does is a topic, not an ask
//   refused       right after avoid, stop, quit, cease, forget, fail, skip, refrain, hesitate,
//                 neglect, omit (to/from/about between): "avoid posting", "refrain from
//                 pushing". After a negator they cancel it: "don't forget to post" asks, as do
//                 "why not post", "why don't we post" and "not only post".
//   forbidden     followed in its clause by prohibited/forbidden/banned/not allowed/not
//                 permitted ("git push --force is forbidden"), or, for a clause-opening gerund,
//                 by is not/isn't ("posting to X is not an option")
//   a noun        after a/an/the/this/that/our/my/your/their/last/previous/new/blog/every/
//                 many/..., a possessive ("last week's post") or a preposition other than "to"
//                 (of, about, on, for, ...); clause-opening "post" before is/was/got/will/...
//                 or before a noun and such a verb ("Push notifications are enabled"); plural
//                 "posts" with no subject and no object; a gerund that is no verb ("the posting
//                 schedule", "posting frequency is low")
//   the past      a report is no request: "we posted yesterday", "posted the notes", "has been
//                 pushed", "was posting", "why did we push"
// Decided where the issue is silent: "before you push, run the tests", "if you post, ...",
// "after posting", "whether to post", "can we post?" ask (the act is expected or weighed); the
// past never asks; a gerund subject without an object does not ("Tweeting is fine").
//
// Japanese (act_text_ja.cc; verbs are サ変 stems: 投稿 送信 公開 購入 プッシュ, a trailing する is
// dropped). Each occurrence of a stem is judged by what follows it: first straight after the
// stem, then after one particle (を は も が) and adverbs (絶対に 決して 必ず 一切 すぐに 二度と
// ...). The longest matching tail decides; the full tables are in act_text_ja.cc:
//   asked       する すること するように すべき します しましょう しよう しろ せよ しなさい して
//               してください してほしい しておいて してから している したい したら した後
//               したほうが しなければ しなきゃ しなくては しないと される させ できる ください
//               お願い 願 頼 よろしく 行う 行って いたします 必要 前に (before: "送信前に確認")
//   not asked   しない しないで しないでください しません せず するな してはいけない してはならない
//               してはだめ しちゃだめ してほしくない したくない しなくていい する必要はない
//               することは禁止 するのはやめ 禁止 厳禁 不要 不可 NG だめ 控え 避け やめ 止め 中止
//               停止 見送 禁じ 必要ない (prohibited, no need, refrain, stop)
//   the past    した しました していた してしまった された 済み 行った: a report, not asked;
//               していない してない されていない: not done; されている: a state
// A stem followed by none of these is a noun ("前回の投稿の反応を分析", "プッシュ通知", "投稿数"),
// except at a clause end after に/へ/を/で ("X に投稿。", "ブログで公開" ask). 未/非/不/無 right
// before the stem negate it (未公開, 非公開). Stems joined by と や ・ 、 も か および または
// take the judgement of the last one ("投稿も送信もしないで", "投稿と送信をして").
//
// Which way ambiguity leans: a text rule can only raise a verdict to hold, so an extra hit costs
// a person's look while a missed act can cost an unwanted post. Where the rules cannot tell, an
// imperative-looking use fires: "Post office hours are ...", "compare replies and post counts",
// "Push back on the deadline" and a quoted title "Post the notes" all ask. Never fired on a
// guess: the past, a negated clause, a noun after a determiner, a one-word quote.
//
// Known limits (no parser, no dictionary): negation reaches only forwards inside its clause
// ("the drafts we did not publish must be published" is missed); a noun subject with a bare
// verb and no object ("Drones post daily") is missed; "Do not post, push or merge to main" reads
// push as negated (a list closed by "or"); phrasal verbs are not known ("push back"); Japanese
// verbs that are not サ変 (送る, 買う) are not conjugated; English verbs of several words ("pull
// request") never match; "repost" and "re-post" are other words.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hangar {

struct ActVerbs {
  std::vector<std::string> en;  // base forms, one word each: "post", "push"
  std::vector<std::string> ja;  // サ変 stems: "投稿", "プッシュ" ("投稿する" is read as "投稿")
};

// One occurrence of a listed verb in the text.
struct ActHit {
  std::string verb;      // the list entry, as listed ("post" for "posted")
  size_t offset = 0;     // byte offset of the occurrence in the text
  std::string sentence;  // the sentence holding it, without surrounding blanks; a longer one
                         // than 240 bytes is cut to the 240 around the verb, marked "…"
  bool asked = false;    // the text asks for the act here
  std::string rule;      // which rule decided, e.g. "en.imperative", "en.negated:never",
                         // "ja.tail:してください", "mention.quoted"
};

// The verb lists expanded once (English forms, Japanese stems), for use on many texts.
// Immutable after construction; Find may be called from any thread.
class ActMatcher {
 public:
  explicit ActMatcher(const ActVerbs& verbs);

  // Every occurrence, asked or not, in text order: for reports and test messages.
  std::vector<ActHit> Explain(std::string_view text) const;
  // Only the occurrences that ask for an act; empty when every one is negated, prohibited,
  // in the past or merely mentioned.
  std::vector<ActHit> Find(std::string_view text) const;

  enum class Form { kBase, kThird, kPast, kIng };  // kPast: past tense or past participle
  struct EnForm {
    size_t verb;  // index into en_
    Form form;
  };

 private:
  bool MayHold(std::string_view sentence) const;

  std::vector<std::string> en_, ja_;  // as listed
  bool en_letters_only_ = true;       // every English verb is a-z: MayHold may skip sentences
  std::vector<std::string> ja_stems_;
  std::unordered_map<std::string, std::vector<EnForm>> en_forms_;
};

// ActMatcher(verbs).Find(text).
std::vector<ActHit> FindAskedActs(std::string_view text, const ActVerbs& verbs);

}  // namespace hangar
