// The checkpoint key: how it is created, which files are refused, and that its signatures are
// plain RFC 8032 Ed25519 (so openssl and any other tool can check them).
#include "ledger/signing_key.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>

#include <filesystem>

#include "base/scratch_dir_testutil.h"
#include "env/fault_env.h"
#include "gtest/gtest.h"
#include "ledger/ledger_testutil.h"

namespace hangar::ledger {
namespace {

using testing::ReadText;
using testing::WriteText;

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(char(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

std::string Hex(std::string_view bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

unsigned Mode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return unsigned(st.st_mode & 07777);
}

// A PEM of key written by libcrypto itself, optionally encrypted.
std::string PemOf(EVP_PKEY* key, const EVP_CIPHER* cipher = nullptr) {
  BIO* bio = BIO_new(BIO_s_mem());
  char pass[] = "secret";
  EXPECT_EQ(PEM_write_bio_PKCS8PrivateKey(bio, key, cipher, cipher ? pass : nullptr, cipher ? 6 : 0,
                                          nullptr, nullptr),
            1);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, size_t(n));
  BIO_free(bio);
  return out;
}

class SigningKeyFile : public ::testing::Test {
 protected:
  ScratchDir dir_{"signing-key"};
  std::string path_ = dir_.path() + "/checkpoint.key";
};

TEST_F(SigningKeyFile, CreatedWithMode0600AndItsPublicKeyBeside) {
  Result<SigningKey> key = SigningKey::LoadOrCreate(RealEnv(), path_);
  ASSERT_TRUE(key.ok()) << key.status().message();
  EXPECT_EQ(Mode(path_), 0600u);
  EXPECT_EQ(ReadText(path_).rfind("-----BEGIN PRIVATE KEY-----\n", 0), 0u);
  std::string pub = ReadText(PublicKeyPath(path_));
  EXPECT_EQ(pub.rfind("-----BEGIN PUBLIC KEY-----\n", 0), 0u);
  EXPECT_EQ(pub, key->public_key().Pem());
  // No temporary file is left beside them.
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir_.path()))
    names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"checkpoint.key", "checkpoint.key.pub"}));

  // The next start loads the same key, never a new one.
  Result<SigningKey> again = SigningKey::LoadOrCreate(RealEnv(), path_);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->public_key(), key->public_key());
  Result<PublicKey> loaded = PublicKey::Load(RealEnv(), PublicKeyPath(path_));
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(*loaded, key->public_key());
}

// The key is written through the Env like every other file of hangar's, so the fault-injecting
// Env (and the crash sweep) numbers it: its first mutating call, failed, leaves no key, no
// public key and no temporary file; the next start makes both.
TEST_F(SigningKeyFile, ItsWritesGoThroughTheEnv) {
  FaultPlan plan;
  plan.kind = FaultPlan::Kind::kFail;
  plan.at = 1;
  plan.error = ENOSPC;
  FaultEnv failing(RealEnv(), plan);
  Result<SigningKey> key = SigningKey::LoadOrCreate(&failing, path_);
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.status().message().find("checkpoint.key"), std::string::npos)
      << key.status().message();
  EXPECT_TRUE(std::filesystem::is_empty(dir_.path()));
  FaultEnv counting(RealEnv(), FaultPlan{});
  ASSERT_TRUE(SigningKey::LoadOrCreate(&counting, path_).ok());
  EXPECT_EQ(counting.calls(), 2u) << "the key and its public key, each one call";
  EXPECT_EQ(Mode(path_), 0600u);
}

TEST_F(SigningKeyFile, ReadableByOthersIsRefusedNotReplaced) {
  ASSERT_TRUE(SigningKey::LoadOrCreate(RealEnv(), path_).ok());
  std::string before = ReadText(path_);
  for (mode_t mode : {0644, 0640, 0604, 0620}) {
    ASSERT_EQ(chmod(path_.c_str(), mode), 0);
    Result<SigningKey> key = SigningKey::LoadOrCreate(RealEnv(), path_);
    ASSERT_FALSE(key.ok()) << std::oct << mode;
    EXPECT_EQ(key.status().code(), Code::kInvalid);
    EXPECT_NE(key.status().message().find(path_), std::string::npos) << key.status().message();
    char want[8];
    snprintf(want, sizeof want, "%04o", unsigned(mode));
    EXPECT_NE(key.status().message().find(std::string("mode ") + want), std::string::npos)
        << key.status().message();
    EXPECT_EQ(ReadText(path_), before);  // refused, not regenerated
  }
}

TEST_F(SigningKeyFile, SymlinkIsRefused) {
  ASSERT_TRUE(SigningKey::LoadOrCreate(RealEnv(), path_).ok());
  std::string link = dir_.path() + "/link.key";
  std::filesystem::create_symlink(path_, link);
  Result<SigningKey> key = SigningKey::Load(link);
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.status().message().find("symbolic link"), std::string::npos)
      << key.status().message();
}

TEST_F(SigningKeyFile, MissingIsNotFoundForLoad) {
  Result<SigningKey> key = SigningKey::Load(path_);
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.status().code(), Code::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(path_));
}

