// The labelled gate corpus (tests/gate/corpus/): every case must get the verdict and the rules its
// label says, and the corpus must stay large and varied enough to measure false positives.
#include <gtest/gtest.h>

#include <set>

#include "../../tests/gate/corpus_reader.h"

namespace hangar {
namespace {

TEST(GateCorpus, EveryCaseGetsItsLabel) {
  corpus::Corpus c = corpus::Load(corpus::DefaultDir());
  ASSERT_TRUE(c.error.empty()) << c.error;
  std::string bad;
  size_t n = 0;
  for (const corpus::Case& k : c.cases)
    if (!k.ok()) {
      bad += "  " + corpus::Mismatch(k) + "\n";
      ++n;
    }
  EXPECT_EQ(n, 0u) << n << " of " << c.cases.size() << " cases in " << c.dir
                   << " do not match their label:\n"
                   << bad;
}

TEST(GateCorpus, IsLargeAndVaried) {
  corpus::Corpus c = corpus::Load(corpus::DefaultDir());
  ASSERT_TRUE(c.error.empty()) << c.error;
  EXPECT_GE(c.cases.size(), 80u);
  std::set<std::string> langs, verdicts;
  std::set<int> stages;
  for (const corpus::Case& k : c.cases) {
    langs.insert(k.lang);
    verdicts.insert(k.expect_verdict);
    stages.insert(k.stage);
  }
  EXPECT_EQ(langs, (std::set<std::string>{"en", "ja"}));
  EXPECT_EQ(verdicts, (std::set<std::string>{"allow", "deny", "hold"}));
  EXPECT_EQ(stages, (std::set<int>{1, 2}));
}

}  // namespace
}  // namespace hangar
