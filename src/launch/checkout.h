// A workspace mission's room made a checkout (man/hangar-mission.5, WORKSPACE), by the launch,
// before the drone starts: `git init` in the room, its .git/objects/info/alternates naming the
// source's object directory, then `git checkout --detach COMMIT`. Not `git worktree add` (that
// registers the checkout in the source's .git, which the drone could then write through) nor
// `git clone` (that reads the source's refs and config): the source is only read, and only its
// objects; the room's repository is the drone's own, sharing nothing writable with the source.
// Every git runs hardened (shell/git.h) as the drone's user, so the checkout reads no more of the
// source than the drone could.
#pragma once

#include "base/status.h"
#include "kernel/plan.h"

namespace hangar {

// Makes PLAN's room a checkout of plan.workspace (nothing for a plan without one). The room
// exists and is the drone's (HandOverRoom); files hangar put there (MISSION.md, ops/) stay, and a
// commit that holds one of them fails the checkout, naming it. A retry's room, already a checkout
// whose HEAD names a commit, is left as the earlier drone left it, and no git runs in it; any other
// .git in the room (a checkout cut short, or one a drone emptied) fails, naming it.
Status MakeCheckout(const Plan& plan);

}  // namespace hangar
