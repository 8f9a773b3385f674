#include "daemon/drop_queue.h"

#include "daemon/run_watches.h"

namespace hangar {

void DropQueue::Event(bool control, const std::string& name, bool created) {
  if (created) {
    // A regular file created in place is taken when it is closed; one linked into place (link(2),
    // the other maildir way) and anything that is no regular file at once. A link whose first
    // name was unlinked before this look has one link too, and no close will come: TakeSettled
    // takes whatever of these is left alone long enough.
    Result<Env::FileInfo> f = env_->Lstat(DirOf(control) + "/" + name);
    if (f.ok() && f->regular && f->links < 2) {
      created_open_.insert({control, name});
      return;
    }
  }
  created_open_.erase({control, name});
  (control ? controls_ : drops_).push_back(name);
}

void DropQueue::Add(bool control, const std::vector<std::string>& names) {
  std::deque<std::string>& q = control ? controls_ : drops_;
  q.insert(q.end(), names.begin(), names.end());
}

void DropQueue::TakeSettled(TimeMs now) {
  for (auto it = created_open_.begin(); it != created_open_.end();) {
    const auto& [control, name] = *it;
    Result<Env::FileInfo> f = env_->Lstat(DirOf(control) + "/" + name);
    if (f.ok() && !LeftAlone(f->modified, now)) {
      ++it;  // still being written, perhaps: its close will say so
      continue;
    }
    if (f.ok()) (control ? controls_ : drops_).push_back(name);
    it = created_open_.erase(it);
  }
}

std::optional<std::string> DropQueue::Pop(std::deque<std::string>* q) {
  if (q->empty()) return std::nullopt;
  std::string n = std::move(q->front());
  q->pop_front();
  return n;
}

}  // namespace hangar
