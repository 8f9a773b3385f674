#include "ledger/lines.h"

namespace hangar::ledger {

namespace {
constexpr size_t kChunk = size_t(1) << 20;
}

Status ForEachLine(Env* env, const std::string& path,
                   const std::function<Status(std::string_view, int64_t, bool)>& fn) {
  std::string pending;
  uint64_t offset = 0;
  int64_t line_no = 0;
  for (;;) {
    Result<std::string> chunk = env->ReadAt(path, offset, kChunk);
    if (!chunk.ok()) return chunk.status();
    if (chunk->empty()) break;
    offset += chunk->size();
    pending += *chunk;
    size_t begin = 0, nl;
    while ((nl = pending.find('\n', begin)) != std::string::npos) {
      Status s = fn(std::string_view(pending.data() + begin, nl - begin), ++line_no, true);
      if (!s.ok()) return s;
      begin = nl + 1;
    }
    pending.erase(0, begin);
  }
  if (pending.empty()) return Status::Ok();
  return fn(pending, ++line_no, false);
}

Result<int64_t> LastNewlineBefore(Env* env, const std::string& path, uint64_t end) {
  while (end > 0) {
    uint64_t from = end > kChunk ? end - kChunk : 0;
    Result<std::string> r = env->ReadAt(path, from, size_t(end - from));
    if (!r.ok()) return r.status();
    size_t at = r->rfind('\n');
    if (at != std::string::npos) return int64_t(from + at);
    end = from;
  }
  return int64_t(-1);
}

}  // namespace hangar::ledger
