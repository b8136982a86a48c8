// The schedule space of one problem and the analytic cost model over it.
//
// The space is a set of named schedule variables, each with a finite domain of values, derived
// from the problem and the hardware model:
//   GPU: tile_m tile_n tile_k (multiples of the instruction shape), warp_m warp_n (warps along M
//        and N: compute granularity), stages, split_k, raster_group, smem (layout: none, padded,
//        swizzle_32b/64b/128b), blocks_per_sm (occupancy the kernel is launched for),
//        cluster_m cluster_n.
//   NPU: tile_m tile_n (multiples of the PE array), tile_k, dataflow (weight/output stationary),
//        smem (scratchpad bank mapping).
// Every quantity the rules and the cost need is a pure function of a few variables' values; the
// solver tabulates those functions over the domains, and an independent evaluator (tests) can
// call them on any point. See cost_model.md for the formulas and their rationale.
#pragma once

#include "hw/npu_layout.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sema/problem.h"

namespace dg::solve {

enum SmemLayout : std::int64_t { kNone = 0, kPadded = 1, kSwizzle32 = 2, kSwizzle64 = 3, kSwizzle128 = 4, kBanked = 5 };
const char* smem_layout_name(std::int64_t v);

struct Var {
  std::string name;
  std::vector<std::int64_t> values;
  std::string note;  // why this domain
};

/// Fixed-point scale of the cost model's log2 quantities.
inline constexpr double kLogScale = 1e6;

struct Space {
  const GemmProblem* problem = nullptr;
  bool gpu = true;
  hw::Family family = hw::Family::MmaSync;
  std::int64_t im = 1, in = 1, ik = 1;    // a warp's step (instruction, or PE array) shape
  std::int64_t instr_m = 0, instr_n = 0;  // the instruction's own M and N where they differ (m8n8k4)
  int a_bits = 16, b_bits = 16, c_bits = 16, acc_bits = 32, compute_bits = 16;
  bool reads_c_in = false;         // beta ≠ 0: the epilogue reads C_in, a tile of C's type, too
  std::int64_t w4_lighter = 0;     // Options::w4_lighter
  bool wgmma_alternative = false;  // the problem may run on wgmma too (families()), with TMA (unbatched)
  // 4-bit weights on the wgmma family (Plan::w4_staged): B's stage holds the converted fp16/bf16
  // tile (b_smem_bits, K-major) while DRAM moves b_bits; w4_group is the scales' group size.
  bool w4 = false;
  int b_smem_bits = 16;  // make_space: b_bits, but 16 for 4-bit weights on wgmma
  std::int64_t w4_group = 0;
  // fp8's fine-grained scales (Plan::block_scaled): a second accumulator set holds each 128-k
  // step's partial sums, which the consumers scale and add (promote_per_ns_sm: fp32 fused
  // multiply-adds per ns per SM on the CUDA cores).
  bool block_scaled = false;
  double promote_per_ns_sm = 0;
  std::int64_t M = 0, N = 0, K = 0, batch = 1;  // K = largest K
  double peak_flops_per_ns_sm = 0;              // GPU: per SM
  double w4_convert_per_ns_sm = 0;              // 4-bit weights on wgmma: weights converted per ns per SM
  double dram_bytes_per_ns_sm = 0, l2_bytes_per_ns_sm = 0;
  double latency_ns = 0;
  std::vector<Var> vars;

