// hangar-bench-manifest: how fast the room manifest (shell/manifest.h: the walk, a sha256 of every
// file, the JSON) covers a room, against `sha256sum` over the same files. scripts/bench-manifest
// runs it in a scratch directory.
//
//   hangar-bench-manifest --room DIR [--files N] [--bytes B] [--runs K] [--json PATH]
//
// When DIR is missing or empty it is built: N files (10,000) of B bytes in all (1 GiB), 100 per
// directory, sizes spread log-uniformly (1 KiB to 4 MiB before scaling to B), content from a
// seeded xorshift (incompressible, same bytes every run). Otherwise DIR is taken as it is.
//
// Figures, in MB/s of file bytes (1 MB = 10^6 bytes) and seconds:
//   cold      once each, after every file of the room was written back (syncfs) and dropped from
//             the page cache (posix_fadvise DONTNEED, file by file: nothing else's cache is
//             touched); the bytes still resident afterwards are reported (mincore);
//   warm      a manifest run to fill the page cache, then K runs of each, interleaved; the median;
//   walk      the manifest with hashing off (max_hash_bytes 0), warm: the walk, stats and JSON,
//             that is what the manifest costs beyond hashing.
// sha256sum is `find DIR -type f -print0 | xargs -0 sha256sum >/dev/null`, one process at a time
// like the manifest's single thread. Target (issue 7): warm manifest >= 0.8 x sha256sum.
// Exit status: 0 when every manifest run listed and hashed every file without error, 1 otherwise.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "base/json.h"
#include "bench_cli.h"
#include "shell/manifest.h"

namespace hangar {
namespace {

namespace fs = std::filesystem;

using bench::Clock;
using bench::Die;
using bench::Since;

struct Options {
  std::string room, json_path;
  int64_t files = 10000;
  int64_t bytes = int64_t(1) << 30;
  int runs = 3;
};

Options ParseArgs(int argc, char** argv) {
  Options o;
  CLI::App app{"hangar-bench-manifest: RoomManifest against sha256sum over one room"};
  app.add_option("--room", o.room, "scratch directory for the room")->required();
  app.add_option("--files", o.files, "files in the room")->check(CLI::PositiveNumber);
  app.add_option("--bytes", o.bytes, "bytes in all (>= --files)");
  app.add_option("--runs", o.runs, "warm runs of each")->check(CLI::PositiveNumber);
  app.add_option("--json", o.json_path, "write the figures here");
  bench::Parse(app, argc, argv);
  if (o.bytes < o.files) Die("--bytes must be >= --files");
  return o;
}

uint64_t Next(uint64_t* s) {  // xorshift64*
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

// N sizes, log-uniform between 1 KiB and 4 MiB, scaled to sum to exactly BYTES (each >= 1).
std::vector<int64_t> Sizes(int64_t n, int64_t bytes) {
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  std::vector<double> raw(static_cast<size_t>(n));
  double sum = 0;
  for (double& r : raw) {
    double u = double(Next(&seed) >> 11) / double(uint64_t(1) << 53);
    r = 1024.0 * std::exp2(12.0 * u);
    sum += r;
  }
  std::vector<int64_t> out(static_cast<size_t>(n));
  int64_t total = 0;
  for (size_t i = 0; i < out.size(); i++) {
    out[i] = std::max<int64_t>(1, int64_t(raw[i] * double(bytes) / sum));
    total += out[i];
  }
  for (size_t i = 0; total != bytes; i = (i + 1) % out.size()) {  // the rounding, spread
    int64_t d = std::clamp<int64_t>(bytes - total, 1 - out[i], int64_t(1) << 20);
    out[i] += d;
    total += d;
  }
  return out;
}

void Build(const Options& o) {
  fs::create_directories(o.room);
  const std::vector<int64_t> sizes = Sizes(o.files, o.bytes);
  uint64_t seed = 42;
  std::vector<uint64_t> buf((1 << 20) / 8);
  for (int64_t i = 0; i < o.files; i++) {
    char rel[64];
    snprintf(rel, sizeof rel, "d%04lld", static_cast<long long>(i / 100));
    const std::string dir = o.room + "/" + rel;
    if (i % 100 == 0 && mkdir(dir.c_str(), 0755) != 0) Die("cannot mkdir " + dir);
    snprintf(rel, sizeof rel, "/f%06lld.dat", static_cast<long long>(i));
    const std::string path = dir + rel;
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) Die("cannot create " + path + ": " + strerror(errno));
    for (int64_t left = sizes[size_t(i)]; left > 0;) {
      for (uint64_t& w : buf) w = Next(&seed);
      size_t n = size_t(std::min<int64_t>(left, int64_t(buf.size() * 8)));
      if (write(fd, buf.data(), n) != ssize_t(n)) Die("cannot write " + path);
      left -= int64_t(n);
    }
    close(fd);
  }
}

std::vector<std::string> Files(const std::string& room) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(room))
    if (e.is_regular_file() && !e.is_symlink()) out.push_back(e.path());
  return out;
}

