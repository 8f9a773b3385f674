// hangar logs ID [-f] [--stderr | --events] [--tail N]: the drone's output, from the mission's
// run directory (RUN/stdout, or the harness's events.jsonl / stream.jsonl the plan names;
// RUN/stderr with --stderr), every line passed through Printable: it is the drone's, shown as data.
// With -f it follows the file through the launch, the move from running/ to returned/ (the
// descriptor stays on the file) and any restart of hangard (the files are the truth), and ends when
// the mission has, with `hangar wait`'s exit status.
#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/id.h"
#include "cli/commands.h"
#include "cli/ending.h"
#include "cli/exit_code.h"
#include "cli/live_facts.h"
#include "cli/output.h"
#include "cli/spool_view.h"
#include "env/nofollow.h"
#include "shell/harness_line.h"

namespace hangar::cli {

namespace {

class Printer {
 public:
  Printer(const Context& ctx, const LogsArgs& a) : ctx_(ctx), a_(a) {}
  // Prints each whole line of BYTES (the rest waits for its newline, or for Flush).
  void Take(std::string_view bytes) {
    partial_.append(bytes);
    size_t at = 0;
    for (size_t nl; (nl = partial_.find('\n', at)) != std::string::npos; at = nl + 1)
      Line(std::string_view(partial_).substr(at, nl - at));
    partial_.erase(0, at);
  }
  void Flush() {
    if (!partial_.empty()) Line(partial_);
    partial_.clear();
    ctx_.out.flush();
  }

 private:
  void Line(std::string_view line) {
    if (!a_.events) return Out(line);
    for (const std::string& l : HarnessEventLines(line)) Out(l);
  }
  void Out(std::string_view text) {
    if (ctx_.json) {
      ctx_.out << json::Write(json::Object{{"id", a_.id}, {"line", std::string(text)}}) << "\n";
    } else {
      ctx_.out << Printable(text) << "\n";
    }
  }
  const Context& ctx_;
  const LogsArgs& a_;
  std::string partial_;
};

}  // namespace

int RunLogs(const Context& ctx, const LogsArgs& a) {
  const std::string what = "show the output of " + a.id;
  if (!ValidId(a.id)) return FailTo(ctx.err, kExitUsage, what, kIdGrammar);
  if (a.events && a.stderr_only)
    return FailTo(ctx.err, kExitUsage, what,
                  "--events reads the drone's stdout: not with --stderr");
  SpoolView view(ctx.env, ctx.layout);
  if (Status s = view.CheckReadable(); !s.ok()) return Fail(ctx.err, kExitNoInput, s.message());
  Result<MissionRef> first = view.Find(a.id);
  if (!first.ok())
    return FailTo(ctx.err, ExitForRead(first.status()), what, first.status().message());

  Printer printer(ctx, a);
  UniqueFd fd, notify(inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  std::string file;  // the run directory's file being read, once found
  for (;;) {
    std::optional<MissionRef> ref = view.Locate(a.id);
    // The file: the plan says which stdout the drone writes; the mission directory may move.
    if (fd.get() < 0 && ref && ref->phase) {
      std::string name = "stderr";
      if (!a.stderr_only) {
        Result<json::Value> plan = view.ReadJson(ref->path + "/plan.json");
        name = plan.ok() ? StringField(*plan, "stdout_file") : "";
        if (plan.ok() && name.empty()) name = "stdout";
        if (!name.empty() && a.events && !name.ends_with(".jsonl"))
          return FailTo(ctx.err, kExitUsage, what,
                        "its drone prints plain text (run/" + name +
                            "), not a harness's events: hangar logs " + a.id + " shows it");
      }
      if (!name.empty()) {
        const std::string path = ref->path + "/run/" + name;
        fd = UniqueFd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
        if (fd.get() >= 0) {
          file = path;
          if (a.tail >= 0) lseek(fd.get(), StartOfLastLines(fd.get(), size_t(a.tail)), SEEK_SET);
          if (notify.get() >= 0)
            inotify_add_watch(notify.get(), (ref->path + "/run").c_str(),
                              IN_MODIFY | IN_CLOSE_WRITE | IN_ONLYDIR);
        } else if (errno != ENOENT) {
          return FailTo(ctx.err, kExitIo, what, "cannot open " + path + ": " + strerror(errno));
        }
      }
    }
    if (fd.get() >= 0) {
      char buf[65536];
      for (ssize_t n; (n = read(fd.get(), buf, sizeof buf)) != 0;) {
        if (n < 0) {
          if (errno == EINTR) continue;
          if (errno == EAGAIN) break;
          return FailTo(ctx.err, kExitIo, what, "cannot read " + file + ": " + strerror(errno));
        }
        printer.Take(std::string_view(buf, size_t(n)));
      }
    }
    // Ended: what the file holds now is all it will hold (the supervisor wrote exit.json last).
    Result<std::optional<Ending>> end = LookForEnding(view, ctx.layout, a.id);
    if (!end.ok()) return FailTo(ctx.err, kExitIo, what, end.status().message());
    if (*end || !a.follow) {
      if (*end && fd.get() >= 0) {
        char buf[65536];
        for (ssize_t n; (n = read(fd.get(), buf, sizeof buf)) > 0;)
          printer.Take(std::string_view(buf, size_t(n)));
      }
      printer.Flush();
      if (fd.get() < 0 && !a.follow)
        return FailTo(ctx.err, kExitNoInput, what,
                      "it is " + (ref ? ref->state : std::string("gone")) +
                          (*end ? " and has no output: its drone never ran"
                                : " and has no output yet: hangar logs -f waits for it"));
      if (*end && a.follow) {
        if (fd.get() < 0) ctx.err << Printable((*end)->line) << "\n";
        return (*end)->exit_code;
      }
      return kExitOk;
    }
    ctx.out.flush();
    if (notify.get() >= 0) {
      struct pollfd p = {notify.get(), POLLIN, 0};
      if (poll(&p, 1, 250) > 0) {
        alignas(struct inotify_event) char drain[8192];
        while (read(notify.get(), drain, sizeof drain) > 0) {
        }
      }
    } else {
      usleep(250000);
    }
  }
}

}  // namespace hangar::cli
