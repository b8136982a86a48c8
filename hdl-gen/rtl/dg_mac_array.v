// dg_mac_array: Rows x Cols processing elements, output stationary: in a step PE (i, j) adds
// a_i * b_j to its 32-bit accumulator (two's complement, wrapping), where a_i is the A element
// of row i and b_j the B element of column j at the current k. Inputs are AW-bit (BW-bit) lanes,
// signed when ASigned (BSigned), extended exactly into the product. At the end of a sub-block
// (to_shadow_i with a step) every accumulator moves, with that step's product, into its shadow
// register and restarts from zero, so the drain of one sub-block overlaps the next one's
// products. Part of the fixed DeepGEMM RTL library.
module dg_mac_array #(
  parameter int Rows    = 16,
  parameter int Cols    = 16,
  parameter int AW      = 8,
  parameter int BW      = 8,
  parameter bit ASigned = 1'b1,
  parameter bit BSigned = 1'b1
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   step_i,       // a k step happens this cycle
  input  logic                   mask_i,       // ... and its k is inside K (else it adds zero)
  input  logic                   to_shadow_i,  // ... and it is the sub-block's last
  input  logic [Rows*AW-1:0]     a_i,
  input  logic [Cols*BW-1:0]     b_i,
  output logic [Rows*Cols*32-1:0] shadow_o
);
  for (genvar i = 0; i < Rows; i++) begin : g_row
    for (genvar j = 0; j < Cols; j++) begin : g_col
      logic signed [AW:0]    a;
      logic signed [BW:0]    b;
      logic signed [AW+BW+1:0] p;
      logic [31:0] acc_q, shadow_q, sum;
      assign a = {ASigned ? a_i[i*AW+AW-1] : 1'b0, a_i[i*AW +: AW]};
      assign b = {BSigned ? b_i[j*BW+BW-1] : 1'b0, b_i[j*BW +: BW]};
      assign p = a * b;
      assign sum = acc_q + (mask_i ? 32'(p) : 32'd0);
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          acc_q <= '0;
          shadow_q <= '0;
        end else if (step_i) begin
          if (to_shadow_i) begin
            shadow_q <= sum;
            acc_q <= '0;
          end else begin
            acc_q <= sum;
          end
        end
      end
      assign shadow_o[(i*Cols+j)*32 +: 32] = shadow_q;
    end
  end
endmodule
