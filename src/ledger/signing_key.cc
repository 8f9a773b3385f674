#include "ledger/signing_key.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "base/sha256.h"

namespace hangar::ledger {

namespace {

constexpr size_t kRawKeyBytes = 32;
constexpr size_t kSignatureBytes = 64;
constexpr size_t kMaxKeyFileBytes = 16 << 10;

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using BioPtr = std::unique_ptr<BIO, BioFree>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

// The reason libcrypto gives for its last failure, and an empty error queue afterwards.
std::string CryptoError() {
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "libcrypto failed";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

// Passphrase callback that refuses: an encrypted key fails instead of prompting on a terminal.
int NoPassphrase(char*, int, int, void*) {
  return -1;
}

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  return n > 0 ? std::string(data, size_t(n)) : std::string();
}

// A string holding a secret, wiped before its memory is given back.
struct SecretText {
  std::string text;
  ~SecretText() { OPENSSL_cleanse(text.data(), text.size()); }
};

Result<std::string> RawPublic(EVP_PKEY* pkey) {
  unsigned char raw[kRawKeyBytes];
  size_t len = sizeof raw;
  if (EVP_PKEY_get_raw_public_key(pkey, raw, &len) != 1 || len != kRawKeyBytes)
    return Status::Io("cannot get the public key: " + CryptoError());
  return std::string(reinterpret_cast<char*>(raw), len);
}

std::string Parent(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Reads the private key file, checking the mode on the descriptor it reads from.
Result<SecretText> ReadPrivateFile(const std::string& path) {
  const std::string what = "cannot load signing key " + path;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT) return Status::NotFound(what + ": no such file");
    if (e == ELOOP) return Status::Invalid(what + ": a symbolic link, not a regular file");
    return Status::Errno("load signing key " + path, e);
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return Status::Errno("stat " + path, e);
  }
  Status bad;
  if (!S_ISREG(st.st_mode)) {
    bad = Status::Invalid(what + ": not a regular file");
  } else if ((st.st_mode & 077) != 0) {
    char mode[8];
    snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
    bad = Status::Invalid(what + ": mode " + mode +
                          " gives group or others access to a private key; chmod 600 " + path +
                          " (and make a new key if someone else may have read it)");
  } else if (size_t(st.st_size) > kMaxKeyFileBytes) {
    bad = Status::Invalid(what + ": larger than " + std::to_string(kMaxKeyFileBytes) + " bytes");
  }
  if (!bad.ok()) {
    close(fd);
    return bad;
  }
  SecretText out;
  out.text.reserve(kMaxKeyFileBytes + 1);  // no reallocation: no unwiped copies left behind
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      OPENSSL_cleanse(buf, sizeof buf);
      return Status::Errno("read " + path, e);
    }
    if (n == 0) break;
    if (out.text.size() + size_t(n) > kMaxKeyFileBytes) {
      close(fd);
      OPENSSL_cleanse(buf, sizeof buf);
      return Status::Invalid(what + ": larger than " + std::to_string(kMaxKeyFileBytes) + " bytes");
    }
    out.text.append(buf, size_t(n));
  }
  close(fd);
  OPENSSL_cleanse(buf, sizeof buf);
  return out;
}

}  // namespace

// ---- PublicKey

Result<PublicKey> PublicKey::FromRaw(std::string_view raw) {
  if (raw.size() != kRawKeyBytes)
    return Status::Invalid("bad Ed25519 public key: " + std::to_string(raw.size()) +
                           " bytes, expected 32");
  return PublicKey(std::string(raw));
}

Result<PublicKey> PublicKey::FromPem(std::string_view pem, std::string_view where) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), int(pem.size())));
  if (!bio) return Status::Io("cannot read public key " + std::string(where) + ": out of memory");
  PkeyPtr pkey(PEM_read_bio_PUBKEY(bio.get(), nullptr, NoPassphrase, nullptr));
  if (!pkey)
    return Status::Invalid("cannot read public key " + std::string(where) +
                           ": not a PEM public key (" + CryptoError() + ")");
  if (EVP_PKEY_get_id(pkey.get()) != EVP_PKEY_ED25519)
    return Status::Invalid("cannot read public key " + std::string(where) + ": not an Ed25519 key");
  Result<std::string> raw = RawPublic(pkey.get());
  if (!raw.ok()) return raw.status();
  return PublicKey(std::move(raw).value());
}

Result<PublicKey> PublicKey::Load(Env* env, const std::string& path) {
  Result<std::string> text = env->ReadFile(path, kMaxKeyFileBytes);
  if (!text.ok()) return text.status();
  return FromPem(*text, path);
}

std::string PublicKey::Fingerprint() const {
  return Sha256Hex(raw_);
}

std::string PublicKey::Pem() const {
  PkeyPtr pkey(EVP_PKEY_new_raw_public_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(raw_.data()), raw_.size()));
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!pkey || !bio || PEM_write_bio_PUBKEY(bio.get(), pkey.get()) != 1) {
    ERR_clear_error();
    return "";
  }
  return BioText(bio.get());
}

