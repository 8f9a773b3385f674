#include "kernel/path_norm.h"

#include <vector>

namespace hangar {

namespace {

// True when NormalizeAbsolute(path) is path itself: absolute, and no segment empty, "." or "..",
// with no trailing slash unless path is "/". Most paths hangar sees already are.
bool AlreadyNormal(std::string_view path) {
  if (path.empty() || path[0] != '/') return false;
  if (path.size() == 1) return true;
  size_t start = 1;
  while (true) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view seg = path.substr(start, end - start);
    if (seg.empty() || seg == "." || seg == "..") return false;
    if (end == path.size()) return true;
    start = end + 1;
  }
}

}  // namespace

std::string NormalizeAbsolute(std::string_view path) {
  if (AlreadyNormal(path)) return std::string(path);
  std::vector<std::string_view> segs;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view seg = path.substr(start, end - start);
    if (seg == "..") {
      if (!segs.empty()) segs.pop_back();
    } else if (!seg.empty() && seg != ".") {
      segs.push_back(seg);
    }
    start = end + 1;
  }
  if (segs.empty()) return "/";
  std::string out;
  for (std::string_view s : segs) {
    out += '/';
    out += s;
  }
  return out;
}

bool PathInside(std::string_view path, std::string_view dir) {
  return NormalizedInside(NormalizeAbsolute(path), NormalizeAbsolute(dir));
}

bool NormalizedInside(std::string_view p, std::string_view d) {
  if (d == "/") return true;
  return p.size() >= d.size() && p.compare(0, d.size(), d) == 0 &&
         (p.size() == d.size() || p[d.size()] == '/');
}

Result<std::string> ExpandHome(std::string_view path, std::string_view home) {
  if (path.empty()) return Status::Invalid("expected a path, not an empty string");
  if (path.find('\0') != std::string_view::npos)
    return Status::Invalid("a path may not hold a NUL byte");
  if (path[0] == '/') return std::string(path);
  if (path[0] != '~')
    return Status::Invalid("expected an absolute path or one starting with ~/, not \"" +
                           std::string(path) + "\"");
  if (path.size() > 1 && path[1] != '/')
    return Status::Invalid("\"" + std::string(path.substr(0, path.find('/'))) +
                           "\": another user's home is not looked up; write the absolute path");
  if (home.empty() || home[0] != '/')
    return Status::Invalid("\"~\" needs an absolute home directory, and there is none");
  std::string full(home);
  full += '/';
  full += path.substr(1);
  return full;
}

Result<std::string> NormalizeUserPath(std::string_view path, std::string_view home) {
  Result<std::string> full = ExpandHome(path, home);
  if (!full.ok()) return full;
  return NormalizeAbsolute(*full);
}

}  // namespace hangar
