// The top of a generated NPU design: the MMIO register block, the start checks against the
// plan's ranges, the three AGUs and one burst splitter (DMA) per stream, and the cycle counter.
#include <fmt/format.h>

#include <deepgemm/npu_regs.h>

#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "hdlgen/generate.h"
#include "hdlgen/template.h"
#include "hdlgen/top.h"
#include "support/error.h"

namespace dg::hdlgen {

namespace {

bool same_name(const char* a, const char* b) { return std::string_view(a) == b; }

// What each register of <deepgemm/npu_regs.h> (or each field, as "REG.FIELD") is in the top's
// RTL: the expression a read returns, and for the registers software configures, the statement a
// write runs (only while no run is in progress). CTRL's START is the start_write strobe.
struct RtlReg {
  const char* read;   // nullptr: reads as zero (write-only)
  const char* write;  // nullptr: writes are ignored here
};

const std::map<std::string, RtlReg>& rtl_regs() {
  static const std::map<std::string, RtlReg> m = {
      {"ID", {"Id", nullptr}},
      {"CTRL.START", {nullptr, nullptr}},
      {"STATUS.BUSY", {"running_q", nullptr}},
      {"STATUS.DONE", {"done_q", nullptr}},
      {"STATUS.ERROR", {"error_q != '0", nullptr}},
      {"ERROR.CODE", {"error_q", nullptr}},
      {"CYCLES", {"cycles_q", nullptr}},
      {"A_BASE", {"a_base_q", "a_base_q <= reg_wdata_i"}},
      {"B_BASE", {"b_base_q", "b_base_q <= reg_wdata_i"}},
      {"C_BASE", {"c_base_q", "c_base_q <= reg_wdata_i"}},
      {"M", {"32'(m_q)", "m_q <= @DW@'(reg_wdata_i)"}},
      {"N", {"32'(n_q)", "n_q <= @DW@'(reg_wdata_i)"}},
      {"K", {"32'(k_q)", "k_q <= @DW@'(reg_wdata_i)"}},
      {"BOUND", {"CycleBound", nullptr}},
      // The high halves: what a design of the bus's width keeps of them (hi_rtl below).
      {"A_BASE_HI", {"@A_HI_RD@", "@A_HI_WR@"}},
      {"B_BASE_HI", {"@B_HI_RD@", "@B_HI_WR@"}},
      {"C_BASE_HI", {"@C_HI_RD@", "@C_HI_WR@"}},
      // The fused epilogue's operands (designs with the feature only).
      {"BIAS_BASE", {"bias_base_q", "bias_base_q <= reg_wdata_i"}},
      {"RQ_BASE", {"rq_base_q", "rq_base_q <= reg_wdata_i"}},
      {"BIAS_BASE_HI", {"@BIAS_HI_RD@", "@BIAS_HI_WR@"}},
      {"RQ_BASE_HI", {"@RQ_HI_RD@", "@RQ_HI_WR@"}},
      // The leading dimensions in bytes (0: packed, the row's own bytes).
      {"LDA", {"lda_q", "lda_q <= reg_wdata_i"}},
      {"LDB", {"ldb_q", "ldb_q <= reg_wdata_i"}},
      {"LDC", {"ldc_q", "ldc_q <= reg_wdata_i"}},
      // The batch loop (designs of batch > 1 only).
      {"BATCH", {"batch_q", "batch_q <= reg_wdata_i"}},
      {"A_STRIDE", {"a_stride_q", "a_stride_q <= reg_wdata_i"}},
      {"B_STRIDE", {"b_stride_q", "b_stride_q <= reg_wdata_i"}},
      {"C_STRIDE", {"c_stride_q", "c_stride_q <= reg_wdata_i"}},
  };
  return m;
}

const RtlReg& rtl_of(const std::string& key) {
  auto it = rtl_regs().find(key);
  DG_INTERNAL_ASSERT(it != rtl_regs().end(), fmt::format("register {} has no RTL in the top", key));
  return it->second;
}

// The case items of the register port: writes, then reads (of the registers the design's
// features have).
std::pair<std::string, std::string> register_decode(unsigned features) {
  std::string writes, reads;
  for (const auto& r : npu_regs::kRegisters) {
    if (r.feature != 0 && (r.feature & features) == 0) continue;
    const std::string at = fmt::format("12'h{:03x}", r.offset);
    if (r.field_count == 0) {
      const RtlReg& x = rtl_of(r.name);
      if (x.write && (r.access & npu_regs::kWO)) writes += fmt::format("          {}: {};\n", at, x.write);
      if (x.read && (r.access & npu_regs::kRO)) reads += fmt::format("      {}: rdata_d = {};\n", at, x.read);
      continue;
    }
    // A register of fields: their values side by side from bit 31 down, unused bits zero.
    std::vector<std::string> parts;
    int top = 32;
    for (int i = r.field_count - 1; i >= 0; --i) {
      const auto& f = r.fields[i];
      const RtlReg& x = rtl_of(fmt::format("{}.{}", r.name, f.name));
      DG_INTERNAL_ASSERT(x.write == nullptr, "a field write needs a read-modify-write the top does not have");
      if (!x.read) continue;
      if (top > f.lsb + f.width) parts.push_back(fmt::format("{}'d0", top - f.lsb - f.width));
      parts.push_back(fmt::format("{}'({})", f.width, x.read));
      top = f.lsb;
    }
    if (parts.empty() || !(r.access & npu_regs::kRO)) continue;
    if (top > 0) parts.push_back(fmt::format("{}'d0", top));
    reads += fmt::format("      {}: rdata_d = {{{}}};\n", at, fmt::join(parts, ", "));
  }
  return {writes, reads};
}

constexpr const char* kTop = R"(// @HEADER@
//
// The core of the NPU for this plan: everything but the bus protocols (the top, @TOP@, puts it
// behind AXI4 masters and an AXI4-Lite register slave; a board may use it directly). Software
// programs the registers below through the register port (one access per cycle, read data the
// next cycle) and writes START. The A and B AGUs walk the plan's tile loop nest and issue one
// request per tile row; a burst splitter per stream turns the requests into read bursts
// (beat-aligned, at most @MAXB@ beats, never across @BOUNDARY@ bytes), and the returning data is
// written into the scratchpad (@NB@ banks × @SPROWS@ words × @WBITS@ bits; tile row r in bank @BANKOF@), double-buffered per K step. The compute engine reads each step's tiles from the scratchpad
// into the @PR@×@PC@ MAC array and accumulates the C tile in one of two accumulator buffers; the C
// AGU and its DMA write a finished tile out in write bursts while the engine fills the other
// buffer. DONE (and irq_o) rise when the last C beat has been sent and the bus has nothing
// outstanding (bus_idle_i); a bus error (bus_error_i, an ERROR code) is kept in ERROR.
//
// Bus channels: A and B read bursts (address channel: byte address, length in beats 1..@MAXB@;
// data channel: the beats in order), C write bursts (address channel, and data channel with the
// burst's last beat marked). @BBITS@-bit data.
//
// Bus addresses are @ADW@ bits: each operand's base is {X_BASE_HI, X_BASE} cut to that width; a START
// whose bases have bits above it, or whose operands pass the end of the address space, is refused
// (BASE_RANGE).
//
@LDDOC@@BATCHDOC@// Registers (byte offsets from the model's MMIO base; 32 bits each):
@REGDOC@module @TOP@_core (
  input  logic        clk_i,
  input  logic        rst_ni,
  output logic        run_start_o,   // a run starts (the START write was taken)
  input  logic        bus_idle_i,    // nothing outstanding on the bus
  input  logic [@ERRW1@:0] bus_error_i,  // a bus error of this run: its ERROR code, or 0
  // register port
  input  logic        reg_req_i,
  input  logic        reg_we_i,
  input  logic [11:0] reg_addr_i,
  input  logic [31:0] reg_wdata_i,
  output logic [31:0] reg_rdata_o,
  output logic        irq_o,
  // A reads
  output logic        a_ar_valid_o,
  input  logic        a_ar_ready_i,
  output logic [@ADW1@:0] a_ar_addr_o,
  output logic [8:0]  a_ar_len_o,
  input  logic        a_r_valid_i,
  output logic        a_r_ready_o,
  input  logic [@BBITS1@:0] a_r_data_i,
  // B reads
  output logic        b_ar_valid_o,
  input  logic        b_ar_ready_i,
  output logic [@ADW1@:0] b_ar_addr_o,
  output logic [8:0]  b_ar_len_o,
  input  logic        b_r_valid_i,
  output logic        b_r_ready_o,
  input  logic [@BBITS1@:0] b_r_data_i,
  // C writes
  output logic        c_aw_valid_o,
  input  logic        c_aw_ready_i,
  output logic [@ADW1@:0] c_aw_addr_o,
  output logic [8:0]  c_aw_len_o,
  output logic        c_w_valid_o,
  input  logic        c_w_ready_i,
  output logic [@BBITS1@:0] c_w_data_o,
@CSTRBPORT@  output logic        c_w_last_o
);
  localparam logic [31:0] Id = 32'h@ID@;
  localparam logic [31:0] CycleBound = 32'd@BOUND@;
  localparam int Banks = @NB@, LgBanks = @LGNB@, WordBits = @WBITS@, SpadAW = @SPAW@;
  localparam int AccBits = @PC@ * @ACCW@, AccAW = @ACCAW@;