Status PublicKey::Verify(std::string_view message, std::string_view signature) const {
  const Status refused = Status::Invalid("signature does not verify");
  if (signature.size() != kSignatureBytes) return refused;
  PkeyPtr pkey(EVP_PKEY_new_raw_public_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(raw_.data()), raw_.size()));
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!pkey || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get()) != 1)
    return Status::Io("cannot verify signature: " + CryptoError());
  int rc = EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                            signature.size(),
                            reinterpret_cast<const unsigned char*>(message.data()), message.size());
  ERR_clear_error();
  return rc == 1 ? Status::Ok() : refused;
}

// ---- SigningKey

struct SigningKey::Pkey {
  PkeyPtr p;
};

SigningKey::SigningKey(std::unique_ptr<Pkey> pkey, PublicKey pub)
    : pkey_(std::move(pkey)), public_(std::move(pub)) {}
SigningKey::SigningKey(SigningKey&&) noexcept = default;
SigningKey& SigningKey::operator=(SigningKey&&) noexcept = default;
SigningKey::~SigningKey() = default;

Result<SigningKey> SigningKey::Generate() {
  PkeyPtr p(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  if (!p) return Status::Io("cannot generate an Ed25519 key: " + CryptoError());
  Result<std::string> raw = RawPublic(p.get());
  if (!raw.ok()) return raw.status();
  return SigningKey(std::make_unique<Pkey>(Pkey{std::move(p)}), PublicKey(std::move(raw).value()));
}

Result<SigningKey> SigningKey::FromPem(std::string_view pem, std::string_view where) {
  const std::string what = "cannot load signing key " + std::string(where);
  BioPtr bio(BIO_new_mem_buf(pem.data(), int(pem.size())));
  if (!bio) return Status::Io(what + ": out of memory");
  PkeyPtr p(PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr));
  if (!p) {
    std::string why = CryptoError();
    if (pem.find("-----BEGIN ENCRYPTED PRIVATE KEY-----") != std::string_view::npos)
      return Status::Invalid(what + ": the key is encrypted; hangard needs it unencrypted");
    return Status::Invalid(what + ": not a PEM private key (" + why + ")");
  }
  if (EVP_PKEY_get_id(p.get()) != EVP_PKEY_ED25519)
    return Status::Invalid(what + ": not an Ed25519 key");
  Result<std::string> raw = RawPublic(p.get());
  if (!raw.ok()) return raw.status();
  return SigningKey(std::make_unique<Pkey>(Pkey{std::move(p)}), PublicKey(std::move(raw).value()));
}

Result<SigningKey> SigningKey::Load(const std::string& path) {
  Result<SecretText> text = ReadPrivateFile(path);
  if (!text.ok()) return text.status();
  return FromPem(text->text, path);
}

Result<SigningKey> SigningKey::LoadOrCreate(Env* env, const std::string& path) {
  Result<SigningKey> key = Load(path);
  if (!key.ok() && key.status().code() == Code::kNotFound) {
    Result<SigningKey> fresh = Generate();
    if (!fresh.ok()) return fresh.status();
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_PrivateKey(bio.get(), fresh->pkey_->p.get(), nullptr, nullptr, 0,
                                         nullptr, nullptr) != 1)
      return Status::Io("cannot write signing key " + path + ": " + CryptoError());
    SecretText pem{BioText(bio.get())};
    // Through the Env, so the fault-injecting one numbers it and the crash sweep cuts around it.
    Status s = env->CreateFileAtomic(Parent(path), BaseName(path), pem.text, 0600);
    if (!s.ok() && s.code() != Code::kExists) return s;
    key = Load(path);  // ours, or the one a concurrent creator put there first
  }
  if (!key.ok()) return key.status();

  const std::string pub_path = PublicKeyPath(path);
  Result<PublicKey> pub = PublicKey::Load(env, pub_path);
  if (pub.ok()) {
    if (!(*pub == key->public_key()))
      return Status::Invalid("cannot use signing key " + path + ": " + pub_path +
                             " holds another public key (key " + pub->Fingerprint() + ", not " +
                             key->public_key().Fingerprint() + ")");
    return key;
  }
  if (pub.status().code() != Code::kNotFound) return pub.status();
  std::string pem = key->public_key().Pem();
  if (pem.empty()) return Status::Io("cannot write public key " + pub_path + ": libcrypto failed");
  Status s = env->WriteFileAtomic(Parent(pub_path), BaseName(pub_path), pem);
  if (!s.ok()) return s;
  return key;
}

Result<std::string> SigningKey::Sign(std::string_view message) const {
  MdCtxPtr ctx(EVP_MD_CTX_new());
  unsigned char sig[kSignatureBytes];
  size_t len = sizeof sig;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, pkey_->p.get()) != 1 ||
      EVP_DigestSign(ctx.get(), sig, &len, reinterpret_cast<const unsigned char*>(message.data()),
                     message.size()) != 1 ||
      len != kSignatureBytes)
    return Status::Io("cannot sign: " + CryptoError());
  return std::string(reinterpret_cast<char*>(sig), len);
}

std::string PublicKeyPath(const std::string& key_path) {
  return key_path + ".pub";
}

}  // namespace hangar::ledger
