#include "codegen/launch_record.h"

#include <deepgemm/launch_format.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "sema/dtype.h"
#include "support/error.h"

namespace dg::codegen {

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
  // A type's width has one source, sema/dtype.h; a plan holds only types sema parsed.
  auto bits = [](const std::string& t) {
    const std::optional<DType> d = parse_dtype(t);
    DG_INTERNAL_ASSERT(d.has_value(), "a plan type sema does not know: " + t);
    return static_cast<std::uint32_t>(d->bits);
  };
  auto op = [&](const char* name, ko::launch::Role role, std::uint64_t rows, std::uint64_t cols, const std::string& t,
                bool rm, std::int64_t ld) {
    ko::launch::Operand o{};
    DG_INTERNAL_ASSERT(std::strlen(name) < sizeof o.name, fmt::format("operand name '{}' over the format's 4 bytes", name));
    std::snprintf(o.name, sizeof o.name, "%s", name);
    o.role = role;
    o.element_bits = bits(t);
    o.bytes = rows * cols * o.element_bits / 8;
    o.row_major = rm;
    o.ld = static_cast<std::uint64_t>(ld);
    return o;
  };
  l.operand_count = 3;
  l.operands[0] = op("A", ko::launch::Role::Input, l.M, l.K, p.a_type, p.index.a_row_major, p.index.lda);
  l.operands[1] = op("B", ko::launch::Role::Input, l.K, l.N, p.b_type, p.index.b_row_major, p.index.ldb);
  l.operands[2] = op("C", ko::launch::Role::Output, l.M, l.N, p.c_type, p.index.c_row_major, p.index.ldc);
  // A bias epilogue reads one value per column of C, in C's type: the fourth operand, bound by name.
  if (p.epilogue.rfind("bias", 0) == 0)
    l.operands[l.operand_count++] =
        op("bias", ko::launch::Role::Input, 1, l.N, p.c_type, true, static_cast<std::int64_t>(l.N));
  // Per-tensor scales: one fp32 value each, after the bias, bound as sc_a and sc_b.
  if (p.scale_a == "per_tensor") l.operands[l.operand_count++] = op("sc_a", ko::launch::Role::Input, 1, 1, "fp32", true, 1);
  if (p.scale_b == "per_tensor") l.operands[l.operand_count++] = op("sc_b", ko::launch::Role::Input, 1, 1, "fp32", true, 1);
  std::vector<std::uint8_t> bytes(ko::launch::size_for(l.operand_count));
  ko::launch::write(l, bytes.data());
  return bytes;
}

}  // namespace dg::codegen