  logic [31:0] a_base_q, b_base_q, c_base_q, cycles_q;
@HI_DECL@  logic [@ADW1@:0] a_base, b_base, c_base;   // the operands' bus addresses
@EPI_DECL@@BATCH_DECL@  assign a_base = @A_RUN@;
  assign b_base = @B_RUN@;
  assign c_base = @C_RUN@;
  logic [@DW1@:0] m_q, n_q, k_q;
@LDDECL@  logic [@ERRW1@:0]  error_q;
  logic        running_q, done_q, launch, start;
  logic [31:0] rdata_d;

@LDCHECKDOC@
  logic [@ERRW1@:0] check;
  always_comb begin
    check = @ERRW@'d@E_NONE@;
    if (@MCHECK@) check = @ERRW@'d@E_M@;
    else if (@NCHECK@) check = @ERRW@'d@E_N@;
    else if (k_q < @DW@'(@KMIN@) || k_q > @DW@'(@KMAX@)) check = @ERRW@'d@E_K@;
@BATCH_CHECK@    else if (((a_base_q | b_base_q | c_base_q@EPI_ALIGN@) & 32'd@BEAT1@) != 32'd0) check = @ERRW@'d@E_BASE_ALIGN@;
    else if ((((32'(@AROWELEMS@) << @LEA@) | (32'(@BROWELEMS@) << @LEB@) | (32'(n_q) << @LEC@)) & 32'd@ROWB1@) != 32'd0) check = @ERRW@'d@E_ROW_BEATS@;
@LDCHECK@    else if (@RANGE_CHECK@) check = @ERRW@'d@E_BASE_RANGE@;
  end

  logic reg_write, start_write;
  assign reg_write   = reg_req_i && reg_we_i;
  assign start_write = reg_write && reg_addr_i == 12'h@CTRL@ && reg_wdata_i[@START@];
  assign launch      = start_write && !running_q && check == @ERRW@'d@E_NONE@;
@BATCH_START@
  logic a_busy, b_busy, c_busy, a_done, b_done, c_done;
  logic a_split_busy, b_split_busy, c_split_busy;
  logic engine_idle, cout_idle;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_base_q <= '0;
      b_base_q <= '0;
      c_base_q <= '0;
@HI_RESET@@EPI_RESET@@LDRESET@@BATCH_RESET@      m_q <= '0;
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
@REGWRITES@          default: ;
        endcase
      end
      if (start_write && !running_q) error_q <= check;
      else if (running_q && error_q == @ERRW@'d@E_NONE@) error_q <= bus_error_i;
@BATCH_PULSE@      if (launch) begin
        running_q <= 1'b1;
        done_q <= 1'b0;
        cycles_q <= '0;
@BATCH_LAUNCH@      end else if (running_q) begin
        cycles_q <= cycles_q + 32'd1;
        if (@BATCH_NOT_NEXT@a_done && b_done && c_done && !a_split_busy && !b_split_busy && !c_split_busy && engine_idle && cout_idle && bus_idle_i) begin
@BATCH_END@        end
      end
      if (reg_req_i && !reg_we_i) reg_rdata_o <= rdata_d;
    end
  end

  always_comb begin
    case (reg_addr_i)
@REGREADS@      default: rdata_d = '0;
    endcase
  end
  assign irq_o = done_q;
  assign run_start_o = launch;

  // ---- scratchpad ------------------------------------------------------------------------------
  logic                      a_wreq, a_grant, b_wreq, b_grant;
  logic [LgBanks-1:0]        a_bank, b_bank;
  logic [SpadAW-1:0]         a_waddr, b_waddr;
  logic [WordBits-1:0]       a_wdata, b_wdata;
  logic [Banks-1:0]          sp_we, sp_re;
  logic [Banks*SpadAW-1:0]   sp_waddr, sp_raddr;
  logic [Banks*WordBits-1:0] sp_wdata, sp_rdata;
  dg_spad_arbiter #(.Banks(Banks), .LgBanks(LgBanks), .WordBits(WordBits), .SpadAW(SpadAW),
                    .BFirst(@BFIRST@)) u_spad_arbiter (
    .a_req_i  (a_wreq),
    .a_bank_i (a_bank),
    .a_addr_i (a_waddr),
    .a_data_i (a_wdata),
    .a_grant_o(a_grant),
    .b_req_i  (b_wreq),
    .b_bank_i (b_bank),
    .b_addr_i (b_waddr),
    .b_data_i (b_wdata),
    .b_grant_o(b_grant),
    .we_o     (sp_we),
    .waddr_o  (sp_waddr),
    .wdata_o  (sp_wdata)
  );
  for (genvar b = 0; b < Banks; b++) begin : g_bank
    dg_ram_1r1w #(.Width(WordBits), .AddrW(SpadAW)) u_bank (
      .clk_i  (clk_i),
      .we_i   (sp_we[b]),
      .waddr_i(sp_waddr[b*SpadAW +: SpadAW]),
      .wdata_i(sp_wdata[b*WordBits +: WordBits]),
      .re_i   (sp_re[b]),
      .raddr_i(sp_raddr[b*SpadAW +: SpadAW]),
      .rdata_o(sp_rdata[b*WordBits +: WordBits])
    );
  end

  // ---- accumulator buffers: the engine fills one while the C stream empties the other --------
  logic [1:0]         acc_full_q;
  logic               e_acc_set, e_acc_buf, e_acc_re, e_acc_we, c_acc_release, c_acc_buf, c_acc_re;
  logic [AccAW-1:0]   e_acc_raddr, e_acc_waddr, c_acc_raddr;
  logic [AccBits-1:0] e_acc_wdata, acc_rdata0, acc_rdata1;
  logic               e_rbuf_q, c_rbuf_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      acc_full_q <= '0;
      e_rbuf_q <= 1'b0;
      c_rbuf_q <= 1'b0;
    end else begin
      if (start) begin
        acc_full_q <= '0;
      end else begin
        if (e_acc_set) acc_full_q[e_acc_buf] <= 1'b1;
        if (c_acc_release) acc_full_q[c_acc_buf] <= 1'b0;
      end
      e_rbuf_q <= e_acc_buf;
      c_rbuf_q <= c_acc_buf;
    end
  end
  dg_ram_1r1w #(.Width(AccBits), .AddrW(AccAW)) u_acc0 (
    .clk_i  (clk_i),
    .we_i   (e_acc_we && !e_acc_buf),
    .waddr_i(e_acc_waddr),
    .wdata_i(e_acc_wdata),
    .re_i   ((e_acc_re && !e_acc_buf) || (c_acc_re && !c_acc_buf)),
    .raddr_i(c_acc_re && !c_acc_buf ? c_acc_raddr : e_acc_raddr),
    .rdata_o(acc_rdata0)
  );
  dg_ram_1r1w #(.Width(AccBits), .AddrW(AccAW)) u_acc1 (
    .clk_i  (clk_i),
    .we_i   (e_acc_we && e_acc_buf),
    .waddr_i(e_acc_waddr),
    .wdata_i(e_acc_wdata),
    .re_i   ((e_acc_re && e_acc_buf) || (c_acc_re && c_acc_buf)),
    .raddr_i(c_acc_re && c_acc_buf ? c_acc_raddr : e_acc_raddr),
    .rdata_o(acc_rdata1)
  );

  // ---- compute engine ----------------------------------------------------------------------------
  logic [1:0] a_full, b_full;
  logic       release_step, release_buf;
@ENGINE@ u_engine (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .start_i      (start),
    .m_i          (m_q),
    .n_i          (n_q),
    .k_i          (k_q),
    .idle_o       (engine_idle),
    .a_full_i     (a_full),
    .b_full_i     (b_full),
    .release_o    (release_step),
    .release_buf_o(release_buf),
    .rd_en_o      (sp_re),
    .rd_addr_o    (sp_raddr),
    .rd_data_i    (sp_rdata),
    .acc_full_i   (acc_full_q),
    .acc_set_o    (e_acc_set),
    .acc_buf_o    (e_acc_buf),
    .acc_re_o     (e_acc_re),
    .acc_raddr_o  (e_acc_raddr),
    .acc_rdata_i  (e_rbuf_q ? acc_rdata1 : acc_rdata0),
    .acc_we_o     (e_acc_we),
    .acc_waddr_o  (e_acc_waddr),
    .acc_wdata_o  (e_acc_wdata)
  );

@EPI@@STREAMS@endmodule
)";

// A read stream (A or B): AGU, burst splitter on the read address channel, and the scratchpad
// fill of the returning data.
constexpr const char* kReadStream =
    R"(  // ---- stream @S@ ---------------------------------------------------------------------------
  logic        @S@_req_valid, @S@_req_ready, @S@_req_last, @S@_hold, @S@_qfull, @S@_may_begin, @S@_split_ready;
  logic [@ADW1@:0] @S@_req_addr;
  logic [@LW1@:0] @S@_req_@LEN@;
  logic [@TRW1@:0] @S@_req_row;
  logic        @S@_last, @S@_fill_idle;
  @TOP@_agu_@S@ u_agu_@S@ (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .start_i    (start),
    .base_i     (@S@_base),
@LDCONN@    .m_i        (m_q),
    .n_i        (n_q),
    .k_i        (k_q),
    .busy_o     (@S@_busy),
    .done_o     (@S@_done),
    .req_valid_o(@S@_req_valid),
    .req_ready_i(@S@_req_ready),
    .req_addr_o (@S@_req_addr),
    .req_@LEN@_o(@S@_req_@LEN@),
    .req_row_o  (@S@_req_row),
    .req_last_o (@S@_req_last)
  );
  // A K step begins only while a scratchpad buffer is free for it.
  assign @S@_hold = @S@_req_row == '0 && !@S@_may_begin;
  assign @S@_req_ready = @S@_split_ready && !@S@_qfull && !@S@_hold;
@RDALIGNREQ@  dg_burst_split #(.AddrW(@ADW@), .BeatBytes(@BEAT@), .MaxBurst(@MAXB@), .Boundary(@BOUNDARY@)) u_dma_@S@ (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .req_valid_i  (@S@_req_valid && !@S@_qfull && !@S@_hold),
    .req_ready_o  (@S@_split_ready),
    .req_addr_i   (@SPLITADDR@),
    .req_beats_i  (16'(@SPLITBEATS@)),
    .burst_valid_o(@S@_ar_valid_o),
    .burst_ready_i(@S@_ar_ready_i),
    .burst_addr_o (@S@_ar_addr_o),
    .burst_len_o  (@S@_ar_len_o),
    .burst_last_o (@S@_last)
  );
  assign @S@_split_busy = @S@_ar_valid_o;
@RDALIGN@  dg_spad_fill #(
    .LgBanks(LgBanks), .WordBits(WordBits), .SpadAW(SpadAW), .RowW(@TRW@), .BeatsW(@FILLW@),
    .RowWords(@ROWWORDS@), .Base0(@BASE0@), .Base1(@BASE1@), .LgQueue(@LGQ@)@BANKXOR@
  ) u_fill_@S@ (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .start_i      (start),
    .req_i        (@S@_req_valid && @S@_req_ready),
    .req_row_i    (@S@_req_row),
    .req_beats_i  (@FILLBEATS@),
    .req_last_i   (@S@_req_last),
    .queue_full_o (@S@_qfull),
    .may_begin_o  (@S@_may_begin),
    .r_valid_i    (@FILLRV@),
    .r_ready_o    (@FILLRR@),
    .r_data_i     (@FILLRD@),
    .wreq_o       (@S@_wreq),
    .grant_i      (@S@_grant),
    .bank_o       (@S@_bank),
    .waddr_o      (@S@_waddr),
    .wdata_o      (@S@_wdata),
    .release_i    (release_step),
    .release_buf_i(release_buf),
    .full_o       (@S@_full),
    .idle_o       (@S@_fill_idle)
  );
  logic unused_@S@;
  assign unused_@S@ = ^{@S@_busy, @S@_last, @S@_fill_idle};
)";

