// Boxed<T> (base/boxed.h): unset, it holds nothing and reads as a default T; set, it reads like
// std::optional; copies are deep, so a record that holds one copies as a value.
#include "base/boxed.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hangar {
namespace {

TEST(Boxed, UnsetReadsAsDefaultWithoutBeingSet) {
  Boxed<std::vector<int>> b;
  EXPECT_FALSE(b);
  EXPECT_TRUE(b.get().empty());
  EXPECT_FALSE(b) << "reading does not set it";
  b.mut().push_back(7);
  ASSERT_TRUE(b);
  EXPECT_EQ(b.get(), (std::vector<int>{7}));
  EXPECT_EQ(b->size(), 1u);
  b.reset();
  EXPECT_FALSE(b);
  EXPECT_TRUE(b.get().empty());
}

TEST(Boxed, AssignsLikeOptionalAndCopiesDeep) {
  Boxed<std::string> a;
  a = std::string("x");
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, "x");
  Boxed<std::string> copy = a;
  *copy += "y";
  EXPECT_EQ(*a, "x") << "a copy is its own value";
  EXPECT_EQ(*copy, "xy");
  copy = a;
  EXPECT_EQ(*copy, "x");
  copy = std::nullopt;
  EXPECT_FALSE(copy);
  Boxed<std::string> moved = std::move(a);
  EXPECT_EQ(*moved, "x");
  Boxed<std::string> unset;
  moved = unset;
  EXPECT_FALSE(moved) << "copying an unset one unsets";
}

}  // namespace
}  // namespace hangar
