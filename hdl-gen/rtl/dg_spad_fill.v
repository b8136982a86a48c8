// dg_spad_fill: the write side of one input stream's DMA (A or B). It queues the row requests
// the stream's AGU hands to the burst splitter (tile row, length in beats, last row of the K
// step), and writes the read data that comes back, in order, into the scratchpad: beat j of tile
// row r goes to bank dg_bank_map(r / Banks, r mod Banks) (r mod Banks, or XOR-swizzled), word
// Base + (r / Banks) * RowWords + j of the buffer being filled. Two buffers alternate per K step
// (double buffering with the compute engine): a buffer is full when its step's last beat is
// written, and free again when the engine releases it. The AGU may begin a step only while fewer
// than two steps hold buffers (may_begin_o). Part of the fixed DeepGEMM RTL library.
module dg_spad_fill #(
  parameter int LgBanks  = 4,
  parameter int WordBits = 128,
  parameter int SpadAW   = 10,
  parameter int RowW     = 4,     // tile-row index bits
  parameter int BeatsW   = 5,     // request length bits
  parameter int RowWords = 4,     // scratchpad words per tile row
  parameter int Base0    = 0,     // word of buffer 0 in every bank
  parameter int Base1    = 16,
  parameter int LgQueue  = 5,
  parameter bit BankXor  = 1'b0   // the bank mapping (dg_bank_map): XOR-swizzled, else modulo
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                start_i,       // a run begins: buffers empty, queue empty
  // row requests accepted by the DMA
  input  logic                req_i,
  input  logic [RowW-1:0]     req_row_i,
  input  logic [BeatsW-1:0]   req_beats_i,
  input  logic                req_last_i,
  output logic                queue_full_o,
  output logic                may_begin_o,
  // read data, in request order
  input  logic                r_valid_i,
  output logic                r_ready_o,
  input  logic [WordBits-1:0] r_data_i,
  // scratchpad write port (granted by the bank arbiter)
  output logic                wreq_o,
  input  logic                grant_i,
  output logic [LgBanks-1:0]  bank_o,
  output logic [SpadAW-1:0]   waddr_o,
  output logic [WordBits-1:0] wdata_o,
  // buffers
  input  logic                release_i,
  input  logic                release_buf_i,
  output logic [1:0]          full_o,
  output logic                idle_o
);
  localparam int DescW = RowW + BeatsW + 1;

  logic [DescW-1:0]  head;
  logic              empty, pop;
  logic [LgQueue:0]  unused_count;
  logic [RowW-1:0]   head_row;
  logic [BeatsW-1:0] head_beats;
  logic              head_last;

  dg_fifo #(.Width(DescW), .LgDepth(LgQueue)) u_queue (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .clear_i(start_i),
    .push_i (req_i),
    .data_i ({req_row_i, req_beats_i, req_last_i}),
    .full_o (queue_full_o),
    .pop_i  (pop),
    .data_o (head),
    .empty_o(empty),
    .count_o(unused_count)
  );
  assign {head_row, head_beats, head_last} = head;

  logic [BeatsW-1:0] beat_q;
  logic              buf_q;
  logic [1:0]        full_q, occ_q;
  logic              beat, last_beat;

  assign wreq_o    = r_valid_i && !empty;
  assign r_ready_o = !empty && grant_i;
  assign beat      = r_valid_i && r_ready_o;
  assign last_beat = beat_q == head_beats - BeatsW'(1);
  assign pop       = beat && last_beat;

  if (RowW > LgBanks) begin : g_bank
    dg_bank_map #(.LgBanks(LgBanks), .Xor(BankXor)) u_bank_map (
      .q_i   (LgBanks'(head_row >> LgBanks)),
      .j_i   (head_row[LgBanks-1:0]),
      .bank_o(bank_o)
    );
    assign waddr_o = SpadAW'(buf_q ? Base1 : Base0) + SpadAW'(head_row[RowW-1:LgBanks]) * SpadAW'(RowWords) + SpadAW'(beat_q);
  end else begin : g_bank_narrow
    assign bank_o  = LgBanks'(head_row);
    assign waddr_o = SpadAW'(buf_q ? Base1 : Base0) + SpadAW'(beat_q);
  end
  assign wdata_o = r_data_i;

  logic step_begin;
  assign step_begin = req_i && req_row_i == '0;
  assign may_begin_o = occ_q < 2'd2;
  assign full_o = full_q;
  assign idle_o = empty;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      beat_q <= '0;
      buf_q  <= 1'b0;
      full_q <= '0;
      occ_q  <= '0;
    end else if (start_i) begin
      beat_q <= '0;
      buf_q  <= 1'b0;
      full_q <= '0;
      occ_q  <= '0;
    end else begin
      if (beat) beat_q <= last_beat ? '0 : beat_q + BeatsW'(1);
      if (pop && head_last) begin
        full_q[buf_q] <= 1'b1;
        buf_q <= !buf_q;
      end
      if (release_i) full_q[release_buf_i] <= 1'b0;
      occ_q <= occ_q + 2'(step_begin) - 2'(release_i);
    end
  end

`ifdef FORMAL
  // The model's bank mapping (npu.spad_bank_map), stated from its definition rather than through
  // dg_bank_map: tile row r = q * Banks + j is written to bank j (modulo), or j ^ (q mod Banks)
  // (xor). The engines read through the same dg_bank_map, so a mapping that is not the model's
  // one, or a fill that hands it the wrong word row, fails here.
  logic [31:0]        f_row;
  logic [LgBanks-1:0] f_j, f_q;
  assign f_row = 32'(head_row);
  assign f_j   = LgBanks'(f_row % (32'd1 << LgBanks));
  assign f_q   = LgBanks'((f_row >> LgBanks) % (32'd1 << LgBanks));
  always @(*) begin
    if (wreq_o) assert (bank_o == (BankXor ? f_j ^ f_q : f_j));
  end
`endif
endmodule