  int index_of(const std::string& name) const;  // -1 when absent
  const Var& var(const std::string& name) const;
  std::int64_t size() const;  // number of points
};

/// Build the space for a checked problem. `max_values` > 0 caps each domain (tests use it to make
/// spaces small enough to enumerate). `family` picks the instruction family on a GPU (mma.sync,
/// "wgmma"); "" takes the first that families() lists.
Space make_space(const GemmProblem& p, int max_values = 0, std::optional<hw::Family> family = std::nullopt);

/// The instruction families the problem can run on, in order of preference for ties: the
/// declared `family`, else every tensor-core family the target has for these precisions
/// (mma.sync, then wgmma), else simt; {"npu"} on an NPU.
std::vector<hw::Family> families(const GemmProblem& p);

/// The smallest M at which 4-bit weights may run on the wgmma family besides the weight-streaming
/// mma.sync kernel (families()): below it the 64-row wgmma tile is mostly padding.
inline constexpr std::int64_t kW4WgmmaMinM = 64;
/// The weight-streaming kernel's multiplies (mma.sync m16n8k16 behind the in-register conversion)
/// run at this share of the family's peak (the model's mma_sync_peak_tflops, 313) where compute
/// bounds it: 150 TFLOP/s at M = 256 and 176 at M = 4096 (4096 × 4096, groups of 128) on one H100,
/// run 34 in bench/RESULTS.md. Its plan's time uses it, so that the solver compares it with the
/// wgmma family's truthfully at large M.
inline constexpr double kW4RegistersMathShare = 0.55;
/// 4-bit weights on the wgmma family: the producer warpgroup converts the B tile of every K step
/// (tile_n × tile_k weights, whatever tile_m) while the consumers multiply, so a step takes the
/// longer of the two. The producer converted 8.1 weights per cycle per SM: 64×192 tiles at
/// 4096 × 4096 × 4096 (11 tiles of 192 × 4096 weights on the busiest SM) took 541.8 µs at 1980 MHz
/// on one H100, run 43 in bench/RESULTS.md, where the multiplies alone predicted 166.5 µs.
inline constexpr double kW4ConvertWeightsPerCycle = 8.0;

/// The 4-bit weight kernel's schedule (codegen/w4a16.cpp builds exactly this; the plan carries
/// it and verify proves its index maps). A block owns tile_m = 16·fm rows (fm = ceil(M/16), at
/// most 2) and tile_n = 16·warp_n columns (32·warp_n above M = 16): warp_n warps side by side
/// along N (16 or 32 columns each, sharing A's rows; the most that still leave a block for every
/// SM, or for 15/16 of them at M <= 16; 1 at M <= 8) times k_warps
/// (8 / warp_n, at most one per 128-k block) splitting K, warp (wn, wk) taking the 128-k blocks wk,
/// wk + k_warps, ...; each keeps stages - 1 blocks of
/// weights (and their scales) in flight in registers. The depths are what fits the kernel's 128
/// registers a thread at two blocks per SM (one m16 tile) or 255 at one (two m16 tiles): 3 blocks,
/// 2 with two m16 tiles, warps side by side or groups of 64 when A is loaded a block ahead
/// (M <= 8), 1 with groups of 32. `scale_b` is the plan's weight scales ("group_G", "per_column" or "none").
struct W4Schedule {
  std::int64_t tile_m = 16, tile_n = 16, tile_k = 128, warp_n = 1, k_warps = 1, stages = 2, blocks_per_sm = 2;
  std::int64_t group = 0;  // the scales' group size G; 0 for none or one per column
};
/// The 4-bit weight kernel's schedule for M×N×K on a GPU of `sms` SMs (codegen/w4a16.cpp).
/// `lighter`: that many steps down from it where ptxas found the kernel spills
/// (Options::w4_lighter): one block fewer in flight each, down to one, then 16 columns a warp.
W4Schedule w4_schedule(std::int64_t M, std::int64_t N, std::int64_t K, const std::string& scale_b, std::int64_t sms,
                       std::int64_t lighter = 0);
/// Steps past this one change nothing (w4_schedule's `lighter` is at most this).
constexpr std::int64_t kW4MaxLighter = 4;

/// A point: one value per variable, in `vars` order.
using Point = std::vector<std::int64_t>;

// ---- derived quantities (GPU) ----------------------------------------------------------------
/// One stage's shared memory (B at b_smem_bits), and the bytes its tiles move from memory (B at b_bits).
std::int64_t stage_bytes(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk);
std::int64_t dram_stage_bytes(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk);
/// Shared memory beside the stages: the 4-bit weights' staging slots (w4_staging_bytes), else 0.
std::int64_t staging_bytes(const Space& s, std::int64_t tn);
std::int64_t pad_bytes(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t layout);
std::int64_t smem_bytes(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t stages,
                        std::int64_t layout);
std::int64_t threads(std::int64_t wm, std::int64_t wn);
/// The wgmma family's loaders (the schedule variable "loader").
inline constexpr std::int64_t kLoaderCpAsync = 0, kLoaderTma = 1;
/// Shared memory of the TMA loader's barriers per stage: "full" and "empty", 8 bytes each.
inline constexpr std::int64_t kTmaBarrierBytes = 16;
/// Registers a TMA producer warpgroup keeps per thread (setmaxnreg.dec): its loop of copies.
inline constexpr std::int64_t kProducerRegisters = 40;
/// Why the TMA loader cannot load this problem's operands ("" when it can): the rules
/// hw.tma_strides and hw.tma_batch, in words.
std::string tma_refusal(const Space& s);
/// hw.tma_strides: A's and B's row strides are multiples of 16 bytes; the rule's statement.
bool tma_strides_aligned(const Space& s);
std::string tma_strides_rule(const Space& s);
/// hw.tma_batch's statement.
inline constexpr const char* kTmaBatchRule = "the TMA loader maps one matrix per operand (batch 1)";
/// Operand rows that are not whole 16-byte chunks (an odd K with pad_k): A's (`a`) or B's tiles
/// are then loaded element by element (codegen's load_operand), each element in a register of
/// its own until its chunk is stored.
bool rows_by_element(const Space& s, bool a);
/// The registers those loads hold per thread: ptxas issues the loads of every stage the
/// pipeline's prologue fills (stages - 1) before their stores, two registers per element (its
/// value and its address). 0 when
/// every row is whole chunks.
std::int64_t element_load_registers(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t wm,
                                    std::int64_t wn, std::int64_t stages);
/// Threads per block: the computing warps, and a TMA loader's producer warpgroup.
std::int64_t block_threads(std::int64_t wm, std::int64_t wn, std::int64_t loader);
std::int64_t regs_per_thread(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t wm,
                             std::int64_t wn);
/// Registers one block holds: the computing threads', and a TMA producer's after setmaxnreg.
std::int64_t block_registers(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t wm,
                             std::int64_t wn, std::int64_t loader);
/// Shared-memory rows and row length of operand A (`a`) or B as stored for this tile.
void smem_tile_shape(const Space& s, bool a, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t& rows,
                     std::int64_t& row_bytes);
/// Bank-conflict rate in thousandths: extra wavefronts / all wavefronts of the warp's shared-memory
/// accesses to one operand tile (16-byte cp.async stores and ldmatrix-style 8-row reads), computed
/// by enumerating the addresses through the layout and the model's bank map.
std::int64_t bank_conflict_milli(const Space& s, std::int64_t rows, std::int64_t row_bytes, std::int64_t layout);
/// Byte offset of (row, 16-byte chunk) in a tile stored with `layout` (the layout function itself).
std::int64_t smem_offset(std::int64_t row, std::int64_t chunk, std::int64_t row_bytes, std::int64_t layout);
/// Modelled L2 hit rate in thousandths.
std::int64_t l2_hit_milli(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t raster, std::int64_t occ);

// ---- the cost model (log2 of nanoseconds, scaled by kLogScale) --------------------------------
struct CostTerms {
  std::int64_t waves = 0;                       // log2 waves
  std::int64_t iters = 0;                       // log2 (k_iters + stages - 1)
  std::int64_t epilogue = 0;                    // log2 (1 + epilogue / main loop)
  std::int64_t loader = 0;                      // log2 of the loader's measured slowdown (wgmma: cp.async against TMA)
  std::int64_t math = 0, mem = 0, latency = 0;  // log2 ns per iteration, each a lower bound
  std::int64_t total() const;
  const char* bound() const;
};
CostTerms cost_terms(const Space& s, const Point& x);

/// Table functions used by the solver (each depends only on the variables named in its comment).
std::int64_t log_waves(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t split, std::int64_t occ);
std::int64_t log_iters(const Space& s, std::int64_t tk, std::int64_t split, std::int64_t stages);
std::int64_t log_epilogue(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t split);
std::int64_t log_math_tile(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk);
std::int64_t log_math_warps(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t wm, std::int64_t wn);
std::int64_t log_math_occ(const Space& s, std::int64_t wm, std::int64_t wn, std::int64_t occ);
std::int64_t log_mem_tile(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk);
std::int64_t log_mem_rate(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t raster, std::int64_t occ);
std::int64_t log_latency(const Space& s, std::int64_t stages);
std::int64_t log_loader(const Space& s, std::int64_t loader);

// ---- NPU ---------------------------------------------------------------------------------------
std::int64_t npu_spad_bytes(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk);
std::int64_t npu_acc_bytes(const Space& s, std::int64_t tm, std::int64_t tn);
/// The generated design's layout at this tile shape and dataflow (hw::npu_layout of the space's
/// problem): its rules and its cycle estimate, the NPU cost.
hw::NpuLayout npu_layout_of(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t df);
/// log2 of the layout's cycle estimate, scaled like every cost term.
std::int64_t npu_log_cycles(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t df);

/// Value of a point's variable by name.
std::int64_t at(const Space& s, const Point& x, const std::string& name);

}  // namespace dg::solve
