// bin/hangar-gate-report [DIR] (make gate-report): runs the gate over the labelled corpus
// (tests/gate/corpus by default) and prints the confusion table (expected rows x got columns),
// accuracy, false-positive rate (expected allow, got hold or deny) and false-negative rate
// (expected hold or deny, got allow), overall and per language. Exits 1 on any mismatch (verdict
// or rules) or unreadable case, 2 when the corpus cannot be read.
#include <cstdio>
#include <string>
#include <vector>

#include "corpus_reader.h"

namespace {

using hangar::corpus::Case;

const char* const kVerdicts[] = {"allow", "hold", "deny"};

int Index(const std::string& v) {
  for (int i = 0; i < 3; ++i)
    if (v == kVerdicts[i]) return i;
  return 3;  // error / unknown
}

std::string Rate(size_t num, size_t den) {
  if (den == 0) return "n/a (0 cases)";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f%% (%zu/%zu)", 100.0 * double(num) / double(den), num, den);
  return buf;
}

void Report(const std::string& title, const std::vector<const Case*>& cases) {
  size_t table[3][4] = {};
  size_t right = 0, allow = 0, fp = 0, risky = 0, fn = 0, rules_off = 0;
  for (const Case* c : cases) {
    int e = Index(c->expect_verdict), g = c->error.empty() ? Index(c->got_verdict) : 3;
    if (e < 3) ++table[e][g];
    if (e == g) ++right;
    if (e == g && c->error.empty() && c->got_rules != c->expect_rules) ++rules_off;
    if (e == 0) {
      ++allow;
      if (g == 1 || g == 2) ++fp;
    } else {
      ++risky;
      if (g == 0) ++fn;
    }
  }
  std::printf("== %s: %zu cases\n", title.c_str(), cases.size());
  std::printf("%-16s %7s %7s %7s %7s\n", "expected \\ got", "allow", "hold", "deny", "error");
  for (int e = 0; e < 3; ++e)
    std::printf("%-16s %7zu %7zu %7zu %7zu\n", kVerdicts[e], table[e][0], table[e][1], table[e][2],
                table[e][3]);
  std::printf("accuracy (verdict):  %s\n", Rate(right, cases.size()).c_str());
  std::printf("rules differ:        %zu (verdict right, rule ids not the labelled ones)\n",
              rules_off);
  std::printf("false-positive rate: %s  (expected allow, got hold/deny)\n",
              Rate(fp, allow).c_str());
  std::printf("false-negative rate: %s  (expected hold/deny, got allow)\n",
              Rate(fn, risky).c_str());
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2) {
    std::fprintf(stderr, "usage: hangar-gate-report [CORPUS-DIR]\n");
    return 2;
  }
  std::string dir = argc == 2 ? argv[1] : hangar::corpus::DefaultDir();
  hangar::corpus::Corpus corpus = hangar::corpus::Load(dir);
  if (!corpus.error.empty()) {
    std::fprintf(stderr, "hangar-gate-report: %s\n", corpus.error.c_str());
    return 2;
  }
  std::vector<const Case*> all, en, ja, s1, s2;
  for (const Case& c : corpus.cases) {
    all.push_back(&c);
    (c.lang == "ja" ? ja : en).push_back(&c);
    (c.stage == 2 ? s2 : s1).push_back(&c);
  }
  std::printf("gate corpus %s\n\n", dir.c_str());
  Report("all", all);
  Report("en", en);
  Report("ja", ja);
  Report("stage 1", s1);
  Report("stage 2", s2);
  size_t bad = 0;
  for (const Case& c : corpus.cases)
    if (!c.ok()) {
      if (bad++ == 0) std::printf("mismatches:\n");
      std::printf("  %s\n", hangar::corpus::Mismatch(c).c_str());
    }
  std::printf("%zu of %zu cases match their label\n", corpus.cases.size() - bad,
              corpus.cases.size());
  return bad == 0 ? 0 : 1;
}
