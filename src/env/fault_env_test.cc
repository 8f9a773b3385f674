#include "env/fault_env.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>
#include <vector>

#include "base/scratch_dir_testutil.h"
#include "gtest/gtest.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;

FaultPlan Plan(FaultPlan::Kind kind, uint64_t at, int error = 0, bool sticky = false) {
  FaultPlan p;
  p.kind = kind;
  p.at = at;
  p.error = error;
  p.sticky = sticky;
  return p;
}

class FaultEnvTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.path().empty()); }
  std::string P(const std::string& rel) const { return dir_.path() + "/" + rel; }
  std::string Read(const std::string& rel) const {
    std::ifstream in(P(rel));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // Every entry below the scratch directory, with a file's content: what "unchanged" compares.
  // The fault log, when a test keeps one, is left out.
  std::string Tree() const {
    std::vector<std::string> lines;
    for (const auto& e : fs::recursive_directory_iterator(dir_.path())) {
      if (e.path().filename() == "fault.log") continue;
      std::string rel = e.path().string().substr(dir_.path().size());
      lines.push_back(rel + (e.is_directory() ? "/" : " " + Read(rel.substr(1))));
    }
    std::sort(lines.begin(), lines.end());
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
  }
  // Runs body in a forked child and returns its wait status (the child never returns to gtest).
  int InChild(const std::function<void()>& body) {
    pid_t pid = fork();
    if (pid == 0) {
      body();
      _exit(0);
    }
    int status = 0;
    EXPECT_EQ(waitpid(pid, &status, 0), pid);
    return status;
  }

  ScratchDir dir_{"fault-env"};
};

// Each kind of mutating call once, in this order; reads between them.
void EveryCall(Env* env, const std::string& d) {
  ASSERT_TRUE(env->MakeDir(d + "/a").ok());
  ASSERT_TRUE(env->WriteFileAtomic(d + "/a", "w", "1").ok());
  ASSERT_TRUE(env->ReadFile(d + "/a/w", 100).ok());
  ASSERT_TRUE(env->WriteFileVisible(d + "/a", "v", "2").ok());
  ASSERT_TRUE(env->CreateExclusive(d + "/a", "k", "3").ok());
  ASSERT_TRUE(env->ListDir(d + "/a").ok());
  ASSERT_TRUE(env->Rename(d + "/a/w", d + "/a/w2").ok());
  ASSERT_TRUE(env->RenameNoReplace(d + "/a/v", d + "/a/v2").ok());
  ASSERT_TRUE(env->AppendDurable(d + "/a/log", "x").ok());
  ASSERT_TRUE(env->Truncate(d + "/a/log", 0).ok());
  ASSERT_TRUE(env->FileSize(d + "/a/log").ok());
  ASSERT_TRUE(env->Remove(d + "/a/k").ok());
  ASSERT_TRUE(env->MakeDirVisible(d + "/a/m").ok());
  ASSERT_TRUE(env->WriteFilesDirLater(d + "/a", {{"f", "4"}, {"g", "5"}}).ok());
  (void)env->Exists(d + "/a");
  (void)env->ListEntries(d + "/a");
  (void)env->ReadAt(d + "/a/w2", 0, 1);
  (void)env->OpenDir(d + "/a");
  (void)env->Now();
}

TEST_F(FaultEnvTest, CountsEachMutatingCallOnceAndNoRead) {
  FaultEnv env(RealEnv(), FaultPlan{});
  EveryCall(&env, dir_.path());
  EXPECT_EQ(env.calls(), 11u);
  EXPECT_EQ(Read("a/w2"), "1");
  EXPECT_EQ(Read("a/v2"), "2");
  EXPECT_TRUE(fs::is_directory(P("a/m")));
  EXPECT_EQ(Read("a/f") + Read("a/g"), "45");
  // A call that fails on its own still counts.
  EXPECT_EQ(env.CreateExclusive(P("a"), "w2", "again").code(), Code::kExists);
  EXPECT_EQ(env.MakeDirVisible(P("a/m")).code(), Code::kExists);
  EXPECT_EQ(env.calls(), 13u);
}

