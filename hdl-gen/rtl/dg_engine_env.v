// dg_engine_env: the environment a compute engine (dg_engine, dg_engine_ws) is proved in, as the
// generated top provides it, stated as assumptions for the engines' proofs (dg_engine_proof,
// dg_engine_ws_proof):
//   - the proof starts in reset;
//   - START comes only while the engine is idle (the top refuses it while running), with M, N and
//     K inside the plan's values or run-time ranges (the top's start check);
//   - a scratchpad buffer's full flag falls only after the engine released that buffer, or after
//     START (the scratchpad fill refills a buffer only once it is given back);
//   - an accumulator buffer's full flag rises only after the engine handed that buffer over
//     (acc_set_i), and falls whenever the C stream has written it out.
// It asserts nothing itself. Part of the fixed DeepGEMM RTL library; not synthesized.
module dg_engine_env #(
  parameter int DW   = 12,
  // the plan's M, N and K: fixed (min = max) or the run-time ranges the top's start check allows
  // (used under FORMAL only)
  /* verilator lint_off UNUSEDPARAM */
  parameter int MMin = 16,
  parameter int MMax = 16,
  parameter int NMin = 32,
  parameter int NMax = 32,
  parameter int KMin = 64,
  parameter int KMax = 64
  /* verilator lint_on UNUSEDPARAM */
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          start_i,
  input  logic [DW-1:0] m_i,
  input  logic [DW-1:0] n_i,
  input  logic [DW-1:0] k_i,
  input  logic          idle_i,
  input  logic [1:0]    a_full_i,
  input  logic [1:0]    b_full_i,
  input  logic [1:0]    acc_full_i,
  input  logic          release_i,
  input  logic          release_buf_i,
  input  logic          acc_set_i,
  input  logic          acc_buf_i
);
`ifdef FORMAL
  // The previous cycle's flags, releases and hand-overs.
  logic [1:0] a_full_q, b_full_q, acc_full_q;
  logic       start_q, release_q, release_buf_q, acc_set_q, acc_buf_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_full_q <= '0;
      b_full_q <= '0;
      acc_full_q <= '0;
      start_q <= 1'b0;
      release_q <= 1'b0;
      release_buf_q <= 1'b0;
      acc_set_q <= 1'b0;
      acc_buf_q <= 1'b0;
    end else begin
      a_full_q <= a_full_i;
      b_full_q <= b_full_i;
      acc_full_q <= acc_full_i;
      start_q <= start_i;
      release_q <= release_i;
      release_buf_q <= release_buf_i;
      acc_set_q <= acc_set_i;
      acc_buf_q <= acc_buf_i;
    end
  end

  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) begin
    if (!f_past_valid) assume (!rst_ni);
    if (start_i)
      assume (idle_i && 32'(m_i) >= MMin && 32'(m_i) <= MMax && 32'(n_i) >= NMin && 32'(n_i) <= NMax &&
              32'(k_i) >= KMin && 32'(k_i) <= KMax);
    for (int x = 0; x < 2; x++) begin
      if ((a_full_q[x] && !a_full_i[x]) || (b_full_q[x] && !b_full_i[x]))
        assume (start_q || (release_q && release_buf_q == 1'(x)));
      if (!acc_full_q[x] && acc_full_i[x]) assume (acc_set_q && acc_buf_q == 1'(x));
    end
  end
`else
  logic unused;
  assign unused = ^{clk_i, rst_ni, start_i, m_i, n_i, k_i, idle_i, a_full_i, b_full_i, acc_full_i, release_i,
                    release_buf_i, acc_set_i, acc_buf_i};
`endif
endmodule
