// The generated NPU's layout for one tile shape: the scratchpad buffers, the request queues and
// the cycle estimate. One function computes it from the hardware model and the schedule; the
// solver's rules and cost, the plan (which carries it), the Verilog generator, its BOUND register
// and the co-simulation report all read that one result, so no two of them can disagree.
#pragma once

#include <cstdint>
#include <numeric>
#include <string>

#include "hw/hw_model.h"

namespace dg::hw {

/// What the layout depends on besides the model: the problem's extents and element sizes, and the
/// schedule's tile shape and dataflow.
struct NpuTiling {
  std::int64_t M = 0, N = 0, K = 0;  // K: the largest K a run may have (K_max for a range)
  std::int64_t tile_m = 0, tile_n = 0, tile_k = 0;
  int a_bits = 8, b_bits = 8, c_bits = 32;  // element bits in NPU memory (npu_element_bits; C 32 or 64)
  bool output_stationary = true;
  // B stored column-major (N×K in memory, the layout of most frameworks' weights): a tile row of B
  // in DRAM and in the scratchpad runs along K, tile_n rows of tile_k elements.
  bool b_col_major = false;
  // A stored column-major (K×M in memory): a tile row of A runs along M, tile_k rows of tile_m
  // elements, which the output-stationary engine reads as it reads a row-major B's.
  bool a_col_major = false;
  // Bytes of the fused epilogue's operands (npu_epilogue_bytes), read once at the start of a run
  // on B's read channels ahead of B's first bursts.
  std::int64_t epi_bytes = 0;
};

/// Bytes of the fused epilogue's operands of an N-column C: bias (N int32) with op_type bias or
/// bias_relu, rq (N records of 8 bytes) with an 8- or 16-bit C (requantized).
inline std::int64_t npu_epilogue_bytes(std::int64_t N, const std::string& epilogue, int c_bits) {
  const bool bias = epilogue == "bias" || epilogue == "bias_relu";
  return (bias ? N * 4 : 0) + (c_bits == 8 || c_bits == 16 ? N * 8 : 0);
}

/// Whether the generated design moves byte rows: some row of A (K elements of a_bits, or M when A
/// is column-major), B (N, or K when B is column-major) or C (N) is not a whole number of bus
/// beats, or the scratchpad word is not the bus beat (the DMA then regroups the bytes of each row
/// into words). Its DMA fetches the beats that cover each row.
inline bool npu_byte_rows(const NpuModel& n, std::int64_t M, std::int64_t K, std::int64_t N, int a_bits, int b_bits,
                          int c_bits, bool a_col_major, bool b_col_major) {
  const std::int64_t beat_bits = n.bus_data_bits;
  return ((a_col_major ? M : K) * a_bits) % beat_bits != 0 || ((b_col_major ? K : N) * b_bits) % beat_bits != 0 ||
         (N * c_bits) % beat_bits != 0 || n.spad_width_bits != n.bus_data_bits;
}

/// The alignment in elements of a run-time K and N (the plan's k_align and n_align): the DMA moves
/// whole bus beats of A's rows (K elements; M when A is column-major: the plan's m_align), B's (K
/// when B is column-major, else N) and C's (N), or whole bytes of them in a design with byte rows.
/// Bits are as the elements lie in NPU memory (npu_element_bits).
struct NpuRunTimeAlign {
  std::int64_t k = 1, n = 1, m = 1;
};
inline NpuRunTimeAlign npu_run_time_align(const NpuModel& n, bool byte_rows, int a_bits, int b_bits, int c_bits,
                                          bool a_col_major, bool b_col_major) {
  const std::int64_t unit = byte_rows ? 8 : n.bus_data_bits;
  auto per = [&](int bits) { return unit / std::gcd(unit, std::int64_t{bits}); };
  const std::int64_t k_a = a_col_major ? 1 : per(a_bits);
  return {b_col_major ? std::lcm(k_a, per(b_bits)) : k_a,
          b_col_major ? per(c_bits) : std::lcm(per(b_bits), per(c_bits)), a_col_major ? per(a_bits) : 1};
}

struct NpuLayout {
  // The compute engine: K elements of a tile row the array consumes per scratchpad read (a group),
  // and scratchpad words per PE-array-wide segment of a B row (1 for a column-major B, whose
  // tile rows the engine reads like A's: one per bank) and of a column-major A's row (1 for a
  // row-major A).
  std::int64_t group = 1, b_seg = 1, a_seg = 1;
  // The scratchpad: words per tile row of A and B (B's rows run along N, or along K when B is
  // column-major); the two buffers of each, as word offsets inside every bank (tile row r lives in
  // bank r mod banks); words of a bank in use.
  std::int64_t a_words = 0, b_words = 0;
  std::int64_t a_base0 = 0, a_base1 = 0, b_base0 = 0, b_base1 = 0;
  std::int64_t words_per_bank = 0;
  // The fills of A and B share each bank's write port: on a conflict the stream with the shorter
  // tile rows goes first (B when its rows are fewer words than A's), so that it runs ahead instead
  // of trailing the other bank by bank.
  bool b_first = false;
  // The accumulators: rows per C tile (one row holds pe_cols accumulators), bus beats per row of C.
  std::int64_t acc_rows = 0, beats_per_acc_row = 0;
  // Byte rows (npu_byte_rows): the DMA realigns each row's beats to scratchpad words (reads) and
  // C's words to strobed beats.
  bool byte_rows = false;
  // The DMA: request-queue entries of each stream (a request is a tile row), and the bursts each
  // AXI4 master may have outstanding (A and B share one read-master configuration).
  int queue_a = 4, queue_b = 4, queue_c = 4, outstanding_rd = 8, outstanding_wr = 8;
  // The estimate of one run's cycles at the largest K, and its parts summed over the K steps: the
  // engine's cycles and the A/B fetch's cycles (each step costs the larger of the two).
  std::int64_t cycles = 0, compute_cycles = 0, dma_cycles = 0;
  /// Why the generator cannot build this tile shape on this model, naming what to change; "" when
  /// it can. The solver keeps such shapes out of its space by a rule.
  std::string unbuildable;

  bool operator==(const NpuLayout&) const = default;
};

/// The layout of `t` on model `n` (NpuModel of an NPU model). Every field is computed even when
/// `unbuildable` is set, so that the solver can rank any point of its space.
NpuLayout npu_layout(const NpuModel& n, const NpuTiling& t);

}  // namespace dg::hw
