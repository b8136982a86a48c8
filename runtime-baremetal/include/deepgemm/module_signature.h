// Module signatures: an Ed25519 signature (RFC 8032) over a module's content, in a section of its own.
//
// Checksums catch accidents; a signature catches intent. `deepgemm keygen` makes a key pair,
// `deepgemm compile --sign KEY` adds the Signature section, and a reader given a trusted public key
// (runtime-cuda's and the bare-metal runtime's dgmm_trust_key, `deepgemm sim --trusted-key`) refuses
// a module that is unsigned, signed by another key, or altered after signing.
//
// The Signature section (kind 11, optional: a reader that does not check signatures skips it)
// holds 112 bytes:
//
//   offset  size  field
//        0     8  magic "DGMMSIG\x01"
//        8     4  algorithm: 1 = Ed25519 (pure, RFC 8032 section 5.1)
//       12     4  reserved, zero
//       16    32  the signer's public key
//       48    64  the signature
//
// The message signed is the 10 bytes "DGMM-SIG-1" followed by the 64-byte SHA-512 digest of the
// module's content: the domain string "DeepGEMM module content 1" and a NUL; the target kind (4
// bytes, little-endian) and the header's 24-byte target name field; the number of sections other
// than the signature (4 bytes); then, for each such section in table order, its kind, flags and
// payload size (4 bytes each), its 12-byte name field and its payload. Offsets, padding and CRCs
// are not signed: they follow from the rest (ko::parse checks them), and the signature does not
// sign itself. Every byte a reader acts on is covered.
//
// Freestanding like module_format.h: no heap, no exceptions, no library calls.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ed25519.h"
#include "module_format.h"

namespace dg::ko::sig {

inline constexpr uint32_t kSectionKind = static_cast<uint32_t>(SectionKind::Signature);
inline constexpr uint32_t kPayloadSize = 112;
inline constexpr uint8_t kMagic[8] = {'D', 'G', 'M', 'M', 'S', 'I', 'G', 1};
inline constexpr uint32_t kAlgorithmEd25519 = 1;
inline constexpr char kDomain[] = "DeepGEMM module content 1";  // hashed with its NUL
inline constexpr char kPrefix[] = "DGMM-SIG-1";                 // 10 bytes, without a NUL
inline constexpr size_t kPrefixSize = 10;
inline constexpr size_t kMessageSize = kPrefixSize + 64;

enum class Check : uint32_t {
  Valid = 0,     // signed, and the signature verifies (by the trusted key, when one is given)
  Unsigned,      // no Signature section
  Malformed,     // a Signature section that is not 112 bytes of the layout above
  BadSignature,  // the signature does not verify: the module was altered after signing
  UntrustedKey,  // a valid signature, but by another key than the trusted one
};

constexpr const char* check_message(Check c) {
  switch (c) {
    case Check::Valid: return "signature valid";
    case Check::Unsigned: return "module is not signed";
    case Check::Malformed: return "malformed signature section";
    case Check::BadSignature: return "signature does not verify: the module was altered after signing";
    case Check::UntrustedKey: return "module is signed by a key that is not the trusted one";
  }
  return "signature check failed";
}

namespace detail {
inline void put32(ed25519::Sha512* h, uint32_t v) {
  const uint8_t b[4] = {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16),
                        static_cast<uint8_t>(v >> 24)};
  ed25519::sha512_update(h, b, 4);
}
}  // namespace detail

/// The message a signature of `view` signs (kMessageSize bytes); false when the view is not valid.
inline bool message(const ModuleView& view, uint8_t out[kMessageSize]) {
  if (!view.ok() || view.data == nullptr) return false;
  ed25519::Sha512 h;
  ed25519::sha512_init(&h);
  ed25519::sha512_update(&h, reinterpret_cast<const uint8_t*>(kDomain), sizeof kDomain);
  detail::put32(&h, static_cast<uint32_t>(view.target_kind));
  ed25519::sha512_update(&h, view.data + header_field::kTargetName, kTargetNameSize);
  uint32_t count = 0;
  SectionInfo s;
  for (uint32_t i = 0; view.section(i, &s); ++i) count += s.kind != kSectionKind;
  detail::put32(&h, count);
  for (uint32_t i = 0; view.section(i, &s); ++i) {
    if (s.kind == kSectionKind) continue;
    detail::put32(&h, s.kind);
    detail::put32(&h, s.flags);
    detail::put32(&h, s.size);
    ed25519::sha512_update(&h,
                           view.data + kHeaderSize + static_cast<size_t>(i) * kSectionEntrySize + entry_field::kName,
                           kSectionNameSize);
    ed25519::sha512_update(&h, s.data, s.size);
  }
  for (size_t i = 0; i < kPrefixSize; ++i) out[i] = static_cast<uint8_t>(kPrefix[i]);
  ed25519::sha512_final(&h, out + kPrefixSize);
  return true;
}

/// The Signature section's fields; Unsigned or Malformed when there is none or it is bad.
struct Signature {
  uint8_t public_key[32];
  uint8_t signature[64];
};

inline Check read(const ModuleView& view, Signature* out) {
  const Payload p = view.find(kSectionKind);
  if (!p.present) return Check::Unsigned;
  if (p.size != kPayloadSize) return Check::Malformed;
  for (size_t i = 0; i < 8; ++i)
    if (p.data[i] != kMagic[i]) return Check::Malformed;
  if (load_u32(p.data + 8) != kAlgorithmEd25519 || load_u32(p.data + 12) != 0) return Check::Malformed;
  for (size_t i = 0; i < 32; ++i) out->public_key[i] = p.data[16 + i];
  for (size_t i = 0; i < 64; ++i) out->signature[i] = p.data[48 + i];
  return Check::Valid;
}

/// Checks `view`'s signature; with `trusted_key` (32 bytes, may be null) also that it is that key's.
inline Check check(const ModuleView& view, const uint8_t* trusted_key) {
  Signature s;
  const Check c = read(view, &s);
  if (c != Check::Valid) return c;
  uint8_t msg[kMessageSize];
  if (!message(view, msg)) return Check::Malformed;
  if (!ed25519::verify(s.signature, msg, kMessageSize, s.public_key)) return Check::BadSignature;
  if (trusted_key != nullptr) {
    uint8_t diff = 0;
    for (size_t i = 0; i < 32; ++i) diff |= static_cast<uint8_t>(trusted_key[i] ^ s.public_key[i]);
    if (diff != 0) return Check::UntrustedKey;
  }
  return Check::Valid;
}

/// The Signature section's payload for `public_key` and `signature` (kPayloadSize bytes).
inline void encode(const uint8_t public_key[32], const uint8_t signature[64], uint8_t out[kPayloadSize]) {
  for (size_t i = 0; i < kPayloadSize; ++i) out[i] = 0;
  for (size_t i = 0; i < 8; ++i) out[i] = kMagic[i];
  out[8] = static_cast<uint8_t>(kAlgorithmEd25519);
  for (size_t i = 0; i < 32; ++i) out[16 + i] = public_key[i];
  for (size_t i = 0; i < 64; ++i) out[48 + i] = signature[i];
}

}  // namespace dg::ko::sig