// The fused epilogue: the fetch of its operands on B's read channels (dg_epi_fetch; designs with
// bias or rq only), and the epilogue on the accumulator rows the C write-out reads (dg_epilogue).
constexpr const char* kEpiFetch =
    R"(  // ---- the fused epilogue's operands, read on B's channels ---------------------------------
  logic        bs_ar_valid, bs_ar_ready, bs_r_valid, bs_r_ready, epi_ready, epi_busy;
  logic [@ADW1@:0] bs_ar_addr;
  logic [8:0]  bs_ar_len;
  logic [@BBITS1@:0] bs_r_data;
  logic [@PC@*32-1:0] epi_bias;
  logic [@PC@*64-1:0] epi_rq;
  dg_epi_fetch #(
    .AddrW(@ADW@), .BeatBytes(@BEAT@), .MaxBurst(@MAXB@), .Boundary(@BOUNDARY@), .Cols(@PC@), .NNj(@NNJ@),
    .NTiles(@NTILES@), .HasBias(1'b@HASBIAS@), .HasRq(1'b@HASRQ@), .BiasBeats(@BIASBEATS@), .RqBeats(@RQBEATS@),
    .AccAW(AccAW), .LgRoute(@LGROUTE@)
  ) u_epi_fetch (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .start_i     (start),
    .bias_base_i (@BIASBASE@),
    .rq_base_i   (@RQBASE@),
    .b_ar_valid_i(bs_ar_valid),
    .b_ar_ready_o(bs_ar_ready),
    .b_ar_addr_i (bs_ar_addr),
    .b_ar_len_i  (bs_ar_len),
    .b_r_valid_o (bs_r_valid),
    .b_r_ready_i (bs_r_ready),
    .b_r_data_o  (bs_r_data),
    .ar_valid_o  (b_ar_valid_o),
    .ar_ready_i  (b_ar_ready_i),
    .ar_addr_o   (b_ar_addr_o),
    .ar_len_o    (b_ar_len_o),
    .r_valid_i   (b_r_valid_i),
    .r_ready_o   (b_r_ready_o),
    .r_data_i    (b_r_data_i),
    .ready_o     (epi_ready),
    .busy_o      (epi_busy),
    .re_i        (c_acc_re),
    .raddr_i     (c_acc_raddr),
    .tile_done_i (c_acc_release),
    .bias_o      (epi_bias),
    .rq_o        (epi_rq)
  );
  logic unused_epi;
  assign unused_epi = ^{epi_busy, epi_bias, epi_rq};  // bias or rq unused in designs without it
)";

constexpr const char* kEpilogue =
    R"(  // ---- the fused epilogue on the accumulator rows C is written from ------------------------
  logic [AccBits-1:0] epi_rdata;
  dg_epilogue #(.Cols(@PC@), .AccW(@ACCW@), .Bias(1'b@HASBIAS@), .Relu(1'b@RELU@), .Requant(1'b@HASRQ@),
                .OutBits(@OUTBITS@)) u_epilogue (
    .acc_i (c_rbuf_q ? acc_rdata1 : acc_rdata0),
    .bias_i(@EBIAS@),
    .rq_i  (@ERQ@),
    .out_o (epi_rdata)
  );
)";

constexpr const char* kWriteStream =
    R"(  // ---- stream c ---------------------------------------------------------------------------
  logic        c_req_valid, c_req_ready, c_req_last, c_qfull, c_split_ready, c_burst_valid, c_lens_full;
  logic [@ADW1@:0] c_req_addr;
  logic [@LW1@:0] c_req_@LEN@;
  logic [@TRW1@:0] c_req_row;
  logic        c_last;
@CUNUSEDSTRB@  @TOP@_agu_c u_agu_c (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .start_i    (start),
    .base_i     (c_base),
@LDCONNC@    .m_i        (m_q),
    .n_i        (n_q),
    .k_i        (k_q),
    .busy_o     (c_busy),
    .done_o     (c_done),
    .req_valid_o(c_req_valid),
    .req_ready_i(c_req_ready),
    .req_addr_o (c_req_addr),
    .req_@LEN@_o(c_req_@LEN@),
    .req_row_o  (c_req_row),
    .req_last_o (c_req_last)
  );
  assign c_req_ready = c_split_ready && !c_qfull;
@WRALIGNREQ@  dg_burst_split #(.AddrW(@ADW@), .BeatBytes(@BEAT@), .MaxBurst(@MAXB@), .Boundary(@BOUNDARY@)) u_dma_c (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .req_valid_i  (c_req_valid && !c_qfull),
    .req_ready_o  (c_split_ready),
    .req_addr_i   (@SPLITADDR@),
    .req_beats_i  (16'(@SPLITBEATS@)),
    .burst_valid_o(c_burst_valid),
    .burst_ready_i(c_aw_ready_i && !c_lens_full),
    .burst_addr_o (c_aw_addr_o),
    .burst_len_o  (c_aw_len_o),
    .burst_last_o (c_last)
  );
  assign c_aw_valid_o = c_burst_valid && !c_lens_full;
  assign c_split_busy = c_burst_valid;
  dg_cout #(
    .Cols(@PC@), .AccW(@ACCW@), .CW(@CW@), .BusBits(@BBITS@), .BeatsPerRow(@BPA@), .NNj(@NNJ@), .AccAW(AccAW), .RowW(@TRW@),
    .BeatsW(@FILLW@), .LgQueue(@LGQ@), .LgOut(@LGOUT@), .LgLens(@LGLENS@)@COUTALIGN@
  ) u_cout (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .start_i      (start),
    .req_i        (c_req_valid && c_req_ready),
    .req_row_i    (c_req_row),
    .req_beats_i  (@FILLBEATS@),
@COUTALIGNREQ@    .req_last_i   (c_req_last),
    .queue_full_o (c_qfull),
    .acc_full_i   (@CFULL@),
    .acc_release_o(c_acc_release),
    .acc_buf_o    (c_acc_buf),
    .re_o         (c_acc_re),
    .raddr_o      (c_acc_raddr),
    .rdata_i      (@CRDATA@),
    .aw_i         (c_aw_valid_o && c_aw_ready_i),
    .aw_len_i     (c_aw_len_o),
    .lens_full_o  (c_lens_full),
    .w_valid_o    (c_w_valid_o),
    .w_ready_i    (c_w_ready_i),
    .w_data_o     (c_w_data_o),
@CSTRB@    .w_last_o     (c_w_last_o),
    .idle_o       (cout_idle)
  );
  logic unused_c;
  assign unused_c = ^{c_busy, c_last};
)";

// The top: the core behind AXI4 — an AXI4-Lite slave for the registers, and one AXI4 master per
// stream (A and B read, C write), each with its own ID.
constexpr const char* kShell = R"(// @HEADER@
//
// The NPU for this plan, on AXI4: registers on an AXI4-Lite slave (s_axil_*: the 4 KB register
// page, 32-bit data), A and B read through read-only AXI4 masters (m_axi_a_*, m_axi_b_*) and C
// written through a write-only AXI4 master (m_axi_c_*): INCR bursts of full @BBITS@-bit beats,
// at most @MAXB@ beats, never across @BOUNDARY@ bytes, @ADDRW@-bit addresses, @IDW@-bit IDs (A @ID_A@,
// B @ID_B@, C @ID_C@), all byte strobes set. Each master keeps its reads or writes in order; A's and B's
// responses may come back in any order with respect to each other. Outstanding at most: A @OUT_A@
// reads, B @OUT_B@ reads, C @OUT_C@ writes. An error response (SLVERR, DECERR) or a response that breaks
// the protocol ends the run with ERROR set (BUS_READ, BUS_WRITE, BUS_PROTOCOL); DONE rises when
// every write has had its response. The core (@TOP@_core) holds everything else; see its file.
module @TOP@ (
  input  logic        clk_i,
  input  logic        rst_ni,
  output logic        irq_o,
  // AXI4-Lite register slave
  input  logic        s_axil_awvalid_i,
  output logic        s_axil_awready_o,
  input  logic [11:0] s_axil_awaddr_i,
  input  logic [2:0]  s_axil_awprot_i,
  input  logic        s_axil_wvalid_i,
  output logic        s_axil_wready_o,
  input  logic [31:0] s_axil_wdata_i,
  input  logic [3:0]  s_axil_wstrb_i,
  output logic        s_axil_bvalid_o,
  input  logic        s_axil_bready_i,
  output logic [1:0]  s_axil_bresp_o,
  input  logic        s_axil_arvalid_i,
  output logic        s_axil_arready_o,
  input  logic [11:0] s_axil_araddr_i,
  input  logic [2:0]  s_axil_arprot_i,
  output logic        s_axil_rvalid_o,
  input  logic        s_axil_rready_i,
  output logic [31:0] s_axil_rdata_o,
  output logic [1:0]  s_axil_rresp_o,
@PORTS@);
  localparam int AddrW = @ADDRW@, IdW = @IDW@, BeatBytes = @BEAT@;

  logic        reg_req, reg_we, run_start;
  logic [11:0] reg_addr;
  logic [31:0] reg_wdata, reg_rdata;
  dg_axil_regs u_regs (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .awvalid_i  (s_axil_awvalid_i),
    .awready_o  (s_axil_awready_o),
    .awaddr_i   (s_axil_awaddr_i),
    .awprot_i   (s_axil_awprot_i),
    .wvalid_i   (s_axil_wvalid_i),
    .wready_o   (s_axil_wready_o),
    .wdata_i    (s_axil_wdata_i),
    .wstrb_i    (s_axil_wstrb_i),
    .bvalid_o   (s_axil_bvalid_o),
    .bready_i   (s_axil_bready_i),
    .bresp_o    (s_axil_bresp_o),
    .arvalid_i  (s_axil_arvalid_i),
    .arready_o  (s_axil_arready_o),
    .araddr_i   (s_axil_araddr_i),
    .arprot_i   (s_axil_arprot_i),
    .rvalid_o   (s_axil_rvalid_o),
    .rready_i   (s_axil_rready_i),
    .rdata_o    (s_axil_rdata_o),
    .rresp_o    (s_axil_rresp_o),
    .reg_req_o  (reg_req),
    .reg_we_o   (reg_we),
    .reg_addr_o (reg_addr),
    .reg_wdata_o(reg_wdata),
    .reg_rdata_i(reg_rdata)
  );