TEST_F(FaultEnvTest, CountsAcrossThreads) {
  FaultEnv env(RealEnv(), FaultPlan{});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)  // a file per thread: AppendDurable's creation is no place to race
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i)
        ASSERT_TRUE(env.AppendDurable(P("t" + std::to_string(t)), "x").ok());
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(env.calls(), 200u);
}

TEST_F(FaultEnvTest, LogsOneLinePerMutatingCall) {
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(P("fault.log")).ok());
  const std::string d = P("data");
  ASSERT_TRUE(fs::create_directory(d));
  EveryCall(&env, d);
  ASSERT_TRUE(env.MakeDir(d + "/new\nline").ok());
  EXPECT_EQ(Read("fault.log"), "1 mkdir " + d + "/a\n" +                        //
                                   "2 write " + d + "/a/w\n" +                  //
                                   "3 write-visible " + d + "/a/v\n" +          //
                                   "4 create " + d + "/a/k\n" +                 //
                                   "5 rename " + d + "/a/w " + d + "/a/w2\n" +  //
                                   "6 rename-noreplace " + d + "/a/v " + d + "/a/v2\n" +
                                   "7 append " + d + "/a/log\n" +    //
                                   "8 truncate " + d + "/a/log\n" +  //
                                   "9 remove " + d + "/a/k\n" +      //
                                   "10 mkdir-visible " + d + "/a/m\n" +
                                   "11 write-files-dir-later " + d + "/a/f f,g\n" +
                                   "12 mkdir " + d + "/new\\nline\n");
}

TEST_F(FaultEnvTest, AMaildirDeliveryIsOneCall) {
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(P("fault.log")).ok());
  const std::string box = fs::canonical(P("")).string() + "/box";
  ASSERT_TRUE(fs::create_directories(box + "/tmp") && fs::create_directories(box + "/new"));
  ASSERT_TRUE(env.WriteMaildir(box, "M1.json", "r").ok());
  EXPECT_EQ(Read("box/new/M1.json"), "r");
  EXPECT_EQ(env.calls(), 1u);
  EXPECT_EQ(Read("fault.log"), "1 maildir " + box + "/new/M1.json\n");
}

TEST_F(FaultEnvTest, SeveralFilesOfOneDirectoryAreOneCall) {
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(P("fault.log")).ok());
  ASSERT_TRUE(fs::create_directory(P("d")));
  std::ofstream(P("d/b")) << "old";
  ASSERT_TRUE(env.WriteFilesAtomic(P("d"), {{"b", "2"}, {"a", "1"}}).ok());
  EXPECT_EQ(Read("d/a"), "1");
  EXPECT_EQ(Read("d/b"), "2") << "replaces what is there";
  EXPECT_EQ(env.calls(), 1u);
  EXPECT_EQ(Read("fault.log"), "1 write-files " + P("d") + "/b b,a\n");
  ASSERT_TRUE(env.WriteFilesAtomic(P("d"), {}).ok());
  EXPECT_EQ(env.calls(), 1u) << "an empty list is no call";
}

