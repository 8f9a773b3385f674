#include "shell/declaration.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "base/sha256.h"
#include "shell/manifest.h"

namespace hangar {

namespace {

constexpr char kFile[] = "DECLARATION.json";
constexpr std::array<std::string_view, 4> kKeys = {"will", "will_not", "ops", "external_acts"};

// The first problem with DOC as a declaration, as "field: reason"; "" when there is none.
std::string Problem(const json::Value& doc) {
  if (!doc.is_object()) return "expected a JSON object";
  for (const auto& [key, value] : doc.as_object()) {
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) return key + ": unknown field";
  }
  for (std::string_view key : kKeys) {
    const json::Value* list = doc.find(std::string(key));
    const std::string field(key);
    if (!list) return field + ": missing";
    if (!list->is_array()) return field + ": expected a list of strings";
    for (size_t i = 0; i < list->as_array().size(); i++) {
      if (!list->as_array()[i].is_string()) {
        return field + "[" + std::to_string(i) + "]: expected a string";
      }
    }
  }
  return "";
}

// Reads FD to its end, or up to one byte past MAX when it is longer.
Result<std::string> ReadUpTo(int fd, size_t max) {
  std::string out;
  char buf[65536];
  while (out.size() <= max) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Errno(std::string("read ") + kFile, errno);
    if (n == 0) break;
    out.append(buf, size_t(n));
  }
  return out;
}

// The bytes of the declaration, or the reason it is not read as one.
Result<std::string> ReadRegular(int room) {
  int fd = openat(room, kFile, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ELOOP) return Status::Invalid(NotRegularReason(S_IFLNK));
  if (fd < 0) return Status::Errno(std::string("open ") + kFile, errno);
  UniqueFd file(fd);
  struct stat st {};
  if (fstat(fd, &st) != 0) return Status::Errno(std::string("stat ") + kFile, errno);
  if (!S_ISREG(st.st_mode)) return Status::Invalid(NotRegularReason(st.st_mode));
  return ReadUpTo(fd, kMaxDeclarationBytes);
}

}  // namespace

json::Value ReadDeclaration(const std::string& room) {
  json::Object out;
  out["present"] = false;
  Result<UniqueFd> dir = OpenRoom(room);
  if (!dir.ok()) {
    out["error"] = dir.status().message();
    return out;
  }
  struct stat st {};
  if (fstatat(dir->get(), kFile, &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT)
      out["error"] = Status::Errno(std::string("stat ") + kFile, errno).message();
    return out;
  }
  out["present"] = true;
  out["valid"] = false;
  // Checked before opening: a FIFO is never opened, a symlink never resolved.
  if (!S_ISREG(st.st_mode)) {
    out["error"] = NotRegularReason(st.st_mode);
    return out;
  }
  Result<std::string> text = ReadRegular(dir->get());
  if (!text.ok()) {
    out["error"] = text.status().message();
    return out;
  }
  if (text->size() > kMaxDeclarationBytes) {
    out["size"] = std::max(int64_t(st.st_size), int64_t(text->size()));
    out["error"] = "larger than " + std::to_string(kMaxDeclarationBytes) + " bytes";
    return out;
  }
  out["size"] = int64_t(text->size());
  out["sha256"] = Sha256Hex(*text);
  if (!json::ValidUtf8(*text)) {
    out["error"] = "not valid UTF-8";
    return out;
  }
  Result<json::Value> doc = json::Parse(*text);
  if (!doc.ok()) {
    out["error"] = doc.status().message();
    return out;
  }
  std::string problem = Problem(*doc);
  if (!problem.empty()) {
    out["error"] = problem;
    return out;
  }
  out["valid"] = true;
  out["content"] = std::move(doc).value();
  return out;
}

}  // namespace hangar
