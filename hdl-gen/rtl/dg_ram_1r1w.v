// dg_ram_1r1w: one scratchpad bank or accumulator buffer: a write port and a read port, read
// data registered (valid the cycle after re_i). Infers block RAM in Yosys. Its users never read
// and write one word in the same cycle (the scratchpad and accumulator buffers are double-
// buffered by handshake, and the engine's read-modify-write of accumulator rows reads a row the
// cycle before it writes it), so synthesis needs no collision logic (no_rw_check); simulation
// stops with an error if that ever happens. Part of the fixed DeepGEMM RTL library.
//
// ASIC flows: with DG_ASIC_MEMORIES defined, each instance is the macro wrapper
// dg_asic_ram_1r1w #(.Width(W), .Depth(D)) (ports clk_i, we_i, waddr_i, wdata_i, re_i, raddr_i,
// rdata_o, addresses $clog2(D) bits, read data registered as here) that the integrator provides
// around the SRAM macros of their process; `compile --synth --fpga asic` keeps it a black box and
// lists every instance with its words and width.
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
`ifdef DG_ASIC_MEMORIES
  dg_asic_ram_1r1w #(.Width(Width), .Depth(1 << AddrW)) u_macro (
    .clk_i, .we_i, .waddr_i, .wdata_i, .re_i, .raddr_i, .rdata_o
  );
`else
  (* no_rw_check *) logic [Width-1:0] mem_q [1 << AddrW];

  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[waddr_i] <= wdata_i;
    if (re_i) rdata_o <= mem_q[raddr_i];
  end
`endif

`ifndef SYNTHESIS
`ifndef FORMAL
  always_ff @(posedge clk_i) begin
    if (we_i && re_i && waddr_i == raddr_i) $fatal(1, "dg_ram_1r1w: word %0d read and written in one cycle", waddr_i);
  end
`endif
`endif
endmodule
