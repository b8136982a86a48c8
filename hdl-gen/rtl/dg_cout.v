// dg_cout: the write side of the C stream's DMA. It queues the row requests the C AGU hands to
// the burst splitter (tile row, length in beats, last row of the C tile) and the lengths of the
// write bursts the splitter issues, reads the accumulator buffer holding the tile (beat j of tile
// row r is lane j mod BeatsPerRow of accumulator row r * NNj + j / BeatsPerRow) once the engine
// has filled it, and sends the beats on the write data channel, marking each burst's last beat.
// The buffer is handed back to the engine when the tile's last beat has been read. Two buffers
// alternate per C tile. Each AccW-bit accumulator becomes a CW-bit element of C: sign-extended when
// CW is wider, saturated to CW's range when it is narrower. With byte rows (Align) a request's
// words are realigned to the beats that cover its row, with byte strobes (dg_wr_align); else every
// beat is whole. Part of the fixed DeepGEMM RTL library.
module dg_cout #(
  parameter int Cols        = 16,
  parameter int AccW        = 32,   // accumulator bits: 32, 48 or 64
  parameter int CW          = 32,   // C element bits: 32 or 64
  parameter int BusBits     = 128,
  parameter int BeatsPerRow = 4,    // bus beats per accumulator row
  parameter int NNj         = 2,    // accumulator rows per C tile row
  parameter int AccAW       = 5,
  parameter int RowW        = 4,
  parameter int BeatsW      = 5,
  parameter int LgQueue     = 4,
  parameter int LgOut       = 2,    // beats read ahead of the write data channel: 2^LgOut
  parameter int LgLens      = 3,    // write bursts issued ahead of their data: 2^LgLens
  parameter bit Align       = 1'b0, // byte rows: realign words to strobed beats
  parameter int LenW        = 5     // byte rows: bits of a request's words and beats
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                start_i,
  input  logic                req_i,
  input  logic [RowW-1:0]     req_row_i,
  input  logic [BeatsW-1:0]   req_beats_i,
  input  logic                req_last_i,
  // byte rows: the row's first byte in its beat, its end in its last beat, the beats covering it
  input  logic [$clog2(BusBits/8)-1:0] req_off_i,
  input  logic [$clog2(BusBits/8)-1:0] req_end_i,
  input  logic [LenW-1:0]     req_nb_i,
  output logic                queue_full_o,
  // accumulator buffers
  input  logic [1:0]          acc_full_i,
  output logic                acc_release_o,
  output logic                acc_buf_o,
  output logic                re_o,
  output logic [AccAW-1:0]    raddr_o,
  input  logic [Cols*AccW-1:0] rdata_i,
  // write bursts issued (their lengths frame the data)
  input  logic                aw_i,
  input  logic [8:0]          aw_len_i,
  output logic                lens_full_o,
  // write data
  output logic                w_valid_o,
  input  logic                w_ready_i,
  output logic [BusBits-1:0]  w_data_o,
  output logic [BusBits/8-1:0] w_strb_o,
  output logic                w_last_o,
  output logic                idle_o
`ifdef FORMAL
  ,
  // the write data channel's framing, for the proof that relates it to the AXI4 checker's
  output logic [(1<<LgLens)*9-1:0] f_lens_o,       // burst lengths issued, data not all sent: oldest first
  output logic [LgLens:0]     f_lens_count_o,
  output logic [8:0]          f_wbeat_o,          // beats of the oldest burst sent
  output logic [LgOut:0]      f_out_count_o,      // beats read ahead of the write data channel
  output logic [LgQueue:0]    f_queue_count_o     // row requests queued
`endif
);
  localparam int DescW = RowW + BeatsW + 1;
  localparam int LaneW = BeatsPerRow > 1 ? $clog2(BeatsPerRow) : 1;

  // Row requests.
  logic              row_full;
  logic [DescW-1:0]  head;
  logic              q_empty, q_pop;
  logic [RowW-1:0]   head_row;
  logic [BeatsW-1:0] head_beats;
  logic              head_last;
  logic [LgQueue:0]  unused_q_count;
  dg_fifo #(.Width(DescW), .LgDepth(LgQueue)) u_queue (
    .clk_i(clk_i), .rst_ni(rst_ni), .clear_i(start_i),
    .push_i(req_i), .data_i({req_row_i, req_beats_i, req_last_i}), .full_o(row_full),
    .pop_i(q_pop), .data_o(head), .empty_o(q_empty), .count_o(unused_q_count)
  );
  assign {head_row, head_beats, head_last} = head;

  // Beats read from the accumulator buffer wait here for the write data channel.
  logic [BusBits-1:0] out_head;
  logic               out_empty, out_full, out_pop, out_push;
  logic [LgOut:0]     out_count;
  logic [BusBits-1:0] lane_data;
  dg_fifo #(.Width(BusBits), .LgDepth(LgOut)) u_out (
    .clk_i(clk_i), .rst_ni(rst_ni), .clear_i(start_i),
    .push_i(out_push), .data_i(lane_data), .full_o(out_full),
    .pop_i(out_pop), .data_o(out_head), .empty_o(out_empty), .count_o(out_count)
  );

  // Burst lengths.
  logic [8:0] len_head;
  logic       lens_empty, lens_pop;
  logic [LgLens:0] unused_lens_count;
  dg_fifo #(.Width(9), .LgDepth(LgLens)) u_lens (
    .clk_i(clk_i), .rst_ni(rst_ni), .clear_i(start_i),
    .push_i(aw_i), .data_i(aw_len_i), .full_o(lens_full_o),
    .pop_i(lens_pop), .data_o(len_head), .empty_o(lens_empty), .count_o(unused_lens_count)
