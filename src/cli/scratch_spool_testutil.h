// ScratchSpool (tests only): a spool built by hand in a fresh temporary directory, removed at the
// end of the test. hangard is not needed: the test writes the files the kernel would write.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/timefmt.h"
#include "kernel/layout.h"
#include "kernel/phase.h"

namespace hangar::cli {

class ScratchSpool {
 public:
  ScratchSpool() {
    char tmpl[] = "/tmp/hangar-cli-test-XXXXXX";
    root_ = mkdtemp(tmpl);
    layout_ = Layout::Make(root_ + "/spool", "");
    for (const std::string& d : layout_.AllDirs()) std::filesystem::create_directories(d);
  }
  ~ScratchSpool() { std::filesystem::remove_all(root_); }
  ScratchSpool(const ScratchSpool&) = delete;
  ScratchSpool& operator=(const ScratchSpool&) = delete;

  const Layout& layout() const { return layout_; }
  const std::string& spool() const { return layout_.spool; }
  const std::string& root() const { return root_; }  // scratch room for other files of the test

  // Writes path (relative to the spool, or absolute), creating its parents.
  void Write(const std::string& path, const std::string& text) const {
    std::filesystem::path p = path[0] == '/' ? path : spool() + "/" + path;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }

  // A mission directory as intake leaves it: mission.json (mission.raw in rejected/) and
  // intake.json with the given time, naming the drone and requester (not in rejected/).
  void AddMission(Phase p, const std::string& id, TimeMs time,
                  const std::string& drone = "fake") const {
    const std::string dir = layout_.MissionDir(p, id);
    Write(dir + (p == Phase::kRejected ? "/mission.raw" : "/mission.json"), MissionText(drone));
    const std::string named =
        p == Phase::kRejected ? "" : "\"drone\":\"" + drone + "\",\"requester\":\"alice\",";
    Write(dir + "/intake.json", "{\"hangar\":1,\"id\":\"" + id + "\",\"name\":\"" + id + "\"," +
                                    named + "\"sha256\":\"0\",\"time\":\"" + FormatTime(time) +
                                    "\"}\n");
  }

  void AddReturned(const std::string& id, TimeMs time, const std::string& outcome) const {
    AddMission(Phase::kReturned, id, time);
    Write(layout_.MissionDir(Phase::kReturned, id) + "/return.json",
          "{\"hangar\":1,\"id\":\"" + id + "\",\"outcome\":\"" + outcome +
              "\",\"rc\":0,\"signal\":null,\"timed_out\":false}\n");
  }

  static std::string MissionText(const std::string& drone, const std::string& id_field = "") {
    return "{\"hangar\":1," + (id_field.empty() ? "" : "\"id\":\"" + id_field + "\",") +
           "\"requester\":\"alice\",\"drone\":\"" + drone +
           "\",\"future\":\"out.txt exists\",\"now\":\"empty room\",\"max_minutes\":3}\n";
  }

 private:
  std::string root_;
  Layout layout_;
};

}  // namespace hangar::cli
