// hangar memory put|log|show|diff and hangar resume: a requester's work states
// (man/hangar-memory.5). put checks the work state with the kernel's parser and hands it to the
// kernel as a control request; the kernel decides whether this uid may store it, records it and
// writes it. The others read what the ledger and memory/REQUESTER/ say; none of them decides
// anything.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/id.h"
#include "cli/commands.h"
#include "cli/drop.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "cli/requester_facts.h"
#include "cli/user_file.h"
#include "launch/command.h"

namespace hangar::cli {

namespace {

constexpr size_t kMaxWorkStateFile = 64 * 1024;

int CheckRequester(const Context& ctx, const std::string& what, const std::string& requester) {
  if (ValidId(requester)) return kExitOk;
  return FailTo(ctx.err, kExitUsage, what,
                "--requester: expected a requester name (" + std::string(kIdGrammar) + ")");
}

// The facts, or an exit status after saying why not.
std::optional<PackFacts> Facts(const Context& ctx, const std::string& what,
                               const std::string& requester, int* rc) {
  if ((*rc = CheckRequester(ctx, what, requester)) != kExitOk) return std::nullopt;
  Result<PackFacts> f = GatherRequesterFacts(ctx, requester);
  if (!f.ok()) {
    *rc = FailTo(ctx.err, ExitForRead(f.status()), what, f.status().message());
    return std::nullopt;
  }
  return std::move(f).value();
}

// The version asked for (0: the latest), read and checked.
std::optional<StoredMemory> Version(const Context& ctx, const std::string& what, const PackFacts& f,
                                    int64_t version, int* rc) {
  if (f.versions.empty()) {
    *rc = FailTo(ctx.err, kExitNoInput, what,
                 "requester " + f.requester + " has no work state stored (hangar memory put)");
    return std::nullopt;
  }
  const PackVersion* v = version == 0 ? &f.versions.back() : nullptr;
  for (const PackVersion& x : f.versions)
    if (x.version == version) v = &x;
  if (!v) {
    *rc = FailTo(ctx.err, kExitNoInput, what,
                 "no version " + std::to_string(version) + " (the latest is " +
                     std::to_string(f.versions.back().version) + ")");
    return std::nullopt;
  }
  StoredMemory s = ReadStoredMemory(ctx, f.requester, *v);
  if (!s.problem.empty()) {
    *rc = FailTo(ctx.err, kExitData, what, s.problem);
    return std::nullopt;
  }
  return s;
}

std::string SectionsText(const RequesterMemory& m) {
  std::string out;
  for (const char* s : kMemorySections) {
    out += std::string("== ") + s + "\n";
    const std::string& text = m.Section(s);
    size_t at = 0;
    while (at < text.size()) {
      size_t nl = text.find('\n', at);
      if (nl == std::string::npos) nl = text.size();
      out += Printable(text.substr(at, nl - at)) + "\n";
      at = nl + 1;
    }
  }
  out += "== refs\n";
  for (const MemoryRef& r : m.refs) out += Printable(json::Write(r.ToJson())) + "\n";
  return out;
}

// A private directory for diff's two files, removed with this object.
class ScratchDir {
 public:
  ScratchDir() {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/hangar-diff.XXXXXX";
    if (mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

int RunMemoryPut(const Context& ctx, const std::string& requester, const std::string& file) {
  const std::string label = file == "-" ? "stdin" : file;
  const std::string what = "store the work state " + label;
  if (int rc = CheckRequester(ctx, what, requester); rc != kExitOk) return rc;
  auto input = file == "-" ? ReadStdin(what, kMaxWorkStateFile)
                           : ReadUserFile(ctx.env, file, what, kMaxWorkStateFile);
  if (auto* f = std::get_if<Failure>(&input)) return Fail(ctx.err, f->exit_code, f->message);
  auto parsed = ParseRequesterMemory(std::get<std::string>(input));
  if (auto* e = std::get_if<ParseError>(&parsed))
    return FailTo(ctx.err, kExitData, what, e->Text());
  const RequesterMemory& m = std::get<RequesterMemory>(parsed);
  if (m.requester != requester)
    return FailTo(ctx.err, kExitData, what,
                  "requester: the work state is requester " + m.requester + "'s, not " + requester +
                      "'s (--requester)");
  return DropControlRequest(ctx, {{"request", "memory"}, {"memory", m.ToJson()}}, what, requester,
                            "work state of " + requester);
}

int RunMemoryLog(const Context& ctx, const std::string& requester) {
  int rc = kExitOk;
  std::optional<PackFacts> f = Facts(ctx, "list the work states of " + requester, requester, &rc);
  if (!f) return rc;
  json::Array list;
  std::vector<Row> rows{{"VERSION", "SEQ", "TIME", "UID", "USER", "FILE", "SHA256"}};
  for (const PackVersion& v : f->versions) {
    StoredMemory s = ReadStoredMemory(ctx, requester, v);
    const std::string& file = s.state;
    json::Object o{{"version", v.version}, {"seq", v.seq},   {"time", FormatTime(v.time)},
                   {"uid", v.uid},         {"user", v.user}, {"sha256", v.sha256},
                   {"path", s.path},       {"file", file}};
    o["problem"] = s.problem.empty() ? json::Value(nullptr) : json::Value(s.problem);
    list.emplace_back(std::move(o));
    rows.push_back({std::to_string(v.version), std::to_string(v.seq), FormatTime(v.time),
                    std::to_string(v.uid), v.user, file, v.sha256.substr(0, 12)});
  }
  if (ctx.json) {
    PrintJson(ctx.out, json::Object{{"requester", requester}, {"versions", std::move(list)}});
  } else if (f->versions.empty()) {
    ctx.out << "no work state stored for requester " << requester << "\n";
  } else {
    ctx.out << FormatTable(rows);
  }
  return kExitOk;
}

int RunMemoryShow(const Context& ctx, const std::string& requester, int64_t version) {
  int rc = kExitOk;
  const std::string what = "show the work state of " + requester;
  std::optional<PackFacts> f = Facts(ctx, what, requester, &rc);
  if (!f) return rc;
  std::optional<StoredMemory> s = Version(ctx, what, *f, version, &rc);
  if (!s) return rc;
  const PackVersion& v = s->version;
  if (ctx.json) {
    PrintJson(ctx.out, json::Object{{"requester", requester},
                                    {"version", v.version},
                                    {"seq", v.seq},
                                    {"time", FormatTime(v.time)},
                                    {"uid", v.uid},
                                    {"user", v.user},
                                    {"sha256", v.sha256},
                                    {"work_state", s->memory->ToJson()}});
    return kExitOk;
  }
  ctx.out << "work state v" << v.version << " of " << requester << ", stored " << FormatTime(v.time)
          << " by uid " << v.uid << " (" << Printable(v.user) << "), ledger seq " << v.seq
          << "; the requester's words, quoted as data\n"
          << SectionsText(*s->memory);
  return kExitOk;
}

int RunMemoryDiff(const Context& ctx, const std::string& requester, int64_t from, int64_t to) {
  int rc = kExitOk;
  const std::string what = "diff the work states of " + requester;
  std::optional<PackFacts> f = Facts(ctx, what, requester, &rc);
  if (!f) return rc;
  if (to == 0 && !f->versions.empty()) to = f->versions.back().version;
  if (from == 0) from = to - 1;
  if (from < 1)
    return FailTo(ctx.err, kExitNoInput, what, "there is no earlier version to compare with");
  std::optional<StoredMemory> a = Version(ctx, what, *f, from, &rc);
  if (!a) return rc;
  std::optional<StoredMemory> b = Version(ctx, what, *f, to, &rc);
  if (!b) return rc;
  ScratchDir dir;
  if (dir.path().empty())
    return FailTo(ctx.err, kExitCantCreate, what, "cannot make a temporary directory");
  const std::string fa = dir.path() + "/a", fb = dir.path() + "/b";
  std::ofstream(fa) << SectionsText(*a->memory);
  std::ofstream(fb) << SectionsText(*b->memory);
  CommandResult d = RunCommand({"diff", "-u", "--label", "v" + std::to_string(from), "--label",
                                "v" + std::to_string(to), fa, fb});
  if (!d.rc || *d.rc > 1) return FailTo(ctx.err, kExitIo, what, d.Describe("diff"));
  if (ctx.json) {
    PrintJson(ctx.out, json::Object{{"requester", requester},
                                    {"from", from},
                                    {"to", to},
                                    {"same", *d.rc == 0},
                                    {"diff", d.out}});
  } else {
    ctx.out << (*d.rc == 0
                    ? "v" + std::to_string(from) + " and v" + std::to_string(to) + " are the same\n"
                    : d.out);
  }
  return kExitOk;
}

int RunResume(const Context& ctx, const std::string& requester, size_t max_bytes) {
  int rc = kExitOk;
  const std::string what = "build the resume pack of " + requester;
  if (max_bytes < kMinPackBytes)
    return FailTo(ctx.err, kExitUsage, what,
                  "--max-bytes: at least " + std::to_string(kMinPackBytes));
  std::optional<PackFacts> f = Facts(ctx, what, requester, &rc);
  if (!f) return rc;
  if (ctx.json)
    PrintJson(ctx.out, ResumePackJson(*f));
  else
    ctx.out << BuildResumePack(*f, max_bytes, [](std::string_view s) { return Printable(s); }).text;
  return kExitOk;
}

}  // namespace hangar::cli
