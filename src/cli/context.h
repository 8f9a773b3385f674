// Context: what every hangar command is given — the spool, the config path, the output mode and
// where to print. Built once by hangar_main from the global options; commands never read argv or
// the environment for these.
#pragma once

#include <ostream>
#include <string>

#include "env/env.h"
#include "kernel/layout.h"

namespace hangar::cli {

struct Context {
  Env* env;
  Layout layout;
  std::string config_path;    // --config, else <spool>/hangar.conf
  bool config_given = false;  // --config was given: a missing file is then an error
  bool json = false;          // --json: one JSON document on out
  std::ostream& out;
  std::ostream& err;
  double answer_wait_s = 10;  // control requests: how long to wait for hangard's answer (0: not)
};

}  // namespace hangar::cli
