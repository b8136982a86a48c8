// board_gemm_tb: a generated NPU (`DG_NPU_TOP) on boards/icebreaker, run as a host runs it, through
// the board's UART only: A (M×K int8) and B (K×N int8) written word by word into the SPRAM, the
// NPU's registers programmed (offsets REG_* from the generated top's header), START, STATUS
// polled until DONE, and C (M×N int32) read back and compared with the exact product. The data
// come from a fixed, printed seed. Prints "board_gemm_tb: PASS" when every element matches.
`timescale 1ns / 1ps
module board_gemm_tb;
  localparam int M = `GEMM_M, N = `GEMM_N, K = `GEMM_K;
  localparam int unsigned Baud  = 1000000;   // 12 clock cycles per bit at 12 MHz
  localparam int unsigned BitNs = 1000;
  localparam logic [31:0] Mmio  = 32'h4000_0000;
  localparam logic [31:0] ABase = 32'h0000_0000, BBase = 32'h0000_8000, CBase = 32'h0001_0000;
  localparam logic [31:0] Seed  = 32'd20261201;

  logic clk = 1'b0, rx = 1'b1;
  logic tx, led_r_n, led_g_n;
  always #41.667 clk = !clk;

  board_top #(.MmioBase(Mmio), .ClkHz(12000000), .Baud(Baud)) u_dut (
    .clk_12m_i   (clk),
    .btn_ni      (1'b1),
    .uart_rx_i   (rx),
    .uart_tx_o   (tx),
    .led_red_no  (led_r_n),
    .led_green_no(led_g_n)
  );

  task automatic send_byte(input logic [7:0] b);
    rx = 1'b0;
    #(BitNs);
    for (int i = 0; i < 8; i++) begin
      rx = b[i];
      #(BitNs);
    end
    rx = 1'b1;
    #(BitNs);
  endtask

  task automatic recv_byte(output logic [7:0] b);
    int waited = 0;
    while (tx !== 1'b0) begin
      #(BitNs / 8);
      waited++;
      if (waited > 800000) begin
        $display("board_gemm_tb: FAIL: no reply byte");
        $finish;
      end
    end
    #(BitNs / 2);
    for (int i = 0; i < 8; i++) begin
      #(BitNs);
      b[i] = tx;
    end
    #(BitNs);
  endtask

  task automatic write_word(input logic [31:0] addr, input logic [31:0] data);
    logic [7:0] ack;
    send_byte(8'h57);
    for (int i = 0; i < 4; i++) send_byte(addr[8*i +: 8]);
    for (int i = 0; i < 4; i++) send_byte(data[8*i +: 8]);
    recv_byte(ack);
    if (ack !== 8'h4b) begin
      $display("board_gemm_tb: FAIL: write 0x%08x: ack 0x%02x", addr, ack);
      $finish;
    end
  endtask

  task automatic read_word(input logic [31:0] addr, output logic [31:0] data);
    logic [7:0] b;
    send_byte(8'h52);
    for (int i = 0; i < 4; i++) send_byte(addr[8*i +: 8]);
    for (int i = 0; i < 4; i++) begin
      recv_byte(b);
      data[8*i +: 8] = b;
    end
  endtask

  logic [31:0] state = Seed;
  function automatic logic [7:0] next_byte();
    state = state ^ (state << 13);
    state = state ^ (state >> 17);
    state = state ^ (state << 5);
    return state[7:0];
  endfunction

  logic signed [7:0] a [M][K];
  logic signed [7:0] b [K][N];
  int errors = 0;
  logic [31:0] w, st, cycles;
  initial begin
    $display("board_gemm_tb: %0dx%0dx%0d int8, seed %0d", M, N, K, Seed);
    for (int i = 0; i < M; i++)
      for (int k = 0; k < K; k++) a[i][k] = next_byte();
    for (int k = 0; k < K; k++)
      for (int j = 0; j < N; j++) b[k][j] = next_byte();
    #(20 * BitNs);
    // A and B, row-major, four int8 per word (the lowest address in the low byte)
    for (int i = 0; i < M; i++)
      for (int k = 0; k < K; k += 4)
        write_word(ABase + 32'(i * K + k), {a[i][k+3], a[i][k+2], a[i][k+1], a[i][k]});
    for (int k = 0; k < K; k++)
      for (int j = 0; j < N; j += 4)
        write_word(BBase + 32'(k * N + j), {b[k][j+3], b[k][j+2], b[k][j+1], b[k][j]});
    write_word(Mmio + `REG_A_BASE, ABase);
    write_word(Mmio + `REG_B_BASE, BBase);
    write_word(Mmio + `REG_C_BASE, CBase);
    write_word(Mmio + `REG_M, 32'(M));
    write_word(Mmio + `REG_N, 32'(N));
    write_word(Mmio + `REG_K, 32'(K));
    write_word(Mmio + `REG_CTRL, 32'd1);
    for (int polls = 0; ; polls++) begin
      read_word(Mmio + `REG_STATUS, st);
      if (st[1] || st[2]) break;
      if (polls > 1000) begin
        $display("board_gemm_tb: FAIL: no DONE after %0d polls (STATUS 0x%08x)", polls, st);
        $finish;
      end
    end
    read_word(Mmio + `REG_ERROR, w);
    read_word(Mmio + `REG_CYCLES, cycles);
    if (st[2] || w != 32'd0) begin
      $display("board_gemm_tb: FAIL: STATUS 0x%08x, ERROR %0d", st, w);
      $finish;
    end
    $display("board_gemm_tb: the NPU ran %0d cycles", cycles);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) begin
        int want = 0;
        for (int k = 0; k < K; k++) want += int'(a[i][k]) * int'(b[k][j]);
        read_word(CBase + 32'(4 * (i * N + j)), w);
        if (w !== 32'(want)) begin
          if (errors < 8) $display("board_gemm_tb: FAIL: C[%0d][%0d] = %0d, want %0d", i, j, $signed(w), want);
          errors++;
        end
      end
    read_word(32'h1000_0004, w);
    if (w != 32'd0) begin
      $display("board_gemm_tb: FAIL: board errors 0x%08x", w);
      errors++;
    end
    if (errors == 0) $display("board_gemm_tb: PASS (%0d elements of C)", M * N);
    else $display("board_gemm_tb: FAIL: %0d errors", errors);
    $finish;
  end
endmodule
