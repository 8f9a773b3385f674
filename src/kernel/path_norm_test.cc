#include "kernel/path_norm.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// A path already normal is returned as it is, without being taken apart: every path of up to 8
// characters from '/', '.' and 'a' normalises as segment by segment would, and the result is a
// fixed point.
TEST(PathNorm, EveryShortPathAgreesWithSegmentBySegment) {
  auto by_segments = [](const std::string& p) {
    std::vector<std::string> segs;
    std::string seg;
    for (size_t i = 0; i <= p.size(); i++) {
      if (i < p.size() && p[i] != '/') {
        seg += p[i];
        continue;
      }
      if (seg == "..") {
        if (!segs.empty()) segs.pop_back();
      } else if (!seg.empty() && seg != ".") {
        segs.push_back(seg);
      }
      seg.clear();
    }
    std::string out;
    for (const std::string& s : segs) out += "/" + s;
    return out.empty() ? std::string("/") : out;
  };
  const char kChars[] = {'/', '.', 'a'};
  for (int len = 0; len <= 8; len++) {
    int n = 1;
    for (int i = 0; i < len; i++) n *= 3;
    for (int k = 0; k < n; k++) {
      std::string p;
      for (int i = 0, x = k; i < len; i++, x /= 3) p += kChars[x % 3];
      const std::string got = NormalizeAbsolute(p);
      ASSERT_EQ(got, by_segments(p)) << "\"" << p << "\"";
      ASSERT_EQ(NormalizeAbsolute(got), got) << "\"" << p << "\"";
    }
  }
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
