// dg_axi4_check: an AXI4 protocol checker, bound to one AXI4 interface (a master and its slave).
// It is written from the rules of the AMBA AXI4 specification (ARM IHI 0022), not from the
// DeepGEMM masters it checks, and is not part of any design: co-simulation binds one to every
// master of a generated top, and the formal flow proves the masters against it. Each rule is a
// named wire, 1 while the rule holds; the names follow ARM's checker (ERRM_*: the master's rules,
// ERRS_*: the slave's).
//
//   handshakes  a VALID, once high, stays high until its READY (ERRM_ARVALID_STABLE, ...), and
//               the payload it carries does not change meanwhile (ERRM_AR_STABLE, ...);
//               no VALID during reset (ERRM_*VALID_RESET);
//   bursts      AxBURST is not the reserved value, AxSIZE is not wider than the data bus, an INCR
//               burst does not cross a 4 KB boundary, a WRAP burst is 2, 4, 8 or 16 beats from an
//               aligned address, a FIXED burst at most 16 (ERRM_AR_BURST, ERRM_AR_SIZE,
//               ERRM_AR_BOUNDARY, ERRM_AR_WRAP, ERRM_AR_FIXED; the same for AW);
//   read data   a beat only for an ID with a read outstanding, RLAST exactly on each burst's last
//               beat (ARLEN + 1 beats; per ID, in order), no EXOKAY without exclusive accesses
//               (ERRS_R_ID, ERRS_RLAST, ERRS_RRESP);
//   write data  WLAST exactly on the beat AWLEN + 1 of its burst, bursts in address order; write
//               data may come before its address (the rule is then checked when the address
//               comes) (ERRM_WLAST, ERRM_WLAST_EARLY); a master that declares its data never
//               leads (DataLeads = 0) is held to it (ERRM_W_LEAD);
//   responses   a write response only for a burst whose address and last data beat have both
//               been taken, with the ID of the oldest such burst of that ID, no EXOKAY (ERRS_B_ORDER,
//               ERRS_B_ID, ERRS_BRESP);
//   counts      at most MaxReads reads and MaxWrites writes outstanding (ERRM_AR_OUTSTANDING,
//               ERRM_AW_OUTSTANDING: the bounds the master declares), at most MaxWAhead write
//               addresses waiting for their data (ERRM_AW_AHEAD), nothing outstanding while
//               the master says it is idle (idle_i: ERRM_IDLE).
//
// Without FORMAL a broken rule prints "AXI4 protocol: ..." with $error and counts in errors_q. Under
// FORMAL every master rule is an assertion; the slave's are assumptions when SlaveAssumed is set
// (proving a master: any legal slave), else assertions too. The slave may answer reads of
// different IDs out of order and interleaved; the rules are checked per ID.
module dg_axi4_check #(
  parameter int AddrW       = 32,
  parameter int DataW       = 128,
  parameter int IdW         = 2,
  parameter int MaxReads    = 8,   // outstanding reads the master may have (a power of two)
  parameter int MaxWrites   = 8,   // outstanding writes
  parameter int MaxWAhead   = MaxWrites,  // write addresses waiting for their data, and bursts whose data leads
  parameter bit HasRead     = 1'b1,
  parameter bit HasWrite    = 1'b1,
  parameter bit DataLeads   = 1'b1,  // the master may send a burst's write data before its address
  /* verilator lint_off UNUSEDPARAM */
  parameter bit SlaveAssumed = 1'b0   // (formal only)
  /* verilator lint_on UNUSEDPARAM */
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               idle_i,       // the master says it is idle (e.g. its DONE)
  // read address
  input  logic               arvalid_i,
  input  logic               arready_i,
  input  logic [IdW-1:0]     arid_i,
  input  logic [AddrW-1:0]   araddr_i,
  input  logic [7:0]         arlen_i,
  input  logic [2:0]         arsize_i,
  input  logic [1:0]         arburst_i,
  input  logic [3:0]         arcache_i,
  input  logic [2:0]         arprot_i,
  // read data
  input  logic               rvalid_i,
  input  logic               rready_i,
  input  logic [IdW-1:0]     rid_i,
  input  logic [DataW-1:0]   rdata_i,
  input  logic [1:0]         rresp_i,
  input  logic               rlast_i,
  // write address
  input  logic               awvalid_i,
  input  logic               awready_i,
  input  logic [IdW-1:0]     awid_i,
  input  logic [AddrW-1:0]   awaddr_i,
  input  logic [7:0]         awlen_i,
  input  logic [2:0]         awsize_i,
  input  logic [1:0]         awburst_i,
  input  logic [3:0]         awcache_i,
  input  logic [2:0]         awprot_i,
  // write data
  input  logic               wvalid_i,
  input  logic               wready_i,
  input  logic [DataW-1:0]   wdata_i,
  input  logic [DataW/8-1:0] wstrb_i,
  input  logic               wlast_i,
  // write response
  input  logic               bvalid_i,
  input  logic               bready_i,
  input  logic [IdW-1:0]     bid_i,
  input  logic [1:0]         bresp_i,
  // what it counts, for the proofs that bind it (a master's own counts must agree)
  output logic [$clog2(MaxReads):0]  reads_o,    // reads outstanding, all IDs
  output logic [$clog2(MaxWrites):0] writes_o    // writes whose address was taken, response not yet
