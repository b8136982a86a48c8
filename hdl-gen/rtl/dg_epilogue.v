// dg_epilogue: the fused epilogue of the C stream, applied to each accumulator row as the C
// write-out reads it from the accumulator buffer (the accumulator drain), before the row is cut
// into bus beats. Per column j of the row, with acc the AccW-bit accumulator (two's complement):
//
//   bias      s = acc + bias[j] (bias an int32, sign-extended), saturated to AccW bits
//   relu      s = max(s, 0)
//   requant   p = s * mult[j] (exact), r = (p + 2^(shift[j]-1)) >>> shift[j] (shift 0: r = p),
//             q = r + zp[j], saturated to OutBits (int8 or int16): rounding half up (ties toward
//             +infinity), arithmetic shift, saturation after the zero point
//
// Each stage is present only when its parameter is set; the result is AccW bits (sign-extended
// from OutBits after requantization), which the C write-out (dg_cout) narrows to C's width by
// saturation. The per-column parameters come from the operand records the epilogue fetch
// (dg_epi_fetch) holds: bias_i lane j is bias[j]; rq_i lane j (64 bits) is {zp[j] (int16), 8
// unused bits, shift[j] (bits 37:32, 0..63; bits 39:38 unused), mult[j] (int32)}. Combinational.
// Part of the fixed DeepGEMM RTL library.
module dg_epilogue #(
  parameter int Cols    = 16,
  parameter int AccW    = 32,
  parameter bit Bias    = 1'b1,
  parameter bit Relu    = 1'b1,
  parameter bit Requant = 1'b0,
  parameter int OutBits = 8      // requantized element: 8 or 16 bits
) (
  input  logic [Cols*AccW-1:0] acc_i,
  input  logic [Cols*32-1:0]   bias_i,
  input  logic [Cols*64-1:0]   rq_i,
  output logic [Cols*AccW-1:0] out_o
);
  localparam int PW = AccW + 34;  // the product, its rounding and the zero point, exactly

  for (genvar j = 0; j < Cols; j++) begin : g_col
    logic signed [AccW:0]   sum;
    logic signed [AccW-1:0] s_sat, s_act;
    logic signed [PW-1:0]   prod, rnd, shifted, q;
    logic [5:0]             sh;
    logic                   over, under;
    assign sum = Bias ? $signed({acc_i[j*AccW+AccW-1], acc_i[j*AccW +: AccW]}) + (AccW+1)'($signed(bias_i[j*32 +: 32]))
                      : $signed({acc_i[j*AccW+AccW-1], acc_i[j*AccW +: AccW]});
    // Saturation to AccW bits: the sum's two top bits differ on overflow.
    assign s_sat = sum[AccW] == sum[AccW-1] ? sum[AccW-1:0] : {sum[AccW], {(AccW-1){!sum[AccW]}}};
    assign s_act = Relu && s_sat[AccW-1] ? '0 : s_sat;
    assign sh = rq_i[j*64+32 +: 6];
    assign prod = PW'(s_act) * PW'($signed(rq_i[j*64 +: 32]));
    assign rnd = sh == 6'd0 ? '0 : PW'(1) << (sh - 6'd1);
    assign shifted = (prod + rnd) >>> sh;
    assign q = shifted + PW'($signed(rq_i[j*64+48 +: 16]));
    assign over  = q > PW'((1 << (OutBits - 1)) - 1);
    assign under = q < -PW'(1 << (OutBits - 1));
    if (Requant) begin : g_rq
      logic signed [OutBits-1:0] o;
      assign o = over ? {1'b0, {(OutBits-1){1'b1}}} : under ? {1'b1, {(OutBits-1){1'b0}}} : q[OutBits-1:0];
      assign out_o[j*AccW +: AccW] = AccW'(o);
    end else begin : g_plain
      logic unused;
      assign unused = ^{over, under, q};
      assign out_o[j*AccW +: AccW] = s_act;
    end
  end
  logic unused_params;
  assign unused_params = ^{bias_i, rq_i};
endmodule
