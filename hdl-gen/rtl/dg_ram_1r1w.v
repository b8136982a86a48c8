// dg_ram_1r1w: one scratchpad bank or accumulator buffer: a write port and a read port, read
// data registered (valid the cycle after re_i, the old contents when the same word is written in
// that cycle). Infers block RAM in Yosys. Part of the fixed DeepGEMM RTL library.
module dg_ram_1r1w #(
  parameter int Width = 128,
  parameter int AddrW = 10
) (
  input  logic             clk_i,
  input  logic             we_i,
  input  logic [AddrW-1:0] waddr_i,
  input  logic [Width-1:0] wdata_i,
  input  logic             re_i,
  input  logic [AddrW-1:0] raddr_i,
  output logic [Width-1:0] rdata_o
);
  logic [Width-1:0] mem_q [1 << AddrW];

  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[waddr_i] <= wdata_i;
    if (re_i) rdata_o <= mem_q[raddr_i];
  end
endmodule
