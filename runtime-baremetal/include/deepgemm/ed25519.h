// Ed25519 signature verification (RFC 8032) and the SHA-512 it hashes with (FIPS 180-4), for the
// freestanding runtime: a board checks a module's signature before it loads it.
//
// Verification only; nothing here signs or handles a secret, so nothing needs to run in constant
// time, and nothing does. Freestanding C++20: the header and src/ed25519.cpp need only <stdint.h>
// and <stddef.h>, allocate nothing, throw nothing and call no library function (like any
// freestanding code they may make the compiler emit memcpy/memset, which GCC and clang require
// every environment to have); nothing depends on __STDC_HOSTED__. Field elements are ten signed
// 32-bit limbs whose products are summed in 64 bits, so a 32-bit core (rv32imac) multiplies with
// mul/mulh and never calls a helper. verify() uses about 2 KB of stack and no static data besides
// constants; on rv32imac (clang -Os) it runs about 26 million instructions.
//
// verify(signature = R || S, message M, public key A) follows RFC 8032 section 5.1.7, Ed25519 (no
// context, no prehash), with the cofactorless equation that the RFC allows in place of the
// cofactored one:
//
//   1. S, the second half of the signature read as a little-endian integer, must be below the group
//      order L = 2^252 + 27742317777372353535851937790883648493: a non-canonical S (S + L, ...) is
//      rejected, never reduced.
//   2. A is decoded as in section 5.1.3, and decoding fails, so the signature is rejected, when
//      the y coordinate (the low 255 bits) is not below p = 2^255 - 19, when x^2 = (y^2 - 1) /
//      (d y^2 + 1) has no square root, and when x = 0 but the sign bit (bit 255) is set.
//   3. k = SHA-512(R || A || M), the 64-byte digest read as a little-endian integer, reduced mod L.
//   4. The signature is valid when [S]B = R + [k]A. This is checked as encode([S]B - [k]A) == R,
//      byte for byte: the encoding of a point is canonical, so exactly the R that decode (5.1.3)
//      to that point pass, and an R that does not decode (y >= p, not on the curve, x = 0 with the
//      sign bit set) never does.
//
// A and R of small order are not refused (RFC 8032 does not ask for it; libsodium does, which
// matters only for keys and signatures made to be degenerate).
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace dg::ed25519 {

/// A SHA-512 computation in progress: sha512_init, any number of sha512_update, one sha512_final.
/// Plain data, no constructor: declare one anywhere (the stack is fine) and initialize it.
struct Sha512 {
  uint64_t state[8];   // the chaining value H0..H7
  uint64_t length;     // bytes hashed so far
  uint8_t block[128];  // the incomplete block: the first length % 128 bytes are pending
};

void sha512_init(Sha512* ctx);
/// Hashes size more bytes (data may be null when size is 0).
void sha512_update(Sha512* ctx, const uint8_t* data, size_t size);
/// Pads, writes the 64-byte digest to out and leaves ctx spent (sha512_init it again to reuse it).
void sha512_final(Sha512* ctx, uint8_t out[64]);
/// The digest of one buffer.
void sha512(const uint8_t* data, size_t size, uint8_t out[64]);

/// True when signature (R, 32 bytes, then S, 32 bytes) is a valid Ed25519 signature of the
/// length-byte message under public_key (32 bytes), as described above. message may be null when
/// length is 0.
bool verify(const uint8_t signature[64], const uint8_t* message, size_t length, const uint8_t public_key[32]);

/// verify() of the message m1 || m2 (n1 + n2 bytes), given in two pieces: for instance a module
/// with its signature field cut out. Either piece may be null when its size is 0.
bool verify2(const uint8_t signature[64], const uint8_t* m1, size_t n1, const uint8_t* m2, size_t n2,
             const uint8_t public_key[32]);

}  // namespace dg::ed25519
