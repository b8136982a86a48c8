// board_uart: 8N1 UART receiver and transmitter for the iCEBreaker's FTDI serial port.
//
// Divisor = ClkHz / Baud clock cycles per bit (12 MHz / 115200 baud: 104, 0.16 % fast). The
// receiver synchronizes rx_i, waits half a bit after the falling start edge, checks the start bit
// there, samples eight data bits (LSB first) one bit apart and drops a byte whose stop bit is
// low; each good byte is a one-cycle rx_valid_o pulse. The transmitter takes a byte on a
// tx_valid_i && tx_ready_o handshake and sends start bit, eight data bits and stop bit.
module board_uart #(
  parameter int unsigned ClkHz = 12000000,
  parameter int unsigned Baud  = 115200
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       rx_i,
  output logic       tx_o,
  output logic       rx_valid_o,
  output logic [7:0] rx_data_o,
  input  logic       tx_valid_i,
  output logic       tx_ready_o,
  input  logic [7:0] tx_data_i
);
  localparam int unsigned Divisor = (ClkHz + Baud / 2) / Baud;
  localparam int unsigned DivW    = $clog2(Divisor + 1);
  localparam logic [DivW-1:0] BitTicks  = DivW'(Divisor - 1);
  localparam logic [DivW-1:0] HalfTicks = DivW'(Divisor / 2 - 1);

  // ---- receiver -----------------------------------------------------------------------------
  logic [1:0]      rx_sync_q;
  logic            rx_busy_q;
  logic [DivW-1:0] rx_tick_q;
  logic [3:0]      rx_bit_q;    // 0: start bit, 1..8: data bits, 9: stop bit
  logic [7:0]      rx_shift_q;
  logic            rx;
  assign rx = rx_sync_q[1];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rx_sync_q  <= 2'b11;
      rx_busy_q  <= 1'b0;
      rx_tick_q  <= '0;
      rx_bit_q   <= 4'd0;
      rx_shift_q <= 8'd0;
      rx_valid_o <= 1'b0;
      rx_data_o  <= 8'd0;
    end else begin
      rx_sync_q  <= {rx_sync_q[0], rx_i};
      rx_valid_o <= 1'b0;
      if (!rx_busy_q) begin
        if (!rx) begin
          rx_busy_q <= 1'b1;
          rx_tick_q <= HalfTicks;
          rx_bit_q  <= 4'd0;
        end
      end else if (rx_tick_q != '0) begin
        rx_tick_q <= rx_tick_q - DivW'(1);
      end else begin
        rx_tick_q <= BitTicks;
        rx_bit_q  <= rx_bit_q + 4'd1;
        case (rx_bit_q)
          4'd0: if (rx) rx_busy_q <= 1'b0;  // a glitch, not a start bit
          4'd9: begin
            rx_busy_q <= 1'b0;
            if (rx) begin
              rx_valid_o <= 1'b1;
              rx_data_o  <= rx_shift_q;
            end
          end
          default: rx_shift_q <= {rx, rx_shift_q[7:1]};
        endcase
      end
    end
  end

  // ---- transmitter --------------------------------------------------------------------------
  logic            tx_busy_q;
  logic [DivW-1:0] tx_tick_q;
  logic [3:0]      tx_bit_q;    // bits still to send
  logic [9:0]      tx_shift_q;  // {stop, data, start}, sent LSB first

  assign tx_ready_o = !tx_busy_q;
  assign tx_o       = tx_shift_q[0];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tx_busy_q  <= 1'b0;
      tx_tick_q  <= '0;
      tx_bit_q   <= 4'd0;
      tx_shift_q <= 10'h3ff;
    end else if (!tx_busy_q) begin
      if (tx_valid_i) begin
        tx_busy_q  <= 1'b1;
        tx_tick_q  <= BitTicks;
        tx_bit_q   <= 4'd9;
        tx_shift_q <= {1'b1, tx_data_i, 1'b0};
      end
    end else if (tx_tick_q != '0) begin
      tx_tick_q <= tx_tick_q - DivW'(1);
    end else begin
      tx_tick_q  <= BitTicks;
      tx_shift_q <= {1'b1, tx_shift_q[9:1]};
      if (tx_bit_q == 4'd0) tx_busy_q <= 1'b0;
      else tx_bit_q <= tx_bit_q - 4'd1;
    end
  end
endmodule
