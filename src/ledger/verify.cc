#include "ledger/verify.h"

#include <algorithm>
#include <map>
#include <optional>

namespace hangar::ledger {

namespace {

std::string N(int64_t v) {
  return std::to_string(v);
}

VerifyReport Fail(VerifyReport r, Failure f, int64_t seq, std::string reason) {
  r.ok = false;
  r.failure = f;
  r.seq = seq;
  r.reason = std::move(reason);
  return r;
}

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
  Result<AnchorLines> lines = anchor.ReadAll();
  if (!lines.ok() && lines.status().code() != Code::kNotFound) return lines.status();
  if (!lines.ok()) {
    if (store.head_seq() == 0) return r;  // a new ledger: nothing to vouch for yet
    return Fail(r, Failure::kAnchorMissing, 1, "anchor " + anchor.path() + " is missing");
  }
  r.anchor_ignored = lines->other + lines->unreadable;

  // The anchor's own lines: epochs never go down; within the current epoch seqs run +1.
  int64_t epoch = store.epoch();
  for (const AnchorLine& a : lines->own) epoch = std::max(epoch, a.epoch);
  r.epoch = epoch;
  // Sequence faults are kept, not returned yet: a rollback outranks them as the diagnosis (a
  // forged line appended after a rollback is also out of order).
  std::map<int64_t, std::string> vouched;  // seq -> hash, for this epoch
  std::optional<VerifyReport> anchor_bad;
  int64_t last_epoch = 0, last_seq = 0, a_max = 0;
  for (const AnchorLine& a : lines->own) {
    const std::string at = "anchor line " + N(a.line_no) + ": ";
    auto bad = [&](int64_t seq, std::string why) {
      if (!anchor_bad) anchor_bad = Fail(r, Failure::kAnchorSequence, seq, at + why);
    };
    if (a.epoch < last_epoch) bad(a.seq, "epoch " + N(a.epoch) + " after epoch " + N(last_epoch));
    if (a.epoch > last_epoch) last_seq = 0;
    last_epoch = std::max(last_epoch, a.epoch);
    if (a.epoch != epoch) continue;
    a_max = std::max(a_max, a.seq);
    if (last_seq != 0 && a.seq == last_seq) bad(a.seq, "seq " + N(a.seq) + " twice");
    if (last_seq != 0 && a.seq < last_seq)
      bad(a.seq, "seq " + N(a.seq) + " after seq " + N(last_seq) + " (out of order)");
    if (last_seq != 0 && a.seq > last_seq + 1)
      bad(last_seq + 1, "seqs " + N(last_seq + 1) + ".." + N(a.seq - 1) + " missing (gap)");
    if (vouched.count(a.seq) && vouched[a.seq] != a.hash)
      bad(a.seq, "two different hashes for seq " + N(a.seq));
    last_seq = std::max(last_seq, a.seq);
    vouched.emplace(a.seq, a.hash);
  }
  r.anchor_own = int64_t(vouched.size());

  // The ledger: parse, sequence and chain everything; hash and compare the current epoch.
  int64_t expect = 1;
  int64_t prev_epoch = 0;
  std::string prev_hash(kGenesisPrev);
  std::optional<VerifyReport> failed;
  Status s = store.ForEach(1, [&](const Entry& e) {
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
    if (e.prev != prev_hash)
      return stop(Failure::kBrokenChain,
                  "ledger entry seq " + N(e.seq) + ": prev is not the hash of the entry before");
    expect++;
    prev_epoch = e.epoch;
    prev_hash = e.hash;
    if (e.epoch != epoch) return Status::Ok();
    if (r.first_seq == 0) r.first_seq = e.seq;
    Result<std::string> h = EntryHash(e);
    if (!h.ok()) return stop(Failure::kBadEntry, h.status().message());
    if (*h != e.hash)
      return stop(Failure::kHashMismatch,
                  "ledger entry seq " + N(e.seq) + " does not hash to its hash: it was edited");
    r.checked++;
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
  if (!vouched.empty() && (r.first_seq == 0 || vouched.begin()->first < r.first_seq))
    return Fail(r, Failure::kRollback, vouched.begin()->first,
                "rollback: the anchor vouches for seq " + N(vouched.begin()->first) + " of epoch " +
                    N(epoch) + " but the ledger has no such entry in that epoch");
  // Now every vouched seq lies within the ledger's epoch; compare hashes, then coverage.
  if (r.first_seq != 0) {
    std::optional<VerifyReport> mismatch;
    Status t = store.ForEach(r.first_seq, [&](const Entry& e) {
      auto it = vouched.find(e.seq);
      if (it != vouched.end() && it->second != e.hash) {
        mismatch = Fail(r, Failure::kAnchorMismatch, e.seq,
                        "ledger entry seq " + N(e.seq) + " differs from the anchor's hash for it");
        return Status::Invalid("stop");
      }
      return Status::Ok();
    });
    if (mismatch) return *mismatch;
    if (!t.ok()) return t;
    int64_t covered_from = vouched.empty() ? head + 1 : vouched.begin()->first;
    int64_t covered_to = vouched.empty() ? head : vouched.rbegin()->first;
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
