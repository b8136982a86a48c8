// npu_too_big: the ports of a generated NPU top around a 16K x 8 memory, 128 Kbit, more block
// RAM than the UP5K's 30 x 4 Kbit: place and route must fail, and say so.
module npu_too_big (
  input  logic        clk_i,
  input  logic        rst_ni,
  output logic        run_start_o,
  input  logic        bus_idle_i,
  input  logic [3:0]  bus_error_i,
  input  logic        reg_req_i,
  input  logic        reg_we_i,
  input  logic [11:0] reg_addr_i,
  input  logic [31:0] reg_wdata_i,
  output logic [31:0] reg_rdata_o,
  output logic        irq_o,
  output logic        a_ar_valid_o,
  input  logic        a_ar_ready_i,
  output logic [31:0] a_ar_addr_o,
  output logic [8:0]  a_ar_len_o,
  input  logic        a_r_valid_i,
  output logic        a_r_ready_o,
  input  logic [31:0] a_r_data_i,
  output logic        b_ar_valid_o,
  input  logic        b_ar_ready_i,
  output logic [31:0] b_ar_addr_o,
  output logic [8:0]  b_ar_len_o,
  input  logic        b_r_valid_i,
  output logic        b_r_ready_o,
  input  logic [31:0] b_r_data_i,
  output logic        c_aw_valid_o,
  input  logic        c_aw_ready_i,
  output logic [31:0] c_aw_addr_o,
  output logic [8:0]  c_aw_len_o,
  output logic        c_w_valid_o,
  input  logic        c_w_ready_i,
  output logic [31:0] c_w_data_o,
  output logic        c_w_last_o
);
  logic [7:0] mem [16384];
  logic [7:0] q;
  always_ff @(posedge clk_i) begin
    if (reg_req_i && reg_we_i) mem[{reg_addr_i, reg_wdata_i[1:0]}] <= reg_wdata_i[15:8];
    q <= mem[{reg_addr_i, reg_wdata_i[1:0]}];
  end
  assign reg_rdata_o  = {24'd0, q};
  assign irq_o        = ^{rst_ni, a_ar_ready_i, a_r_valid_i, a_r_data_i, b_ar_ready_i, b_r_valid_i, b_r_data_i,
                          c_aw_ready_i, c_w_ready_i};
  assign a_ar_valid_o = 1'b0;
  assign a_ar_addr_o  = '0;
  assign a_ar_len_o   = '0;
  assign a_r_ready_o  = 1'b0;
  assign b_ar_valid_o = 1'b0;
  assign b_ar_addr_o  = '0;
  assign b_ar_len_o   = '0;
  assign b_r_ready_o  = 1'b0;
  assign c_aw_valid_o = 1'b0;
  assign c_aw_addr_o  = '0;
  assign c_aw_len_o   = '0;
  assign c_w_valid_o  = 1'b0;
  assign c_w_data_o   = '0;
  assign c_w_last_o   = 1'b0;
  assign run_start_o = 1'b0;
  logic unused_bus;
  assign unused_bus = ^{bus_idle_i, bus_error_i};
endmodule
