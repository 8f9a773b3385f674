#include "kernel/path_norm.h"

#include <gtest/gtest.h>

namespace hangar {
namespace {

TEST(PathNorm, CollapsesSlashesDotsAndDotDots) {
  EXPECT_EQ(NormalizeAbsolute("//etc//ssh/"), "/etc/ssh");
  EXPECT_EQ(NormalizeAbsolute("/srv/work/../../etc/cron.d/x"), "/etc/cron.d/x");
  EXPECT_EQ(NormalizeAbsolute("/a/./b/."), "/a/b");
  EXPECT_EQ(NormalizeAbsolute("/a/b/.."), "/a");
  EXPECT_EQ(NormalizeAbsolute("/"), "/");
  EXPECT_EQ(NormalizeAbsolute("///"), "/");
  EXPECT_EQ(NormalizeAbsolute("/."), "/");
  EXPECT_EQ(NormalizeAbsolute("/etc/"), "/etc");
  EXPECT_EQ(NormalizeAbsolute("/etc/ssh/sshd_config"), "/etc/ssh/sshd_config");
}

TEST(PathNorm, DotDotAboveTheRootStaysAtTheRoot) {
  EXPECT_EQ(NormalizeAbsolute("/.."), "/");
  EXPECT_EQ(NormalizeAbsolute("/../../etc"), "/etc");
  EXPECT_EQ(NormalizeAbsolute("/a/../../../etc/shadow"), "/etc/shadow");
}

TEST(PathNorm, NamesThatOnlyLookLikeDotsAreNames) {
  EXPECT_EQ(NormalizeAbsolute("/a/.../b"), "/a/.../b");
  EXPECT_EQ(NormalizeAbsolute("/a/..b/.c"), "/a/..b/.c");
}

TEST(PathNorm, RelativeOrEmptyIsTakenFromTheRoot) {
  EXPECT_EQ(NormalizeAbsolute(""), "/");
  EXPECT_EQ(NormalizeAbsolute("etc/x"), "/etc/x");
  EXPECT_EQ(NormalizeAbsolute("../etc"), "/etc");
}

TEST(PathNorm, InsideIsSegmentWise) {
  EXPECT_TRUE(PathInside("/srv/work/../../etc/cron.d/x", "/etc"));
  EXPECT_TRUE(PathInside("//etc//ssh/", "/etc"));
  EXPECT_TRUE(PathInside("/etc", "/etc"));
  EXPECT_TRUE(PathInside("/etc/", "/etc"));
  EXPECT_TRUE(PathInside("/etc/x", "/etc/"));
  EXPECT_FALSE(PathInside("/etcetera", "/etc"));
  EXPECT_FALSE(PathInside("/et", "/etc"));
  EXPECT_FALSE(PathInside("/", "/etc"));
  EXPECT_FALSE(PathInside("/etc/../srv", "/etc"));
  EXPECT_TRUE(PathInside("/anything/at/all", "/"));
  EXPECT_TRUE(PathInside("/srv/prod/db", "/srv/prod"));
  EXPECT_FALSE(PathInside("/srv/production", "/srv/prod"));
}

TEST(PathNorm, UserPathExpandsTheOwnHomeOnly) {
  EXPECT_EQ(NormalizeUserPath("~", "/home/ann").value(), "/home/ann");
  EXPECT_EQ(NormalizeUserPath("~/", "/home/ann").value(), "/home/ann");
  EXPECT_EQ(NormalizeUserPath("~/.ssh//id_ed25519", "/home/ann/").value(),
            "/home/ann/.ssh/id_ed25519");
  EXPECT_EQ(NormalizeUserPath("~/../../etc/passwd", "/home/ann").value(), "/etc/passwd");
  EXPECT_EQ(NormalizeUserPath("/srv/x/../y", "").value(), "/srv/y");

  EXPECT_EQ(NormalizeUserPath("~bob/.ssh", "/home/ann").status().message(),
            "\"~bob\": another user's home is not looked up; write the absolute path");
  EXPECT_EQ(NormalizeUserPath("~root", "/home/ann").status().message(),
            "\"~root\": another user's home is not looked up; write the absolute path");
  EXPECT_EQ(NormalizeUserPath("~/x", "").status().message(),
            "\"~\" needs an absolute home directory, and there is none");
  EXPECT_EQ(NormalizeUserPath("~/x", "home").status().code(), Code::kInvalid);
  EXPECT_EQ(NormalizeUserPath("etc/x", "/home/ann").status().message(),
            "expected an absolute path or one starting with ~/, not \"etc/x\"");
  EXPECT_EQ(NormalizeUserPath("", "/home/ann").status().message(),
            "expected a path, not an empty string");
  EXPECT_EQ(NormalizeUserPath(std::string_view("/a\0b", 4), "/h").status().message(),
            "a path may not hold a NUL byte");
}

}  // namespace
}  // namespace hangar
