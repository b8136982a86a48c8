// dg_axi_rd: the AXI4 read master of one input stream (A or B), over the core's read channels.
// It puts the core's read bursts (byte address, length in beats 1..256) on the read address
// channel (ARLEN = beats - 1, ARSIZE the full bus width, INCR, one ID per stream), with at most
// 2^LgOut reads outstanding, and hands the read data, in order, to the core. Part of the fixed
// DeepGEMM RTL library.
//
// A read is outstanding from its address handshake to its beat with RLAST. The master counts each
// burst's beats itself (a FIFO of the lengths it issued) and reports, once per run, the first
// problem of the slave's: an error response (RRESP SLVERR or DECERR: error_o = 1), or a beat that
// breaks the protocol (RLAST not on the burst's last beat, another RID, or data with no read
// outstanding: error_o = 2). Data with no read outstanding is taken and dropped, so that a broken
// slave cannot stall the run.
module dg_axi_rd #(
  parameter int         AddrW     = 32,
  parameter int         IdW       = 2,
  parameter logic [1:0] Id        = 2'd0,
  parameter int         BeatBytes = 16,
  parameter int         LgOut     = 3     // reads outstanding at most: 2^LgOut
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   start_i,      // a run begins: no read may be outstanding
  // the core's read address and data
  input  logic                   ar_valid_i,
  output logic                   ar_ready_o,
  input  logic [AddrW-1:0]       ar_addr_i,
  input  logic [8:0]             ar_len_i,     // beats, 1..256
  output logic                   r_valid_o,
  input  logic                   r_ready_i,
  output logic [BeatBytes*8-1:0] r_data_o,
  // AXI4 read address
  output logic                   arvalid_o,
  input  logic                   arready_i,
  output logic [IdW-1:0]         arid_o,
  output logic [AddrW-1:0]       araddr_o,
  output logic [7:0]             arlen_o,
  output logic [2:0]             arsize_o,
  output logic [1:0]             arburst_o,
  output logic [3:0]             arcache_o,
  output logic [2:0]             arprot_o,
  // AXI4 read data
  input  logic                   rvalid_i,
  output logic                   rready_o,
  input  logic [IdW-1:0]         rid_i,
  input  logic [BeatBytes*8-1:0] rdata_i,
  input  logic [1:0]             rresp_i,
  input  logic                   rlast_i,
  output logic [1:0]             error_o,      // the run's first bus problem: 0 none, 1 response, 2 protocol
  output logic                   idle_o,       // every read's beats have come
  output logic [LgOut:0]         outstanding_o // reads outstanding
);
  localparam int Out = 1 << LgOut;

  // Reads outstanding: counted from the address handshake to the beat with RLAST, as the bus
  // counts them; their lengths, to check RLAST against.
  logic [LgOut:0] out_q;
  logic [7:0]     len_head, beat_q;
  logic           lens_empty, unused_lens_full;
  logic [LgOut:0] unused_lens_count;
  logic           ar_hs, r_hs, expect_last, last_hs;

  assign arvalid_o = ar_valid_i && out_q != (LgOut+1)'(Out);
  assign ar_ready_o = arready_i && out_q != (LgOut+1)'(Out);
  assign arid_o    = IdW'(Id);
  assign araddr_o  = ar_addr_i;
  assign arlen_o   = 8'(ar_len_i - 9'd1);
  assign arsize_o  = 3'($clog2(BeatBytes));
  assign arburst_o = 2'b01;      // INCR
  assign arcache_o = 4'b0011;    // normal, non-cacheable, bufferable
  assign arprot_o  = 3'b000;     // unprivileged, secure, data
  assign ar_hs     = arvalid_o && arready_i;

  dg_fifo #(.Width(8), .LgDepth(LgOut)) u_lens (
    .clk_i(clk_i), .rst_ni(rst_ni), .clear_i(start_i),
    .push_i(ar_hs), .data_i(arlen_o), .full_o(unused_lens_full),
    .pop_i(r_hs && !lens_empty && expect_last), .data_o(len_head), .empty_o(lens_empty), .count_o(unused_lens_count)
  );

  // A beat with no read outstanding is dropped; the others go to the fill as it takes them.
  assign r_valid_o = rvalid_i && !lens_empty;
  assign r_data_o       = rdata_i;
  assign rready_o     = lens_empty ? 1'b1 : r_ready_i;
  assign r_hs         = rvalid_i && rready_o;
  assign expect_last  = beat_q == len_head;
  assign last_hs      = r_hs && rlast_i;
  assign outstanding_o = out_q;
  // Idle when every burst's beats have come, by the master's own count: a slave that drops RLAST
  // cannot hold the run (its error is reported).
  assign idle_o       = lens_empty;

  logic [1:0] problem;
  always_comb begin
    problem = 2'd0;
    if (r_hs && (lens_empty || rid_i != IdW'(Id) || rlast_i != expect_last)) problem = 2'd2;
    else if (r_hs && rresp_i[1]) problem = 2'd1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_q <= '0;
      beat_q <= '0;
      error_o <= '0;
    end else if (start_i) begin
      out_q <= '0;
      beat_q <= '0;
      error_o <= '0;
    end else begin
      out_q <= out_q + (LgOut+1)'(ar_hs) - (LgOut+1)'(last_hs && out_q != '0);
      if (r_hs && !lens_empty) beat_q <= expect_last ? 8'd0 : beat_q + 8'd1;
      if (error_o == 2'd0) error_o <= problem;
    end
  end
  logic unused;
  assign unused = rresp_i[0];  // OKAY and EXOKAY alike: no exclusive accesses are made
endmodule
