// dg_spad_arbiter: the scratchpad's write ports. A and B fill the same banks (tile row r of
// either operand lives in bank r mod Banks), each bank has one write port, so when both streams
// want one bank in a cycle one writes and the other waits a cycle. The stream whose tile rows are
// shorter (fewer words per bank visit) goes first (BFirst): it leaves a shared bank after a word or
// two and runs ahead, where the other order (or taking turns) keeps the two fills, whose rows walk
// the banks in the same order, in step, the short rows waiting out every long row bank after bank.
// Part of the fixed DeepGEMM RTL library.
//
// Under `FORMAL`, proved by k-induction: no bank is written twice in a cycle, a granted request
// is written to exactly the bank it names, and a request is refused only for a conflict, and only
// the second stream's.
module dg_spad_arbiter #(
  parameter int Banks    = 4,
  parameter int LgBanks  = 2,
  parameter int WordBits = 8,
  parameter int SpadAW   = 4,
  parameter bit BFirst   = 1'b0   // B's writes go first on a conflict
) (
  input  logic                     a_req_i,
  input  logic [LgBanks-1:0]       a_bank_i,
  input  logic [SpadAW-1:0]        a_addr_i,
  input  logic [WordBits-1:0]      a_data_i,
  output logic                     a_grant_o,
  input  logic                     b_req_i,
  input  logic [LgBanks-1:0]       b_bank_i,
  input  logic [SpadAW-1:0]        b_addr_i,
  input  logic [WordBits-1:0]      b_data_i,
  output logic                     b_grant_o,
  output logic [Banks-1:0]         we_o,
  output logic [Banks*SpadAW-1:0]  waddr_o,
  output logic [Banks*WordBits-1:0] wdata_o
);
  logic clash;
  assign clash     = a_req_i && b_req_i && a_bank_i == b_bank_i;
  assign a_grant_o = !(clash && BFirst);
  assign b_grant_o = !(clash && !BFirst);

  for (genvar b = 0; b < Banks; b++) begin : g_bank
    logic a_here, b_here;
    assign a_here = a_req_i && a_grant_o && a_bank_i == LgBanks'(b);
    assign b_here = b_req_i && b_grant_o && b_bank_i == LgBanks'(b);
    assign we_o[b] = a_here || b_here;
    assign waddr_o[b*SpadAW +: SpadAW] = a_here ? a_addr_i : b_addr_i;
    assign wdata_o[b*WordBits +: WordBits] = a_here ? a_data_i : b_data_i;
  end

`ifdef FORMAL
  // No state: each property holds for every input. Proved with the parameters the generated
  // top instantiates it with (the model's banks and word width).
  for (genvar b = 0; b < Banks; b++) begin : g_check
    logic a_w, b_w;
    assign a_w = a_req_i && a_grant_o && a_bank_i == LgBanks'(b);
    assign b_w = b_req_i && b_grant_o && b_bank_i == LgBanks'(b);
    always @(*) begin
      assert (!(a_w && b_w));                                    // one write per bank and cycle
      assert (we_o[b] == (a_w || b_w));                          // only granted requests write
      assert (!we_o[b] || waddr_o[b*SpadAW +: SpadAW] == (a_w ? a_addr_i : b_addr_i));
    end
  end
  always @(*) begin
    if (a_req_i && !(b_req_i && a_bank_i == b_bank_i)) assert (a_grant_o);  // A waits only for B
    if (b_req_i && !(a_req_i && a_bank_i == b_bank_i)) assert (b_grant_o);  // B waits only for A
    if (clash) assert (a_grant_o != b_grant_o && b_grant_o == BFirst);     // one winner, the first stream
  end
`endif
endmodule