TEST_F(SigningKeyFile, LostPublicKeyIsWrittenAgain) {
  Result<SigningKey> key = SigningKey::LoadOrCreate(RealEnv(), path_);
  ASSERT_TRUE(key.ok());
  std::filesystem::remove(PublicKeyPath(path_));
  Result<SigningKey> again = SigningKey::LoadOrCreate(RealEnv(), path_);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(ReadText(PublicKeyPath(path_)), key->public_key().Pem());
}

TEST_F(SigningKeyFile, PublicKeyOfAnotherKeyIsRefusedNotReplaced) {
  ASSERT_TRUE(SigningKey::LoadOrCreate(RealEnv(), path_).ok());
  Result<SigningKey> other = SigningKey::Generate();
  ASSERT_TRUE(other.ok());
  WriteText(PublicKeyPath(path_), other->public_key().Pem());
  Result<SigningKey> key = SigningKey::LoadOrCreate(RealEnv(), path_);
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.status().message().find(PublicKeyPath(path_)), std::string::npos)
      << key.status().message();
  EXPECT_EQ(ReadText(PublicKeyPath(path_)), other->public_key().Pem());
}

TEST_F(SigningKeyFile, EncryptedKeyIsRefusedWithoutPrompting) {
  EVP_PKEY* raw = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
  ASSERT_NE(raw, nullptr);
  std::string pem = PemOf(raw, EVP_aes_256_cbc());
  EVP_PKEY_free(raw);
  ASSERT_NE(pem.find("ENCRYPTED"), std::string::npos);
  Result<SigningKey> key = SigningKey::FromPem(pem, "k.pem");
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.status().message().find("encrypted"), std::string::npos) << key.status().message();
}

TEST_F(SigningKeyFile, KeyOfAnotherAlgorithmIsRefused) {
  EVP_PKEY* raw = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  ASSERT_NE(raw, nullptr);
  std::string pem = PemOf(raw);
  EVP_PKEY_free(raw);
  Result<SigningKey> key = SigningKey::FromPem(pem, "ec.pem");
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.status().message().find("not an Ed25519 key"), std::string::npos)
      << key.status().message();
  EXPECT_FALSE(SigningKey::FromPem("hello", "junk.pem").ok());
}

// RFC 8032, 7.1, TEST 1: the empty message. Proves pure Ed25519, as openssl pkeyutl -rawin does.
TEST(SigningKeyEd25519, MatchesRfc8032TestVector) {
  const std::string secret =
      Unhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
  const std::string expect_pub = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
  const std::string expect_sig =
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e3970"
      "1cf9b46bd25bf5f0595bbe24655141438e7a100b";
  // PKCS#8 DER of an Ed25519 private key (RFC 8410): fixed prefix, then the 32 secret bytes.
  std::string der = Unhex("302e020100300506032b657004220420") + secret;
  std::string b64(4 * ((der.size() + 2) / 3) + 1, '\0');
  b64.resize(
      size_t(EVP_EncodeBlock(reinterpret_cast<unsigned char*>(b64.data()),
                             reinterpret_cast<const unsigned char*>(der.data()), int(der.size()))));
  std::string pem = "-----BEGIN PRIVATE KEY-----\n" + b64 + "\n-----END PRIVATE KEY-----\n";

  Result<SigningKey> key = SigningKey::FromPem(pem, "rfc8032");
  ASSERT_TRUE(key.ok()) << key.status().message();
  EXPECT_EQ(Hex(key->public_key().raw()), expect_pub);
  Result<std::string> sig = key->Sign("");
  ASSERT_TRUE(sig.ok());
  EXPECT_EQ(Hex(*sig), expect_sig);
  Result<PublicKey> pub = PublicKey::FromRaw(Unhex(expect_pub));
  ASSERT_TRUE(pub.ok());
  EXPECT_TRUE(pub->Verify("", Unhex(expect_sig)).ok());
}

TEST(SigningKeyEd25519, SignatureVerifiesOnlyForItsMessageAndKey) {
  Result<SigningKey> key = SigningKey::Generate();
  Result<SigningKey> other = SigningKey::Generate();
  ASSERT_TRUE(key.ok() && other.ok());
  Result<std::string> sig = key->Sign("checkpoint");
  ASSERT_TRUE(sig.ok());
  ASSERT_EQ(sig->size(), 64u);
  EXPECT_TRUE(key->public_key().Verify("checkpoint", *sig).ok());
  EXPECT_EQ(key->public_key().Verify("checkpoinT", *sig).message(), "signature does not verify");
  EXPECT_EQ(other->public_key().Verify("checkpoint", *sig).message(), "signature does not verify");
  std::string flipped = *sig;
  flipped[17] ^= 1;
  EXPECT_EQ(key->public_key().Verify("checkpoint", flipped).message(), "signature does not verify");
  EXPECT_FALSE(key->public_key().Verify("checkpoint", sig->substr(0, 63)).ok());
  EXPECT_NE(key->public_key().Fingerprint(), other->public_key().Fingerprint());
  EXPECT_EQ(key->public_key().Fingerprint().size(), 64u);
}

}  // namespace
}  // namespace hangar::ledger
