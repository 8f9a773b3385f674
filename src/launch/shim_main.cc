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
  return hangar::RunShim(argv[1], argv[2]);
}
