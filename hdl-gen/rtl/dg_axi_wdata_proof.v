// dg_axi_wdata_proof: a generated NPU's whole C master as the top connects it (the C stream's
// burst splitter, dg_cout's write framing, and the AXI4 write master) against the AXI4 protocol
// checker, for proof by k-induction: the checker's master rules are assertions, its slave rules
// assumptions. Both channels are proved: the write address (bursts, 4 KB, outstanding writes) and
// the write data (WVALID and WDATA/WSTRB/WLAST held until WREADY, WLAST exactly on each burst's
// last beat, no data before its address, at most dg_cout's burst-length queue of addresses ahead
// of their data). The row requests, the accumulator data and the buffers' fill are free inputs:
// the framing of the data depends only on the bursts issued. (dg_cout's read-ahead of the
// accumulator buffer is two beats here whatever the design's: it paces the data, not its framing.)
// With byte rows (Align) the data
// passes dg_wr_align, whose strobes are part of the held payload. dg_axi_wr_proof proves the
// address side alone at every compile; this proof costs minutes at deep queues, and is run by the
// formal tests. Part of the fixed DeepGEMM RTL library; not synthesized.
module dg_axi_wdata_proof #(
  parameter int AddrW     = 32,
  parameter int BeatBytes = 16,
  parameter int MaxBurst  = 256,
  parameter int Boundary  = 4096,
  parameter int LgOut     = 3,    // writes outstanding: 2^LgOut
  parameter int LgLens    = 1,    // dg_cout's bursts issued ahead of their data: 2^LgLens
  parameter bit Align     = 1'b0, // byte rows
  parameter int LenW      = 5,    // byte rows: bits of a request's words and beats
  parameter int LgQueue   = 1     // dg_cout's row requests queued: 2^LgQueue
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  // the C AGU's requests to the splitter (address, beats)
  input  logic        req_valid_i,
  input  logic [AddrW-1:0] req_addr_i,
  input  logic [15:0] req_beats_i,
  // the C AGU's row requests to dg_cout, and the accumulator side
  input  logic        row_req_i,
  input  logic [LenW-1:0] row_words_i,
  input  logic        row_last_i,
  input  logic [$clog2(BeatBytes)-1:0] row_off_i,
  input  logic [$clog2(BeatBytes)-1:0] row_end_i,
  input  logic [LenW-1:0] row_nb_i,
  input  logic [1:0]  acc_full_i,
  input  logic [(BeatBytes*8/32 > 0 ? BeatBytes*8/32 : 1)*32-1:0] acc_rdata_i,
  // the slave
  input  logic        awready_i,
  input  logic        wready_i,
  input  logic        bvalid_i,
  input  logic [1:0]  bid_i,
  input  logic [1:0]  bresp_i
);
  localparam int BusBits = BeatBytes * 8;
  localparam int Cols    = BusBits / 32 > 0 ? BusBits / 32 : 1;  // one 32-bit accumulator row per beat
  localparam int BeatsW  = Align ? LenW : 9;
  logic                   req_ready, burst_valid, aw_valid, aw_ready, split_last, idle, lens_full;
  logic [AddrW-1:0]       aw_addr;
  logic [8:0]             aw_len;
  logic [1:0]             error;
  logic [LgOut:0]         outstanding;
  logic                   c_w_valid, c_w_ready, c_w_last, cout_qfull, cout_idle;
  logic [BusBits-1:0]     c_w_data;
  logic [BeatBytes-1:0]   c_w_strb;
  logic                   acc_release, acc_buf, acc_re;
  logic [0:0]             acc_raddr;
  logic                   awvalid, wvalid, wlast, bready;
  logic [1:0]             awid, awburst;
  logic [AddrW-1:0]       awaddr;
  logic [7:0]             awlen;
  logic [2:0]             awsize, awprot;
  logic [3:0]             awcache;
  logic [BusBits-1:0]     wdata;
  logic [BeatBytes-1:0]   wstrb;
  logic [LgOut:0]         f_writes;
  logic [0:0]             unused_reads;

  dg_burst_split #(.AddrW(AddrW), .BeatBytes(BeatBytes), .MaxBurst(MaxBurst), .Boundary(Boundary)) u_split (
    .clk_i(clk_i), .rst_ni(rst_ni), .req_valid_i(req_valid_i), .req_ready_o(req_ready), .req_addr_i(req_addr_i),
    .req_beats_i(req_beats_i), .burst_valid_o(burst_valid), .burst_ready_i(aw_ready && !lens_full),
    .burst_addr_o(aw_addr), .burst_len_o(aw_len), .burst_last_o(split_last)
  );
  assign aw_valid = burst_valid && !lens_full;
