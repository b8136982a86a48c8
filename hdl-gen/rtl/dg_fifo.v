// dg_fifo: a synchronous first-word-fall-through FIFO of 2^LgDepth entries (the DMA's request
// queues and the C write-data buffer). data_o is the oldest entry while empty_o is low; a push
// when full and a pop when empty are ignored. Under `FORMAL` it also shows its entries, oldest
// first (f_entries_o), for proofs that relate them to another model's. Part of the fixed DeepGEMM
// RTL library.
module dg_fifo #(
  parameter int Width   = 8,
  parameter int LgDepth = 4
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               clear_i,    // empties the FIFO (start of a run)
  input  logic               push_i,
  input  logic [Width-1:0]   data_i,
  output logic               full_o,
  input  logic               pop_i,
  output logic [Width-1:0]   data_o,
  output logic               empty_o,
  output logic [LgDepth:0]   count_o
`ifdef FORMAL
  ,
  output logic [(1<<LgDepth)*Width-1:0] f_entries_o  // entry i: the i-th oldest (valid below count_o)
`endif
);
  localparam int Depth = 1 << LgDepth;

  logic [Width-1:0] mem_q [Depth];
  logic [LgDepth:0] wr_q, rd_q;

  assign count_o = wr_q - rd_q;
  assign full_o  = count_o == (LgDepth+1)'(Depth);
  assign empty_o = wr_q == rd_q;
  assign data_o  = mem_q[rd_q[LgDepth-1:0]];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q <= '0;
      rd_q <= '0;
    end else if (clear_i) begin
      wr_q <= '0;
      rd_q <= '0;
    end else begin
      if (push_i && !full_o) wr_q <= wr_q + (LgDepth+1)'(1);
      if (pop_i && !empty_o) rd_q <= rd_q + (LgDepth+1)'(1);
    end
  end

  always_ff @(posedge clk_i) begin
    if (push_i && !full_o) mem_q[wr_q[LgDepth-1:0]] <= data_i;
  end
`ifdef FORMAL
  always @(*)
    for (int i = 0; i < Depth; i++) f_entries_o[i*Width +: Width] = mem_q[LgDepth'(rd_q[LgDepth-1:0] + LgDepth'(i))];
`endif
endmodule
