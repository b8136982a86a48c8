// GemmProblem: the meaning of a checked spec. C[M×N] = epilogue(A[M×K] · B[K×N]) on one target,
// with the user's hard limits. Everything the solver needs and nothing about how it will be
// scheduled. Every user declaration keeps its source location so that an unsat core can point
// back at the lines that conflict.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dgml/ast.h"
#include "dgml/diag.h"
#include "hw/hw_model.h"
#include "sema/dtype.h"

namespace dg {

enum class Layout { RowMajor, ColMajor };

/// The largest K split a spec may force ('split_k: N').
inline constexpr std::int64_t kMaxSplitK = 64;
const char* layout_name(Layout l);

/// A value the user declared, with where.
template <typename T>
struct Declared {
  T value{};
  Loc loc;            // invalid when the value is a default
  bool user = false;  // written in the spec
};

/// One free constraint from the `constraints` block, e.g. `tile_m * tile_k <= 8192`.
struct UserConstraint {
  std::string text;  // canonical source text
  Loc loc;
  std::shared_ptr<const ast::Expr> expr;  // checked: only known variables, boolean at the top
};

struct GemmProblem {
  std::string spec_file;
  hw::HwModel hw;  // the target's model
  Loc target_loc;

  // precision
  Declared<DType> a;    // activation, M×K
  Declared<DType> b;    // weight, K×N
  Declared<DType> c;    // output, M×N
  Declared<DType> acc;  // accumulation

  // shape
  Declared<std::int64_t> M, N, K;       // with a run-time range, M, N and K hold its largest value
  Declared<std::int64_t> M_min, M_max;  // M_min == M_max == M when M is fixed
  bool m_dynamic = false;
  Declared<std::int64_t> N_min, N_max;  // N_min == N_max == N when N is fixed
  bool n_dynamic = false;
  Declared<std::int64_t> K_min, K_max;  // K_min == K_max == K when K is fixed
  bool k_dynamic = false;
  Declared<std::int64_t> batch;

  // layout
  Declared<Layout> a_layout, b_layout, c_layout;
  Declared<std::string> smem_layout;  // "" = solver's choice

  // scales: "none" | "per_tensor" (one fp32 operand, sc_a / sc_b, multiplies the accumulation);
  // B: "group_32" | "group_64" | "group_128" | "per_column" (4-bit weights' group scales); fp8's
  // fine-grained pair A: "group_128" (per row and 128 k), B: "block_128" (per 128×128 block)
  Declared<std::string> scale_a, scale_b;

  // constraints
  Declared<bool> use_hmma;           // tensor cores (GPU)
  Declared<bool> fp16_fma;           // fp16 accumulation on CUDA cores
  Declared<double> sm_mem_limit_kb;  // 0 = hardware limit
  Declared<double> l2_hit_rate_min;  // 0 = none
  Declared<bool> pad_k;
  Declared<bool> persistent;       // the TMA kernel's persistent tile loop (one block per SM slot)
  Declared<std::int64_t> split_k;  // K split across blocks ('split_k: N'; when user, forced)
  Declared<std::optional<DType>> cast_output;
  Declared<bool> warp_level_sync;
  Declared<hw::Family> family;     // mma.sync | wgmma: the tensor-core instruction family (when user)
  Declared<std::string> loader;    // "cp.async" | "tma": how wgmma tiles reach shared memory ("" = solver's choice)
  Declared<std::string> dataflow;  // NPU: "weight_stationary" | "output_stationary" ("" = solver's choice)
  Declared<std::vector<std::string>> epilogue;  // op_type: gelu, relu, bias, silu
  // alpha, beta: C = epilogue(alpha · (A·B) + bias + beta · C_in) (GPUs); beta ≠ 0 reads C_in, an
  // M×N input of C's type laid out as C (it may be C itself).
  Declared<double> alpha = {1.0, {}, false};
  Declared<double> beta = {0.0, {}, false};
  std::vector<UserConstraint> user_constraints;

  /// Tensor-core K step for the chosen precisions on this target (0 when not on tensor cores).
  int k_step = 0;
  /// The weight precision is converted in registers to this type before the multiply ("" = none).
  std::string weight_conversion;
  /// The instruction families the precisions map onto (mma.sync, wgmma, simt, npu).
  std::vector<hw::Family> compute_paths;
  /// NPU, a column-major C (and B): the problem is the transpose the design computes, Cᵀ = Bᵀ·Aᵀ.
  /// Its A is the spec's B (N×K, row-major: the column-major B as it lies), its B the spec's A (in
  /// the other layout), its C the spec's C (row-major: the column-major C as it lies); M and N,
  /// their ranges, and tile_m and tile_n in the constraints are exchanged (sema::swap_operands).
  bool operands_swapped = false;
};

/// Names usable in free constraint expressions: schedule variables the solver decides, and the
/// problem constants M, N, K (and batch).
const std::vector<std::string>& schedule_variable_names();
const std::vector<std::string>& problem_constant_names();

std::ostream& operator<<(std::ostream& os, const GemmProblem& p);
nlohmann::json to_json(const GemmProblem& p);

}  // namespace dg
