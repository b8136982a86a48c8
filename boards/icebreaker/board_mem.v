// board_mem: the iCEBreaker's 128 KiB memory, the UP5K's four 16K x 16 SB_SPRAM256KA as 32K
// words of 32 bits (two side by side for the low and high half-words, two such pairs one above
// the other), shared by the NPU's A and B read bursts, its C write bursts and single-word
// accesses of the host bridge through one arbiter.
//
// The arbiter grants one burst (or one host word) at a time, round robin over A, B, C and host.
// A granted read burst issues one SPRAM read per cycle into a two-entry buffer that drives the
// stream's r channel (full rate while r_ready_i stays high); a granted write burst takes one beat
// per cycle. Byte addresses are word addresses times four; their bits above 16 are ignored.
// err_o pulses, one bit per fault, for the board's sticky error register:
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
  localparam logic [1:0] SelA = 2'd0, SelB = 2'd1, SelC = 2'd2, SelHost = 2'd3;

  // ---- the SPRAM array ------------------------------------------------------------------------
  logic        mem_cs, mem_we;
  logic [14:0] mem_addr;
  logic [31:0] mem_wdata, mem_rdata;
  logic [63:0] dout;       // the four SPRAMs' outputs, 16 bits each
  logic        bank_q;   // the pair the last read came from

  for (genvar i = 0; i < 4; i++) begin : gen_spram
    // i[1]: the pair (word address bit 14), i[0]: the half-word
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

  // ---- arbiter state ------------------------------------------------------------------------
  logic        busy_q;       // a burst is granted
  logic [1:0]  sel_q;        // whose
  logic [1:0]  last_q;       // the last grant, for round robin
  logic [14:0] addr_q;       // next word
  logic [8:0]  left_q;       // beats still to read or write
  logic        inflight_q;   // a read was issued last cycle: its data is on mem_rdata now
  logic        host_rd_q;    // ... and it was the host's
  logic [31:0] buf0_q, buf1_q;  // read buffer
  logic        wr_ptr_q, rd_ptr_q;
  logic [1:0]  count_q;

  logic [3:0] want;
  assign want = {host_req_i, c_aw_valid_i, b_ar_valid_i, a_ar_valid_i};

  // Round robin: the first requester after the last grant.
  logic       grant;
  logic [1:0] pick;
  always_comb begin
    grant = 1'b0;
    pick  = last_q;
    for (int unsigned i = 1; i <= 4; i++) begin
      if (!grant && want[2'(last_q + 2'(i))]) begin
        grant = 1'b1;
        pick  = 2'(last_q + 2'(i));
      end
    end
    if (busy_q || inflight_q) grant = 1'b0;
  end

  logic [31:0] new_addr;
  logic [8:0]  new_len;
  always_comb begin
    case (pick)
      SelA:    begin new_addr = a_ar_addr_i; new_len = a_ar_len_i; end
      SelB:    begin new_addr = b_ar_addr_i; new_len = b_ar_len_i; end
      SelC:    begin new_addr = c_aw_addr_i; new_len = c_aw_len_i; end
      default: begin new_addr = {15'd0, host_addr_i, 2'b00}; new_len = 9'd1; end
    endcase
  end

  assign a_ar_ready_o = grant && pick == SelA;
  assign b_ar_ready_o = grant && pick == SelB;
  assign c_aw_ready_o = grant && pick == SelC;
  assign host_gnt_o   = grant && pick == SelHost;

  // Read data: the buffer's head goes to the stream that owns the burst.
  logic reading, r_valid, r_ready, pop, issue;
  assign reading     = busy_q && (sel_q == SelA || sel_q == SelB);
  assign r_valid     = count_q != 2'd0;
  assign a_r_valid_o = r_valid && sel_q == SelA;
  assign b_r_valid_o = r_valid && sel_q == SelB;
  assign a_r_data_o  = rd_ptr_q ? buf1_q : buf0_q;
  assign b_r_data_o  = a_r_data_o;
  assign r_ready     = sel_q == SelA ? a_r_ready_i : b_r_ready_i;
  assign pop         = reading && r_valid && r_ready;
  // Issue a read only when the buffer has room for it once the read in flight has landed.
  assign issue = reading && left_q != 9'd0 &&
                 {1'b0, count_q} + {2'd0, inflight_q} <= {2'd0, pop} + 3'd1;

  logic writing;
  assign writing     = busy_q && sel_q == SelC;
  assign c_w_ready_o = writing && left_q != 9'd0;

  // The SPRAM port: the host word of a grant, a burst read, or a burst write.
  always_comb begin
    mem_cs    = 1'b0;
    mem_we    = 1'b0;
    mem_addr  = addr_q;
    mem_wdata = c_w_data_i;
    if (host_gnt_o) begin
      mem_cs    = 1'b1;
      mem_we    = host_we_i;
      mem_addr  = host_addr_i;
      mem_wdata = host_wdata_i;
    end else if (issue) begin
      mem_cs = 1'b1;
    end else if (c_w_valid_i && c_w_ready_o) begin
      mem_cs = 1'b1;
      mem_we = 1'b1;
    end
  end

  assign host_rvalid_o = host_rd_q;
  assign host_rdata_o  = mem_rdata;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q     <= 1'b0;
      sel_q      <= SelA;
      last_q     <= SelHost;
      addr_q     <= '0;
      left_q     <= '0;
      inflight_q <= 1'b0;
      host_rd_q  <= 1'b0;
      bank_q     <= 1'b0;
      buf0_q     <= '0;
      buf1_q     <= '0;
      wr_ptr_q   <= 1'b0;
      rd_ptr_q   <= 1'b0;
      count_q    <= 2'd0;
      err_o      <= 3'd0;
    end else begin
      err_o      <= 3'd0;
      inflight_q <= issue;
      host_rd_q  <= host_gnt_o && !host_we_i;
      if (mem_cs && !mem_we) bank_q <= mem_addr[14];
      if (grant) begin
        last_q <= pick;
        if (pick != SelHost) begin
          busy_q <= 1'b1;
          sel_q  <= pick;
          addr_q <= new_addr[16:2];
          left_q <= new_len;
          if (new_addr[31:17] != 15'd0 || new_addr[1:0] != 2'd0) err_o[0] <= 1'b1;
          if (new_len == 9'd0) err_o[1] <= 1'b1;
        end
      end
      if (issue || (c_w_valid_i && c_w_ready_o)) begin
        addr_q <= addr_q + 15'd1;
        left_q <= left_q - 9'd1;
      end
      if (c_w_valid_i && c_w_ready_o && c_w_last_i != (left_q == 9'd1)) err_o[2] <= 1'b1;
      // The read buffer: push what the SPRAM answered for a burst, pop what the stream took.
      if (inflight_q) begin
        if (wr_ptr_q) buf1_q <= mem_rdata;
        else buf0_q <= mem_rdata;
        wr_ptr_q <= !wr_ptr_q;
      end
      if (pop) rd_ptr_q <= !rd_ptr_q;
      count_q <= count_q + 2'(inflight_q) - 2'(pop);
      // A burst ends when its last beat is written, or read and taken by its stream.
      if (busy_q && left_q == 9'd0 && !inflight_q && count_q == 2'd0) busy_q <= 1'b0;
      if (busy_q && left_q == 9'd0 && !inflight_q && count_q == 2'd1 && pop) busy_q <= 1'b0;
    end
  end
endmodule
