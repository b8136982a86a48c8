// Packed 4-bit weights: the layout the weight-streaming kernel (compiler/codegen/w4a16.cpp) reads,
// and the packer shared by `deepgemm pack` and the CUDA runtime's dgmm_pack_weights. Freestanding
// like launch_format.h: no heap, no exceptions, fixed little-endian bytes.
//
// Plain input: K×N 4-bit weights, two per byte, element e in byte e / 2, low nibble first (even e
// low): signed int4 (two's complement nibbles, v in [-8, 7]) for layout 1, unsigned u4 (u in
// [0, 15], the value u - 8: an implicit zero point of 8) for layout 2, FP4 E2M1 codes (sign,
// 2 exponent bits, 1 mantissa bit: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives) for layout 3. Order kKByN: element
// (k, n) is e = k·N + n (row-major K×N); kNByK: e = n·K + k (row-major N×K, each output column's K weights together).
//
// A packed buffer is a 64-byte header followed by the data:
//
//   offset  size  field
//        0     4  magic "DGW4"
//        4     4  version (1)
//        8     4  layout id (kLayoutN8K128)
//       12     4  reserved, 0
//       16     8  K (u64)
//       24     8  N (u64)
//       32    32  reserved, 0
//
// Layouts 1, "n8k128" (int4), 2, "n8k128u" (u4), and 3, "n8k128f4" (E2M1), differ only in the
// stored nibble: N is a multiple of 8; K is padded to KB = ceil(K / 128) blocks of 128. The
// data is N/8 column tiles, each KB chunks of 512 bytes (tile j, block q at (j·KB + q)·512). In a
// chunk, lane l = 4g + t (g = l / 4, t = l % 4) of a warp owns bytes [16 l, 16 l + 16): four 32-bit
// words, word w holding column n = 8j + g at k0 = 128q + 32w + 8t: nibble p (bits 4p..4p+3) holds
// k0 + kPerm[p] with kPerm = {0, 2, 4, 6, 1, 3, 5, 7}, stored as v + 8 (int4: (v & 15) ^ 8; u4:
// u itself; E2M1: the code itself); k at or past K holds 8 (a zero weight: -0.0 in E2M1). So one 16-byte load gives a
// lane the B fragments of eight m16n8k16 steps (after a k permutation that the kernel applies to A as well), and (word
// >> 4i) & 0x000f000f pairs nibbles i and i + 4: k0 + 2i and k0 + 2i + 1, one fp16x2 register once OR-ed into 1024.0's
// mantissa and 1032 subtracted.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace dg::ko::w4 {

inline constexpr uint32_t kLayoutN8K128 = 1;    // signed int4 weights
inline constexpr uint32_t kLayoutN8K128U4 = 2;  // unsigned u4 weights, zero point 8
inline constexpr uint32_t kLayoutN8K128F4 = 3;  // FP4 E2M1 weights
inline constexpr uint32_t kHeaderBytes = 64;
inline constexpr uint32_t kVersion = 1;
inline constexpr uint8_t kMagic[4] = {'D', 'G', 'W', '4'};
inline constexpr uint8_t kPerm[8] = {0, 2, 4, 6, 1, 3, 5, 7};

enum class Order : uint32_t { KByN = 0, NByK = 1 };

/// A layout's name ("n8k128"), or nullptr for an id no packer knows.
inline const char* layout_name(uint32_t id) {
  return id == kLayoutN8K128     ? "n8k128"
         : id == kLayoutN8K128U4 ? "n8k128u"
         : id == kLayoutN8K128F4 ? "n8k128f4"
                                 : nullptr;
}

/// What a plain nibble is XOR-ed with when stored: int4's sign bit flipped (v + 8), u4 and E2M1
/// as they are.
inline unsigned stored_flip(uint32_t id) { return id == kLayoutN8K128 ? 8u : 0u; }

inline uint64_t k_blocks(uint64_t K) { return (K + 127) / 128; }

/// Bytes of a packed buffer, header included (0 when N is not a multiple of 8 or a size is 0).
inline uint64_t packed_bytes(uint64_t K, uint64_t N) {
  if (K == 0 || N == 0 || N % 8 != 0 || K > 0x7fffffff || N > 0x7fffffff) return 0;
  return kHeaderBytes + (N / 8) * k_blocks(K) * 512;
}

/// Bytes of the plain input: K·N nibbles, two per byte.
inline uint64_t plain_bytes(uint64_t K, uint64_t N) { return (K * N + 1) / 2; }

/// Where element (k, n) lives in the packed data (after the header): byte offset and nibble shift.
inline void locate(uint64_t K, uint64_t k, uint64_t n, uint64_t* byte, unsigned* shift) {
  const uint64_t j = n / 8, g = n % 8, q = k / 128, w = (k % 128) / 32, t = (k % 32) / 8, r = k % 8;
  unsigned p = 0;
  while (kPerm[p] != r) ++p;
  *byte = (j * k_blocks(K) + q) * 512 + (4 * g + t) * 16 + 4 * w + p / 2;
  *shift = (p % 2) * 4;
}

