// Drop: how anyone but the kernel hands the kernel a file (maildir style, docs/ARCHITECTURE.md):
// written complete and synced as TMP_DIR/NAME, then renamed to NEW_DIR/NAME. The kernel never sees
// a partial file; on failure nothing is left in NEW_DIR and the temporary file is removed.
#pragma once

#include <string>
#include <string_view>

#include "base/json.h"
#include "base/status.h"
#include "cli/context.h"
#include "env/env.h"

namespace hangar::cli {

Status Drop(Env* env, const std::string& tmp_dir, const std::string& new_dir,
            const std::string& name, std::string_view data);

// Who asks, as control requests record it ("by"): $USER, else the numeric uid. A claim, not a
// proof: the kernel records it as given.
std::string Asker();

// A control request (man/hangar-spool.5): REQUEST with hangar, by and time added, checked by the
// kernel's parser (64 and the field's reason when it refuses it), dropped as control/new/NAME
// (NAME from the request kind, SUBJECT when it is an id, the time and pid), then AwaitAnswer.
int DropControlRequest(const Context& ctx, json::Object request, const std::string& what,
                       const std::string& subject, const std::string& said);

// Says what was dropped: `line` for people, {"id":ID,"file":FILE} (FILE relative to the spool)
// with --json.
void PrintDropped(const Context& ctx, const std::string& id, const std::string& file,
                  const std::string& line);

}  // namespace hangar::cli
