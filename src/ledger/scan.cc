#include "ledger/scan.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <system_error>
#include <thread>
#include <vector>

#include "ledger/lines.h"

namespace hangar::ledger {

namespace {

// Below this many lines a block is not worth a second thread.
constexpr size_t kMinLinesPerThread = 512;

struct Slot {
  EntryView view;
  bool parsed = false;
  bool hash_ok = true;
};

void Check(const std::vector<std::string_view>& lines, size_t from, size_t to, int64_t hash_epoch,
           std::vector<Slot>* slots) {
  EntryHasher hasher;
  for (size_t i = from; i < to; i++) {
    Slot& s = (*slots)[i];
    s.parsed = ScanEntryLine(lines[i], &s.view);
    s.hash_ok = !s.parsed || s.view.epoch != hash_epoch || hasher.Matches(s.view);
  }
}

// Fills slots for lines, cut into up to `threads` parts: part 0 on the calling thread, the others
// on helper threads (or here too, when no thread can be had).
void CheckAll(const std::vector<std::string_view>& lines, int threads, int64_t hash_epoch,
              std::vector<Slot>* slots) {
  slots->assign(lines.size(), Slot{});
  const size_t size = lines.size();
  const size_t parts =
      std::min<size_t>(size_t(threads), std::max<size_t>(1, size / kMinLinesPerThread));
  std::vector<std::thread> helpers;
  size_t t = 1;  // parts [1, t) went to helpers
  for (; t < parts; t++) {
    try {
      helpers.emplace_back(Check, std::cref(lines), size * t / parts, size * (t + 1) / parts,
                           hash_epoch, slots);
    } catch (const std::system_error&) {
      break;
    }
  }
  Check(lines, 0, size / parts, hash_epoch, slots);
  if (t < parts) Check(lines, size * t / parts, size, hash_epoch, slots);
  for (std::thread& h : helpers) h.join();
}

int Threads(int wanted) {
  if (wanted > 0) return wanted;
  unsigned cores = std::thread::hardware_concurrency();
  return int(std::clamp(cores, 1u, 8u));
}

}  // namespace

Status ScanLedger(const LedgerStore& store, const ScanOptions& options,
                  const std::function<Status(const EntryView&, bool hash_ok)>& fn) {
  Result<std::vector<std::string>> segments = store.Segments();
  if (!segments.ok()) return segments.status();
  const int threads = Threads(options.threads);
  std::vector<std::string_view> lines;
  std::vector<Slot> slots;
  for (const std::string& name : *segments) {
    int64_t first_seq = 0;
    std::from_chars(name.data(), name.data() + std::min<size_t>(12, name.size()), first_seq);
    const std::string path = store.dir() + "/" + name;
    Status s = ForEachLineBlock(
        store.env(), path, options.block_bytes,
        [&](std::string_view text, int64_t first_line, bool complete) {
          auto where = [&](int64_t line_no) { return path + " line " + std::to_string(line_no); };
          if (!complete)
            return Status::Invalid(where(first_line) + ": partial line at the end of the segment");
          lines.clear();
          for (size_t begin = 0; begin < text.size();) {
            size_t nl = text.find('\n', begin);
            lines.push_back(text.substr(begin, nl - begin));
            begin = nl + 1;
          }
          CheckAll(lines, threads, options.hash_epoch, &slots);
          for (size_t i = 0; i < lines.size(); i++) {
            const int64_t line_no = first_line + int64_t(i);
            Slot& slot = slots[i];
            if (!slot.parsed) {
              // The scan declined it: the strict reader says why, or takes it after all (a
              // body nested deeper than the scan goes), and then it is hashed here.
              Status why = ParseEntryView(lines[i], &slot.view);
              if (!why.ok()) return Status::Invalid(where(line_no) + ": " + why.message());
              slot.hash_ok =
                  slot.view.epoch != options.hash_epoch || EntryHasher().Matches(slot.view);
            }
            if (line_no == 1 && slot.view.seq != first_seq)
              return Status::Invalid(where(line_no) + ": first seq " +
                                     std::to_string(slot.view.seq) +
                                     " does not match the segment name");
            Status f = fn(slot.view, slot.hash_ok);
            if (!f.ok()) return f;
          }
          return Status::Ok();
        });
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace hangar::ledger
