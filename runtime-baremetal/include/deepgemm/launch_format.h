// The LAUNCH section of a GPU module: everything a runtime needs to launch the kernel without
// parsing the plan. Freestanding like module_format.h: fixed little-endian binary layout, read
// byte by byte, validated before use.
//
// Layout (all integers unsigned little-endian unless noted), version 4 (3 had no workspace field
// and its operands began at 160; a runtime reads its own version only and names both):
//
//   offset  size  field
//   ------  ----  ----------------------------------------------------------------------------
//        0     4  magic "DGLN"
//        4     4  version (4)
//        8    64  kernel entry name, printable ASCII, NUL-padded
//       72    12  grid x, y, z (blocks)
//       84    12  block x, y, z (threads)
//       96     4  dynamic shared memory bytes
//      100     4  preferred shared-memory carve-out, percent of the maximum (0-100)
//      104     4  required compute capability, major*10 + minor (e.g. 90), or 0 for any
//      108     4  operand count (3: A, B, C)
//      112     8  M (u64)
//      120     8  N (u64)
//      128     8  K (u64): the largest K; buffers are sized for it
//      136     8  batch (u64)
//      144     8  K_min (u64): the smallest run-time K; equal to K when K is fixed
//      152     4  K alignment: a run-time K must be a multiple of it (1 when K is fixed)
//      156     4  reserved, 0
//      160     8  workspace bytes (u64): global memory the kernel needs besides its operands
//                 (split-K's per-tile counters and partial tiles), or 0. The runtime allocates
//                 it (or takes the caller's), zeroes it before the kernel's first launch on it,
//                 and passes it after the operand pointers; the kernel leaves it as it must be
//                 found again (counters back at 0), so launches in one stream may share it.
//      168  n×40  operands, 40 bytes each:
//                   0  4  name: "A", "B", "C" (NUL-padded)
//                   4  4  role: 1 = input, 2 = output
//                   8  8  size in bytes (u64): the buffer the runtime allocates for it
//                  16  4  element bits
//                  20  4  flags: bit 0 row-major (else column-major); bit 1 the leading dimension
//                         is the run-time K (A row-major, B column-major: packed at any K); bits
//                         8-15 a packed layout id (<deepgemm/w4_pack.h>; 0: plain): B of 4-bit
//                         elements only, whose buffer then holds the packed weights (header
//                         included) instead of the plain matrix
//                  24  8  leading dimension in elements (u64), at K for a bit-1 operand
//                  32  4  tensor-map box, elements along the operand's contiguous dimension
//                         (0: the kernel takes no tensor map for this operand)
//                  36  4  tensor-map box, rows (lines of the contiguous dimension)
//
// Kernel parameters, in this order: the operand device pointers (u64 each, operand order), the
// workspace's device pointer when its size is not 0, then M, N, K as 32-bit signed integers (K
// the run-time K, in [K_min, K]), then, for each operand with a box (A, B and C only), in operand
// order, its tensor map by value (128 bytes, 64-byte aligned): the runtime encodes it for the bound buffer as a 2-D
// tiled map of the operand (contiguous dimension first, at its leading dimension), the box above, 128-byte swizzle,
// out-of-range elements read as zero.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "deepgemm/w4_pack.h"

