// dg_axi_rd_proof: the read master of a generated NPU (a stream's burst splitter and its AXI4
// read master, as the top connects them) against the AXI4 protocol checker, for proof by
// k-induction: the checker's master rules are assertions, its slave rules assumptions, so the
// master is proved to keep the protocol with any legal slave and any requests its AGU may make.
// Proved with the parameters the top instantiates (the bus's beat, maximum burst and boundary,
// and the master's outstanding reads). Part of the fixed DeepGEMM RTL library; not synthesized.
module dg_axi_rd_proof #(
  parameter int AddrW     = 32,
  parameter int BeatBytes = 16,
  parameter int MaxBurst  = 256,
  parameter int Boundary  = 4096,
  parameter int LgOut     = 3
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   start_i,
  input  logic                   req_valid_i,
  input  logic [AddrW-1:0]       req_addr_i,
  input  logic [15:0]            req_beats_i,
  input  logic                   r_ready_i,
  input  logic                   arready_i,
  input  logic                   rvalid_i,
  input  logic [1:0]             rid_i,
  input  logic [BeatBytes*8-1:0] rdata_i,
  input  logic [1:0]             rresp_i,
  input  logic                   rlast_i
);
  logic             req_ready, ar_valid, ar_ready, split_last, r_valid, idle;
  logic [AddrW-1:0] ar_addr;
  logic [8:0]       ar_len;
  logic [BeatBytes*8-1:0] r_data;
  logic [1:0]       error;
  logic [LgOut:0]   outstanding;
  logic             arvalid, rready;
  logic [1:0]       arid, arburst;
  logic [AddrW-1:0] araddr;
  logic [7:0]       arlen;
  logic [2:0]       arsize, arprot;
  logic [3:0]       arcache;
  logic [LgOut:0]   f_reads;
  logic [0:0]       unused_writes;

  dg_burst_split #(.AddrW(AddrW), .BeatBytes(BeatBytes), .MaxBurst(MaxBurst), .Boundary(Boundary)) u_split (
    .clk_i(clk_i), .rst_ni(rst_ni), .req_valid_i(req_valid_i), .req_ready_o(req_ready), .req_addr_i(req_addr_i),
    .req_beats_i(req_beats_i), .burst_valid_o(ar_valid), .burst_ready_i(ar_ready), .burst_addr_o(ar_addr),
    .burst_len_o(ar_len), .burst_last_o(split_last)
  );
  dg_axi_rd #(.AddrW(AddrW), .IdW(2), .Id(2'd0), .BeatBytes(BeatBytes), .LgOut(LgOut)) u_master (
    .clk_i(clk_i), .rst_ni(rst_ni), .start_i(start_i),
    .ar_valid_i(ar_valid), .ar_ready_o(ar_ready), .ar_addr_i(ar_addr), .ar_len_i(ar_len),
    .r_valid_o(r_valid), .r_ready_i(r_ready_i), .r_data_o(r_data),
    .arvalid_o(arvalid), .arready_i(arready_i), .arid_o(arid), .araddr_o(araddr), .arlen_o(arlen),
    .arsize_o(arsize), .arburst_o(arburst), .arcache_o(arcache), .arprot_o(arprot),
    .rvalid_i(rvalid_i), .rready_o(rready), .rid_i(rid_i), .rdata_i(rdata_i), .rresp_i(rresp_i), .rlast_i(rlast_i),
    .error_o(error), .idle_o(idle), .outstanding_o(outstanding)
  );
  dg_axi4_check #(.AddrW(AddrW), .DataW(BeatBytes*8), .IdW(2), .MaxReads(1 << LgOut), .MaxWrites(1), .HasRead(1'b1),
                  .HasWrite(1'b0), .SlaveAssumed(1'b1)) u_check (
    .clk_i(clk_i), .rst_ni(rst_ni), .idle_i(1'b0),
    .arvalid_i(arvalid), .arready_i(arready_i), .arid_i(arid), .araddr_i(araddr), .arlen_i(arlen),
    .arsize_i(arsize), .arburst_i(arburst), .arcache_i(arcache), .arprot_i(arprot),
    .rvalid_i(rvalid_i), .rready_i(rready), .rid_i(rid_i), .rdata_i(rdata_i), .rresp_i(rresp_i), .rlast_i(rlast_i),
    .awvalid_i(1'b0), .awready_i(1'b0), .awid_i(2'd0), .awaddr_i('0), .awlen_i(8'd0), .awsize_i(3'd0),
    .awburst_i(2'd0), .awcache_i(4'd0), .awprot_i(3'd0),
    .wvalid_i(1'b0), .wready_i(1'b0), .wdata_i('0), .wstrb_i('0), .wlast_i(1'b0),
    .bvalid_i(1'b0), .bready_i(1'b0), .bid_i(2'd0), .bresp_i(2'd0),
    .reads_o(f_reads), .writes_o(unused_writes)
  );

`ifdef FORMAL
  // A run starts only when the master is idle (the top starts one when its DONE is set).
  // (The adapter clears its counts at a start, so no address may go out in that cycle either.)
  always @(*) if (start_i) assume (idle && outstanding == '0 && !arvalid);
  // The master counts its reads as the bus does.
  always @(*) if (rst_ni) assert (outstanding == f_reads);
`endif

  logic unused;
  assign unused = ^{req_ready, split_last, r_valid, r_data, error, idle, outstanding, f_reads};  // (used under FORMAL)
endmodule