`ifdef FORMAL
  logic [(1<<LgLens)*9-1:0] f_lens;
  logic [LgLens:0]          f_lens_count;
  logic [8:0]               f_wbeat;
  logic [1:0]               f_out_count;
  logic [LgQueue:0]         f_queue_count;
`endif
  dg_cout #(.Cols(Cols), .AccW(32), .CW(32), .BusBits(BusBits), .BeatsPerRow(1), .NNj(1), .AccAW(1), .RowW(1),
            .BeatsW(BeatsW), .LgQueue(LgQueue), .LgOut(1), .LgLens(LgLens), .Align(Align), .LenW(LenW)) u_cout (
    .clk_i(clk_i), .rst_ni(rst_ni), .start_i(start_i),
    .req_i(row_req_i), .req_row_i(1'b0), .req_beats_i(BeatsW'(row_words_i)), .req_last_i(row_last_i),
    .req_off_i(row_off_i), .req_end_i(row_end_i), .req_nb_i(row_nb_i), .queue_full_o(cout_qfull),
    .acc_full_i(acc_full_i), .acc_release_o(acc_release), .acc_buf_o(acc_buf), .re_o(acc_re), .raddr_o(acc_raddr),
    .rdata_i(acc_rdata_i),
    .aw_i(aw_valid && aw_ready), .aw_len_i(aw_len), .lens_full_o(lens_full),
    .w_valid_o(c_w_valid), .w_ready_i(c_w_ready), .w_data_o(c_w_data), .w_strb_o(c_w_strb), .w_last_o(c_w_last),
    .idle_o(cout_idle)
`ifdef FORMAL
    , .f_lens_o(f_lens), .f_lens_count_o(f_lens_count), .f_wbeat_o(f_wbeat), .f_out_count_o(f_out_count),
      .f_queue_count_o(f_queue_count)
`endif
  );
  dg_axi_wr #(.AddrW(AddrW), .IdW(2), .Id(2'd2), .BeatBytes(BeatBytes), .LgOut(LgOut)) u_master (
    .clk_i(clk_i), .rst_ni(rst_ni), .start_i(start_i),
    .aw_valid_i(aw_valid), .aw_ready_o(aw_ready), .aw_addr_i(aw_addr), .aw_len_i(aw_len),
    .w_valid_i(c_w_valid), .w_ready_o(c_w_ready), .w_data_i(c_w_data), .w_strb_i(c_w_strb), .w_last_i(c_w_last),
    .awvalid_o(awvalid), .awready_i(awready_i), .awid_o(awid), .awaddr_o(awaddr), .awlen_o(awlen),
    .awsize_o(awsize), .awburst_o(awburst), .awcache_o(awcache), .awprot_o(awprot),
    .wvalid_o(wvalid), .wready_i(wready_i), .wdata_o(wdata), .wstrb_o(wstrb), .wlast_o(wlast),
    .bvalid_i(bvalid_i), .bready_o(bready), .bid_i(bid_i), .bresp_i(bresp_i),
    .error_o(error), .idle_o(idle), .outstanding_o(outstanding)
  );
