// board_bridge: the host's way into the board, a byte protocol over the UART.
//
// A frame is a command byte, a 32-bit byte address (4 bytes, least significant first) and, for a
// write, a 32-bit word (4 bytes, least significant first):
//   'W' (0x57) addr data   write the word; the board answers one byte 'K' (0x4B) once written
//   'R' (0x52) addr        read the word; the board answers its 4 bytes, least significant first
// Any other command byte is ignored. A frame whose next byte does not come within
// TimeoutCycles (10 ms at 12 MHz) is dropped, so that a host can resynchronize by pausing.
// Addresses (the low two bits are ignored):
//   0x0000_0000 .. MemBytes-1        the board memory (board_mem), one word per access
//   MmioBase .. MmioBase+0xFFF       the NPU's registers (reg_* port)
//   0x1000_0000                      board id, read only: BoardId
//   0x1000_0004                      sticky errors, write 1s to clear: [2:0] board_mem's err_i,
//                                    [3] a host access to an unmapped address
// An unmapped read answers 0.
module board_bridge #(
  parameter logic [31:0] MmioBase      = 32'h4000_0000,
  parameter logic [31:0] BoardId       = 32'h4943_4542,  // "ICEB"
  parameter int unsigned MemBytes      = 131072,
  parameter int unsigned TimeoutCycles = 120000
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // bytes from and to the UART
  input  logic        rx_valid_i,
  input  logic [7:0]  rx_data_i,
  output logic        tx_valid_o,
  input  logic        tx_ready_i,
  output logic [7:0]  tx_data_o,
  // the NPU's register port (read data the cycle after the request)
  output logic        reg_req_o,
  output logic        reg_we_o,
  output logic [11:0] reg_addr_o,
  output logic [31:0] reg_wdata_o,
  input  logic [31:0] reg_rdata_i,
  // board_mem's host port
  output logic        mem_req_o,
  output logic        mem_we_o,
  output logic [14:0] mem_addr_o,
  output logic [31:0] mem_wdata_o,
  input  logic        mem_gnt_i,
  input  logic        mem_rvalid_i,
  input  logic [31:0] mem_rdata_i,
  // faults to make sticky, and the sticky error register
  input  logic [2:0]  err_i,
  output logic [3:0]  errors_o
);
  localparam logic [7:0]  CmdWrite = 8'h57, CmdRead = 8'h52, Ack = 8'h4b;
  localparam logic [31:0] BoardBase = 32'h1000_0000;
  localparam int unsigned TimeW = $clog2(TimeoutCycles + 1);

  typedef enum logic [2:0] {
    StCmd, StAddr, StData, StExec, StWait, StReply
  } state_e;

  state_e       state_q;
  logic         write_q;
  logic [2:0]   count_q;      // bytes of the field received, or reply bytes still to send
  logic [31:0]  addr_q, data_q;
  logic [TimeW-1:0] idle_q;
  logic [3:0]   errors_q;

  // Address decoding.
  logic in_mem, in_npu, in_board;
  assign in_mem   = addr_q < MemBytes;
  assign in_npu   = (addr_q & 32'hffff_f000) == MmioBase;
  assign in_board = (addr_q & 32'hffff_fff8) == BoardBase;

  logic exec;
  assign exec = state_q == StExec;

  assign reg_req_o   = exec && in_npu;
  assign reg_we_o    = write_q;
  assign reg_addr_o  = {addr_q[11:2], 2'b00};
  assign reg_wdata_o = data_q;
  assign mem_req_o   = exec && in_mem;
  assign mem_we_o    = write_q;
  assign mem_addr_o  = addr_q[16:2];
  assign mem_wdata_o = data_q;
  assign errors_o    = errors_q;

  assign tx_valid_o = state_q == StReply;
  assign tx_data_o  = write_q ? Ack : data_q[7:0];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= StCmd;
      write_q  <= 1'b0;
      count_q  <= 3'd0;
      addr_q   <= '0;
      data_q   <= '0;
      idle_q   <= '0;
      errors_q <= '0;
    end else begin
      errors_q[2:0] <= errors_q[2:0] | err_i;
      // A partial frame that stalls is dropped.
      if (state_q == StAddr || state_q == StData) begin
        if (rx_valid_i) idle_q <= '0;
        else if (idle_q == TimeW'(TimeoutCycles)) state_q <= StCmd;
        else idle_q <= idle_q + TimeW'(1);
      end
      case (state_q)
        StCmd: if (rx_valid_i && (rx_data_i == CmdWrite || rx_data_i == CmdRead)) begin
          state_q <= StAddr;
          write_q <= rx_data_i == CmdWrite;
          count_q <= 3'd0;
          idle_q  <= '0;
        end
        StAddr: if (rx_valid_i) begin
          addr_q  <= {rx_data_i, addr_q[31:8]};
          count_q <= count_q + 3'd1;
          if (count_q == 3'd3) begin
            count_q <= 3'd0;
            state_q <= write_q ? StData : StExec;
          end
        end
        StData: if (rx_valid_i) begin
          data_q  <= {rx_data_i, data_q[31:8]};
          count_q <= count_q + 3'd1;
          if (count_q == 3'd3) state_q <= StExec;
        end
        StExec: begin
          count_q <= write_q ? 3'd1 : 3'd4;
          if (in_mem) begin
            if (mem_gnt_i) state_q <= write_q ? StReply : StWait;
          end else if (in_npu) begin
            state_q <= write_q ? StReply : StWait;
          end else if (in_board) begin
            state_q <= StReply;
            if (!write_q) data_q <= addr_q[2] ? {28'd0, errors_q} : BoardId;
            else if (addr_q[2]) errors_q <= (errors_q & ~data_q[3:0]) | {1'b0, err_i};
          end else begin
            state_q     <= StReply;
            data_q      <= '0;
            errors_q[3] <= 1'b1;
          end
        end
        StWait: begin
          // Register reads answer the cycle after the request, memory reads with mem_rvalid_i.
          if (in_npu) begin
            data_q  <= reg_rdata_i;
            state_q <= StReply;
          end else if (mem_rvalid_i) begin
            data_q  <= mem_rdata_i;
            state_q <= StReply;
          end
        end
        StReply: if (tx_ready_i) begin
          data_q  <= {8'd0, data_q[31:8]};
          count_q <= count_q - 3'd1;
          if (count_q == 3'd1) state_q <= StCmd;
        end
        default: state_q <= StCmd;
      endcase
    end
  end
endmodule