`ifdef FORMAL
  ,
  // its view of the write channels, for proofs that relate a master's own state to it
  output logic [8:0]             f_wa_count_o,  // addresses taken whose data is not all taken
  output logic [MaxWAhead*8-1:0] f_wa_lens_o,   // their AWLENs, by slot (the oldest in slot f_wa_head_o)
  output logic [7:0]             f_wa_head_o,
  output logic [7:0]             f_w_beat_o,    // beats taken of the burst being written
  output logic [8:0]             f_wd_count_o,  // bursts whose data came before their address
  output logic [8:0]             f_b_due_o      // bursts with address and last beat taken, no response yet (all IDs)
`endif
);
  localparam int NumIds = 1 << IdW;
  localparam int LgR    = MaxReads > 1 ? $clog2(MaxReads) : 1;
  localparam int LgW    = MaxWrites > 1 ? $clog2(MaxWrites) : 1;
  localparam int LgA    = MaxWAhead > 1 ? $clog2(MaxWAhead) : 1;
  localparam int LgData = $clog2(DataW / 8);
  localparam logic [1:0] Fixed = 2'b00, Incr = 2'b01, Wrap = 2'b10;

  // ---- the previous cycle, for the handshake rules -----------------------------------------
  logic past_q;  // a cycle out of reset has passed
  logic ar_wait_q, r_wait_q, aw_wait_q, w_wait_q, b_wait_q;  // VALID high and READY low last cycle
  logic [IdW+AddrW+8+3+2+4+3-1:0] ar_q, aw_q;
  logic [IdW+DataW+2+1-1:0]       r_q;
  logic [DataW+DataW/8+1-1:0]     w_q;
  logic [IdW+2-1:0]               b_q;
  logic [IdW+AddrW+8+3+2+4+3-1:0] ar_now, aw_now;
  logic [IdW+DataW+2+1-1:0]       r_now;
  logic [DataW+DataW/8+1-1:0]     w_now;
  logic [IdW+2-1:0]               b_now;
  assign ar_now = {arid_i, araddr_i, arlen_i, arsize_i, arburst_i, arcache_i, arprot_i};
  assign aw_now = {awid_i, awaddr_i, awlen_i, awsize_i, awburst_i, awcache_i, awprot_i};
  assign r_now  = {rid_i, rdata_i, rresp_i, rlast_i};
  assign w_now  = {wdata_i, wstrb_i, wlast_i};
  assign b_now  = {bid_i, bresp_i};

  logic ar_hs, r_hs, aw_hs, w_hs, b_hs;
  assign ar_hs = HasRead && arvalid_i && arready_i;
  assign r_hs  = HasRead && rvalid_i && rready_i;
  assign aw_hs = HasWrite && awvalid_i && awready_i;
  assign w_hs  = HasWrite && wvalid_i && wready_i;
  assign b_hs  = HasWrite && bvalid_i && bready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      past_q <= 1'b0;
      ar_wait_q <= 1'b0;
      r_wait_q <= 1'b0;
      aw_wait_q <= 1'b0;
      w_wait_q <= 1'b0;
      b_wait_q <= 1'b0;
    end else begin
      past_q <= 1'b1;
      ar_wait_q <= arvalid_i && !arready_i;
      r_wait_q <= rvalid_i && !rready_i;
      aw_wait_q <= awvalid_i && !awready_i;
      w_wait_q <= wvalid_i && !wready_i;
      b_wait_q <= bvalid_i && !bready_i;
    end
  end
  always_ff @(posedge clk_i) begin
    ar_q <= ar_now;
    aw_q <= aw_now;
    r_q <= r_now;
    w_q <= w_now;
    b_q <= b_now;
  end

  // ---- a burst's own rules ------------------------------------------------------------------
  // An INCR burst's bytes, from its address aligned to the transfer size, stay in one 4 KB page.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic burst_in_page(input logic [AddrW-1:0] addr, input logic [7:0] len,
                                         input logic [2:0] size);
    logic [13:0] first, span;
    first = 14'(addr[11:0]) & ~((14'd1 << size) - 14'd1);
    span = (14'(len) + 14'd1) << size;
    burst_in_page = first + span <= 14'd4096;
  endfunction
  function automatic logic wrap_ok(input logic [AddrW-1:0] addr, input logic [7:0] len, input logic [2:0] size);
    wrap_ok = (len == 8'd1 || len == 8'd3 || len == 8'd7 || len == 8'd15) &&
              (12'(addr[11:0]) & 12'((12'd1 << size) - 12'd1)) == 12'd0;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // ---- outstanding reads, per ID: their lengths in order, and beats taken of the oldest ------
  logic [LgR:0]         rd_count_q [NumIds];
  logic [LgR-1:0]       rd_head_q  [NumIds];
  logic [7:0]           rd_beat_q  [NumIds];
  logic [MaxReads*8-1:0] rd_len_q  [NumIds];
  logic [LgR+IdW:0]     rd_total;  // wide enough for every ID's count
  logic [7:0]           r_len;     // the length of the oldest read of rid_i
  logic                 r_known;   // rid_i has a read outstanding
  logic                 r_end;     // this beat ends that read
  always_comb begin
    rd_total = '0;
    for (int i = 0; i < NumIds; i++) rd_total = rd_total + (LgR+IdW+1)'(rd_count_q[i]);
  end
  assign r_known = rd_count_q[rid_i] != '0;
  assign r_len   = rd_len_q[rid_i][32'(rd_head_q[rid_i]) * 8 +: 8];
  assign r_end   = rd_beat_q[rid_i] == r_len;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int i = 0; i < NumIds; i++) begin
        rd_count_q[i] <= '0;
        rd_head_q[i] <= '0;
        rd_beat_q[i] <= '0;
        rd_len_q[i] <= '0;
      end
    end else begin
      if (ar_hs && rd_count_q[arid_i] != (LgR+1)'(MaxReads))
        rd_len_q[arid_i][32'(LgR'(rd_head_q[arid_i] + LgR'(rd_count_q[arid_i]))) * 8 +: 8] <= arlen_i;
      if (r_hs && r_known) begin
        if (r_end) begin
          rd_beat_q[rid_i] <= '0;
          rd_head_q[rid_i] <= rd_head_q[rid_i] + LgR'(1);
        end else begin
          rd_beat_q[rid_i] <= rd_beat_q[rid_i] + 8'd1;
        end
      end
      for (int i = 0; i < NumIds; i++)
        rd_count_q[i] <= rd_count_q[i] + (LgR+1)'(ar_hs && arid_i == IdW'(i) && rd_count_q[i] != (LgR+1)'(MaxReads))
                                       - (LgR+1)'(r_hs && r_known && r_end && rid_i == IdW'(i));
    end
  end

  // ---- writes: bursts whose address came first (their lengths, in order) or whose data came
  // first (their beats), the beats of the burst being written, and bursts awaiting a response ---
  logic [LgA:0]           wa_count_q, wd_count_q;   // addresses waiting for data; data bursts waiting for an address
  logic [LgA-1:0]         wa_head_q, wd_head_q;
  logic [MaxWAhead*8-1:0] wa_len_q, wd_len_q;
  logic [MaxWAhead*IdW-1:0] wa_id_q;
  logic [7:0]             w_beat_q;
  logic [LgW:0]           aw_out_q;                 // addresses taken, response not yet
  logic [NumIds*(LgW+1)-1:0] b_due_q;               // per ID: bursts with address and last beat taken, no response yet
  logic [7:0]             w_len;                    // the length of the burst being written, when known
  logic [7:0]             wd_head_len;
  logic                   aw_pairs;                 // this address pairs with data that came first
  logic                   w_pairs;                  // the current beat belongs to an address already taken
  logic [IdW-1:0]         w_id;                     // its ID
  // A beat belongs to an address already taken, or to one taken in this very cycle (when no
  // data that came first claims it).
  assign aw_pairs    = wd_count_q != '0;
  assign w_pairs     = wa_count_q != '0 || (aw_hs && !aw_pairs);
  assign w_len       = wa_count_q != '0 ? wa_len_q[32'(wa_head_q) * 8 +: 8] : awlen_i;
  assign w_id        = wa_count_q != '0 ? wa_id_q[32'(wa_head_q) * IdW +: IdW] : awid_i;
  assign wd_head_len = wd_len_q[32'(wd_head_q) * 8 +: 8];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wa_count_q <= '0;
      wd_count_q <= '0;
      wa_head_q <= '0;
      wd_head_q <= '0;
      wa_len_q <= '0;
      wd_len_q <= '0;
      wa_id_q <= '0;
      w_beat_q <= '0;
      aw_out_q <= '0;
      b_due_q <= '0;
    end else begin : b_update
      logic [LgA:0] wa_count, wd_count;
      logic [NumIds*(LgW+1)-1:0] b_due;
      wa_count = wa_count_q;
      wd_count = wd_count_q;
      b_due = b_due_q;
      // The address first: it pairs with the oldest burst of data that came before it, or waits.
      if (aw_hs) begin
        if (aw_pairs) begin
          wd_head_q <= wd_head_q + LgA'(1);
          wd_count = wd_count - (LgA+1)'(1);
          b_due[32'(awid_i) * (LgW+1) +: LgW+1] = b_due[32'(awid_i) * (LgW+1) +: LgW+1] + (LgW+1)'(1);
        end else if (wa_count != (LgA+1)'(MaxWAhead)) begin
          wa_len_q[32'(LgA'(wa_head_q + LgA'(wa_count))) * 8 +: 8] <= awlen_i;
          wa_id_q[32'(LgA'(wa_head_q + LgA'(wa_count))) * IdW +: IdW] <= awid_i;
          wa_count = wa_count + (LgA+1)'(1);
        end
      end
      if (w_hs) begin
        if (wlast_i) begin
          w_beat_q <= '0;
          if (wa_count != '0) begin  // (w_pairs, with this cycle's address counted)
            wa_head_q <= wa_head_q + LgA'(1);
            wa_count = wa_count - (LgA+1)'(1);
            b_due[32'(w_id) * (LgW+1) +: LgW+1] = b_due[32'(w_id) * (LgW+1) +: LgW+1] + (LgW+1)'(1);
          end else if (wd_count != (LgA+1)'(MaxWAhead)) begin
            wd_len_q[32'(LgA'(wd_head_q + LgA'(wd_count))) * 8 +: 8] <= w_beat_q;
            wd_count = wd_count + (LgA+1)'(1);
          end
        end else begin
          w_beat_q <= w_beat_q + 8'd1;
        end
      end
      if (b_hs && b_due[32'(bid_i) * (LgW+1) +: LgW+1] != '0)
        b_due[32'(bid_i) * (LgW+1) +: LgW+1] = b_due[32'(bid_i) * (LgW+1) +: LgW+1] - (LgW+1)'(1);
      wa_count_q <= wa_count;
      wd_count_q <= wd_count;
      b_due_q <= b_due;
      aw_out_q <= aw_out_q + (LgW+1)'(aw_hs && aw_out_q != (LgW+1)'(MaxWrites)) - (LgW+1)'(b_hs && aw_out_q != '0);
    end
  end

  // ---- the rules ---------------------------------------------------------------------------------
  // The master's.
  logic ERRM_ARVALID_RESET, ERRM_ARVALID_STABLE, ERRM_AR_STABLE, ERRM_AR_BURST, ERRM_AR_SIZE, ERRM_AR_BOUNDARY,
        ERRM_AR_WRAP, ERRM_AR_FIXED, ERRM_AR_OUTSTANDING;
  logic ERRM_AWVALID_RESET, ERRM_AWVALID_STABLE, ERRM_AW_STABLE, ERRM_AW_BURST, ERRM_AW_SIZE, ERRM_AW_BOUNDARY,
        ERRM_AW_WRAP, ERRM_AW_FIXED, ERRM_AW_OUTSTANDING, ERRM_AW_AHEAD;
  logic ERRM_WVALID_RESET, ERRM_WVALID_STABLE, ERRM_W_STABLE, ERRM_WLAST, ERRM_WLAST_EARLY, ERRM_W_LEAD, ERRM_IDLE;
  // The slave's.
  logic ERRS_RVALID_RESET, ERRS_RVALID_STABLE, ERRS_R_STABLE, ERRS_R_ID, ERRS_RLAST, ERRS_RRESP;
  logic ERRS_BVALID_RESET, ERRS_BVALID_STABLE, ERRS_B_STABLE, ERRS_B_ORDER, ERRS_BRESP;

  assign ERRM_ARVALID_RESET  = !HasRead || past_q || !arvalid_i;
  assign ERRM_ARVALID_STABLE = !HasRead || !past_q || !ar_wait_q || arvalid_i;
  assign ERRM_AR_STABLE      = !HasRead || !past_q || !ar_wait_q || ar_now == ar_q;
  assign ERRM_AR_BURST       = !HasRead || !arvalid_i || arburst_i != 2'b11;
  assign ERRM_AR_SIZE        = !HasRead || !arvalid_i || 32'(arsize_i) <= LgData;
  assign ERRM_AR_BOUNDARY    = !HasRead || !arvalid_i || arburst_i != Incr || burst_in_page(araddr_i, arlen_i, arsize_i);
  assign ERRM_AR_WRAP        = !HasRead || !arvalid_i || arburst_i != Wrap || wrap_ok(araddr_i, arlen_i, arsize_i);
  assign ERRM_AR_FIXED       = !HasRead || !arvalid_i || arburst_i != Fixed || arlen_i < 8'd16;
  assign ERRM_AR_OUTSTANDING = !HasRead || !ar_hs || rd_total < (LgR+IdW+1)'(MaxReads);

  assign ERRM_AWVALID_RESET  = !HasWrite || past_q || !awvalid_i;
  assign ERRM_AWVALID_STABLE = !HasWrite || !past_q || !aw_wait_q || awvalid_i;
  assign ERRM_AW_STABLE      = !HasWrite || !past_q || !aw_wait_q || aw_now == aw_q;
  assign ERRM_AW_BURST       = !HasWrite || !awvalid_i || awburst_i != 2'b11;
  assign ERRM_AW_SIZE        = !HasWrite || !awvalid_i || 32'(awsize_i) <= LgData;
  assign ERRM_AW_BOUNDARY    = !HasWrite || !awvalid_i || awburst_i != Incr || burst_in_page(awaddr_i, awlen_i, awsize_i);
  assign ERRM_AW_WRAP        = !HasWrite || !awvalid_i || awburst_i != Wrap || wrap_ok(awaddr_i, awlen_i, awsize_i);
  assign ERRM_AW_FIXED       = !HasWrite || !awvalid_i || awburst_i != Fixed || awlen_i < 8'd16;
  assign ERRM_AW_OUTSTANDING = !HasWrite || !aw_hs || aw_out_q < (LgW+1)'(MaxWrites);
  // An address that finds no data waiting for it waits for its data: at most MaxWAhead do.
  assign ERRM_AW_AHEAD       = !HasWrite || !aw_hs || aw_pairs || wa_count_q < (LgA+1)'(MaxWAhead);

  assign ERRM_WVALID_RESET  = !HasWrite || past_q || !wvalid_i;
  assign ERRM_WVALID_STABLE = !HasWrite || !past_q || !w_wait_q || wvalid_i;
  assign ERRM_W_STABLE      = !HasWrite || !past_q || !w_wait_q || w_now == w_q;
  // WLAST on the beat AWLEN + 1 of a burst whose address came first; a burst whose data comes
  // first is checked when its address comes (and no more such bursts than MaxWAhead).
  assign ERRM_WLAST       = !HasWrite || !wvalid_i || !w_pairs || wlast_i == (w_beat_q == w_len);
  assign ERRM_WLAST_EARLY = !HasWrite || !(aw_hs && aw_pairs) || awlen_i == wd_head_len;
  // A master that declares its data never leads (DataLeads = 0) sends none before its address.
  assign ERRM_W_LEAD      = DataLeads || !HasWrite || !wvalid_i || w_pairs;
  assign ERRM_IDLE        = !idle_i || (rd_total == '0 && aw_out_q == '0 && wd_count_q == '0);
  // The checker's own counts: what the rules above keep (no more outstanding than declared; each
  // write outstanding waits for its data or for its response).
  logic [31:0] b_due_total;
  always_comb begin
    b_due_total = '0;
    for (int i = 0; i < NumIds; i++) b_due_total = b_due_total + 32'(b_due_q[i*(LgW+1) +: LgW+1]);
  end
  logic CHECK_COUNTS;
  assign CHECK_COUNTS = rd_total <= (LgR+IdW+1)'(MaxReads) && aw_out_q <= (LgW+1)'(MaxWrites) &&
                        wa_count_q <= (LgA+1)'(MaxWAhead) && 32'(aw_out_q) == 32'(wa_count_q) + b_due_total &&
                        (DataLeads || wd_count_q == '0);

  assign ERRS_RVALID_RESET  = !HasRead || past_q || !rvalid_i;
  assign ERRS_RVALID_STABLE = !HasRead || !past_q || !r_wait_q || rvalid_i;
  assign ERRS_R_STABLE      = !HasRead || !past_q || !r_wait_q || r_now == r_q;
  assign ERRS_R_ID          = !HasRead || !rvalid_i || r_known;
  assign ERRS_RLAST         = !HasRead || !rvalid_i || !r_known || rlast_i == r_end;
  assign ERRS_RRESP         = !HasRead || !rvalid_i || rresp_i != 2'b01;  // EXOKAY needs an exclusive access

  assign ERRS_BVALID_RESET  = !HasWrite || past_q || !bvalid_i;
  assign ERRS_BVALID_STABLE = !HasWrite || !past_q || !b_wait_q || bvalid_i;
  assign ERRS_B_STABLE      = !HasWrite || !past_q || !b_wait_q || b_now == b_q;
  assign ERRS_B_ORDER       = !HasWrite || !bvalid_i || b_due_q[32'(bid_i) * (LgW+1) +: LgW+1] != '0;
  assign ERRS_BRESP         = !HasWrite || !bvalid_i || bresp_i != 2'b01;

  assign reads_o  = rd_total[$clog2(MaxReads):0];
  assign writes_o = aw_out_q[$clog2(MaxWrites):0];

  logic unused;
  assign unused = ^{arcache_i, arprot_i, awcache_i, awprot_i, rdata_i, CHECK_COUNTS};

`ifdef FORMAL
  assign f_wa_count_o = 9'(wa_count_q);
  assign f_w_beat_o   = w_beat_q;
  assign f_wd_count_o = 9'(wd_count_q);
  assign f_wa_lens_o  = wa_len_q;
  assign f_wa_head_o  = 8'(wa_head_q);
  assign f_b_due_o    = 9'(b_due_total);
  // Checks only: a protocol checker holds no design (see the file's head).
  always @(*) begin
    if (rst_ni) begin
      assert (ERRM_ARVALID_RESET);
      assert (ERRM_ARVALID_STABLE);
      assert (ERRM_AR_STABLE);
      assert (ERRM_AR_BURST);
      assert (ERRM_AR_SIZE);
      assert (ERRM_AR_BOUNDARY);
      assert (ERRM_AR_WRAP);
      assert (ERRM_AR_FIXED);
      assert (ERRM_AR_OUTSTANDING);
      assert (ERRM_AWVALID_RESET);
      assert (ERRM_AWVALID_STABLE);
      assert (ERRM_AW_STABLE);
      assert (ERRM_AW_BURST);
      assert (ERRM_AW_SIZE);
      assert (ERRM_AW_BOUNDARY);
      assert (ERRM_AW_WRAP);
      assert (ERRM_AW_FIXED);
      assert (ERRM_AW_OUTSTANDING);
      assert (ERRM_AW_AHEAD);
      assert (ERRM_WVALID_RESET);
      assert (ERRM_WVALID_STABLE);
      assert (ERRM_W_STABLE);
      assert (ERRM_WLAST);
      assert (ERRM_WLAST_EARLY);
      assert (ERRM_W_LEAD);
      assert (ERRM_IDLE);
      assert (CHECK_COUNTS);
    end
  end
  if (SlaveAssumed) begin : g_slave_assumed
    always @(*) begin
      if (rst_ni) begin
        assume (ERRS_RVALID_RESET);
        assume (ERRS_RVALID_STABLE);
        assume (ERRS_R_STABLE);
        assume (ERRS_R_ID);
        assume (ERRS_RLAST);
        assume (ERRS_RRESP);
        assume (ERRS_BVALID_RESET);
        assume (ERRS_BVALID_STABLE);
        assume (ERRS_B_STABLE);
        assume (ERRS_B_ORDER);
        assume (ERRS_BRESP);
      end
    end
  end else begin : g_slave_asserted
    always @(*) begin
      if (rst_ni) begin
        assert (ERRS_RVALID_RESET);
        assert (ERRS_RVALID_STABLE);
        assert (ERRS_R_STABLE);
        assert (ERRS_R_ID);
        assert (ERRS_RLAST);
        assert (ERRS_RRESP);
        assert (ERRS_BVALID_RESET);
        assert (ERRS_BVALID_STABLE);
        assert (ERRS_B_STABLE);
        assert (ERRS_B_ORDER);
        assert (ERRS_BRESP);
      end
    end
  end
`elsif SYNTHESIS
`else
  // Simulation: each broken rule is reported (the first ten) and counted.
  /* verilator lint_off BLKSEQ */
  int errors_q = 0;
  task automatic rule(input logic holds, input string name);
    if (!holds) begin
      if (errors_q < 10) $error("AXI4 protocol: %m: %s broken", name);
      errors_q = errors_q + 1;
    end
  endtask
  always @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni) begin
      rule(ERRM_ARVALID_RESET, "ERRM_ARVALID_RESET");
      rule(ERRM_ARVALID_STABLE, "ERRM_ARVALID_STABLE (ARVALID dropped before ARREADY)");
      rule(ERRM_AR_STABLE, "ERRM_AR_STABLE (read address changed while waiting for ARREADY)");
      rule(ERRM_AR_BURST, "ERRM_AR_BURST (reserved ARBURST)");
      rule(ERRM_AR_SIZE, "ERRM_AR_SIZE (ARSIZE wider than the data bus)");
      rule(ERRM_AR_BOUNDARY, "ERRM_AR_BOUNDARY (read burst across a 4 KB boundary)");
      rule(ERRM_AR_WRAP, "ERRM_AR_WRAP");
      rule(ERRM_AR_FIXED, "ERRM_AR_FIXED");
      rule(ERRM_AR_OUTSTANDING, "ERRM_AR_OUTSTANDING (more reads outstanding than declared)");
      rule(ERRM_AWVALID_RESET, "ERRM_AWVALID_RESET");
      rule(ERRM_AWVALID_STABLE, "ERRM_AWVALID_STABLE (AWVALID dropped before AWREADY)");
      rule(ERRM_AW_STABLE, "ERRM_AW_STABLE (write address changed while waiting for AWREADY)");
      rule(ERRM_AW_BURST, "ERRM_AW_BURST (reserved AWBURST)");
      rule(ERRM_AW_SIZE, "ERRM_AW_SIZE (AWSIZE wider than the data bus)");
      rule(ERRM_AW_BOUNDARY, "ERRM_AW_BOUNDARY (write burst across a 4 KB boundary)");
      rule(ERRM_AW_WRAP, "ERRM_AW_WRAP");
      rule(ERRM_AW_FIXED, "ERRM_AW_FIXED");
      rule(ERRM_AW_OUTSTANDING, "ERRM_AW_OUTSTANDING (more writes outstanding than declared)");
      rule(ERRM_AW_AHEAD, "ERRM_AW_AHEAD (more write addresses waiting for their data than declared)");
      rule(ERRM_WVALID_RESET, "ERRM_WVALID_RESET");
      rule(ERRM_WVALID_STABLE, "ERRM_WVALID_STABLE (WVALID dropped before WREADY)");
      rule(ERRM_W_STABLE, "ERRM_W_STABLE (write data changed while waiting for WREADY)");
      rule(ERRM_WLAST, "ERRM_WLAST (WLAST not on the burst's last beat)");
      rule(ERRM_WLAST_EARLY, "ERRM_WLAST_EARLY (data sent before its address has another length)");
      rule(ERRM_W_LEAD, "ERRM_W_LEAD (write data before its address, from a master that declares it does not)");
      rule(ERRM_IDLE, "ERRM_IDLE (idle with transactions outstanding)");
      rule(ERRS_RVALID_RESET, "ERRS_RVALID_RESET");
      rule(ERRS_RVALID_STABLE, "ERRS_RVALID_STABLE (RVALID dropped before RREADY)");
      rule(ERRS_R_STABLE, "ERRS_R_STABLE (read data changed while waiting for RREADY)");
      rule(ERRS_R_ID, "ERRS_R_ID (read data for an ID with no read outstanding)");
      rule(ERRS_RLAST, "ERRS_RLAST (RLAST not on the burst's last beat)");
      rule(ERRS_RRESP, "ERRS_RRESP (EXOKAY without an exclusive access)");
      rule(ERRS_BVALID_RESET, "ERRS_BVALID_RESET");
      rule(ERRS_BVALID_STABLE, "ERRS_BVALID_STABLE (BVALID dropped before BREADY)");
      rule(ERRS_B_STABLE, "ERRS_B_STABLE (write response changed while waiting for BREADY)");
      rule(ERRS_B_ORDER, "ERRS_B_ORDER (write response before the burst's address and last data beat)");
      rule(ERRS_BRESP, "ERRS_BRESP (EXOKAY without an exclusive access)");
    end
  end
  /* verilator lint_on BLKSEQ */
`endif
endmodule
