// board_tb: boards/icebreaker/board_top as a host sees it, over its UART: memory words written and
// read back, the board id and error registers, and a run of the stand-in NPU (C = A + B) that
// reads A and B from the SPRAM and writes C there. Prints "board_tb: PASS" when every check holds.
`timescale 1ns / 1ps
module board_tb;
  localparam int unsigned ClkHz = 12000000;
  localparam int unsigned Baud  = 1000000;   // 12 clock cycles per bit
  localparam int unsigned BitNs = 1000;
  localparam logic [31:0] Mmio  = 32'h4000_0000;

  logic clk = 1'b0, rx = 1'b1, btn_n = 1'b1;
  logic tx, led_r_n, led_g_n;
  always #41.667 clk = !clk;

  board_top #(.MmioBase(Mmio), .ClkHz(ClkHz), .Baud(Baud)) u_dut (
    .clk_12m_i   (clk),
    .btn_ni      (btn_n),
    .uart_rx_i   (rx),
    .uart_tx_o   (tx),
    .led_red_no  (led_r_n),
    .led_green_no(led_g_n)
  );

  int errors = 0;

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
      if (waited > 80000) begin
        $display("board_tb: FAIL: no reply byte");
        $finish;
      end
    end
    #(BitNs / 2);
    for (int i = 0; i < 8; i++) begin
      #(BitNs);
      b[i] = tx;
    end
    #(BitNs);
    if (tx !== 1'b1) begin
      $display("board_tb: FAIL: bad stop bit");
      errors++;
    end
  endtask

  task automatic send_word(input logic [31:0] w);
    for (int i = 0; i < 4; i++) send_byte(w[8*i +: 8]);
  endtask

  task automatic write_word(input logic [31:0] addr, input logic [31:0] data);
    logic [7:0] ack;
    send_byte(8'h57);
    send_word(addr);
    send_word(data);
    recv_byte(ack);
    if (ack !== 8'h4b) begin
      $display("board_tb: FAIL: write 0x%08x: ack 0x%02x", addr, ack);
      errors++;
    end
  endtask

  task automatic read_word(input logic [31:0] addr, output logic [31:0] data);
    logic [7:0] b;
    send_byte(8'h52);
    send_word(addr);
    for (int i = 0; i < 4; i++) begin
      recv_byte(b);
      data[8*i +: 8] = b;
    end
  endtask

  task automatic expect_word(input logic [31:0] addr, input logic [31:0] want);
    logic [31:0] got;
    read_word(addr, got);
    if (got !== want) begin
      $display("board_tb: FAIL: read 0x%08x: got 0x%08x, want 0x%08x", addr, got, want);
      errors++;
    end
  endtask

  logic [31:0] a [4], b [4], st;
  initial begin
    #(20 * BitNs);
    // memory words in both SPRAM pairs, and the board registers
    write_word(32'h0000_0010, 32'hdead_beef);
    write_word(32'h0001_fffc, 32'h0123_4567);
    expect_word(32'h0000_0010, 32'hdead_beef);
    expect_word(32'h0001_fffc, 32'h0123_4567);
    expect_word(32'h1000_0000, 32'h4943_4542);
    expect_word(32'h1000_0004, 32'h0000_0000);
    expect_word(32'h2000_0000, 32'h0000_0000);   // unmapped: 0, and error bit 3
    expect_word(32'h1000_0004, 32'h0000_0008);
    write_word(32'h1000_0004, 32'h0000_0008);
    expect_word(32'h1000_0004, 32'h0000_0000);
    if (led_r_n !== 1'b1) begin
      $display("board_tb: FAIL: red LED on without an error");
      errors++;
    end
    // a run of the NPU: A at 0x100, B at 0x10200 (the other SPRAM pair), C at 0x300
    for (int i = 0; i < 4; i++) begin
      a[i] = 32'h1000_0001 * (i + 1);
      b[i] = 32'h0202_0303 + 32'(i * 7);
      write_word(32'h0000_0100 + 32'(4 * i), a[i]);
      write_word(32'h0001_0200 + 32'(4 * i), b[i]);
    end
    expect_word(Mmio + 32'h000, 32'h5354_4e44);
    write_word(Mmio + 32'h014, 32'h0000_0100);
    write_word(Mmio + 32'h018, 32'h0001_0200);
    write_word(Mmio + 32'h01c, 32'h0000_0300);
    write_word(Mmio + 32'h020, 32'd4);
    expect_word(Mmio + 32'h020, 32'd4);
    write_word(Mmio + 32'h004, 32'd1);
    read_word(Mmio + 32'h008, st);
    if (st[1] !== 1'b1) begin
      $display("board_tb: FAIL: STATUS 0x%08x after the run, want done", st);
      errors++;
    end
    if (led_g_n !== 1'b0) begin
      $display("board_tb: FAIL: green LED off after the run");
      errors++;
    end
    for (int i = 0; i < 4; i++) expect_word(32'h0000_0300 + 32'(4 * i), a[i] + b[i]);
    expect_word(32'h1000_0004, 32'h0000_0000);
    if (errors == 0) $display("board_tb: PASS");
    else $display("board_tb: FAIL: %0d errors", errors);
    $finish;
  end
endmodule