`ifdef FORMAL
  logic [8:0]               f_wa_count, f_wd_count, f_b_due;
  logic [(1<<LgLens)*8-1:0] f_wa_lens;
  logic [7:0]               f_w_beat, f_wa_head;
`endif
  dg_axi4_check #(.AddrW(AddrW), .DataW(BusBits), .IdW(2), .MaxReads(1), .MaxWrites(1 << LgOut), .MaxWAhead(1 << LgLens),
                  .HasRead(1'b0),
                  .HasWrite(1'b1), .DataLeads(1'b0), .SlaveAssumed(1'b1)) u_check (
    .clk_i(clk_i), .rst_ni(rst_ni), .idle_i(1'b0),
    .arvalid_i(1'b0), .arready_i(1'b0), .arid_i(2'd0), .araddr_i('0), .arlen_i(8'd0), .arsize_i(3'd0),
    .arburst_i(2'd0), .arcache_i(4'd0), .arprot_i(3'd0),
    .rvalid_i(1'b0), .rready_i(1'b0), .rid_i(2'd0), .rdata_i('0), .rresp_i(2'd0), .rlast_i(1'b0),
    .awvalid_i(awvalid), .awready_i(awready_i), .awid_i(awid), .awaddr_i(awaddr), .awlen_i(awlen),
    .awsize_i(awsize), .awburst_i(awburst), .awcache_i(awcache), .awprot_i(awprot),
    .wvalid_i(wvalid), .wready_i(wready_i), .wdata_i(wdata), .wstrb_i(wstrb), .wlast_i(wlast),
    .bvalid_i(bvalid_i), .bready_i(bready), .bid_i(bid_i), .bresp_i(bresp_i),
    .reads_o(unused_reads), .writes_o(f_writes)
`ifdef FORMAL
    , .f_wa_count_o(f_wa_count), .f_wa_lens_o(f_wa_lens), .f_wa_head_o(f_wa_head), .f_w_beat_o(f_w_beat), .f_wd_count_o(f_wd_count),
    .f_b_due_o(f_b_due)
`endif
  );

`ifdef FORMAL
  // A run starts only when the C path is idle (the top starts one when its DONE is set, which
  // waits for every write's response and for dg_cout's buffers to drain).
  // (The adapter clears its counts at a start, so no address may go out in that cycle either.)
  always @(*) if (start_i) assume (idle && !awvalid && cout_idle);
  // The C AGU pushes a row request only while dg_cout has room for it (the top's c_req_ready).
  always @(*) if (row_req_i) assume (!cout_qfull);
  // The master's count of writes outstanding is the checker's.
  always @(*) if (rst_ni) assert (outstanding == f_writes);
  // The framing of the write data is the checker's view of it: dg_cout's queue of burst lengths
  // holds, in order, the AWLEN + 1 of the addresses whose data is not all sent, and its beat count
  // is the checker's; every write outstanding is waiting for its data or for its response.
  always @(*) begin
    if (rst_ni) begin
      assert (f_wd_count == 9'd0);
      assert (9'(f_lens_count) == f_wa_count);
      // dg_cout's queues never hold more than their depth (a push into a full one is ignored).
      assert (f_lens_count <= (LgLens+1)'(1 << LgLens));
      assert (f_out_count <= 2'd2);
      assert (f_queue_count <= (LgQueue+1)'(1 << LgQueue));
      assert (f_wa_count + f_b_due == 9'(f_writes));
      assert (f_wbeat == {1'b0, f_w_beat});
      if (f_lens_count == '0) assert (f_wbeat == 9'd0);
      else assert (f_wbeat < f_lens[0 +: 9]);
      for (int i = 0; i < (1 << LgLens); i++)
        if (32'(i) < 32'(f_lens_count)) assert (f_lens[i*9 +: 9] != 9'd0);
      // (By the checker's slot: the slot `age` places after its oldest holds the age-th oldest.)
      for (int j = 0; j < (1 << LgLens); j++) begin : b_slot
        logic [LgLens-1:0] age;
        age = LgLens'(32'(j) - 32'(f_wa_head));
        if (9'(age) < f_wa_count) assert (f_lens[32'(age)*9 +: 9] == {1'b0, f_wa_lens[j*8 +: 8]} + 9'd1);
      end
    end
  end
`endif

  logic unused;
  assign unused = ^{req_ready, split_last, error, idle, outstanding, f_writes, acc_release, acc_buf, acc_re,
                    acc_raddr, cout_idle, cout_qfull};  // (used under FORMAL)
endmodule