// WriteTogether is, through FaultEnv, the calls its parts make alone, in order (the crash sweep's
// model of RealEnv's one wait): the directories' sync, each directory's files, each key, then the
// keyed files of the keys made; no key at all after a file that failed, and no keyed file without
// its key.
TEST_F(FaultEnvTest, WritingTogetherIsThePartsCallsInTurn) {
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(P("fault.log")).ok());
  for (const char* d : {"d", "e", "k"}) ASSERT_TRUE(fs::create_directory(P(d)));
  std::ofstream(P("k/k2")) << "old";
  Env::Together t{{P("d"), P("e")},
                  {{P("d"), {{"a", "1"}}}, {P("e"), {{"b", "2"}}}},
                  P("k"),
                  {{"k1", "x"}, {"k2", "y"}},
                  {{0, {P("d"), {{"r1", "R"}}}}, {1, {P("e"), {{"r2", "S"}}}}}};
  Env::TogetherDone r = env.WriteTogether(t);
  EXPECT_TRUE(r.dirs.ok());
  ASSERT_EQ(r.files.size(), 2u);
  ASSERT_EQ(r.keys.size(), 2u);
  EXPECT_EQ(r.keys[1].code(), Code::kExists);
  ASSERT_EQ(r.keyed.size(), 2u);
  EXPECT_TRUE(r.keyed[0].ok()) << r.keyed[0].message();
  EXPECT_EQ(r.keyed[1].code(), Code::kNotFound) << r.keyed[1].message();
  EXPECT_EQ(Read("d/a") + Read("e/b") + Read("k/k1") + Read("k/k2") + Read("d/r1"), "12xoldR");
  EXPECT_FALSE(fs::exists(P("e/r2"))) << "k2 was there: its keyed file is not written";
  EXPECT_EQ(Read("fault.log"), "1 sync-dirs " + P("d") + " " + P("e") + "\n" +       //
                                   "2 write-files-dir-later " + P("d") + "/a a\n" +  //
                                   "3 write-files-dir-later " + P("e") + "/b b\n" +  //
                                   "4 create " + P("k") + "/k1\n" +                  //
                                   "5 create " + P("k") + "/k2\n" +                  //
                                   "6 write-files-dir-later " + P("d") + "/r1 r1\n");
  t.dirs.clear();
  t.files[0].dir = P("no/such");
  t.keys = {{"k3", "z"}};
  t.keyed = {{0, {P("e"), {{"r3", "T"}}}}};
  r = env.WriteTogether(t);
  EXPECT_EQ(r.files.at(0).code(), Code::kNotFound) << r.files[0].message();
  EXPECT_TRUE(r.files.at(1).ok()) << r.files[1].message();
  EXPECT_EQ(r.keys.at(0).code(), Code::kIo);
  EXPECT_NE(r.keys[0].message().find("not created: "), std::string::npos) << r.keys[0].message();
  EXPECT_FALSE(fs::exists(P("k/k3")));
  EXPECT_EQ(r.keyed.at(0).code(), Code::kNotFound);
  EXPECT_FALSE(fs::exists(P("e/r3")));
  EXPECT_EQ(env.calls(), 8u) << "two directories' files, no key, no keyed file";
}

