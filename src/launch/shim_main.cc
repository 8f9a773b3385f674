// hangar-shim PLAN_FILE SHA256: the direct launcher's supervisor (docs/ARCHITECTURE.md,
// "hangar-shim").
#include <unistd.h>

#include <string>

#include "launch/supervisor.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    static const char kUsage[] = "usage: hangar-shim PLAN_FILE SHA256\n";
    (void)!write(2, kUsage, sizeof kUsage - 1);
    return hangar::kShimUsage;
  }
  // _exit: both the first process and the supervisor have said all they say with write(2), and
  // the exit handlers (OpenSSL's cleanup among them) were a millisecond of every launch, most of
  // it while hangard waits for the first process to end.
  _exit(hangar::RunShim(argv[1], argv[2]));
}
