// The module's LAUNCH section for a GPU kernel: the launch facts codegen found (kernel name, grid,
// block, shared memory, compute capability) and, from the plan, the problem's extents and each
// operand's name, role, element width (sema/dtype.h), size, layout and leading dimension, in the
// order the kernel takes its pointers (A, B, C, then bias for a bias epilogue, then sc_a and
// sc_b for per-tensor scales, or sc_b for the group scales of 4-bit weights, whose B is packed:
// the launch record carries its layout id). The format is
// <deepgemm/launch_format.h>, shared with the CUDA runtime.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/ptx_backend.h"
#include "plan/plan.h"

namespace dg::codegen {

/// Elements from one batch's A (operand 0), B (1) or C (2) to the next: the matrix at its leading
/// dimension, outer extent × ld (rows of a row-major operand, columns of a column-major one). The
/// kernel's pointer offsets and the launch record's operand sizes both use it.
std::int64_t batch_stride(const Plan& p, int operand);

/// The LAUNCH section's bytes for `p` and its kernel's `li`. Deterministic.
std::vector<std::uint8_t> launch_record(const Plan& p, const LaunchInfo& li);

}  // namespace dg::codegen
