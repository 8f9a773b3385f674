#include "shell/observer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/sha256.h"
#include "shell/declaration.h"
#include "shell/done_checks.h"

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
  Sha256 h;
  char buf[65536];
  int64_t size = 0;
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      o["error"] = "read failed after " + std::to_string(size) + " bytes: " + std::strerror(errno);
      close(fd);
      o["present"] = true;
      return o;
    }
    if (n == 0) break;
    h.Update(buf, size_t(n));
    size += n;
  }
  close(fd);
  o["present"] = true;
  o["size"] = size;
  o["sha256"] = h.FinishHex();
  return o;
}

Observation ObserveMission(const Observe& ob, const ManifestLimits& limits) {
  Observation obs;
  obs.room = RoomManifest(ob.room, limits);
  obs.declaration = ReadDeclaration(ob.room);
  CheckRun checks = RunDoneChecks(ob.room, ob.checks, ob.check_env, ob.run);
  obs.checks = checks.results;
  obs.checks_passed = checks.all_passed;
  json::Object files;
  files["stdout"] = FileDigest(ob.run + "/stdout", "run/stdout");
  files["stderr"] = FileDigest(ob.run + "/stderr", "run/stderr");
  if (!ob.last_message.empty()) {
    // Inside the run directory, name it relative to the mission directory: that moves to returned/.
    const std::string run_prefix = ob.run + "/";
    const bool in_run = ob.last_message.compare(0, run_prefix.size(), run_prefix) == 0;
    files["last_message"] =
        FileDigest(ob.last_message, in_run ? "run/" + ob.last_message.substr(run_prefix.size()) : ob.last_message);
  }
  obs.files = files;
  return obs;
}

}  // namespace hangar
