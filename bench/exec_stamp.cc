// hangar-bench-stamp: a drone for scripts/bench-latency. Its first act is to read the clocks, so
// the time it prints is the moment it was exec'd (plus the dynamic loader): one line
// "REALTIME_NS MONOTONIC_NS" on stdout, which hangard keeps as the run's stdout file.
#include <time.h>

#include <cstdio>

int main() {
  timespec real{}, mono{};
  clock_gettime(CLOCK_REALTIME, &real);
  clock_gettime(CLOCK_MONOTONIC, &mono);
  std::printf("%lld%09ld %lld%09ld\n", static_cast<long long>(real.tv_sec), real.tv_nsec,
              static_cast<long long>(mono.tv_sec), mono.tv_nsec);
  return 0;
}
