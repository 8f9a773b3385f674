#include "ledger/fold_books.h"

#include "ledger/scan.h"

namespace hangar::ledger {

Status FoldBooks(const LedgerStore& store, GrantBook* grants, RequesterBook* requesters,
                 CanaryBook* canaries) {
  ScanOptions options;
  options.threads = 1;
  return ScanLedger(store, options, [&](const EntryView& v, bool) {
    const bool grant = GrantBook::Folds(v.kind), requester = RequesterBook::Folds(v.kind, v.body);
    const bool canary = canaries && CanaryBook::Folds(v.kind);
    if (!grant && !requester && !canary) return Status::Ok();
    Result<json::Value> body = json::Parse(v.body);
    if (!body.ok()) return body.status();
    const GrantRecord e{v.seq, std::string(v.kind), std::move(body).value()};
    return grant ? grants->Apply(e) : requester ? requesters->Apply(e) : canaries->Apply(e);
  });
}

}  // namespace hangar::ledger
