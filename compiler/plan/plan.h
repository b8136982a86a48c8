// Plan: the contract between the solver and everything after it. Solve produces it; verify,
// codegen and hdlgen consume it and nothing else. It says which schedule was chosen (tile shape,
// layout, granularity and the derived choices), what the cost model predicts for it, and — as
// affine maps over named index variables — exactly which element every block, warp and fragment
// touches. That index description is what verify proves and what the backends emit.
// It serializes to JSON and back byte-identically (to_json / from_json / dump).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "hw/npu_layout.h"

namespace dg {

/// An index variable ranging over [0, extent).
struct IndexVar {
  std::string name;
  std::int64_t extent = 1;
};

/// offset + Σ coeff·var over IndexVars of the IndexDesc.
struct AffineMap {
  struct Term {
    std::string var;
    std::int64_t coeff = 0;
  };
  std::vector<Term> terms;
  std::int64_t offset = 0;
};

/// How the kernel's index arithmetic is built, stated once for proof and for code generation.
///
/// Output side: C element (c_row, c_col) is produced by one (block, warp, fragment, element)
/// tuple from `out_vars`; it is stored when c_row < M and c_col < N.
/// Reduction side: k = k_index over `k_vars`; A(a_row = c_row, k) and B(k, c_col) are read
/// when in bounds and zero-filled otherwise (predicated loads; the `pad_k` tail).
/// Inverse maps (decompositions) give, for an element, the tuple that owns it: they are what makes
/// "exactly one" provable without quantifiers.
struct IndexDesc {
  std::vector<IndexVar> out_vars;  // e.g. block_m, warp_m, frag_m, elem_m, block_n, ...
  std::vector<IndexVar> k_vars;    // e.g. split, k_tile, k_elem
  AffineMap c_row, c_col, k_index;
  // Inverse: for each out var / k var, idx = (x / div) % mod of x = row, col or k.
  struct Decomp {
    std::string var;
    std::string of;  // "row", "col", "k"
    std::int64_t div = 1;
    std::int64_t mod = 0;  // 0 = no modulo
  };
  std::vector<Decomp> inverse;
  // Global element offsets (leading dimensions), for bounds and 32-bit overflow proofs.
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  bool a_row_major = true, b_row_major = true, c_row_major = true;
  // Shared-memory tile layout of each operand: rows of row_bytes, swizzled by `swizzle`.
  std::int64_t a_smem_rows = 0, a_smem_row_bytes = 0, b_smem_rows = 0, b_smem_row_bytes = 0;
  std::int64_t smem_row_pad_bytes = 0;  // "padded" layout
  int swizzle_bits = 0;                 // XOR swizzle: bits [7, 7+b) into [4, 4+b) of the byte offset
};

/// Shared memory of C's store through the tensor-memory accelerator (c_store "tma"): two buffers
/// of a 128-byte column slab of the tile's rows.
inline std::int64_t c_store_bytes(std::int64_t tile_m) { return 2 * tile_m * 128; }

/// The wgmma TMA kernel's 4-bit weights (wgmma_tma.cpp): the producer warpgroup stages packed
/// 128-k blocks of the tile's columns (tile_n / 8 n8 tiles of 512 bytes, <deepgemm/w4_pack.h>)
/// and their scale rows (tile_n values of 16 bits each) by cp.async in kW4Slots slots, kW4Slots - 1
/// blocks ahead of the one it converts into the stages. `group`: the scales' group size along K
/// (0: no scales; K for per_column).
inline constexpr std::int64_t kW4Slots = 3;
/// Registers each producer thread keeps (setmaxnreg) while it converts 4-bit weights: with the
/// TMA producer's 40 the conversion spilled (ptxas: 16 to 40 bytes at every tile shape), with 64
/// it still spilled 20 bytes in a persistent tile loop (4096³, 64×192).
inline constexpr std::int64_t kW4ProducerRegisters = 80;
inline std::int64_t w4_scale_rows(std::int64_t group) { return group <= 0 ? 0 : group < 128 ? 128 / group : 1; }
inline std::int64_t w4_slot_bytes(std::int64_t tile_n, std::int64_t group) {
  return tile_n / 8 * 512 + w4_scale_rows(group) * tile_n * 2;
}
inline std::int64_t w4_staging_bytes(std::int64_t tile_n, std::int64_t group) {
  return kW4Slots * w4_slot_bytes(tile_n, group);
}
/// fp8's fine-grained scales: K and N in blocks of this many (Plan::block_scaled).
inline constexpr std::int64_t kScaleBlock = 128;

/// The group size of 4-bit weights' scales (`scale_b`): 0 without, K for per_column, G for group_G.
inline std::int64_t w4_group_size(const std::string& scale_b, std::int64_t K) {
  if (scale_b == "per_column") return K;
  if (scale_b.rfind("group_", 0) == 0) return std::stoll(scale_b.substr(6));
  return 0;
}

struct Plan {
  // What is computed
  std::string target;                                // hw model name
  hw::TargetKind target_kind = hw::TargetKind::Gpu;  // written "gpu" | "npu"
  hw::Family family = hw::Family::MmaSync;           // written "mma.sync" | "wgmma" | "simt" | "npu"
  std::string a_type, b_type, c_type, acc_type;
  std::string weight_conversion;  // "" or the type weights are converted to in registers
  std::int64_t M = 0, N = 0, K = 0, K_min = 0, K_max = 0, batch = 1;
  bool k_dynamic = false;
  // A run-time M in [M_min, M] (NPU targets; M holds the largest). Written in the JSON only where
  // M is a range ("m_dynamic": true and "M_min").
  bool m_dynamic = false;
  std::int64_t M_min = 0;
  // ... and N in [N_min, N] ("n_dynamic", "N_min").
  bool n_dynamic = false;
  std::int64_t N_min = 0;
  std::int64_t n_align = 1;  // a run-time N must be a multiple of this (B's and C's rows whole bus beats)
  std::int64_t m_align = 1;  // a run-time M must be a multiple of this (NPU: a column-major A's rows)
  std::int64_t k_align = 1;  // a run-time K must be a multiple of this (NPU: A's rows whole bus beats)
  // NPU, a column-major C: the plan is the transpose's, Cᵀ = Bᵀ·Aᵀ (GemmProblem::operands_swapped).
  // Its A is the user's B, its B the user's A, its M and N the user's N and M; the runtime binds
  // and sizes by the user's names. Written in the JSON only where true.
  bool operands_swapped = false;
  bool pad_k = false;
  std::string epilogue = "none";
  std::string scale_a = "none", scale_b = "none";  // "per_tensor": one fp32 operand multiplies the accumulation
  /// fp8's fine-grained scales (A "group_128", B "block_128"): each 128-k step's partial sums are
  /// multiplied by A's row scale times B's block scale (fp32) and added to the accumulators.
  bool block_scaled() const { return scale_b == "block_128"; }
  // C = epilogue(alpha · (A·B) + bias + beta · C_in), in fp32; beta ≠ 0 reads the C_in operand (an
  // M×N input of C's type and layout). Written in the JSON only where not 1 and 0.
  double alpha = 1, beta = 0;
  bool reads_c_in() const { return beta != 0; }
  /// 4-bit weights on the wgmma family: packed in the n8k128 layout, converted by the TMA kernel's
  /// producer warpgroup into K-major fp16/bf16 stages (wgmma_tma.cpp).
  bool w4_staged() const { return family == hw::Family::Wgmma && !weight_conversion.empty(); }

