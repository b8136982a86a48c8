#include "hdlgen/generate.h"

#include "sema/dtype.h"

#include <deepgemm/npu_regs.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

#include "hdlgen/rtl_library.h"
#include "hdlgen/template.h"
#include "hdlgen/top.h"
#include "hw/npu_layout.h"
#include "support/error.h"

namespace dg::hdlgen {

namespace {

constexpr const char* kGeneratorVersion = "deepgemm-hdlgen 1";

int log2_exact(std::int64_t v) {
  int l = 0;
  while ((std::int64_t{1} << l) < v) ++l;
  return l;
}

int bits_for(std::int64_t v) {  // bits to hold 0 .. v
  int b = 1;
  while ((std::int64_t{1} << b) <= v) ++b;
  return b;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// Bits an element occupies in NPU memory (hw::npu_element_bits: 4-bit elements are packed two
/// per byte, the even index of a row in the low nibble); 0 for a type the MAC array does not take.
std::int64_t element_bits(const std::string& type) {
  const std::optional<DType> d = parse_dtype(type);
  if (!d) return 0;
  if (d->bits == 32 || d->bits == 64) return d->bits;
  return d->is_int() && d->bits >= 2 && d->bits <= 16 ? hw::npu_element_bits(d->bits) : 0;
}

/// One stream of the plan's tile loop nest: which dimensions its tile rows and row segments
/// come from, its leading dimension, and its element size.
struct Stream {
  std::string id;         // a, b, c
  std::string what;       // for comments
  char row_dim, seg_dim;  // 'm', 'n', 'k'
  bool has_k_loop;        // A and B are read once per K tile; C is written once per (block_m, block_n)
  std::int64_t ebits;     // element bits in memory (4: two per byte)
};

std::int64_t tile_of(const Plan& p, char d) { return d == 'm' ? p.tile_m : d == 'n' ? p.tile_n : p.tile_k; }

// The AGU template. Loop nest (outer to inner): block_m (m0), block_n (n0), k_tile (k0; not for
// C), tile row r. Rows past the matrix edge are skipped: a tile's last row is the last one inside.
constexpr const char* kAguTemplate = R"(// @HEADER@
//
// AGU for @WHAT@: one request per tile row, in the plan's loop order block_m, block_n@KLOOP@, row.
// A request is the row segment's DRAM byte address (@AW@ bits: the operand's base plus a 32-bit
// offset within the operand: the row times the leading dimension ld, in bytes, plus the segment's
// bytes within the row) and @LENDOC@; row r of a tile goes to
// scratchpad bank @BANKOF@. The configuration (base address, @LDWHAT@M, N, K) is
// latched at start; the top checks it against the plan's ranges, the bus beat and the bus's
// address width before starting.
module @MOD@ (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  input  logic [@AW1@:0] base_i,
@LDPORT@  input  logic [@DW1@:0] m_i,
  input  logic [@DW1@:0] n_i,
  input  logic [@DW1@:0] k_i,
  output logic        busy_o,
  output logic        done_o,
  output logic        req_valid_o,
  input  logic        req_ready_i,
  output logic [@AW1@:0] req_addr_o,
  output logic [@LW1@:0] req_@LENNAME@_o,
  output logic [@TRW1@:0] req_row_o,
  output logic        req_last_o      // the tile's last row: the end of a K step (A, B) or C tile
);
  localparam int TileM = @TM@, TileN = @TN@, TileK = @TK@;
  localparam int TileRows = @TR@, TileSeg = @TS@;
  localparam int LgBits = @LEB@;  // element bits = 2^LgBits; (x << LgBits) >> 3 is x elements' bytes

  logic        busy_q, done_q;
  logic [@AW1@:0] base_q;
@LDDECL@  logic [@DW1@:0] m_q, n_q, k_q;
  logic [@DW1@:0] m0_q, n0_q, k0_q, r_q;   // tile origin (elements) and row within the tile
  logic [31:0] ld_bytes;                // bytes between consecutive rows of the operand
  logic [31:0] offset;                  // the request's bytes from the operand's base

@LDBYTES@  // The current request: row @RB@0 + r, columns @SB@0 .. @SB@0 + seg_len - 1.
  logic [@DW1@:0] seg_left, seg_len;
  assign seg_left = @SL@_q - @SB@0_q;
  assign seg_len  = seg_left < @DW@'(TileSeg) ? seg_left : @DW@'(TileSeg);
  assign req_valid_o = busy_q;
  assign offset      = (32'(@RB@0_q) + 32'(r_q)) * ld_bytes + ((32'(@SB@0_q) << LgBits) >> 3);
  assign req_addr_o  = base_q + @AW@'(offset);
  assign req_@LENNAME@_o = @LW@'((32'(seg_len) << LgBits) >> @LENSHIFT@);
  assign req_row_o   = r_q[@TRW1@:0];
  assign busy_o = busy_q;
  assign done_o = done_q;
@UNUSED@
  // Where the loop nest goes after this request.
  logic last_r, last_k, last_n, last_m;
  assign last_r = r_q == @DW@'(TileRows - 1) || @RB@0_q + r_q + @DW@'(1) >= @RL@_q;
  assign last_k = @LASTK@;
  assign last_n = n0_q + @DW@'(TileN) >= n_q;
  assign last_m = m0_q + @DW@'(TileM) >= m_q;
  assign req_last_o = last_r;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      done_q <= 1'b0;
      base_q <= '0;
@LDRESET@      m_q <= '0;
      n_q <= '0;
      k_q <= '0;
      m0_q <= '0;
      n0_q <= '0;
      k0_q <= '0;
      r_q <= '0;
    end else if (!busy_q) begin
      if (start_i) begin
        busy_q <= 1'b1;
        done_q <= 1'b0;
        base_q <= base_i;
@LDLATCH@        m_q <= m_i;
        n_q <= n_i;
        k_q <= k_i;
        m0_q <= '0;
        n0_q <= '0;
        k0_q <= '0;
        r_q <= '0;
      end
    end else if (req_ready_i) begin
      if (!last_r) begin
        r_q <= r_q + @DW@'(1);
      end else begin
        r_q <= '0;
@ADVANCE@
      end
    end
  end

`ifdef FORMAL
  // ---- environment ---------------------------------------------------------------------------
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  // The top starts the AGU only with a configuration inside the plan's ranges, aligned to bus
  // beats, @LDENV_DOC@
  always @(*) begin
    if (!f_past_valid) assume (!rst_ni);
    if (!busy_q && start_i) begin
      assume (@MRANGE_I@);  // what the start check admits
      assume (@NRANGE_I@);
      assume (@KRANGE_I@);
      assume (base_i[@LGBEAT1@:0] == '0);
      assume (((32'(@LD@_i) << LgBits) & 32'(@ROWB1@)) == 32'd0);
@LDASSUME@      assume (@EXTENT_I@ <= 64'h1_0000_0000);
      assume ({1'b0, base_i} + @AWP@'(@EXTENT_I@) <= {1'b1, @AW@'d0});
    end
  end

  // ---- the plan's index map, one request per (block_m, block_n@KLOOP@, row) -----------------
  always @(*) begin
    if (rst_ni && f_past_valid && (busy_q || done_q)) begin
      // The latched configuration is the one the start checks admitted.
      assert (@MRANGE@ && @NRANGE@ && @KRANGE@);
      assert (base_q[@LGBEAT1@:0] == '0 && ((32'(@LD@_q) << LgBits) & 32'(@ROWB1@)) == 32'd0);
@LDASSERT@    end
    if (rst_ni && f_past_valid && busy_q) begin
      // The loop nest stays inside the matrix and on tile boundaries.
      assert (r_q < @DW@'(TileRows));
      assert (@RB@0_q + r_q < @RL@_q);
      assert (m0_q < m_q && n0_q < n_q && k0_q < k_q);
      assert (@ALIGNM@ && @ALIGNN@ && @ALIGNK@);
      // Index map: the request is row @RB@0 + r, columns from @SB@0, of the operand at base.
      assert (req_addr_o == base_q + @AW@'(32'((32'(@RB@0_q) + 32'(r_q)) * @LDSPEC@ + ((32'(@SB@0_q) << LgBits) >> 3))));
@REQALIGN@      assert ((32'(req_@LENNAME@_o) << @LENSHIFT@) == (32'(seg_len) << LgBits) && req_@LENNAME@_o != '0);
      assert (seg_len == (@SL@_q - @SB@0_q < @DW@'(TileSeg) ? @SL@_q - @SB@0_q : @DW@'(TileSeg)));
      // Bounds: a row inside the matrix (above) and a segment inside the row, whose bytes the
      // leading dimension holds, place the request inside the operand's row-major buffer of @RL@
      // rows ld bytes apart, and never on another row's bytes or between rows.
      assert (@SB@0_q < @SL@_q && @SB@0_q + seg_len <= @SL@_q);
      assert (((32'(@SB@0_q + seg_len) << LgBits) >> 3) <= @LDSPEC@);
    end
    if (rst_ni && f_past_valid && done_q) assert (!busy_q);
  end
@ONCE@`endif
endmodule
)";

// "origin is a multiple of the tile": its low bits are zero for a power of two, else the remainder.
std::string tile_aligned(const char* origin, std::int64_t tile) {
  if ((tile & (tile - 1)) == 0) return fmt::format("{}[{}:0] == '0", origin, std::max(0, log2_exact(tile) - 1));
  return fmt::format("{} % @DW@'({}) == '0", origin, tile);
}

std::string advance_code(const Stream& s) {
  // On the last row of a tile: the next tile in loop order.
  std::string out;
  const char* i3 = "        ";
  const char* i4 = "          ";
  const char* i5 = "            ";
  const char* i6 = "              ";
  if (s.has_k_loop) {
    out += fmt::format("{}if (!last_k) begin\n{}k0_q <= k0_q + @DW@'(TileK);\n", i3, i4);
    out += fmt::format("{}end else begin\n{}k0_q <= '0;\n", i3, i4);
    out += fmt::format("{}if (!last_n) begin\n{}n0_q <= n0_q + @DW@'(TileN);\n", i4, i5);
    out += fmt::format("{}end else begin\n{}n0_q <= '0;\n", i4, i5);
    out += fmt::format("{}if (!last_m) begin\n{}m0_q <= m0_q + @DW@'(TileM);\n", i5, i6);
    out += fmt::format("{}end else begin\n{}busy_q <= 1'b0;\n{}done_q <= 1'b1;\n{}end\n", i5, i6, i6, i5);
    out += fmt::format("{}end\n{}end", i4, i3);
  } else {
    out += fmt::format("{}if (!last_n) begin\n{}n0_q <= n0_q + @DW@'(TileN);\n", i3, i4);
    out += fmt::format("{}end else begin\n{}n0_q <= '0;\n", i3, i4);
    out += fmt::format("{}if (!last_m) begin\n{}m0_q <= m0_q + @DW@'(TileM);\n", i4, i5);
    out += fmt::format("{}end else begin\n{}busy_q <= 1'b0;\n{}done_q <= 1'b1;\n{}end\n", i4, i5, i5, i4);
    out += fmt::format("{}end", i3);
  }
  return out;
}

std::string agu(const Plan& p, const hw::HwModel& hw, const Stream& s, const std::string& mod, int dw,
                const std::string& header, bool byte_rows) {
  const auto& n = hw.npu;
  const std::int64_t beat = n.bus_data_bits / 8;
  const std::int64_t rows = tile_of(p, s.row_dim), seg = tile_of(p, s.seg_dim);
  const std::int64_t kmin = p.k_dynamic ? p.K_min : p.K, kmax = p.k_dynamic ? p.K_max : p.K;
  const std::int64_t mmin = p.m_dynamic ? p.M_min : p.M, nmin = p.n_dynamic ? p.N_min : p.N;
  // "x is the plan's value of dimension d", or inside its run-time range (@DMIN@ .. @DMAX@).
  auto in_range = [](const char* x, char d, bool fixed) {
    return fixed ? fmt::format("{0} == @DW@'(@{1}MIN@)", x, d)
                 : fmt::format("{0} >= @DW@'(@{1}MIN@) && {0} <= @DW@'(@{1}MAX@)", x, d);
  };
  // Tiles of the loop nest along M, N and K (the exactly-once count below).
  const std::int64_t gm = ceil_div(p.M, p.tile_m), gn = ceil_div(p.N, p.tile_n), gk = ceil_div(kmax, p.tile_k);
  // A request's length: bus beats, or with byte rows bytes.
  const std::int64_t max_beats = ceil_div(seg * s.ebits, byte_rows ? 8 : beat * 8);
  const int lw = bits_for(max_beats), trw = std::max(1, log2_exact(rows));
  const std::string D = std::to_string(dw);
  const std::string rl = std::string(1, s.row_dim), ld = std::string(1, s.seg_dim);
  // The operand's extent in bytes, the last row's end: (rows - 1) times the leading dimension,
  // plus a row's bytes (with packed rows, the rows times the row's bytes).
  const bool ld_reg = n.ld_registers;
  std::string extent_i =
      ld_reg ? fmt::format("(64'(32'({}_i) - 32'd1) * 64'(ld_i) + 64'((32'({}_i) << LgBits) >> 3))", rl, ld)
             : fmt::format("64'(32'({}_i) * ((32'({}_i) << LgBits) >> 3))", rl, ld);
  // The row stride: the latched LDA/LDB/LDC register where the design has them; else packed rows,
  // a constant when the leading dimension is fixed (N, and K without a range), so that synthesis
  // multiplies by a constant, and the latched K's bytes otherwise.
  // (A column-major A's rows are M elements, which the design fixes.)
  const bool ld_fixed = s.seg_dim == 'k' ? kmin == kmax : s.seg_dim == 'm' ? mmin == p.M : nmin == p.N;
  const std::int64_t ld_const = (s.seg_dim == 'k' ? kmax : s.seg_dim == 'm' ? p.M : p.N) * s.ebits / 8;
  const std::string ld_bytes =
      ld_reg     ? "  assign ld_bytes = ld_q;\n"
      : ld_fixed ? fmt::format("  assign ld_bytes = 32'd{};  // packed rows; {} is fixed by the plan\n", ld_const,
                               s.seg_dim == 'k'   ? "K"
                               : s.seg_dim == 'm' ? "M"
                                                  : "N")
                 : "  assign ld_bytes = (32'(@LD@_q) << LgBits) >> 3;  // packed rows\n";
  // The property's row stride: the latched register; with packed rows the plan's constant when
  // fixed (the latched register equals it, as asserted), which keeps the proof linear.
  const std::string ld_spec = ld_reg     ? "ld_q"
                              : ld_fixed ? fmt::format("32'd{}", ld_const)
                                         : "((32'(@LD@_q) << LgBits) >> 3)";
  // Exactly once: the number of requests accepted since start is the current position's index
  // in the loop nest (rows past the matrix edge skipped), and the run ends after all of them; so
  // every (tile, row) of the nest is requested once, in order. With a fixed K every factor but
  // one is a constant, which keeps the induction linear. With a run-time K the index of A and B
  // would be a product of two run-time values (the block and the requests per block), which the
  // solver does not close; there the count is split in two: blocks (block_m, block_n) completed,
  // a constant-radix index, and requests within the block, which wraps to the next block when it
  // reaches the block's size (the K tiles at the run-time K times the block's rows). C has no K
  // loop, so its index is the fixed-K one.
  // Shared by both forms: the last block_m's rows, the tiles' log2, and "this block_m is full".
  const std::int64_t last_m = p.M - (gm - 1) * p.tile_m;
  // A tile index is the origin divided by the tile (a shift for a power of two), and a count of
  // tiles times the tile is a product (a shift for a power of two).
  auto pow2 = [](std::int64_t v) { return (v & (v - 1)) == 0; };
  auto per_tile = [&](const std::string& x, std::int64_t tile) {
    return pow2(tile) ? fmt::format("{} >> {}", x, log2_exact(tile)) : fmt::format("{} / 32'd{}", x, tile);
  };
  auto times_tile = [&](const std::string& x, std::int64_t tile) {
    return pow2(tile) ? fmt::format("{} << {}", x, log2_exact(tile)) : fmt::format("{} * 32'd{}", x, tile);
  };
  const std::string full_m = fmt::format("32'(m0_q) + 32'd{} <= 32'd{}", p.tile_m, p.M);
  // ... and for a column-major B, whose tile rows run along N: the last block_n's rows, "this
  // block_n is full".
  const std::int64_t last_n = p.N - (gn - 1) * p.tile_n;
  const std::string full_n = fmt::format("32'(n0_q) + 32'd{} <= 32'd{}", p.tile_n, p.N);
  std::string once;
  if (mmin != p.M || nmin != p.N) {
    // A run-time M or N: the reference is a nest of counters, one per loop (block_m, block_n, k_tile
    // and row), each wrapping at its run-time extent (the rows of this tile, the K tiles at the
    // run's K, the N tiles), advanced by each accepted request. The AGU's position must be the
    // counters' (tile origins = counter × tile), and the run ends when block_m has passed the
    // run's M: so every (tile, row) of the nest is requested once, in order. Each relation is
    // linear (a constant tile times a counter), which keeps the induction closed however M, N and
    // K combine.
    auto ceil_tiles = [&](const std::string& x, std::int64_t tile) {
      return fmt::format("({})", per_tile(fmt::format("({} + 32'd{})", x, tile - 1), tile));
    };
    // The rows of a tile run along M (A, C), K (B) or N (a column-major B).
    const char row_tile = s.row_dim;
    const std::int64_t trows = tile_of(p, row_tile);
    const std::string row_end = fmt::format("32'({}_q)", row_tile);
    const std::string row_org = row_tile == 'm'   ? times_tile("f_mb", p.tile_m)
                                : row_tile == 'n' ? times_tile("f_nb", p.tile_n)
                                                  : times_tile("f_kt", p.tile_k);
    // Rows of the current tile: the tile's, or what is left of the matrix.
    const std::string rows_in = fmt::format("({0} - ({1}) < 32'd{2} ? {0} - ({1}) : 32'd{2})", row_end, row_org, trows);
    const std::string kts = s.has_k_loop ? ceil_tiles("32'(k_q)", p.tile_k) : "32'd1";
    once = fmt::format(
        "\n  // ---- exactly once: a nest of counters, one per loop, is the AGU's position ------------------\n"
        "  // (M or N is a run-time value: each counter wraps at its run-time extent.)\n"
        "  reg [31:0] f_mb = 32'd0, f_nb = 32'd0, f_kt = 32'd0, f_r = 32'd0;\n"
        "  logic [31:0] f_rows, f_kts, f_nbs, f_mbs;\n"
        "  assign f_rows = {rows_in};\n"
        "  assign f_kts = {kts};\n"
        "  assign f_nbs = {nbs};\n"
        "  assign f_mbs = {mbs};\n"
        "  always @(posedge clk_i) begin\n"
        "    if (!rst_ni || (!busy_q && start_i)) begin\n"
        "      f_mb <= 32'd0;\n"
        "      f_nb <= 32'd0;\n"
        "      f_kt <= 32'd0;\n"
        "      f_r <= 32'd0;\n"
        "    end else if (busy_q && req_ready_i) begin\n"
        "      if (f_r + 32'd1 != f_rows) f_r <= f_r + 32'd1;\n"
        "      else begin\n"
        "        f_r <= 32'd0;\n"
        "        if (f_kt + 32'd1 != f_kts) f_kt <= f_kt + 32'd1;\n"
        "        else begin\n"
        "          f_kt <= 32'd0;\n"
        "          if (f_nb + 32'd1 != f_nbs) f_nb <= f_nb + 32'd1;\n"
        "          else begin\n"
        "            f_nb <= 32'd0;\n"
        "            f_mb <= f_mb + 32'd1;\n"
        "          end\n"
        "        end\n"
        "      end\n"
        "    end\n"
        "  end\n"
        "  always @(*) begin\n"
        "    if (rst_ni && f_past_valid && busy_q) begin\n"
        "      assert (f_mb < f_mbs && f_nb < f_nbs && f_kt < f_kts && f_r < f_rows);\n"
        "      assert (f_r == 32'(r_q) && {mo} == 32'(m0_q) && {no} == 32'(n0_q) && {ko});\n"
        "    end\n"
        "    if (rst_ni && f_past_valid && done_q) assert (f_mb == f_mbs && f_nb == 32'd0 && f_kt == 32'd0 && f_r == "
        "32'd0);  // every tile row, none more\n"
        "  end\n",
        fmt::arg("rows_in", rows_in), fmt::arg("kts", kts), fmt::arg("nbs", ceil_tiles("32'(n_q)", p.tile_n)),
        fmt::arg("mbs", ceil_tiles("32'(m_q)", p.tile_m)), fmt::arg("mo", "(" + times_tile("f_mb", p.tile_m) + ")"),
        fmt::arg("no", "(" + times_tile("f_nb", p.tile_n) + ")"),
        fmt::arg("ko", s.has_k_loop ? fmt::format("({}) == 32'(k0_q)", times_tile("f_kt", p.tile_k))
                                    : std::string("f_kt == 32'd0")));
  } else if (kmin != kmax && s.has_k_loop) {
    const std::string block =
        fmt::format("({}) * 32'd{} + ({})", per_tile("32'(m0_q)", p.tile_m), gn, per_tile("32'(n0_q)", p.tile_n));
    std::string per_block, in_block;
    // K tiles at the run's K, and the current one.
    const std::string kts = fmt::format("({})", per_tile(fmt::format("(32'(k_q) + 32'd{})", p.tile_k - 1), p.tile_k));
    const std::string kt = fmt::format("({})", per_tile("32'(k0_q)", p.tile_k));
    if (s.row_dim == 'n') {
      // (A column-major B: K tiles times the block's rows along N, the last block_n partial.)
      per_block = fmt::format("({} ? {} : {} * 32'd{})", full_n, times_tile(kts, p.tile_n), kts, last_n);
      in_block = fmt::format("({} ? {} : {} * 32'd{}) + 32'(r_q)", full_n, times_tile(kt, p.tile_n), kt, last_n);
    } else if (s.row_dim == 'm') {
      // K tiles (the last one partial) times the block's rows (the last block_m partial).
      per_block = fmt::format("({} ? {} : {} * 32'd{})", full_m, times_tile(kts, p.tile_m), kts, last_m);
      in_block = fmt::format("({} ? {} : {} * 32'd{}) + 32'(r_q)", full_m, times_tile(kt, p.tile_m), kt, last_m);
    } else {
      // One request per row of B (or of a column-major A), K rows in all.
      per_block = "32'(k_q)";
      in_block = "32'(k0_q) + 32'(r_q)";
    }
    once = fmt::format(
        "\n  // ---- exactly once: blocks completed and requests within the block = the position in the nest ---\n"
        "  // (K is a run-time value: a block of (block_m, block_n) has {} requests.)\n"
        "  reg [31:0] f_blocks = 32'd0, f_in = 32'd0;\n"
        "  logic [31:0] f_per_block;\n"
        "  assign f_per_block = {};\n"
        "  always @(posedge clk_i) begin\n"
        "    if (!rst_ni || (!busy_q && start_i)) begin\n"
        "      f_blocks <= 32'd0;\n"
        "      f_in <= 32'd0;\n"
        "    end else if (busy_q && req_ready_i) begin\n"
        "      if (f_in + 32'd1 == f_per_block) begin\n"
        "        f_blocks <= f_blocks + 32'd1;\n"
        "        f_in <= 32'd0;\n"
        "      end else begin\n"
        "        f_in <= f_in + 32'd1;\n"
        "      end\n"
        "    end\n"
        "  end\n"
        "  always @(*) begin\n"
        "    if (rst_ni && f_past_valid && busy_q) begin\n"
        "      assert (f_blocks == {} && f_blocks < 32'd{});\n"
        "      assert (f_in == {} && f_in < f_per_block);\n"
        "    end\n"
        "    if (rst_ni && f_past_valid && done_q) assert (f_blocks == 32'd{} && f_in == 32'd0);  // all {} blocks, "
        "none more\n"
        "  end\n",
        s.row_dim != 'k' ? "ceil(K / TileK) times its rows" : "K, one per row along K", per_block, block, gm * gn,
        in_block, gm * gn, gm * gn);
  } else {
    const std::int64_t K = kmax;
    const std::string nt = fmt::format("({})", per_tile("32'(n0_q)", p.tile_n)),
                      kt = fmt::format("({})", per_tile("32'(k0_q)", p.tile_k));
    std::string idx, total;
    if (s.row_dim == 'm' && s.has_k_loop) {
      const std::string inner = fmt::format("({} * 32'd{} + {})", nt, gk, kt);
      idx = fmt::format("32'(m0_q) * 32'd{} + ({} ? {} : {} * 32'd{}) + 32'(r_q)", gn * gk, full_m,
                        times_tile(inner, p.tile_m), inner, last_m);
      total = std::to_string(p.M * gn * gk);
    } else if (s.row_dim == 'n') {
      // A column-major B: block_m's N × ceil(K / TileK) requests, block_n's tile_n (or the last
      // block_n's) per K tile.
      idx = fmt::format("({}) * 32'd{} + 32'(n0_q) * 32'd{} + ({} ? {} : {} * 32'd{}) + 32'(r_q)",
                        per_tile("32'(m0_q)", p.tile_m), p.N * gk, gk, full_n, times_tile(kt, p.tile_n), kt, last_n);
      total = std::to_string(gm * p.N * gk);
    } else if (s.row_dim == 'k') {
      // (B, or a column-major A: K rows per block.)
      idx = fmt::format("(({}) * 32'd{} + {}) * 32'd{} + 32'(k0_q) + 32'(r_q)", per_tile("32'(m0_q)", p.tile_m), gn, nt,
                        K);
      total = std::to_string(gm * gn * K);
    } else {
      idx = fmt::format("32'(m0_q) * 32'd{} + ({} ? {} : {} * 32'd{}) + 32'(r_q)", gn, full_m, times_tile(nt, p.tile_m),
                        nt, last_m);
      total = std::to_string(p.M * gn);
    }
    once = fmt::format(
        "\n  // ---- exactly once: requests accepted since start = the position's index in the loop nest ------\n"
        "  reg [31:0] f_count = 32'd0;\n"
        "  always @(posedge clk_i) begin\n"
        "    if (!rst_ni || (!busy_q && start_i)) f_count <= 32'd0;\n"
        "    else if (busy_q && req_ready_i) f_count <= f_count + 32'd1;\n"
        "  end\n"
        "  always @(*) begin\n"
        "    if (rst_ni && f_past_valid && busy_q) assert (f_count == {} && f_count < 32'd{});\n"
        "    if (rst_ni && f_past_valid && done_q) assert (f_count == 32'd{});  // all {} requests, none more\n"
        "  end\n",
        idx, total, total, total);
  }
  std::string text = subst(
      kAguTemplate,
      {
          {"ONCE", once},
          {"LENNAME", byte_rows ? "bytes" : "beats"},
          {"REQALIGN",
           byte_rows ? "" : "      assert (req_addr_o[@LGBEAT1@:0] == '0);  // what the burst splitter takes\n"},
          {"LENDOC", byte_rows ? "its length in bytes (rows need\n// not be whole bus beats: the DMA realigns them)"
                               : fmt::format("its length in {}-byte bus beats", beat)},
          {"LDWHAT", ld_reg ? "leading dimension, " : ""},
          {"LDPORT",
           ld_reg ? "  input  logic [31:0] ld_i,        // bytes from a row's start to the next row's\n" : ""},
          {"LDDECL", ld_reg ? "  logic [31:0] ld_q;\n" : ""},
          {"LDBYTES", ld_bytes},
          {"LDRESET", ld_reg ? "      ld_q <= '0;\n" : ""},
          {"LDLATCH", ld_reg ? "        ld_q <= ld_i;\n" : ""},
          {"LDASSUME", !ld_reg ? ""
                       : byte_rows
                           ? "      assume (ld_i >= ((32'(@LD@_i) << LgBits) >> 3));\n"
                           : "      assume (ld_i[@LGBEAT1@:0] == '0 && ld_i >= ((32'(@LD@_i) << LgBits) >> 3));\n"},
          {"LDASSERT", !ld_reg ? ""
                       : byte_rows
                           ? "      assert (ld_q >= ((32'(@LD@_q) << LgBits) >> 3));\n"
                           : "      assert (ld_q[@LGBEAT1@:0] == '0 && ld_q >= ((32'(@LD@_q) << LgBits) >> 3));\n"},
          {"LDSPEC", ld_spec},
          {"LDENV_DOC", ld_reg
                            ? "with a leading dimension that holds a row, whose buffer (at most 4 GiB: its last row's\n"
                              "  // end) does not pass the end of the @AW@-bit address space."
                            : "with packed rows, whose buffer (at most 4 GiB) does not pass the end of the\n"
                              "  // @AW@-bit address space."},
          {"HEADER", header},
          {"WHAT", s.what},
          {"KLOOP", s.has_k_loop ? ", k_tile" : ""},
          {"BEAT", std::to_string(beat)},
          {"BANKOF", n.spad_bank_map == "xor" ? fmt::format("(r mod {0}) XOR ((r / {0}) mod {0})", n.spad_banks)
                                              : fmt::format("r mod {}", n.spad_banks)},
          {"MOD", mod},
          {"ADVANCE", advance_code(s)},
          {"LASTK", s.has_k_loop ? "k0_q + @DW@'(TileK) >= k_q" : "1'b1"},
          {"MRANGE", in_range("m_q", 'M', mmin == p.M)},
          {"MRANGE_I", in_range("m_i", 'M', mmin == p.M)},
          {"NRANGE", in_range("n_q", 'N', nmin == p.N)},
          {"NRANGE_I", in_range("n_i", 'N', nmin == p.N)},
          {"KRANGE", in_range("k_q", 'K', kmin == kmax)},
          {"KRANGE_I", in_range("k_i", 'K', kmin == kmax)},
          {"UNUSED", s.has_k_loop ? ""
                                  : "  // C has no K loop: K and the K tile only shape the other streams.\n  "
                                    "logic unused_k;\n  assign unused_k = ^{k_q, k0_q, last_k, 32'(TileK)};\n"},
          {"EXTENT_I", extent_i},
          {"ALIGNM", tile_aligned("m0_q", p.tile_m)},
          {"ALIGNN", tile_aligned("n0_q", p.tile_n)},
          {"ALIGNK", tile_aligned("k0_q", p.tile_k)},
      },
      false);
  ;
  return subst(text, {
                         {"DW", D},
                         {"DW1", std::to_string(dw - 1)},
                         {"LW", std::to_string(lw)},
                         {"LW1", std::to_string(lw - 1)},
                         {"TRW1", std::to_string(trw - 1)},
                         {"TM", std::to_string(p.tile_m)},
                         {"TN", std::to_string(p.tile_n)},
                         {"TK", std::to_string(p.tile_k)},
                         {"TR", std::to_string(rows)},
                         {"TS", std::to_string(seg)},
                         {"LEB", std::to_string(log2_exact(s.ebits))},
                         {"LGBEAT", std::to_string(log2_exact(beat))},
                         {"LGBEATB", std::to_string(log2_exact(beat) + 3)},
                         {"BEATB1", std::to_string(beat * 8 - 1)},
                         {"ROWB1", std::to_string(byte_rows ? 7 : beat * 8 - 1)},
                         {"LENSHIFT", std::to_string(byte_rows ? 3 : log2_exact(beat) + 3)},
                         {"LGBEAT1", std::to_string(log2_exact(beat) - 1)},
                         {"BEAT1", std::to_string(beat - 1)},
                         {"RB", std::string(1, s.row_dim)},
                         {"SB", std::string(1, s.seg_dim)},
                         {"RL", rl},
                         {"SL", std::string(1, s.seg_dim)},
                         {"LD", ld},
                         {"MMAX", std::to_string(p.M)},
                         {"MMIN", std::to_string(mmin)},
                         {"NMIN", std::to_string(nmin)},
                         {"NMAX", std::to_string(p.N)},
                         {"KMIN", std::to_string(kmin)},
                         {"KMAX", std::to_string(kmax)},
                         {"AW", std::to_string(n.bus_addr_bits)},
                         {"AW1", std::to_string(n.bus_addr_bits - 1)},
                         {"AWP", std::to_string(n.bus_addr_bits + 1)},
                     });
}

/// An input element as the MAC array takes it: bits in memory, bits used, signedness.
struct ElemFormat {
  int mem_bits = 0, bits = 0;
  bool is_signed = true;
};

ElemFormat elem_format(const std::string& type) {
  ElemFormat f;
  f.mem_bits = static_cast<int>(element_bits(type));
  if (type == "int4")
    f.bits = 4;
  else if (type == "int8")
    f.bits = 8;
  else if (type == "int16")
    f.bits = 16;
  else if (type.size() >= 2 && (type[0] == 's' || type[0] == 'u')) {
    f.bits = std::atoi(type.c_str() + 1);
    f.is_signed = type[0] == 's';
  }
  return f;
}

/// C's formula in the header: A·B, or with the fused epilogue, e.g. "rq_int8(relu(A·B + bias))".
std::string epilogue_formula(const std::string& epilogue, const std::string& requant_type) {
  std::string f = "A·B";
  if (epilogue == "bias" || epilogue == "bias_relu") f += " + bias";
  if (epilogue == "relu" || epilogue == "bias_relu") f = "relu(" + f + ")";
  if (!requant_type.empty()) f = "rq_" + requant_type + "(" + f + ")";
  return f;
}

}  // namespace

Design generate(const Plan& p, const hw::HwModel& hw, const std::string& name) {
  if (!hw.is_npu()) throw UserError("the Verilog backend generates NPU targets only");
  const auto& n = hw.npu;
  const std::int64_t ea = element_bits(p.a_type), eb = element_bits(p.b_type), ec = element_bits(p.c_type);
  if (ea == 0 || eb == 0 || p.a_type == "fp32" || p.b_type == "fp32")
    throw UserError(fmt::format("{}×{} inputs are not generated: the MAC array takes integers of 2 to 16 bits",
                                p.a_type, p.b_type));
  // int32 and int64 outputs take the accumulator (saturated to int32 from wider ones); int8 and
  // int16 outputs are requantized per column (the rq operand).
  const bool requant = p.c_type == "int8" || p.c_type == "int16";
  if ((ec != 32 && ec != 64 && !requant) || p.c_type == "fp32")
    throw UserError(
        fmt::format("a {} output is not generated for NPUs: declare output int32 (saturated from wider "
                    "accumulators), int64, or int8 or int16 (requantized per column)",
                    p.c_type));
  // A and B either way (a column-major B's tile rows run along K, a column-major A's along M); C
  // row by row (a column-major C is the transpose's row-major one: the spec check swapped it).
  if (!p.index.c_row_major) throw UserError("the AGUs walk a row-major C only: store C row-major");
  const bool b_col = !p.index.b_row_major, a_col = !p.index.a_row_major;
  // A batch (batch > 1) is the core's loop: one START runs BATCH matrices (top.cpp, batch_text).
  const std::string epilogue = p.epilogue.empty() ? "none" : p.epilogue;
  if (epilogue != "none" && epilogue != "relu" && epilogue != "bias" && epilogue != "bias_relu")
    throw UserError(
        fmt::format("the fused '{}' epilogue is not generated for NPUs: op_type on an NPU is relu, bias "
                    "or bias_relu",
                    epilogue));
  if (p.dataflow != "output_stationary" && p.dataflow != "weight_stationary")
    throw UserError(
        fmt::format("the generated compute engines are weight stationary and output stationary; the plan "
                    "is '{}'",
                    p.dataflow));
  if (std::find(hw.npu.dataflows.begin(), hw.npu.dataflows.end(), p.dataflow) == hw.npu.dataflows.end())
    throw UserError(
        fmt::format("{}: the plan's dataflow is {}, which npu.dataflows does not list", hw.name, p.dataflow));

  // The datapath's geometry, and the conditions the generated engine relies on.
  const std::int64_t beat = n.bus_data_bits / 8, word = n.spad_width_bits / 8;
  auto refuse = [&](const std::string& why) { throw UserError(fmt::format("{}: {}", hw.name, why)); };
  // What the model asks that the generator does not build (the spec check refused it already).
  if (std::string why = hw::npu_unbuildable(n); !why.empty()) refuse(why);
  // The DMA moves rows of whole bytes: rows that are not whole bus beats (byte rows, the layout's
  // byte_rows) are realigned between the bus and the scratchpad, and C's are written with strobes.
  // Two 4-bit elements share a byte, so a row of them has an even count.
  auto bytes_of = [&](const char* what, const char* dim, std::int64_t elems, std::int64_t bits) {
    if ((elems * bits) % 8 != 0)
      refuse(
          fmt::format("rows of {} ({} = {} elements of {} bits) end inside a byte, which the DMA does not "
                      "address; make {} a multiple of {}",
                      what, dim, elems, bits, dim, 8 / std::gcd<std::int64_t>(8, bits)));
  };
  // A run-time K is checked by the runtime against the plan's k_align; the largest K of the range
  // (the K a module starts with) must itself be one.
  if (a_col)
    bytes_of("A (column-major)", "M", p.M, ea);
  else
    bytes_of("A", p.k_dynamic ? "K_max" : "K", p.k_dynamic ? p.K_max : p.K, ea);
  if (b_col)
    bytes_of("B (column-major)", p.k_dynamic ? "K_max" : "K", p.k_dynamic ? p.K_max : p.K, eb);
  else
    bytes_of("B", "N", p.N, eb);
  bytes_of("C", "N", p.N, ec);
  // The AGUs add a 32-bit offset to an operand's base: each operand is at most 4 GiB (at the
  // largest K). (In double: M, N and K may each be near 2^31.)
  const double kbig = static_cast<double>(p.k_dynamic ? p.K_max : p.K), m = static_cast<double>(p.M),
               nn = static_cast<double>(p.N);
  const double extent_max[3] = {m * kbig * static_cast<double>(ea) / 8, kbig * nn * static_cast<double>(eb) / 8,
                                m * nn * static_cast<double>(ec) / 8};
  for (int i = 0; i < 3; ++i)
    if (extent_max[i] > 4294967296.0)
      refuse(
          fmt::format("{} is {:.0f} bytes; the generated AGUs address within an operand with 32-bit offsets, so "
                      "each operand is at most 4 GiB: make M, N or K smaller",
                      "ABC"[i], extent_max[i]));
  const ElemFormat fa = elem_format(p.a_type), fb = elem_format(p.b_type);
  // The scratchpad buffers, queues and cycle estimate: the plan's layout, which the solver's rules
  // and cost computed by the same function (hw::npu_layout); recomputed here from the plan's
  // schedule and checked against what the plan carries.
  hw::NpuTiling tiling;
  tiling.M = p.M;
  tiling.N = p.N;
  tiling.K = p.k_dynamic ? p.K_max : p.K;
  tiling.tile_m = p.tile_m;
  tiling.tile_n = p.tile_n;
  tiling.tile_k = p.tile_k;
  tiling.a_bits = static_cast<int>(ea);
  tiling.b_bits = static_cast<int>(eb);
  tiling.c_bits = static_cast<int>(ec);
  tiling.output_stationary = p.dataflow == "output_stationary";
  tiling.b_col_major = b_col;
  tiling.a_col_major = a_col;
  tiling.epi_bytes = hw::npu_epilogue_bytes(p.N, epilogue, static_cast<int>(ec));
  const hw::NpuLayout lay = hw::npu_layout(n, tiling);
  if (!lay.unbuildable.empty()) refuse(lay.unbuildable);
  if (p.npu_layout.has_value() && !(*p.npu_layout == lay))
    refuse(
        "the plan's npu_layout is not the layout of its schedule on this model (a plan edited by hand, or of another "
        "model): recompile from the spec");
  EngineParams e;
  e.rows = n.pe_rows;
  e.cols = n.pe_cols;
  e.banks = n.spad_banks;
  e.lg_banks = std::max(1, log2_exact(n.spad_banks));
  e.spad_rows = n.spad_rows;
  e.spad_aw = log2_exact(n.spad_rows);
  e.word_bits = static_cast<int>(word * 8);
  e.a_bits = fa.mem_bits;
  e.b_bits = fb.mem_bits;
  e.aw = fa.bits;
  e.bw = fb.bits;
  e.a_signed = fa.is_signed;
  e.b_signed = fb.is_signed;
  e.tile_m = p.tile_m;
  e.tile_n = p.tile_n;
  e.tile_k = p.tile_k;
  e.g = lay.group;
  e.b_seg = lay.b_seg;
  e.a_seg = lay.a_seg;
  e.a_words = lay.a_words;
  e.b_words = lay.b_words;
  e.a_base0 = lay.a_base0;
  e.a_base1 = lay.a_base1;
  e.b_base0 = lay.b_base0;
  e.b_base1 = lay.b_base1;
  e.acc_aw = std::max(1, log2_exact(lay.acc_rows));
  // Accumulators of the model's width; C elements of the output's (an int32 C of wider
  // accumulators is saturated as it is written out).
  e.acc_bits = n.acc_width;
  e.c_bits = static_cast<int>(ec);
  e.beats_per_acc_row = lay.beats_per_acc_row;
  e.shadow = n.drain_shadow;
  e.b_first = lay.b_first;
  e.weight_stationary = p.dataflow == "weight_stationary";
  e.bank_xor = n.spad_bank_map == "xor";
  e.b_col_major = b_col;
  e.a_col_major = a_col;

  Design d;
  d.top = "npu_gemm_" + name;
  d.core = d.top + "_core";
  d.mmio_base = n.mmio_base;
  d.addr_bits = n.bus_addr_bits;
  d.beat_bytes = static_cast<int>(beat);
  const std::int64_t kmax = p.k_dynamic ? p.K_max : p.K;
  const int dw = bits_for(std::max({p.M, p.N, kmax}) + std::max({p.tile_m, p.tile_n, p.tile_k}));
  const std::string header = fmt::format(
      "Generated by {} from the plan of '{}' for {}: C[{}×{}] = {}, K {}; tiles {}×{}×{}, {} "
      "dataflow. Do not edit.",
      kGeneratorVersion, name, hw.name,
      p.m_dynamic ? fmt::format("M in [{}, {}] (run time)", p.M_min, p.M) : std::to_string(p.M),
      p.n_dynamic ? fmt::format("N in [{}, {}] (run time)", p.N_min, p.N) : std::to_string(p.N),
      epilogue_formula(epilogue, requant ? p.c_type : ""),
      p.k_dynamic ? fmt::format("in [{}, {}] (run time)", p.K_min, p.K_max) : std::to_string(p.K), p.tile_m, p.tile_n,
      p.tile_k, p.dataflow);
  const std::vector<Stream> streams = {
      a_col ? Stream{"a", "A (activations, M×K, column-major: K rows of M elements): tile_k rows of tile_m elements",
                     'k', 'm', true, ea}
            : Stream{"a", "A (activations, M×K, row-major): tile_m rows of tile_k elements", 'm', 'k', true, ea},
      b_col ? Stream{"b", "B (weights, K×N, column-major: N rows of K elements): tile_n rows of tile_k elements", 'n',
                     'k', true, eb}
            : Stream{"b", "B (weights, K×N, row-major): tile_k rows of tile_n elements", 'k', 'n', true, eb},
      {"c", fmt::format("C (outputs, M×N, row-major, {}): tile_m rows of tile_n elements", p.c_type), 'm', 'n', false,
       ec},
  };
  TopParams tp;
  tp.top = d.top;
  tp.header = header;
  tp.dw = dw;
  tp.m_min = p.m_dynamic ? p.M_min : p.M;
  tp.m_max = p.M;
  tp.n_min = p.n_dynamic ? p.N_min : p.N;
  tp.n_max = p.N;
  tp.k_min = p.k_dynamic ? p.K_min : p.K;
  tp.k_max = kmax;
  tp.batch = p.batch;
  tp.beat_bytes = beat;
  tp.max_burst = n.bus_max_burst_beats;
  tp.boundary = n.bus_boundary_bytes;
  tp.lg_bits[0] = log2_exact(ea);
  tp.lg_bits[1] = log2_exact(eb);
  tp.lg_bits[2] = log2_exact(ec);
  tp.addr_bits = n.bus_addr_bits;
  tp.k_fixed = !p.k_dynamic;
  tp.ld_registers = n.ld_registers;
  tp.byte_rows = lay.byte_rows;
  tp.b_col_major = b_col;
  tp.row_bytes_b = (b_col ? kmax : p.N) * eb / 8;
  tp.a_col_major = a_col;
  tp.extent_c = p.M * p.N * ec / 8;
  tp.engine = e;
  std::vector<VerilogFile> agus;
  for (const auto& s : streams) {
    std::string mod = fmt::format("{}_agu_{}", d.top, s.id);
    agus.push_back({mod + ".v", agu(p, hw, s, mod, dw, header, lay.byte_rows)});
    d.formal_tops.push_back(mod);
    const std::int64_t seg = tile_of(p, s.seg_dim);
    // The AGU's request length: beats, or with byte rows bytes (and then a request covers at most
    // one beat more than its words).
    // (A and B: scratchpad words; C: bus beats, which the C stream writes from accumulator rows.)
    const std::int64_t words = ceil_div(seg * s.ebits, s.id == "c" ? 8 * tp.beat_bytes : word * 8);
    TopStream ts;
    ts.id = s.id;
    ts.beats_bits = bits_for(lay.byte_rows ? ceil_div(seg * s.ebits, 8) : words);
    ts.words_bits = bits_for(std::max(words, ceil_div(seg * s.ebits, 8 * tp.beat_bytes) + 1));
    ts.row_bits = std::max(1, log2_exact(tile_of(p, s.row_dim)));
    if (s.id == "a") std::tie(ts.row_words, ts.base0, ts.base1) = std::tuple(e.a_words, e.a_base0, e.a_base1);
    if (s.id == "b") std::tie(ts.row_words, ts.base0, ts.base1) = std::tuple(e.b_words, e.b_base0, e.b_base1);
    // The request queue tracks the rows in flight, its AXI4 master the bursts outstanding (A and
    // B share one read-master configuration, and so one proof of it): the layout's sizes.
    ts.lg_queue = log2_exact(s.id == "a" ? lay.queue_a : s.id == "b" ? lay.queue_b : lay.queue_c);
    ts.lg_out = log2_exact(s.id == "c" ? lay.outstanding_wr : lay.outstanding_rd);
    // C's read-ahead: dg_cout counts the beat leaving in the same cycle as room, so two entries
    // give one beat a cycle; four where the queues are large cover a write channel that stalls.
    ts.lg_read_ahead = ts.lg_queue <= 2 ? 1 : 2;
    ts.lg_lens = ts.lg_queue <= 2 ? 1 : 3;
    tp.streams.push_back(ts);
  }
  // The fused epilogue: bias (N int32) and rq (N records of 8 bytes) read once per run on B's
  // channels into tables of whole C tiles, ReLU, requantization to int8 or int16.
  EpiParams& ep = tp.epi;
  if (epilogue == "bias" || epilogue == "bias_relu") ep.features |= npu_regs::kFeatureBias;
  if (requant) ep.features |= npu_regs::kFeatureRq;
  ep.relu = epilogue == "relu" || epilogue == "bias_relu";
  ep.out_bits = static_cast<int>(ec);
  ep.n_tiles = ceil_div(p.N, p.tile_n);
  // Each vector is read in the beats that cover it (the bytes past its end in the last beat are
  // columns past N, which are never written out).
  ep.bias_beats = (ep.features & npu_regs::kFeatureBias) ? ceil_div(p.N * 4, beat) : 0;
  ep.rq_beats = (ep.features & npu_regs::kFeatureRq) ? ceil_div(p.N * 8, beat) : 0;
  ep.lg_route = log2_exact(lay.outstanding_rd) + 1;  // the B master's reads outstanding, twice
  if (ep.fetch()) {
    // A row of Cols parameters is whole bus beats.
    if ((std::int64_t{n.pe_cols} * 32) % n.bus_data_bits != 0)
      refuse(
          fmt::format("a row of {} int32 epilogue parameters (npu.pe_cols) is not whole {}-bit bus beats "
                      "(npu.bus_data_bits), which the epilogue's fetch reads",
                      n.pe_cols, n.bus_data_bits));
    if (ep.bias_beats > 65535 || ep.rq_beats > 65535)
      refuse(
          fmt::format("the epilogue's rq records (N = {}) are more than 65535 bus beats, which the epilogue's "
                      "fetch reads in one request: make N smaller",
                      p.N));
  }
  d.cycle_bound = lay.cycles;
  tp.cycle_bound = d.cycle_bound;
  d.registers = top_registers(ep.features | (n.ld_registers ? npu_regs::kFeatureLd : 0u) |
                              (p.batch > 1 ? npu_regs::kFeatureBatch : 0u));
  tp.registers = d.registers;
  // ID: FNV-1a of the plan's header line, so that software can tell designs apart.
  std::uint32_t h = 2166136261u;
  for (unsigned char ch : header) h = (h ^ ch) * 16777619u;
  tp.id = h;
  d.id = h;
  d.files.push_back({d.top + ".v", axi_top_module(tp)});
  d.files.push_back({d.top + "_core.v", top_module(tp)});
  // The library modules with properties are proved as the top instantiates them.
  d.formal_params["dg_burst_split"] = {{"AddrW", n.bus_addr_bits},
                                       {"BeatBytes", beat},
                                       {"MaxBurst", n.bus_max_burst_beats},
                                       {"Boundary", n.bus_boundary_bytes}};
  if ((n.bus_max_burst_beats & (n.bus_max_burst_beats - 1)) != 0)
    d.formal_notes["dg_burst_split"] = fmt::format(
        "the number of bursts a request leaves in is not asserted: the maximum burst, {} beats, is not a power of two",
        n.bus_max_burst_beats);
  for (const auto& [proof, stream] : {std::pair<const char*, int>{"dg_axi_rd_proof", 0}, {"dg_axi_wr_proof", 2}})
    d.formal_params[proof] = {{"AddrW", n.bus_addr_bits},
                              {"BeatBytes", beat},
                              {"MaxBurst", n.bus_max_burst_beats},
                              {"Boundary", n.bus_boundary_bytes},
                              {"LgOut", tp.streams[stream].lg_out}};
  d.formal_notes["dg_axi_wr_proof"] =
      "the write data channel is idle in this proof: dg_axi_wdata_proof proves it with dg_cout's framing (run by the "
      "formal tests: minutes at deep queues), and every co-simulation checks it";
  // The whole C master, both channels (not proved at compile time: see dg_axi_wdata_proof.v).
  const TopStream& cs = tp.streams[2];
  auto& wd = d.formal_params["dg_axi_wdata_proof"];
  wd = d.formal_params["dg_axi_wr_proof"];
  wd.emplace_back("LgLens", cs.lg_lens);
  wd.emplace_back("LgQueue", cs.lg_queue);
  if (lay.byte_rows) {
    wd.emplace_back("Align", 1);
    wd.emplace_back("LenW", cs.words_bits);
  }
  if (lay.byte_rows) {
    // The realigners as the top instantiates them: the widest stream's counts, the deepest queue.
    int lenw = 1, lgq = 1;
    for (const TopStream& ts : tp.streams) {
      lenw = std::max(lenw, ts.words_bits);
      lgq = std::max(lgq, ts.lg_queue);
    }
    for (const char* m : {"dg_rd_align", "dg_wr_align"})
      d.formal_params[m] = {{"BusBits", n.bus_data_bits}, {"LenW", lenw}, {"LgQueue", lgq}};
    d.formal_params["dg_rd_gear"] = {
        {"BusBits", n.bus_data_bits}, {"WordBits", n.spad_width_bits}, {"LenW", lenw}, {"LgQueue", lgq}};
  }
  // The scratchpad fills as the top instantiates them: the stream with more tile rows (its bank
  // mapping covers the other's rows).
  {
    const TopStream& fs = tp.streams[0].row_bits >= tp.streams[1].row_bits ? tp.streams[0] : tp.streams[1];
    d.formal_params["dg_spad_fill"] = {{"LgBanks", e.lg_banks},
                                       {"WordBits", e.word_bits},
                                       {"SpadAW", e.spad_aw},
                                       {"RowW", fs.row_bits},
                                       {"BeatsW", lay.byte_rows ? fs.words_bits : fs.beats_bits},
                                       {"RowWords", fs.row_words},
                                       {"Base0", fs.base0},
                                       {"Base1", fs.base1},
                                       {"LgQueue", fs.lg_queue},
                                       {"BankXor", e.bank_xor ? 1 : 0}};
  }
  d.formal_params["dg_spad_arbiter"] = {{"Banks", e.banks},
                                        {"LgBanks", e.lg_banks},
                                        {"WordBits", e.word_bits},
                                        {"SpadAW", e.spad_aw},
                                        {"BFirst", e.b_first ? 1 : 0}};
  // The compute engine in its environment (dg_engine_proof, dg_engine_ws_proof): its parameters as
  // the core instantiates it, and the plan's M, N and K (the start check's ranges).
  {
    auto& ep_params = d.formal_params[e.weight_stationary ? "dg_engine_ws_proof" : "dg_engine_proof"];
    for (const auto& [name, value] : engine_parameters(tp)) ep_params.emplace_back(name, value);
    for (const auto& [name, value] : {std::pair<const char*, std::int64_t>{"MMin", tp.m_min},
                                      {"MMax", tp.m_max},
                                      {"NMin", tp.n_min},
                                      {"NMax", tp.n_max},
                                      {"KMin", tp.k_min},
                                      {"KMax", tp.k_max}})
      ep_params.emplace_back(name, value);
  }
  for (auto& f : agus) d.files.push_back(std::move(f));
  // A scratchpad word other than the bus beat: the read side regroups bytes (dg_rd_gear).
  const bool gear = word != beat;
  for (const auto& lib : rtl_library()) {
    // One compute engine: the plan's dataflow's.
    const bool os_only = lib.module == "dg_engine" || lib.module == "dg_engine_proof" || lib.module == "dg_mac_array";
    const bool ws_only =
        lib.module == "dg_engine_ws" || lib.module == "dg_engine_ws_proof" || lib.module == "dg_ws_array";
    if ((os_only && e.weight_stationary) || (ws_only && !e.weight_stationary)) continue;
    // The epilogue's modules: in designs with one only.
    if ((lib.module == "dg_epilogue" && !ep.any()) || (lib.module == "dg_epi_fetch" && !ep.fetch())) continue;
    // The byte-row realigners: in designs with byte rows only.
    if ((lib.module == "dg_rd_align" && (!lay.byte_rows || gear)) || (lib.module == "dg_rd_gear" && !gear) ||
        (lib.module == "dg_wr_align" && !lay.byte_rows))
      continue;
    d.files.push_back({lib.name, lib.text});
    // (The whole C master's proof is left to the formal tests, for its time.)
    if (lib.has_properties && lib.module != "dg_axi_wdata_proof") d.formal_tops.push_back(lib.module);
  }
  return d;
}

std::string bundle(const Design& d) {
  std::string out;
  for (const auto& f : d.files) out += "// ---- file: " + f.name + "\n" + f.text;
  return out;
}

}  // namespace dg::hdlgen
