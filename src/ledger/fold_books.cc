#include "ledger/fold_books.h"

#include "ledger/scan.h"

namespace hangar::ledger {

Status FoldBooks(const LedgerStore& store, GrantBook* grants, RequesterBook* requesters) {
  ScanOptions options;
  options.threads = 1;
  return ScanLedger(store, options, [&](const EntryView& v, bool) {
    const bool grant = GrantBook::Folds(v.kind), requester = RequesterBook::Folds(v.kind, v.body);
    if (!grant && !requester) return Status::Ok();
    Result<json::Value> body = json::Parse(v.body);
    if (!body.ok()) return body.status();
    const GrantRecord e{v.seq, std::string(v.kind), std::move(body).value()};
    return grant ? grants->Apply(e) : requesters->Apply(e);
  });
}

}  // namespace hangar::ledger
