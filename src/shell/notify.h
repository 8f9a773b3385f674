// Maildir delivery: how a return reaches a requester's inbox (a mission's notify.dir), appearing
// in DIR/new complete or not at all, so a reader that watches DIR/new never sees half a file.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "env/env.h"

namespace hangar {

// Delivers DATA as DIR/new/NAME maildir-style through ENV's WriteMaildir: DIR/tmp/NAME is written
// and fsynced, renamed into DIR/new (replacing an older NAME there atomically), and DIR/new is
// fsynced. DIR is the requester's, not hangar's, and hangard may run as root: no symbolic link is
// followed anywhere on the way (DIR walked from "/"), and no directory is created: DIR, DIR/tmp and
// DIR/new must all be there (the requester makes them).
// Errors: Invalid when NAME is not a plain file name; else WriteMaildir's (NotFound when DIR,
// DIR/tmp or DIR/new is missing, Invalid for a symbolic link on the way, ...). After an error
// nothing is in DIR/new that was not there before; a copy may remain in DIR/tmp (maildir readers
// ignore tmp/), and a retry with the same NAME replaces it. Safe from several threads for
// different NAMEs.
// OWNER: the uid that dropped the mission (-1: unknown, as for a mission taken in before hangar
// recorded it): DIR and its tmp/ and new/ must be that uid's (Env::WriteMaildir), so a requester
// can have its returns delivered only into a maildir of its own.
Status DeliverMaildir(Env* env, const std::string& dir, const std::string& name,
                      std::string_view data, int64_t owner = -1);

}  // namespace hangar