@MASTERS@
  // The run's first bus problem, as an ERROR code: a protocol break before an error response.
  logic [@ERRW1@:0] bus_error;
  always_comb begin
    if (a_error == 2'd2 || b_error == 2'd2 || c_error == 2'd2) bus_error = @ERRW@'d@E_BUS_PROTOCOL@;
    else if (a_error == 2'd1 || b_error == 2'd1) bus_error = @ERRW@'d@E_BUS_READ@;
    else if (c_error == 2'd1) bus_error = @ERRW@'d@E_BUS_WRITE@;
    else bus_error = @ERRW@'d@E_NONE@;
  end

  @TOP@_core u_core (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .run_start_o (run_start),
    .bus_idle_i  (a_idle && b_idle && c_idle),
    .bus_error_i (bus_error),
    .reg_req_i   (reg_req),
    .reg_we_i    (reg_we),
    .reg_addr_i  (reg_addr),
    .reg_wdata_i (reg_wdata),
    .reg_rdata_o (reg_rdata),
    .irq_o       (irq_o),
    .a_ar_valid_o(a_ar_valid),
    .a_ar_ready_i(a_ar_ready),
    .a_ar_addr_o (a_ar_addr),
    .a_ar_len_o  (a_ar_len),
    .a_r_valid_i (a_r_valid),
    .a_r_ready_o (a_r_ready),
    .a_r_data_i  (a_r_data),
    .b_ar_valid_o(b_ar_valid),
    .b_ar_ready_i(b_ar_ready),
    .b_ar_addr_o (b_ar_addr),
    .b_ar_len_o  (b_ar_len),
    .b_r_valid_i (b_r_valid),
    .b_r_ready_o (b_r_ready),
    .b_r_data_i  (b_r_data),
    .c_aw_valid_o(c_aw_valid),
    .c_aw_ready_i(c_aw_ready),
    .c_aw_addr_o (c_aw_addr),
    .c_aw_len_o  (c_aw_len),
    .c_w_valid_o (c_w_valid),
    .c_w_ready_i (c_w_ready),
    .c_w_data_o  (c_w_data),
@CSTRBCONN@    .c_w_last_o  (c_w_last)
  );

`ifdef DG_AXI4_CHECK
  // Co-simulation (DG_AXI4_CHECK defined) binds the AXI4 protocol checker to every interface;
  // at DONE no transaction may be outstanding.
  logic [0:0] unused_check_regs_r, unused_check_regs_w;
  dg_axi4_check #(.AddrW(12), .DataW(32), .IdW(1), .MaxReads(1), .MaxWrites(1)) u_check_regs (
    .clk_i(clk_i), .rst_ni(rst_ni), .idle_i(1'b0),
    .arvalid_i(s_axil_arvalid_i), .arready_i(s_axil_arready_o), .arid_i(1'b0), .araddr_i(s_axil_araddr_i),
    .arlen_i(8'd0), .arsize_i(3'd2), .arburst_i(2'b01), .arcache_i(4'd0), .arprot_i(s_axil_arprot_i),
    .rvalid_i(s_axil_rvalid_o), .rready_i(s_axil_rready_i), .rid_i(1'b0), .rdata_i(s_axil_rdata_o),
    .rresp_i(s_axil_rresp_o), .rlast_i(1'b1),
    .awvalid_i(s_axil_awvalid_i), .awready_i(s_axil_awready_o), .awid_i(1'b0), .awaddr_i(s_axil_awaddr_i),
    .awlen_i(8'd0), .awsize_i(3'd2), .awburst_i(2'b01), .awcache_i(4'd0), .awprot_i(s_axil_awprot_i),
    .wvalid_i(s_axil_wvalid_i), .wready_i(s_axil_wready_o), .wdata_i(s_axil_wdata_i), .wstrb_i(s_axil_wstrb_i),
    .wlast_i(1'b1), .bvalid_i(s_axil_bvalid_o), .bready_i(s_axil_bready_i), .bid_i(1'b0), .bresp_i(s_axil_bresp_o),
    .reads_o(unused_check_regs_r), .writes_o(unused_check_regs_w)
  );
@CHECKS@`endif
endmodule
)";

constexpr const char* kReadCheck = R"(  logic [@LGOUT@:0] unused_check_@S@_r;
  logic [0:0] unused_check_@S@_w;
  dg_axi4_check #(.AddrW(AddrW), .DataW(BeatBytes * 8), .IdW(IdW), .MaxReads(@OUT@), .MaxWrites(1), .HasWrite(1'b0)) u_check_@S@ (
    .clk_i(clk_i), .rst_ni(rst_ni), .idle_i(irq_o),
    .arvalid_i(m_axi_@S@_arvalid_o), .arready_i(m_axi_@S@_arready_i), .arid_i(m_axi_@S@_arid_o),
    .araddr_i(m_axi_@S@_araddr_o), .arlen_i(m_axi_@S@_arlen_o), .arsize_i(m_axi_@S@_arsize_o),
    .arburst_i(m_axi_@S@_arburst_o), .arcache_i(m_axi_@S@_arcache_o), .arprot_i(m_axi_@S@_arprot_o),
    .rvalid_i(m_axi_@S@_rvalid_i), .rready_i(m_axi_@S@_rready_o), .rid_i(m_axi_@S@_rid_i), .rdata_i(m_axi_@S@_rdata_i),
    .rresp_i(m_axi_@S@_rresp_i), .rlast_i(m_axi_@S@_rlast_i),
    .awvalid_i(1'b0), .awready_i(1'b0), .awid_i('0), .awaddr_i('0), .awlen_i(8'd0), .awsize_i(3'd0),
    .awburst_i(2'd0), .awcache_i(4'd0), .awprot_i(3'd0), .wvalid_i(1'b0), .wready_i(1'b0), .wdata_i('0),
    .wstrb_i('0), .wlast_i(1'b0), .bvalid_i(1'b0), .bready_i(1'b0), .bid_i('0), .bresp_i(2'd0),
    .reads_o(unused_check_@S@_r), .writes_o(unused_check_@S@_w)
  );
)";

constexpr const char* kWriteCheck = R"(  logic [0:0] unused_check_c_r;
  logic [@LGOUT@:0] unused_check_c_w;
  dg_axi4_check #(.AddrW(AddrW), .DataW(BeatBytes * 8), .IdW(IdW), .MaxReads(1), .MaxWrites(@OUT@), .HasRead(1'b0), .DataLeads(1'b0)) u_check_c (
    .clk_i(clk_i), .rst_ni(rst_ni), .idle_i(irq_o),
    .arvalid_i(1'b0), .arready_i(1'b0), .arid_i('0), .araddr_i('0), .arlen_i(8'd0), .arsize_i(3'd0),
    .arburst_i(2'd0), .arcache_i(4'd0), .arprot_i(3'd0), .rvalid_i(1'b0), .rready_i(1'b0), .rid_i('0),
    .rdata_i('0), .rresp_i(2'd0), .rlast_i(1'b0),
    .awvalid_i(m_axi_c_awvalid_o), .awready_i(m_axi_c_awready_i), .awid_i(m_axi_c_awid_o),
    .awaddr_i(m_axi_c_awaddr_o), .awlen_i(m_axi_c_awlen_o), .awsize_i(m_axi_c_awsize_o),
    .awburst_i(m_axi_c_awburst_o), .awcache_i(m_axi_c_awcache_o), .awprot_i(m_axi_c_awprot_o),
    .wvalid_i(m_axi_c_wvalid_o), .wready_i(m_axi_c_wready_i), .wdata_i(m_axi_c_wdata_o), .wstrb_i(m_axi_c_wstrb_o),
    .wlast_i(m_axi_c_wlast_o), .bvalid_i(m_axi_c_bvalid_i), .bready_i(m_axi_c_bready_o), .bid_i(m_axi_c_bid_i),
    .bresp_i(m_axi_c_bresp_i), .reads_o(unused_check_c_r), .writes_o(unused_check_c_w)
  );
)";

constexpr const char* kReadPorts = R"(  // AXI4 master @S@: reads of @NAME@
  output logic                 m_axi_@S@_arvalid_o,
  input  logic                 m_axi_@S@_arready_i,
  output logic [@IDW1@:0]         m_axi_@S@_arid_o,
  output logic [@ADDRW1@:0]        m_axi_@S@_araddr_o,
  output logic [7:0]           m_axi_@S@_arlen_o,
  output logic [2:0]           m_axi_@S@_arsize_o,
  output logic [1:0]           m_axi_@S@_arburst_o,
  output logic [3:0]           m_axi_@S@_arcache_o,
  output logic [2:0]           m_axi_@S@_arprot_o,
  input  logic                 m_axi_@S@_rvalid_i,
  output logic                 m_axi_@S@_rready_o,
  input  logic [@IDW1@:0]         m_axi_@S@_rid_i,
  input  logic [@BBITS1@:0]       m_axi_@S@_rdata_i,
  input  logic [1:0]           m_axi_@S@_rresp_i,
  input  logic                 m_axi_@S@_rlast_i@SEP@
)";

constexpr const char* kWritePorts = R"(  // AXI4 master c: writes of C
  output logic                 m_axi_c_awvalid_o,
  input  logic                 m_axi_c_awready_i,
  output logic [@IDW1@:0]         m_axi_c_awid_o,
  output logic [@ADDRW1@:0]        m_axi_c_awaddr_o,
  output logic [7:0]           m_axi_c_awlen_o,
  output logic [2:0]           m_axi_c_awsize_o,
  output logic [1:0]           m_axi_c_awburst_o,
  output logic [3:0]           m_axi_c_awcache_o,
  output logic [2:0]           m_axi_c_awprot_o,
  output logic                 m_axi_c_wvalid_o,
  input  logic                 m_axi_c_wready_i,
  output logic [@BBITS1@:0]       m_axi_c_wdata_o,
  output logic [@STRB1@:0]        m_axi_c_wstrb_o,
  output logic                 m_axi_c_wlast_o,
  input  logic                 m_axi_c_bvalid_i,
  output logic                 m_axi_c_bready_o,
  input  logic [@IDW1@:0]         m_axi_c_bid_i,
  input  logic [1:0]           m_axi_c_bresp_i@SEP@
)";

constexpr const char* kReadMaster =
    R"(  // ---- AXI4 master @S@ ----------------------------------------------------------------------
  logic                 @S@_ar_valid, @S@_ar_ready, @S@_r_valid, @S@_r_ready, @S@_idle;
  logic [AddrW-1:0]     @S@_ar_addr;
  logic [8:0]           @S@_ar_len;
  logic [@BBITS1@:0]       @S@_r_data;
  logic [1:0]           @S@_error;
  logic [@LGOUT@:0]           @S@_outstanding;
  dg_axi_rd #(.AddrW(AddrW), .IdW(IdW), .Id(2'd@ID@), .BeatBytes(BeatBytes), .LgOut(@LGOUT@)) u_axi_@S@ (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .start_i   (run_start),
    .ar_valid_i(@S@_ar_valid),
    .ar_ready_o(@S@_ar_ready),
    .ar_addr_i (@S@_ar_addr),
    .ar_len_i  (@S@_ar_len),
    .r_valid_o (@S@_r_valid),
    .r_ready_i (@S@_r_ready),
    .r_data_o  (@S@_r_data),
    .arvalid_o (m_axi_@S@_arvalid_o),
    .arready_i (m_axi_@S@_arready_i),
    .arid_o    (m_axi_@S@_arid_o),
    .araddr_o  (m_axi_@S@_araddr_o),
    .arlen_o   (m_axi_@S@_arlen_o),
    .arsize_o  (m_axi_@S@_arsize_o),
    .arburst_o (m_axi_@S@_arburst_o),
    .arcache_o (m_axi_@S@_arcache_o),
    .arprot_o  (m_axi_@S@_arprot_o),
    .rvalid_i  (m_axi_@S@_rvalid_i),
    .rready_o  (m_axi_@S@_rready_o),
    .rid_i     (m_axi_@S@_rid_i),
    .rdata_i   (m_axi_@S@_rdata_i),
    .rresp_i   (m_axi_@S@_rresp_i),
    .rlast_i   (m_axi_@S@_rlast_i),
    .error_o   (@S@_error),
    .idle_o    (@S@_idle),
    .outstanding_o(@S@_outstanding)
  );
  logic unused_@S@_outstanding;
  assign unused_@S@_outstanding = ^@S@_outstanding;
)";

