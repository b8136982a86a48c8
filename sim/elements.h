// Input elements as the generated NPU reads them from memory, shared by the co-simulation
// harness and the Icarus stimulus generator.
//
// sN / uN (signed / unsigned N-bit, 2 <= N <= 16; int4, int8, int16 are s4, s8, s16). An element
// takes a 1-byte container up to 8 bits, else 2 (little-endian), except 4-bit elements: those are
// packed two per byte along the row, element 2i in the low nibble of byte i and 2i + 1 in the high
// nibble. An element's value is its low N bits, sign- or zero-extended.
#pragma once

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace dg::sim {

struct Format {
  int bits = 8, bytes = 1;  // bytes: the container; 0 for packed 4-bit elements
  bool is_signed = true;
  std::string name() const { return (is_signed ? "s" : "u") + std::to_string(bits); }
  /// Bytes of `count` consecutive elements.
  std::uint64_t size(std::int64_t count) const {
    return bytes == 0 ? static_cast<std::uint64_t>(count + 1) / 2 : static_cast<std::uint64_t>(count) * bytes;
  }
};

inline bool parse_format(const std::string& s, Format& f) {
  const std::string t = s == "int4" ? "s4" : s == "int8" ? "s8" : s == "int16" ? "s16" : s;
  if (t.size() < 2 || (t[0] != 's' && t[0] != 'u')) return false;
  char* end = nullptr;
  const long b = std::strtol(t.c_str() + 1, &end, 10);
  if (*end != '\0' || b < 2 || b > 16) return false;
  f.bits = static_cast<int>(b);
  f.bytes = b == 4 ? 0 : b <= 8 ? 1 : 2;
  f.is_signed = t[0] == 's';
  return true;
}

/// Element `index` of the buffer at `p`.
inline std::int64_t decode(const Format& f, const std::uint8_t* p, std::int64_t index) {
  std::uint32_t raw;
  if (f.bytes == 0) {
    raw = static_cast<std::uint32_t>(p[index / 2] >> (index % 2 ? 4 : 0));
  } else {
    const std::uint8_t* e = p + index * f.bytes;
    raw = e[0] | (f.bytes == 2 ? static_cast<std::uint32_t>(e[1]) << 8 : 0u);
  }
  raw &= (1u << f.bits) - 1;
  if (f.is_signed && (raw >> (f.bits - 1)) != 0) return static_cast<std::int64_t>(raw) - (std::int64_t{1} << f.bits);
  return raw;
}

/// Writes value `v` (its low bits) as element `index` of the buffer at `p`.
inline void encode(const Format& f, std::uint8_t* p, std::int64_t index, std::uint32_t v) {
  if (f.bytes == 0) {
    std::uint8_t& byte = p[index / 2];
    byte = static_cast<std::uint8_t>(index % 2 ? (byte & 0x0fu) | ((v & 0xfu) << 4) : (byte & 0xf0u) | (v & 0xfu));
    return;
  }
  for (int b = 0; b < f.bytes; ++b) p[index * f.bytes + b] = static_cast<std::uint8_t>(v >> (8 * b));
}

/// `count` elements drawn uniformly over the type's range, in order.
inline std::vector<std::uint8_t> draw(std::mt19937_64& rng, const Format& f, std::int64_t count) {
  const std::int64_t lo = f.is_signed ? -(std::int64_t{1} << (f.bits - 1)) : 0;
  const std::int64_t hi = f.is_signed ? (std::int64_t{1} << (f.bits - 1)) - 1 : (std::int64_t{1} << f.bits) - 1;
  std::uniform_int_distribution<std::int64_t> d(lo, hi);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(f.size(count)));
  for (std::int64_t i = 0; i < count; ++i) encode(f, out.data(), i, static_cast<std::uint32_t>(d(rng)));
  return out;
}

