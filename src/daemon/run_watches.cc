#include "daemon/run_watches.h"

#include <sys/inotify.h>

#include <cerrno>
#include <cstring>

#include "kernel/window.h"
#include "shell/op_files.h"

namespace hangar {

RunWatches::RunWatches(Env* env, Layout layout, int inotify_fd, SayFn say)
    : env_(env), layout_(std::move(layout)), inotify_fd_(inotify_fd), say_(std::move(say)) {}

void RunWatches::Watch(const std::string& id, TimeMs now) {
  // exit.json renamed into place, and the supervisor's lock closed (only it opens it for writing).
  const std::string run = layout_.RunDir(id);
  int wd = inotify_add_watch(inotify_fd_, run.c_str(), IN_MOVED_TO | IN_CLOSE_WRITE);
  if (wd < 0) {
    say_(id + ": cannot watch " + run + ": " + std::strerror(errno) + " (the tick will look)");
    run_wd_[id] = -1;
    return;
  }
  run_watch_[wd] = id;
  run_wd_[id] = wd;
  WatchOps(id, now);
}

void RunWatches::WatchOps(const std::string& id, TimeMs now) {
  if (ops_wd_.count(id)) return;
  // A request is taken once it is complete: renamed into place, or closed after writing.
  int wd = inotify_add_watch(inotify_fd_, layout_.RoomOps(id).c_str(),
                             IN_MOVED_TO | IN_CLOSE_WRITE | IN_ONLYDIR | IN_DONT_FOLLOW);
  ops_wd_[id] = wd;
  if (wd >= 0) ops_watch_[wd] = id;
  ScanOps(id, now);
}

void RunWatches::Unwatch(const std::string& id) {
  auto it = run_wd_.find(id);
  if (it == run_wd_.end()) return;
  if (it->second >= 0) {
    inotify_rm_watch(inotify_fd_, it->second);
    run_watch_.erase(it->second);
  }
  run_wd_.erase(it);
  exit_recheck_.erase(id);
  if (auto o = ops_wd_.find(id); o != ops_wd_.end()) {
    if (o->second >= 0) {
      inotify_rm_watch(inotify_fd_, o->second);
      ops_watch_.erase(o->second);
    }
    ops_wd_.erase(o);
  }
  std::erase_if(ops_taken_, [&](const auto& p) { return p.first == id; });
}

std::vector<std::string> RunWatches::Ids() const {
  std::vector<std::string> ids;
  for (const auto& [id, wd] : run_wd_) ids.push_back(id);
  return ids;
}

std::optional<std::string> RunWatches::Event(int wd, const std::string& name) {
  if (auto it = run_watch_.find(wd); it != run_watch_.end()) {
    if (name == "exit.json" || name == "lock") return it->second;
  } else if (auto o = ops_watch_.find(wd); o != ops_watch_.end()) {
    if (std::string req = OpRequestName(name); !req.empty())
      pending_ops_.emplace_back(o->second, std::move(req));
  }
  return std::nullopt;
}

void RunWatches::ScanOps(const std::string& id, TimeMs now) {
  const std::string ops = layout_.RoomOps(id) + "/";
  for (std::string& name : ListOpRequests(layout_.Room(id))) {
    if (ops_taken_.count({id, name})) continue;
    // A file written in place may still be open: a scan takes it once it has been left alone
    // for a moment (closing or renaming it wakes the watch at once).
    Result<Env::FileInfo> f = env_->Lstat(ops + name + ".json");
    if (f.ok() && !LeftAlone(f->modified, now)) continue;
    pending_ops_.emplace_back(id, std::move(name));
  }
}

std::optional<std::pair<std::string, std::string>> RunWatches::NextOp() {
  while (!pending_ops_.empty()) {
    std::pair<std::string, std::string> op = std::move(pending_ops_.front());
    pending_ops_.pop_front();
    if (!run_wd_.count(op.first) || !ops_taken_.insert(op).second) continue;
    if (env_->Exists(layout_.MissionOps(op.first) + "/" + op.second + ".result.json"))
      continue;  // answered before
    return op;
  }
  return std::nullopt;
}

void RunWatches::RecheckLater(const std::string& id) {
  if (!exit_recheck_.count(id)) exit_recheck_[id] = kExitRechecks;
}

std::vector<std::string> RunWatches::DueRechecks() {
  std::vector<std::string> ids;
  for (auto& [id, left] : exit_recheck_)
    if (--left >= 0) ids.push_back(id);
  std::erase_if(exit_recheck_, [](const auto& kv) { return kv.second < 0; });
  return ids;
}

}  // namespace hangar
