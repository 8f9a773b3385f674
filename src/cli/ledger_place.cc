#include "cli/ledger_place.h"

#include "cli/output.h"
#include "cli/spool_view.h"
#include "kernel/config.h"
#include "ledger/checkpoint.h"

namespace hangar::cli {

std::string LedgerPlace::AnchorDir() const {
  const size_t slash = anchor_file.rfind('/');
  return slash == std::string::npos ? "." : anchor_file.substr(0, slash + 1);
}

std::string LedgerPlace::CheckpointFile() const {
  if (anchor_file.empty()) return "";
  const size_t slash = anchor_file.rfind('/');
  return anchor_file.substr(0, slash == std::string::npos ? 0 : slash + 1) +
         ledger::CheckpointFileName(name);
}

LedgerPlace FindLedger(const Context& ctx, const std::string& anchor_dir) {
  LedgerPlace p;
  SpoolView view(ctx.env, ctx.layout);
  std::string config_anchor;
  if (Result<std::string> text = ctx.env->ReadFile(ctx.config_path, 1 << 20); text.ok())
    if (Result<Config> c = ParseConfig(*text, ctx.config_path); c.ok()) {
      p.name = c->ledger_name;
      config_anchor = c->anchor;
      p.key_file = c->checkpoint_key;
    }
  std::string presence_anchor;
  if (auto st = view.ReadJson(ctx.layout.StatusFile()); st.ok() && st->is_object())
    if (const json::Value* l = st->find("ledger"); l && l->is_object()) {
      if (std::string n = StringField(*l, "name"); !n.empty()) p.name = n;
      presence_anchor = StringField(*l, "anchor");
    }
  if (!anchor_dir.empty())
    p.anchor_file = anchor_dir + "/" + p.name + ".anchor";
  else if (!presence_anchor.empty())
    p.anchor_file = presence_anchor;
  else if (!config_anchor.empty())
    p.anchor_file = config_anchor + "/" + p.name + ".anchor";
  if (p.key_file.empty() && !p.anchor_file.empty())
    p.key_file = p.anchor_file.substr(0, p.anchor_file.rfind('/') + 1) + p.name + ".key";
  return p;
}

}  // namespace hangar::cli
