// SHA-256 through OpenSSL libcrypto, as lower-case hex. Pure computation: no disk.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace hangar {

std::string Sha256Hex(std::string_view data);

// Incremental hashing for streams (room files are hashed in chunks).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Update(const void* data, size_t n);
  std::string FinishHex();  // the object may not be updated afterwards

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

}  // namespace hangar
