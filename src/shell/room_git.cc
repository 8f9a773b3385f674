#include "shell/room_git.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env/nofollow.h"
#include "shell/git.h"

namespace hangar {

namespace {

bool SafeRefName(const std::string& ref) {
  if (!ref.starts_with("refs/") || ref.find("..") != std::string::npos || ref.back() == '/')
    return false;
  for (unsigned char c : ref)
    if (c <= ' ' || c == 0x7f || c == '\\' || c == ':' || c == '?' || c == '*' || c == '[')
      return false;
  return true;
}

}  // namespace

std::optional<std::string> ReadBeneath(int dir, const std::string& rel, size_t max) {
  const size_t slash = rel.rfind('/');
  Result<UniqueFd> parent = slash == std::string::npos ? Result<UniqueFd>(UniqueFd(dup(dir)))
                                                       : OpenDirBeneath(dir, rel.substr(0, slash));
  if (!parent.ok() || parent->get() < 0) return std::nullopt;
  const std::string name = slash == std::string::npos ? rel : rel.substr(slash + 1);
  UniqueFd fd(openat(parent->get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (fd.get() < 0 || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string text(max + 1, '\0');
  ssize_t n = pread(fd.get(), text.data(), text.size(), 0);
  if (n < 0 || size_t(n) > max) return std::nullopt;
  text.resize(size_t(n));
  return text;
}

std::string RoomHead(int room, std::string* why) {
  std::optional<std::string> head = ReadBeneath(room, ".git/HEAD", 4096);
  if (!head) {
    *why = "the room's .git/HEAD cannot be read as a regular file";
    return "";
  }
  std::string h = WithoutNewline(*head);
  for (int depth = 0; h.starts_with("ref: ") && depth < 5; depth++) {
    const std::string ref = WithoutNewline(h.substr(5));
    if (!SafeRefName(ref)) {
      *why = "the room's HEAD names a ref hangar does not read";
      return "";
    }
    if (std::optional<std::string> loose = ReadBeneath(room, ".git/" + ref, 4096)) {
      h = WithoutNewline(*loose);
      continue;
    }
    h.clear();
    if (std::optional<std::string> packed = ReadBeneath(room, ".git/packed-refs", 64 << 20)) {
      size_t at = 0;
      while (at < packed->size() && h.empty()) {
        size_t end = packed->find('\n', at);
        if (end == std::string::npos) end = packed->size();
        std::string_view line(packed->data() + at, end - at);
        if (line.size() > 41 && line.substr(41) == ref) h = std::string(line.substr(0, 40));
        at = end + 1;
      }
    }
    if (h.empty()) {
      *why = "the room's HEAD names " + ref + ", which has no commit yet";
      return "";
    }
  }
  if (!ObjectId(h)) {
    *why = "the room's HEAD holds no commit id";
    return "";
  }
  return h;
}

}  // namespace hangar