constexpr const char* kWriteMaster =
    R"(  // ---- AXI4 master c ----------------------------------------------------------------------
  logic                 c_aw_valid, c_aw_ready, c_w_valid, c_w_ready, c_w_last, c_idle;
  logic [AddrW-1:0]     c_aw_addr;
  logic [8:0]           c_aw_len;
  logic [@BBITS1@:0]       c_w_data;
@CSTRBDECL@  logic [1:0]           c_error;
  logic [@LGOUT@:0]           c_outstanding;
  dg_axi_wr #(.AddrW(AddrW), .IdW(IdW), .Id(2'd@ID@), .BeatBytes(BeatBytes), .LgOut(@LGOUT@)) u_axi_c (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .start_i   (run_start),
    .aw_valid_i(c_aw_valid),
    .aw_ready_o(c_aw_ready),
    .aw_addr_i (c_aw_addr),
    .aw_len_i  (c_aw_len),
    .w_valid_i (c_w_valid),
    .w_ready_o (c_w_ready),
    .w_data_i  (c_w_data),
    .w_strb_i  (@CSTRBIN@),
    .w_last_i  (c_w_last),
    .awvalid_o (m_axi_c_awvalid_o),
    .awready_i (m_axi_c_awready_i),
    .awid_o    (m_axi_c_awid_o),
    .awaddr_o  (m_axi_c_awaddr_o),
    .awlen_o   (m_axi_c_awlen_o),
    .awsize_o  (m_axi_c_awsize_o),
    .awburst_o (m_axi_c_awburst_o),
    .awcache_o (m_axi_c_awcache_o),
    .awprot_o  (m_axi_c_awprot_o),
    .wvalid_o  (m_axi_c_wvalid_o),
    .wready_i  (m_axi_c_wready_i),
    .wdata_o   (m_axi_c_wdata_o),
    .wstrb_o   (m_axi_c_wstrb_o),
    .wlast_o   (m_axi_c_wlast_o),
    .bvalid_i  (m_axi_c_bvalid_i),
    .bready_o  (m_axi_c_bready_o),
    .bid_i     (m_axi_c_bid_i),
    .bresp_i   (m_axi_c_bresp_i),
    .error_o   (c_error),
    .idle_o    (c_idle),
    .outstanding_o(c_outstanding)
  );
  logic unused_c_outstanding;
  assign unused_c_outstanding = ^c_outstanding;
)";

}  // namespace

namespace {

// The ERROR field's width (ERRW, ERRW1) and each code (E_<NAME>), from the register description.
std::map<std::string, std::string> error_code_values() {
  constexpr auto err_field = npu_regs::field("ERROR", "CODE");
  std::map<std::string, std::string> v = {{"ERRW", std::to_string(err_field.width)},
                                          {"ERRW1", std::to_string(err_field.width - 1)}};
  for (const auto& e : npu_regs::kErrorCodes) v[fmt::format("E_{}", e.name)] = std::to_string(e.code);
  return v;
}

// The batch loop's text in the core (BATCHDOC, BATCH_*, A_RUN, B_RUN, C_RUN): for a plan of
// batch > 1, BATCH matrices a START, each run by the same AGUs, DMA and engine from its own bases
// (the AGUs take the running matrix's addresses, a stride on from the last); a plan of batch 1
// runs one matrix a START, as before.
std::map<std::string, std::string> batch_text(std::int64_t batch) {
  if (batch <= 1)
    return {{"BATCHDOC", ""},
            {"BATCH_DECL", ""},
            {"BATCH_CHECK", ""},
            {"BATCH_START", "  assign start       = launch;\n"},
            {"BATCH_RESET", ""},
            {"BATCH_PULSE", ""},
            {"BATCH_LAUNCH", ""},
            {"BATCH_NOT_NEXT", ""},
            {"BATCH_END", "          running_q <= 1'b0;\n          done_q <= 1'b1;\n"},
            {"A_RUN", "@A_BASE@"},
            {"B_RUN", "@B_BASE@"},
            {"C_RUN", "@C_BASE@"}};
  std::map<std::string, std::string> v = {
      {"BATCHDOC",
       fmt::format("// Batches: one START computes BATCH matrices (1 to {}): matrix b of A, B and C starts b times\n"
                   "// A_STRIDE, B_STRIDE or C_STRIDE bytes after the operand's base (strides are whole bus beats,\n"
                   "// else BASE_ALIGN; the last matrix must fit the address width, else BASE_RANGE). The matrices\n"
                   "// run one after the other, each from an empty pipeline; CYCLES counts them all, DONE rises\n"
                   "// after the last, and a bus error ends the batch after the matrix it hit.\n"
                   "//\n",
                   batch)},
      {"BATCH_DECL",
       "  // The batch loop: BATCH and the strides as written, the running matrix, its offsets from the\n"
       "  // bases, the bases as written and the last matrix's (one bit wider: past the address space).\n"
       "  logic [31:0] batch_q, a_stride_q, b_stride_q, c_stride_q, bidx_q;\n"
       "  logic        next_q;  // the next matrix of the batch starts\n"
       "  logic [@ADW1@:0] a_off_q, b_off_q, c_off_q, a_base0, b_base0, c_base0;\n"
       "  logic [@ADW@:0] a_base_last, b_base_last, c_base_last;\n"
       "  assign a_base0 = @A_BASE@;\n"
       "  assign b_base0 = @B_BASE@;\n"
       "  assign c_base0 = @C_BASE@;\n"
       "  assign a_base_last = {1'b0, a_base0} + @ADWP@'(48'(batch_q[15:0] - 16'd1) * 48'(a_stride_q));\n"
       "  assign b_base_last = {1'b0, b_base0} + @ADWP@'(48'(batch_q[15:0] - 16'd1) * 48'(b_stride_q));\n"
       "  assign c_base_last = {1'b0, c_base0} + @ADWP@'(48'(batch_q[15:0] - 16'd1) * 48'(c_stride_q));\n"},
      {"BATCH_CHECK",
       fmt::format("    else if (batch_q == 32'd0 || batch_q > 32'd{}) check = @ERRW@'d@E_BATCH@;\n", batch)},
      {"BATCH_START", "  assign start       = launch || next_q;  // a matrix starts: the batch's first, or the next\n"},
      {"BATCH_RESET",
       "      batch_q <= 32'd1;\n      a_stride_q <= '0;\n      b_stride_q <= '0;\n      c_stride_q <= '0;\n"
       "      bidx_q <= '0;\n      next_q <= 1'b0;\n      a_off_q <= '0;\n      b_off_q <= '0;\n      c_off_q <= "
       "'0;\n"},
      {"BATCH_PULSE", "      next_q <= 1'b0;\n"},
      {"BATCH_LAUNCH",
       "        bidx_q <= '0;\n        a_off_q <= '0;\n        b_off_q <= '0;\n        c_off_q <= '0;\n"},
      {"BATCH_NOT_NEXT", "!next_q && "},
      {"BATCH_END",
       "          if (bidx_q + 32'd1 < batch_q && error_q == @ERRW@'d@E_NONE@ && bus_error_i == @ERRW@'d@E_NONE@) "
       "begin\n"
       "            bidx_q <= bidx_q + 32'd1;\n"
       "            a_off_q <= a_off_q + @ADW@'(a_stride_q);\n"
       "            b_off_q <= b_off_q + @ADW@'(b_stride_q);\n"
       "            c_off_q <= c_off_q + @ADW@'(c_stride_q);\n"
       "            next_q <= 1'b1;\n"
       "          end else begin\n"
       "            running_q <= 1'b0;\n"
       "            done_q <= 1'b1;\n"
       "          end\n"},
      {"A_RUN", "a_base0 + a_off_q"},
      {"B_RUN", "b_base0 + b_off_q"},
      {"C_RUN", "c_base0 + c_off_q"}};
  return v;
}

// The bus addresses in the core: what each *_BASE_HI register keeps (its read and write), the
// operands' addresses ({HI, LO} cut to the width) and the START check BASE_RANGE: no bit written
// above the width, and each operand's last byte below 2^width. HI_DECL, HI_RESET, <X>_BASE,
// <X>_HI_RD, <X>_HI_WR, RANGE_CHECK, ADW (the width), ADW1, ADWP.
std::map<std::string, std::string> address_values(const TopParams& tp) {
  const int aw = tp.addr_bits, hw = aw - 32;  // bits of the high half the bus uses
  DG_INTERNAL_ASSERT(aw >= 32 && aw <= 64, fmt::format("hdlgen: bus address width {}", aw));
  std::map<std::string, std::string> v = {
      {"ADW", std::to_string(aw)}, {"ADW1", std::to_string(aw - 1)}, {"ADWP", std::to_string(aw + 1)}};
  std::string decl, reset;
  if (hw > 0) {
    decl += fmt::format(
        "  logic [{}:0] a_base_hi_q, b_base_hi_q, c_base_hi_q;  // the high halves' bits below the width\n", hw - 1);
    reset += "      a_base_hi_q <= '0;\n      b_base_hi_q <= '0;\n      c_base_hi_q <= '0;\n";
  }
  if (aw < 64) {
    decl += "  logic        a_hi_over_q, b_hi_over_q, c_hi_over_q;  // a 1 was written above the width\n";
    reset += "      a_hi_over_q <= 1'b0;\n      b_hi_over_q <= 1'b0;\n      c_hi_over_q <= 1'b0;\n";
  }
  v["HI_DECL"] = decl;
  v["HI_RESET"] = reset;
  std::vector<std::string> range;
  for (const char* x : {"a", "b", "c"}) {
    const std::string X(1, static_cast<char>(x[0] - 'a' + 'A'));
    if (hw == 0) {
      v[X + "_BASE"] = fmt::format("{}_base_q", x);
      v[X + "_HI_RD"] = "32'd0";
      v[X + "_HI_WR"] = fmt::format("{}_hi_over_q <= reg_wdata_i != 32'd0", x);
    } else if (hw < 32) {
      v[X + "_BASE"] = fmt::format("{{{}_base_hi_q, {}_base_q}}", x, x);
      v[X + "_HI_RD"] = fmt::format("32'({}_base_hi_q)", x);
      v[X + "_HI_WR"] = fmt::format("{{{}_hi_over_q, {}_base_hi_q}} <= {{reg_wdata_i[31:{}] != '0, reg_wdata_i[{}:0]}}",
                                    x, x, hw, hw - 1);
    } else {
      v[X + "_BASE"] = fmt::format("{{{}_base_hi_q, {}_base_q}}", x, x);
      v[X + "_HI_RD"] = fmt::format("{}_base_hi_q", x);
      v[X + "_HI_WR"] = fmt::format("{}_base_hi_q <= reg_wdata_i", x);
    }
    if (aw < 64) range.push_back(fmt::format("{}_hi_over_q", x));
  }
  // A, B and C of a batch: the last matrix's base ({x}_base_last, a bit wider), else the base.
  const bool batch = tp.batch > 1;
  auto wide = [&](const char* x) {
    return batch ? fmt::format("{}_base_last", x) : fmt::format("{{1'b0, {}_base}}", x);
  };
  // An operand's last byte below 2^width: a comparison with a constant (the epilogue's operands
  // are one for the whole batch).
  auto last_byte = [&](const char* x, std::int64_t extent, bool batched) {
    const std::uint64_t limit = aw == 64 ? std::uint64_t{0} - static_cast<std::uint64_t>(extent)
                                         : (std::uint64_t{1} << aw) - static_cast<std::uint64_t>(extent);
    range.push_back(batched ? fmt::format("{}_base_last > {}'d{}", x, aw + 1, limit)
                            : fmt::format("{}_base > {}'d{}", x, aw, limit));
  };
  if (tp.ld_registers) {
    // The extents follow the leading dimensions (the core's a_extent, b_extent, c_extent: at most
    // 4 GiB, which the LD check before this one ensures).
    for (const char* x : {"a", "b", "c"})
      range.push_back(fmt::format("{} + {}'({}_extent) > {{1'b1, {}'d0}}", wide(x), aw + 1, x, aw));
  } else if (tp.k_fixed && tp.m_min == tp.m_max && tp.n_min == tp.n_max) {
    // Packed rows at the plan's M, N and K: each extent is a constant, so each check is a
    // comparison.
    last_byte(
        "a",
        tp.a_col_major ? tp.k_max * ((tp.m_max << tp.lg_bits[0]) >> 3) : tp.m_max * ((tp.k_max << tp.lg_bits[0]) >> 3),
        batch);
    last_byte("b", (tp.b_col_major ? tp.n_max : tp.k_max) * tp.row_bytes_b, batch);
    last_byte("c", tp.extent_c, batch);
  } else {
    // Packed rows at the run's M, N or K: rows times a row's bytes.
    auto dim = [&](bool fixed, std::int64_t v, const char* reg) {
      return fixed ? fmt::format("{}'d{}", aw + 1, v) : fmt::format("{}'({})", aw + 1, reg);
    };
    const std::string m = dim(tp.m_min == tp.m_max, tp.m_max, "m_q"), n = dim(tp.n_min == tp.n_max, tp.n_max, "n_q"),
                      k = dim(tp.k_fixed, tp.k_max, "k_q");
    for (const auto& [x, rows, cols, lg] :
         {tp.a_col_major ? std::tuple{"a", k, m, tp.lg_bits[0]} : std::tuple{"a", m, k, tp.lg_bits[0]},
          tp.b_col_major ? std::tuple{"b", n, k, tp.lg_bits[1]} : std::tuple{"b", k, n, tp.lg_bits[1]},
          std::tuple{"c", m, n, tp.lg_bits[2]}})
      range.push_back(fmt::format("{} + {} * (({} << {}) >> 3) > {{1'b1, {}'d0}}", wide(x), rows, cols, lg, aw));
  }
  // The fused epilogue's operands: bias (N int32), rq (N records of 8 bytes).
  std::string edecl, ereset, ealign;
  for (const auto& [x, feature, extent] :
       {std::tuple<const char*, unsigned, std::int64_t>{"bias", npu_regs::kFeatureBias, tp.n_max * 4},
        {"rq", npu_regs::kFeatureRq, tp.n_max * 8}}) {
    if ((tp.epi.features & feature) == 0) continue;
    std::string X = x;
    for (char& ch : X) ch = static_cast<char>(ch - 'a' + 'A');
    edecl += fmt::format("  logic [31:0] {}_base_q;\n", x);
    ereset += fmt::format("      {}_base_q <= '0;\n", x);
    ealign += fmt::format(" | {}_base_q", x);
    if (hw > 0) {
      edecl += fmt::format("  logic [{}:0] {}_base_hi_q;\n", hw - 1, x);
      ereset += fmt::format("      {}_base_hi_q <= '0;\n", x);
    }
    if (aw < 64) {
      edecl += fmt::format("  logic        {}_hi_over_q;\n", x);
      ereset += fmt::format("      {}_hi_over_q <= 1'b0;\n", x);
      range.push_back(fmt::format("{}_hi_over_q", x));
    }
    if (hw == 0) {
      edecl += fmt::format("  logic [{}:0] {}_base;\n  assign {}_base = {}_base_q;\n", aw - 1, x, x, x);
      v[X + "_HI_RD"] = "32'd0";
      v[X + "_HI_WR"] = fmt::format("{}_hi_over_q <= reg_wdata_i != 32'd0", x);
    } else if (hw < 32) {
      edecl +=
          fmt::format("  logic [{}:0] {}_base;\n  assign {}_base = {{{}_base_hi_q, {}_base_q}};\n", aw - 1, x, x, x, x);
      v[X + "_HI_RD"] = fmt::format("32'({}_base_hi_q)", x);
      v[X + "_HI_WR"] = fmt::format("{{{}_hi_over_q, {}_base_hi_q}} <= {{reg_wdata_i[31:{}] != '0, reg_wdata_i[{}:0]}}",
                                    x, x, hw, hw - 1);
    } else {
      edecl +=
          fmt::format("  logic [{}:0] {}_base;\n  assign {}_base = {{{}_base_hi_q, {}_base_q}};\n", aw - 1, x, x, x, x);
      v[X + "_HI_RD"] = fmt::format("{}_base_hi_q", x);
      v[X + "_HI_WR"] = fmt::format("{}_base_hi_q <= reg_wdata_i", x);
    }
    last_byte(x, extent, false);
  }
  v["EPI_DECL"] = edecl;
  v["EPI_RESET"] = ereset;
  v["EPI_ALIGN"] = batch ? ealign + " | a_stride_q | b_stride_q | c_stride_q" : ealign;
  v["RANGE_CHECK"] = fmt::format("{}", fmt::join(range, " ||\n             "));
  return v;
}

}  // namespace

