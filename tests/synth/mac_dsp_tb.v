// dg_mac_array with its iCE40 DSP path (DG_ICE40_DSP: PE pairs in SB_MAC16's dual 8x8 mode),
// simulated with Yosys's own SB_MAC16 model, against products the testbench computes itself:
// every signedness pair and widths up to 8 bits, random operands, a sub-block of 5 steps (the
// 4th masked) then a drain into the shadow registers. Prints "PASS: ..." or "FAIL: ...".
`timescale 1ns / 1ps
module mac_check #(
  parameter int AW = 8,
  parameter int BW = 8,
  parameter bit ASigned = 1'b1,
  parameter bit BSigned = 1'b1,
  parameter int Seed = 1
) (
  input  logic clk,
  input  logic rst_n,
  output logic done,
  output int   errors
);
  localparam int Rows = 2, Cols = 4, Steps = 5;
  logic step, mask, to_shadow;
  logic [Rows*AW-1:0] a;
  logic [Cols*BW-1:0] b;
  logic [Rows*Cols*32-1:0] shadow;
  dg_mac_array #(.Rows(Rows), .Cols(Cols), .AW(AW), .BW(BW), .ASigned(ASigned), .BSigned(BSigned)) dut (
    .clk_i(clk), .rst_ni(rst_n), .step_i(step), .mask_i(mask), .to_shadow_i(to_shadow),
    .a_i(a), .b_i(b), .shadow_o(shadow));

  function automatic longint value(input logic [15:0] raw, input int w, input bit sgn);
    longint v = 0;
    for (int i = 0; i < w; i++) if (raw[i]) v += longint'(1) << i;
    if (sgn && raw[w-1]) v -= longint'(1) << w;
    return v;
  endfunction

  longint expect_q [Rows*Cols];
  int seed = Seed;
  initial begin
    done = 1'b0;
    errors = 0;
    step = 1'b0;
    mask = 1'b0;
    to_shadow = 1'b0;
    a = '0;
    b = '0;
    for (int e = 0; e < Rows*Cols; e++) expect_q[e] = 0;
    @(posedge rst_n);
    for (int round = 0; round < 40; round++) begin
      for (int s = 0; s < Steps; s++) begin
        @(negedge clk);
        for (int i = 0; i < Rows*AW; i++) a[i] = $random(seed);
        for (int j = 0; j < Cols*BW; j++) b[j] = $random(seed);
        step = 1'b1;
        mask = s != 3;
        to_shadow = s == Steps - 1;
        if (mask)
          for (int i = 0; i < Rows; i++)
            for (int j = 0; j < Cols; j++)
              expect_q[i*Cols+j] += value(16'(a[i*AW +: AW]), AW, ASigned) * value(16'(b[j*BW +: BW]), BW, BSigned);
      end
      @(negedge clk);
      step = 1'b0;
      to_shadow = 1'b0;
      for (int e = 0; e < Rows*Cols; e++) begin
        if (shadow[e*32 +: 32] !== 32'(expect_q[e])) begin
          if (errors < 4) $display("FAIL: AW=%0d BW=%0d signed %0d/%0d PE %0d: %0d, expected %0d", AW, BW, ASigned, BSigned, e,
                                   $signed(shadow[e*32 +: 32]), expect_q[e]);
          errors++;
        end
        expect_q[e] = 0;
      end
    end
    done = 1'b1;
  end
endmodule

module mac_dsp_tb;
  logic clk = 1'b0, rst_n = 1'b0;
  always #5 clk = !clk;
  initial #22 rst_n = 1'b1;
  logic [4:0] done;
  int err [5];
  mac_check #(.AW(8), .BW(8), .ASigned(1), .BSigned(1), .Seed(1)) c0 (clk, rst_n, done[0], err[0]);
  mac_check #(.AW(8), .BW(8), .ASigned(0), .BSigned(1), .Seed(2)) c1 (clk, rst_n, done[1], err[1]);
  mac_check #(.AW(8), .BW(8), .ASigned(0), .BSigned(0), .Seed(3)) c2 (clk, rst_n, done[2], err[2]);
  mac_check #(.AW(4), .BW(4), .ASigned(1), .BSigned(0), .Seed(4)) c3 (clk, rst_n, done[3], err[3]);
  mac_check #(.AW(6), .BW(7), .ASigned(1), .BSigned(1), .Seed(5)) c4 (clk, rst_n, done[4], err[4]);
  initial begin
    wait (done == 5'b11111);
    if (err[0] + err[1] + err[2] + err[3] + err[4] == 0) $display("PASS: 5 configurations, 40 sub-blocks each, products through SB_MAC16 exact");
    else $display("FAIL: %0d wrong shadow values", err[0] + err[1] + err[2] + err[3] + err[4]);
    $finish;
  end
  initial begin
    #200000;
    $display("FAIL: timeout");
    $finish;
  end
endmodule