namespace detail {
inline uint64_t rd64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
inline void wr64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline unsigned plain_at(const uint8_t* src, uint64_t e) { return (src[e / 2] >> ((e % 2) * 4)) & 15u; }
}  // namespace detail

/// Check that `p` (n bytes) is a packed buffer of layout `layout` for K×N weights. Returns a static
/// message naming what differs, nullptr when it matches.
inline const char* check_header(const uint8_t* p, uint64_t n, uint32_t layout, uint64_t K, uint64_t N) {
  if (!p) return "packed weights: null buffer";
  if (n < kHeaderBytes) return "packed weights: shorter than the 64-byte header";
  for (int i = 0; i < 4; ++i)
    if (p[i] != kMagic[i])
      return "packed weights: no DGW4 header (plain int4 data? pack it with dgmm_pack_weights or deepgemm pack)";
  if ((uint32_t(p[4]) | uint32_t(p[5]) << 8 | uint32_t(p[6]) << 16 | uint32_t(p[7]) << 24) != kVersion)
    return "packed weights: unsupported header version";
  const uint32_t id = uint32_t(p[8]) | uint32_t(p[9]) << 8 | uint32_t(p[10]) << 16 | uint32_t(p[11]) << 24;
  if (id != layout) return "packed weights: packed for another layout than the module reads";
  if (detail::rd64(p + 16) != K || detail::rd64(p + 24) != N)
    return "packed weights: packed for another K×N than the module's";
  return nullptr;
}

/// Pack plain int4 weights `src` (plain_bytes(K, N) bytes, `order`) into `dst` (dst_bytes, at least
/// packed_bytes(K, N)) in layout `layout`. Returns a static message on failure, nullptr on success.
inline const char* pack(const uint8_t* src, Order order, uint64_t K, uint64_t N, uint32_t layout, uint8_t* dst,
                        uint64_t dst_bytes) {
  if (!src || !dst) return "pack: null buffer";
  if (layout_name(layout) == nullptr) return "pack: unknown layout id";
  if (order != Order::KByN && order != Order::NByK) return "pack: unknown order (K×N or N×K)";
  const uint64_t total = packed_bytes(K, N);
  if (total == 0) return "pack: N must be a multiple of 8 and K, N in [1, 2^31)";
  if (dst_bytes < total) return "pack: destination smaller than the packed size";
  for (uint64_t i = 0; i < total; ++i) dst[i] = i < kHeaderBytes ? 0 : 0x88;  // every nibble a zero weight
  for (int i = 0; i < 4; ++i) dst[i] = kMagic[i];
  dst[4] = uint8_t(kVersion);
  dst[8] = uint8_t(layout);
  detail::wr64(dst + 16, K);
  detail::wr64(dst + 24, N);
  uint8_t* data = dst + kHeaderBytes;
  for (uint64_t k = 0; k < K; ++k)
    for (uint64_t n = 0; n < N; ++n) {
      const uint64_t e = order == Order::KByN ? k * N + n : n * K + k;
      const unsigned v = detail::plain_at(src, e) ^ stored_flip(layout);
      uint64_t byte;
      unsigned shift;
      locate(K, k, n, &byte, &shift);
      data[byte] = uint8_t((data[byte] & ~(15u << shift)) | (v << shift));
    }
  return nullptr;
}

/// The inverse of pack: `src` (n bytes, a packed buffer of layout `layout` for K×N) back into plain
/// int4 weights `dst` (plain_bytes(K, N) bytes, `order`).
inline const char* unpack(const uint8_t* src, uint64_t n, uint32_t layout, uint64_t K, uint64_t N, Order order,
                          uint8_t* dst) {
  if (!dst) return "unpack: null buffer";
  if (const char* why = check_header(src, n, layout, K, N)) return why;
  if (n < packed_bytes(K, N)) return "unpack: packed buffer shorter than its K×N";
  for (uint64_t i = 0; i < plain_bytes(K, N); ++i) dst[i] = 0;
  const uint8_t* data = src + kHeaderBytes;
  for (uint64_t k = 0; k < K; ++k)
    for (uint64_t c = 0; c < N; ++c) {
      uint64_t byte;
      unsigned shift;
      locate(K, k, c, &byte, &shift);
      const unsigned v = ((data[byte] >> shift) & 15u) ^ stored_flip(layout);
      const uint64_t e = order == Order::KByN ? k * N + c : c * K + k;
      dst[e / 2] = uint8_t(dst[e / 2] | (v << ((e % 2) * 4)));
    }
  return nullptr;
}

}  // namespace dg::ko::w4
