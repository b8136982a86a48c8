// dg_ws_array: Rows x Cols processing elements, weight stationary. PE (i, j) holds one weight,
// the B element of row i (a k) and column j (an n) of the block loaded last; a step presents one
// row of A restricted to the block's Rows k (a_i, lane i for k = i) and the array computes, for
// every column j, the Rows-deep dot product sum_i a_i * w_ij, registered into psum_o the next
// cycle. Each weight row carries a mask bit (mask_i at load): a masked row (a k past K) adds
// zero whatever its operands are. The weights are double-buffered: load_i writes the shadow
// weights while the active ones are in use, and swap_i makes the shadow weights active from the
// next step on, so a block's weights load while the previous block streams. Inputs are AW-bit
// (BW-bit) lanes, signed when ASigned (BSigned), extended exactly into the product; sums wrap at
// AccW bits (two's complement), as the accumulators do. Part of the fixed DeepGEMM RTL library.
module dg_ws_array #(
  parameter int Rows    = 16,
  parameter int Cols    = 16,
  parameter int AW      = 8,
  parameter int BW      = 8,
  parameter bit ASigned = 1'b1,
  parameter bit BSigned = 1'b1,
  parameter int AccW    = 32     // accumulator bits: 32, 48 or 64
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 load_i,     // the shadow weights take w_i and mask_i
  input  logic [Rows*Cols*BW-1:0] w_i,     // row i, column j at bits (i*Cols + j)*BW
  input  logic [Rows-1:0]      mask_i,     // row i is inside K
  input  logic                 swap_i,     // the shadow weights become the active ones
  input  logic [Rows*AW-1:0]   a_i,        // the streamed A row's Rows elements
  output logic [Cols*AccW-1:0] psum_o      // the dot products of the previous cycle's a_i
);
  localparam int PA = ASigned ? AW : AW + 1;  // the multiplier's signed operand widths
  localparam int PB = BSigned ? BW : BW + 1;

  logic [Rows*Cols*BW-1:0] sh_w_q, w_q;
  logic [Rows-1:0]         sh_mask_q, mask_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sh_w_q <= '0;
      sh_mask_q <= '0;
      w_q <= '0;
      mask_q <= '0;
    end else begin
      if (load_i) begin
        sh_w_q <= w_i;
        sh_mask_q <= mask_i;
      end
      if (swap_i) begin
        w_q <= sh_w_q;
        mask_q <= sh_mask_q;
      end
    end
  end

  for (genvar j = 0; j < Cols; j++) begin : g_col
    logic [Rows*AccW-1:0] prod;
    for (genvar i = 0; i < Rows; i++) begin : g_pe
      // A signed input is multiplied as it is, an unsigned one with a zero bit above it.
      logic signed [PA-1:0]    a;
      logic signed [PB-1:0]    b;
      logic signed [PA+PB-1:0] p;
      if (ASigned) begin : g_as
        assign a = a_i[i*AW +: AW];
      end else begin : g_au
        assign a = {1'b0, a_i[i*AW +: AW]};
      end
      if (BSigned) begin : g_bs
        assign b = w_q[(i*Cols+j)*BW +: BW];
      end else begin : g_bu
        assign b = {1'b0, w_q[(i*Cols+j)*BW +: BW]};
      end
      assign p = a * b;
      assign prod[i*AccW +: AccW] = mask_q[i] ? AccW'(p) : '0;
    end
    logic [AccW-1:0] sum;
    always_comb begin
      sum = '0;
      for (int i = 0; i < Rows; i++) sum = sum + prod[i*AccW +: AccW];
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) psum_o[j*AccW +: AccW] <= '0;
      else psum_o[j*AccW +: AccW] <= sum;
    end
  end
endmodule
