// The notify outbox: returns on their way to a mission's notify.dir. One record per waiting return,
// notify/<id>.json {"hangar":1,"id","dir","reason","time"}, written before the mission moves to
// returned/ (so a crash between the move and the delivery still delivers), removed once delivered;
// the return itself is read from returned/<id>/return.json. See hangar-return(5).
#pragma once

#include <functional>
#include <string>

#include "base/status.h"
#include "env/env.h"
#include "kernel/layout.h"

namespace hangar {

class NotifyOutbox {
 public:
  // say receives one line per delivery or failure, for the log. checkpoint gives the ledger's
  // latest signed checkpoint (one line; empty when there is none yet): delivered as ID.checkpoint
  // just before each return, so every requester holds a witness of the ledger.
  NotifyOutbox(Env* env, Layout layout, std::function<void(const std::string&)> say,
               std::function<std::string()> checkpoint = {})
      : env_(env),
        layout_(std::move(layout)),
        say_(std::move(say)),
        checkpoint_(std::move(checkpoint)) {}

  // The record that says a return waits for DIR (reason "pending delivery" before the first try).
  Status Record(const std::string& id, const std::string& dir, const std::string& reason);
  // Delivers TEXT to DIR maildir-style; removes the record on success, keeps the reason on failure.
  // A failed delivery is not an error of the outbox: only its own spool writes are.
  Status Deliver(const std::string& id, const std::string& dir, const std::string& text);
  // Tells the requester that mission ID waits for a person: DIR/new/ID.hold.json, the gate verdict
  // (rules and reason). Best effort: a failure is said in the log, not retried (the hold itself is
  // in the spool, hold/ID, for `hangar ls hold`).
  void DeliverHold(const std::string& id, const std::string& dir, const std::string& verdict);
  // Every delivery goes only into a maildir owned by the uid that dropped the mission (its
  // intake.json "uid"; root may name any; unknown for missions taken in before hangar recorded it).
  // Tries every waiting record again.
  Status Retry();

 private:
  int64_t DropperOf(const std::string& id);
  Env* env_;
  Layout layout_;
  std::function<void(const std::string&)> say_;
  std::function<std::string()> checkpoint_;
};

}  // namespace hangar
