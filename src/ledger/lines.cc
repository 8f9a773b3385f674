#include "ledger/lines.h"

#include <algorithm>
#include <cstring>

namespace hangar::ledger {

namespace {
constexpr size_t kChunk = size_t(1) << 20;
constexpr size_t kFirstChunk = size_t(8) << 10;
}

Status ForEachLine(Env* env, const std::string& path,
                   const std::function<Status(std::string_view, int64_t, bool)>& fn) {
  return ForEachLineBlock(env, path, kChunk,
                          [&](std::string_view text, int64_t line_no, bool complete) {
                            if (!complete) return fn(text, line_no, false);
                            size_t begin = 0;
                            while (begin < text.size()) {
                              size_t nl = text.find('\n', begin);
                              Status s = fn(text.substr(begin, nl - begin), line_no++, true);
                              if (!s.ok()) return s;
                              begin = nl + 1;
                            }
                            return Status::Ok();
                          });
}

Status ForEachLineBlock(Env* env, const std::string& path, size_t chunk,
                        const std::function<Status(std::string_view, int64_t, bool)>& fn) {
  chunk = std::max<size_t>(chunk, 1);
  uint64_t offset = 0;  // of the first byte not yet passed to fn
  int64_t line_no = 1;
  size_t want = chunk;
  for (;;) {
    // Each read starts at a line's beginning: a line cut by the previous read is read again
    // rather than carried over, so the block is handed on without a copy.
    Result<std::string> r = env->ReadAt(path, offset, want);
    if (!r.ok()) return r.status();
    const std::string& text = *r;
    if (text.empty()) return Status::Ok();
    const void* last = memrchr(text.data(), '\n', text.size());
    if (last == nullptr) {
      if (text.size() < want) return fn(text, line_no, false);  // the end: a torn last line
      want *= 2;                                                // one line longer than the read
      continue;
    }
    size_t end = size_t(static_cast<const char*>(last) - text.data()) + 1;
    std::string_view block(text.data(), end);
    Status s = fn(block, line_no, true);
    if (!s.ok()) return s;
    for (const char* p = block.data();
         (p = static_cast<const char*>(memchr(p, '\n', size_t(block.end() - p)))) != nullptr; p++)
      line_no++;
    offset += end;
    want = chunk;
  }
}

Result<int64_t> LastNewlineBefore(Env* env, const std::string& path, uint64_t end) {
  // A line is a kilobyte or two: the first read is a few pages, each next one twice the last, up
  // to kChunk. hangard finds its head this way before every protected decision (its ledger's
  // head checked against the anchor), so a read of kChunk each time would cost every decision
  // megabytes of copying once a segment is that long.
  size_t chunk = kFirstChunk;
  while (end > 0) {
    uint64_t from = end > chunk ? end - chunk : 0;
    Result<std::string> r = env->ReadAt(path, from, size_t(end - from));
    if (!r.ok()) return r.status();
    size_t at = r->rfind('\n');
    if (at != std::string::npos) return int64_t(from + at);
    end = from;
    chunk = std::min(chunk * 2, kChunk);
  }
  return int64_t(-1);
}

}  // namespace hangar::ledger
