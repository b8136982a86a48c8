// npu_standin: a stand-in with the ports of a generated NPU top (npu_gemm_<name>, bus 32 bits),
// for testing boards/icebreaker without the generator: on START it reads LEN words of A and of B
// (one burst each), and writes C[i] = A[i] + B[i] (one burst). Registers: 0x000 id, 0x004 START
// (bit 0), 0x008 STATUS {done, running}, 0x014 A base, 0x018 B base, 0x01c C base, 0x020 LEN (1..8).
module npu_standin (
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
  typedef enum logic [2:0] {StIdle, StAddrA, StReadA, StAddrB, StReadB, StAddrC, StWriteC} state_e;
  state_e      state_q;
  logic [31:0] a_base_q, b_base_q, c_base_q;
  logic [3:0]  len_q, idx_q;
  logic        done_q;
  logic [31:0] acc_q [8];

  assign a_ar_valid_o = state_q == StAddrA;
  assign a_ar_addr_o  = a_base_q;
  assign a_ar_len_o   = 9'(len_q);
  assign a_r_ready_o  = state_q == StReadA;
  assign b_ar_valid_o = state_q == StAddrB;
  assign b_ar_addr_o  = b_base_q;
  assign b_ar_len_o   = 9'(len_q);
  assign b_r_ready_o  = state_q == StReadB;
  assign c_aw_valid_o = state_q == StAddrC;
  assign c_aw_addr_o  = c_base_q;
  assign c_aw_len_o   = 9'(len_q);
  assign c_w_valid_o  = state_q == StWriteC;
  assign c_w_data_o   = acc_q[idx_q[2:0]];
  assign c_w_last_o   = idx_q + 4'd1 == len_q;
  assign irq_o        = done_q;

  logic last;
  assign last = idx_q + 4'd1 == len_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      a_base_q <= '0;
      b_base_q <= '0;
      c_base_q <= '0;
      len_q <= 4'd1;
      idx_q <= '0;
      done_q <= 1'b0;
      reg_rdata_o <= '0;
      for (int i = 0; i < 8; i++) acc_q[i] <= '0;
    end else begin
      if (reg_req_i && reg_we_i && state_q == StIdle) begin
        case (reg_addr_i)
          12'h004: if (reg_wdata_i[0]) begin
            state_q <= StAddrA;
            done_q <= 1'b0;
          end
          12'h014: a_base_q <= reg_wdata_i;
          12'h018: b_base_q <= reg_wdata_i;
          12'h01c: c_base_q <= reg_wdata_i;
          12'h020: len_q <= reg_wdata_i[3:0];
          default: ;
        endcase
      end
      if (reg_req_i && !reg_we_i) begin
        case (reg_addr_i)
          12'h000: reg_rdata_o <= 32'h5354_4e44;
          12'h008: reg_rdata_o <= {30'd0, done_q, state_q != StIdle};
          12'h020: reg_rdata_o <= {28'd0, len_q};
          default: reg_rdata_o <= '0;
        endcase
      end
      case (state_q)
        StAddrA: if (a_ar_ready_i) begin state_q <= StReadA; idx_q <= '0; end
        StReadA: if (a_r_valid_i) begin
          acc_q[idx_q[2:0]] <= a_r_data_i;
          idx_q <= idx_q + 4'd1;
          if (last) state_q <= StAddrB;
        end
        StAddrB: if (b_ar_ready_i) begin state_q <= StReadB; idx_q <= '0; end
        StReadB: if (b_r_valid_i) begin
          acc_q[idx_q[2:0]] <= acc_q[idx_q[2:0]] + b_r_data_i;
          idx_q <= idx_q + 4'd1;
          if (last) state_q <= StAddrC;
        end
        StAddrC: if (c_aw_ready_i) begin state_q <= StWriteC; idx_q <= '0; end
        StWriteC: if (c_w_ready_i) begin
          idx_q <= idx_q + 4'd1;
          if (last) begin
            state_q <= StIdle;
            done_q <= 1'b1;
          end
        end
        default: ;
      endcase
    end
  end
  assign run_start_o = 1'b0;
  logic unused_bus;
  assign unused_bus = ^{bus_idle_i, bus_error_i};
endmodule