namespace {
int log2_exact(std::int64_t v) {
  int l = 0;
  while ((std::int64_t{1} << l) < v) ++l;
  return l;
}
}  // namespace

std::vector<std::pair<std::string, std::int64_t>> engine_parameters(const TopParams& tp) {
  const EngineParams& e = tp.engine;
  std::vector<std::pair<std::string, std::int64_t>> p = {{"Rows", e.rows},
                                                         {"Cols", e.cols},
                                                         {"Banks", e.banks},
                                                         {"LgBanks", e.lg_banks},
                                                         {"WordBits", e.word_bits},
                                                         {"SpadAW", e.spad_aw},
                                                         {"EABits", e.a_bits},
                                                         {"EBBits", e.b_bits},
                                                         {"AW", e.aw},
                                                         {"BW", e.bw},
                                                         {"ASigned", e.a_signed},
                                                         {"BSigned", e.b_signed},
                                                         {"G", e.g},
                                                         {"TileM", e.tile_m},
                                                         {"TileN", e.tile_n},
                                                         {"TileK", e.tile_k},
                                                         {"DW", tp.dw},
                                                         {"AWords", e.a_words},
                                                         {"BWords", e.b_words},
                                                         {"ABase0", e.a_base0},
                                                         {"ABase1", e.a_base1},
                                                         {"BBase0", e.b_base0},
                                                         {"BBase1", e.b_base1},
                                                         {"BSeg", e.b_seg},
                                                         {"AccAW", e.acc_aw},
                                                         {"Shadow", e.shadow},
                                                         {"AccW", e.acc_bits},
                                                         {"BankXor", e.bank_xor},
                                                         {"BColMajor", e.b_col_major},
                                                         {"AColMajor", e.a_col_major},
                                                         {"ASeg", e.a_seg}};
  // The weight-stationary engine has no groups, shadow registers or column-major operands.
  if (e.weight_stationary)
    std::erase_if(p, [](const auto& v) {
      return v.first == "G" || v.first == "Shadow" || v.first == "BColMajor" || v.first == "AColMajor" ||
             v.first == "ASeg";
    });
  return p;
}

