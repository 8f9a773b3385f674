// DropQueue: the names in incoming/new (drops) and control/new (control requests) that hangard has
// seen and not yet taken, so a burst is taken a batch per turn of the loop and drones' ends and
// finished observations are handled in between (they free slots).
//
// What it promises: a file linked or renamed into place is queued at once; a regular file created
// in place (one link) waits for its close (the watch says it), or, when no close comes (a link
// whose first name went before hangard looked), for kOpSettleMs unchanged (TakeSettled); a file
// gone meanwhile is forgotten. Control requests come before drops: a cancel does not wait behind
// a burst of new missions. The drops that waited when hangard started are remembered as such
// until taken (Dropped::found_at_start).
//
// Thread: the daemon's loop only.
#pragma once

#include <deque>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "env/env.h"
#include "kernel/layout.h"

namespace hangar {

class DropQueue {
 public:
  DropQueue(Env* env, Layout layout) : env_(env), layout_(std::move(layout)) {}

  // The watch saw NAME in control/new (control) or incoming/new; created: an IN_CREATE.
  void Event(bool control, const std::string& name, bool created);
  // NAMES found by a scan of the directory.
  void Add(bool control, const std::vector<std::string>& names);
  // Queues each file created in place and left alone (LeftAlone); forgets those gone.
  void TakeSettled(TimeMs now);

  std::optional<std::string> NextControl() { return Pop(&controls_); }
  std::optional<std::string> NextDrop() { return Pop(&drops_); }
  bool Backlog() const { return !drops_.empty() || !controls_.empty(); }
  bool Controls() const { return !controls_.empty(); }  // a control request waits
  void ClearDrops() { drops_.clear(); }
  void Clear() {
    drops_.clear();
    controls_.clear();
  }

  // The drops queued now waited in incoming/new when hangard started.
  void MarkFoundAtStart() { start_.insert(drops_.begin(), drops_.end()); }
  // Whether drop NAME waited at start (once: taking it forgets that).
  bool TakeFoundAtStart(const std::string& name) { return start_.erase(name) > 0; }

 private:
  static std::optional<std::string> Pop(std::deque<std::string>* q);
  std::string DirOf(bool control) const {
    return control ? layout_.ControlNew() : layout_.IncomingNew();
  }

  Env* env_;
  Layout layout_;
  std::deque<std::string> drops_, controls_;
  // Files (control?, name) created in place and not closed yet.
  std::set<std::pair<bool, std::string>> created_open_;
  std::set<std::string> start_;  // drops that waited in incoming/new at start, not taken yet
};

}  // namespace hangar
