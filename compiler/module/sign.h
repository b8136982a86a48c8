// Module signing (Ed25519, through libsodium): key pairs, signing a module's contents, and reading
// the keys users give on the command line. The signature's layout and what it covers are in the
// freestanding <deepgemm/module_signature.h>, which every reader shares.
//
// Key files are text: a first line naming the kind ("deepgemm-ed25519-secret-key" or
// "deepgemm-ed25519-public-key") and a second line of hex (the 32-byte seed, or the 32-byte public
// key). A public key may also be given as its 64 hex digits alone.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "module/writer.h"

namespace dg::module {

using PublicKey = std::array<std::uint8_t, 32>;

/// Writes a new key pair: the secret key to `path` (mode 0600) and the public key to `path`.pub.
/// Refuses to replace an existing file. Throws dg::UserError naming the file on failure.
PublicKey keygen(const std::string& path);

/// Adds a Signature section to `contents`, by the secret key in `key_path` (throws dg::UserError
/// for an unreadable or malformed key file). Signing twice replaces the signature.
void sign(ModuleContents& contents, const std::string& key_path);

/// `module` (a valid module's bytes) with a Signature section by `key_path`'s secret key.
std::vector<std::uint8_t> sign_bytes(const std::vector<std::uint8_t>& module, const std::string& key_path);

/// Throws dg::UserError unless `path` holds a secret key (checked before a long compile).
void check_secret_key(const std::string& path);

/// The public key in `path` (a .pub file, or 64 hex digits); throws dg::UserError otherwise.
PublicKey read_public_key(const std::string& path);

/// The key as 64 lowercase hex digits.
std::string hex(const PublicKey& key);

}  // namespace dg::module
