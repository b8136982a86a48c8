// board_mem: the iCEBreaker's 128 KiB memory, the UP5K's four 16K x 16 SB_SPRAM256KA as 32K
// words of 32 bits (two side by side for the low and high half-words, two such pairs one above
// the other), shared by the NPU's A and B read bursts, its C write bursts and single-word
// accesses of the host bridge.
//
// Each stream has its own burst in progress (an address and the beats left), taken on its
// address handshake once the previous one is issued, so that no stream waits for another's
// burst to finish: the NPU may issue C's write address long before its data, or need B's data
// before it takes more of A's. Every cycle one beat uses the SPRAM, round robin over the streams
// that can go: an A or B read when that stream's two-entry read buffer has room, a C write when
// its data is valid, a host word. Byte addresses are word addresses times four; their bits above
// 16 are ignored. err_o pulses, one bit per fault, for the board's sticky error register:
//   [0] an NPU burst outside the 128 KiB or not word-aligned, [1] a burst of zero beats,
//   [2] c_w_last_i disagreeing with the C burst's length.
module board_mem (
  input  logic        clk_i,
  input  logic        rst_ni,
  // A and B read bursts (length in beats, 1..256), read data in burst order
  input  logic        a_ar_valid_i,
  output logic        a_ar_ready_o,
  input  logic [31:0] a_ar_addr_i,
  input  logic [8:0]  a_ar_len_i,
  output logic        a_r_valid_o,
  input  logic        a_r_ready_i,
  output logic [31:0] a_r_data_o,
  input  logic        b_ar_valid_i,
  output logic        b_ar_ready_o,
  input  logic [31:0] b_ar_addr_i,
  input  logic [8:0]  b_ar_len_i,
  output logic        b_r_valid_o,
  input  logic        b_r_ready_i,
  output logic [31:0] b_r_data_o,
  // C write bursts
  input  logic        c_aw_valid_i,
  output logic        c_aw_ready_o,
  input  logic [31:0] c_aw_addr_i,
  input  logic [8:0]  c_aw_len_i,
  input  logic        c_w_valid_i,
  output logic        c_w_ready_o,
  input  logic [31:0] c_w_data_i,
  input  logic        c_w_last_i,
  // host words: a request is held until host_gnt_o; read data follows with host_rvalid_o
  input  logic        host_req_i,
  input  logic        host_we_i,
  input  logic [14:0] host_addr_i,   // word address
  input  logic [31:0] host_wdata_i,
  output logic        host_gnt_o,
  output logic        host_rvalid_o,
  output logic [31:0] host_rdata_o,
  output logic [2:0]  err_o
);
  localparam int unsigned Streams = 4;
  localparam logic [1:0] SelA = 2'd0, SelB = 2'd1, SelC = 2'd2, SelHost = 2'd3;

  // ---- the SPRAM array ------------------------------------------------------------------------
  logic        mem_cs, mem_we;
  logic [14:0] mem_addr;
  logic [31:0] mem_wdata, mem_rdata;
  logic [63:0] dout;       // the four SPRAMs' outputs, 16 bits each
  logic        bank_q;     // the pair the last read came from

  for (genvar i = 0; i < 4; i++) begin : gen_spram
    // i / 2: the pair (word address bit 14), i % 2: the half-word
    SB_SPRAM256KA u_spram (
      .ADDRESS   (mem_addr[13:0]),
      .DATAIN    (mem_wdata[16*(i%2) +: 16]),
      .MASKWREN  (4'b1111),
      .WREN      (mem_we),
      .CHIPSELECT(mem_cs && mem_addr[14] == 1'(i / 2)),
      .CLOCK     (clk_i),
      .STANDBY   (1'b0),
      .SLEEP     (1'b0),
      .POWEROFF  (1'b1),
      .DATAOUT   (dout[16*i +: 16])
    );
  end
  assign mem_rdata = bank_q ? dout[63:32] : dout[31:0];

  // ---- bursts in progress: A, B, C ------------------------------------------------------------
  // Stream s (0 A, 1 B, 2 C) at bits [15*s +: 15] of addr_q, [9*s +: 9] of left_q, and so on.
  logic [44:0] addr_q;
  logic [26:0] left_q;
  logic [2:0]  ax_valid, ax_ready;
  logic [95:0] ax_addr;
  logic [26:0] ax_len;
  assign ax_valid = {c_aw_valid_i, b_ar_valid_i, a_ar_valid_i};
  assign ax_addr  = {c_aw_addr_i, b_ar_addr_i, a_ar_addr_i};
  assign ax_len   = {c_aw_len_i, b_ar_len_i, a_ar_len_i};
  for (genvar s = 0; s < 3; s++) begin : gen_ready
    assign ax_ready[s] = left_q[9*s +: 9] == 9'd0;
  end
  assign a_ar_ready_o = ax_ready[0];
  assign b_ar_ready_o = ax_ready[1];
  assign c_aw_ready_o = ax_ready[2];

  // ---- read buffers of A and B: two entries each ----------------------------------------------
  logic        rd_q;          // a read was issued last cycle: its data is on mem_rdata now ...
  logic [1:0]  owner_q;       // ... for this stream
  logic [127:0] buf_q;     // entry e of stream s at [32*(2*s+e) +: 32]
  logic [3:0]   count_q;   // stream s at [2*s +: 2]
  logic [1:0]   wr_ptr_q, rd_ptr_q, r_ready, r_valid, pop, push, room;
  assign r_ready = {b_r_ready_i, a_r_ready_i};
  for (genvar s = 0; s < 2; s++) begin : gen_rbuf
    assign r_valid[s] = count_q[2*s +: 2] != 2'd0;
    assign pop[s]     = r_valid[s] && r_ready[s];
    assign push[s]    = rd_q && owner_q == 2'(s);
    // Room for one more read once the one in flight has landed.
    assign room[s]    = {1'b0, count_q[2*s +: 2]} + {2'd0, push[s]} <= {2'd0, pop[s]} + 3'd1;
  end
  assign a_r_valid_o = r_valid[0];
  assign a_r_data_o  = rd_ptr_q[0] ? buf_q[63:32] : buf_q[31:0];
  assign b_r_valid_o = r_valid[1];
  assign b_r_data_o  = rd_ptr_q[1] ? buf_q[127:96] : buf_q[95:64];

  // ---- one beat per cycle on the SPRAM, round robin -------------------------------------------
  logic [Streams-1:0] want;
  assign want = {host_req_i,
                 !ax_ready[2] && c_w_valid_i,
                 !ax_ready[1] && room[1],
                 !ax_ready[0] && room[0]};

  logic       grant;
  logic [1:0] last_q, pick;
  always_comb begin
    grant = 1'b0;
    pick  = last_q;
    for (int unsigned i = 1; i <= Streams; i++) begin
      if (!grant && want[2'(last_q + 2'(i))]) begin
        grant = 1'b1;
        pick  = 2'(last_q + 2'(i));
      end
    end
  end

  assign c_w_ready_o   = grant && pick == SelC;
  assign host_gnt_o    = grant && pick == SelHost;
  assign host_rvalid_o = rd_q && owner_q == SelHost;
  assign host_rdata_o  = mem_rdata;

  always_comb begin
    mem_cs    = grant;
    mem_we    = 1'b0;
    mem_addr  = addr_q[14:0];
    mem_wdata = c_w_data_i;
    case (pick)
      SelA:    mem_addr = addr_q[14:0];
      SelB:    mem_addr = addr_q[29:15];
      SelC:    begin mem_addr = addr_q[44:30]; mem_we = 1'b1; end
      default: begin mem_addr = host_addr_i; mem_we = host_we_i; mem_wdata = host_wdata_i; end
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      addr_q   <= '0;
      left_q   <= '0;
      buf_q    <= '0;
      count_q  <= '0;
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
      rd_q    <= 1'b0;
      owner_q <= SelA;
      bank_q  <= 1'b0;
      last_q  <= SelHost;
      err_o   <= 3'd0;
    end else begin
      err_o   <= 3'd0;
      rd_q    <= mem_cs && !mem_we;
      owner_q <= pick;
      if (mem_cs && !mem_we) bank_q <= mem_addr[14];
      if (grant) last_q <= pick;
      for (int s = 0; s < 3; s++) begin
        if (ax_valid[s] && ax_ready[s]) begin
          addr_q[15*s +: 15] <= ax_addr[32*s+2 +: 15];
          left_q[9*s +: 9]   <= ax_len[9*s +: 9];
          if (ax_addr[32*s+17 +: 15] != 15'd0 || ax_addr[32*s +: 2] != 2'd0) err_o[0] <= 1'b1;
          if (ax_len[9*s +: 9] == 9'd0) err_o[1] <= 1'b1;
        end else if (grant && pick == 2'(s)) begin
          addr_q[15*s +: 15] <= addr_q[15*s +: 15] + 15'd1;
          left_q[9*s +: 9]   <= left_q[9*s +: 9] - 9'd1;
        end
      end
      if (c_w_ready_o && c_w_last_i != (left_q[26:18] == 9'd1)) err_o[2] <= 1'b1;
      for (int s = 0; s < 2; s++) begin
        if (push[s]) begin
          if (wr_ptr_q[s]) buf_q[32*(2*s+1) +: 32] <= mem_rdata;
          else buf_q[32*(2*s) +: 32] <= mem_rdata;
          wr_ptr_q[s] <= !wr_ptr_q[s];
        end
        if (pop[s]) rd_ptr_q[s] <= !rd_ptr_q[s];
        count_q[2*s +: 2] <= count_q[2*s +: 2] + 2'(push[s]) - 2'(pop[s]);
      end
    end
  end
endmodule
