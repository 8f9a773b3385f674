#include "daemon/stderr_log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

namespace hangar {

bool StderrIsJournal() {
  const char* js = std::getenv("JOURNAL_STREAM");
  struct stat st {};
  if (!js || fstat(2, &st) != 0) return false;
  const std::string want = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  return want == js;
}

std::string StderrLine(bool journal, Priority p, const std::string& time, const std::string& text) {
  if (journal) return "<" + std::to_string(int(p)) + ">hangard: " + text + "\n";
  return (time.empty() ? "" : time + " ") + "hangard: " + text + "\n";
}

void WriteStderr(bool journal, Priority p, const std::string& time, const std::string& text) {
  const std::string line = StderrLine(journal, p, time, text);
  (void)!write(2, line.data(), line.size());
}

}  // namespace hangar
