// hangar-bench-workspace: what a workspace mission costs (man/hangar-mission.5, WORKSPACE): the
// launch's checkout (launch/checkout.h) and the observer's change (shell/change.h) of a repository
// of N files, against what a person does by hand for the same: `git worktree add --detach` and,
// after the same edit, `git add -A` + `git diff --cached --binary -M BASE` into a file.
// scripts/bench-workspace runs it in a scratch directory.
//
//   hangar-bench-workspace --dir DIR [--files N] [--runs K] [--json PATH]
//
// The repository (DIR/src) is built once: N text files of about 1 KiB, 100 per directory, one
// commit. Each run, for hangar and by hand in turn: the checkout, then the same edit (10 files
// modified, one of them committed, 1 added, 1 deleted), then the change. Figures are the median
// of K runs (5), hangar and by hand first in turn, in seconds; the ratios are hangar's over by hand
// (below 1: hangar is faster). hangar's change does more than the hand's diff (its own repository
// and index, the name-status and line counts, the commits, the patch's sha256), and every git it
// runs is hardened (shell/git.h). Exit status: 0 when every run's change listed exactly the edited
// files, 1 otherwise.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/json.h"
#include "bench_cli.h"
#include "launch/checkout.h"
#include "launch/command.h"
#include "shell/change.h"
#include "shell/git.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;

using bench::Clock;
using bench::Die;
using bench::Since;

struct Options {
  std::string dir, json_path;
  int64_t files = 10000;
  int runs = 5;
};

Options ParseArgs(int argc, char** argv) {
  Options o;
  CLI::App app{"hangar-bench-workspace: a workspace's checkout and change against git by hand"};
  app.add_option("--dir", o.dir, "scratch directory (made; must not exist)")->required();
  app.add_option("--files", o.files, "files in the repository")->check(CLI::PositiveNumber);
  app.add_option("--runs", o.runs, "runs of each")->check(CLI::PositiveNumber);
  app.add_option("--json", o.json_path, "write the figures here");
  bench::Parse(app, argc, argv);
  return o;
}

// The user's plain git, as a person runs it.
void Git(const std::vector<std::string>& args, const std::string& what) {
  std::vector<std::string> argv = {"git", "-c", "user.name=bench", "-c", "user.email=b@b"};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandResult r = RunCommand(argv, std::chrono::minutes(10));
  if (!r.ok()) Die(what + ": " + r.Describe("git"));
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::trunc);
  f << text;
  if (!f.flush()) Die("cannot write " + path);
}

std::string FileName(int64_t i) {
  char rel[64];
  snprintf(rel, sizeof rel, "d%03lld/f%05lld.txt", static_cast<long long>(i / 100),
           static_cast<long long>(i));
  return rel;
}

std::string Build(const Options& o) {
  const std::string src = o.dir + "/src";
  fs::create_directories(src);
  Git({"init", "-q", "-b", "main", src}, "git init");
  std::string text;
  for (int i = 0; i < 16; i++) text += "line " + std::to_string(i) + " of some source text here\n";
  for (int64_t i = 0; i < o.files; i++) {
    if (i % 100 == 0) fs::create_directories(src + "/" + FileName(i).substr(0, 4));
    Write(src + "/" + FileName(i), "file " + std::to_string(i) + "\n" + text);
  }
  Git({"-C", src, "add", "-A"}, "git add");
  Git({"-C", src, "commit", "-q", "-m", "base"}, "git commit");
  GitCall head;
  head.git_dir = src + "/.git";
  head.args = {"rev-parse", "HEAD"};
  GitRun r = RunGit(head);
  if (!r.ok) Die(r.error);
  return WithoutNewline(r.out);
}

