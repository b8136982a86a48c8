// The top of a generated NPU design: the MMIO register block, the start checks against the
// plan's ranges, the three AGUs and one burst splitter (DMA) per stream, and the cycle counter.
#include <fmt/format.h>

#include "hdlgen/generate.h"
#include "hdlgen/template.h"
#include "hdlgen/top.h"

namespace dg::hdlgen {

namespace {

constexpr const char* kTop = R"(// @HEADER@
//
// The address side of the NPU for this plan: software programs the registers below through a
// simple register port (one access per cycle, read data the next cycle), writes START, and the
// three AGUs walk the plan's tile loop nest while one DMA burst splitter per stream turns their
// row requests into bus bursts (A and B on read address channels, C on a write address channel).
// DONE (and irq_o) rise when all three streams have issued their last burst.
//
// Registers (byte offsets from the model's MMIO base; 32 bits each):
@REGDOC@
module @TOP@ (
  input  logic        clk_i,
  input  logic        rst_ni,
  // register port
  input  logic        reg_req_i,
  input  logic        reg_we_i,
  input  logic [11:0] reg_addr_i,
  input  logic [31:0] reg_wdata_i,
  output logic [31:0] reg_rdata_o,
  output logic        irq_o,
  // A and B read bursts, C write bursts (address channels; length in beats, 1..@MAXB@)
  output logic        a_valid_o,
  input  logic        a_ready_i,
  output logic [31:0] a_addr_o,
  output logic [8:0]  a_len_o,
  output logic        b_valid_o,
  input  logic        b_ready_i,
  output logic [31:0] b_addr_o,
  output logic [8:0]  b_len_o,
  output logic        c_valid_o,
  input  logic        c_ready_i,
  output logic [31:0] c_addr_o,
  output logic [8:0]  c_len_o
);
  localparam logic [31:0] Id = 32'h@ID@;
  localparam logic [31:0] CycleBound = 32'd@BOUND@;

  logic [31:0] a_base_q, b_base_q, c_base_q, cycles_q;
  logic [@DW1@:0] m_q, n_q, k_q;
  logic [3:0]  error_q;
  logic        running_q, done_q, start;
  logic [31:0] rdata_d;

