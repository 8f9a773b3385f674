#include "replay/read_ahead.h"

#include <utility>

namespace hangar::replay {

namespace {

// The line a chunk ends with: the record's end or an error, after which nothing is read.
bool Last(const Result<std::optional<ledger::Line>>& r) {
  return !r.ok() || !r->has_value();
}

}  // namespace

ReadAhead::ReadAhead(ledger::SignalReader* reader) : reader_(reader) {
  thread_ = std::thread([this] { Run(); });
}

ReadAhead::~ReadAhead() {
  Finish();
}

void ReadAhead::Finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ReadAhead::Run() {
  for (bool last = false; !last;) {
    Chunk chunk;
    chunk.reserve(kChunkLines);
    while (chunk.size() < kChunkLines && !last) {
      chunk.push_back(reader_->Next());
      last = Last(chunk.back());
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return stop_ || ready_.size() < kChunks; });
    if (stop_) return;
    ready_.push_back(std::move(chunk));
    lock.unlock();
    cv_.notify_all();
  }
}

Result<std::optional<ledger::Line>> ReadAhead::Next() {
  if (pos_ == taking_.size()) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !ready_.empty(); });
    taking_ = std::move(ready_.front());
    ready_.pop_front();
    pos_ = 0;
    lock.unlock();
    cv_.notify_all();
  }
  // After the last line (the end or an error) the thread reads nothing more: the last is kept.
  if (pos_ + 1 == taking_.size() && Last(taking_[pos_])) return taking_[pos_];
  return std::move(taking_[pos_++]);
}

}  // namespace hangar::replay
