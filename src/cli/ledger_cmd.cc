// hangar ledger verify / ledger show / grants: reading the ledger. Readers open it for reading
// only (nothing is created, cut or recorded) and may run while hangard appends.
#include <unistd.h>

#include "base/plural.h"
#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/ledger_place.h"
#include "cli/output.h"
#include "cli/spool_view.h"
#include "kernel/config.h"
#include "kernel/grants.h"
#include "ledger/checkpoint.h"
#include "ledger/verify.h"

namespace hangar::cli {

namespace {

// Signed by our key, and the ledger on disk still holds the head it saw: Ok, or why not.
Status CheckCheckpoint(const Context& ctx, const LedgerPlace& place,
                       const ledger::LedgerStore& store, const std::string& file) {
  Result<ledger::Checkpoint> c = ledger::ReadCheckpoint(ctx.env, file);
  if (!c.ok()) return c.status();
  Result<ledger::PublicKey> pub =
      ledger::PublicKey::Load(ctx.env, ledger::PublicKeyPath(place.key_file));
  if (!pub.ok()) return pub.status();
  if (Status s = ledger::VerifySignature(*c, *pub); !s.ok())
    return Status::Invalid("checkpoint " + file + ": " + s.message());
  return ledger::CheckExtends(store, *c);
}

json::Value EntryJson(const ledger::Entry& e) {
  return json::Object{{"seq", e.seq},   {"epoch", e.epoch}, {"time", e.time}, {"kind", e.kind},
                      {"body", e.body}, {"prev", e.prev},   {"hash", e.hash}};
}

}  // namespace

int RunLedgerVerify(const Context& ctx, const std::string& anchor_dir,
                    const std::string& checkpoint_given) {
  const std::string what = "verify the ledger";
  LedgerPlace place = FindLedger(ctx, anchor_dir);
  if (place.anchor_file.empty())
    return FailTo(ctx.err, kExitConfig, what,
                  "no anchor known: give --anchor DIR (hangard.json and the config name none)");
  // Without --checkpoint, the newest one hangard signed, beside the anchor, when there is one:
  // the ledger must extend it, as hangard holds it at start.
  std::string checkpoint = checkpoint_given;
  if (checkpoint.empty()) {
    const std::string beside = place.CheckpointFile();
    if (ctx.env->Exists(beside)) checkpoint = beside;
  }
  ledger::LedgerStore store(ctx.env, ctx.layout.spool, place.name);
  if (Status s = store.OpenForReading(); !s.ok())
    return FailTo(ctx.err, kExitData, what, s.message());
  Result<ledger::Anchor> anchor = ledger::Anchor::Bind(ctx.env, place.anchor_file, place.name);
  if (!anchor.ok()) return FailTo(ctx.err, kExitUsage, what, anchor.status().message());
  Result<ledger::VerifyReport> r = ledger::Verify(store, *anchor);
  if (!r.ok()) return FailTo(ctx.err, ExitForRead(r.status()), what, r.status().message());
  // The checkpoint proof counts only on a ledger that verifies: Verify links the chain from the
  // checkpoint's seq to the head, CheckExtends shows the checkpoint's head is still in it. On one
  // that does not, a checkpoint it no longer extends still says why (a rollback, a restore).
  Status cp = Status::Ok();
  if (!checkpoint.empty()) {
    cp = CheckCheckpoint(ctx, place, store, checkpoint);
    if (!cp.ok() && cp.code() != Code::kInvalid)
      return FailTo(ctx.err, ExitForRead(cp), what, cp.message());
  }
  if (ctx.json) {
    json::Object o{{"ledger", place.name},
                   {"anchor", place.anchor_file},
                   {"ok", r->ok},
                   {"failure", ledger::FailureName(r->failure)},
                   {"reason", r->reason},
                   {"seq", r->seq},
                   {"epoch", r->epoch},
                   {"first_seq", r->first_seq},
                   {"head_seq", r->head_seq},
                   {"checked", r->checked},
                   {"anchor_lines", r->anchor_own},
                   {"anchor_lines_ignored", r->anchor_ignored},
                   {"torn_tail", store.torn_tail()}};
    if (r->failure == ledger::Failure::kAnchorBehind)
      o["missing"] = json::Object{{"from", r->missing_from}, {"to", r->missing_to}};
    if (!checkpoint.empty())
      o["checkpoint"] =
          json::Object{{"file", checkpoint},
                       {"ok", r->ok && cp.ok()},
                       {"reason", !cp.ok() ? cp.message()
                                  : r->ok  ? std::string()
                                           : std::string("the ledger does not verify")}};
    PrintJson(ctx.out, o);
  } else if (r->ok && r->head_seq == 0) {
    ctx.out << "ledger " << Printable(place.name) << ": ok, empty (anchor "
            << Printable(place.anchor_file) << ")\n";
  } else if (r->ok) {
    ctx.out << "ledger " << Printable(place.name) << ": ok, epoch " << r->epoch << ", seqs "
            << r->first_seq << ".." << r->head_seq << " ("
            << Plural(int64_t(r->checked), "entry", "entries") << " hashed), anchor "
            << Printable(place.anchor_file) << " (" << r->anchor_own << " lines vouch, "
            << r->anchor_ignored << " of other ledgers or unreadable ignored)\n";
  }
  if (!r->ok) {
    if (!ctx.json)
      return FailTo(ctx.err, kExitData, what,
                    std::string(ledger::FailureName(r->failure)) + " at seq " +
                        std::to_string(r->seq) + ": " + r->reason +
                        (cp.ok() ? "" : "; and " + cp.message()));
    return kExitData;
  }
  if (!cp.ok()) {
    if (!ctx.json) return FailTo(ctx.err, kExitData, what, cp.message());
    return kExitData;
  }
  if (!checkpoint.empty() && !ctx.json)
    ctx.out << "checkpoint " << Printable(checkpoint) << ": signed by " << Printable(place.key_file)
            << ".pub, and the ledger extends it\n";
  return kExitOk;
}

int RunLedgerShow(const Context& ctx, int64_t from, const std::string& kind) {
  const std::string what = "show the ledger";
  LedgerPlace place = FindLedger(ctx, "");
  ledger::LedgerStore store(ctx.env, ctx.layout.spool, place.name);
  if (Status s = store.OpenForReading(); !s.ok())
    return FailTo(ctx.err, kExitData, what, s.message());
  json::Array all;
  std::vector<Row> rows{{"SEQ", "EPOCH", "TIME", "KIND", "BODY"}};
  Status s = store.ForEach(std::max<int64_t>(from, 1), [&](const ledger::Entry& e) {
    if (!kind.empty() && e.kind != kind) return Status::Ok();
    if (ctx.json)
      all.push_back(EntryJson(e));
    else
      rows.push_back(
          {std::to_string(e.seq), std::to_string(e.epoch), e.time, e.kind, json::Write(e.body)});
    return Status::Ok();
  });
  if (!s.ok()) return FailTo(ctx.err, ExitForRead(s), what, s.message());
  if (ctx.json)
    PrintJson(ctx.out, json::Object{{"ledger", place.name}, {"entries", std::move(all)}});
  else
    ctx.out << FormatTable(rows);
  return kExitOk;
}

int RunGrants(const Context& ctx, bool all) {
  const std::string what = "fold the grants";
  LedgerPlace place = FindLedger(ctx, "");
  ledger::LedgerStore store(ctx.env, ctx.layout.spool, place.name);
  if (Status s = store.OpenForReading(); !s.ok())
    return FailTo(ctx.err, kExitData, what, s.message());
  GrantBook book;
  json::Array history;
  std::vector<Row> rows{{"SEQ", "KIND", "OP", "SUBJECT", "UNTIL", "BY"}};
  auto subject = [](const json::Value& b) {
    std::string m = StringField(b, "mission");
    return m.empty() ? "requester " + StringField(b, "requester") : "mission " + m;
  };
  Status s = store.ForEach(1, [&](const ledger::Entry& e) {
    Status a = book.Apply(GrantRecord{e.seq, e.kind, e.body});
    if (!a.ok() || !all || (e.kind != "grant" && e.kind != "revoke")) return a;
    history.push_back(EntryJson(e));
    rows.push_back({std::to_string(e.seq), e.kind, StringField(e.body, "op"), subject(e.body),
                    StringField(e.body, "until"), StringField(e.body, "by")});
    return Status::Ok();
  });
  if (!s.ok()) return FailTo(ctx.err, ExitForRead(s), what, s.message());
  if (all) {
    if (ctx.json)
      PrintJson(ctx.out, json::Object{{"entries", std::move(history)}});
    else
      ctx.out << FormatTable(rows);
    return kExitOk;
  }
  json::Array active;
  rows = {{"SEQ", "OP", "SUBJECT", "UNTIL", "BY"}};
  for (const Grant& g : book.Active(ctx.env->Now())) {
    const std::string until = g.until ? FormatTime(*g.until) : "";
    json::Object o;
    o["seq"] = g.seq;
    o["op"] = g.op;
    o["by"] = g.by;
    o["until"] = g.until ? json::Value(until) : json::Value(nullptr);
    if (!g.mission.empty()) o["mission"] = g.mission;
    if (!g.requester.empty()) o["requester"] = g.requester;
    active.emplace_back(std::move(o));
    rows.push_back({std::to_string(g.seq), g.op,
                    g.mission.empty() ? "requester " + g.requester : "mission " + g.mission,
                    g.until ? until : "(until revoked)", g.by});
  }
  if (ctx.json)
    PrintJson(ctx.out, json::Object{{"grants", std::move(active)}});
  else
    ctx.out << FormatTable(rows);
  return kExitOk;
}

}  // namespace hangar::cli