  // START is refused (ERROR set) unless the configuration is inside the plan's ranges and every
  // address and leading dimension is a whole number of @BEAT@-byte bus beats.
  logic [3:0] check;
  always_comb begin
    check = 4'd0;
    if (m_q != @DW@'(@MMAX@)) check = 4'd1;
    else if (n_q != @DW@'(@NMAX@)) check = 4'd2;
    else if (k_q < @DW@'(@KMIN@) || k_q > @DW@'(@KMAX@)) check = 4'd3;
    else if (((a_base_q | b_base_q | c_base_q) & 32'd@BEAT1@) != 32'd0) check = 4'd4;
    else if ((((32'(k_q) << @LEA@) | (32'(n_q) << @LEB@) | (32'(n_q) << @LEC@)) & 32'd@BEAT1@) != 32'd0) check = 4'd5;
  end

  logic reg_write, start_write;
  assign reg_write   = reg_req_i && reg_we_i;
  assign start_write = reg_write && reg_addr_i == 12'h004 && reg_wdata_i[0];
  assign start       = start_write && !running_q && check == 4'd0;

  logic a_busy, b_busy, c_busy, a_done, b_done, c_done;
  logic a_split_busy, b_split_busy, c_split_busy;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_base_q <= '0;
      b_base_q <= '0;
      c_base_q <= '0;
      m_q <= '0;
      n_q <= '0;
      k_q <= '0;
      error_q <= '0;
      running_q <= 1'b0;
      done_q <= 1'b0;
      cycles_q <= '0;
      reg_rdata_o <= '0;
    end else begin
      if (reg_write && !running_q) begin
        case (reg_addr_i)
          12'h014: a_base_q <= reg_wdata_i;
          12'h018: b_base_q <= reg_wdata_i;
          12'h01c: c_base_q <= reg_wdata_i;
          12'h020: m_q <= @DW@'(reg_wdata_i);
          12'h024: n_q <= @DW@'(reg_wdata_i);
          12'h028: k_q <= @DW@'(reg_wdata_i);
          default: ;
        endcase
      end
      if (start_write && !running_q) error_q <= check;
      if (start) begin
        running_q <= 1'b1;
        done_q <= 1'b0;
        cycles_q <= '0;
      end else if (running_q) begin
        cycles_q <= cycles_q + 32'd1;
        if (a_done && b_done && c_done && !a_split_busy && !b_split_busy && !c_split_busy) begin
          running_q <= 1'b0;
          done_q <= 1'b1;
        end
      end
      if (reg_req_i && !reg_we_i) reg_rdata_o <= rdata_d;
    end
  end

  always_comb begin
    case (reg_addr_i)
      12'h000: rdata_d = Id;
      12'h008: rdata_d = {29'd0, error_q != 4'd0, done_q, running_q};
      12'h00c: rdata_d = {28'd0, error_q};
      12'h010: rdata_d = cycles_q;
      12'h014: rdata_d = a_base_q;
      12'h018: rdata_d = b_base_q;
      12'h01c: rdata_d = c_base_q;
      12'h020: rdata_d = 32'(m_q);
      12'h024: rdata_d = 32'(n_q);
      12'h028: rdata_d = 32'(k_q);
      12'h02c: rdata_d = CycleBound;
      default: rdata_d = '0;
    endcase
  end
  assign irq_o = done_q;

@STREAMS@
endmodule
)";

constexpr const char* kStream = R"(  // ---- stream @S@ ---------------------------------------------------------------------------
  logic        @S@_req_valid, @S@_req_ready;
  logic [31:0] @S@_req_addr;
  logic [@LW1@:0] @S@_req_beats;
  logic [@TRW1@:0] @S@_req_row;
  logic        @S@_last;
  @TOP@_agu_@S@ u_agu_@S@ (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .start_i    (start),
    .base_i     (@S@_base_q),
    .m_i        (m_q),
    .n_i        (n_q),
    .k_i        (k_q),
    .busy_o     (@S@_busy),
    .done_o     (@S@_done),
    .req_valid_o(@S@_req_valid),
    .req_ready_i(@S@_req_ready),
    .req_addr_o (@S@_req_addr),
    .req_beats_o(@S@_req_beats),
    .req_row_o  (@S@_req_row)
  );
  dg_burst_split u_dma_@S@ (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .req_valid_i  (@S@_req_valid),
    .req_ready_o  (@S@_req_ready),
    .req_addr_i   (@S@_req_addr),
    .req_beats_i  (16'(@S@_req_beats)),
    .burst_valid_o(@S@_valid_o),
    .burst_ready_i(@S@_ready_i),
    .burst_addr_o (@S@_addr_o),
    .burst_len_o  (@S@_len_o),
    .burst_last_o (@S@_last)
  );
  assign @S@_split_busy = @S@_valid_o;
  logic unused_@S@;
  assign unused_@S@ = ^{@S@_busy, @S@_req_row, @S@_last};
)";

}  // namespace

std::string top_module(const TopParams& tp) {
  std::string streams;
  for (const auto& s : tp.streams)
    streams += subst(kStream, {{"S", s.id}, {"LW1", std::to_string(s.beats_bits - 1)},
                              {"TRW1", std::to_string(s.row_bits - 1)}, {"TOP", tp.top}});
  std::string doc;
  for (const auto& r : tp.registers) doc += fmt::format("//   0x{:03x} {:<7} {:<2}  {}\n", r.offset, r.name, r.access, r.meaning);
  return subst(kTop, {{"HEADER", tp.header},
                     {"REGDOC", doc},
                     {"STREAMS", streams},
                     {"TOP", tp.top},
                     {"ID", fmt::format("{:08x}", tp.id)},
                     {"BOUND", std::to_string(tp.cycle_bound)},
                     {"DW", std::to_string(tp.dw)},
                     {"DW1", std::to_string(tp.dw - 1)},
                     {"MMAX", std::to_string(tp.m_max)},
                     {"NMAX", std::to_string(tp.n_max)},
                     {"KMIN", std::to_string(tp.k_min)},
                     {"KMAX", std::to_string(tp.k_max)},
                     {"BEAT", std::to_string(tp.beat_bytes)},
                     {"BEAT1", std::to_string(tp.beat_bytes - 1)},
                     {"MAXB", std::to_string(tp.max_burst)},
                     {"LEA", std::to_string(tp.lg_elem[0])},
                     {"LEB", std::to_string(tp.lg_elem[1])},
                     {"LEC", std::to_string(tp.lg_elem[2])}});
}

std::vector<Register> top_registers() {
  return {
      {"ID", 0x000, "ro", "identifies the generated design (hash of the plan)"},
      {"CTRL", 0x004, "wo", "bit 0: START (refused while running, or with ERROR set by the checks)"},
      {"STATUS", 0x008, "ro", "bit 0 BUSY, bit 1 DONE, bit 2 ERROR"},
      {"ERROR", 0x00c, "ro", "0 none, 1 M, 2 N not the plan's, 3 K outside its range, 4 base not beat-aligned, 5 row not whole beats"},
      {"CYCLES", 0x010, "ro", "cycles of the last (or current) run"},
      {"A_BASE", 0x014, "rw", "byte address of A (M×K, row-major)"},
      {"B_BASE", 0x018, "rw", "byte address of B (K×N, row-major)"},
      {"C_BASE", 0x01c, "rw", "byte address of C (M×N, row-major, int32)"},
      {"M", 0x020, "rw", "rows of A and C"},
      {"N", 0x024, "rw", "columns of B and C"},
      {"K", 0x028, "rw", "columns of A, rows of B"},
      {"BOUND", 0x02c, "ro", "the plan's estimate of a run's cycles per stream (4 cycles per request; not a proved bound yet)"},
  };
}

}  // namespace dg::hdlgen
