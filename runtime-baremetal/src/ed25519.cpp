// Ed25519 verification and SHA-512 (deepgemm/ed25519.h), written from RFC 8032 and FIPS 180-4:
// SHA-512; arithmetic in GF(2^255 - 19) with ten signed limbs; points of the twisted Edwards curve
// -x^2 + y^2 = 1 + d x^2 y^2 in extended coordinates (RFC 8032 section 5.1.4); point decoding and
// encoding (5.1.3, 5.1.2); scalars mod L; and the verification of 5.1.7.
#include "freestanding.h"

#include <deepgemm/ed25519.h>

namespace dg::ed25519 {
namespace {

// ---- SHA-512 (FIPS 180-4 section 6.4) -----------------------------------------------------------

// The first 64 bits of the fractional parts of the cube roots of the first 80 primes (4.2.3).
constexpr uint64_t kRound[80] = {
    0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc, 0x3956c25bf348b538,
    0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118, 0xd807aa98a3030242, 0x12835b0145706fbe,
    0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2, 0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235,
    0xc19bf174cf692694, 0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
    0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5, 0x983e5152ee66dfab,
    0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4, 0xc6e00bf33da88fc2, 0xd5a79147930aa725,
    0x06ca6351e003826f, 0x142929670a0e6e70, 0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed,
    0x53380d139d95b3df, 0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
    0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30, 0xd192e819d6ef5218,
    0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8, 0x19a4c116b8d2d0c8, 0x1e376c085141ab53,
    0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8, 0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373,
    0x682e6ff3d6b2b8a3, 0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
    0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b, 0xca273eceea26619c,
    0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178, 0x06f067aa72176fba, 0x0a637dc5a2c898a6,
    0x113f9804bef90dae, 0x1b710b35131c471b, 0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc,
    0x431d67c49c100d4c, 0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
};

// The first 64 bits of the fractional parts of the square roots of the first 8 primes (5.3.5).
constexpr uint64_t kInitial[8] = {
    0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
    0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
};

inline uint64_t rotr(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

/// One block (6.4.2), with the message schedule kept as a ring of its last 16 words.
void compress(uint64_t state[8], const uint8_t block[128]) {
  uint64_t w[16];
  for (int t = 0; t < 16; ++t) {
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v = (v << 8) | block[8 * t + b];
    w[t] = v;
  }
  uint64_t s[8];
  for (int i = 0; i < 8; ++i) s[i] = state[i];
  for (int t = 0; t < 80; ++t) {
    if (t >= 16) {
      const uint64_t w15 = w[(t - 15) & 15], w2 = w[(t - 2) & 15];
      const uint64_t sigma0 = rotr(w15, 1) ^ rotr(w15, 8) ^ (w15 >> 7);
      const uint64_t sigma1 = rotr(w2, 19) ^ rotr(w2, 61) ^ (w2 >> 6);
      w[t & 15] += sigma0 + w[(t - 7) & 15] + sigma1;
    }
    const uint64_t a = s[0], e = s[4];
    const uint64_t sum1 = rotr(e, 14) ^ rotr(e, 18) ^ rotr(e, 41);
    const uint64_t ch = (e & s[5]) ^ (~e & s[6]);
    const uint64_t t1 = s[7] + sum1 + ch + kRound[t] + w[t & 15];
    const uint64_t sum0 = rotr(a, 28) ^ rotr(a, 34) ^ rotr(a, 39);
    const uint64_t maj = (a & s[1]) ^ (a & s[2]) ^ (s[1] & s[2]);
    for (int i = 7; i > 0; --i) s[i] = s[i - 1];
    s[4] += t1;
    s[0] = t1 + sum0 + maj;
  }
  for (int i = 0; i < 8; ++i) state[i] += s[i];
}

// ---- GF(2^255 - 19) -----------------------------------------------------------------------------

/// A field element: the sum of v[i] * 2^ceil(25.5 i), i.e. limbs of 26, 25, 26, 25, ... bits at
/// bit offsets 0, 26, 51, 77, 102, 128, 153, 179, 204, 230. Every function returns a carried
/// element: each limb in [0, 2^26) or [0, 2^25) by its width, except v[1], within 2^15 of
/// [0, 2^25); so |v[i]| < 2^26, and 4 * v[i] fits in 32 bits.
struct Fe {
  int32_t v[10];
};

constexpr int limb_bits(int i) { return 26 - (i & 1); }

/// Carries the first ten limbs of h, each below 2^61 in magnitude, into a carried element. The
/// carry out of the top limb, worth 2^255 = 19 (mod p), comes back into the lowest.
constexpr Fe carry(int64_t h[10]) {
  for (int i = 0; i < 10; ++i) {
    const int64_t c = h[i] >> limb_bits(i);  // floor division
    h[i] &= (int64_t{1} << limb_bits(i)) - 1;
    if (i < 9) {
      h[i + 1] += c;
    } else {
      h[0] += 19 * c;
    }
  }
  const int64_t c = h[0] >> 26;
  h[0] &= (int64_t{1} << 26) - 1;
  h[1] += c;
  Fe r;
  for (int i = 0; i < 10; ++i) r.v[i] = static_cast<int32_t>(h[i]);
  return r;
}

constexpr Fe add(const Fe& a, const Fe& b) {
  int64_t h[10];
  for (int i = 0; i < 10; ++i) h[i] = int64_t{a.v[i]} + b.v[i];
  return carry(h);
}

constexpr Fe sub(const Fe& a, const Fe& b) {
  int64_t h[10];
  for (int i = 0; i < 10; ++i) h[i] = int64_t{a.v[i]} - b.v[i];
  return carry(h);
}

constexpr Fe neg(const Fe& a) { return sub(Fe{}, a); }

/// Folds the 19 limbs of a product into a carried element: limb k >= 10 weighs 2^255 times limb
/// k - 10, and 2^255 = 19 (mod p). For the products below, a limb of h is at most 11 * 2^53 in
/// magnitude, so a folded one at most 20 * 11 * 2^53 < 2^61.
constexpr Fe fold(int64_t h[19]) {
  for (int k = 0; k < 9; ++k) h[k] += 19 * h[k + 10];
  return carry(h);
}

/// Schoolbook product. Limbs i and j meet at bit offset ceil(25.5 i) + ceil(25.5 j): that of limb
/// i + j, plus one when i and j are both odd. A term is below 2^27 * 2^26 = 2^53; a limb of h sums
/// at most 10.
constexpr Fe mul(const Fe& a, const Fe& b) {
  int64_t h[19] = {};
  for (int i = 0; i < 10; ++i) {
    const int32_t x = a.v[i];
    const int32_t x_odd = (i & 1) ? 2 * x : x;  // the multiplier of the odd limbs of b
    for (int j = 0; j < 10; j += 2) {
      h[i + j] += int64_t{x} * b.v[j];
      h[i + j + 1] += int64_t{x_odd} * b.v[j + 1];
    }
  }
  return fold(h);
}

/// a^2: mul(a, a) with each pair of terms i != j taken once, doubled (5 pairs of terms below 2^54
/// and one below 2^53 at most in a limb of h).
constexpr Fe square(const Fe& a) {
  int64_t h[19] = {};
  for (int i = 0; i < 10; ++i) {
    const int32_t x = a.v[i];
    const int32_t x_odd = (i & 1) ? 2 * x : x;
    h[2 * i] += int64_t{x} * x_odd;
    for (int j = i + 1; j < 10; ++j) h[i + j] += int64_t{(j & 1) ? 2 * x_odd : 2 * x} * a.v[j];
  }
  return fold(h);
}

/// The low 255 bits of 32 little-endian bytes (bit 255 is ignored), not reduced mod p.
constexpr Fe from_bytes(const uint8_t s[32]) {
  int64_t h[10];
  int pos = 0;
  for (int i = 0; i < 10; ++i) {
    uint64_t w = 0;  // the 5 bytes from the one holding bit pos (a limb spans at most 33 bits)
    for (int k = 0; k < 5 && pos / 8 + k < 32; ++k) w |= uint64_t{s[pos / 8 + k]} << (8 * k);
    h[i] = static_cast<int64_t>((w >> (pos % 8)) & ((uint64_t{1} << limb_bits(i)) - 1));
    pos += limb_bits(i);
  }
  return carry(h);
}

/// The canonical encoding: the value reduced to [0, p), 32 bytes little-endian (bit 255 is 0).
void to_bytes(uint8_t out[32], const Fe& f) {
  int64_t h[10];
  for (int i = 0; i < 10; ++i) h[i] = f.v[i];
  // Every limb into [0, 2^bits), which puts the value in [0, 2^255); a carry out of the top
  // (-1, 0 or 1 here) comes back as 19 and needs another pass.
  for (;;) {
    int64_t c = 0;
    for (int i = 0; i < 10; ++i) {
      h[i] += c;
      c = h[i] >> limb_bits(i);
      h[i] &= (int64_t{1} << limb_bits(i)) - 1;
    }
    if (c == 0) break;
    h[0] += 19 * c;
  }
  // Subtract p when the value is at least p, that is when value + 19 reaches 2^255.
  int64_t t[10];
  int64_t c = 19;
  for (int i = 0; i < 10; ++i) {
    t[i] = h[i] + c;
    c = t[i] >> limb_bits(i);
    t[i] &= (int64_t{1} << limb_bits(i)) - 1;
  }
  const int64_t* r = c != 0 ? t : h;
  uint64_t acc = 0;
  int bits = 0, o = 0;
  for (int i = 0; i < 10; ++i) {
    acc |= static_cast<uint64_t>(r[i]) << bits;
    bits += limb_bits(i);
    for (; bits >= 8; bits -= 8, acc >>= 8) out[o++] = static_cast<uint8_t>(acc);
  }
  out[31] = static_cast<uint8_t>(acc);  // the last 7 bits
}

bool equal(const Fe& a, const Fe& b) {
  uint8_t x[32], y[32];
  to_bytes(x, a);
  to_bytes(y, b);
  for (int i = 0; i < 32; ++i) {
    if (x[i] != y[i]) return false;
  }
  return true;
}

/// a^(2^n), n >= 1.
Fe square_times(Fe a, int n) {
  for (int i = 0; i < n; ++i) a = square(a);
  return a;
}

/// a^(2^250 - 1), by a chain of x_k = a^(2^k - 1): x_(j + k) = x_j^(2^k) x_k.
Fe pow_2_250_minus_1(const Fe& a) {
  const Fe x2 = mul(square(a), a);
  const Fe x4 = mul(square_times(x2, 2), x2);
  const Fe x5 = mul(square(x4), a);
  const Fe x10 = mul(square_times(x5, 5), x5);
  const Fe x20 = mul(square_times(x10, 10), x10);
  const Fe x40 = mul(square_times(x20, 20), x20);
  const Fe x50 = mul(square_times(x40, 10), x10);
  const Fe x100 = mul(square_times(x50, 50), x50);
  const Fe x200 = mul(square_times(x100, 100), x100);
  return mul(square_times(x200, 50), x50);
}

/// 1 / a = a^(p - 2) = a^(2^255 - 21) = (a^(2^250 - 1))^(2^5) a^11 (0 when a = 0).
Fe invert(const Fe& a) {
  const Fe a11 = mul(square_times(a, 3), mul(square(a), a));
  return mul(square_times(pow_2_250_minus_1(a), 5), a11);
}

/// a^((p - 5) / 8) = a^(2^252 - 3) = (a^(2^250 - 1))^(2^2) a, for the square root.
Fe pow_p58(const Fe& a) { return mul(square_times(pow_2_250_minus_1(a), 2), a); }

constexpr Fe kOne = {{1}};

constexpr uint8_t kDBytes[32] = {  // d = -121665 / 121666
    0xa3, 0x78, 0x59, 0x13, 0xca, 0x4d, 0xeb, 0x75, 0xab, 0xd8, 0x41, 0x41, 0x4d, 0x0a, 0x70, 0x00,
    0x98, 0xe8, 0x79, 0x77, 0x79, 0x40, 0xc7, 0x8c, 0x73, 0xfe, 0x6f, 0x2b, 0xee, 0x6c, 0x03, 0x52};
constexpr uint8_t kSqrtM1Bytes[32] = {  // 2^((p - 1) / 4), a square root of -1
    0xb0, 0xa0, 0x0e, 0x4a, 0x27, 0x1b, 0xee, 0xc4, 0x78, 0xe4, 0x2f, 0xad, 0x06, 0x18, 0x43, 0x2f,
    0xa7, 0xd7, 0xfb, 0x3d, 0x99, 0x00, 0x4d, 0x2b, 0x0b, 0xdf, 0xc1, 0x4f, 0x80, 0x24, 0x83, 0x2b};
constexpr uint8_t kBaseX[32] = {  // the base point B = (x, 4/5), x even
    0x1a, 0xd5, 0x25, 0x8f, 0x60, 0x2d, 0x56, 0xc9, 0xb2, 0xa7, 0x25, 0x95, 0x60, 0xc7, 0x2c, 0x69,
    0x5c, 0xdc, 0xd6, 0xfd, 0x31, 0xe2, 0xa4, 0xc0, 0xfe, 0x53, 0x6e, 0xcd, 0xd3, 0x36, 0x69, 0x21};
constexpr uint8_t kBaseY[32] = {0x58, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
                                0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
                                0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66};

constexpr Fe kD = from_bytes(kDBytes);
constexpr Fe k2D = add(kD, kD);
constexpr Fe kSqrtM1 = from_bytes(kSqrtM1Bytes);

// ---- The curve ----------------------------------------------------------------------------------

/// (X : Y : Z : T) with x = X / Z, y = Y / Z, x y = T / Z.
struct Point {
  Fe X, Y, Z, T;
};

constexpr Point kBase = {from_bytes(kBaseX), from_bytes(kBaseY), kOne, mul(from_bytes(kBaseX), from_bytes(kBaseY))};
constexpr Point kIdentity = {Fe{}, kOne, kOne, Fe{}};

/// p + q (RFC 8032 section 5.1.4, complete: also for p = q and for the identity).
Point add(const Point& p, const Point& q) {
  const Fe a = mul(sub(p.Y, p.X), sub(q.Y, q.X));
  const Fe b = mul(add(p.Y, p.X), add(q.Y, q.X));
  const Fe c = mul(mul(p.T, q.T), k2D);
  const Fe zz = mul(p.Z, q.Z);
  const Fe d = add(zz, zz);
  const Fe e = sub(b, a), f = sub(d, c), g = add(d, c), h = add(b, a);
  return {mul(e, f), mul(g, h), mul(f, g), mul(e, h)};
}

/// 2p (section 5.1.4, the dedicated doubling).
Point twice(const Point& p) {
  const Fe a = square(p.X);
  const Fe b = square(p.Y);
  const Fe zz = square(p.Z);
  const Fe c = add(zz, zz);
  const Fe h = add(a, b);
  const Fe e = sub(h, square(add(p.X, p.Y)));
  const Fe g = sub(a, b);
  const Fe f = add(c, g);
  return {mul(e, f), mul(g, h), mul(f, g), mul(e, h)};
}

/// Section 5.1.3. False when s is not the canonical encoding of a point of the curve.
bool decode(Point* out, const uint8_t s[32]) {
  const Fe y = from_bytes(s);
  uint8_t canonical[32];
  to_bytes(canonical, y);
  for (int i = 0; i < 32; ++i) {
    if (canonical[i] != (i == 31 ? s[i] & 0x7f : s[i])) return false;  // y >= p
  }
  const int sign = s[31] >> 7;
  // x^2 = u / v; the candidate root is u v^3 (u v^7)^((p - 5) / 8).
  const Fe yy = square(y);
  const Fe u = sub(yy, kOne);
  const Fe v = add(mul(kD, yy), kOne);
  const Fe v3 = mul(square(v), v);
  const Fe v7 = mul(square(v3), v);
  Fe x = mul(mul(u, v3), pow_p58(mul(u, v7)));
  const Fe vxx = mul(v, square(x));
  if (!equal(vxx, u)) {
    if (!equal(vxx, neg(u))) return false;  // no square root
    x = mul(x, kSqrtM1);
  }
  uint8_t xb[32];
  to_bytes(xb, x);
  if ((xb[0] & 1) != sign) {
    bool zero = true;
    for (int i = 0; i < 32; ++i) zero = zero && xb[i] == 0;
    if (zero) return false;  // x = 0 has no negative
    x = neg(x);
  }
  *out = {x, y, kOne, mul(x, y)};
  return true;
}

/// Section 5.1.2.
void encode(uint8_t out[32], const Point& p) {
  const Fe zinv = invert(p.Z);
  uint8_t xb[32];
  to_bytes(xb, mul(p.X, zinv));
  to_bytes(out, mul(p.Y, zinv));
  out[31] |= static_cast<uint8_t>((xb[0] & 1) << 7);
}

// ---- Scalars mod L ------------------------------------------------------------------------------

/// L = 2^252 + 27742317777372353535851937790883648493, in little-endian 32-bit words.
constexpr uint32_t kOrder[8] = {0x5cf5d3ed, 0x5812631a, 0xa2f79cd6, 0x14def9de, 0, 0, 0, 0x10000000};

uint32_t load32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

/// a < L, a in 8 little-endian words.
bool below_order(const uint32_t a[8]) {
  for (int i = 7; i >= 0; --i) {
    if (a[i] != kOrder[i]) return a[i] < kOrder[i];
  }
  return false;
}

/// The 64-byte little-endian integer h mod L, as 32 little-endian bytes: long division, one bit
/// of h at a time (r < L < 2^253, so 2r + 1 fits in 256 bits).
void reduce(uint8_t out[32], const uint8_t h[64]) {
  uint32_t r[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int bit = 511; bit >= 0; --bit) {
    uint32_t in = (h[bit / 8] >> (bit % 8)) & 1;
    for (int i = 0; i < 8; ++i) {
      const uint32_t top = r[i] >> 31;
      r[i] = (r[i] << 1) | in;
      in = top;
    }
    if (!below_order(r)) {
      uint32_t borrow = 0;
      for (int i = 0; i < 8; ++i) {
        const uint32_t a = r[i], b = kOrder[i];
        r[i] = a - b - borrow;
        borrow = (a < b || (a == b && borrow != 0)) ? 1 : 0;
      }
    }
  }
  for (int i = 0; i < 32; ++i) out[i] = static_cast<uint8_t>(r[i / 4] >> (8 * (i % 4)));
}

inline int bit_of(const uint8_t s[32], int i) { return (s[i / 8] >> (i % 8)) & 1; }

}  // namespace

void sha512_init(Sha512* ctx) {
  for (int i = 0; i < 8; ++i) ctx->state[i] = kInitial[i];
  ctx->length = 0;
}

void sha512_update(Sha512* ctx, const uint8_t* data, size_t size) {
  size_t fill = static_cast<size_t>(ctx->length % 128);
  ctx->length += size;
  for (size_t i = 0; i < size; ++i) {
    ctx->block[fill++] = data[i];
    if (fill == 128) {
      compress(ctx->state, ctx->block);
      fill = 0;
    }
  }
}

void sha512_final(Sha512* ctx, uint8_t out[64]) {
  const uint64_t length = ctx->length;
  size_t fill = static_cast<size_t>(length % 128);
  ctx->block[fill++] = 0x80;
  if (fill > 112) {  // no room for the 16-byte length: pad this block, then a whole one
    while (fill < 128) ctx->block[fill++] = 0;
    compress(ctx->state, ctx->block);
    fill = 0;
  }
  while (fill < 119) ctx->block[fill++] = 0;
  // The message length in bits, a 128-bit big-endian integer: length * 8 = (length >> 61) * 2^64
  // + (length << 3 mod 2^64).
  ctx->block[119] = static_cast<uint8_t>(length >> 61);
  const uint64_t bits = length << 3;
  for (int i = 0; i < 8; ++i) ctx->block[120 + i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
  compress(ctx->state, ctx->block);
  for (int i = 0; i < 64; ++i) {
    out[i] = static_cast<uint8_t>(ctx->state[i / 8] >> (56 - 8 * (i % 8)));
  }
}

void sha512(const uint8_t* data, size_t size, uint8_t out[64]) {
  Sha512 ctx;
  sha512_init(&ctx);
  sha512_update(&ctx, data, size);
  sha512_final(&ctx, out);
}

bool verify(const uint8_t signature[64], const uint8_t* message, size_t length, const uint8_t public_key[32]) {
  return verify2(signature, message, length, nullptr, 0, public_key);
}

bool verify2(const uint8_t signature[64], const uint8_t* m1, size_t n1, const uint8_t* m2, size_t n2,
             const uint8_t public_key[32]) {
  const uint8_t* r_bytes = signature;
  const uint8_t* s_bytes = signature + 32;
  uint32_t s_words[8];
  for (int i = 0; i < 8; ++i) s_words[i] = load32(s_bytes + 4 * i);
  if (!below_order(s_words)) return false;  // non-canonical S

  Point minus_a;
  if (!decode(&minus_a, public_key)) return false;
  minus_a.X = neg(minus_a.X);
  minus_a.T = neg(minus_a.T);

  uint8_t k[32];
  {
    Sha512 ctx;
    uint8_t digest[64];
    sha512_init(&ctx);
    sha512_update(&ctx, r_bytes, 32);
    sha512_update(&ctx, public_key, 32);
    sha512_update(&ctx, m1, n1);
    sha512_update(&ctx, m2, n2);
    sha512_final(&ctx, digest);
    reduce(k, digest);
  }

  // [S]B + [k](-A), both scalars below L < 2^253: one doubling per bit, and one addition of B,
  // -A or B - A by the pair of bits.
  const Point b_minus_a = add(kBase, minus_a);
  Point acc = kIdentity;
  for (int i = 252; i >= 0; --i) {
    acc = twice(acc);
    const int pick = bit_of(s_bytes, i) | bit_of(k, i) << 1;
    if (pick != 0) acc = add(acc, pick == 1 ? kBase : pick == 2 ? minus_a : b_minus_a);
  }

  uint8_t check[32];
  encode(check, acc);
  bool same = true;
  for (int i = 0; i < 32; ++i) same = same && check[i] == r_bytes[i];
  return same;
}

}  // namespace dg::ed25519
