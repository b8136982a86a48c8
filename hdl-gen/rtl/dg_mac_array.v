// dg_mac_array: Rows x Cols processing elements, output stationary: in a step PE (i, j) adds
// a_i * b_j to its AccW-bit accumulator (two's complement, wrapping), where a_i is the A element
// of row i and b_j the B element of column j at the current k. Inputs are AW-bit (BW-bit) lanes,
// signed when ASigned (BSigned), extended exactly into the product. At the end of a sub-block
// (to_shadow_i with a step) every accumulator moves, with that step's product, into its shadow
// register and restarts from zero, so the drain of one sub-block overlaps the next one's
// products. Without shadow registers (Shadow = 0) shadow_o is the accumulators themselves: they
// keep the sub-block's sums until the next step, which starts from zero; the engine does not
// step while it drains them. Part of the fixed DeepGEMM RTL library.
module dg_mac_array #(
  parameter int Rows    = 16,
  parameter int Cols    = 16,
  parameter int AW      = 8,
  parameter int BW      = 8,
  parameter bit ASigned = 1'b1,
  parameter bit BSigned = 1'b1,
  parameter bit Shadow  = 1'b1,
  parameter int AccW    = 32     // accumulator bits: 32, 48 or 64
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   step_i,       // a k step happens this cycle
  input  logic                   mask_i,       // ... and its k is inside K (else it adds zero)
  input  logic                   to_shadow_i,  // ... and it is the sub-block's last
  input  logic [Rows*AW-1:0]     a_i,
  input  logic [Cols*BW-1:0]     b_i,
  output logic [Rows*Cols*AccW-1:0] shadow_o
);
  localparam int PA = ASigned ? AW : AW + 1;  // the multiplier's signed operand widths
  localparam int PB = BSigned ? BW : BW + 1;

  // Without shadow registers: the step after a sub-block's last starts the accumulators from zero.
  logic fresh_q;
  if (Shadow) begin : g_fresh_none
    assign fresh_q = 1'b0;
  end else begin : g_fresh
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) fresh_q <= 1'b0;
      else if (step_i) fresh_q <= to_shadow_i;
    end
  end

`ifdef DG_ICE40_DSP
  // iCE40 UltraPlus: two PEs of a row share one SB_MAC16 in its dual 8x8 mode (the upper bytes of
  // A and B multiply into O[31:16], the lower ones into O[15:0], signed or not per operand), so
  // a 4x4 array takes 8 DSPs. Used by the board flow when the inputs have at most 8 bits.
  localparam bit UseDsp = AW <= 8 && BW <= 8 && Cols % 2 == 0;
`else
  localparam bit UseDsp = 1'b0;
`endif
  for (genvar i = 0; i < Rows; i++) begin : g_row
`ifdef DG_ICE40_DSP
    // The row's 16-bit products from the DSPs, PE j in bits 16j + 15 .. 16j; exact for 8-bit
    // inputs of either signedness, and signed when either input is.
    logic [Cols*16-1:0] dsp_p;
    if (UseDsp) begin : g_dsp
      for (genvar j = 0; j < Cols; j = j + 2) begin : g_pair
        logic [7:0] a8, b_lo, b_hi;
        assign a8   = ASigned ? 8'($signed(a_i[i*AW +: AW])) : 8'(a_i[i*AW +: AW]);
        assign b_lo = BSigned ? 8'($signed(b_i[j*BW +: BW])) : 8'(b_i[j*BW +: BW]);
        assign b_hi = BSigned ? 8'($signed(b_i[(j+1)*BW +: BW])) : 8'(b_i[(j+1)*BW +: BW]);
        SB_MAC16 #(
          .MODE_8x8(1'b1), .A_SIGNED(ASigned), .B_SIGNED(BSigned),
          .TOPOUTPUT_SELECT(2'b10), .BOTOUTPUT_SELECT(2'b10),
          .TOP_8x8_MULT_REG(1'b0), .BOT_8x8_MULT_REG(1'b0)
        ) u_mac (
          .CLK(1'b0), .CE(1'b1), .C(16'd0), .A({a8, a8}), .B({b_hi, b_lo}), .D(16'd0),
          .AHOLD(1'b0), .BHOLD(1'b0), .CHOLD(1'b0), .DHOLD(1'b0),
          .IRSTTOP(1'b0), .IRSTBOT(1'b0), .ORSTTOP(1'b0), .ORSTBOT(1'b0),
          .OLOADTOP(1'b0), .OLOADBOT(1'b0), .ADDSUBTOP(1'b0), .ADDSUBBOT(1'b0),
          .OHOLDTOP(1'b0), .OHOLDBOT(1'b0), .CI(1'b0), .ACCUMCI(1'b0), .SIGNEXTIN(1'b0),
          .O(dsp_p[j*16 +: 32]), .CO(), .ACCUMCO(), .SIGNEXTOUT()
        );
      end
    end else begin : g_nodsp
      assign dsp_p = '0;
    end
`endif
    for (genvar j = 0; j < Cols; j++) begin : g_col
      // The product a_i * b_j, extended to the accumulator's width.
      logic [AccW-1:0] p32;
      if (UseDsp) begin : g_dsp_p
`ifdef DG_ICE40_DSP
        assign p32 = ASigned || BSigned ? {{(AccW-16){dsp_p[j*16+15]}}, dsp_p[j*16 +: 16]} : {{(AccW-16){1'b0}}, dsp_p[j*16 +: 16]};
`endif
      end else begin : g_mul
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
          assign b = b_i[j*BW +: BW];
        end else begin : g_bu
          assign b = {1'b0, b_i[j*BW +: BW]};
        end
        assign p = a * b;
        assign p32 = AccW'(p);
      end
      logic [AccW-1:0] acc_q, sum;
      assign sum = (fresh_q ? '0 : acc_q) + (mask_i ? p32 : '0);
      if (Shadow) begin : g_shadow
        logic [AccW-1:0] shadow_q;
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
        assign shadow_o[(i*Cols+j)*AccW +: AccW] = shadow_q;
      end else begin : g_direct
        always_ff @(posedge clk_i or negedge rst_ni) begin
          if (!rst_ni) acc_q <= '0;
          else if (step_i) acc_q <= sum;
        end
        assign shadow_o[(i*Cols+j)*AccW +: AccW] = acc_q;
      end
    end
  end
endmodule