  // The schedule (GPU: block/warp tiling; NPU: array tiling)
  std::int64_t tile_m = 0, tile_n = 0, tile_k = 0;
  std::int64_t warp_m = 1, warp_n = 1;  // warps along M and N (GPU)
  std::int64_t stages = 1, split_k = 1, raster_group = 1, cluster_m = 1, cluster_n = 1;
  std::int64_t blocks_per_sm = 1;
  std::int64_t k_warps = 1;            // GPU, 4-bit weight kernel: warps of a block splitting its K (1: none)
  std::string loader;                  // GPU: how operand tiles reach shared memory: "cp.async" (every thread
                                       // copies) or "tma" (a producer warpgroup drives the tensor-memory
                                       // accelerator, the others compute); "" on NPUs
  std::int64_t persistent_blocks = 0;  // GPU, TMA loader: blocks launched, block b taking tiles b,
                                       // b + G, ... (G blocks); 0: one block per tile
  std::string c_store = "direct";      // GPU: how C reaches global memory: "direct" (each thread stores its
                                       // pairs) or "tma" (staged in shared memory, 128-byte column slabs,
                                       // stored by the tensor-memory accelerator while the next tile runs:
                                       // c_store_bytes of shared memory after the stages)
  std::string smem_layout;             // none | padded | swizzle_32b | swizzle_64b | swizzle_128b | banked (NPU)
  std::string dataflow;                // NPU: weight_stationary | output_stationary
  std::int64_t instr_m = 0, instr_n = 0, instr_k = 0;  // instruction shape (PE array on NPUs)

  // Derived
  std::int64_t threads = 0, smem_bytes = 0, regs_per_thread = 0, grid_m = 0, grid_n = 0, k_iters = 0;

  // Predicted by the cost model
  double predicted_us = 0;
  double predicted_tflops = 0;
  double l2_hit_rate = 0;
  double bank_conflict_rate = 0;
  std::string bound;  // "compute" | "memory" | "latency"

  // How it was found
  std::int64_t space_size = 0;
  std::int64_t feasible_tiles = 0;
  std::vector<std::string> rules;  // names of the rules it satisfies
  std::vector<std::string> notes;

  IndexDesc index;

  // NPU: the generated design's layout for this schedule (scratchpad buffers, queues, the cycle
  // estimate), computed once by hw::npu_layout; the generator builds exactly it.
  std::optional<hw::NpuLayout> npu_layout;
};

nlohmann::json to_json(const Plan& p);
/// Throws dg::UserError naming the field when the JSON is not a plan (an unknown target_kind or
/// family string included).
Plan plan_from_json(const nlohmann::json& j);
/// Canonical JSON text (sorted keys, 2-space indent, trailing newline).
std::string dump_plan(const Plan& p);
std::ostream& operator<<(std::ostream& os, const Plan& p);  // human summary

/// Evaluate a map at a point (values in var order of the names given).
std::int64_t eval(const AffineMap& m, const std::vector<std::pair<std::string, std::int64_t>>& point);

}  // namespace dg
