// The NPU layout (hw::npu_layout): the scratchpad buffers and queues the generator builds, and the
// cycle estimate against recorded tables of co-simulated cycles. Each table is the output of
// `deepgemm sweep bench/npu/sweep.json`: every plan it compiled and co-simulated, with the model's
// fields, the shape, the tiles and the simulated cycles. data/npu_cycles_fit.csv is the sweep the
// estimate's constants were fitted to (the plans the earlier estimate chose and ranked next);
// data/npu_cycles.csv is the sweep run again with the fitted estimate choosing (mostly other
// plans). The estimate is a pure function of a row, so this test holds it to the co-simulation
// without simulating anything.
#include "hw/npu_layout.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace dg::hw;

namespace {

std::vector<std::map<std::string, std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in, path);
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::string cur;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted) {
        if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
          cur += '"', ++i;
        else if (c == '"')
          quoted = false;
        else
          cur += c;
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        cells.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    cells.push_back(cur);
    return cells;
  };
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> head = split(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto cells = split(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < head.size() && i < cells.size(); ++i) row[head[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

int memory_bits(const std::string& type) {
  if (type == "int32") return 32;
  if (type == "int64") return 64;
  if (type.rfind("int", 0) == 0) return npu_element_bits(std::stoi(type.substr(3)));
  return npu_element_bits(std::stoi(type.substr(1)));  // sN, uN
}

NpuModel model_of(const std::map<std::string, std::string>& r) {
  NpuModel n;
  auto i = [&](const char* k) { return std::stoi(r.at(k)); };
  n.pe_rows = i("pe_rows");
  n.pe_cols = i("pe_cols");
  n.spad_banks = i("spad_banks");
  n.spad_rows = i("spad_rows");
  n.spad_width_bits = i("spad_width_bits");
  n.acc_rows = i("acc_rows");
  n.acc_width_bits = i("acc_width_bits");
  n.acc_width = i("acc_width");
  n.bus_data_bits = i("bus_data_bits");
  n.bus_max_burst_beats = i("bus_max_burst_beats");
  n.bus_boundary_bytes = i("bus_boundary_bytes");
  n.dram_latency_cycles = i("dram_latency_cycles");
  n.drain_shadow = r.count("drain_shadow") == 0 || r.at("drain_shadow") != "false";
  return n;
}

NpuTiling tiling_of(const std::map<std::string, std::string>& r) {
  NpuTiling t;
  t.M = std::stoll(r.at("M"));
  t.N = std::stoll(r.at("N"));
  t.K = std::stoll(r.at("K"));
  t.tile_m = std::stoll(r.at("tile_m"));
  t.tile_n = std::stoll(r.at("tile_n"));
  t.tile_k = std::stoll(r.at("tile_k"));
  t.a_bits = memory_bits(r.at("a_type"));
  t.b_bits = memory_bits(r.at("b_type"));
  t.c_bits = memory_bits(r.at("c_type"));
  // (Tables recorded before the weight-stationary engine have no dataflow: output stationary.)
  t.output_stationary = r.count("dataflow") == 0 || r.at("dataflow") != "weight_stationary";
  return t;
}

}  // namespace

/// |estimate − simulated| / simulated in percent, for every co-simulated row of `file`.
static std::vector<double> estimate_errors(const std::string& file) {
  const auto rows = read_csv(std::string(DEEPGEMM_SOURCE_DIR) + "/tests/unit/data/" + file);
  std::vector<double> errs;
  for (const auto& r : rows) {
    if (r.at("status") != "PASS") continue;
    const NpuLayout l = npu_layout(model_of(r), tiling_of(r));
    INFO(fmt::format("{}: {} / {} rank {}: {}×{}×{}", file, r.at("variant"), r.at("spec"), r.at("rank"), r.at("tile_m"),
                     r.at("tile_n"), r.at("tile_k")));
    CHECK(l.unbuildable.empty());
    const double sim = std::stod(r.at("simulated_cycles"));
    errs.push_back(std::abs(100.0 * (static_cast<double>(l.cycles) - sim) / sim));
  }
  std::sort(errs.begin(), errs.end());
  return errs;
}

/// The estimate's |error| over the co-simulated plans of `file` (at least 30): at most `max_pct`
/// on every plan, at most `median_pct` at the median.
static void check_estimate(const std::string& file, double max_pct, double median_pct) {
  const std::vector<double> errs = estimate_errors(file);
  REQUIRE(errs.size() >= 30);
  INFO(fmt::format("{}: {} plans, |error| median {:.2f}%, max {:.2f}%", file, errs.size(), errs[errs.size() / 2],
                   errs.back()));
  CHECK(errs.back() <= max_pct);
  CHECK(errs[errs.size() / 2] <= median_pct);
}

TEST_CASE(
    "npu layout: the estimate against co-simulation of the plans it chose, within 10% everywhere and 5% at "
    "the median") {
  check_estimate("npu_cycles.csv", 10.0, 5.0);
}

// On the plans the earlier estimate chose the bound is 13%: the estimate does not model the bank
// conflicts between the A and B fills, nor where a tile deeper than K leaves the buffers
// (bench/RESULTS.md names the plans it misses by more than 10%).
TEST_CASE(
    "npu layout: the estimate against the co-simulation it was fitted to, within 13% everywhere and 5% at "
    "the median") {
  check_estimate("npu_cycles_fit.csv", 13.0, 5.0);
}

TEST_CASE("npu layout: at every recorded point the plan the estimate ranks first is within 5% of the fastest") {
  // Each (variant, spec) point of the fitted table holds the earlier estimate's plan and the next
  // two it ranked; of those, the one of least estimate must have co-simulated within 5% of the
  // fastest.
  const auto rows = read_csv(std::string(DEEPGEMM_SOURCE_DIR) + "/tests/unit/data/npu_cycles_fit.csv");
  struct Best {
    std::int64_t est = -1;
    double sim_of_est = 0, fastest = 0;
  };
  std::map<std::string, Best> points;
  for (const auto& r : rows) {
    if (r.at("status") != "PASS") continue;
    Best& b = points[r.at("variant") + " / " + r.at("spec")];
    const std::int64_t est = npu_layout(model_of(r), tiling_of(r)).cycles;
    const double sim = std::stod(r.at("simulated_cycles"));
    if (b.est < 0 || est < b.est) b.est = est, b.sim_of_est = sim;
    if (b.fastest == 0 || sim < b.fastest) b.fastest = sim;
  }
  REQUIRE(points.size() >= 30);
  for (const auto& [point, b] : points) {
    INFO(fmt::format("{}: the estimate's pick co-simulated {:.0f} cycles, the fastest {:.0f}", point, b.sim_of_est,
                     b.fastest));
    CHECK(b.sim_of_est <= 1.05 * b.fastest);
  }
}

/// npu16's geometry (16×16 array, 16 banks of 1024 128-bit words, 512-bit accumulator rows) at a
/// DRAM latency.
static NpuModel npu16_at(int latency) {
  NpuModel n;
  n.pe_rows = n.pe_cols = 16;
  n.spad_banks = 16;
  n.spad_rows = 1024;
  n.spad_width_bits = n.bus_data_bits = 128;
  n.acc_rows = 1024;
  n.acc_width_bits = 512;
  n.acc_width = 32;
  n.bus_max_burst_beats = 256;
  n.bus_boundary_bytes = 4096;
  n.dram_latency_cycles = latency;
  return n;
}

TEST_CASE("npu layout: buffers, queues and refusals") {
  NpuModel n = npu16_at(100);
  NpuTiling t;
  t.M = t.N = t.K = 256;
  t.tile_m = 64;
  t.tile_n = 32;
  t.tile_k = 128;
  const NpuLayout l = npu_layout(n, t);
  CHECK(l.unbuildable.empty());
  CHECK(l.a_words == 8);      // 128 int8 elements of a tile row of A: 8 words of 16 bytes
  CHECK(l.b_words == 2);      // 32 of B
  CHECK(l.a_base1 == 4 * 8);  // 64 rows over 16 banks: 4 rows per bank, 8 words each
  CHECK(l.b_base0 == 2 * 4 * 8);
  CHECK(l.b_base1 == l.b_base0 + 8 * 2);
  CHECK(l.words_per_bank == 2 * (32 + 16));
  CHECK(l.acc_rows == 64 * 2);
  CHECK(l.group == 16);
  CHECK(l.cycles >= l.compute_cycles);
  // Too deep a tile for the banks' rows: refused, naming the words.
  t.tile_k = 1024;
  t.tile_m = 256;
  const NpuLayout big = npu_layout(n, t);
  CHECK(big.unbuildable.find("words in each bank") != std::string::npos);
  // Not a whole number of PE blocks: refused.
  t = NpuTiling{256, 256, 256, 24, 32, 128};
  CHECK(!npu_layout(n, t).unbuildable.empty());
}

TEST_CASE("npu layout: a column-major A") {
  NpuModel n = npu16_at(100);
  NpuTiling t{256, 256, 256, 64, 32, 128};
  t.a_col_major = true;
  const NpuLayout l = npu_layout(n, t);
  CHECK(l.unbuildable.empty());
  CHECK(l.a_words == 4);                  // a tile row of A runs along M: 64 int8 elements, 4 words of 16 bytes
  CHECK(l.a_seg == 1);                    // the array's 16 rows: one word
  CHECK(l.a_base1 == l.a_base0 + 8 * 4);  // 128 rows of K over 16 banks: 8 rows per bank
  CHECK(l.b_base0 == 2 * 8 * 4);
  CHECK(l.group == 16);  // a group is no longer bounded by a word of A's K
  // A's rows are M elements: an M that is no whole beat makes byte rows, a K that is no longer does.
  CHECK(npu_byte_rows(n, 72, 256, 256, 8, 8, 32, true, false));
  CHECK(!npu_byte_rows(n, 64, 200, 256, 8, 8, 32, true, false));
  CHECK(npu_run_time_align(n, false, 8, 8, 32, true, false).k == 1);
  CHECK(npu_run_time_align(n, false, 8, 8, 32, true, true).k == 16);
  // The weight-stationary engine does not read it.
  t.output_stationary = false;
  CHECK(npu_layout(n, t).unbuildable.find("output-stationary engine only") != std::string::npos);
  t.output_stationary = true;
  // Segments of 16-bit elements: 32 bytes, two words a read.
  t.a_bits = 16;
  CHECK(npu_layout(n, t).a_seg == 2);
  // A 12-row array of 8-bit elements: a 96-bit segment straddles 128-bit words.
  n.pe_rows = 12;
  t.a_bits = 8;
  t.tile_m = 48;
  CHECK(npu_layout(n, t).unbuildable.find("neither fills whole") != std::string::npos);
}

TEST_CASE("npu layout: a column-major B") {
  NpuModel n = npu16_at(100);
  NpuTiling t{256, 256, 256, 64, 32, 128};
  t.b_col_major = true;
  const NpuLayout l = npu_layout(n, t);
  CHECK(l.unbuildable.empty());
  CHECK(l.b_words == 8);                  // a tile row of B runs along K: 128 int8 elements, 8 words of 16 bytes
  CHECK(l.b_seg == 1);                    // read one row a bank, as A
  CHECK(l.b_base1 == l.b_base0 + 2 * 8);  // 32 rows over 16 banks: 2 rows per bank
  CHECK(l.words_per_bank == 2 * (32 + 16));
  CHECK(l.group == 16);
  // B's rows are K elements: a K that is no whole beat makes byte rows, an N that is no longer does.
  CHECK(npu_byte_rows(n, 64, 256, 204, 8, 8, 32, false, false));  // 204 bytes of a row-major B's row
  CHECK(!npu_byte_rows(n, 64, 256, 204, 8, 8, 32, false, true));  // (C's row, 816 bytes, is whole beats)
  CHECK(npu_byte_rows(n, 64, 200, 256, 8, 8, 32, false, true));
  // The weight-stationary engine does not read it; nor an array wider than the banks.
  t.output_stationary = false;
  CHECK(npu_layout(n, t).unbuildable.find("output-stationary engine only") != std::string::npos);
  t.output_stationary = true;
  n.pe_cols = 32;
  n.acc_width_bits = 1024;
  t.tile_n = 64;
  CHECK(npu_layout(n, t).unbuildable.find("distinct banks") != std::string::npos);
}

TEST_CASE("npu layout: weight stationary") {
  NpuModel n = npu16_at(7);
  NpuTiling t{256, 256, 256, 64, 32, 128};
  t.output_stationary = false;
  const NpuLayout ws = npu_layout(n, t);
  CHECK(ws.unbuildable.empty());
  // The scratchpad, accumulators and queues are the output-stationary engine's: the same DMA.
  t.output_stationary = true;
  const NpuLayout os = npu_layout(n, t);
  CHECK(ws.a_words == os.a_words);
  CHECK(ws.a_base1 == os.a_base1);
  CHECK(ws.b_base1 == os.b_base1);
  CHECK(ws.acc_rows == os.acc_rows);
  CHECK(ws.queue_a == os.queue_a);
  CHECK(ws.dma_cycles == os.dma_cycles);
  // A K step: 2 column blocks × 8 k blocks of 16, each streaming the 64 rows of A (64 cycles,
  // more than its reads: 1 weight word, 4 batches of 16 rows), and the buffer hand-over.
  CHECK(ws.group == 16);
  const std::int64_t steps = (256 / 64) * (256 / 32) * (256 / 128);
  CHECK(ws.compute_cycles == steps * (2 * 8 * 64 + 8));
  // With 4 rows per tile the block's reads bind: 1 weight word, then one batch, 3 cycles each.
  t = NpuTiling{256, 256, 256, 4, 32, 128};
  t.output_stationary = false;
  const NpuLayout small = npu_layout(n, t);
  CHECK(small.unbuildable.empty());
  CHECK(small.compute_cycles == (256 / 4) * (256 / 32) * (256 / 128) * (2 * 8 * (1 + 3 * 2 - 1) + 8));
  // Four banks, a 2×4 array: a 16-row tile streams in 4 batches of 4 rows; a block's last batch
  // waits for the next block's weights and first batch (1 + 5 cycles): 3·4 + 6 per block
  // (co-simulated on npu4, 64×64×256: 148178 cycles, this estimate 148590).
  NpuModel n4 = n;
  n4.pe_rows = 2;
  n4.pe_cols = 4;
  n4.spad_banks = 4;
  n4.spad_rows = 256;
  n4.spad_width_bits = n4.bus_data_bits = 32;
  n4.acc_rows = 256;
  n4.acc_width_bits = 128;
  n4.dram_latency_cycles = 2;
  t = NpuTiling{64, 64, 256, 16, 16, 64};
  t.output_stationary = false;
  const NpuLayout l4 = npu_layout(n4, t);
  CHECK(l4.unbuildable.empty());
  CHECK(l4.compute_cycles == (64 / 16) * (64 / 16) * (256 / 64) * ((16 / 4) * (64 / 2) * (3 * 4 + 6) + 8));
  // Any tile_m of 2 rows or more (no multiple of pe_rows needed); tile_k whole weight blocks;
  // a weight block's k range of A in one scratchpad word.
  t = NpuTiling{256, 256, 256, 2, 32, 128};
  t.output_stationary = false;
  CHECK(npu_layout(n, t).unbuildable.empty());
  t.tile_m = 1;
  CHECK(npu_layout(n, t).unbuildable.find("at least 2 rows") != std::string::npos);
  t = NpuTiling{256, 256, 256, 64, 32, 8};
  t.output_stationary = false;
  CHECK(npu_layout(n, t).unbuildable.find("weight blocks") != std::string::npos);
  t = NpuTiling{256, 256, 256, 64, 32, 128};
  t.output_stationary = false;
  t.a_bits = 16;
  CHECK(npu_layout(n, t).unbuildable.find("do not fit one 128-bit scratchpad word") != std::string::npos);
  // The estimate's last term: two cycles of accumulate instead of the array's drain.
  t.a_bits = 8;
  t.output_stationary = true;
  const NpuLayout os2 = npu_layout(n, t);
  t.output_stationary = false;
  const NpuLayout ws2 = npu_layout(n, t);
  CHECK(ws2.cycles - ws2.compute_cycles == os2.cycles - os2.compute_cycles - n.pe_rows);
}

TEST_CASE("npu layout: array sides that are not powers of two") {
  // A 6×12 array on 8 banks of 32-bit words (tests/cosim/models/npu6x12.json).
  NpuModel n = npu16_at(100);
  n.pe_rows = 6;
  n.pe_cols = 12;
  n.spad_banks = 8;
  n.spad_rows = 512;
  n.spad_width_bits = n.bus_data_bits = 32;
  n.acc_rows = 512;
  n.acc_width_bits = 12 * 32;
  NpuTiling t{30, 60, 80, 12, 24, 32};
  const NpuLayout l = npu_layout(n, t);
  CHECK(l.unbuildable.empty());
  CHECK(l.group == 4);            // four int8 k per 32-bit word
  CHECK(l.b_seg == 3);            // 12 int8 columns: three words
  CHECK(l.a_words == 8);          // 32 int8 k
  CHECK(l.b_words == 6);          // 24 int8 columns
  CHECK(l.a_base1 == 2 * 8);      // 12 rows over 8 banks: 2 word rows of 8 words
  CHECK(l.b_base0 == 2 * 2 * 8);  // 32 rows of B: 4 word rows of 6 words
  CHECK(l.words_per_bank == 2 * (16 + 4 * 6));
  CHECK(l.acc_rows == 12 * 2);
  // Not a whole number of 6×12 blocks: refused.
  t.tile_m = 16;
  CHECK(npu_layout(n, t).unbuildable.find("PE-array blocks") != std::string::npos);
  // Weight stationary: a block's 6 k of an A row (48 bits) do not fit a 32-bit word, and on a
  // 64-bit word they straddle two.
  t = NpuTiling{30, 60, 96, 12, 24, 48};
  t.output_stationary = false;
  CHECK(npu_layout(n, t).unbuildable.find("do not fit one 32-bit scratchpad word") != std::string::npos);
  n.spad_width_bits = n.bus_data_bits = 64;
  CHECK(npu_layout(n, t).unbuildable.find("straddle 64-bit scratchpad words") != std::string::npos);
  // Output stationary, a K tile of 12 on 128-bit words: the group is the power of two dividing it
  // (4), not 12, so that a group's B rows lie in one word row of consecutive banks.
  n.spad_width_bits = n.bus_data_bits = 128;
  n.spad_banks = 16;
  t = NpuTiling{24, 48, 96, 12, 48, 12};
  t.output_stationary = true;
  CHECK(npu_layout(n, t).group == 4);
}

TEST_CASE("npu layout: weight-stationary A batches are whole") {
  // 24 rows on 16 banks are not whole batches of 16 (one read per bank): refused.
  NpuModel n = npu16_at(100);
  NpuTiling t{256, 256, 256, 24, 32, 128};
  t.output_stationary = false;
  CHECK(npu_layout(n, t).unbuildable.find("batches of 16 rows") != std::string::npos);
}
