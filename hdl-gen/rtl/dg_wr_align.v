// dg_wr_align: the byte-row realigner of the C stream's DMA. A row of C whose rows are not whole
// bus beats may start at any byte of a beat (its offset) and end inside one; its words (word j:
// the row's bytes j*BeatBytes .. (j+1)*BeatBytes - 1, as the accumulator buffer gives them) become
// the beats that cover it, with byte strobes that enable exactly the row's bytes: the first beat's
// bytes below the offset and the last beat's bytes past the row's end are never written, so that
// C's neighbours in memory (the next row, the bytes between rows) keep their values. Beat i of a
// row with offset o is the upper o bytes of word i - 1 and the lower BeatBytes - o bytes of word
// i; a row that straddles one more beat than it has words sends its last beat from its last word
// alone. Requests are described in request order (offset, end, beats, words). Part of the fixed
// DeepGEMM RTL library; dg_cout instantiates it in designs with byte rows.
//
// Under `FORMAL` the properties below are proved by k-induction: each request consumes exactly its
// words and produces exactly its beats, and the strobes of a request enable exactly its bytes.
module dg_wr_align #(
  parameter int BusBits = 128,
  parameter int LenW    = 5,   // bits of a request's beat and word counts
  parameter int LgQueue = 4
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 start_i,
  // request descriptors, in request order
  input  logic                 req_i,
  input  logic [$clog2(BusBits/8)-1:0] req_off_i,   // the row's first byte within its first beat
  input  logic [$clog2(BusBits/8)-1:0] req_end_i,   // (off + bytes) mod BeatBytes: 0 ends on a beat
  input  logic [LenW-1:0]      req_beats_i,  // beats written: ceil((off + bytes) / BeatBytes), >= 1
  input  logic [LenW-1:0]      req_words_i,  // words read: ceil(bytes / BeatBytes), >= 1
  output logic                 queue_full_o,
  // the words
  input  logic                 in_valid_i,
  output logic                 in_ready_o,
  input  logic [BusBits-1:0]   in_data_i,
  // the beats, to the write data channel
  output logic                 out_valid_o,
  input  logic                 out_ready_i,
  output logic [BusBits-1:0]   out_data_o,
  output logic [BusBits/8-1:0] out_strb_o,
  output logic                 idle_o
);
  localparam int BeatBytes = BusBits / 8;
  localparam int OffW      = $clog2(BeatBytes);
  localparam int DescW     = 2 * OffW + 2 * LenW;

  logic [DescW-1:0] head;
  logic             empty, pop;
  logic [LgQueue:0] unused_count;
  logic [OffW-1:0]  h_off, h_end;
  logic [LenW-1:0]  h_beats, h_words;
  dg_fifo #(.Width(DescW), .LgDepth(LgQueue)) u_desc (
    .clk_i(clk_i), .rst_ni(rst_ni), .clear_i(start_i),
    .push_i(req_i), .data_i({req_off_i, req_end_i, req_beats_i, req_words_i}), .full_o(queue_full_o),
    .pop_i(pop), .data_o(head), .empty_o(empty), .count_o(unused_count)
  );
  assign {h_off, h_end, h_beats, h_words} = head;

  logic [LenW-1:0]    out_q;    // beats sent of the head request (beat i takes word i, if any)
  logic [BusBits-1:0] prev_q;   // the last word taken
  logic               consume, last, fire_in, fire_out;
  assign consume = out_q != h_words;
  assign last    = out_q + LenW'(1) == h_beats;
  assign out_valid_o = !empty && (consume ? in_valid_i : 1'b1);
  assign in_ready_o  = !empty && consume && out_ready_i;
  assign fire_in  = in_valid_i && in_ready_o;
  assign fire_out = out_valid_o && out_ready_i;
  assign pop = fire_out && last;
  assign idle_o = empty;

  // The beat: bytes BeatBytes - off .. 2*BeatBytes - off - 1 of {this word, the last}.
  logic [2*BusBits-1:0] pair;
  logic [OffW:0]        shift;
  assign pair  = {consume ? in_data_i : BusBits'(0), prev_q};
  assign shift = (OffW+1)'(BeatBytes) - (OffW+1)'(h_off);
  assign out_data_o = BusBits'(pair >> {shift, 3'b000});
  // Strobes: the first beat from the offset up, the last below the end (0: the whole beat).
  logic [BeatBytes-1:0] from_off, below_end;
  assign from_off  = {BeatBytes{1'b1}} << h_off;
  assign below_end = h_end == '0 ? {BeatBytes{1'b1}} : ~({BeatBytes{1'b1}} << h_end);
  assign out_strb_o = (out_q == '0 ? from_off : {BeatBytes{1'b1}}) & (last ? below_end : {BeatBytes{1'b1}});

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_q  <= '0;
      prev_q <= '0;
    end else if (start_i) begin
      out_q <= '0;
    end else begin
      if (fire_in) prev_q <= in_data_i;
      if (fire_out) out_q <= last ? '0 : out_q + LenW'(1);
    end
  end

`ifdef FORMAL
  // The environment: descriptors of a row of `bytes` bytes at offset off (words = ceil(bytes / B),
  // beats = ceil((off + bytes) / B), end = (off + bytes) mod B), never pushed into a full queue.
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  localparam int CW = LenW + OffW + 2;
  // The row's bytes from its descriptor: the beats' bytes less the offset and the tail past the end.
  function automatic logic [CW-1:0] f_bytes(input logic [LenW-1:0] beats, input logic [OffW-1:0] off,
                                            input logic [OffW-1:0] e);
    f_bytes = (CW'(beats) << OffW) - CW'(off) - (e == '0 ? CW'(0) : CW'(BeatBytes) - CW'(e));
  endfunction
  always @(*) begin
    if (!f_past_valid) assume (!rst_ni);
    if (req_i) begin
      assume (!queue_full_o);
      assume (req_words_i != '0 && req_beats_i != '0);
      // words = ceil(bytes / B), with bytes >= 1
      assume (f_bytes(req_beats_i, req_off_i, req_end_i) >= CW'(1));
      assume ((CW'(req_words_i) << OffW) >= f_bytes(req_beats_i, req_off_i, req_end_i));
      assume ((CW'(req_words_i) << OffW) < f_bytes(req_beats_i, req_off_i, req_end_i) + CW'(BeatBytes));
    end
  end

  // Strobed bytes of the head request so far.
  reg [CW-1:0] f_strobed = '0;
  logic [OffW+1:0] f_ones;
  always @(*) begin
    f_ones = '0;
    for (int b = 0; b < BeatBytes; b++) f_ones = f_ones + (OffW+2)'(out_strb_o[b]);
  end
  always @(posedge clk_i) begin
    if (!rst_ni || start_i) f_strobed <= '0;
    else if (fire_out) f_strobed <= last ? '0 : f_strobed + CW'(f_ones);
  end
  // The head's progress, for a well-formed head (every head the environment pushes; the queue's
  // other entries are not constrained in the induction, so the properties are stated per head).
  logic f_ok;
  assign f_ok = h_words != '0 && h_beats != '0 && f_bytes(h_beats, h_off, h_end) >= CW'(1) &&
                (CW'(h_words) << OffW) >= f_bytes(h_beats, h_off, h_end) &&
                (CW'(h_words) << OffW) < f_bytes(h_beats, h_off, h_end) + CW'(BeatBytes);
  always @(*) begin
    // The queue never holds more than its depth (a push into a full queue is ignored).
    if (rst_ni && f_past_valid) assert (unused_count <= (LgQueue+1)'(1 << LgQueue));
    if (rst_ni && f_past_valid && !empty && f_ok) begin
      assert (out_q < h_beats && h_words <= h_beats && {1'b0, h_beats} <= {1'b0, h_words} + 1'b1);
      // One word per beat while words last; the beat past them only with an offset.
      if (!consume) assert (last && h_off != '0);
      // The strobes so far: the beats' bytes less the offset (all beats but the last are whole).
      assert (f_strobed == (out_q == '0 ? CW'(0) : (CW'(out_q) << OffW) - CW'(h_off)));
      // The last beat completes exactly the row's bytes.
      if (last) assert (f_strobed + CW'(f_ones) == f_bytes(h_beats, h_off, h_end));
    end
    if (rst_ni && f_past_valid && empty) assert (out_q == '0 && f_strobed == '0);
  end
`endif
endmodule
