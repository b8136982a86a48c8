// dg_rd_gear: the read side of a stream's DMA where the scratchpad word is not the bus beat (a
// wider or narrower bus than the array's row). A row of an operand starts at any byte of a beat
// (its offset); the burst splitter fetches the beats that cover it, and this module regroups
// their bytes into the row's scratchpad words: word j holds the row's bytes j*WordBytes ..
// (j+1)*WordBytes - 1 (a last word past the row's end holds whatever follows it in the last beat,
// or zeros; the compute engine adds zero for a k past K, and columns past N are never written
// out). The bytes wait in a buffer of one beat and one word: a beat is taken when the buffer has
// room for it, a word leaves when the buffer holds one, or, after the row's last beat, what is
// left; what follows the row's last word in its last beat is dropped. Requests are described in
// request order (offset, beats fetched, words filled). Part of the fixed DeepGEMM RTL library; a
// generated top instantiates one per read stream in designs whose scratchpad word is not the bus
// beat (dg_rd_align where it is).
//
// Under `FORMAL` the properties below are proved by k-induction: each request takes exactly its
// beats and gives exactly its words, the buffer holds exactly the bytes taken and not yet given,
// and a partial word leaves only as the request's last.
module dg_rd_gear #(
  parameter int BusBits  = 256,
  parameter int WordBits = 128,
  parameter int LenW     = 6,   // bits of a request's beat and word counts
  parameter int LgQueue  = 4
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                start_i,     // a run begins: nothing queued
  // request descriptors, in request order
  input  logic                req_i,
  input  logic [$clog2(BusBits/8)-1:0] req_off_i,    // the row's first byte within its first beat
  input  logic [LenW-1:0]     req_beats_i,  // beats fetched: ceil((off + bytes) / BeatBytes), >= 1
  input  logic [LenW-1:0]     req_words_i,  // words filled: ceil(bytes / WordBytes), >= 1
  output logic                queue_full_o,
  // the beats, from the bus
  input  logic                in_valid_i,
  output logic                in_ready_o,
  input  logic [BusBits-1:0]  in_data_i,
  // the words, to the scratchpad fill
  output logic                out_valid_o,
  input  logic                out_ready_i,
  output logic [WordBits-1:0] out_data_o,
  output logic                idle_o
);
  localparam int BeatBytes = BusBits / 8;
  localparam int WordBytes = WordBits / 8;
  localparam int Cap       = BeatBytes + WordBytes;  // the buffer's bytes
  localparam int CntW      = $clog2(Cap + 1);
  localparam int OffW      = $clog2(BeatBytes);
  localparam int DescW     = OffW + 2 * LenW;

  logic [DescW-1:0] head;
  logic             empty, pop;
  logic [LgQueue:0] unused_count;
  logic [OffW-1:0]  h_off;
  logic [LenW-1:0]  h_beats, h_words;
  dg_fifo #(.Width(DescW), .LgDepth(LgQueue)) u_desc (
    .clk_i(clk_i), .rst_ni(rst_ni), .clear_i(start_i),
    .push_i(req_i), .data_i({req_off_i, req_beats_i, req_words_i}), .full_o(queue_full_o),
    .pop_i(pop), .data_o(head), .empty_o(empty), .count_o(unused_count)
  );
  assign {h_off, h_beats, h_words} = head;

  logic [Cap*8-1:0] buf_q;   // bytes taken and not yet given, from byte 0; zero above them
  logic [CntW-1:0]  cnt_q;   // how many
  logic [LenW-1:0]  in_q, out_q;
  logic             need_in, fire_in, fire_out;
  assign need_in = in_q != h_beats;

  // A word: the buffer's first WordBytes bytes, when it holds them, or the rest after the last beat.
  assign out_valid_o = !empty && out_q != h_words && (cnt_q >= CntW'(WordBytes) || !need_in);
  assign fire_out    = out_valid_o && out_ready_i;
  assign out_data_o  = buf_q[WordBits-1:0];
  logic [Cap*8-1:0] buf_left;
  logic [CntW-1:0]  cnt_left;
  assign buf_left = fire_out ? buf_q >> WordBits : buf_q;
  assign cnt_left = !fire_out ? cnt_q : cnt_q >= CntW'(WordBytes) ? cnt_q - CntW'(WordBytes) : '0;

  // A beat: its bytes from the offset (the row's first beat) or all, after what is left.
  logic             first;
  logic [CntW-1:0]  take;
  logic [BusBits-1:0] bytes_in;
  assign first      = in_q == '0;
  assign take       = first ? CntW'(BeatBytes) - CntW'(h_off) : CntW'(BeatBytes);
  assign in_ready_o = !empty && need_in && cnt_left <= CntW'(WordBytes);
  assign fire_in    = in_valid_i && in_ready_o;
  assign bytes_in   = first ? in_data_i >> {h_off, 3'b000} : in_data_i;

  logic [LenW-1:0] in_next, out_next;
  assign in_next  = in_q + LenW'(fire_in);
  assign out_next = out_q + LenW'(fire_out);
  assign pop      = !empty && in_next == h_beats && out_next == h_words;
  assign idle_o   = empty;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      buf_q <= '0;
      cnt_q <= '0;
      in_q  <= '0;
      out_q <= '0;
    end else if (start_i || pop) begin
      // (The bytes past the row's last word in its last beat are dropped.)
      buf_q <= '0;
      cnt_q <= '0;
      in_q  <= '0;
      out_q <= '0;
    end else begin
      buf_q <= fire_in ? buf_left | ((Cap*8)'(bytes_in) << {cnt_left, 3'b000}) : buf_left;
      cnt_q <= fire_in ? cnt_left + take : cnt_left;
      in_q  <= in_next;
      out_q <= out_next;
    end
  end

`ifdef FORMAL
  // The environment: descriptors as the top computes them from a row of `bytes` bytes at offset
  // off (beats = ceil((off + bytes) / BeatBytes), words = ceil(bytes / WordBytes)), never pushed
  // into a full queue.
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  localparam int FW = LenW + $clog2(Cap) + 2;
  // The bytes a head's beats bring (less the offset), and a row's bytes bounds from its words.
  function automatic logic [FW-1:0] f_brought(input logic [LenW-1:0] beats, input logic [OffW-1:0] off);
    f_brought = beats == '0 ? FW'(0) : FW'(beats) * FW'(BeatBytes) - FW'(off);
  endfunction
  // Well formed: some `bytes` in 1 .. brought with words = ceil(bytes / W) and beats = ceil((off +
  // bytes) / B): the beats bring at least words - 1 whole words and a byte, and the last beat is
  // needed (the beats less one bring fewer than the row's bytes, which are more than (words - 1) W).
  function automatic logic f_ok(input logic [LenW-1:0] beats, input logic [LenW-1:0] words, input logic [OffW-1:0] off);
    f_ok = beats != '0 && words != '0 &&
           f_brought(beats, off) > FW'(words - 1'b1) * FW'(WordBytes) &&
           f_brought(beats - 1'b1, off) < FW'(words) * FW'(WordBytes);
  endfunction
  always @(*) begin
    if (!f_past_valid) assume (!rst_ni);
    if (req_i) begin
      assume (!queue_full_o);
      assume (f_ok(req_beats_i, req_words_i, req_off_i));
    end
  end

  always @(*) begin
    // The queue never holds more than its depth (a push into a full queue is ignored).
    if (rst_ni && f_past_valid) assert (unused_count <= (LgQueue+1)'(1 << LgQueue));
    if (rst_ni && f_past_valid && !empty && f_ok(h_beats, h_words, h_off)) begin
      assert (in_q <= h_beats && out_q < h_words && cnt_q <= CntW'(Cap));
      // The buffer holds the bytes taken less the whole words given.
      assert (FW'(cnt_q) + FW'(out_q) * FW'(WordBytes) == f_brought(in_q, h_off));
      // A partial word leaves only as the request's last.
      if (out_valid_o && cnt_q < CntW'(WordBytes)) assert (!need_in && out_q + 1'b1 == h_words);
      // A word waits only for a beat the request has.
      if (!out_valid_o && out_q != h_words) assert (need_in);
    end
    if (rst_ni && f_past_valid && empty) assert (in_q == '0 && out_q == '0 && cnt_q == '0);
  end
`endif
endmodule
