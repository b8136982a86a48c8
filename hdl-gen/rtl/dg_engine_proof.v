// dg_engine_proof: the output-stationary compute engine (dg_engine) in its environment
// (dg_engine_env), for proof by k-induction of the engine's properties (its FORMAL block): the
// loop counters and tile origins stay inside the tile and the problem, every scratchpad read lies
// inside the step's buffer of its operand and comes from a buffer the DMA filled, a capture never
// overwrites a prefetch not yet taken, and the drain reads and writes only accumulator rows of the
// C tile in a buffer the C stream does not hold. The scratchpad's and the accumulators' read data
// are zero and the written sums go nowhere: the engine's control does not depend on them, and the
// data path, left without a load, drops out of the proof. Part of the fixed DeepGEMM RTL library;
// not synthesized.
module dg_engine_proof #(
  parameter int Rows     = 16,
  parameter int Cols     = 16,
  parameter int Banks    = 16,
  parameter int LgBanks  = 4,
  parameter int WordBits = 128,
  parameter int SpadAW   = 10,
  parameter int EABits   = 8,
  parameter int EBBits   = 8,
  parameter int AW       = 8,
  parameter int BW       = 8,
  parameter bit ASigned  = 1'b1,
  parameter bit BSigned  = 1'b1,
  parameter int G        = 16,
  parameter int TileM    = 16,
  parameter int TileN    = 32,
  parameter int TileK    = 64,
  parameter int DW       = 12,
  parameter int AWords   = 4,
  parameter int BWords   = 2,
  parameter int ABase0   = 0,
  parameter int ABase1   = 4,
  parameter int BBase0   = 8,
  parameter int BBase1   = 16,
  parameter int BSeg     = 1,
  parameter int AccAW    = 5,
  parameter bit Shadow   = 1'b1,
  parameter int AccW     = 32,
  parameter bit BankXor  = 1'b0,
  parameter bit BColMajor = 1'b0,
  parameter bit AColMajor = 1'b0,
  parameter int ASeg     = 1,
  // the plan's M, N and K (dg_engine_env)
  parameter int MMin     = 16,
  parameter int MMax     = 16,
  parameter int NMin     = 32,
  parameter int NMax     = 32,
  parameter int KMin     = 64,
  parameter int KMax     = 64
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          start_i,
  input  logic [DW-1:0] m_i,
  input  logic [DW-1:0] n_i,
  input  logic [DW-1:0] k_i,
  input  logic [1:0]    a_full_i,
  input  logic [1:0]    b_full_i,
  input  logic [1:0]    acc_full_i
);
  logic                    idle, release_step, release_buf, acc_set, acc_buf, acc_re, acc_we;
  logic [Banks-1:0]        rd_en;
  logic [Banks*SpadAW-1:0] rd_addr;
  logic [AccAW-1:0]        acc_raddr, acc_waddr;
  logic [Cols*AccW-1:0]    acc_wdata;

  dg_engine #(
    .Rows(Rows), .Cols(Cols), .Banks(Banks), .LgBanks(LgBanks), .WordBits(WordBits), .SpadAW(SpadAW),
    .EABits(EABits), .EBBits(EBBits), .AW(AW), .BW(BW), .ASigned(ASigned), .BSigned(BSigned), .G(G),
    .TileM(TileM), .TileN(TileN), .TileK(TileK), .DW(DW), .AWords(AWords), .BWords(BWords),
    .ABase0(ABase0), .ABase1(ABase1), .BBase0(BBase0), .BBase1(BBase1), .BSeg(BSeg), .AccAW(AccAW),
    .Shadow(Shadow), .AccW(AccW), .BankXor(BankXor), .BColMajor(BColMajor), .AColMajor(AColMajor), .ASeg(ASeg)
  ) u_engine (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .start_i      (start_i),
    .m_i          (m_i),
    .n_i          (n_i),
    .k_i          (k_i),
    .idle_o       (idle),
    .a_full_i     (a_full_i),
    .b_full_i     (b_full_i),
    .release_o    (release_step),
    .release_buf_o(release_buf),
    .rd_en_o      (rd_en),
    .rd_addr_o    (rd_addr),
    .rd_data_i    ('0),
    .acc_full_i   (acc_full_i),
    .acc_set_o    (acc_set),
    .acc_buf_o    (acc_buf),
    .acc_re_o     (acc_re),
    .acc_raddr_o  (acc_raddr),
    .acc_rdata_i  ('0),
    .acc_we_o     (acc_we),
    .acc_waddr_o  (acc_waddr),
    .acc_wdata_o  (acc_wdata)
  );

  dg_engine_env #(.DW(DW), .MMin(MMin), .MMax(MMax), .NMin(NMin), .NMax(NMax), .KMin(KMin), .KMax(KMax)) u_env (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .start_i      (start_i),
    .m_i          (m_i),
    .n_i          (n_i),
    .k_i          (k_i),
    .idle_i       (idle),
    .a_full_i     (a_full_i),
    .b_full_i     (b_full_i),
    .acc_full_i   (acc_full_i),
    .release_i    (release_step),
    .release_buf_i(release_buf),
    .acc_set_i    (acc_set),
    .acc_buf_i    (acc_buf)
  );

`ifdef FORMAL
  // An idle engine neither reads nor writes.
  always @(*) if (rst_ni && idle) assert (rd_en == '0 && !acc_re && !acc_we && !release_step && !acc_set);
`endif
  logic unused;
  assign unused = ^{acc_raddr, acc_waddr, acc_wdata, acc_re, acc_we, rd_en, rd_addr};  // (used under FORMAL)
endmodule