// Writes the room back, then drops its files' pages from the page cache.
void Evict(const std::vector<std::string>& files, const std::string& room) {
  int r = open(room.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (r < 0 || syncfs(r) != 0) Die("cannot syncfs " + room);
  close(r);
  for (const std::string& f : files) {
    int fd = open(f.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) Die("cannot open " + f);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
}

// Bytes of the files in the page cache (mincore, page by page).
int64_t Resident(const std::vector<std::string>& files) {
  const int64_t page = sysconf(_SC_PAGESIZE);
  int64_t in = 0;
  std::vector<unsigned char> vec;
  for (const std::string& f : files) {
    int fd = open(f.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
      if (fd >= 0) close(fd);
      continue;
    }
    void* m = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) continue;
    vec.resize(size_t((st.st_size + page - 1) / page));
    if (mincore(m, size_t(st.st_size), vec.data()) == 0)
      for (unsigned char v : vec) in += (v & 1) ? page : 0;
    munmap(m, size_t(st.st_size));
  }
  return in;
}

struct Run {
  double seconds = 0;
  int64_t files = 0, entries = 0, bytes = 0, unhashed = 0, errors = 0;
};

Run Manifest(const std::string& room, bool hash) {
  ManifestLimits lim;
  lim.max_entries = std::numeric_limits<int64_t>::max();
  lim.max_hash_bytes = hash ? std::numeric_limits<int64_t>::max() : 0;
  Clock::time_point t0 = Clock::now();
  json::Value m = RoomManifest(room, lim);
  Run r;
  r.seconds = Since(t0);
  r.entries = m.find("entries")->as_int();
  r.bytes = m.find("bytes")->as_int();
  r.unhashed = m.find("unhashed_files")->as_int();
  r.errors = int64_t(m.find("errors")->as_array().size());
  for (const json::Value& e : m.find("manifest")->as_array())
    r.files += e.find("type")->as_string() == "file";
  return r;
}

double Sha256sum(const std::string& room) {
  std::string quoted = "'";
  for (char c : room) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  const std::string cmd = "find " + quoted + " -type f -print0 | xargs -0 sha256sum >/dev/null";
  Clock::time_point t0 = Clock::now();
  if (std::system(cmd.c_str()) != 0) Die("failed: " + cmd);
  return Since(t0);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::string LoadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

json::Value Array(const std::vector<double>& v) {
  json::Array a;
  for (double x : v) a.emplace_back(x);
  return a;
}

int Main(int argc, char** argv) {
  const Options opt = ParseArgs(argc, argv);
  bool built = false;
  if (!fs::exists(opt.room) || fs::is_empty(opt.room)) {
    Clock::time_point t0 = Clock::now();
    Build(opt);
    built = true;
    printf("built %s: %lld files, %lld bytes, in %.1f s\n", opt.room.c_str(),
           static_cast<long long>(opt.files), static_cast<long long>(opt.bytes), Since(t0));
  }
  const std::vector<std::string> files = Files(opt.room);
  bool all_ok = true;
  auto check = [&](const Run& r) {
    if (r.files != int64_t(files.size()) || r.unhashed != 0 || r.errors != 0) all_ok = false;
    return r;
  };

  // Cold: each after the room is dropped from the cache.
  Evict(files, opt.room);
  const int64_t resident_manifest = Resident(files);
  const Run cold = check(Manifest(opt.room, true));
  Evict(files, opt.room);
  const int64_t resident_sum = Resident(files);
  const double cold_sum = Sha256sum(opt.room);

  // Warm: one run to fill the cache, then interleaved runs.
  const Run warmup = check(Manifest(opt.room, true));
  const int64_t bytes = warmup.bytes;
  std::vector<double> man, sum, walk;
  for (int i = 0; i < opt.runs; i++) {
    man.push_back(check(Manifest(opt.room, true)).seconds);
    sum.push_back(Sha256sum(opt.room));
    walk.push_back(Manifest(opt.room, false).seconds);
  }
  const double man_s = Median(man), sum_s = Median(sum), walk_s = Median(walk);
  auto mbs = [&](double s) { return double(bytes) / 1e6 / s; };
  const double ratio = mbs(man_s) / mbs(sum_s), cold_ratio = mbs(cold.seconds) / mbs(cold_sum);
  const double target = 0.8;

  printf("manifest bench: %zu files, %lld bytes (%.1f MiB), %lld entries; warm: median of %d\n",
         files.size(), static_cast<long long>(bytes), double(bytes) / (1 << 20),
         static_cast<long long>(warmup.entries), opt.runs);
  printf("%-28s %9s %9s   %s\n", "", "seconds", "MB/s", "");
  printf("%-28s %9.3f %9.1f   (resident before: %.1f%%)\n", "cold RoomManifest", cold.seconds,
         mbs(cold.seconds), 100.0 * double(resident_manifest) / double(bytes));
  printf("%-28s %9.3f %9.1f   (resident before: %.1f%%)\n", "cold sha256sum", cold_sum,
         mbs(cold_sum), 100.0 * double(resident_sum) / double(bytes));
  printf("%-28s %9.3f %9.1f\n", "warm RoomManifest", man_s, mbs(man_s));
  printf("%-28s %9.3f %9.1f\n", "warm sha256sum", sum_s, mbs(sum_s));
  printf("%-28s %9.3f %9s   (walk, stat, JSON: no hashing)\n", "warm RoomManifest, unhashed",
         walk_s, "-");
  printf("ratio manifest / sha256sum: warm %.2f (target >= %.1f: %s), cold %.2f\n", ratio, target,
         ratio >= target ? "met" : "MISSED", cold_ratio);
  printf("(%ld cores; load average %s)\n", sysconf(_SC_NPROCESSORS_ONLN), LoadAverage().c_str());
  if (!all_ok) fprintf(stderr, "hangar-bench-manifest: a manifest run missed files or erred\n");

  if (!opt.json_path.empty()) {
    json::Object warm, cold_o, doc;
    warm["manifest_s"] = man_s;
    warm["manifest_mb_s"] = mbs(man_s);
    warm["manifest_runs_s"] = Array(man);
    warm["sha256sum_s"] = sum_s;
    warm["sha256sum_mb_s"] = mbs(sum_s);
    warm["sha256sum_runs_s"] = Array(sum);
    warm["unhashed_manifest_s"] = walk_s;
    warm["unhashed_manifest_runs_s"] = Array(walk);
    warm["ratio"] = ratio;
    warm["ratio_to_target"] = ratio / target;
    cold_o["manifest_s"] = cold.seconds;
    cold_o["manifest_mb_s"] = mbs(cold.seconds);
    cold_o["manifest_resident_before"] = double(resident_manifest) / double(bytes);
    cold_o["sha256sum_s"] = cold_sum;
    cold_o["sha256sum_mb_s"] = mbs(cold_sum);
    cold_o["sha256sum_resident_before"] = double(resident_sum) / double(bytes);
    cold_o["ratio"] = cold_ratio;
    doc["bench"] = "manifest";
    doc["files"] = int64_t(files.size());
    doc["entries"] = warmup.entries;
    doc["bytes"] = bytes;
    doc["room_built"] = built;
    doc["runs"] = opt.runs;
    doc["cores"] = int64_t(sysconf(_SC_NPROCESSORS_ONLN));
    doc["load_average"] = LoadAverage();
    doc["mb_is"] = "10^6 bytes of file content";
    doc["target_warm_ratio_min"] = target;
    doc["warm"] = std::move(warm);
    doc["cold"] = std::move(cold_o);
    doc["manifests_ok"] = all_ok;
    std::ofstream(opt.json_path) << json::WritePretty(json::Value(std::move(doc)));
  }
  return all_ok ? 0 : 1;
}

}  // namespace
}  // namespace hangar

int main(int argc, char** argv) {
  return hangar::Main(argc, argv);
}
