#include "codegen/launch_record.h"

#include <deepgemm/launch_format.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "codegen/kernel_builder.h"
#include "sema/dtype.h"
#include "support/error.h"

namespace dg::codegen {

std::int64_t batch_stride(const Plan& p, int operand) {
  const IndexDesc& d = p.index;
  switch (operand) {
    case 0: return (d.a_row_major ? p.M : p.K) * d.lda;
    case 1: return (d.b_row_major ? p.K : p.N) * d.ldb;
    default: return (d.c_row_major ? p.M : p.N) * d.ldc;
  }
}

std::vector<std::uint8_t> launch_record(const Plan& p, const LaunchInfo& li) {
  ko::launch::Launch l{};
  std::snprintf(l.kernel, sizeof l.kernel, "%s", li.kernel.c_str());
  for (int i = 0; i < 3; ++i) {
    l.grid[i] = li.grid[i];
    l.block[i] = li.block[i];
  }
  l.smem_bytes = li.smem_bytes;
  l.carveout_percent = 100;
  l.compute_capability = li.compute_capability;
  l.M = static_cast<std::uint64_t>(p.M);
  l.N = static_cast<std::uint64_t>(p.N);
  l.K = static_cast<std::uint64_t>(p.K);
  l.batch = static_cast<std::uint64_t>(p.batch);
  // A run-time K: K is the range's largest (operands are sized for it), K_min its smallest, and
  // A's and B's leading dimensions follow K where their rows run along it.
  l.K_min = static_cast<std::uint64_t>(p.k_dynamic ? p.K_min : p.K);
  l.k_align = static_cast<std::uint32_t>(p.k_dynamic ? p.k_align : 1);
  l.workspace_bytes = li.workspace_bytes;
  auto op = [&](const char* name, ko::launch::Role role, std::uint64_t rows, std::uint64_t cols, const std::string& t,
                bool rm, std::int64_t ld, std::uint64_t batches = 1, std::int64_t stride = 0) {
    ko::launch::Operand o{};
    DG_INTERNAL_ASSERT(std::strlen(name) < sizeof o.name,
                       fmt::format("operand name '{}' over the format's 4 bytes", name));
    std::snprintf(o.name, sizeof o.name, "%s", name);
    o.role = role;
    o.element_bits = static_cast<std::uint32_t>(element_bits(t));  // sema/dtype.h's width
    // One matrix (its span at the leading dimension), or `batches` of them `stride` elements apart.
    const std::uint64_t inner = rm ? cols : rows, outer = rm ? rows : cols;
    const std::uint64_t span = (outer - 1) * static_cast<std::uint64_t>(ld) + inner;
    const std::uint64_t elems = (batches - 1) * static_cast<std::uint64_t>(stride) + span;
    o.bytes = (elems * o.element_bits + 7) / 8;
    o.row_major = rm;
    o.ld_is_k = p.k_dynamic && ((name[0] == 'A' && rm) || (name[0] == 'B' && !rm)) && name[1] == 0;
    o.ld = static_cast<std::uint64_t>(ld);
    return o;
  };
  l.operand_count = 3;
  l.operands[0] = op("A", ko::launch::Role::Input, l.M, l.K, p.a_type, p.index.a_row_major, p.index.lda, l.batch,
                     batch_stride(p, 0));
  l.operands[1] = op("B", ko::launch::Role::Input, l.K, l.N, p.b_type, p.index.b_row_major, p.index.ldb, l.batch,
                     batch_stride(p, 1));
  for (int i = 0; i < 2; ++i) {
    l.operands[i].box_inner = li.box[i][0];
    l.operands[i].box_outer = li.box[i][1];
  }
  l.operands[2] = op("C", ko::launch::Role::Output, l.M, l.N, p.c_type, p.index.c_row_major, p.index.ldc, l.batch,
                     batch_stride(p, 2));
  l.operands[2].box_inner = li.box[2][0];
  l.operands[2].box_outer = li.box[2][1];
  // A bias epilogue reads one value per column of C, in C's type: the fourth operand, bound by name.
  if (p.epilogue.rfind("bias", 0) == 0)
    l.operands[l.operand_count++] =
        op("bias", ko::launch::Role::Input, 1, l.N, p.c_type, true, static_cast<std::int64_t>(l.N));
  // Per-tensor scales: one fp32 value each, after the bias, bound as sc_a and sc_b.
  if (p.scale_a == "per_tensor")
    l.operands[l.operand_count++] = op("sc_a", ko::launch::Role::Input, 1, 1, "fp32", true, 1);
  if (p.scale_b == "per_tensor")
    l.operands[l.operand_count++] = op("sc_b", ko::launch::Role::Input, 1, 1, "fp32", true, 1);
  // fp8's fine-grained scales, fp32: sc_a, ceil(K/128) rows of M (one per row of A and 128 k);
  // sc_b, ceil(K/128) rows of ceil(N/128) (one per 128×128 block of B); row-major, K the largest.
  if (p.block_scaled()) {
    const std::uint64_t kb = (l.K + kScaleBlock - 1) / kScaleBlock, nb = (l.N + kScaleBlock - 1) / kScaleBlock;
    l.operands[l.operand_count++] =
        op("sc_a", ko::launch::Role::Input, kb, l.M, "fp32", true, static_cast<std::int64_t>(l.M));
    l.operands[l.operand_count++] =
        op("sc_b", ko::launch::Role::Input, kb, nb, "fp32", true, static_cast<std::int64_t>(nb));
  }
  // 4-bit weights: B holds them packed (header included) in the n8k128 layout (n8k128u for u4:
  // unsigned nibbles, zero point 8; n8k128f4 for E2M1 codes), and their group
  // scales, in the activation's type, are sc_b: K/group rows (one for per_column) of N, row-major.
  // The same for the weight-streaming kernel and the wgmma kernel that converts them.
  if (p.loader == "registers" || p.w4_staged()) {
    ko::launch::Operand& b = l.operands[1];
    b.packing = p.b_type == "u4"          ? ko::w4::kLayoutN8K128U4
                : p.b_type == "int4_e2m1" ? ko::w4::kLayoutN8K128F4
                                          : ko::w4::kLayoutN8K128;
    b.bytes = ko::w4::packed_bytes(l.K, l.N);
    DG_INTERNAL_ASSERT(b.bytes != 0, "4-bit weights with N not a multiple of 8 reached the launch record");
    if (p.scale_b != "none") {
      const std::int64_t rows = p.scale_b == "per_column" ? 1 : p.K / std::stoll(p.scale_b.substr(6));
      l.operands[l.operand_count++] =
          op("sc_b", ko::launch::Role::Input, static_cast<std::uint64_t>(rows), l.N, p.a_type, true, p.N);
    }
  }
  // beta ≠ 0: C_in, an input of C's type, shape, layout and batch stride, read by the epilogue
  // before C is written (it may be C's own buffer), after every other operand.
  if (p.reads_c_in())
    l.operands[l.operand_count++] = op("C_in", ko::launch::Role::Input, l.M, l.N, p.c_type, p.index.c_row_major,
                                       p.index.ldc, l.batch, batch_stride(p, 2));
  std::vector<std::uint8_t> bytes(ko::launch::size_for(l.operand_count));
  ko::launch::write(l, bytes.data());
  return bytes;
}

}  // namespace dg::codegen