std::string top_module(const TopParams& tp) {
  std::string streams;
  for (const auto& s : tp.streams) {
    std::map<std::string, std::string> v = {{"S", s.id},
                                            {"LW", std::to_string(s.beats_bits)},
                                            {"LW1", std::to_string(s.beats_bits - 1)},
                                            {"TRW", std::to_string(s.row_bits)},
                                            {"TRW1", std::to_string(s.row_bits - 1)},
                                            {"TOP", tp.top},
                                            {"ROWWORDS", std::to_string(s.row_words)},
                                            {"LGQ", std::to_string(s.lg_queue)},
                                            {"BANKXOR", tp.engine.bank_xor ? ", .BankXor(1'b1)" : ""},
                                            {"LGOUT", std::to_string(s.lg_read_ahead)},
                                            {"LGLENS", std::to_string(s.lg_lens)},
                                            {"BASE0", std::to_string(s.base0)},
                                            {"BASE1", std::to_string(s.base1)}};
    // Byte rows: the request's offset in its first beat, the words it fills (or C: reads) and the
    // beats that cover it; the burst splitter fetches those beats from the aligned address, and a
    // realigner (dg_rd_align; C: dg_wr_align in dg_cout) moves the bytes between beats and words.
    const bool br = tp.byte_rows;
    const int lgb = std::max(1, log2_exact(tp.beat_bytes));
    // A and B fill scratchpad words; C's words are the accumulator rows' bus-wide lanes.
    const std::int64_t wbytes = s.id == "c" ? tp.beat_bytes : tp.engine.word_bits / 8;
    const int lgw = log2_exact(wbytes);
    const std::string ww = std::to_string(s.words_bits), ww1 = std::to_string(s.words_bits - 1);
    const std::string req = fmt::format(
        "  // Byte rows: the request's first byte in its beat, its words and the beats that cover it.\n"
        "  logic [{2}:0] @S@_req_off;\n"
        "  logic [{0}:0] @S@_req_words, @S@_req_nb;\n"
        "  assign @S@_req_off   = @S@_req_addr[{2}:0];\n"

        "  assign @S@_req_words = {1}'((32'(@S@_req_bytes) + 32'd{5}) >> {6});\n"
        "  assign @S@_req_nb    = {1}'((32'(@S@_req_off) + 32'(@S@_req_bytes) + 32'd{4}) >> {3});\n",
        ww1, ww, lgb - 1, lgb, tp.beat_bytes - 1, wbytes - 1, lgw);
    v["LEN"] = br ? "bytes" : "beats";
    v["FILLW"] = br ? ww : "@LW@";
    v["FILLBEATS"] = br ? "@S@_req_words" : "@S@_req_beats";
    v["SPLITADDR"] = br ? fmt::format("{{@S@_req_addr[@ADW1@:{0}], {0}'d0}}", lgb) : "@S@_req_addr";
    v["SPLITBEATS"] = br ? "@S@_req_nb" : "@S@_req_beats";
    v["RDALIGNREQ"] = br && s.id != "c" ? req : "";
    // C's strobes also need where the row ends in its last beat.
    v["WRALIGNREQ"] = br && s.id == "c" ? req + fmt::format(
                                                    "  logic [{0}:0] c_req_end;\n"
                                                    "  assign c_req_end = {1}'(32'(c_req_off) + 32'(c_req_bytes));\n",
                                                    lgb - 1, lgb)
                                        : "";
    v["FILLRV"] = br ? "@S@_w_valid" : "@S@_r_valid_i";
    v["FILLRR"] = br ? "@S@_w_ready" : "@S@_r_ready_o";
    v["FILLRD"] = br ? "@S@_w_data" : "@S@_r_data_i";
    v["RDALIGN"] = !br ? ""
                       : fmt::format(
                             "  logic        @S@_w_valid, @S@_w_ready, @S@_align_full, @S@_align_idle;\n"
                             "  logic [WordBits-1:0] @S@_w_data;\n"
                             "  {} u_align_@S@ (\n"
                             "    .clk_i       (clk_i),\n"
                             "    .rst_ni      (rst_ni),\n"
                             "    .start_i     (start),\n"
                             "    .req_i       (@S@_req_valid && @S@_req_ready),\n"
                             "    .req_off_i   (@S@_req_off),\n"
                             "    .req_beats_i (@S@_req_nb),\n"
                             "    .req_words_i (@S@_req_words),\n"
                             "    .queue_full_o(@S@_align_full),\n"
                             "    .in_valid_i  (@S@_r_valid_i),\n"
                             "    .in_ready_o  (@S@_r_ready_o),\n"
                             "    .in_data_i   (@S@_r_data_i),\n"
                             "    .out_valid_o (@S@_w_valid),\n"
                             "    .out_ready_i (@S@_w_ready),\n"
                             "    .out_data_o  (@S@_w_data),\n"
                             "    .idle_o      (@S@_align_idle)\n"
                             "  );\n"
                             "  // (Its queue pops no later than the fill's, which is as deep: never full first.)\n"
                             "  logic unused_@S@_align;\n"
                             "  assign unused_@S@_align = ^{{@S@_align_full, @S@_align_idle}};\n",
                             // A scratchpad word other than the beat: the bytes regrouped (dg_rd_gear).
                             tp.engine.word_bits == 8 * tp.beat_bytes
                                 ? fmt::format("dg_rd_align #(.BusBits(WordBits), .LenW({}), .LgQueue(@LGQ@))", ww)
                                 : fmt::format("dg_rd_gear #(.BusBits({}), .WordBits(WordBits), .LenW({}), "
                                               ".LgQueue(@LGQ@))",
                                               8 * tp.beat_bytes, ww));
    v["COUTALIGN"] = br ? fmt::format(", .Align(1'b1), .LenW({})", ww) : "";
    v["COUTALIGNREQ"] =
        br ? "    .req_off_i    (c_req_off),\n    .req_end_i    (c_req_end),\n    .req_nb_i     (c_req_nb),\n"
           : "    .req_off_i    ('0),\n    .req_end_i    ('0),\n    .req_nb_i     ('0),\n";
    // (Without byte rows every strobe is set: the bus takes whole beats.)
    v["CSTRB"] = br ? "    .w_strb_o     (c_w_strb_o),\n" : "    .w_strb_o     (c_unused_strb),\n";
    v["CUNUSEDSTRB"] = br ? "" : fmt::format("  logic [{}:0] c_unused_strb;\n", tp.beat_bytes - 1);
    std::string text = subst(subst(s.id == "c" ? kWriteStream : kReadStream,
                                   {{"LDCONN", tp.ld_registers ? "    .ld_i       (@S@_ld),\n" : ""},
                                    {"LDCONNC", tp.ld_registers ? "    .ld_i       (c_ld),\n" : ""}},
                                   false),
                             v, false);
    text = subst(text, v, false);  // the placeholders the byte-row pieces above bring
    // With the epilogue's fetch, B's bursts and data pass through it (dg_epi_fetch).
    if (s.id == "b" && tp.epi.fetch())
      for (const auto& [from, to] : {std::pair<const char*, const char*>{"b_ar_valid_o", "bs_ar_valid"},
                                     {"b_ar_ready_i", "bs_ar_ready"},
                                     {"b_ar_addr_o", "bs_ar_addr"},
                                     {"b_ar_len_o", "bs_ar_len"},
                                     {"b_r_valid_i", "bs_r_valid"},
                                     {"b_r_ready_o", "bs_r_ready"},
                                     {"b_r_data_i", "bs_r_data"}})
        for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at))
          text.replace(at, std::string(from).size(), to);
    streams += text;
  }
  const EpiParams& ep = tp.epi;
  std::string epi;
  if (ep.fetch()) epi += kEpiFetch;
  if (ep.any()) epi += kEpilogue;
  const bool has_bias = (ep.features & npu_regs::kFeatureBias) != 0, has_rq = (ep.features & npu_regs::kFeatureRq) != 0;
  std::string doc;
  for (const auto& r : tp.registers)
    doc += fmt::format("//   0x{:03x} {:<9} {:<2}  {}\n", r.offset, r.name, r.access, r.meaning);
  const EngineParams& e = tp.engine;
  const auto [reg_writes, reg_reads] = register_decode(tp.epi.features | (tp.ld_registers ? npu_regs::kFeatureLd : 0u) |
                                                       (tp.batch > 1 ? npu_regs::kFeatureBatch : 0u));
  // The leading dimensions: the LDA, LDB and LDC registers and their start checks, or packed rows.
  const bool ldr = tp.ld_registers;
  const std::map<std::string, std::string> ld_text = {
      {"LDDOC",
       ldr ? "// Leading dimensions: row r of A, B or C starts r × LDA, LDB or LDC bytes after the operand's base\n"
             "// (0, the reset value, is packed: the row's own bytes), so that each may be a sub-matrix of a larger\n"
             "// row-major array. A leading dimension must be a whole number of bus beats, at least its row's\n"
             "// bytes, and keep the operand (its last row's end) within 4 GiB of its base, else START is refused\n"
             "// (LD); the bytes between C's rows are never written.\n"
             "//\n"
           : "// Rows are packed (the model's npu.ld_registers is false): row r of A, B or C starts r times the\n"
             "// row's bytes after the operand's base.\n"
             "//\n"},
      {"LDDECL",
       ldr ? "  // The leading dimensions as written (0: packed), the ones the run uses, the rows' bytes, and the\n"
             "  // operands' extents in bytes (the last row's end: (rows - 1) × ld + the row's bytes).\n"
             "  logic [31:0] lda_q, ldb_q, ldc_q;\n"
             "  logic [31:0] a_row, b_row, c_row, a_ld, b_ld, c_ld;\n"
             "  logic [63:0] a_extent, b_extent, c_extent;\n"
             "  assign a_row = (32'(@AROWELEMS@) << @LEA@) >> 3;\n"
             "  assign b_row = (32'(@BROWELEMS@) << @LEB@) >> 3;\n"
             "  assign c_row = (32'(n_q) << @LEC@) >> 3;\n"
             "  assign a_ld = lda_q != 32'd0 ? lda_q : a_row;\n"
             "  assign b_ld = ldb_q != 32'd0 ? ldb_q : b_row;\n"
             "  assign c_ld = ldc_q != 32'd0 ? ldc_q : c_row;\n"
             "  assign a_extent = @AROWS1@ * 64'(a_ld) + 64'(a_row);\n"
             "  assign b_extent = @BROWS1@ * 64'(b_ld) + 64'(b_row);\n"
             "  assign c_extent = @MROWS1@ * 64'(c_ld) + 64'(c_row);\n"
           : ""},
      {"LDCHECKDOC",
       ldr ? "  // START is refused (ERROR set) unless the configuration is inside the plan's ranges, every\n"
             "  // address, row and leading dimension is a whole number of @BEAT@-byte bus beats, every leading\n"
             "  // dimension holds its row and keeps its operand within 4 GiB (the AGUs' 32-bit offsets), and\n"
             "  // every operand lies below 2^@ADW@ (its base has no bit above the width, its last byte is below\n"
             "  // the end)."
           : "  // START is refused (ERROR set) unless the configuration is inside the plan's ranges and every\n"
             "  // address and row is a whole number of @BEAT@-byte bus beats, and every operand lies below\n"
             "  // 2^@ADW@ (its base has no bit above the width, its last byte is below the end)."},
      {"LDCHECK",
       ldr ? "    else if (@LDALIGN@a_ld < a_row || b_ld < b_row || c_ld < "
             "c_row ||\n"
             "             a_extent > 64'h1_0000_0000 || b_extent > 64'h1_0000_0000 || c_extent > 64'h1_0000_0000)\n"
             "      check = @ERRW@'d@E_LD@;\n"
           : ""},
      {"LDRESET", ldr ? "      lda_q <= '0;\n      ldb_q <= '0;\n      ldc_q <= '0;\n" : ""},
  };
  std::map<std::string, std::string> regs = {
      {"CTRL", fmt::format("{:03x}", npu_regs::reg("CTRL").offset)},
      {"START", std::to_string(npu_regs::field("CTRL", "START").lsb)},
  };
  regs.merge(error_code_values());
  regs.merge(address_values(tp));
  // The plan's compute engine: output stationary (dg_engine) or weight stationary (dg_engine_ws);
  // both speak the same scratchpad and accumulator interfaces.
  const std::string engine = [&] {
    // (one-bit parameters as 1'b0/1'b1; a line ends after each of `breaks`)
    static const std::set<std::string> bits = {"ASigned", "BSigned", "Shadow", "BankXor", "BColMajor", "AColMajor"};
    static const std::set<std::string> breaks = {"SpadAW", "G", "BSigned", "BWords", "AccAW"};
    std::string text = e.weight_stationary ? "  dg_engine_ws #(\n   " : "  dg_engine #(\n   ";
    const auto params = engine_parameters(tp);
    for (std::size_t i = 0; i < params.size(); ++i) {
      const auto& [name, value] = params[i];
      text += bits.count(name) ? fmt::format(" .{}(1'b{})", name, value) : fmt::format(" .{}({})", name, value);
      const bool line_end = breaks.count(name) && !(name == "BSigned" && !e.weight_stationary);
      if (i + 1 < params.size()) text += line_end ? ",\n   " : ",";
    }
    return text + "\n  )";
  }();
  std::map<std::string, std::string> first = {{"HEADER", tp.header},  {"REGDOC", doc},    {"STREAMS", streams},
                                              {"EPI", epi},           {"ENGINE", engine}, {"REGWRITES", reg_writes},
                                              {"REGREADS", reg_reads}};
  first.insert(ld_text.begin(), ld_text.end());
  // START's refusal of an M or N outside the plan's value or run-time range.
  auto outside = [](const char* x, char d, bool fixed) {
    return fixed ? fmt::format("{0} != @DW@'(@{1}MAX@)", x, d)
                 : fmt::format("{0} < @DW@'(@{1}MIN@) || {0} > @DW@'(@{1}MAX@)", x, d);
  };
  first.merge(batch_text(tp.batch));
  first["MCHECK"] = outside("m_q", 'M', tp.m_min == tp.m_max);
  first["NCHECK"] = outside("n_q", 'N', tp.n_min == tp.n_max);
  return subst(
      subst(subst(kTop, first, false), regs, false),
      {{"TOP", tp.top},
       {"BFIRST", e.b_first ? "1'b1" : "1'b0"},
       {"ID", fmt::format("{:08x}", tp.id)},
       {"BOUND", std::to_string(tp.cycle_bound)},
       {"DW", std::to_string(tp.dw)},
       {"DW1", std::to_string(tp.dw - 1)},
       {"MMAX", std::to_string(tp.m_max)},
       {"MROWS1", tp.m_min == tp.m_max ? fmt::format("64'd{}", tp.m_max - 1) : "(64'(m_q) - 64'd1)"},
       {"MMIN", std::to_string(tp.m_min)},
       // B's rows: K, or N when B is column-major.
       {"BROWS1", tp.b_col_major ? (tp.n_min == tp.n_max ? fmt::format("64'd{}", tp.n_max - 1) : "(64'(n_q) - 64'd1)")
                  : tp.k_fixed   ? fmt::format("64'd{}", tp.k_max - 1)
                                 : "(64'(k_q) - 64'd1)"},
       {"BROWELEMS", tp.b_col_major ? "k_q" : "n_q"},
       // A's rows: M, or K when A is column-major (its rows are then M elements, M fixed).
       {"AROWS1", !tp.a_col_major ? (tp.m_min == tp.m_max ? fmt::format("64'd{}", tp.m_max - 1) : "(64'(m_q) - 64'd1)")
                  : tp.k_fixed    ? fmt::format("64'd{}", tp.k_max - 1)
                                  : "(64'(k_q) - 64'd1)"},
       {"AROWELEMS", tp.a_col_major ? "m_q" : "k_q"},
       {"BCOL", std::string(e.b_col_major ? ", .BColMajor(1'b1)" : "") +
                    (e.a_col_major ? fmt::format(", .AColMajor(1'b1), .ASeg({})", e.a_seg) : "")},
       {"NMAX", std::to_string(tp.n_max)},
       {"NMIN", std::to_string(tp.n_min)},
       {"KMIN", std::to_string(tp.k_min)},
       {"KMAX", std::to_string(tp.k_max)},
       {"BEAT", std::to_string(tp.beat_bytes)},
       {"BEAT1", std::to_string(tp.beat_bytes - 1)},
       {"MAXB", std::to_string(tp.max_burst)},
       {"BOUNDARY", std::to_string(tp.boundary)},
       {"LEA", std::to_string(tp.lg_bits[0])},
       {"LEB", std::to_string(tp.lg_bits[1])},
       {"LEC", std::to_string(tp.lg_bits[2])},
       {"BEATB1", std::to_string(8 * tp.beat_bytes - 1)},
       // Rows of whole beats, or with byte rows of whole bytes (4-bit elements in pairs).
       {"ROWB1", std::to_string(tp.byte_rows ? 7 : 8 * tp.beat_bytes - 1)},
       {"LDALIGN", tp.byte_rows ? "" : fmt::format("((a_ld | b_ld | c_ld) & 32'd{}) != 32'd0 || ", tp.beat_bytes - 1)},
       {"CSTRBPORT", tp.byte_rows ? fmt::format("  output logic [{}:0] c_w_strb_o,\n", tp.beat_bytes - 1) : ""},
       {"NB", std::to_string(e.banks)},
       // (Where the line breaks in the comment.)
       {"BANKOF", e.bank_xor ? fmt::format("(r mod {0}) XOR\n// ((r / {0}) mod {0})", e.banks)
                             : fmt::format("r mod\n// {}", e.banks)},
       {"BANKXOR", e.bank_xor ? ", .BankXor(1'b1)" : ""},
       {"LGNB", std::to_string(e.lg_banks)},
       {"SPROWS", std::to_string(e.spad_rows)},
       {"SPAW", std::to_string(e.spad_aw)},
       {"WBITS", std::to_string(e.word_bits)},
       {"WBITS1", std::to_string(e.word_bits - 1)},
       {"BBITS", std::to_string(8 * tp.beat_bytes)},
       {"BBITS1", std::to_string(8 * tp.beat_bytes - 1)},
       {"PR", std::to_string(e.rows)},
       {"PC", std::to_string(e.cols)},
       {"ACCAW", std::to_string(e.acc_aw)},
       {"EA", std::to_string(e.a_bits)},
       {"EB", std::to_string(e.b_bits)},
       {"AW", std::to_string(e.aw)},
       {"BW", std::to_string(e.bw)},
       {"AS", e.a_signed ? "1" : "0"},
       {"BS", e.b_signed ? "1" : "0"},
       {"G", std::to_string(e.g)},
       {"TM", std::to_string(e.tile_m)},
       {"TN", std::to_string(e.tile_n)},
       {"TK", std::to_string(e.tile_k)},
       {"AWORDS", std::to_string(e.a_words)},
       {"BWORDS", std::to_string(e.b_words)},
       {"ABASE0", std::to_string(e.a_base0)},
       {"ABASE1", std::to_string(e.a_base1)},
       {"BBASE0", std::to_string(e.b_base0)},
       {"BBASE1", std::to_string(e.b_base1)},
       {"BSEG", std::to_string(e.b_seg)},
       {"SHADOW", e.shadow ? "1" : "0"},
       {"BPA", std::to_string(e.beats_per_acc_row)},
       {"ACCW", std::to_string(e.acc_bits)},
       {"CW", std::to_string(e.c_bits)},
       {"NNJ", std::to_string(e.tile_n / e.cols)},
       {"CFULL", ep.fetch() ? "acc_full_q & {2{epi_ready}}" : "acc_full_q"},
       {"CRDATA", ep.any() ? "epi_rdata" : "c_rbuf_q ? acc_rdata1 : acc_rdata0"},
       {"NTILES", std::to_string(ep.n_tiles)},
       {"HASBIAS", has_bias ? "1" : "0"},
       {"HASRQ", has_rq ? "1" : "0"},
       {"RELU", ep.relu ? "1" : "0"},
       {"OUTBITS", std::to_string(ep.out_bits)},
       {"BIASBEATS", std::to_string(std::max<std::int64_t>(1, ep.bias_beats))},
       {"RQBEATS", std::to_string(std::max<std::int64_t>(1, ep.rq_beats))},
       {"LGROUTE", std::to_string(ep.lg_route)},
       {"BIASBASE", has_bias ? "bias_base" : "'0"},
       {"RQBASE", has_rq ? "rq_base" : "'0"},
       {"EBIAS", has_bias ? "epi_bias" : "'0"},
       {"ERQ", has_rq ? "epi_rq" : "'0"}});
}