`ifdef FORMAL
    , .f_entries_o(f_lens_o)
`endif
  );

  logic              buf_q, rd_q, align_busy;
  logic [LaneW-1:0]  rd_lane_q;
  logic [BeatsW-1:0] beat_q;
  logic [8:0]        wbeat_q;
  logic              last_beat;

  // A read is issued when the tile's buffer is full and the output FIFO will have room for its
  // beat next cycle: the beats held and the one read last cycle, less the one leaving now (so two
  // entries carry one beat per cycle).
  assign re_o      = !q_empty && acc_full_i[buf_q] &&
                     32'(out_count) + 32'(rd_q) < 32'(1 << LgOut) + 32'(out_pop);
  assign raddr_o   = AccAW'(32'(head_row) * NNj + (32'(beat_q) / BeatsPerRow));
  assign acc_buf_o = buf_q;
  assign last_beat = beat_q == head_beats - BeatsW'(1);
  assign q_pop     = re_o && last_beat;
  assign acc_release_o = q_pop && head_last;

  // The accumulator row as a row of C.
  logic [Cols*CW-1:0] c_row;
  for (genvar j = 0; j < Cols; j++) begin : g_c
    logic [AccW-1:0] acc;
    assign acc = rdata_i[j*AccW +: AccW];
    if (CW >= AccW) begin : g_extend
      assign c_row[j*CW +: CW] = CW'($signed(acc));
    end else begin : g_saturate
      // It fits when the bits above C's sign bit all equal the sign.
      logic fits;
      assign fits = acc[AccW-1:CW-1] == '0 || acc[AccW-1:CW-1] == '1;
      assign c_row[j*CW +: CW] = fits ? acc[CW-1:0] : {acc[AccW-1], {(CW-1){!acc[AccW-1]}}};
    end
  end
  assign lane_data = c_row[32'(rd_lane_q) * BusBits +: BusBits];
  assign out_push  = rd_q;

  // The beats: the words as they are, or realigned to the rows' bytes (byte rows).
  logic               beat_valid, beat_ready;
  logic [BusBits-1:0] beat_data;
  if (Align) begin : g_align
    logic align_full, align_idle;
    dg_wr_align #(.BusBits(BusBits), .LenW(LenW), .LgQueue(LgQueue)) u_align (
      .clk_i(clk_i), .rst_ni(rst_ni), .start_i(start_i),
      .req_i(req_i), .req_off_i(req_off_i), .req_end_i(req_end_i), .req_beats_i(req_nb_i),
      .req_words_i(LenW'(req_beats_i)), .queue_full_o(align_full),
      .in_valid_i(!out_empty), .in_ready_o(out_pop), .in_data_i(out_head),
      .out_valid_o(beat_valid), .out_ready_i(beat_ready), .out_data_o(beat_data), .out_strb_o(w_strb_o),
      .idle_o(align_idle)
    );
    assign queue_full_o = row_full || align_full;
    assign align_busy = !align_idle;
  end else begin : g_whole
    assign beat_valid   = !out_empty;
    assign beat_data    = out_head;
    assign w_strb_o     = '1;
    assign out_pop      = beat_valid && beat_ready;
    assign queue_full_o = row_full;
    assign align_busy   = 1'b0;
    logic unused_align;
    assign unused_align = ^{req_off_i, req_end_i, req_nb_i};
  end
  assign w_valid_o  = beat_valid && !lens_empty;
  assign w_data_o   = beat_data;
  assign w_last_o   = wbeat_q == len_head - 9'd1;
  assign beat_ready = w_ready_i && !lens_empty;
  assign lens_pop   = w_valid_o && w_ready_i && w_last_o;

  logic unused_out;
  assign unused_out = out_full;
  assign idle_o = q_empty && out_empty && lens_empty && !rd_q && !align_busy;
`ifdef FORMAL
  assign f_lens_count_o = unused_lens_count;
  assign f_wbeat_o      = wbeat_q;
  assign f_out_count_o  = out_count;
  assign f_queue_count_o = unused_q_count;
`endif

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      buf_q <= 1'b0;
      rd_q <= 1'b0;
      rd_lane_q <= '0;
      beat_q <= '0;
      wbeat_q <= '0;
    end else if (start_i) begin
      buf_q <= 1'b0;
      rd_q <= 1'b0;
      beat_q <= '0;
      wbeat_q <= '0;
    end else begin
      rd_q <= re_o;
      rd_lane_q <= LaneW'(32'(beat_q) % BeatsPerRow);
      if (re_o) beat_q <= last_beat ? '0 : beat_q + BeatsW'(1);
      if (acc_release_o) buf_q <= !buf_q;
      if (w_valid_o && w_ready_i) wbeat_q <= w_last_o ? 9'd0 : wbeat_q + 9'd1;
    end
  end
endmodule
