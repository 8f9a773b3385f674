#include "launch/checkout.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

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
  if (fstatat(room->get(), ".git", &st, AT_SYMLINK_NOFOLLOW) == 0) {
    // A retried mission's room (man/hangar-spool.5, RETRY): an earlier attempt made it a checkout
    // and its drone worked there. It stays as that drone left it, as every retried room does. No
    // git ever runs in it: its config, attributes and hooks are the drone's (a smudge filter
    // would run here, outside the sandbox).
    std::string why;
    if (!RoomHead(room->get(), &why).empty()) return Status::Ok();
    return fail(
        "the room holds a .git whose HEAD names no commit (" + why + ")",
        "not a checkout an earlier attempt made; remove " + git_dir + " for a fresh checkout");
  }
  GitCall call;
  call.uid = plan.uid;
  call.gid = plan.gid;
  call.cwd = plan.room;
  call.timeout = std::chrono::minutes(10);
  call.args = {"init", "--quiet", "--template=", plan.room};
  if (GitRun r = RunGit(call); !r.ok) return fail("git init", r.error);
  // The one file of the room's repository hangar writes itself: as the drone's user, like the rest.
  Result<UniqueFd> info = OpenDirBeneath(room->get(), ".git/objects/info", plan.room);
  if (!info.ok()) return fail("open .git/objects/info", info.status().message());
  UniqueFd fd(openat(info->get(), "alternates",
                     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (fd.get() < 0 ||
      write(fd.get(), alternates.data(), alternates.size()) != ssize_t(alternates.size()))
    return fail("write .git/objects/info/alternates", strerror(errno));
  if (plan.uid >= 0 && fchown(fd.get(), uid_t(plan.uid), gid_t(plan.gid)) != 0)
    return fail("give .git/objects/info/alternates to the drone's user", strerror(errno));
  call.git_dir = git_dir;
  call.work_tree = plan.room;
  for (const auto& [k, v] : {std::pair{"user.name", "hangar drone " + plan.id},
                             std::pair{"user.email", plan.id + "@drone.hangar.invalid"}}) {
    call.args = {"config", k, v};
    if (GitRun r = RunGit(call); !r.ok) return fail("git config " + std::string(k), r.error);
  }
  // git would replace hangar's empty ops/ by a file of the commit, or fill it, without a word.
  call.args = {"ls-tree", "-z", "--name-only", w.commit};
  GitRun top = RunGit(call);
  if (!top.ok) return fail("git ls-tree", top.error);
  std::set<std::string> names;
  for (size_t at = 0, end; at < top.out.size(); at = end + 1) {
    end = std::min(top.out.find('\0', at), top.out.size());
    names.insert(top.out.substr(at, end - at));
  }
  for (const std::string& own :
       RoomOwn(plan.room, plan.prompt_in_room, plan.room_dirs, plan.last_message)) {
    const std::string first = own.substr(0, own.find('/'));
    if (names.count(first))
      return fail(
          "the commit holds " + first,
          "hangar puts its own " + first + " in the room (man hangar-mission.5, WORKSPACE)");
  }
  call.args = {"checkout", "--quiet", "--detach", w.commit};
  if (GitRun r = RunGit(call); !r.ok) return fail("git checkout", r.error);
  return Status::Ok();
}

}  // namespace hangar
