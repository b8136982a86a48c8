#include "hw/npu_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace dg::hw {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
bool pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// The estimate's constants, fitted to co-simulation (see npu_layout's estimate; bench/RESULTS.md).
constexpr double kIssue = 2;         // cycles per burst: dg_burst_split takes a request, then issues
constexpr double kRoundTrip = 16;    // a queued row is in flight for the latency and this much pipeline
constexpr double kFillA = 12;        // A's fetch: the fill pipeline after its stream
constexpr double kExposedB = 0.25;   // B's fetch: the part of the latency the engine's lag leaves exposed
constexpr std::int64_t kStep = 8;    // per K step of the engine: the buffer hand-over
constexpr std::int64_t kWsRead = 3;  // WS engine: cycles an item (weights or an A batch) holds the prefetch

/// The tile extents along one dimension: the full tile and the last, smaller one when the
/// dimension is not a multiple of the tile, each with its count.
struct Extent {
  std::int64_t size, count;
};
std::vector<Extent> extents(std::int64_t dim, std::int64_t tile) {
  std::vector<Extent> v;
  if (dim / tile > 0) v.push_back({tile, dim / tile});
  if (dim % tile != 0) v.push_back({dim % tile, 1});
  return v;
}

}  // namespace

NpuLayout npu_layout(const NpuModel& n, const NpuTiling& t) {
  NpuLayout l;
  auto refuse = [&](std::string why) {
    if (l.unbuildable.empty()) l.unbuildable = std::move(why);
  };
  const std::int64_t beat = n.bus_data_bits / 8;
  const std::int64_t word_bits = n.spad_width_bits;
  const std::int64_t banks = n.spad_banks;
  const bool ws = !t.output_stationary;
  if (!ws && (t.tile_m % n.pe_rows != 0 || t.tile_n % n.pe_cols != 0))
    refuse(fmt::format("a {}×{} tile is not a whole number of {}×{} PE-array blocks", t.tile_m, t.tile_n, n.pe_rows,
                       n.pe_cols));
  // Weight stationary: the array holds a block of pe_rows k × pe_cols n of the B tile while the
  // tile's rows of A stream through, each cut to the block's pe_rows k, which one scratchpad word
  // must hold; the accumulator row of a streamed row is read the cycle before it is written, so
  // two successive rows must differ (at a block boundary too).
  if (ws && (t.tile_n % n.pe_cols != 0 || t.tile_k % n.pe_rows != 0))
    refuse(fmt::format("a {}-column, {}-deep tile is not a whole number of {}×{} weight blocks (pe_rows k × pe_cols n)",
                       t.tile_n, t.tile_k, n.pe_rows, n.pe_cols));
  if (ws && t.tile_m < 2)
    refuse(
        "the weight-stationary engine streams at least 2 rows of A per weight block (its accumulator read-modify-"
        "write needs two distinct rows in a row)");
  if (ws && std::int64_t{n.pe_rows} * t.a_bits > word_bits)
    refuse(
        fmt::format("a weight block's {} k of an A row ({} bits) do not fit one {}-bit scratchpad word, which the "
                    "weight-stationary engine reads per row",
                    n.pe_rows, std::int64_t{n.pe_rows} * t.a_bits, word_bits));
  else if (ws && word_bits % (std::int64_t{n.pe_rows} * t.a_bits) != 0)
    refuse(fmt::format(
        "a weight block's {} k of an A row ({} bits) straddle {}-bit scratchpad words, which the weight-stationary "
        "engine reads one per row: its blocks need a power-of-two pe_rows",
        n.pe_rows, std::int64_t{n.pe_rows} * t.a_bits, word_bits));
  // The XOR bank mapping permutes the banks of one word row: a sub-block's rows, read in one cycle,
  // must lie in one word row, so the array's rows divide the banks.
  if (!ws && n.spad_bank_map == "xor" && banks % n.pe_rows != 0)
    refuse(
        fmt::format("npu.spad_bank_map is xor, which swizzles the banks of one word row, and the array's {} rows "
                    "do not divide the {} banks: a sub-block's rows would span two word rows",
                    n.pe_rows, banks));
  // Weight stationary: A is read in batches of min(banks, tile_m) rows, one per bank at one word.
  if (ws && t.tile_m % std::min(t.tile_m, banks) != 0)
    refuse(
        fmt::format("the weight-stationary engine reads A in batches of {} rows (one per bank): {} rows are not "
                    "a whole number of them",
                    std::min(t.tile_m, banks), t.tile_m));

  // The engine reads a group of K elements of each A row per scratchpad word, at most one per
  // bank's row of B, and segments of B rows as wide as the array. A group is a power of two that
  // divides the K tile, so that its rows of B lie in consecutive banks of one word row.
  // (Weight stationary: a group is a weight block's pe_rows k.)
  // A column-major B's tile rows run along K like A's: the engine reads a group of K elements of
  // each of the array's pe_cols rows of B (one bank each) per scratchpad read, so a group also
  // fits a word of B.
  const bool bcol = t.b_col_major;
  // A column-major A's tile rows run along M like a row-major B's along N: the engine reads a
  // group's G rows of A (one bank each, the sub-block's pe_rows elements of each: a_seg words).
  const bool acol = t.a_col_major;
  if (ws && bcol)
    refuse(
        "a column-major B (N×K in memory) is read by the output-stationary engine only: the weight-stationary "
        "engine loads weight blocks from K-major rows of B");
  if (ws && acol)
    refuse(
        "a column-major A (K×M in memory) is read by the output-stationary engine only: the weight-stationary "
        "engine streams rows of A along K");
  if (bcol && n.pe_cols > banks)
    refuse(
        fmt::format("a column-major B: the engine reads the array's {} columns of B, one tile row of B each, from "
                    "distinct banks in one cycle, and the scratchpad has {} banks",
                    n.pe_cols, banks));
  if (bcol && !ws && n.spad_bank_map == "xor" && banks % n.pe_cols != 0)
    refuse(
        fmt::format("npu.spad_bank_map is xor, which swizzles the banks of one word row, and a column-major B's {} "
                    "rows read at once (the array's columns) do not divide the {} banks",
                    n.pe_cols, banks));
  std::int64_t os_group = std::max<std::int64_t>(
      1, std::min({acol ? word_bits : word_bits / t.a_bits, bcol ? word_bits / t.b_bits : word_bits, banks, t.tile_k}));
  while (os_group > 1 &&
         (!pow2(os_group) || t.tile_k % os_group != 0 || (bcol && (word_bits / t.b_bits) % os_group != 0)))
    --os_group;
  l.group = ws ? std::int64_t{n.pe_rows} : os_group;
  const std::int64_t seg_bits = std::int64_t{n.pe_cols} * t.b_bits;
  if (!bcol && seg_bits % word_bits != 0 && word_bits % seg_bits != 0)
    refuse(
        fmt::format("a PE-array-wide B row segment ({} bits) neither fills whole {}-bit scratchpad words nor divides "
                    "one",
                    seg_bits, word_bits));
  l.b_seg = bcol ? 1 : std::max<std::int64_t>(1, seg_bits / word_bits);
  const std::int64_t a_seg_bits = std::int64_t{n.pe_rows} * t.a_bits;
  if (acol && !ws && a_seg_bits % word_bits != 0 && word_bits % a_seg_bits != 0)
    refuse(
        fmt::format("a column-major A: a PE-array-tall segment of an A row ({} bits) neither fills whole {}-bit "
                    "scratchpad words nor divides one",
                    a_seg_bits, word_bits));
  l.a_seg = acol ? std::max<std::int64_t>(1, a_seg_bits / word_bits) : 1;
  const std::int64_t b_row_elems = bcol ? t.tile_k : t.tile_n, b_rows = bcol ? t.tile_n : t.tile_k;
  const std::int64_t a_row_elems = acol ? t.tile_m : t.tile_k, a_rows = acol ? t.tile_k : t.tile_m;
  if ((a_row_elems * t.a_bits) % word_bits != 0 || (b_row_elems * t.b_bits) % word_bits != 0)
    refuse(fmt::format("tile rows of A ({} bits) and B ({} bits) must be whole {}-bit scratchpad words",
                       a_row_elems * t.a_bits, b_row_elems * t.b_bits, word_bits));
  l.a_words = ceil_div(a_row_elems * t.a_bits, word_bits);
  l.b_words = ceil_div(b_row_elems * t.b_bits, word_bits);
  const std::int64_t a_buf = ceil_div(a_rows, banks) * l.a_words;
  const std::int64_t b_buf = ceil_div(b_rows, banks) * l.b_words;
  l.a_base0 = 0;
  l.a_base1 = a_buf;
  l.b_base0 = 2 * a_buf;
  l.b_base1 = 2 * a_buf + b_buf;
  l.words_per_bank = 2 * (a_buf + b_buf);
  l.b_first = l.b_words < l.a_words;
  if (l.words_per_bank > n.spad_rows)
    refuse(fmt::format("the double-buffered tiles need {} words in each bank, the scratchpad has {}", l.words_per_bank,
                       n.spad_rows));
  l.acc_rows = t.tile_m * std::max<std::int64_t>(1, t.tile_n / n.pe_cols);
  if (2 * t.tile_m * t.tile_n * n.acc_width > std::int64_t{n.acc_rows} * n.acc_width_bits)
    refuse(fmt::format("two {}×{} buffers of {}-bit accumulators do not fit the accumulator memory", t.tile_m, t.tile_n,
                       n.acc_width));
  if ((std::int64_t{n.pe_cols} * t.c_bits / 8) % beat != 0)
    refuse(fmt::format("a row of C from the accumulators ({} bytes) is not whole {}-byte bus beats",
                       std::int64_t{n.pe_cols} * t.c_bits / 8, beat));
  l.beats_per_acc_row = std::max<std::int64_t>(1, std::int64_t{n.pe_cols} * t.c_bits / 8 / beat);
  // Byte rows (npu_byte_rows): a row may start inside a beat and the DMA fetches the beats that
  // cover it (one more than its bytes need when it straddles); where the scratchpad word is not
  // the beat, the regrouping (dg_rd_gear) gives one word a cycle after the cycle that takes the
  // row's first beat, so a row takes the larger of its beats and its words plus one.
  l.byte_rows = npu_byte_rows(n, t.M, t.K, t.N, t.a_bits, t.b_bits, t.c_bits, acol, bcol);
  const std::int64_t straddle = l.byte_rows ? 1 : 0;
  const std::int64_t gear = word_bits != 8 * beat ? 1 : 0;
  auto fill_cycles = [&](std::int64_t elems, int bits) {
    return std::max(ceil_div(elems * bits, 8 * beat) + straddle, ceil_div(elems * bits, word_bits) + gear);
  };

  // The request queues cover the DRAM latency with requests of a tile row each.
  auto row_beats = [&](std::int64_t elems, int bits) { return std::max<std::int64_t>(1, elems * bits / (8 * beat)); };
  const std::int64_t ra = row_beats(a_row_elems, t.a_bits) + straddle, rb = row_beats(b_row_elems, t.b_bits) + straddle,
                     rc = row_beats(t.tile_n, t.c_bits) + straddle;
  l.queue_a = npu_queue_entries(n, ra, false);
  l.queue_b = npu_queue_entries(n, rb, false);
  l.queue_c = npu_queue_entries(n, rc, true);
  // Each AXI4 master keeps up to twice as many bursts outstanding as an A/B queue of its stream's
  // rows holds: enough for the latency of reads and of write responses alike.
  l.outstanding_rd = 2 * std::max(npu_queue_entries(n, ra, false), npu_queue_entries(n, rb, false));
  l.outstanding_wr = 2 * npu_queue_entries(n, rc, false);

  // The cycle estimate, fitted to co-simulation (`deepgemm sweep bench/npu/sweep.json`, the table
  // in tests/unit/data/npu_cycles.csv, bench/RESULTS.md). Each K step costs the slowest of:
  //  - the engine: per sub-block, the step's groups of K at max(group, A and B segments + 2) cycles;
  //  - A's and B's fetch: the stream, and the part of the DRAM latency and of the fill pipeline
  //    that the engine's lag behind its scratchpad reads does not hide (the engine reads a step
  //    only once both buffers are full, and frees a buffer when the step's last group is read).
  // A stream is as slow as the most binding of: its beats, one cycle per beat; its bursts, which
  // the burst splitter issues one per kIssue cycles; and its request queue, which keeps at most
  // `queue` tile rows in flight, each for the latency and its beats (Little's law).
  // A partial K step computes only the groups inside K and fetches only its columns of A and rows
  // of B; a partial M tile fetches only its rows (the engine still computes the whole tile).
  auto stream = [&](std::int64_t rows, std::int64_t row_beats, int queue) {
    row_beats = std::max<std::int64_t>(1, row_beats);
    const double beats = static_cast<double>(rows * row_beats);
    const double bursts = static_cast<double>(rows * ceil_div(row_beats, n.bus_max_burst_beats));
    const double in_flight =
        static_cast<double>(rows) * (n.dram_latency_cycles + kRoundTrip + static_cast<double>(row_beats)) / queue;
    return std::max({beats, kIssue * bursts, in_flight});
  };
  // (A column-major A: the step's K rows of the tile's M.)
  auto a_stream = [&](std::int64_t rows_m, std::int64_t kk) {
    return acol ? stream(kk, fill_cycles(rows_m, t.a_bits), l.queue_a)
                : stream(rows_m, fill_cycles(kk, t.a_bits), l.queue_a);
  };
  auto a_fetch = [&](std::int64_t rows_m, std::int64_t kk) { return a_stream(rows_m, kk) + kFillA; };
  // (A column-major B: tile_n rows of the step's K.)
  auto b_stream = [&](std::int64_t kk) {
    return bcol ? stream(t.tile_n, fill_cycles(kk, t.b_bits), l.queue_b)
                : stream(kk, fill_cycles(t.tile_n, t.b_bits), l.queue_b);
  };
  auto b_fetch = [&](std::int64_t kk) { return b_stream(kk) + kExposedB * n.dram_latency_cycles; };
  const std::int64_t sub_blocks =
      std::max<std::int64_t>(1, t.tile_m / n.pe_rows) * std::max<std::int64_t>(1, t.tile_n / n.pe_cols);
  const std::int64_t per_group = std::max<std::int64_t>(l.group, l.a_seg + l.b_seg + 2);
  // Weight stationary: per weight block (pe_rows k × pe_cols n), the tile's rows stream one per
  // cycle in batches of min(banks, tile_m) rows (one scratchpad read each), or the reads bind: an
  // item (a batch, or the next block's weights, b_seg words) passes the one prefetch register in
  // kWsRead cycles, so a batch streams for at least kWsRead cycles, and a block's last batch for
  // at least the next block's weights and first batch (b_seg + kWsRead + 2).
  const std::int64_t ws_batch = std::min(t.tile_m, banks);
  const std::int64_t ws_batches = std::max<std::int64_t>(1, t.tile_m / ws_batch);
  const std::int64_t ws_per_block =
      (ws_batches - 1) * std::max(ws_batch, kWsRead) + std::max(ws_batch, l.b_seg + kWsRead + 2);
  const std::int64_t col_blocks = std::max<std::int64_t>(1, t.tile_n / n.pe_cols);
  const std::int64_t tiles_n = ceil_div(t.N, t.tile_n);
  double total = 0, compute_total = 0, fetch_total = 0;
  for (const Extent& em : extents(t.M, t.tile_m))
    for (const Extent& ek : extents(t.K, t.tile_k)) {
      // Without shadow registers the array also waits while each sub-block drains.
      const double compute = ws ? static_cast<double>(col_blocks * ceil_div(ek.size, l.group) * ws_per_block + kStep)
                                : static_cast<double>(sub_blocks * (ceil_div(ek.size, l.group) * per_group +
                                                                    (n.drain_shadow ? 0 : n.pe_rows + 3)) +
                                                      kStep);
      const double fetch = std::max(a_fetch(em.size, ek.size), b_fetch(ek.size));
      const double steps = static_cast<double>(em.count * tiles_n * ek.count);
      compute_total += steps * compute;
      fetch_total += steps * fetch;
      total += steps * std::max(compute, fetch);
    }
  // The first step's fill, the last drain and the last C tile's write-out.
  const std::int64_t m0 = std::min(t.M, t.tile_m), k0 = std::min(t.K, t.tile_k);
  // (The epilogue's operands go first on B's channels.)
  const double first = std::max(a_stream(m0, k0), b_stream(k0) + static_cast<double>(ceil_div(t.epi_bytes, beat))) +
                       n.dram_latency_cycles;
  // The last C tile is the last M and N extents: its rows' beats (with byte rows, one more where
  // a row straddles).
  const std::int64_t m_last = extents(t.M, t.tile_m).back().size, n_last = extents(t.N, t.tile_n).back().size;
  const std::int64_t c_beats = m_last * (ceil_div(n_last * t.c_bits, 8 * beat) + straddle);
  // (The last drain: the OS engine's shadow rows, the WS engine's two-cycle accumulate.)
  total += n.dram_latency_cycles + first + (ws ? 2 : n.pe_rows + 2) + static_cast<double>(c_beats) + 8;
  l.cycles = static_cast<std::int64_t>(std::ceil(total));
  l.compute_cycles = static_cast<std::int64_t>(std::ceil(compute_total));
  l.dma_cycles = static_cast<std::int64_t>(std::ceil(fetch_total));
  return l;
}

}  // namespace dg::hw
