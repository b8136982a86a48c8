// dg_axi_wr_proof: the write address side of a generated NPU's C master (the C stream's burst
// splitter and its AXI4 write master, as the top connects them) against the AXI4 protocol checker,
// for proof by k-induction: the checker's master rules are assertions, its slave rules assumptions.
// The write data channel is held idle here: its beats come from dg_cout, whose rules (WVALID and
// WDATA held until WREADY, WLAST on each burst's last beat) are checked in every co-simulation,
// not proved. Part of the fixed DeepGEMM RTL library; not synthesized.
module dg_axi_wr_proof #(
  parameter int AddrW     = 32,
  parameter int BeatBytes = 16,
  parameter int MaxBurst  = 256,
  parameter int Boundary  = 4096,
  parameter int LgOut     = 3
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  input  logic        req_valid_i,
  input  logic [AddrW-1:0] req_addr_i,
  input  logic [15:0] req_beats_i,
  input  logic        awready_i,
  input  logic        wready_i,
  input  logic        bvalid_i,
  input  logic [1:0]  bid_i,
  input  logic [1:0]  bresp_i
);
  logic                   req_ready, aw_valid, aw_ready, split_last, w_ready, idle;
  logic [AddrW-1:0] aw_addr;
  logic [8:0]             aw_len;
  logic [1:0]             error;
  logic [LgOut:0]         outstanding;
  logic                   awvalid, wvalid, wlast, bready;
  logic [1:0]             awid, awburst;
  logic [AddrW-1:0] awaddr;
  logic [7:0]             awlen;
  logic [2:0]             awsize, awprot;
  logic [3:0]             awcache;
  logic [BeatBytes*8-1:0] wdata;
  logic [BeatBytes-1:0]   wstrb;
  logic [LgOut:0]         f_writes;
  logic [0:0]             unused_reads;

  dg_burst_split #(.AddrW(AddrW), .BeatBytes(BeatBytes), .MaxBurst(MaxBurst), .Boundary(Boundary)) u_split (
    .clk_i(clk_i), .rst_ni(rst_ni), .req_valid_i(req_valid_i), .req_ready_o(req_ready), .req_addr_i(req_addr_i),
    .req_beats_i(req_beats_i), .burst_valid_o(aw_valid), .burst_ready_i(aw_ready), .burst_addr_o(aw_addr),
    .burst_len_o(aw_len), .burst_last_o(split_last)
  );
  dg_axi_wr #(.AddrW(AddrW), .IdW(2), .Id(2'd2), .BeatBytes(BeatBytes), .LgOut(LgOut)) u_master (
    .clk_i(clk_i), .rst_ni(rst_ni), .start_i(start_i),
    .aw_valid_i(aw_valid), .aw_ready_o(aw_ready), .aw_addr_i(aw_addr), .aw_len_i(aw_len),
    .w_valid_i(1'b0), .w_ready_o(w_ready), .w_data_i('0), .w_strb_i({BeatBytes{1'b1}}), .w_last_i(1'b0),
    .awvalid_o(awvalid), .awready_i(awready_i), .awid_o(awid), .awaddr_o(awaddr), .awlen_o(awlen),
    .awsize_o(awsize), .awburst_o(awburst), .awcache_o(awcache), .awprot_o(awprot),
    .wvalid_o(wvalid), .wready_i(wready_i), .wdata_o(wdata), .wstrb_o(wstrb), .wlast_o(wlast),
    .bvalid_i(bvalid_i), .bready_o(bready), .bid_i(bid_i), .bresp_i(bresp_i),
    .error_o(error), .idle_o(idle), .outstanding_o(outstanding)
  );
  dg_axi4_check #(.AddrW(AddrW), .DataW(BeatBytes*8), .IdW(2), .MaxReads(1), .MaxWrites(1 << LgOut), .HasRead(1'b0),
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
  );

`ifdef FORMAL
  // A run starts only when the master is idle (the top starts one when its DONE is set).
  // (The adapter clears its counts at a start, so no address may go out in that cycle either.)
  always @(*) if (start_i) assume (idle && !awvalid);
  always @(*) if (rst_ni) assert (outstanding == f_writes);
`endif

  logic unused;
  assign unused = ^{req_ready, split_last, w_ready, error, idle, outstanding, f_writes};  // (used under FORMAL)
endmodule
