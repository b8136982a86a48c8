// dg_epi_fetch: the epilogue's operands. At the start of a run it reads the per-column vectors
// of the fused epilogue from DRAM — bias (N int32, when HasBias) and then rq (N records of 8
// bytes, when HasRq) — in one request each through a burst splitter (beat-aligned bursts of at
// most MaxBurst beats, never across Boundary bytes), on the B stream's read channels: a burst of
// B's and one of its own take turns on the read address channel (a burst presented stays until
// taken), and a FIFO of the bursts issued, in order, sends each returning beat to B's fill or
// into the parameter tables. Once every beat is in (ready_o) the C write-out may read C tiles:
// a read of accumulator row raddr_i of the current C tile (re_i) reads, with the same one-cycle
// latency as the accumulator buffer, the parameters of that row's Cols columns (column block
// raddr_i mod NNj of the tile's TileN columns); tile_done_i moves to the next C tile, in the
// loop order of block_m and block_n (NTiles column tiles). Part of the fixed DeepGEMM RTL
// library.
module dg_epi_fetch #(
  parameter int AddrW     = 32,
  parameter int BeatBytes = 16,
  parameter int MaxBurst  = 256,
  parameter int Boundary  = 4096,
  parameter int Cols      = 16,
  parameter int NNj       = 2,     // column blocks of Cols per C tile
  parameter int NTiles    = 1,     // C tiles along N
  parameter bit HasBias   = 1'b1,
  parameter bit HasRq     = 1'b0,
  parameter int BiasBeats = 8,     // beats of the bias vector (N * 4 bytes)
  parameter int RqBeats   = 16,    // beats of the rq records (N * 8 bytes)
  parameter int AccAW     = 5,
  parameter int LgRoute   = 4      // bursts tracked on the shared channel: 2^LgRoute
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   start_i,
  input  logic [AddrW-1:0]       bias_base_i,
  input  logic [AddrW-1:0]       rq_base_i,
  // B's bursts and data
  input  logic                   b_ar_valid_i,
  output logic                   b_ar_ready_o,
  input  logic [AddrW-1:0]       b_ar_addr_i,
  input  logic [8:0]             b_ar_len_i,
  output logic                   b_r_valid_o,
  input  logic                   b_r_ready_i,
  output logic [BeatBytes*8-1:0] b_r_data_o,
  // the shared read channels
  output logic                   ar_valid_o,
  input  logic                   ar_ready_i,
  output logic [AddrW-1:0]       ar_addr_o,
  output logic [8:0]             ar_len_o,
  input  logic                   r_valid_i,
  output logic                   r_ready_o,
  input  logic [BeatBytes*8-1:0] r_data_i,
  // the C write-out's reads
  output logic                   ready_o,
  output logic                   busy_o,       // a request or burst of its own not yet issued
  input  logic                   re_i,
  input  logic [AccAW-1:0]       raddr_i,
  input  logic                   tile_done_i,
  output logic [Cols*32-1:0]     bias_o,
  output logic [Cols*64-1:0]     rq_o
);
  localparam int BusBits = BeatBytes * 8;
  localparam int Rows    = NTiles * NNj;                 // rows of Cols columns in the tables
  localparam int BiasBpr = Cols * 32 / BusBits;           // beats per row of each table
  localparam int RqBpr   = Cols * 64 / BusBits;
  localparam int BiasDepth = HasBias ? Rows * BiasBpr : 1;
  localparam int RqDepth   = HasRq ? Rows * RqBpr : 1;
  localparam int NBias = HasBias ? BiasBeats : 0;
  localparam int NRq   = HasRq ? RqBeats : 0;
  localparam int Total = NBias + NRq;
  localparam int TW    = $clog2(Total + 1);
  localparam int TnW   = NTiles > 1 ? $clog2(NTiles) : 1;
  localparam int BAW   = BiasDepth > 1 ? $clog2(BiasDepth) : 1;
  localparam int RAW   = RqDepth > 1 ? $clog2(RqDepth) : 1;

  // ---- requests: bias, then rq ------------------------------------------------------------------
  logic [1:0]       req_q;     // requests issued in this run
  logic             req_valid, req_ready, req_is_rq;
  logic [AddrW-1:0] req_addr;
  logic [15:0]      req_beats;
  localparam int NReq = (HasBias ? 1 : 0) + (HasRq ? 1 : 0);
  assign req_is_rq = !HasBias || req_q != 2'd0;
  assign req_valid = 32'(req_q) < NReq;
  assign req_addr  = req_is_rq ? rq_base_i : bias_base_i;
  assign req_beats = 16'(req_is_rq ? RqBeats : BiasBeats);

  logic             e_valid, e_ready, unused_e_last;
  logic [AddrW-1:0] e_addr;
  logic [8:0]       e_len;
  dg_burst_split #(.AddrW(AddrW), .BeatBytes(BeatBytes), .MaxBurst(MaxBurst), .Boundary(Boundary)) u_split (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .req_valid_i  (req_valid),
    .req_ready_o  (req_ready),
    .req_addr_i   (req_addr),
    .req_beats_i  (req_beats),
    .burst_valid_o(e_valid),
    .burst_ready_i(e_ready),
    .burst_addr_o (e_addr),
    .burst_len_o  (e_len),
    .burst_last_o (unused_e_last)
  );
  assign busy_o = req_valid || e_valid;

  // ---- the shared read address channel ----------------------------------------------------------
  logic lock_q, lock_sel_q, sel, route_full, route_empty, ar_hs;
  logic [9:0] route_head;
  logic [LgRoute:0] unused_route_count;
  assign sel          = lock_q ? lock_sel_q : e_valid;   // 1: its own burst
  assign ar_valid_o   = !route_full && (sel ? e_valid : b_ar_valid_i);
  assign ar_addr_o    = sel ? e_addr : b_ar_addr_i;
  assign ar_len_o     = sel ? e_len : b_ar_len_i;
  assign ar_hs        = ar_valid_o && ar_ready_i;
  assign e_ready      = sel && ar_ready_i && !route_full;
  assign b_ar_ready_o = !sel && ar_ready_i && !route_full;

  // ---- the returning data -----------------------------------------------------------------------
  logic       pop, head_e, beat, e_beat, last_beat;
  logic [8:0] head_len, rbeat_q;
  dg_fifo #(.Width(10), .LgDepth(LgRoute)) u_route (
    .clk_i(clk_i), .rst_ni(rst_ni), .clear_i(start_i),
    .push_i(ar_hs), .data_i({sel, ar_len_o}), .full_o(route_full),
    .pop_i(pop), .data_o(route_head), .empty_o(route_empty), .count_o(unused_route_count)
  );
  assign {head_e, head_len} = route_head;
  assign b_r_valid_o = r_valid_i && !route_empty && !head_e;
  assign b_r_data_o  = r_data_i;
  assign r_ready_o   = !route_empty && (head_e || b_r_ready_i);
  assign beat        = r_valid_i && r_ready_o;
  assign e_beat      = beat && head_e;
  assign last_beat   = rbeat_q == head_len - 9'd1;
  assign pop         = beat && last_beat;

  // ---- the tables: one entry per bus beat -------------------------------------------------------
  logic [BusBits-1:0] bias_mem [BiasDepth];
  logic [BusBits-1:0] rq_mem [RqDepth];
  logic [TW-1:0]      got_q;    // beats of its own received
  logic               rq_phase_q;  // the beats coming are rq's (bias's are all in)
  logic [TnW-1:0]     tn_q;     // the C tile's column tile
  logic [31:0]        row;
  assign ready_o = 32'(got_q) == Total;
  assign row = 32'(tn_q) * NNj + 32'(raddr_i) % NNj;

  always_ff @(posedge clk_i) begin
    if (e_beat && HasBias && !rq_phase_q) bias_mem[BAW'(32'(got_q) % BiasDepth)] <= r_data_i;
    if (e_beat && HasRq && rq_phase_q) rq_mem[RAW'((32'(got_q) - NBias) % RqDepth)] <= r_data_i;
    if (re_i) begin
      for (int i = 0; i < BiasBpr; i++) bias_o[i*BusBits +: BusBits] <= bias_mem[BAW'((row * BiasBpr + i) % BiasDepth)];
      for (int i = 0; i < RqBpr; i++) rq_o[i*BusBits +: BusBits] <= rq_mem[RAW'((row * RqBpr + i) % RqDepth)];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      req_q <= 2'(NReq);  // nothing to fetch before the first run
      lock_q <= 1'b0;
      lock_sel_q <= 1'b0;
      rbeat_q <= '0;
      got_q <= '0;
      tn_q <= '0;
      rq_phase_q <= !HasBias;
    end else if (start_i) begin
      req_q <= '0;
      lock_q <= 1'b0;
      rbeat_q <= '0;
      got_q <= '0;
      tn_q <= '0;
      rq_phase_q <= !HasBias;
    end else begin
      if (req_valid && req_ready) req_q <= req_q + 2'd1;
      lock_q <= ar_valid_o && !ar_ready_i;
      lock_sel_q <= sel;
      if (beat) rbeat_q <= last_beat ? 9'd0 : rbeat_q + 9'd1;
      if (e_beat) got_q <= got_q + TW'(1);
      if (e_beat && 32'(got_q) + 32'd1 == NBias) rq_phase_q <= 1'b1;
      if (tile_done_i) tn_q <= 32'(tn_q) == NTiles - 1 ? '0 : tn_q + TnW'(1);
    end
  end
endmodule
