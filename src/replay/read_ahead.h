// ReadAhead: the signal record's lines read, checked and parsed on a thread of their own, ahead of
// the replay that decides them. Reading a line (its hash, its blobs' hashes, its JSON, the signal
// it carries) costs about a fifth of a replay, and decide() must wait for nothing but its own
// work: the two go side by side on two cores.
//
// Lines come out in the record's order, exactly as SignalReader::Next gives them, the first error
// or the end last. At most kChunks chunks of kChunkLines lines wait, so memory stays bounded
// whatever the record's length. The reader belongs to the thread until Finish (or destruction),
// which stops it early when the replay stopped reading (--to) and waits for it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "ledger/signal_reader.h"

namespace hangar::replay {

class ReadAhead {
 public:
  static constexpr size_t kChunkLines = 256;
  static constexpr size_t kChunks = 8;

  explicit ReadAhead(ledger::SignalReader* reader);
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // The next line, nullopt at the end: what reader->Next() gave, in order.
  Result<std::optional<ledger::Line>> Next();
  // Stops the thread (when it has not reached the end) and waits for it; the reader is the
  // caller's again.
  void Finish();

 private:
  using Chunk = std::vector<Result<std::optional<ledger::Line>>>;
  void Run();

  ledger::SignalReader* reader_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Chunk> ready_;  // read, not yet taken
  bool stop_ = false;        // Finish: read no more
  Chunk taking_;             // the chunk Next takes from
  size_t pos_ = 0;
  std::thread thread_;
};

}  // namespace hangar::replay
