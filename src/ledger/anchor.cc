#include "ledger/anchor.h"

#include "base/json.h"
#include "kernel/mission.h"
#include "ledger/entry.h"
#include "ledger/lines.h"

namespace hangar::ledger {

namespace {

constexpr size_t kWindow = size_t(64) << 10;

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string AnchorLineText(std::string_view ledger, int64_t epoch, int64_t seq,
                           std::string_view hash) {
  json::Object o{{"ledger", ledger}, {"epoch", epoch}, {"seq", seq}, {"hash", hash}};
  return json::Write(json::Value(std::move(o))) + "\n";
}

Result<AnchorLine> ParseAnchorLine(std::string_view line) {
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
  std::string text = AnchorLineText(name_, epoch, seq, hash);
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
  Result<uint64_t> size = env_->FileSize(path_);
  if (!size.ok()) return size.status();
  AnchorLines out;
  // A last line without its newline is read like the others: torn, it counts as unreadable.
  Status s = ForEachLine(env_, path_, [&](std::string_view line, int64_t line_no, bool) {
    Result<AnchorLine> a = ParseAnchorLine(line);
    if (!a.ok()) {
      out.unreadable++;
    } else if (a->ledger != name_) {
      out.other++;
    } else {
      a->line_no = line_no;
      out.own.push_back(std::move(a).value());
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
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
