// hangar-shim PLAN_FILE SHA256: the direct launcher's supervisor (docs/ARCHITECTURE.md,
// "hangar-shim"); hangar-shim --zygote: one started by hangard, forking that shim for each launch
// it is asked for (launch/shim_zygote.h). hangar-shim --exec PLAN_FILE SHA256 and --unit-ended
// RUN_DIR: its modes inside a systemd unit or a Slurm job (launch/exec_plan.h).
#include <openssl/crypto.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "kernel/version.h"
#include "launch/exec_plan.h"
#include "launch/shim_zygote.h"
#include "launch/supervisor.h"

int main(int argc, char** argv) {
  // Every launch starts here, and the shim's one use of OpenSSL is the sha256 of its plan: it
  // reads no openssl.cnf (0.4 ms of each launch; the digest is the same under any configuration)
  // and registers no exit handlers (it ends by _exit).
  OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ATEXIT, nullptr);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "--version" && argc == 2)
    return std::puts(hangar::VersionLine("hangar-shim").c_str()) < 0;
  if (mode == "--exec" && argc == 4) return hangar::ExecPlan(argv[2], argv[3]);
  if (mode == "--unit-ended" && argc == 3) return hangar::RecordUnitEnded(argv[2]);
  if (mode == "--zygote" && argc == 2) _exit(hangar::RunShimZygote(argv[1]));
  if (argc != 3 || mode.rfind("--", 0) == 0) {
    static const char kUsage[] =
        "usage: hangar-shim PLAN_FILE SHA256\n"
        "       hangar-shim --zygote   (requests from hangard on stdin, launch/shim_zygote.h)\n"
        "       hangar-shim --exec PLAN_FILE SHA256\n"
        "       hangar-shim --unit-ended RUN_DIR\n";
    (void)!write(2, kUsage, sizeof kUsage - 1);
    return hangar::kShimUsage;
  }
  // _exit: both the first process and the supervisor have said all they say with write(2), and
  // the exit handlers (OpenSSL's cleanup among them) were a millisecond of every launch, most of
  // it while hangard waits for the first process to end.
  _exit(hangar::RunShim(argv[1], argv[2]));
}
