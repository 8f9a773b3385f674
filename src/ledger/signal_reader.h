// SignalReader: reads the signal record (man/hangar-signals.5) line by line, as hangard wrote it
// (ledger/signal_log.h), checking as it goes what makes it trustworthy: each line's number follows
// the last, its "prev" is the last line's hash, its hash recomputes, and every blob it names
// (inline, or a file in blobs/) has the sha256 it is named by. Any of these failing is Invalid,
// naming the file, the line and what is wrong: a replay of such a record is refused.
//
// A last line without its "\n" (hangard writing it now, or one a crash cut short, never acted
// on) is not read.
#pragma once

#include <simdjson.h>

#include <map>
#include <optional>
#include <string>
#include <variant>

#include "base/sha256.h"
#include "env/env.h"
#include "kernel/kernel.h"
#include "kernel/setup_record.h"

namespace hangar::ledger {

struct StartLine {
  int64_t n = 0;
  std::string hash;
  std::string build;  // the kernel build that decided what follows
  SetupFacts facts;
  int64_t ledger_seq = 0;  // the ledger's head when hangard started
  std::string ledger_hash;
  TimeMs ledger_time = 0;
};

struct SignalLine {
  int64_t n = 0;
  std::string hash;
  Signal signal;
  int64_t ledger_seq = 0;  // the ledger head the decision followed
  std::string ledger_hash;
  int64_t records = 0;   // the decision's ledger entries: ledger_seq + 1 .. + records
  bool acts = false;     // it did more than log
  std::string decision;  // sha256 of DecisionText of its actions
  std::string state;     // StepDigest after it
  std::string global;    // GlobalDigest after it
};

using Line = std::variant<StartLine, SignalLine>;

class SignalReader {
 public:
  // DIR: SPOOL/signals/NAME.
  SignalReader(Env* env, std::string dir);
  // NotFound when there is no record (signals.jsonl).
  Status Open();
  // The next line, nullopt at the end.
  Result<std::optional<Line>> Next();

  const std::string& path() const { return path_; }
  // The file is longer now than when Open looked (hangard appends while it is read).
  bool grown() const;

 private:
  Result<Line> Parse(std::string_view text);
  Result<std::string> Blob(const std::string& ref) const;
  Status Bad(const std::string& what) const;  // Invalid naming the file and line

  Env* env_;
  std::string dir_, path_;
  uint64_t size_ = 0, offset_ = 0;             // of the file; of the next unread byte
  std::string buf_;                            // read ahead, from offset_
  size_t pos_ = 0;                             // in buf_
  int64_t n_ = 0;                              // the last line's n
  std::string hash_;                           // the last line's hash
  std::map<std::string, std::string> inline_;  // this line's inline blobs: hex -> text
  simdjson::dom::parser parser_;
  Sha256 line_hash_;  // each line's, reset for the next: an OpenSSL context made once
};

}  // namespace hangar::ledger
