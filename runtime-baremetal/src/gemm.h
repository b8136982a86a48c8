// The GEMM a module's plan describes, read from the PLAN section, and the reference executor that
// runs the plan's tile loop nest in software.
#pragma once

#include "freestanding.h"

#include <deepgemm/module_format.h>

namespace dg::bm {

/// Element types the executor supports (signed integers).
enum class DType : uint8_t { Int8 = 8, Int16 = 16, Int32 = 32, Int64 = 64 };

inline uint32_t bits(DType t) { return static_cast<uint32_t>(t); }

enum Operand : uint32_t { kA = 0, kB = 1, kC = 2, kOperands = 3 };

struct OperandLayout {
  uint32_t rows = 0, cols = 0;
  uint32_t ld = 0;  // elements between consecutive rows (row-major) or columns (column-major)
  bool row_major = true;
  DType type = DType::Int8;
  size_t bytes = 0;  // extent of the operand in memory
};

struct GemmPlan {
  uint32_t M = 0, N = 0, K = 0;
  uint32_t tile_m = 0, tile_n = 0, tile_k = 0;  // clamped to M, N, K
  DType acc = DType::Int32;
  OperandLayout op[kOperands];
  size_t acc_tile_bytes = 0;  // scratch the executor needs for one tile_m x tile_n accumulator
};

enum class PlanStatus : uint8_t { Ok, Bad, Unsupported, WrongTarget };

/// Reads and checks the plan JSON text. On failure *err says which field and why.
PlanStatus read_plan(const uint8_t* text, size_t size, GemmPlan* out, ko::ErrorDetail* err);

/// Runs the GEMM C = A * B with the plan's tile loop nest. `acc` holds plan.acc_tile_bytes bytes,
/// aligned to 8. The operand addresses are checked by the caller (non-null, aligned). Returns
/// false, with *err set, when the accumulator overflows its type or a result does not fit C.
bool execute(const GemmPlan& plan, const uintptr_t addr[kOperands], int64_t* acc,
             ko::ErrorDetail* err);

}  // namespace dg::bm
