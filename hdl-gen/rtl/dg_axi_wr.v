// dg_axi_wr: the AXI4 write master of the C stream, over the core's write channels. It puts the
// core's write bursts (byte address, length in beats 1..256) on the write address channel
// (AWLEN = beats - 1, AWSIZE the full bus width, INCR, the stream's ID), passes the core's write
// data (its beats in address order, the last of each burst marked; a burst's data never before its
// address) with the core's byte strobes, and takes the write responses. At most 2^LgOut writes are
// outstanding (address taken, response not yet). Part of the fixed DeepGEMM RTL library.
//
// The first problem of the run is reported once: an error response (BRESP SLVERR or DECERR:
// error_o = 1), or a response that breaks the protocol (another BID, or a response with no write
// outstanding: error_o = 2). idle_o: every write has had its response.
module dg_axi_wr #(
  parameter int         AddrW     = 32,
  parameter int         IdW       = 2,
  parameter logic [1:0] Id        = 2'd2,
  parameter int         BeatBytes = 16,
  parameter int         LgOut     = 3
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   start_i,      // a run begins: no write may be outstanding
  // the core's write address and data
  input  logic                   aw_valid_i,
  output logic                   aw_ready_o,
  input  logic [AddrW-1:0]       aw_addr_i,
  input  logic [8:0]             aw_len_i,     // beats, 1..256
  input  logic                   w_valid_i,
  output logic                   w_ready_o,
  input  logic [BeatBytes*8-1:0] w_data_i,
  input  logic [BeatBytes-1:0]   w_strb_i,     // the beat's byte strobes (all set but in byte rows)
  input  logic                   w_last_i,
  // AXI4 write address
  output logic                   awvalid_o,
  input  logic                   awready_i,
  output logic [IdW-1:0]         awid_o,
  output logic [AddrW-1:0]       awaddr_o,
  output logic [7:0]             awlen_o,
  output logic [2:0]             awsize_o,
  output logic [1:0]             awburst_o,
  output logic [3:0]             awcache_o,
  output logic [2:0]             awprot_o,
  // AXI4 write data
  output logic                   wvalid_o,
  input  logic                   wready_i,
  output logic [BeatBytes*8-1:0] wdata_o,
  output logic [BeatBytes-1:0]   wstrb_o,
  output logic                   wlast_o,
  // AXI4 write response
  input  logic                   bvalid_i,
  output logic                   bready_o,
  input  logic [IdW-1:0]         bid_i,
  input  logic [1:0]             bresp_i,
  output logic [1:0]             error_o,      // the run's first bus problem: 0 none, 1 response, 2 protocol
  output logic                   idle_o,       // no write outstanding
  output logic [LgOut:0]         outstanding_o // writes outstanding
);
  localparam int Out = 1 << LgOut;

  logic [LgOut:0] out_q;  // writes whose response has not come
  logic           room, aw_hs, b_hs;

  // An address goes out while a response slot is free; responses only free slots, so AWVALID
  // stays high until AWREADY.
  assign room       = out_q != (LgOut+1)'(Out);
  assign awvalid_o  = aw_valid_i && room;
  assign aw_ready_o = awready_i && room;
  assign awid_o     = IdW'(Id);
  assign awaddr_o   = aw_addr_i;
  assign awlen_o    = 8'(aw_len_i - 9'd1);
  assign awsize_o   = 3'($clog2(BeatBytes));
  assign awburst_o  = 2'b01;      // INCR
  assign awcache_o  = 4'b0011;    // normal, non-cacheable, bufferable
  assign awprot_o   = 3'b000;     // unprivileged, secure, data
  assign aw_hs      = awvalid_o && awready_i;

  assign wvalid_o  = w_valid_i;
  assign w_ready_o = wready_i;
  assign wdata_o   = w_data_i;
  assign wstrb_o   = w_strb_i;
  assign wlast_o   = w_last_i;

  assign bready_o = 1'b1;
  assign b_hs     = bvalid_i;
  assign outstanding_o = out_q;
  assign idle_o   = out_q == '0;

  logic [1:0] problem;
  always_comb begin
    problem = 2'd0;
    if (b_hs && (out_q == '0 || bid_i != IdW'(Id))) problem = 2'd2;
    else if (b_hs && bresp_i[1]) problem = 2'd1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_q <= '0;
      error_o <= '0;
    end else if (start_i) begin
      out_q <= '0;
      error_o <= '0;
    end else begin
      out_q <= out_q + (LgOut+1)'(aw_hs) - (LgOut+1)'(b_hs && out_q != '0);
      if (error_o == 2'd0) error_o <= problem;
    end
  end
  logic unused;
  assign unused = bresp_i[0];  // OKAY and EXOKAY alike: no exclusive accesses are made
endmodule