std::string axi_top_module(const TopParams& tp) {
  std::string ports, masters, checks;
  const char* names[] = {"A", "B"};
  for (std::size_t i = 0; i < tp.streams.size(); ++i) {
    const TopStream& s = tp.streams[i];
    const bool write = s.id == "c";
    std::map<std::string, std::string> v = {{"S", s.id},
                                            {"NAME", write ? "C" : names[i]},
                                            {"ID", std::to_string(i)},
                                            {"LGOUT", std::to_string(s.lg_out)},
                                            {"SEP", i + 1 < tp.streams.size() ? "," : ""},
                                            // Byte rows: C's strobes from the core; else every byte.
                                            {"CSTRBDECL", tp.byte_rows ? "  logic [BeatBytes-1:0] c_w_strb;\n" : ""},
                                            {"CSTRBIN", tp.byte_rows ? "c_w_strb" : "{BeatBytes{1'b1}}"}};
    ports += subst(write ? kWritePorts : kReadPorts, v, false);
    masters += subst(write ? kWriteMaster : kReadMaster, v, false);
    v["OUT"] = std::to_string(1 << s.lg_out);
    checks += subst(write ? kWriteCheck : kReadCheck, v, false);
  }
  const std::map<std::string, std::string> regs = error_code_values();
  std::map<std::string, std::string> v = {{"HEADER", tp.header},
                                          {"TOP", tp.top},
                                          {"ADDRW", std::to_string(tp.addr_bits)},
                                          {"ADDRW1", std::to_string(tp.addr_bits - 1)},
                                          {"IDW", "2"},
                                          {"IDW1", "1"},
                                          {"ID_A", "0"},
                                          {"ID_B", "1"},
                                          {"ID_C", "2"},
                                          {"BEAT", std::to_string(tp.beat_bytes)},
                                          {"STRB1", std::to_string(tp.beat_bytes - 1)},
                                          {"WBITS", std::to_string(tp.engine.word_bits)},
                                          {"WBITS1", std::to_string(tp.engine.word_bits - 1)},
                                          {"BBITS", std::to_string(8 * tp.beat_bytes)},
                                          {"BBITS1", std::to_string(8 * tp.beat_bytes - 1)},
                                          {"MAXB", std::to_string(tp.max_burst)},
                                          {"BOUNDARY", std::to_string(tp.boundary)}};
  for (std::size_t i = 0; i < tp.streams.size(); ++i)
    v[fmt::format("OUT_{}", i == 0 ? "A" : i == 1 ? "B" : "C")] = std::to_string(1 << tp.streams[i].lg_out);
  v["CSTRBCONN"] = tp.byte_rows ? "    .c_w_strb_o  (c_w_strb),\n" : "";
  return subst(subst(subst(kShell, {{"PORTS", ports}, {"MASTERS", masters}, {"CHECKS", checks}}, false), regs, false),
               v, false);
}

std::vector<Register> top_registers(unsigned features) {
  std::vector<Register> out;
  for (const auto& r : npu_regs::kRegisters) {
    if (r.feature != 0 && (r.feature & features) == 0) continue;
    std::string meaning = r.desc;
    for (std::uint8_t i = 0; i < r.field_count; ++i) {
      const auto& f = r.fields[i];
      meaning += fmt::format(
          "{} {} {}", i == 0 ? ";" : ",",
          f.width == 1 ? fmt::format("bit {}", f.lsb) : fmt::format("bits {}:{}", f.lsb + f.width - 1, f.lsb), f.name);
    }
    if (same_name(r.name, "ERROR")) {
      meaning += ":";
      for (const auto& e : npu_regs::kErrorCodes)
        meaning += fmt::format(" {} {}{}", e.code, e.name, e.code + 1 < npu_regs::kErrorCodeCount ? "," : "");
    }
    out.push_back({r.name, r.offset,
                   r.access == npu_regs::kRO   ? "ro"
                   : r.access == npu_regs::kWO ? "wo"
                                               : "rw",
                   meaning});
  }
  return out;
}

}  // namespace dg::hdlgen
