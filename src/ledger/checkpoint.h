// Checkpoint: a signed statement "ledger NAME at ORIGIN had, in epoch E, head seq S with hash H at
// time T". The kernel writes one every N entries or T seconds to ANCHOR_DIR/NAME.checkpoint and
// hands the latest to every requester with its return, so each requester holds a witness: a later
// ledger that was rolled back below S, or rewritten at or before S, no longer extends it.
//
// The file is one line, the canonical JSON (json::Write: keys sorted, no whitespace) of exactly
// these members, then "\n":
//
//   {"checkpoint":1,"epoch":E,"head":H,"key":K,"ledger":NAME,"origin":O,"sig":G,"size":S,"time":T}
//
//   checkpoint  the format version, 1
//   ledger      the ledger's name;  origin  who keeps it (the caller's choice: host and spool)
//   epoch, size the head entry's epoch and seq (size 0: an empty ledger, head = kGenesisPrev)
//   head        the head entry's hash;  time  RFC 3339 UTC as FormatTime writes it
//   key         lower-case hex SHA-256 of the signer's 32-byte raw Ed25519 public key
//   sig         standard base64 (with "=" padding, 88 characters) of the 64-byte Ed25519
//               signature over SignedText: the same canonical JSON WITHOUT the "sig" member and
//               without a newline. man/hangar-ledger.5 (CHECKPOINTS) shows it checked with openssl.
//
// What a checkpoint proves: VerifySignature says the key's holder (the kernel) made it;
// CheckExtends says the ledger on disk still has that seq with that hash; ledger::Verify then says
// the chain from there links to the head. Together: the current ledger extends the one the
// checkpoint saw. (Verify recomputes hashes of the current epoch only; the entry at the
// checkpoint's seq is recomputed by CheckExtends itself.)
//
// Pure code except CheckExtends (reads the store) and ReadCheckpoint / WriteCheckpoint (the Env).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "base/timefmt.h"
#include "env/env.h"
#include "ledger/signing_key.h"
#include "ledger/store.h"

namespace hangar::ledger {

inline constexpr int64_t kCheckpointVersion = 1;

struct Checkpoint {
  std::string ledger;
  std::string origin;
  int64_t epoch = 1;
  int64_t size = 0;  // the head seq
  std::string head;  // the head entry's hash; kGenesisPrev when size is 0
  TimeMs time = 0;
  std::string key;  // PublicKey::Fingerprint of the signer
  std::string sig;  // base64 of the signature; empty before signing
};

// The bytes the signature covers: canonical JSON of every member but sig, no newline.
std::string SignedText(const Checkpoint& c);
// The file's text: canonical JSON of all members, then "\n".
std::string CheckpointText(const Checkpoint& c);

// Signs the store's current head (name, epoch, head_seq, head_hash) as seen from origin at time,
// and returns the file's text. store must be Open. Invalid when origin is empty, longer than 1024
// bytes or holds control characters or invalid UTF-8; Io when signing fails.
Result<std::string> MakeCheckpoint(const LedgerStore& store, std::string_view origin, TimeMs time,
                                   const SigningKey& key);

// Strict reader (with or without the trailing "\n"): exactly the nine members with their types,
// "checkpoint" 1, a valid ledger name, epoch >= 1, size >= 0, head 64 hex digits (kGenesisPrev
// exactly when size is 0), time in FormatTime's form, key 64 hex digits, sig 88 characters of
// canonical base64 of 64 bytes, and text byte-identical to CheckpointText of what it parsed to.
// Invalid("bad checkpoint: FIELD ...") names the first field that is wrong; an unknown version is
// refused, never guessed at. The signature is not checked here.
Result<Checkpoint> ParseCheckpoint(std::string_view text);

// Ok when c.key is key's fingerprint and c.sig is key's signature over SignedText(c). Invalid
// "checkpoint signed by key K, not by key F" when the fingerprints differ; Invalid "signature does
// not verify" when any signed member or the signature was changed.
Status VerifySignature(const Checkpoint& c, const PublicKey& key);

// Ok when the ledger in store (which must be Open) still holds what c saw: same ledger name, head
// seq >= c.size, and the entry at seq c.size has epoch c.epoch, hashes (recomputed) to its hash,
// and that hash is c.head. Reads only the segment holding seq c.size, up to that entry. Otherwise
// Invalid "ledger NAME does not extend the checkpoint (seq N, epoch E): WHY", WHY one of "it no
// longer has seq N: rolled back, its head is seq M", "entry N hash differs from the checkpoint's:
// ...", "entry N is in epoch X, the checkpoint saw it in epoch E", "entry N does not hash to its
// hash: it was edited", "the checkpoint is of ledger X", or the store's message for a line it
// cannot parse; other codes when the segment cannot be read. Does not check the signature.
Status CheckExtends(const LedgerStore& store, const Checkpoint& c);

// "NAME.checkpoint".
std::string CheckpointFileName(std::string_view ledger);

// Replaces ANCHOR_DIR/NAME.checkpoint with text atomically (Env::WriteFileAtomic): the file holds
// the latest checkpoint only. Invalid when text is not a checkpoint of ledger `name` (a ledger
// writes only its own checkpoint file, as with its anchor).
Status WriteCheckpoint(Env* env, const std::string& anchor_dir, const std::string& name,
                       std::string_view text);

// Reads and parses a checkpoint file; errors name the file. NotFound when it is missing.
Result<Checkpoint> ReadCheckpoint(Env* env, const std::string& path);

}  // namespace hangar::ledger