// The edit a drone makes, the same in both checkouts: files 0..9 modified (file 0 committed),
// one file added, file 10 deleted.
void Edit(const std::string& tree) {
  for (int64_t i = 0; i < 10; i++) {
    std::ofstream f(tree + "/" + FileName(i), std::ios::app);
    f << "edited\n";
  }
  Git({"-C", tree, "add", FileName(0)}, "git add (edit)");
  Git({"-C", tree, "commit", "-q", "-m", "edit"}, "git commit (edit)");
  Write(tree + "/new.txt", "a new file\n");
  fs::remove(tree + "/" + FileName(10));
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  if (fs::exists(o.dir)) Die(o.dir + " exists: give a directory to make");
  if (GitProgram().empty()) Die("git is not installed");
  Clock::time_point t0 = Clock::now();
  const std::string base = Build(o);
  const std::string src = o.dir + "/src";
  printf("workspace bench: a repository of %lld files built in %.1f s\n",
         static_cast<long long>(o.files), Since(t0));
  std::vector<double> h_checkout, h_change, m_checkout, m_change;
  bool exact = true;
  for (int run = 0; run < o.runs; run++) {
    const std::string n = std::to_string(run);
    auto by_hangar = [&] {
      // hangar: the launch's checkout, then the observer's change.
      Plan plan;
      plan.id = "bench-" + n;
      plan.room = o.dir + "/room-" + n;
      plan.workspace = PlanWorkspace{src, src + "/.git/objects", base};
      fs::create_directories(plan.room);
      t0 = Clock::now();
      if (Status s = MakeCheckout(plan); !s.ok()) Die(s.message());
      h_checkout.push_back(Since(t0));
      Edit(plan.room);
      Observe ob;
      ob.id = plan.id;
      ob.room = plan.room;
      ob.run = o.dir + "/run-" + n;
      ob.workspace = plan.workspace;
      fs::create_directories(ob.run);
      t0 = Clock::now();
      json::Value change = ObserveChange(ob);
      h_change.push_back(Since(t0));
      const json::Value* files = change.find("files");
      exact = exact && files && files->is_array() && files->as_array().size() == 12;
    };
    auto by_hand = [&] {
      // By hand: a worktree, the same edit, the diff into a file.
      const std::string wt = o.dir + "/wt-" + n;
      t0 = Clock::now();
      Git({"-C", src, "worktree", "add", "-q", "--detach", wt, base}, "git worktree add");
      m_checkout.push_back(Since(t0));
      Edit(wt);
      t0 = Clock::now();
      Git({"-C", wt, "add", "-A"}, "git add -A");
      CommandResult d =
          RunCommand({"sh", "-c", "git -C \"$0\" diff --cached --binary -M \"$1\" >\"$2\"", wt,
                      base, o.dir + "/hand-" + n + ".patch"},
                     std::chrono::minutes(10));
      if (!d.ok()) Die(d.Describe("git diff"));
      m_change.push_back(Since(t0));
    };
    // In turn first, so that neither always finds the other's writes in flight.
    if (run % 2 == 0) {
      by_hangar();
      by_hand();
    } else {
      by_hand();
      by_hangar();
    }
  }
  const double hc = Median(h_checkout), hd = Median(h_change), mc = Median(m_checkout),
               md = Median(m_change);
  printf("  %-28s %10s %10s %8s\n", "", "hangar", "by hand", "ratio");
  printf("  %-28s %9.3fs %9.3fs %8.2f\n", "checkout", hc, mc, hc / mc);
  printf("  %-28s %9.3fs %9.3fs %8.2f\n", "change (after a 12-file edit)", hd, md, hd / md);
  printf("  %-28s %9.3fs %9.3fs %8.2f\n", "both", hc + hd, mc + md, (hc + hd) / (mc + md));
  if (!exact) printf("  a change did not list exactly the 12 edited files\n");
  if (!o.json_path.empty()) {
    json::Object j = {{"files", o.files},
                      {"runs", o.runs},
                      {"hangar_checkout_s", hc},
                      {"hangar_change_s", hd},
                      {"hand_worktree_add_s", mc},
                      {"hand_diff_s", md},
                      {"ratio_checkout", hc / mc},
                      {"ratio_change", hd / md},
                      {"ratio_both", (hc + hd) / (mc + md)},
                      {"exact", exact}};
    std::ofstream f(o.json_path, std::ios::trunc);
    f << json::Write(json::Value(std::move(j))) << "\n";
    if (!f.flush()) Die("cannot write " + o.json_path);
  }
  return exact ? 0 : 1;
}

}  // namespace
}  // namespace hangar

int main(int argc, char** argv) {
  return hangar::Main(argc, argv);
}
