// Anchor: the witness file of one ledger, ANCHOR_DIR/NAME.anchor, meant to sit on another mount.
//
// One line per ledger entry, appended and fsynced after the entry is durable:
//   {"epoch":E,"hash":H,"ledger":NAME,"seq":S}\n      (canonical JSON: keys sorted)
// Lines name their ledger. A reader takes only the lines of its own ledger and ignores the rest:
// a replay tool that once wrote its heads into the live anchor must not make the live kernel
// think it was rolled back, nor hide a real rollback behind one forged last line.
//
// Replay isolation: an Anchor is bound to one ledger name and refuses any file not named
// NAME.anchor, so no code path appends lines for ledger X to ledger Y's anchor.
// Not thread-safe; any number of readers may read while one writer appends.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "env/env.h"

namespace hangar::ledger {

struct AnchorLine {
  std::string ledger;
  int64_t epoch = 0, seq = 0;
  std::string hash;
  int64_t line_no = 0;  // 1-based line of the file, for messages
};

// What a full read of the anchor found for one ledger.
struct AnchorLines {
  std::vector<AnchorLine> own;  // this ledger's lines, in file order
  int64_t other = 0;            // well-formed lines of other ledgers (ignored)
  int64_t unreadable = 0;       // lines that are not anchor lines (ignored: they vouch for nothing)
};

// One line as Anchor::Scan hands it over: the strings point into the read buffer.
struct AnchorLineView {
  std::string_view ledger;
  int64_t epoch = 0, seq = 0;
  std::string_view hash;
};

// The canonical anchor line for (ledger, epoch, seq, hash), with its "\n".
std::string AnchorLineText(std::string_view ledger, int64_t epoch, int64_t seq,
                           std::string_view hash);
// Strict reader of one anchor line (without "\n"): the four members, canonical text.
Result<AnchorLine> ParseAnchorLine(std::string_view line);

// One entry's head as the anchor records it: what AppendBatch takes, one per ledger entry.
struct AnchorMark {
  int64_t epoch = 0, seq = 0;
  std::string hash;
};

class Anchor {
 public:
  // Binds the ledger `name` to `path`. Invalid when name is not a valid ledger name or the
  // file name of path is not exactly name + ".anchor". The file need not exist yet.
  static Result<Anchor> Bind(Env* env, std::string path, std::string name);

  // Appends this ledger's line for (epoch, seq, hash) and fsyncs it (and the directory when the
  // file is created). If the file's last line is torn, a "\n" goes first so the torn bytes stay an
  // unreadable line of their own instead of spoiling ours.
  Status Append(int64_t epoch, int64_t seq, std::string_view hash);
  // Group commit: this ledger's lines for all marks, in their order, with one write(2) and one
  // fsync, as Append does for one (the same torn-tail "\n" first). Meant to follow a ledger
  // AppendBatch with the marks of its entries. All or none: Invalid, and nothing written, when a
  // mark has a bad epoch, seq or hash. The order of the seqs is not checked here (Verify reports
  // gaps and disorder). An empty batch writes nothing and does not create the file.
  Status AppendBatch(const std::vector<AnchorMark>& marks);

  // Every line of the file, sorted into ours and the rest. NotFound when the file is missing.
  Result<AnchorLines> ReadAll() const;
  // The same lines without keeping them, for a large file (Verify): fn(line, line_no) for each
  // line in order, line being the parsed line of any ledger (the caller picks its own by name) or
  // nullptr for one that is not an anchor line. The view lives until fn returns. NotFound when
  // the file is missing.
  Status Scan(const std::function<void(const AnchorLineView*, int64_t line_no)>& fn) const;
  // This ledger's last line, reading the file backwards from its end (cheap when the tail is
  // ours); nullopt when the file holds none. NotFound when the file is missing.
  Result<std::optional<AnchorLine>> LastOwnLine() const;

  const std::string& path() const { return path_; }
  const std::string& name() const { return name_; }

 private:
  Anchor(Env* env, std::string path, std::string name)
      : env_(env), path_(std::move(path)), name_(std::move(name)) {}
  Status AppendLines(std::string text);  // whole lines; after a torn tail, a "\n" goes first
  Env* env_;
  std::string path_, name_;
};

}  // namespace hangar::ledger
