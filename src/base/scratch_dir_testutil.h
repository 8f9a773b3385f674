// ScratchDir: a fresh directory under /tmp for one test, removed with everything in it when the
// test ends. Header only: tests include it; nothing in the product does.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hangar {

class ScratchDir {
 public:
  // The directory is /tmp/hangar-TAG-XXXXXX; path() is empty if it could not be made.
  explicit ScratchDir(const std::string& tag) {
    std::string tmpl = "/tmp/hangar-" + tag + "-XXXXXX";
    if (mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~ScratchDir() {
    if (!path_.empty()) std::filesystem::remove_all(path_);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The whole of the file at PATH, "" when it cannot be read.
inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace hangar
