#include "replay/live_ledger.h"

#include <simdjson.h>

#include <algorithm>

#include "ledger/entry_view.h"
#include "ledger/scan.h"

namespace hangar::replay {

namespace {

constexpr std::string_view kSignalMember = "\"signal_record\":\"";

// The body's "rules" and "rule" as "R1,R2", and its "id" into *id.
std::string Verdict(simdjson::dom::parser& parser, std::string_view body, std::string* id) {
  const bool rules = body.find("\"rule") != std::string_view::npos;
  if (!rules && body.find("\"id\":") == std::string_view::npos) return "";
  simdjson::dom::element root;
  if (parser.parse(body.data(), body.size()).get(root)) return "";
  std::string_view i;
  if (!root["id"].get(i)) *id = std::string(i);
  std::string out;
  if (!rules) return out;
  simdjson::dom::array list;
  if (!root["rules"].get(list))
    for (simdjson::dom::element r : list) {
      std::string_view s;
      if (!r.get(s)) out += (out.empty() ? "" : ",") + std::string(s);
    }
  std::string_view one;
  if (!root["rule"].get(one) && !one.empty()) out += (out.empty() ? "" : ",") + std::string(one);
  return out;
}

}  // namespace

Status LiveLedger::Load(const ledger::LedgerStore& store) {
  entries_.clear();
  grants_.clear();
  ledger::ScanOptions options;
  options.threads = 1;
  simdjson::dom::parser parser;
  return ledger::ScanLedger(store, options, [&](const ledger::EntryView& v, bool) {
    if (v.seq != int64_t(entries_.size()) + 1)
      return Status::Invalid("ledger seq " + std::to_string(v.seq) + " where " +
                             std::to_string(entries_.size() + 1) + " was expected");
    LiveEntry e;
    e.kind = std::string(v.kind);
    e.hash = std::string(v.hash);
    if (size_t at = v.body.find(kSignalMember);
        at != std::string_view::npos && at + kSignalMember.size() + 64 <= v.body.size())
      e.signal_record = std::string(v.body.substr(at + kSignalMember.size(), 64));
    e.verdict = Verdict(parser, v.body, &e.id);
    if (GrantBook::Folds(v.kind) || RequesterBook::Folds(v.kind, v.body) ||
        CanaryBook::Folds(v.kind)) {
      Result<json::Value> body = json::Parse(v.body);
      if (!body.ok()) return body.status();
      grants_.push_back(GrantRecord{v.seq, e.kind, std::move(body).value()});
    }
    entries_.push_back(std::move(e));
    return Status::Ok();
  });
}

const LiveEntry* LiveLedger::At(int64_t seq) const {
  if (seq < 1 || seq > int64_t(entries_.size())) return nullptr;
  return &entries_[size_t(seq - 1)];
}

int64_t LiveLedger::FirstNamingALine(int64_t after) const {
  for (int64_t seq = std::max<int64_t>(after, 0) + 1; seq <= head(); ++seq)
    if (!entries_[size_t(seq - 1)].signal_record.empty()) return seq;
  return 0;
}

namespace {

// A book (GrantBook, RequesterBook) folded from RECORDS up to SEQ, as a start folds it.
template <typename Book>
Result<Book> FoldUpTo(const std::vector<GrantRecord>& records, int64_t seq) {
  Book book;
  for (const GrantRecord& g : records) {
    if (g.seq > seq) break;
    if (Status s = book.Apply(g); !s.ok()) return s;
  }
  return book;
}

}  // namespace

Result<GrantBook> LiveLedger::GrantsAt(int64_t seq) const {
  return FoldUpTo<GrantBook>(grants_, seq);
}

Result<RequesterBook> LiveLedger::RequestersAt(int64_t seq) const {
  return FoldUpTo<RequesterBook>(grants_, seq);
}

Result<CanaryBook> LiveLedger::CanariesAt(int64_t seq) const {
  return FoldUpTo<CanaryBook>(grants_, seq);
}

}  // namespace hangar::replay
