#include "ledger/anchor.h"

#include <charconv>

#include "base/id.h"
#include "base/json.h"
#include "ledger/entry.h"
#include "ledger/lines.h"

namespace hangar::ledger {

namespace {

constexpr size_t kWindow = size_t(64) << 10;
constexpr size_t kScanBlock = size_t(4) << 20;

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string AnchorLineText(std::string_view ledger, int64_t epoch, int64_t seq,
                           std::string_view hash) {
  // json::Write of {"ledger","epoch","seq","hash"}: keys in byte order, written directly.
  std::string out;
  out.reserve(ledger.size() + hash.size() + 64);
  char num[24];
  out.append("{\"epoch\":").append(num, std::to_chars(num, num + sizeof num, epoch).ptr);
  out.append(",\"hash\":");
  json::AppendQuoted(&out, hash);
  out.append(",\"ledger\":");
  json::AppendQuoted(&out, ledger);
  out.append(",\"seq\":").append(num, std::to_chars(num, num + sizeof num, seq).ptr);
  out.append("}\n");
  return out;
}

namespace {

// A canonical integer >= 1 at text[*at...]: [1-9][0-9]* within int64, as std::to_string writes it.
bool TakePositive(std::string_view text, size_t* at, int64_t* out) {
  const char* begin = text.data() + *at;
  const char* end = text.data() + text.size();
  if (begin == end || *begin < '1' || *begin > '9') return false;
  auto [ptr, ec] = std::from_chars(begin, end, *out);
  if (ec != std::errc()) return false;
  *at += size_t(ptr - begin);
  return true;
}

bool Take(std::string_view text, size_t* at, std::string_view literal) {
  if (text.substr(*at, literal.size()) != literal) return false;
  *at += literal.size();
  return true;
}

// The fast acceptor: for valid values the canonical line is exactly
//   {"epoch":E,"hash":"H","ledger":"L","seq":S}
// (keys sorted; a ledger name and a hex hash need no escapes), so matching that pattern is the
// same as parsing and comparing with AnchorLineText. False sends the line to the reference reader.
bool ScanAnchorLine(std::string_view line, AnchorLineView* out) {
  size_t at = 0;
  int64_t epoch = 0, seq = 0;
  if (!Take(line, &at, "{\"epoch\":") || !TakePositive(line, &at, &epoch) ||
      !Take(line, &at, ",\"hash\":\""))
    return false;
  std::string_view hash = line.substr(at, 64);
  at += hash.size();
  if (!IsHexHash(hash) || !Take(line, &at, "\",\"ledger\":\"")) return false;
  size_t quote = line.find('"', at);
  if (quote == std::string_view::npos) return false;
  std::string_view ledger = line.substr(at, quote - at);
  at = quote;
  if (!ValidId(ledger) || !Take(line, &at, "\",\"seq\":") || !TakePositive(line, &at, &seq) ||
      !Take(line, &at, "}") || at != line.size())
    return false;
  *out = AnchorLineView{ledger, epoch, seq, hash};
  return true;
}

// The reference reader: json::Parse, each member checked, the text compared with AnchorLineText.
Result<AnchorLine> ParseAnchorLineReference(std::string_view line) {
  Result<json::Value> v = json::Parse(line);
  if (!v.ok()) return Status::Invalid("bad anchor line: " + v.status().message());
  if (!v->is_object() || v->as_object().size() != 4)
    return Status::Invalid("bad anchor line: expected an object of ledger, epoch, seq, hash");
  const json::Value* ledger = v->find("ledger");
  const json::Value* epoch = v->find("epoch");
  const json::Value* seq = v->find("seq");
  const json::Value* hash = v->find("hash");
  if (!ledger || !ledger->is_string() || !ValidId(ledger->as_string()) || !epoch ||
      !epoch->is_int() || epoch->as_int() < 1 || !seq || !seq->is_int() || seq->as_int() < 1 ||
      !hash || !hash->is_string() || !IsHexHash(hash->as_string()))
    return Status::Invalid(
        "bad anchor line: expected ledger (a name), epoch and seq (integers "
        ">= 1), hash (64 hex digits)");
  AnchorLine a{ledger->as_string(), epoch->as_int(), seq->as_int(), hash->as_string(), 0};
  std::string canonical = AnchorLineText(a.ledger, a.epoch, a.seq, a.hash);
  canonical.pop_back();
  if (canonical != line) return Status::Invalid("bad anchor line: not in canonical form");
  return a;
}

}  // namespace

Result<AnchorLine> ParseAnchorLine(std::string_view line) {
  AnchorLineView v;
  if (ScanAnchorLine(line, &v))
    return AnchorLine{std::string(v.ledger), v.epoch, v.seq, std::string(v.hash), 0};
  return ParseAnchorLineReference(line);
}

Result<Anchor> Anchor::Bind(Env* env, std::string path, std::string name) {
  if (!ValidId(name))
    return Status::Invalid("cannot bind anchor " + path + ": \"" + name +
                           "\" is not a valid ledger name");
  if (BaseName(path) != name + ".anchor")
    return Status::Invalid("cannot bind anchor " + path + " to ledger " + name +
                           ": a ledger writes only its own anchor, " + name + ".anchor");
  return Anchor(env, std::move(path), std::move(name));
}

Status Anchor::Append(int64_t epoch, int64_t seq, std::string_view hash) {
  if (!IsHexHash(hash) || epoch < 1 || seq < 1)
    return Status::Invalid("cannot append to anchor " + path_ + ": bad epoch, seq or hash");
  return AppendLines(AnchorLineText(name_, epoch, seq, hash));
}

Status Anchor::AppendBatch(const std::vector<AnchorMark>& marks) {
  std::string text;
  text.reserve(marks.size() * (name_.size() + 110));
  for (size_t i = 0; i < marks.size(); i++) {
    const AnchorMark& m = marks[i];
    if (!IsHexHash(m.hash) || m.epoch < 1 || m.seq < 1)
      return Status::Invalid("cannot append to anchor " + path_ +
                             ": bad epoch, seq or hash in mark " + std::to_string(i + 1) + " of " +
                             std::to_string(marks.size()) + "; nothing written");
    text += AnchorLineText(name_, m.epoch, m.seq, m.hash);
  }
  if (text.empty()) return Status::Ok();
  return AppendLines(std::move(text));
}

Status Anchor::AppendLines(std::string text) {
  Result<uint64_t> size = env_->FileSize(path_);
  if (size.ok() && *size > 0) {
    Result<std::string> last = env_->ReadAt(path_, *size - 1, 1);
    if (!last.ok()) return last.status();
    if (*last != "\n") text = "\n" + text;  // not insert(): g++ 12 -Wrestrict false positive
  } else if (!size.ok() && size.status().code() != Code::kNotFound) {
    return size.status();
  }
  return env_->AppendDurable(path_, text);
}

Result<AnchorLines> Anchor::ReadAll() const {
  AnchorLines out;
  Status s = Scan([&](const AnchorLineView* a, int64_t line_no) {
    if (a == nullptr) {
      out.unreadable++;
    } else if (a->ledger != name_) {
      out.other++;
    } else {
      out.own.push_back(
          AnchorLine{std::string(a->ledger), a->epoch, a->seq, std::string(a->hash), line_no});
    }
  });
  if (!s.ok()) return s;
  return out;
}

Status Anchor::Scan(const std::function<void(const AnchorLineView*, int64_t)>& fn) const {
  Result<uint64_t> size = env_->FileSize(path_);
  if (!size.ok()) return size.status();
  // A last line without its newline is read like the others: torn, it is unreadable.
  return ForEachLineBlock(env_, path_, kScanBlock,
                          [&](std::string_view text, int64_t line_no, bool complete) {
                            for (size_t begin = 0; begin < text.size(); line_no++) {
                              size_t nl = complete ? text.find('\n', begin) : text.size();
                              std::string_view line = text.substr(begin, nl - begin);
                              begin = nl + 1;
                              AnchorLineView v;
                              if (ScanAnchorLine(line, &v)) {
                                fn(&v, line_no);
                                continue;
                              }
                              // Not the fast form: the reference reader has the last word (it
                              // refuses it too).
                              Result<AnchorLine> a = ParseAnchorLineReference(line);
                              if (!a.ok()) {
                                fn(nullptr, line_no);
                                continue;
                              }
                              v = AnchorLineView{a->ledger, a->epoch, a->seq, a->hash};
                              fn(&v, line_no);
                            }
                            return Status::Ok();
                          });
}

Result<std::optional<AnchorLine>> Anchor::LastOwnLine() const {
  Result<uint64_t> size = env_->FileSize(path_);
  if (!size.ok()) return size.status();
  uint64_t end = *size;  // lines [.., end) still to look at
  std::string carry;     // the start of the file's text after `end`, up to the first '\n'
  while (end > 0) {
    uint64_t from = end > kWindow ? end - kWindow : 0;
    Result<std::string> chunk = env_->ReadAt(path_, from, size_t(end - from));
    if (!chunk.ok()) return chunk.status();
    std::string text = *chunk + carry;
    // Lines wholly inside text, last first; the first piece may be cut by the window.
    size_t stop = text.size();
    for (;;) {
      size_t nl = stop == 0 ? std::string::npos : text.rfind('\n', stop - 1);
      if (nl == std::string::npos) break;
      std::string_view line(text.data() + nl + 1, stop - nl - 1);
      if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
      Result<AnchorLine> a = ParseAnchorLine(line);
      if (a.ok() && a->ledger == name_) return std::optional<AnchorLine>(std::move(a).value());
      stop = nl;
    }
    carry = text.substr(0, stop);
    end = from;
  }
  if (!carry.empty()) {
    Result<AnchorLine> a = ParseAnchorLine(carry);
    if (a.ok() && a->ledger == name_) return std::optional<AnchorLine>(std::move(a).value());
  }
  return std::optional<AnchorLine>();
}

}  // namespace hangar::ledger
