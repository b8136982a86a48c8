// The generated top's text and register map (internal to hdl-gen).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hdlgen/generate.h"

namespace dg::hdlgen {

struct TopStream {
  std::string id;                                    // a, b, c
  int beats_bits = 1;                                // width of the AGU's request length (bytes with byte rows)
  int words_bits = 1;                                // byte rows: width of a request's words and beats
  int row_bits = 1;                                  // width of the AGU's tile-row output
  std::int64_t row_words = 0, base0 = 0, base1 = 0;  // A, B: scratchpad words per tile row, buffer bases
  int lg_queue = 4;  // log2 of the DMA's request queue: the requests in flight it can track
  int lg_out = 3;    // log2 of the bursts its AXI4 master may have outstanding
  // C: log2 of dg_cout's beats read ahead of the write data channel, and of its write bursts
  // issued ahead of their data (fewer where the queues are small: low latency).
  int lg_read_ahead = 2, lg_lens = 3;
};

/// The compute side: MAC array, scratchpad and accumulator geometry, element formats, tiles.
struct EngineParams {
  int rows = 16, cols = 16, banks = 16, lg_banks = 4, spad_aw = 10, word_bits = 128, acc_aw = 5;
  std::int64_t spad_rows = 1024;
  int a_bits = 8, b_bits = 8, aw = 8, bw = 8;  // element bits in memory (4: packed) and used
  bool a_signed = true, b_signed = true;
  std::int64_t g = 16, tile_m = 16, tile_n = 16, tile_k = 16;
  std::int64_t a_words = 1, b_words = 1, a_base0 = 0, a_base1 = 0, b_base0 = 0, b_base1 = 0, b_seg = 1,
               a_seg = 1;              // words per array-tall segment of a column-major A's row
  std::int64_t beats_per_acc_row = 4;  // bus beats per row of C from an accumulator row
  int acc_bits = 32;                   // accumulator width (the model's acc_width)
  int c_bits = 32;                     // C element width: 32 or 64 (a narrower C saturates)
  bool shadow = true;                  // the MAC array's shadow registers (the model's drain_shadow)
  bool b_first = false;                // B's scratchpad writes go first on a bank conflict (the layout's choice)
  bool weight_stationary = false;      // the engine: dg_engine_ws (else dg_engine, output stationary)
  bool bank_xor = false;               // the bank mapping (dg_bank_map): XOR-swizzled, else modulo
  bool b_col_major = false;            // B's tile rows run along K (a column-major B)
  bool a_col_major = false;            // A's tile rows run along M (a column-major A)
};

/// The fused epilogue of the C write-out (dg_epilogue) and the fetch of its operands
/// (dg_epi_fetch): which operands (npu_regs::kFeature*), ReLU, requantization to out_bits.
struct EpiParams {
  unsigned features = 0;  // kFeatureBias, kFeatureRq
  bool relu = false;
  int out_bits = 8;                             // the requantized element: 8 or 16 bits
  std::int64_t n_tiles = 1;                     // C tiles along N
  std::int64_t bias_beats = 0, rq_beats = 0;    // bus beats of the bias vector and of the rq records
  int lg_route = 4;                             // log2 of the bursts the shared B channel tracks
  bool fetch() const { return features != 0; }  // operands to read
  bool any() const { return features != 0 || relu; }
};

struct TopParams {
  std::string top, header;
  std::vector<TopStream> streams;
  std::vector<Register> registers;
  std::uint32_t id = 0;
  std::int64_t cycle_bound = 0;
  int dw = 16;
  // m_min < m_max: a run-time M; n_min < n_max: a run-time N.
  std::int64_t m_min = 0, m_max = 0, n_min = 0, n_max = 0, k_min = 0, k_max = 0;
  std::int64_t batch = 1;  // > 1: the batch loop (BATCH and the strides)
  std::int64_t beat_bytes = 16, max_burst = 256, boundary = 4096;
  EngineParams engine;
  int lg_bits[3] = {3, 3, 5};                  // log2 bits per element of A, B, C in memory
  int addr_bits = 32;                          // the AXI4 masters' address width (the model's bus_addr_bits)
  bool k_fixed = true;                         // K is the plan's (no run-time range): B's rows are a constant
  bool ld_registers = true;                    // LDA, LDB, LDC (the model's npu.ld_registers); false: packed rows
  bool byte_rows = false;                      // rows not whole beats: realigned (the layout's byte_rows)
  std::int64_t row_bytes_b = 0, extent_c = 0;  // packed rows: B's row and C's bytes (constants)
  bool b_col_major = false;                    // B is N rows of K elements (column-major)
  bool a_col_major = false;                    // A is K rows of M elements (column-major)
  EpiParams epi;                               // the fused epilogue (none by default)
};

/// The core (module <top>_core): registers on a simple register port, the AGUs, DMA, scratchpad,
/// engine and C write-out on simple valid/ready bus channels.
std::string top_module(const TopParams& tp);
/// The top (module <top>): the core behind an AXI4-Lite register slave and one AXI4 master per
/// stream.
std::string axi_top_module(const TopParams& tp);
/// The parameters of the plan's compute engine (dg_engine or dg_engine_ws) as the core
/// instantiates it: one list for the instantiation and for the engine's proof.
std::vector<std::pair<std::string, std::int64_t>> engine_parameters(const TopParams& tp);
/// The registers of a design with the given features (npu_regs::kFeature*; 0: none of them).
std::vector<Register> top_registers(unsigned features = 0);

}  // namespace dg::hdlgen