namespace dg::ko::launch {

inline constexpr uint8_t kMagic[4] = {'D', 'G', 'L', 'N'};
inline constexpr uint32_t kVersion = 4;
inline constexpr uint32_t kHeaderSize = 168;
inline constexpr uint32_t kOperandSize = 40;
inline constexpr uint32_t kMaxOperands = 8;
inline constexpr uint32_t kNameSize = 64;

enum class Role : uint32_t { Input = 1, Output = 2 };

struct Operand {
  char name[5];  // NUL-terminated copy of the 4-byte field
  Role role;
  uint64_t bytes;
  uint32_t element_bits;
  bool row_major;
  bool ld_is_k;  // the leading dimension is the run-time K (it follows dgmm_set_k)
  uint64_t ld;
  uint32_t box_inner;  // tensor-map box along the contiguous dimension, elements (0: no map)
  uint32_t box_outer;  // tensor-map box, rows
  uint32_t packing;    // packed layout id of 4-bit weights (w4_pack.h), 0 for a plain matrix
};

inline constexpr uint32_t kTensorMapBytes = 128;  // a CUtensorMap, passed by value
inline constexpr uint32_t kSwizzleBytes = 128;    // the maps' swizzle span: a box row is this wide

struct Launch {
  char kernel[kNameSize + 1];
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t smem_bytes;
  uint32_t carveout_percent;
  uint32_t compute_capability;
  uint32_t operand_count;
  uint64_t M, N, K, batch;
  uint64_t K_min;            // == K unless K is chosen at run time
  uint32_t k_align;          // a run-time K is a multiple of it
  uint64_t workspace_bytes;  // the kernel's workspace (zeroed before its first launch), 0: none
  Operand operands[kMaxOperands];
};

namespace detail {
inline uint32_t rd32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
inline uint64_t rd64(const uint8_t* p) { return uint64_t(rd32(p)) | uint64_t(rd32(p + 4)) << 32; }
inline void wr32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline void wr64(uint8_t* p, uint64_t v) {
  wr32(p, uint32_t(v));
  wr32(p + 4, uint32_t(v >> 32));
}
}  // namespace detail

/// Bytes needed for a launch record with `operands` operands.
constexpr size_t size_for(uint32_t operands) { return kHeaderSize + size_t(operands) * kOperandSize; }

/// Parse and validate. Returns a static message on failure, nullptr on success.
inline const char* parse(const uint8_t* p, size_t n, Launch* out) {
  if (!p || !out) return "launch record: null argument";
  if (n < kHeaderSize) return "launch record: truncated header";
  for (int i = 0; i < 4; ++i)
    if (p[i] != kMagic[i]) return "launch record: bad magic";
  if (detail::rd32(p + 4) != kVersion)
    return detail::rd32(p + 4) < kVersion
               ? "launch record: version older than 4 (a module from an older compiler: version 4 added the "
                 "workspace size); recompile the spec"
               : "launch record: version newer than 4 (a module from a newer compiler); update the runtime";
  bool ended = false;
  for (uint32_t i = 0; i < kNameSize; ++i) {
    uint8_t c = p[8 + i];
    if (c == 0)
      ended = true;
    else if (ended || c < 0x21 || c > 0x7e)
      return "launch record: bad kernel name";
    out->kernel[i] = char(c);
  }
  out->kernel[kNameSize] = 0;
  if (out->kernel[0] == 0) return "launch record: empty kernel name";
  for (int i = 0; i < 3; ++i) {
    out->grid[i] = detail::rd32(p + 72 + 4 * i);
    out->block[i] = detail::rd32(p + 84 + 4 * i);
    if (out->grid[i] == 0 || out->block[i] == 0) return "launch record: zero grid or block dimension";
  }
  if (uint64_t(out->block[0]) * out->block[1] * out->block[2] > 1024) return "launch record: block too large";
  out->smem_bytes = detail::rd32(p + 96);
  out->carveout_percent = detail::rd32(p + 100);
  if (out->carveout_percent > 100) return "launch record: carve-out above 100%";
  out->compute_capability = detail::rd32(p + 104);
  out->operand_count = detail::rd32(p + 108);
  if (out->operand_count == 0 || out->operand_count > kMaxOperands) return "launch record: bad operand count";
  if (n != size_for(out->operand_count)) return "launch record: size does not match operand count";
  out->M = detail::rd64(p + 112);
  out->N = detail::rd64(p + 120);
  out->K = detail::rd64(p + 128);
  out->batch = detail::rd64(p + 136);
  if (out->M == 0 || out->N == 0 || out->K == 0 || out->batch == 0 || out->M > 0x7fffffff || out->N > 0x7fffffff ||
      out->K > 0x7fffffff || out->batch > 65535)
    return "launch record: bad problem size";
  out->K_min = detail::rd64(p + 144);
  out->k_align = detail::rd32(p + 152);
  if (out->K_min == 0 || out->K_min > out->K || out->k_align == 0 || out->k_align > out->K ||
      out->K % out->k_align != 0 || out->K_min % out->k_align != 0 || detail::rd32(p + 156) != 0)
    return "launch record: bad K range";
  out->workspace_bytes = detail::rd64(p + 160);
  if (out->workspace_bytes > (uint64_t(1) << 40)) return "launch record: workspace larger than 1 TiB";
  for (uint32_t i = 0; i < out->operand_count; ++i) {
    const uint8_t* q = p + kHeaderSize + i * kOperandSize;
    Operand& o = out->operands[i];
    for (int j = 0; j < 4; ++j) o.name[j] = char(q[j]);
    o.name[4] = 0;
    if (o.name[0] < 0x21 || o.name[0] > 0x7e) return "launch record: bad operand name";
    uint32_t role = detail::rd32(q + 4);
    if (role != 1 && role != 2) return "launch record: bad operand role";
    o.role = Role(role);
    o.bytes = detail::rd64(q + 8);
    o.element_bits = detail::rd32(q + 16);
    const uint32_t flags = detail::rd32(q + 20);
    if ((flags & ~0xff03u) != 0) return "launch record: bad operand flags";
    o.row_major = (flags & 1) != 0;
    o.ld_is_k = (flags & 2) != 0;
    o.packing = (flags >> 8) & 0xffu;
    o.ld = detail::rd64(q + 24);
    o.box_inner = detail::rd32(q + 32);
    o.box_outer = detail::rd32(q + 36);
    if (o.bytes == 0 || o.element_bits == 0 || o.element_bits > 64) return "launch record: bad operand size";
    // A tensor map's box: one 128-byte swizzle row wide, at most 256 rows (the copy engine's
    // limit), for A, B and C only, whose elements are whole bytes.
    if (o.box_inner != 0 || o.box_outer != 0) {
      const bool ab = (o.name[0] == 'A' || o.name[0] == 'B' || o.name[0] == 'C') && o.name[1] == 0;
      if (!ab || o.element_bits % 8 != 0 || o.box_outer == 0 || o.box_outer > 256 ||
          uint64_t(o.box_inner) * o.element_bits != uint64_t(kSwizzleBytes) * 8)
        return "launch record: bad tensor-map box";
      if (out->batch != 1) return "launch record: a tensor map of a batched operand";
    }
    // A, B and C (and C_in) must hold their whole matrix at their leading dimension, `batch` times, each
    // matrix outer × ld elements after the previous: a kernel reads and writes exactly that span,
    // so a smaller buffer would be overrun.
    const bool a = o.name[0] == 'A' && o.name[1] == 0, b = o.name[0] == 'B' && o.name[1] == 0,
               c = o.name[0] == 'C' && o.name[1] == 0;
    // C_in (an epilogue's beta · C input): C's matrix, read.
    const bool c_in = o.name[0] == 'C' && o.name[1] == '_' && o.name[2] == 'i' && o.name[3] == 'n' && o.name[4] == 0;
    // Only A (row-major) and B (column-major) run along K in their rows: only they may follow it.
    if (o.ld_is_k && !((a && o.row_major) || (b && !o.row_major)))
      return "launch record: only a row-major A or a column-major B has K as its leading dimension";
    if (o.ld_is_k && o.ld != out->K) return "launch record: a leading dimension that follows K must be K";
    // Packed 4-bit weights: B only, of a layout this reader knows, its buffer the packed size.
    if (o.packing != 0) {
      if (!b || o.element_bits != 4 || w4::layout_name(o.packing) == nullptr || o.ld_is_k || o.box_inner != 0 ||
          out->batch != 1)
        return "launch record: a packed layout on an operand other than 4-bit B, or one this runtime does not know";
      if (o.bytes < w4::packed_bytes(out->K, out->N)) return "launch record: packed weights smaller than their layout";
    }
    if (a || b || c || c_in) {
      if ((c ? Role::Output : Role::Input) != o.role) return "launch record: operand with the wrong role";
      const uint64_t rows = a || c || c_in ? out->M : out->K, cols = b || c || c_in ? out->N : out->K;
      const uint64_t inner = o.row_major ? cols : rows, outer = o.row_major ? rows : cols;
      if (o.ld < inner || o.ld > 0x7fffffff) return "launch record: leading dimension smaller than the matrix";
      // Elements spanned: (batch - 1) * outer * ld + (outer - 1) * ld + inner. outer, ld and inner
      // are below 2^31 and batch below 2^16, so each product fits in 64 bits before the bound.
      const uint64_t stride = outer * o.ld;
      if (out->batch > 1 && stride > ((~uint64_t(0)) / 64) / (out->batch - 1))
        return "launch record: operand larger than this runtime can address";
      const uint64_t elems = (out->batch - 1) * stride + (outer - 1) * o.ld + inner;
      if (elems > (~uint64_t(0)) / 64 || o.bytes < (elems * o.element_bits + 7) / 8)
        return "launch record: operand smaller than its matrix (M, N, K, batch and leading dimension)";
    }
  }
  return nullptr;
}

/// The bytes operand `o` of a parsed record spans when the run-time K is `k` (in [K_min, K]): A and
/// B at k (a leading dimension that follows K is k too), C, the bias and the scales as declared.
/// At k == K it is at most o.bytes (parse checked that).
inline uint64_t operand_bytes(const Launch& l, const Operand& o, uint64_t k) {
  const bool a = o.name[0] == 'A' && o.name[1] == 0, b = o.name[0] == 'B' && o.name[1] == 0;
  if ((!a && !b) || o.packing != 0) return o.bytes;
  const uint64_t rows = a ? l.M : k, cols = b ? l.N : k;
  const uint64_t inner = o.row_major ? cols : rows, outer = o.row_major ? rows : cols;
  const uint64_t ld = o.ld_is_k ? k : o.ld;
  const uint64_t elems = (l.batch - 1) * outer * ld + (outer - 1) * ld + inner;
  return (elems * o.element_bits + 7) / 8;
}

/// Serialize `l` into `p` (size_for(l.operand_count) bytes).
inline void write(const Launch& l, uint8_t* p) {
  for (size_t i = 0; i < size_for(l.operand_count); ++i) p[i] = 0;
  for (int i = 0; i < 4; ++i) p[i] = kMagic[i];
  detail::wr32(p + 4, kVersion);
  for (uint32_t i = 0; i < kNameSize && l.kernel[i]; ++i) p[8 + i] = uint8_t(l.kernel[i]);
  for (int i = 0; i < 3; ++i) {
    detail::wr32(p + 72 + 4 * i, l.grid[i]);
    detail::wr32(p + 84 + 4 * i, l.block[i]);
  }
  detail::wr32(p + 96, l.smem_bytes);
  detail::wr32(p + 100, l.carveout_percent);
  detail::wr32(p + 104, l.compute_capability);
  detail::wr32(p + 108, l.operand_count);
  detail::wr64(p + 112, l.M);
  detail::wr64(p + 120, l.N);
  detail::wr64(p + 128, l.K);
  detail::wr64(p + 136, l.batch);
  detail::wr64(p + 144, l.K_min);
  detail::wr32(p + 152, l.k_align);
  detail::wr64(p + 160, l.workspace_bytes);
  for (uint32_t i = 0; i < l.operand_count; ++i) {
    uint8_t* q = p + kHeaderSize + i * kOperandSize;
    const Operand& o = l.operands[i];
    for (int j = 0; j < 4 && o.name[j]; ++j) q[j] = uint8_t(o.name[j]);
    detail::wr32(q + 4, uint32_t(o.role));
    detail::wr64(q + 8, o.bytes);
    detail::wr32(q + 16, o.element_bits);
    detail::wr32(q + 20, (o.row_major ? 1u : 0u) | (o.ld_is_k ? 2u : 0u) | (o.packing & 0xffu) << 8);
    detail::wr64(q + 24, o.ld);
    detail::wr32(q + 32, o.box_inner);
    detail::wr32(q + 36, o.box_outer);
  }
}

}  // namespace dg::ko::launch