/// An element of C from the exact sum of its products (modulo 2^64): the sum as the accumulator
/// holds it (acc_bits, two's complement, wrapping), then sign-extended into a C as wide or wider,
/// or saturated into an int32 C of wider accumulators.
inline std::int64_t c_element(std::uint64_t sum, int acc_bits, int c_bits) {
  const int drop = 64 - acc_bits;
  std::int64_t v = static_cast<std::int64_t>(sum << drop) >> drop;
  if (c_bits < acc_bits) v = v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : v;
  return v;
}

/// The fused epilogue of the generated NPU (hdl-gen/rtl/dg_epilogue.v), on one column.
struct Epilogue {
  bool bias = false, relu = false, requant = false;
  int out_bits = 8;  // the requantized element: 8 or 16 bits
};

/// One column's parameters: bias (an int32), and the rq record's multiplier, shift (0..63) and
/// zero point.
struct EpiColumn {
  std::int32_t bias = 0, mult = 0;
  unsigned shift = 0;
  std::int16_t zp = 0;
};

/// The rq record of a column as it lies in memory (8 bytes, little-endian): the int32 multiplier
/// in bytes 0-3, the shift in byte 4 (its low 6 bits), byte 5 unused, the int16 zero point in
/// bytes 6-7.
inline EpiColumn rq_record(const std::uint8_t* p) {
  EpiColumn c;
  c.mult = static_cast<std::int32_t>(static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
                                     static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24);
  c.shift = p[4] & 63u;
  c.zp = static_cast<std::int16_t>(static_cast<std::uint16_t>(p[6] | p[7] << 8));
  return c;
}

/// The rq record of column `c`, written as rq_record reads it (byte 5 zero).
inline void put_rq_record(const EpiColumn& c, std::uint8_t* p) {
  const auto mult = static_cast<std::uint32_t>(c.mult);
  const auto zp = static_cast<std::uint16_t>(c.zp);
  for (int b = 0; b < 4; ++b) p[b] = static_cast<std::uint8_t>(mult >> (8 * b));
  p[4] = static_cast<std::uint8_t>(c.shift & 63u);
  p[5] = 0;
  p[6] = static_cast<std::uint8_t>(zp);
  p[7] = static_cast<std::uint8_t>(zp >> 8);
}

/// The value the epilogue makes of an accumulator `acc` (already wrapped to acc_bits): with bias,
/// acc + bias saturated to acc_bits; with relu, max(that, 0); with requant, the product with the
/// multiplier, plus 2^(shift-1) when shift > 0, shifted right arithmetically by shift (rounding
/// half up: ties toward +infinity), plus the zero point, saturated to out_bits.
inline std::int64_t epilogue_value(std::int64_t acc, int acc_bits, const Epilogue& e, const EpiColumn& c) {
  __int128 s = acc;
  if (e.bias) {
    s += c.bias;
    const __int128 hi = (static_cast<__int128>(1) << (acc_bits - 1)) - 1, lo = -hi - 1;
    s = s > hi ? hi : s < lo ? lo : s;
  }
  if (e.relu && s < 0) s = 0;
  if (!e.requant) return static_cast<std::int64_t>(s);
  __int128 p = s * c.mult;
  if (c.shift > 0) p = (p + (static_cast<__int128>(1) << (c.shift - 1))) >> c.shift;
  p += c.zp;
  const __int128 hi = (static_cast<__int128>(1) << (e.out_bits - 1)) - 1, lo = -hi - 1;
  return static_cast<std::int64_t>(p > hi ? hi : p < lo ? lo : p);
}

/// C's element from the exact sum: wrapped to the accumulator's width, through the epilogue, then
/// sign-extended or saturated to int32 (as c_element); a requantized element is already in range.
inline std::int64_t c_element_epi(std::uint64_t sum, int acc_bits, int c_bits, const Epilogue& e, const EpiColumn& c) {
  const int drop = 64 - acc_bits;
  std::int64_t v = epilogue_value(static_cast<std::int64_t>(sum << drop) >> drop, acc_bits, e, c);
  if (!e.requant && c_bits < acc_bits) v = v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : v;
  return v;
}

}  // namespace dg::sim
