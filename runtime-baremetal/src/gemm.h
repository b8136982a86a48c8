// The GEMM a module's plan describes, read from the PLAN section, and the reference executor that
// runs the plan's tile loop nest in software.
#pragma once

#include "freestanding.h"

#include <deepgemm/module_format.h>

namespace dg::bm {

/// The containers of the elements the executor supports: a nibble (4-bit inputs, two per byte: the
/// even index in the low nibble), or 1, 2, 4 or 8 bytes in memory. An input's value is the low
/// value_bits bits of its container, sign- or zero-extended (OperandLayout).
enum class DType : uint8_t { Int4 = 4, Int8 = 8, Int16 = 16, Int32 = 32, Int64 = 64 };

inline uint32_t bits(DType t) { return static_cast<uint32_t>(t); }

enum Operand : uint32_t { kA = 0, kB = 1, kC = 2, kOperands = 3 };

/// One operand at the current K. (No member initializers, here and in GemmPlan: value-initialized
/// copies are zero-filled instead of built member by member, which keeps the runtime small.)
struct OperandLayout {
  uint32_t rows, cols;
  uint32_t ld;       // elements between consecutive rows (row-major) or columns (column-major); even
                     // for Int4, so that each row or column starts on a byte
  uint32_t plan_ld;  // the plan's ld (at K_max), which dgmm_set_ld's 0 returns to
  bool row_major;
  bool ld_is_k;        // K-range plan, rows (A) or columns (B) along K: ld is the current K
  bool ld_is_n;        // N-range plan, rows of a row-major B or C: ld is the current N
  bool ld_is_m;        // M-range plan, columns of a column-major A: ld is the current M
  bool ld_set;         // ld was chosen by dgmm_set_ld: it no longer follows K
  DType type;          // the container
  uint8_t value_bits;  // 2 .. bits(type): N of sN / uN; int4 = s4, int8 = s8, int16 = s16, int32 = s32
  bool is_signed;
  size_t bytes;           // extent of the operand in memory: every matrix of the batch
  size_t matrix_bytes;    // one matrix's extent (the last row's or column's end)
  uint64_t batch_stride;  // bytes from one matrix of the batch to the next: outer × ld elements, or
                          // stride's (set_stride) elements
  bool stride_set;        // the matrix stride was chosen by dgmm_set_batch_stride: `stride` elements
  uint64_t stride;        // ... (below 2^59; 0: every matrix of the batch is the same one)
};

/// The GEMM of a plan. K is the current K, in [K_min, K_max] (K_min == K_max for a fixed-K plan);
/// it starts at K_max (the plan's "K") and changes with set_k.
struct GemmPlan {
  uint32_t M, N, K;
  uint32_t batch = 1;      // matrices a launch multiplies: matrix b of an operand starts b × batch_stride bytes
                           // after it; at most batch_max, and changed by dgmm_set_batch
  uint32_t batch_max = 1;  // the plan's "batch" (1 when absent)
  uint32_t K_min, K_max;
  uint32_t N_min, N_max;  // ... and N ("n_dynamic", "N_min"; "N" holds N_max), a multiple of n_align
  uint32_t n_align;
  uint32_t M_min, M_max;   // a run-time M (the plan's "m_dynamic", "M_min"; "M" holds M_max); M_min == M_max == M
                           // when M is fixed. A handle starts at M_max; set_m changes M.
  uint32_t k_align = 1;    // a run-time K is a multiple of this (the plan's "k_align"; absent: 1)
  uint32_t m_align = 1;    // ... and a run-time M ("m_align": a column-major A's columns; absent: 1)
  bool byte_rows = false;  // NPU: rows and leading dimensions of whole bytes, not whole bus beats
                           // (the plan's npu_layout "byte_rows"; absent: false)
  uint32_t tile_m, tile_n, tile_k;  // clamped to M, N, K_max
  DType acc;
  uint8_t acc_bits = 32;  // the accumulator's width: 32, 48 (in an int64) or 64; a narrower C saturates
  OperandLayout op[kOperands];
  size_t acc_tile_bytes;  // scratch the executor needs for one tile_m x tile_n accumulator
  // The fused epilogue (the plan's "epilogue" and an int8 or int16 C): its operands bias (N int32)
  // and rq (N records of 8 bytes: requantization of an int8 or int16 C), and ReLU.
  bool epi_bias, epi_relu, epi_rq;
  // A column-major C on the NPU: the plan is the transpose's, Cᵀ = Bᵀ·Aᵀ (its "operands_swapped").
  // Its A is the user's B and its B the user's A, its M and N the user's N and M; every layout
  // above is the plan's. The API speaks the user's names (user_name, user_row_major).
  bool swapped;
};

/// The name the user gives the plan's operand i: with swapped operands the plan's A is 'B'.
inline char user_name(const GemmPlan& p, uint32_t i) {
  return static_cast<char>(p.swapped && i < kC ? 'B' - i : 'A' + i);
}

/// The plan's operand i, by the user's name: with swapped operands 'A' is the plan's B.
inline uint32_t plan_operand(const GemmPlan& p, uint32_t user) { return p.swapped && user < kC ? 1 - user : user; }

/// Whether the user's operand (the plan's operand i) is row-major: each of a swapped plan's
/// operands is the transpose of the user's.
inline bool user_row_major(const GemmPlan& p, uint32_t i) { return p.op[i].row_major != p.swapped; }

/// The fused epilogue's operands, bound by name beside A, B and C.
enum EpiOperand : uint32_t { kBias = 0, kRq = 1, kEpiOperands = 2 };
inline const char* epi_name(uint32_t i) { return i == kBias ? "bias" : "rq"; }
inline bool epi_needed(const GemmPlan& p, uint32_t i) { return i == kBias ? p.epi_bias : p.epi_rq; }
inline uint64_t epi_bytes(const GemmPlan& p, uint32_t i) { return uint64_t{p.N} * (i == kBias ? 4u : 8u); }

enum class PlanStatus : uint8_t { Ok, Bad, Unsupported, WrongTarget };

/// Reads and checks the plan JSON text. On failure *err says which field and why.
PlanStatus read_plan(const uint8_t* text, size_t size, GemmPlan* out, ko::ErrorDetail* err);

/// Sets the current K (in [K_min, K_max], and even when an Int4 operand has ld_is_k: checked by
/// the caller) and the operand layouts that follow from it. Returns the first operand whose extent
/// does not fit size_t (only possible for the largest K, which read_plan checks), or kOperands.
uint32_t set_k(GemmPlan* plan, uint32_t k);

/// Sets the current M (in [M_min, M_max]: checked by the caller) and the operand layouts that
/// follow from it (the leading dimensions stay: M runs along none that the plan packs at run time).
/// Returns as set_k does.
uint32_t set_m(GemmPlan* plan, uint32_t m);

/// Sets the current N (in [N_min, N_max] and a multiple of n_align: checked by the caller) and the
/// operand layouts that follow from it (packed rows of a row-major B or C: ld is N). Returns as
/// set_k does.
uint32_t set_n(GemmPlan* plan, uint32_t n);

/// Runs the GEMM C = A * B with the plan's tile loop nest. `acc` holds plan.acc_tile_bytes bytes,
/// aligned to 8. The operand addresses are checked by the caller (non-null, aligned). Returns
/// false, with *err set, when the accumulator overflows its type or a result does not fit C.
bool execute(const GemmPlan& plan, const uintptr_t addr[kOperands], int64_t* acc, ko::ErrorDetail* err);

}  // namespace dg::bm
