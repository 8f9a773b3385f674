#include "launch/checkout.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "env/nofollow.h"
#include "shell/git.h"
#include "shell/room_git.h"

namespace hangar {

Status MakeCheckout(const Plan& plan) {
  if (!plan.workspace) return Status::Ok();
  const PlanWorkspace& w = *plan.workspace;
  if (!ObjectId(w.commit) || w.objects.empty() || w.objects[0] != '/')
    return Status::Invalid("the plan's workspace names no commit and object directory");
  const std::string git_dir = plan.room + "/.git";
  auto fail = [&](const std::string& what, const std::string& why) {
    return Status::Invalid("cannot make the checkout of " + w.git + " at " + w.commit + " in " +
                           plan.room + ": " + what + ": " + why);
  };
  Result<UniqueFd> room = OpenRoom(plan.room);
  if (!room.ok()) return room.status();
  const std::string alternates = w.objects + "\n";
  struct stat st {};
  const bool made = fstatat(room->get(), ".git", &st, AT_SYMLINK_NOFOLLOW) == 0;
  if (made) {
    // A retried mission's room (man/hangar-spool.5, RETRY): an earlier attempt made it a checkout
    // and its drone worked there. It stays as that drone left it, as every retried room does, and
    // no git runs in it; the change is still computed against the base.
    std::string why;
    if (!RoomHead(room->get(), &why).empty()) return Status::Ok();
    // Else a launch cut short between its git init and its checkout (no drone ran): finished
    // here, when what it left is the start of this very checkout.
    if (!S_ISDIR(st.st_mode) ||
        ReadBeneath(room->get(), ".git/objects/info/alternates", 65536) != alternates)
      return fail("the room holds a .git",
                  "not a checkout an earlier attempt made of this commit (" + why + "); remove " +
                      git_dir + " for a fresh checkout");
  }
  GitCall call;
  call.uid = plan.uid;
  call.gid = plan.gid;
  call.cwd = plan.room;
  call.timeout = std::chrono::minutes(10);
  if (!made) {
    call.args = {"init", "--quiet", "--template=", plan.room};
    if (GitRun r = RunGit(call); !r.ok) return fail("git init", r.error);
    // The one file of the room's repository hangar writes itself: as the drone's user, like the
    // rest.
    Result<UniqueFd> info = OpenDirBeneath(room->get(), ".git/objects/info", plan.room);
    if (!info.ok()) return fail("open .git/objects/info", info.status().message());
    UniqueFd fd(openat(info->get(), "alternates",
                       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (fd.get() < 0 ||
        write(fd.get(), alternates.data(), alternates.size()) != ssize_t(alternates.size()))
      return fail("write .git/objects/info/alternates", strerror(errno));
    if (plan.uid >= 0 && fchown(fd.get(), uid_t(plan.uid), gid_t(plan.gid)) != 0)
      return fail("give .git/objects/info/alternates to the drone's user", strerror(errno));
  }
  call.git_dir = git_dir;
  call.work_tree = plan.room;
  for (const auto& [k, v] : {std::pair{"user.name", "hangar drone " + plan.id},
                             std::pair{"user.email", plan.id + "@drone.hangar.invalid"}}) {
    call.args = {"config", k, v};
    if (GitRun r = RunGit(call); !r.ok) return fail("git config " + std::string(k), r.error);
  }
  call.args = {"checkout", "--quiet", "--detach", w.commit};
  if (GitRun r = RunGit(call); !r.ok) return fail("git checkout", r.error);
  return Status::Ok();
}

}  // namespace hangar
