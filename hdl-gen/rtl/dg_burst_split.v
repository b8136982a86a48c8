// dg_burst_split: turns one request (a byte address and a length in bus beats) into bus bursts
// that are beat-aligned, at most MaxBurst beats long, and never cross a Boundary-byte boundary
// (AMBA AXI4: 256 beats, 4 KB). Part of the fixed DeepGEMM RTL library; the DMA controller of a
// generated NPU top instantiates one per stream.
//
// Handshakes are valid/ready. A request is accepted when the splitter is idle; its bursts follow
// one per accepted burst handshake; the splitter is idle again after the last one. burst_len_o is
// the number of beats (1..MaxBurst), not AXI's beats - 1.
//
// Under `FORMAL` the properties below are proved by k-induction (Yosys, SMT-LIB2, Z3) with the
// parameters the generated top instantiates it with: every burst is
// aligned, within MaxBurst, inside one boundary window, the bursts of a request cover exactly
// its bytes, in order, each once, and a request leaves in the number of bursts below (its bound).
module dg_burst_split #(
  parameter int AddrW     = 32,
  parameter int LenW      = 16,    // request length in beats
  parameter int BeatBytes = 16,
  parameter int MaxBurst  = 256,
  parameter int Boundary  = 4096
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             req_valid_i,
  output logic             req_ready_o,
  input  logic [AddrW-1:0] req_addr_i,    // BeatBytes-aligned
  input  logic [LenW-1:0]  req_beats_i,   // >= 1
  output logic             burst_valid_o,
  input  logic             burst_ready_i,
  output logic [AddrW-1:0] burst_addr_o,
  output logic [8:0]       burst_len_o,   // beats, 1..MaxBurst
  output logic             burst_last_o   // the request's last burst
);
  localparam int BeatShift = $clog2(BeatBytes);
  localparam int WinBeats  = Boundary / BeatBytes;   // beats per boundary window
  localparam int WinW      = $clog2(WinBeats) + 1;

  logic             busy_q;
  logic [AddrW-1:0] addr_q;
  logic [LenW-1:0]  left_q;   // beats still to issue

  // Beats from addr_q to the end of its boundary window, and the burst taken now.
  logic [WinW-1:0] to_edge;
  logic [LenW:0]   take;
  assign to_edge = WinW'(WinBeats) - {1'b0, addr_q[$clog2(Boundary)-1:BeatShift]};
  always_comb begin
    take = {1'b0, left_q};
    if (take > (LenW+1)'(MaxBurst)) take = (LenW+1)'(MaxBurst);
    if (take > (LenW+1)'(to_edge)) take = (LenW+1)'(to_edge);
  end

  assign req_ready_o   = !busy_q;
  assign burst_valid_o = busy_q;
  assign burst_addr_o  = addr_q;
  assign burst_len_o   = take[8:0];
  assign burst_last_o  = busy_q && take == {1'b0, left_q};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      addr_q <= '0;
      left_q <= '0;
    end else if (!busy_q) begin
      if (req_valid_i) begin
        busy_q <= 1'b1;
        addr_q <= req_addr_i;
        left_q <= req_beats_i;
      end
    end else if (burst_ready_i) begin
      addr_q <= addr_q + (AddrW'(take) << BeatShift);
      left_q <= left_q - take[LenW-1:0];
      if (burst_last_o) busy_q <= 1'b0;
    end
  end

`ifdef FORMAL
  // The environment: requests are aligned, non-empty and do not wrap the address space.
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) begin
    if (!f_past_valid) assume (!rst_ni);
    if (req_valid_i) begin
      assume (req_addr_i[BeatShift-1:0] == '0);
      assume (req_beats_i != '0);
      assume ({1'b0, req_addr_i} + ({{(AddrW+1-LenW){1'b0}}, req_beats_i} << BeatShift) <= {1'b1, {AddrW{1'b0}}});
    end
  end

  // The request being split, and where its next burst must start.
  reg [AddrW:0] f_next, f_end;
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      f_next <= '0;
      f_end  <= '0;
    end else if (!busy_q && req_valid_i) begin
      f_next <= {1'b0, req_addr_i};
      f_end  <= {1'b0, req_addr_i} + ({{(AddrW+1-LenW){1'b0}}, req_beats_i} << BeatShift);
    end else if (busy_q && burst_ready_i) begin
      f_next <= f_next + ((AddrW+1)'(take) << BeatShift);
    end
  end

  always @(*) begin
    if (rst_ni && f_past_valid && busy_q) begin
      // Each burst: aligned, 1..MaxBurst beats, inside one boundary window.
      assert (burst_addr_o[BeatShift-1:0] == '0);
      assert (burst_len_o >= 9'd1 && burst_len_o <= 9'(MaxBurst));
      assert ({1'b0, burst_addr_o[$clog2(Boundary)-1:0]} + ({{($clog2(Boundary)+1-9){1'b0}}, burst_len_o} << BeatShift)
              <= ($clog2(Boundary)+1)'(Boundary));
      // Coverage, in order, each byte once: the burst starts where the last one ended, and what
      // is left reaches exactly the request's end.
      assert ({1'b0, addr_q} == f_next);
      assert (f_next + ({{(AddrW+1-LenW){1'b0}}, left_q} << BeatShift) == f_end);
      assert (left_q != '0);
    end
    if (rst_ni && f_past_valid && !busy_q) assert (f_next == f_end);
    if (rst_ni && f_past_valid) assert (f_end <= {1'b1, {AddrW{1'b0}}});  // requests never wrap
  end

  // Bound: a request of L beats whose first P beats reach its address's window edge (P = L if
  // it ends before) leaves in exactly ceil(P / MaxBurst) + ceil((L - P) / MaxBurst) bursts: the
  // beats past the first edge start window-aligned, and a power-of-two MaxBurst divides the
  // window. The splitter is idle again after that many accepted bursts. (For a MaxBurst that is
  // not a power of two the count is not asserted: the division does not close in time.)
  localparam int NW = LenW + 2;
  localparam int LgMax = $clog2(MaxBurst);
  // The bursts of a request of `beats` beats whose address is `edge_beats` from its window edge.
  function automatic logic [NW-1:0] f_bursts(input logic [NW-1:0] beats, input logic [NW-1:0] edge_beats);
    logic [NW-1:0] p;
    p = beats < edge_beats ? beats : edge_beats;
    f_bursts = ((p + NW'(MaxBurst - 1)) >> LgMax) + ((beats - p + NW'(MaxBurst - 1)) >> LgMax);
  endfunction
  if ((MaxBurst & (MaxBurst - 1)) == 0) begin : g_f_bound
    logic [NW-1:0] f_budget_q;   // bursts the request being split may still take
    logic [WinW-1:0] f_edge_i;
    assign f_edge_i = WinW'(WinBeats) - {1'b0, req_addr_i[$clog2(Boundary)-1:BeatShift]};
    always @(posedge clk_i) begin
      if (!rst_ni) f_budget_q <= '0;
      else if (!busy_q && req_valid_i) f_budget_q <= f_bursts(NW'(req_beats_i), NW'(f_edge_i));
      else if (busy_q && burst_ready_i) f_budget_q <= f_budget_q - NW'(1);
    end
    always @(*) begin
      if (rst_ni && f_past_valid && busy_q)
        assert (f_budget_q == f_bursts(NW'(left_q), NW'(to_edge)) && f_budget_q != '0);
    end
  end
`endif
endmodule
