#include "kernel/layout.h"

namespace hangar {

Layout Layout::Make(const std::string& spool, const std::string& rooms_setting) {
  Layout l;
  l.spool = spool;
  if (rooms_setting.empty())
    l.rooms = spool + "/rooms";
  else if (rooms_setting[0] == '/')
    l.rooms = rooms_setting;
  else
    l.rooms = spool + "/" + rooms_setting;
  return l;
}

std::vector<std::string> Layout::AllDirs() const {
  std::vector<std::string> d = {spool + "/incoming",
                                IncomingTmp(),
                                IncomingNew(),
                                spool + "/control",
                                ControlTmp(),
                                ControlNew(),
                                ControlBad(),
                                ControlDone(),
                                Keys(),
                                Memory(),
                                Notify(),
                                Purged(),
                                PurgeTrash(),
                                rooms};
  for (Phase p : kAllPhases) d.push_back(StateDir(p));
  return d;
}

}  // namespace hangar