// The crash sweep's order (env.h): a power loss between the parts keeps the first alone.
TEST_F(FaultEnvTest, AppendingTogetherIsThePartsAppendsInTurn) {
  FaultEnv env(RealEnv(), FaultPlan{});
  ASSERT_TRUE(env.OpenLog(P("fault.log")).ok());
  std::vector<Status> r = env.AppendTogether({{P("ledger"), "e\n"}, {P("lines"), "l\n"}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(r[0].ok() && r[1].ok());
  EXPECT_EQ(Read("ledger") + Read("lines"), "e\nl\n");
  EXPECT_EQ(Read("fault.log"), "1 append " + P("ledger") + "\n2 append " + P("lines") + "\n");
  EXPECT_EQ(env.calls(), 2u);
  const int status = InChild([&] {
    FaultEnv crash(RealEnv(), Plan(FaultPlan::Kind::kCrashAfter, 1));
    (void)crash.AppendTogether({{P("ledger"), "f\n"}, {P("lines"), "m\n"}});
    _exit(4);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kFaultCrashStatus);
  EXPECT_EQ(Read("ledger") + Read("lines"), "e\nf\nl\n") << "the first part alone";
}

TEST_F(FaultEnvTest, SeveralFilesFailedOrCrashedBeforeWriteNone) {
  ASSERT_TRUE(fs::create_directory(P("d")));
  const std::string before = Tree();
  FaultEnv env(RealEnv(), Plan(FaultPlan::Kind::kFail, 1, ENOSPC));
  Status s = env.WriteFilesAtomic(P("d"), {{"a", "1"}, {"b", "2"}});
  EXPECT_EQ(s.sys_errno(), ENOSPC) << s.message();
  EXPECT_EQ(Tree(), before);
  const int status = InChild([&] {
    FaultEnv crash(RealEnv(), Plan(FaultPlan::Kind::kCrashBefore, 1));
    (void)crash.WriteFilesAtomic(P("d"), {{"a", "1"}, {"b", "2"}});
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kFaultCrashStatus);
  EXPECT_EQ(Tree(), before);
  const int after = InChild([&] {
    FaultEnv crash(RealEnv(), Plan(FaultPlan::Kind::kCrashAfter, 1));
    (void)crash.WriteFilesAtomic(P("d"), {{"a", "1"}, {"b", "2"}});
  });
  ASSERT_TRUE(WIFEXITED(after));
  EXPECT_EQ(Read("d/a") + Read("d/b"), "12") << "crash after: all of it";
}

TEST_F(FaultEnvTest, LogOfAnUnwritablePlaceIsAnError) {
  FaultEnv env(RealEnv(), FaultPlan{});
  Status s = env.OpenLog(P("no/such/dir/fault.log"));
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_NE(s.message().find("cannot open fault log"), std::string::npos) << s.message();
}

TEST_F(FaultEnvTest, FailsTheNthCallWithItsErrnoAndChangesNothing) {
  FaultEnv env(RealEnv(), Plan(FaultPlan::Kind::kFail, 3, ENOSPC));
  ASSERT_TRUE(env.OpenLog(P("fault.log")).ok());
  ASSERT_TRUE(env.MakeDir(P("a")).ok());
  ASSERT_TRUE(env.WriteFileAtomic(P("a"), "w", "old").ok());
  const std::string before = Tree();
  Status s = env.WriteFileAtomic(P("a"), "w", "new");
  EXPECT_EQ(s.code(), Code::kIo);
  EXPECT_EQ(s.message(), "cannot write " + P("a/.w.tmp.") + std::to_string(getpid()) + ": " +
                             std::strerror(ENOSPC));
  EXPECT_EQ(Tree(), before);
  // Not sticky: the next call is performed.
  ASSERT_TRUE(env.Rename(P("a/w"), P("a/w2")).ok());
  EXPECT_EQ(Read("a/w2"), "old");
  EXPECT_EQ(env.calls(), 4u);
  const std::string log = Read("fault.log");
  EXPECT_NE(log.find("3 write " + P("a/w") + "\nfault 3 fail ENOSPC\n4 rename "), std::string::npos)
      << log;
}

TEST_F(FaultEnvTest, InjectedStatusIsRealEnvsForThatErrno) {
  // Each mutating call, failed at once, names its object as RealEnv's message does.
  const std::string a = P("a"), b = P("b");
  struct Case {
    std::function<Status(Env*)> call;
    std::string message;
  };
  const std::string eio = std::strerror(EIO);
  std::vector<Case> cases = {
      {[&](Env* e) { return e->MakeDir(a); }, "cannot create directory " + a + ": " + eio},
      {[&](Env* e) { return e->CreateExclusive(a, "k", "x"); },
       "cannot create " + a + "/k: " + eio},
      {[&](Env* e) { return e->Rename(a, b); }, "cannot rename " + a + " to " + b + ": " + eio},
      {[&](Env* e) { return e->RenameNoReplace(a, b); },
       "cannot rename " + a + " to " + b + ": " + eio},
      {[&](Env* e) { return e->Remove(a); }, "cannot remove " + a + ": " + eio},
      {[&](Env* e) { return e->AppendDurable(a, "x"); }, "cannot write " + a + ": " + eio},
      {[&](Env* e) { return e->Truncate(a, 0); }, "cannot truncate " + a + ": " + eio},
      {[&](Env* e) { return e->WriteMaildir(a, "n", "x"); },
       "cannot write " + a + "/tmp/n: " + eio},
  };
  for (const Case& c : cases) {
    FaultEnv env(RealEnv(), Plan(FaultPlan::Kind::kFail, 1, EIO));
    Status s = c.call(&env);
    EXPECT_EQ(s.code(), Code::kIo);
    EXPECT_EQ(s.message(), c.message);
  }
  EXPECT_EQ(Tree(), "");
}

TEST_F(FaultEnvTest, StickyFailureFailsEveryLaterCall) {
  FaultEnv env(RealEnv(), Plan(FaultPlan::Kind::kFail, 2, ENOSPC, true));
  ASSERT_TRUE(env.MakeDir(P("a")).ok());
  const std::string before = Tree();
  EXPECT_EQ(env.WriteFileAtomic(P("a"), "w", "x").code(), Code::kIo);
  EXPECT_EQ(env.MakeDir(P("b")).code(), Code::kIo);
  EXPECT_EQ(env.AppendDurable(P("a/log"), "x").code(), Code::kIo);
  EXPECT_EQ(env.Remove(P("a")).code(), Code::kIo);
  EXPECT_EQ(Tree(), before);
  EXPECT_TRUE(env.ReadFile(P("a"), 10).status().code() == Code::kInvalid);  // reads still work
  EXPECT_EQ(env.calls(), 5u);
}

TEST_F(FaultEnvTest, CrashBeforeEndsTheProcessWithoutTheCall) {
  int status = InChild([&] {
    FaultEnv env(RealEnv(), Plan(FaultPlan::Kind::kCrashBefore, 3));
    if (!env.OpenLog(P("fault.log")).ok()) _exit(1);
    if (!env.WriteFileAtomic(dir_.path(), "one", "1").ok()) _exit(2);
    if (!env.WriteFileAtomic(dir_.path(), "two", "2").ok()) _exit(3);
    (void)env.Rename(P("one"), P("moved"));
    _exit(4);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kFaultCrashStatus);
  EXPECT_EQ(Read("one"), "1");
  EXPECT_EQ(Read("two"), "2");
  EXPECT_FALSE(fs::exists(P("moved")));
  EXPECT_EQ(Read("fault.log"), "1 write " + P("one") + "\n2 write " + P("two") + "\n3 rename " +
                                   P("one") + " " + P("moved") + "\nfault 3 crash-before\n");
}

TEST_F(FaultEnvTest, CrashAfterEndsTheProcessWithTheCallDone) {
  int status = InChild([&] {
    FaultEnv env(RealEnv(), Plan(FaultPlan::Kind::kCrashAfter, 2));
    if (!env.WriteFileAtomic(dir_.path(), "one", "1").ok()) _exit(2);
    (void)env.Rename(P("one"), P("moved"));
    (void)env.WriteFileAtomic(dir_.path(), "never", "x");
    _exit(4);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kFaultCrashStatus);
  EXPECT_FALSE(fs::exists(P("one")));
  EXPECT_EQ(Read("moved"), "1");
  EXPECT_FALSE(fs::exists(P("never")));
}

TEST_F(FaultEnvTest, CrashIsExactAcrossThreads) {
  // Four threads append; the process ends after call 10 (or before call 11): calls 1..10 have all
  // completed, none later has started, so exactly 10 appends are on disk.
  for (auto kind : {FaultPlan::Kind::kCrashAfter, FaultPlan::Kind::kCrashBefore}) {
    for (int round = 0; round < 10; ++round) {
      // The file exists: two first AppendDurable calls racing to create it would make one fail.
      std::ofstream(P("log"), std::ios::trunc).close();
      int status = InChild([&] {
        FaultEnv env(RealEnv(), Plan(kind, kind == FaultPlan::Kind::kCrashAfter ? 10 : 11));
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
          threads.emplace_back([&] {
            for (int i = 0; i < 20; ++i) (void)env.AppendDurable(P("log"), "x");
          });
        for (auto& t : threads) t.join();
        _exit(4);
      });
      ASSERT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), kFaultCrashStatus);
      EXPECT_EQ(Read("log"), std::string(10, 'x'));
    }
  }
}

TEST(ParseFaultPlan, Good) {
  Result<FaultPlan> p = ParseFaultPlan("crash-before=17");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->kind, FaultPlan::Kind::kCrashBefore);
  EXPECT_EQ(p->at, 17u);

  p = ParseFaultPlan("crash-after=9");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->kind, FaultPlan::Kind::kCrashAfter);
  EXPECT_EQ(p->at, 9u);

  p = ParseFaultPlan("fail=5:ENOSPC:sticky");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->kind, FaultPlan::Kind::kFail);
  EXPECT_EQ(p->at, 5u);
  EXPECT_EQ(p->error, ENOSPC);
  EXPECT_TRUE(p->sticky);

  p = ParseFaultPlan("fail=1:EIO");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->error, EIO);
  EXPECT_FALSE(p->sticky);

  p = ParseFaultPlan("fail=18446744073709551615:EDQUOT");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->at, 18446744073709551615u);
}

