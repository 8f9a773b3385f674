#include "launch/confined_exec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hangar {
namespace {

// What ParseConfineArgs makes of hangar-confine ARGS (argv[0] added); its error in *ERROR.
ConfineArgs Parse(std::vector<std::string> args, std::string* error) {
  args.insert(args.begin(), "/usr/lib/hangar/hangar-confine");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ConfineArgs out;
  *error = ParseConfineArgs(int(argv.size()) - 1, argv.data(), &out);
  return out;
}

// The supervisor's child for a drone of engine "namespaces" follows what it parses here from the
// argv hangar-confine would have been given: every part of it must arrive.
TEST(ParseConfineArgs, ReadsEveryPartOfTheCommandLine) {
  NamespaceSandbox sb;
  sb.cut_network = false;
  sb.binds = {{7, "/spool/rooms/M", true, ""}};
  sb.socket = "/run/egress.sock";
  sb.chdir = "/spool/rooms/M";
  std::vector<std::string> args = {"--sandbox"};
  for (const std::string& a : NamespaceSandboxArgs(sb)) args.push_back(a);
  for (const char* a : {"--forward", "3128", "/usr/bin/socat", "/run/egress.sock", "--landlock",
                        "9", "unix-allow", "/usr/bin/env", "-i", "A=1"})
    args.push_back(a);
  std::string error;
  ConfineArgs c = Parse(args, &error);
  ASSERT_EQ(error, "");
  ASSERT_TRUE(c.sandbox);
  EXPECT_FALSE(c.sandbox->cut_network);
  EXPECT_EQ(c.sandbox->binds, sb.binds);
  EXPECT_EQ(c.sandbox->socket, sb.socket);
  EXPECT_EQ(c.sandbox->chdir, sb.chdir);
  EXPECT_EQ(c.forward_port, 3128);
  EXPECT_EQ(c.forwarder, "/usr/bin/socat");
  EXPECT_EQ(c.socket, "/run/egress.sock");
  EXPECT_EQ(c.landlock, 9);
  EXPECT_EQ(c.sockets, UnixSockets::kAllow);
  EXPECT_EQ(c.argv, (std::vector<std::string>{"/usr/bin/env", "-i", "A=1"}));
}

TEST(ParseConfineArgs, TheLeastIsAModeAndAProgram) {
  std::string error;
  ConfineArgs c = Parse({"unix-deny", "/bin/true"}, &error);
  ASSERT_EQ(error, "");
  EXPECT_FALSE(c.sandbox);
  EXPECT_EQ(c.forward_port, 0);
  EXPECT_EQ(c.landlock, -1);
  EXPECT_EQ(c.sockets, UnixSockets::kDeny);
  EXPECT_EQ(c.argv, std::vector<std::string>{"/bin/true"});
}

TEST(ParseConfineArgs, UsageErrorsAreSaid) {
  std::string error;
  Parse({"/bin/true"}, &error);
  EXPECT_NE(error.find("usage: hangar-confine"), std::string::npos) << error;
  Parse({"unix-maybe", "/bin/true"}, &error);
  EXPECT_NE(error.find("usage: hangar-confine"), std::string::npos) << error;
  Parse({"--landlock", "2", "unix-deny", "/bin/true"}, &error);
  EXPECT_EQ(error, "--landlock: expected a descriptor above 2");
  Parse({"--forward", "0", "/usr/bin/socat", "/s", "unix-deny", "/bin/true"}, &error);
  EXPECT_EQ(error, "--forward: expected PORT FORWARDER SOCKET, the forwarder an absolute path");
  Parse({"--forward", "80", "socat", "/s", "unix-deny", "/bin/true"}, &error);
  EXPECT_EQ(error, "--forward: expected PORT FORWARDER SOCKET, the forwarder an absolute path");
  Parse({"--sandbox", "--chdir", "/r"}, &error);  // no closing "--"
  EXPECT_NE(error, "");
}

}  // namespace
}  // namespace hangar
