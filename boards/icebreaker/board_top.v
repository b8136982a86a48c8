// board_top: a DeepGEMM NPU on the iCEBreaker (Lattice iCE40 UP5K, SG48).
//
// The generated NPU's core (module `DG_NPU_TOP, npu_gemm_<name>_core: pass
// -DDG_NPU_TOP=npu_gemm_<name>_core; the design's AXI4 top is for SoCs) reads A and B and writes C
// through board_mem, the UP5K's 128 KiB of SPRAM; the host programs
// it over the FTDI UART through board_bridge (115200 baud, 8N1; protocol and memory map in
// board_bridge.v and README.md): it writes A and B into memory, the NPU's registers at MmioBase,
// START, polls STATUS (or watches the green LED) and reads C back.
//
// Clock: the 12 MHz oscillator, used directly. Reset: held for 16 cycles after configuration and
// while the user button is pressed. LEDs (active low): green = the NPU's irq_o (done), red = a
// sticky board error (see board_bridge.v).
module board_top #(
  parameter logic [31:0] MmioBase = 32'h4000_0000,  // the hardware model's mmio_base
  parameter int unsigned ClkHz    = 12000000,
  parameter int unsigned Baud     = 115200
) (
  input  logic clk_12m_i,     // pin 35
  input  logic btn_ni,        // pin 10, user button, low when pressed
  input  logic uart_rx_i,     // pin 6, from the FTDI
  output logic uart_tx_o,     // pin 9, to the FTDI
  output logic led_red_no,    // pin 11
  output logic led_green_no   // pin 37
);
  localparam int unsigned BusBits = 32;

  logic clk;
  assign clk = clk_12m_i;

  // ---- reset: the iCE40's flip-flops start at zero after configuration ------------------------
  logic [3:0] por_q = 4'd0;
  logic [1:0] btn_q = 2'd0;
  logic       rst_nq = 1'b0;
  always_ff @(posedge clk) begin
    btn_q  <= {btn_q[0], btn_ni};
    if (por_q != 4'hf) por_q <= por_q + 4'd1;
    rst_nq <= por_q == 4'hf && btn_q[1];
  end
  logic rst_n;
  assign rst_n = rst_nq;

  // ---- NPU ------------------------------------------------------------------------------------
  logic               reg_req, reg_we, irq;
  logic [11:0]        reg_addr;
  logic [31:0]        reg_wdata, reg_rdata;
  logic               a_ar_valid, a_ar_ready, a_r_valid, a_r_ready;
  logic [31:0]        a_ar_addr;
  logic [8:0]         a_ar_len;
  logic [BusBits-1:0] a_r_data;
  logic               b_ar_valid, b_ar_ready, b_r_valid, b_r_ready;
  logic [31:0]        b_ar_addr;
  logic [8:0]         b_ar_len;
  logic [BusBits-1:0] b_r_data;
  logic               c_aw_valid, c_aw_ready, c_w_valid, c_w_ready, c_w_last;
  logic [31:0]        c_aw_addr;
  logic [8:0]         c_aw_len;
  logic [BusBits-1:0] c_w_data;

  logic       unused_run_start;
  `DG_NPU_TOP u_npu (
    .clk_i       (clk),
    .rst_ni      (rst_n),
    .run_start_o (unused_run_start),
    .bus_idle_i  (1'b1),     // board_mem answers every burst before the core counts it done
    .bus_error_i ('0),       // and has no error responses
    .reg_req_i   (reg_req),
    .reg_we_i    (reg_we),
    .reg_addr_i  (reg_addr),
    .reg_wdata_i (reg_wdata),
    .reg_rdata_o (reg_rdata),
    .irq_o       (irq),
    .a_ar_valid_o(a_ar_valid),
    .a_ar_ready_i(a_ar_ready),
    .a_ar_addr_o (a_ar_addr),
    .a_ar_len_o  (a_ar_len),
    .a_r_valid_i (a_r_valid),
    .a_r_ready_o (a_r_ready),
    .a_r_data_i  (a_r_data),
    .b_ar_valid_o(b_ar_valid),
    .b_ar_ready_i(b_ar_ready),
    .b_ar_addr_o (b_ar_addr),
    .b_ar_len_o  (b_ar_len),
    .b_r_valid_i (b_r_valid),
    .b_r_ready_o (b_r_ready),
    .b_r_data_i  (b_r_data),
    .c_aw_valid_o(c_aw_valid),
    .c_aw_ready_i(c_aw_ready),
    .c_aw_addr_o (c_aw_addr),
    .c_aw_len_o  (c_aw_len),
    .c_w_valid_o (c_w_valid),
    .c_w_ready_i (c_w_ready),
    .c_w_data_o  (c_w_data),
    .c_w_last_o  (c_w_last)
  );

  // ---- memory ---------------------------------------------------------------------------------
  logic        mem_req, mem_we, mem_gnt, mem_rvalid;
  logic [14:0] mem_addr;
  logic [31:0] mem_wdata, mem_rdata;
  logic [2:0]  mem_err;

  board_mem u_mem (
    .clk_i        (clk),
    .rst_ni       (rst_n),
    .a_ar_valid_i (a_ar_valid),
    .a_ar_ready_o (a_ar_ready),
    .a_ar_addr_i  (a_ar_addr),
    .a_ar_len_i   (a_ar_len),
    .a_r_valid_o  (a_r_valid),
    .a_r_ready_i  (a_r_ready),
    .a_r_data_o   (a_r_data),
    .b_ar_valid_i (b_ar_valid),
    .b_ar_ready_o (b_ar_ready),
    .b_ar_addr_i  (b_ar_addr),
    .b_ar_len_i   (b_ar_len),
    .b_r_valid_o  (b_r_valid),
    .b_r_ready_i  (b_r_ready),
    .b_r_data_o   (b_r_data),
    .c_aw_valid_i (c_aw_valid),
    .c_aw_ready_o (c_aw_ready),
    .c_aw_addr_i  (c_aw_addr),
    .c_aw_len_i   (c_aw_len),
    .c_w_valid_i  (c_w_valid),
    .c_w_ready_o  (c_w_ready),
    .c_w_data_i   (c_w_data),
    .c_w_last_i   (c_w_last),
    .host_req_i   (mem_req),
    .host_we_i    (mem_we),
    .host_addr_i  (mem_addr),
    .host_wdata_i (mem_wdata),
    .host_gnt_o   (mem_gnt),
    .host_rvalid_o(mem_rvalid),
    .host_rdata_o (mem_rdata),
    .err_o        (mem_err)
  );

  // ---- host bridge ----------------------------------------------------------------------------
  logic       rx_valid, tx_valid, tx_ready;
  logic [7:0] rx_data, tx_data;
  logic [3:0] errors;

  board_uart #(
    .ClkHz(ClkHz),
    .Baud (Baud)
  ) u_uart (
    .clk_i     (clk),
    .rst_ni    (rst_n),
    .rx_i      (uart_rx_i),
    .tx_o      (uart_tx_o),
    .rx_valid_o(rx_valid),
    .rx_data_o (rx_data),
    .tx_valid_i(tx_valid),
    .tx_ready_o(tx_ready),
    .tx_data_i (tx_data)
  );

  board_bridge #(
    .MmioBase     (MmioBase),
    .TimeoutCycles(ClkHz / 100)
  ) u_bridge (
    .clk_i       (clk),
    .rst_ni      (rst_n),
    .rx_valid_i  (rx_valid),
    .rx_data_i   (rx_data),
    .tx_valid_o  (tx_valid),
    .tx_ready_i  (tx_ready),
    .tx_data_o   (tx_data),
    .reg_req_o   (reg_req),
    .reg_we_o    (reg_we),
    .reg_addr_o  (reg_addr),
    .reg_wdata_o (reg_wdata),
    .reg_rdata_i (reg_rdata),
    .mem_req_o   (mem_req),
    .mem_we_o    (mem_we),
    .mem_addr_o  (mem_addr),
    .mem_wdata_o (mem_wdata),
    .mem_gnt_i   (mem_gnt),
    .mem_rvalid_i(mem_rvalid),
    .mem_rdata_i (mem_rdata),
    .err_i       (mem_err),
    .errors_o    (errors)
  );

  assign led_green_no = !irq;
  assign led_red_no   = errors == 4'd0;
endmodule
