#include "shell/observer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "shell/change.h"
#include "shell/claude_result.h"
#include "shell/declaration.h"
#include "shell/done_checks.h"
#include "shell/harness_events.h"
#include "shell/op_files.h"

namespace hangar {

json::Value FileDigest(const std::string& path, const std::string& name) {
  json::Object o;
  o["file"] = name;
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    o["present"] = fd >= 0 || errno != ENOENT;
    if (fd >= 0 || errno != ENOENT)
      o["error"] = fd < 0 ? std::string(std::strerror(errno)) : std::string("not a regular file");
    if (fd >= 0) close(fd);
    return o;
  }
  Result<FileHash> h = HashFd(fd, INT64_MAX);
  close(fd);
  o["present"] = true;
  if (!h.ok()) {
    o["error"] = h.status().message();
    return o;
  }
  o["size"] = h->size;
  o["sha256"] = h->sha256;
  return o;
}

json::Value ConnectionsRecord(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return json::Object{{"list", json::Array{}}, {"omitted", 0}};
  json::Array list;
  int64_t omitted = 0;
  std::string line;
  while (std::getline(in, line)) {
    Result<json::Value> v = json::Parse(line);
    if (!v.ok() || !v->is_object()) continue;  // a line cut by a kill: the proxy's, not a drone's
    if (list.size() < kMaxConnectionsListed)
      list.push_back(std::move(v).value());
    else
      omitted++;
  }
  return json::Object{{"list", std::move(list)}, {"omitted", omitted}};
}

json::Value HarnessReport(Harness h, const std::string& path) {
  if (h == Harness::kCommand) return nullptr;
  json::Object o{{"harness", HarnessName(h)}, {"file", "run/" + path.substr(path.rfind('/') + 1)}};
  std::ifstream in(path, std::ios::binary);
  std::string text;
  text.resize(kMaxHarnessStream + 1);
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(size_t(in.gcount()));
  if (!in.eof() && text.size() > kMaxHarnessStream) {
    o["error"] = "more than " + std::to_string(kMaxHarnessStream >> 20) + " MiB: not read";
    return o;
  }
  o["report"] = h == Harness::kClaude ? ReadClaudeResult(text) : SummarizeCodexEvents(text);
  return o;
}

Observation ObserveMission(const Observe& ob, const ManifestLimits& limits) {
  Observation obs;
  obs.room = RoomManifest(ob.room, limits);
  obs.declaration = ReadDeclaration(ob.room);
  obs.change = ObserveChange(ob);  // before the checks: a "changed" check judges it
  CheckRun checks =
      RunDoneChecks(ob.room, ob.checks, ob.check_env, ob.run, ob.check_sandbox, obs.change);
  obs.checks = checks.results;
  obs.checks_passed = checks.all_passed;
  json::Object files;
  files["stdout"] = FileDigest(ob.run + "/" + ob.stdout_file, "run/" + ob.stdout_file);
  files["stderr"] = FileDigest(ob.run + "/stderr", "run/stderr");
  if (!ob.last_message.empty()) {
    // Inside the run directory, name it relative to the mission directory: that moves to returned/.
    const std::string run_prefix = ob.run + "/";
    const bool in_run = ob.last_message.compare(0, run_prefix.size(), run_prefix) == 0;
    files["last_message"] =
        FileDigest(ob.last_message,
                   in_run ? "run/" + ob.last_message.substr(run_prefix.size()) : ob.last_message);
  }
  obs.files = files;
  obs.ops = ReadOpsEvidence(ob.mission_ops, ob.room);
  obs.harness = HarnessReport(ob.harness, ob.run + "/" + ob.stdout_file);
  if (ob.egress) obs.connections = ConnectionsRecord(ob.run + "/connections.jsonl");
  return obs;
}

}  // namespace hangar
