// dg_rd_align: the byte-row realigner of a read stream's DMA. A row of an operand whose rows are
// not whole bus beats may start at any byte of a beat (its offset) and end inside one; the burst
// splitter fetches the beats that cover it, and this module turns them into the row's scratchpad
// words: word j holds the row's bytes j*BeatBytes .. (j+1)*BeatBytes - 1 (the bytes past the row's
// end in its last word are whatever the last beat holds; the compute engine adds zero for a k
// past K, and columns past N are never written out). Requests are described in request order
// (offset, beats fetched, words filled); the beats arrive in that order. Word j of a row with
// offset o is bytes o .. o + BeatBytes - 1 of beats j and j + 1: such a row takes its first beat
// without a word, and when its words equal its beats (it ends in the upper bytes of its last beat)
// sends its last word after its last beat. Part of the fixed
// DeepGEMM RTL library; a generated top instantiates one per read stream in designs with byte rows.
//
// Under `FORMAL` the properties below are proved by k-induction: each request consumes exactly its
// beats and produces exactly its words, in order, and a word never waits for a beat the request
// does not have.
module dg_rd_align #(
  parameter int BusBits = 128,
  parameter int LenW    = 5,   // bits of a request's beat and word counts
  parameter int LgQueue = 4
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               start_i,     // a run begins: nothing queued
  // request descriptors, in request order
  input  logic               req_i,
  input  logic [$clog2(BusBits/8)-1:0] req_off_i,    // the row's first byte within its first beat
  input  logic [LenW-1:0]    req_beats_i,  // beats fetched: ceil((off + bytes) / BeatBytes), >= 1
  input  logic [LenW-1:0]    req_words_i,  // words filled: ceil(bytes / BeatBytes), >= 1
  output logic               queue_full_o,
  // the beats, from the bus
  input  logic               in_valid_i,
  output logic               in_ready_o,
  input  logic [BusBits-1:0] in_data_i,
  // the words, to the scratchpad fill
  output logic               out_valid_o,
  input  logic               out_ready_i,
  output logic [BusBits-1:0] out_data_o,
  output logic               idle_o
);
  localparam int BeatBytes = BusBits / 8;
  localparam int OffW      = $clog2(BeatBytes);
  localparam int DescW     = OffW + 2 * LenW;

  logic [DescW-1:0]  head;
  logic              empty, pop;
  logic [LgQueue:0]  unused_count;
  logic [OffW-1:0]   h_off;
  logic [LenW-1:0]   h_beats, h_words;
  dg_fifo #(.Width(DescW), .LgDepth(LgQueue)) u_desc (
    .clk_i(clk_i), .rst_ni(rst_ni), .clear_i(start_i),
    .push_i(req_i), .data_i({req_off_i, req_beats_i, req_words_i}), .full_o(queue_full_o),
    .pop_i(pop), .data_o(head), .empty_o(empty), .count_o(unused_count)
  );
  assign {h_off, h_beats, h_words} = head;

  logic [LenW-1:0]    in_q, out_q;   // beats taken and words sent of the head request
  logic [BusBits-1:0] prev_q;        // the last beat taken
  logic               lead, need_in, absorb, fire_in, fire_out;
  assign lead    = h_off != '0;                  // the first beat only fills prev_q
  assign need_in = in_q != h_beats;
  assign absorb  = lead && in_q == '0;
  assign out_valid_o = !empty && (need_in ? !absorb && in_valid_i : 1'b1);
  assign in_ready_o  = !empty && need_in && (absorb || out_ready_i);
  assign fire_in  = in_valid_i && in_ready_o;
  assign fire_out = out_valid_o && out_ready_i;

  // The word: bytes off .. off + BeatBytes - 1 of {this beat, the last} (off 0: this beat).
  logic [2*BusBits-1:0] pair;
  logic [$clog2(BeatBytes)+1:0] shift;
  assign pair  = {need_in ? in_data_i : BusBits'(0), prev_q};
  assign shift = lead ? ($clog2(BeatBytes)+2)'(h_off) : ($clog2(BeatBytes)+2)'(BeatBytes);
  assign out_data_o = BusBits'(pair >> {shift, 3'b000});

  logic [LenW-1:0] in_next, out_next;
  assign in_next  = in_q + LenW'(fire_in);
  assign out_next = out_q + LenW'(fire_out);
  assign pop = !empty && in_next == h_beats && out_next == h_words;
  assign idle_o = empty;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_q   <= '0;
      out_q  <= '0;
      prev_q <= '0;
    end else if (start_i) begin
      in_q  <= '0;
      out_q <= '0;
    end else begin
      if (fire_in) prev_q <= in_data_i;
      in_q  <= pop ? '0 : in_next;
      out_q <= pop ? '0 : out_next;
    end
  end

`ifdef FORMAL
  // The environment: descriptors as the top computes them from a row of `bytes` bytes at offset
  // off (words = ceil(bytes / B), beats = ceil((off + bytes) / B), so beats is words or words + 1,
  // and words + 1 only when off > 0), never pushed into a full queue.
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) begin
    if (!f_past_valid) assume (!rst_ni);
    if (req_i) begin
      assume (!queue_full_o);
      assume (req_words_i != '0);
      assume (req_beats_i == req_words_i || ({1'b0, req_beats_i} == {1'b0, req_words_i} + 1'b1 && req_off_i != '0));
    end
  end

  // The head's progress, for a well-formed head (every head the environment pushes; the queue's
  // other entries are not constrained in the induction, so the properties are stated per head).
  logic f_ok;
  assign f_ok = h_words != '0 && (h_beats == h_words || ({1'b0, h_beats} == {1'b0, h_words} + 1'b1 && h_off != '0));
  always @(*) begin
    // The queue never holds more than its depth (a push into a full queue is ignored).
    if (rst_ni && f_past_valid) assert (unused_count <= (LgQueue+1)'(1 << LgQueue));
    if (rst_ni && f_past_valid && !empty && f_ok) begin
      // Beats taken and words sent stay inside the counts, and the words follow the beats: one
      // word per beat after the first (with an offset), or per beat.
      assert (in_q <= h_beats && out_q < h_words);
      if (lead) assert (in_q == '0 ? out_q == '0 : {1'b0, out_q} + 1'b1 == {1'b0, in_q});
      if (!lead) assert (out_q == in_q);
      // A word is sent without a beat only after the last beat (the row's tail in prev_q).
      if (out_valid_o && !need_in) assert (out_q + 1'b1 == h_words);
    end
    if (rst_ni && f_past_valid && empty) assert (in_q == '0 && out_q == '0);
  end
`endif
endmodule
