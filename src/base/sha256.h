// SHA-256 through OpenSSL libcrypto, as lower-case hex. Pure computation: no disk.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace hangar {

std::string Sha256Hex(std::string_view data);

// True when s is 64 lower-case hex digits: the form of every sha256 hangar writes.
bool IsHexHash(std::string_view s);

// Incremental hashing for streams (room files are hashed in chunks). One object keeps one OpenSSL
// context, so Reset lets a hot loop (ledger verification) hash many messages without allocating.
// Not thread-safe: one object per thread.
class Sha256 {
 public:
  static constexpr size_t kDigestBytes = 32;

  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Update(const void* data, size_t n);
  void Update(std::string_view s) { Update(s.data(), s.size()); }
  std::string FinishHex();  // the object may not be updated afterwards, until Reset
  // The digest as 64 lower-case hex digits into out (no terminator); Reset before the next use.
  void FinishHex(char out[2 * kDigestBytes]);
  void Reset();  // starts a new message

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

}  // namespace hangar