TEST(ParseFaultPlan, BadIsInvalidNamingTheVariableAndWhy) {
  const std::pair<std::string, std::string> bad[] = {
      {"", "expected crash-before=N"},
      {"bogus", "expected crash-before=N"},
      {"crash=3", "expected crash-before=N"},
      {"Crash-Before=3", "expected crash-before=N"},
      {" crash-before=3", "expected crash-before=N"},
      {"crash-before=", "not a decimal number from 1"},
      {"crash-before=0", "not a decimal number from 1"},
      {"crash-before=07", "not a decimal number from 1"},
      {"crash-before=-1", "not a decimal number from 1"},
      {"crash-before=+1", "not a decimal number from 1"},
      {"crash-before=3x", "not a decimal number from 1"},
      {"crash-before=3 ", "not a decimal number from 1"},
      {"crash-after=18446744073709551616", "not a decimal number from 1"},
      {"crash-after=3:EIO", "nothing may follow the call number"},
      {"fail=5", "fail needs an errno"},
      {"fail=5:", "unknown errno \"\""},
      {"fail=5:enospc", "unknown errno \"enospc\" (one of ENOSPC, EIO,"},
      {"fail=5:ENOENT", "unknown errno"},
      {"fail=5:28", "unknown errno"},
      {"fail=5:ENOSPC:", "only \":sticky\" may follow"},
      {"fail=5:ENOSPC:STICKY", "only \":sticky\" may follow"},
      {"fail=5:ENOSPC:sticky:x", "only \":sticky\" may follow"},
      {"fail=x\n:EIO", "\"x?\" is not a decimal"},
  };
  for (const auto& [text, why] : bad) {
    Result<FaultPlan> p = ParseFaultPlan(text);
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_EQ(p.status().code(), Code::kInvalid);
    const std::string m = p.status().message();
    EXPECT_EQ(m.rfind("cannot use HANGAR_FAULT=\"", 0), 0u) << m;
    EXPECT_NE(m.find(why), std::string::npos) << text << ": " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

TEST(FaultEnvFromVariables, NothingSetIsTheBaseEnv) {
  auto env = FaultEnvFromVariables(RealEnv(), nullptr, nullptr);
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->get(), nullptr);
}

TEST_F(FaultEnvTest, FromVariables) {
  auto env = FaultEnvFromVariables(RealEnv(), "fail=1:EIO", nullptr);
  ASSERT_TRUE(env.ok()) << env.status().message();
  ASSERT_NE(env->get(), nullptr);
  EXPECT_EQ((*env)->MakeDir(P("a")).code(), Code::kIo);

  env = FaultEnvFromVariables(RealEnv(), nullptr, P("count.log").c_str());  // count only
  ASSERT_TRUE(env.ok()) << env.status().message();
  ASSERT_TRUE((*env)->MakeDir(P("a")).ok());
  EXPECT_EQ(Read("count.log"), "1 mkdir " + P("a") + "\n");

  env = FaultEnvFromVariables(RealEnv(), "bogus", P("count.log").c_str());
  EXPECT_EQ(env.status().code(), Code::kInvalid);
  EXPECT_NE(env.status().message().find("HANGAR_FAULT="), std::string::npos);

  env = FaultEnvFromVariables(RealEnv(), nullptr, "relative.log");
  EXPECT_EQ(env.status().message(),
            "cannot use HANGAR_FAULT_LOG=\"relative.log\": not an absolute path");
  env = FaultEnvFromVariables(RealEnv(), nullptr, "");
  EXPECT_EQ(env.status().code(), Code::kInvalid);
  env = FaultEnvFromVariables(RealEnv(), nullptr, P("no/dir/x.log").c_str());
  EXPECT_EQ(env.status().code(), Code::kNotFound);
}

TEST(DescribeFaultPlan, SaysWhatIsInjected) {
  EXPECT_EQ(DescribeFaultPlan(*ParseFaultPlan("crash-before=17")),
            "exit 86 before mutating call 17");
  EXPECT_EQ(DescribeFaultPlan(*ParseFaultPlan("crash-after=9")), "exit 86 after mutating call 9");
  EXPECT_EQ(DescribeFaultPlan(*ParseFaultPlan("fail=5:ENOSPC:sticky")),
            "every mutating call from 5 fails with ENOSPC");
  EXPECT_EQ(DescribeFaultPlan(*ParseFaultPlan("fail=5:EIO")), "mutating call 5 fails with EIO");
  EXPECT_EQ(DescribeFaultPlan(FaultPlan{}), "no fault, mutating calls counted");
}

}  // namespace
}  // namespace hangar
