#include "base/sha256.h"

#include <openssl/evp.h>

namespace hangar {

namespace {

// Fetched once: OpenSSL 3 looks EVP_sha256() up in its provider tables on every init otherwise.
const EVP_MD* Sha256Md() {
  static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return md != nullptr ? md : EVP_sha256();
}

}  // namespace

struct Sha256::Ctx {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ~Ctx() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : ctx_(std::make_unique<Ctx>()) {
  Reset();
}
Sha256::~Sha256() = default;

void Sha256::Reset() {
  EVP_DigestInit_ex(ctx_->md, Sha256Md(), nullptr);
}

void Sha256::Update(const void* data, size_t n) {
  EVP_DigestUpdate(ctx_->md, data, n);
}

void Sha256::FinishHex(char out[2 * kDigestBytes]) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx_->md, digest, &len);
  static const char kHex[] = "0123456789abcdef";
  for (unsigned i = 0; i < kDigestBytes; i++) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 15];
  }
}

std::string Sha256::FinishHex() {
  std::string out(2 * kDigestBytes, '\0');
  FinishHex(out.data());
  return out;
}

bool IsHexHash(std::string_view s) {
  if (s.size() != 64) return false;
  // Without a branch per digit: hashes are random, so digit-or-letter cannot be predicted.
  unsigned bad = 0;
  for (size_t i = 0; i < 64; i++) {
    unsigned char u = static_cast<unsigned char>(s[i]);
    bad |= unsigned(uint8_t(u - '0') >= 10) & unsigned(uint8_t(u - 'a') >= 6);
  }
  return bad == 0;
}

std::string Sha256Hex(std::string_view data) {
  // One context per thread, reset for each message: a fresh OpenSSL context is an allocation
  // and an init that cost more than hashing a short text (the kernel hashes many).
  thread_local Sha256 h;
  h.Reset();
  h.Update(data.data(), data.size());
  return h.FinishHex();
}

}  // namespace hangar
