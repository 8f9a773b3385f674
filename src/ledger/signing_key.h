// SigningKey and PublicKey: the kernel's Ed25519 key that signs ledger checkpoints (checkpoint.h).
//
// Files: the private key is PEM, PKCS#8 ("-----BEGIN PRIVATE KEY-----"), unencrypted, mode 0600,
// at a path of the caller's choosing (meant for a directory of the kernel that drones cannot
// read); the public key is PEM, SubjectPublicKeyInfo ("-----BEGIN PUBLIC KEY-----"), at the same
// path plus ".pub". Both are what `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout`
// write, so `openssl pkeyutl -verify -pubin -inkey KEY.pub -rawin ...` checks a signature.
//
// The private key file is read and created here with POSIX calls, not through Env: it needs a
// mode at creation (Env creates 0644) and a mode check on the very descriptor it is read from.
// It is the kernel's secret, not spool state; the public key goes through Env like other files.
//
// Signatures are pure Ed25519 (RFC 8032, no pre-hash, no context): 64 bytes over the message.
// Both classes are immutable after construction and may be used from any thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "env/env.h"

namespace hangar::ledger {

class PublicKey {
 public:
  // The 32 raw bytes of an Ed25519 public key; Invalid for any other length.
  static Result<PublicKey> FromRaw(std::string_view raw);
  // A PEM SubjectPublicKeyInfo of an Ed25519 key; Invalid (naming `where`) for anything else.
  static Result<PublicKey> FromPem(std::string_view pem, std::string_view where);
  // Reads and parses the file; errors name it. NotFound when it is missing.
  static Result<PublicKey> Load(Env* env, const std::string& path);

  const std::string& raw() const { return raw_; }  // 32 bytes
  // Lower-case hex SHA-256 of raw(): how a checkpoint names the key that signed it.
  std::string Fingerprint() const;
  std::string Pem() const;  // SubjectPublicKeyInfo, ends with "\n"

  // Ok when signature is a valid Ed25519 signature by this key over message; otherwise
  // Invalid("signature does not verify"), also for a signature that is not 64 bytes.
  Status Verify(std::string_view message, std::string_view signature) const;

  bool operator==(const PublicKey& o) const { return raw_ == o.raw_; }

 private:
  friend class SigningKey;
  explicit PublicKey(std::string raw) : raw_(std::move(raw)) {}
  std::string raw_;
};

class SigningKey {
 public:
  // A fresh key from the system's random source; in memory only.
  static Result<SigningKey> Generate();
  // An unencrypted PKCS#8 PEM of an Ed25519 key. Invalid (naming `where`) for another algorithm,
  // an encrypted key or text that is no key; never prompts for a passphrase.
  static Result<SigningKey> FromPem(std::string_view pem, std::string_view where);
  // Reads the private key file. Invalid, naming the file, when it is not a regular file (a
  // symlink is not followed), when group or others have any permission on it (the message says
  // which mode and how to fix it), or when it holds no Ed25519 key. NotFound when missing.
  static Result<SigningKey> Load(const std::string& path);
  // Load, or when path does not exist, generate a key and create path with mode 0600 atomically
  // (written and fsynced under a temporary name, then renamed without replacing: of two
  // concurrent creators one wins and both end up with its key) and fsync the directory. Then
  // makes sure path + ".pub" holds the matching public key: writes it (through env) when missing;
  // Invalid, naming both files, when it holds another key (it is never silently replaced: the
  // witnesses check signatures against it). The directory must exist.
  static Result<SigningKey> LoadOrCreate(Env* env, const std::string& path);

  SigningKey(SigningKey&&) noexcept;
  SigningKey& operator=(SigningKey&&) noexcept;
  ~SigningKey();

  // The 64-byte Ed25519 signature over message. Io only when libcrypto fails.
  Result<std::string> Sign(std::string_view message) const;
  const PublicKey& public_key() const { return public_; }

 private:
  struct Pkey;
  SigningKey(std::unique_ptr<Pkey> pkey, PublicKey pub);
  std::unique_ptr<Pkey> pkey_;
  PublicKey public_;
};

// path + ".pub": where LoadOrCreate keeps the public key of the key at path.
std::string PublicKeyPath(const std::string& key_path);

}  // namespace hangar::ledger
