#include "ledger/verify.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "ledger/scan.h"

namespace hangar::ledger {

namespace {

std::string N(int64_t v) {
  return std::to_string(v);
}

// hex: 64 lower-case hex digits (checked by the readers). Without a branch per digit: hashes are
// random, so digit-or-letter cannot be predicted.
void HexToBytes(std::string_view hex, uint8_t out[32]) {
  auto nibble = [](char c) {  // '0'-'9' are 0x30-0x39, 'a'-'f' are 0x61-0x66
    unsigned u = static_cast<unsigned char>(c);
    return (u & 0xf) + 9 * (u >> 6);
  };
  for (size_t i = 0; i < 32; i++)
    out[i] = uint8_t(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
}

VerifyReport Fail(VerifyReport r, Failure f, int64_t seq, std::string reason) {
  r.ok = false;
  r.failure = f;
  r.seq = seq;
  r.reason = std::move(reason);
  return r;
}

// A seq the anchor vouches for in the epoch checked, with the hash it gives.
struct Vouch {
  int64_t seq;
  uint8_t hash[32];
};

// The anchor's own lines, read once in file order, as the full check needs them: epochs never go
// down, and within the current epoch seqs run +1. The current epoch is the highest one seen (or
// the ledger head's): until the end a higher one may come, which starts the seq checks over, so
// only the current epoch's lines are kept (a million of them is the common case).
class AnchorCheck {
 public:
  explicit AnchorCheck(int64_t head_epoch) : epoch_(head_epoch) {}

  void Add(const AnchorLineView& a, int64_t line_no) {
    if (a.epoch < last_epoch_)
      Bad(&epoch_bad_, line_no, a.seq, "epoch " + N(a.epoch) + " after epoch " + N(last_epoch_));
    if (a.epoch > last_epoch_) last_seq_ = 0;
    last_epoch_ = std::max(last_epoch_, a.epoch);
    if (a.epoch > epoch_) {  // a later epoch: what was kept belongs to an earlier one
      epoch_ = a.epoch;
      seq_bad_.reset();
      a_max_ = 0;
      vouched_.clear();
    }
    if (a.epoch != epoch_) return;
    a_max_ = std::max(a_max_, a.seq);
    // A seq seen before in this epoch is never above last_seq_, so it is reported here as twice
    // or out of order (two different hashes for it included).
    if (last_seq_ != 0 && a.seq == last_seq_)
      Bad(&seq_bad_, line_no, a.seq, "seq " + N(a.seq) + " twice");
    if (last_seq_ != 0 && a.seq < last_seq_)
      Bad(&seq_bad_, line_no, a.seq,
          "seq " + N(a.seq) + " after seq " + N(last_seq_) + " (out of order)");
    if (last_seq_ != 0 && a.seq > last_seq_ + 1)
      Bad(&seq_bad_, line_no, last_seq_ + 1,
          "seqs " + N(last_seq_ + 1) + ".." + N(a.seq - 1) + " missing (gap)");
    last_seq_ = std::max(last_seq_, a.seq);
    Vouch v{a.seq, {}};
    HexToBytes(a.hash, v.hash);
    vouched_.push_back(v);
  }

  // After the last line: the vouched seqs sorted, each with its first line's hash (already so
  // unless the anchor is out of order).
  void Finish() {
    auto out_of_order = [](const Vouch& x, const Vouch& y) { return x.seq >= y.seq; };
    if (std::adjacent_find(vouched_.begin(), vouched_.end(), out_of_order) == vouched_.end())
      return;
    std::stable_sort(vouched_.begin(), vouched_.end(),
                     [](const Vouch& x, const Vouch& y) { return x.seq < y.seq; });
    vouched_.erase(std::unique(vouched_.begin(), vouched_.end(),
                               [](const Vouch& x, const Vouch& y) { return x.seq == y.seq; }),
                   vouched_.end());
  }

  int64_t epoch() const { return epoch_; }
  int64_t a_max() const { return a_max_; }  // the highest seq vouched for in the epoch
  const std::vector<Vouch>& vouched() const { return vouched_; }
  void Reserve(size_t n) { vouched_.reserve(n); }

  // The first fault in file order, as the failure r (the report so far) would carry it.
  std::optional<VerifyReport> Fault(const VerifyReport& r) const {
    const Pending* first = &epoch_bad_;
    if (!first->line_no || (seq_bad_.line_no && seq_bad_.line_no < first->line_no))
      first = &seq_bad_;
    if (!first->line_no) return std::nullopt;
    return Fail(r, Failure::kAnchorSequence, first->seq,
                "anchor line " + N(first->line_no) + ": " + first->why);
  }

 private:
  struct Pending {
    int64_t line_no = 0, seq = 0;  // line_no 0: none
    std::string why;
    void reset() { *this = Pending{}; }
  };
  static void Bad(Pending* p, int64_t line_no, int64_t seq, std::string why) {
    if (p->line_no == 0) *p = Pending{line_no, seq, std::move(why)};
  }

  int64_t epoch_;
  int64_t last_epoch_ = 0, last_seq_ = 0, a_max_ = 0;
  Pending epoch_bad_, seq_bad_;
  std::vector<Vouch> vouched_;
};

}  // namespace

const char* FailureName(Failure f) {
  switch (f) {
    case Failure::kNone:
      return "ok";
    case Failure::kBadEntry:
      return "bad-entry";
    case Failure::kLedgerSequence:
      return "ledger-sequence";
    case Failure::kHashMismatch:
      return "hash-mismatch";
    case Failure::kBrokenChain:
      return "broken-chain";
    case Failure::kAnchorMissing:
      return "anchor-missing";
    case Failure::kAnchorSequence:
      return "anchor-sequence";
    case Failure::kAnchorMismatch:
      return "anchor-mismatch";
    case Failure::kRollback:
      return "rollback";
    case Failure::kAnchorBehind:
      return "anchor-behind";
  }
  return "?";
}

Result<VerifyReport> Verify(const LedgerStore& store, const Anchor& anchor) {
  if (anchor.name() != store.name())
    return Status::Invalid("cannot verify ledger " + store.name() + " against the anchor of " +
                           anchor.name());
  VerifyReport r;
  r.head_seq = store.head_seq();
  // The anchor first: sequence faults are kept, not returned yet: a rollback outranks them as
  // the diagnosis (a forged line appended after a rollback is also out of order).
  AnchorCheck check(store.epoch());
  check.Reserve(size_t(std::max<int64_t>(store.head_seq(), 0)));  // about one line per entry
  int64_t ignored = 0;
  Status read = anchor.Scan([&](const AnchorLineView* a, int64_t line_no) {
    if (a == nullptr || a->ledger != anchor.name())
      ignored++;
    else
      check.Add(*a, line_no);
  });
  if (!read.ok() && read.code() != Code::kNotFound) return read;
  if (!read.ok()) {
    if (store.head_seq() == 0) return r;  // a new ledger: nothing to vouch for yet
    return Fail(r, Failure::kAnchorMissing, 1, "anchor " + anchor.path() + " is missing");
  }
  check.Finish();
  r.anchor_ignored = ignored;
  const int64_t epoch = check.epoch();
  r.epoch = epoch;
  const std::optional<VerifyReport> anchor_bad = check.Fault(r);
  const std::vector<Vouch>& vouched = check.vouched();
  const int64_t a_max = check.a_max();
  r.anchor_own = int64_t(vouched.size());

  // The ledger in one pass: parse, sequence and chain everything; hash the current epoch and
  // note where it first differs from the anchor (reported below, after the rollback checks).
  int64_t expect = 1;
  int64_t prev_epoch = 0;
  char prev_hash[64];
  std::memcpy(prev_hash, kGenesisPrev.data(), 64);
  std::optional<VerifyReport> failed;
  int64_t mismatch_seq = 0;
  size_t next_vouch = 0;
  ScanOptions options;
  options.hash_epoch = epoch;
  Status s = ScanLedger(store, options, [&](const EntryView& e, bool hash_ok) {
    auto stop = [&](Failure f, std::string why) {
      failed = Fail(r, f, e.seq, std::move(why));
      return Status::Invalid("stop");
    };
    if (e.seq != expect)
      return stop(Failure::kLedgerSequence,
                  "ledger entry seq " + N(e.seq) + " where seq " + N(expect) + " belongs");
    if (e.epoch < prev_epoch)
      return stop(Failure::kLedgerSequence, "ledger entry seq " + N(e.seq) + " has epoch " +
                                                N(e.epoch) + " after epoch " + N(prev_epoch));
    if (std::memcmp(e.prev.data(), prev_hash, 64) != 0)
      return stop(Failure::kBrokenChain,
                  "ledger entry seq " + N(e.seq) + ": prev is not the hash of the entry before");
    expect++;
    prev_epoch = e.epoch;
    std::memcpy(prev_hash, e.hash.data(), 64);
    if (e.epoch != epoch) return Status::Ok();
    if (r.first_seq == 0) r.first_seq = e.seq;
    if (!hash_ok)
      return stop(Failure::kHashMismatch,
                  "ledger entry seq " + N(e.seq) + " does not hash to its hash: it was edited");
    r.checked++;
    while (next_vouch < vouched.size() && vouched[next_vouch].seq < e.seq) next_vouch++;
    if (mismatch_seq == 0 && next_vouch < vouched.size() && vouched[next_vouch].seq == e.seq) {
      uint8_t hash[32];
      HexToBytes(e.hash, hash);
      if (std::memcmp(hash, vouched[next_vouch].hash, 32) != 0) mismatch_seq = e.seq;
    }
    return Status::Ok();
  });
  if (failed) return *failed;
  if (!s.ok()) {
    if (s.code() != Code::kInvalid) return s;
    return Fail(r, Failure::kBadEntry, expect,
                "ledger entry seq " + N(expect) + ": " + s.message());
  }
  int64_t head = expect - 1;
  r.head_seq = head;

  // Ledger against anchor, over the current epoch.
  if (a_max > head)
    return Fail(r, Failure::kRollback, head + 1,
                "rollback: the anchor vouches for seq " + N(a_max) + " of epoch " + N(epoch) +
                    " but the ledger ends at seq " + N(head));
  if (anchor_bad) return *anchor_bad;
  if (!vouched.empty() && (r.first_seq == 0 || vouched.front().seq < r.first_seq))
    return Fail(r, Failure::kRollback, vouched.front().seq,
                "rollback: the anchor vouches for seq " + N(vouched.front().seq) + " of epoch " +
                    N(epoch) + " but the ledger has no such entry in that epoch");
  // Now every vouched seq lies within the ledger's epoch; compare hashes, then coverage.
  if (r.first_seq != 0) {
    if (mismatch_seq != 0)
      return Fail(r, Failure::kAnchorMismatch, mismatch_seq,
                  "ledger entry seq " + N(mismatch_seq) + " differs from the anchor's hash for it");
    int64_t covered_from = vouched.empty() ? head + 1 : vouched.front().seq;
    int64_t covered_to = vouched.empty() ? head : vouched.back().seq;
    if (covered_from > r.first_seq) {
      r.missing_from = r.first_seq;
      r.missing_to = covered_from - 1;
    } else if (covered_to < head) {
      r.missing_from = covered_to + 1;
      r.missing_to = head;
    }
    if (r.missing_from != 0)
      return Fail(r, Failure::kAnchorBehind, r.missing_from,
                  "the anchor is missing seqs " + N(r.missing_from) + ".." + N(r.missing_to));
  }
  return r;
}

Status CheckHead(const LedgerStore& store, const Anchor& anchor) {
  if (anchor.name() != store.name())
    return Status::Invalid("cannot check ledger " + store.name() + " against the anchor of " +
                           anchor.name());
  Result<std::optional<AnchorLine>> last = anchor.LastOwnLine();
  if (!last.ok() && last.status().code() == Code::kNotFound && store.head_seq() == 0)
    return Status::Ok();
  if (!last.ok()) return last.status();
  const std::string what = "ledger " + store.name() + " head (epoch " + N(store.epoch()) +
                           ", seq " + N(store.head_seq()) + ")";
  if (!*last) {
    if (store.head_seq() == 0) return Status::Ok();
    return Status::Invalid(what + " has no line in anchor " + anchor.path());
  }
  const AnchorLine& a = **last;
  if (a.epoch != store.epoch() || a.seq != store.head_seq() || a.hash != store.head_hash())
    return Status::Invalid(what + " does not match the anchor's last line for it (epoch " +
                           N(a.epoch) + ", seq " + N(a.seq) + ")" +
                           (a.seq > store.head_seq() ? ": rollback" : ""));
  return Status::Ok();
}

}  // namespace hangar::ledger
