// The Icarus Verilog testbench of a generated NPU top (iverilog -g2012): the second simulator of
// the co-simulation, beside the Verilator harness sim/cosim_main.cpp. It drives the same top
// with the same stimulus and checks the same things:
//
//   * an AXI4 DRAM model with a fixed latency (Latency cycles from a read burst's address
//     handshake to its first beat, and from a write burst's last beat to its response) and a
//     deterministic pseudo-random back-pressure: each ready and valid it drives (A/B address
//     ready, A/B read data valid, C address ready, C write data ready, C response valid) is held
//     low in StallPermille of the cycles, from a xorshift32 per signal seeded by Seed; a valid,
//     once raised, stays until it is taken; RLAST marks each read burst's last beat;
//   * the host programs A_BASE, B_BASE, C_BASE (and their _HI halves), M, N, K and CTRL.START over AXI4-Lite (one
//     transaction at a time), waits for irq_o (at most MaxCycles cycles), then reads STATUS,
//     ERROR, CYCLES and BOUND;
//   * every burst is INCR, full-width, beat-aligned, 1..256 beats, with its master's ID, inside
//     its buffer and never across a 4 KB boundary; every write burst's last beat, and only that
//     one, carries WLAST; no burst is left unfinished at DONE; DONE is set and ERROR is not;
//   * the design is compiled with DG_AXI4_CHECK: the AXI4 protocol checker bound to each of its
//     interfaces must find no rule broken;
//   * every byte of C is written (strobed) exactly once and equals the expected byte, and no byte
//     past C's end is written: with rows that are not whole bus beats (byte rows) a beat's strobes
//     enable only the bytes of the rows it carries.
//
// The register offsets and bits come from the design's generated <top>_regs.svh, given to iverilog
// before this file. The top's module name is the macro DG_TOP (iverilog -DDG_TOP=npu_gemm_<name>); the shape, the
// element container bytes, the bus width, the buffer bases and the DRAM knobs are parameters
// (iverilog -Ptb_npu.M=20 ...). The word files come from sim/icarus/stimulus.cpp: +a=FILE,
// +b=FILE, +c=FILE (default a.hex, b.hex, c.hex). Prints one line, "PASS: ... cycles N ..." or
// "FAIL: ...", after up to 10 lines on what went wrong; a failure also ends vvp with status 1.
//
// Cycles are counted as the Verilator harness counts them: from the clock edge that takes the
// START write to the first edge after which irq_o is high.
`ifndef DG_REG_CTRL
  `error "tb_npu.sv needs the design's <top>_regs.svh before it on the iverilog command line"
`endif
`ifndef DG_REGS_ADDR_BITS
  `define DG_REGS_ADDR_BITS 32
`endif
module tb_npu #(
  parameter int          BusBits       = 128,
  parameter int          M             = 20,
  parameter int          N             = 48,
  parameter int          K             = 128,
  parameter int          AElemBytes    = 1,
  parameter int          BElemBytes    = 1,
  parameter int          CElemBytes    = 4,     // int32 or int64
  parameter int          AddrW         = `DG_REGS_ADDR_BITS,  // the design's bus address width
  // The operands: above 4 GiB on a bus wider than 32 bits, so that the bases' high halves are used.
  parameter logic [63:0] ABase         = (AddrW > 32 ? 64'h1_0000_0000 : 64'h0) + 64'h1000_0000,
  parameter logic [63:0] BBase         = ABase + 64'h1000_0000,
  parameter logic [63:0] CBase         = ABase + 64'h2000_0000,
  parameter int          Latency       = 100,
  parameter int          StallPermille = 0,
  parameter int          Seed          = 1,
  parameter int          MaxCycles     = 0     // 0: 2000000 + M*N*K
);
  localparam int BeatBytes = BusBits / 8;
  localparam int AWords    = (M * K * AElemBytes + BeatBytes - 1) / BeatBytes;
  localparam int BWords    = (K * N * BElemBytes + BeatBytes - 1) / BeatBytes;
  localparam int CWords    = (M * N * CElemBytes + BeatBytes - 1) / BeatBytes;
  localparam int CBytes    = M * N * CElemBytes;
  localparam int QDepth    = 1024;   // outstanding bursts per stream, and early write beats
  localparam longint Limit = MaxCycles > 0 ? longint'(MaxCycles) : 64'd2000000 + longint'(M) * N * K;

  logic clk = 1'b0, rst_n = 1'b0;
  always #5 clk = ~clk;

  // ---- the design ------------------------------------------------------------------------------
  wire                irq;
  logic               s_awvalid = 1'b0, s_wvalid = 1'b0, s_arvalid = 1'b0;
  logic [11:0]        s_awaddr = 12'd0, s_araddr = 12'd0;
  logic [31:0]        s_wdata = 32'd0;
  wire                s_awready, s_wready, s_bvalid, s_arready, s_rvalid;
  wire  [1:0]         s_bresp, s_rresp;
  wire  [31:0]        s_rdata;
  wire                a_ar_valid, b_ar_valid, a_r_ready, b_r_ready;
  wire  [1:0]         a_ar_id, b_ar_id, a_ar_burst, b_ar_burst;
  wire  [AddrW-1:0]   a_ar_addr, b_ar_addr;
  wire  [7:0]         a_ar_len, b_ar_len;
  wire  [2:0]         a_ar_size, b_ar_size, a_ar_prot, b_ar_prot;
  wire  [3:0]         a_ar_cache, b_ar_cache;
  logic               a_ar_ready = 1'b0, b_ar_ready = 1'b0, a_r_valid = 1'b0, b_r_valid = 1'b0;
  logic               a_r_last = 1'b0, b_r_last = 1'b0;
  logic [BusBits-1:0] a_r_data = '0, b_r_data = '0;
  wire                c_aw_valid, c_w_valid, c_w_last, c_b_ready;
  wire  [1:0]         c_aw_id, c_aw_burst;
  wire  [AddrW-1:0]   c_aw_addr;
  wire  [7:0]         c_aw_len;
  wire  [2:0]         c_aw_size, c_aw_prot;
  wire  [3:0]         c_aw_cache;
  wire  [BusBits-1:0] c_w_data;
  wire  [BusBits/8-1:0] c_w_strb;
  logic               c_aw_ready = 1'b0, c_w_ready = 1'b0, c_b_valid = 1'b0;

  `DG_TOP u_dut (
    .clk_i              (clk),
    .rst_ni             (rst_n),
    .irq_o              (irq),
    .s_axil_awvalid_i   (s_awvalid),
    .s_axil_awready_o   (s_awready),
    .s_axil_awaddr_i    (s_awaddr),
    .s_axil_awprot_i    (3'd0),
    .s_axil_wvalid_i    (s_wvalid),
    .s_axil_wready_o    (s_wready),
    .s_axil_wdata_i     (s_wdata),
    .s_axil_wstrb_i     (4'hf),
    .s_axil_bvalid_o    (s_bvalid),
    .s_axil_bready_i    (1'b1),
    .s_axil_bresp_o     (s_bresp),
    .s_axil_arvalid_i   (s_arvalid),
    .s_axil_arready_o   (s_arready),
    .s_axil_araddr_i    (s_araddr),
    .s_axil_arprot_i    (3'd0),
    .s_axil_rvalid_o    (s_rvalid),
    .s_axil_rready_i    (1'b1),
    .s_axil_rdata_o     (s_rdata),
    .s_axil_rresp_o     (s_rresp),
    .m_axi_a_arvalid_o  (a_ar_valid),
    .m_axi_a_arready_i  (a_ar_ready),
    .m_axi_a_arid_o     (a_ar_id),
    .m_axi_a_araddr_o   (a_ar_addr),
    .m_axi_a_arlen_o    (a_ar_len),
    .m_axi_a_arsize_o   (a_ar_size),
    .m_axi_a_arburst_o  (a_ar_burst),
    .m_axi_a_arcache_o  (a_ar_cache),
    .m_axi_a_arprot_o   (a_ar_prot),
    .m_axi_a_rvalid_i   (a_r_valid),
    .m_axi_a_rready_o   (a_r_ready),
    .m_axi_a_rid_i      (2'd0),
    .m_axi_a_rdata_i    (a_r_data),
    .m_axi_a_rresp_i    (2'd0),
    .m_axi_a_rlast_i    (a_r_last),
    .m_axi_b_arvalid_o  (b_ar_valid),
    .m_axi_b_arready_i  (b_ar_ready),
    .m_axi_b_arid_o     (b_ar_id),
    .m_axi_b_araddr_o   (b_ar_addr),
    .m_axi_b_arlen_o    (b_ar_len),
    .m_axi_b_arsize_o   (b_ar_size),
    .m_axi_b_arburst_o  (b_ar_burst),
    .m_axi_b_arcache_o  (b_ar_cache),
    .m_axi_b_arprot_o   (b_ar_prot),
    .m_axi_b_rvalid_i   (b_r_valid),
    .m_axi_b_rready_o   (b_r_ready),
    .m_axi_b_rid_i      (2'd1),
    .m_axi_b_rdata_i    (b_r_data),
    .m_axi_b_rresp_i    (2'd0),
    .m_axi_b_rlast_i    (b_r_last),
    .m_axi_c_awvalid_o  (c_aw_valid),
    .m_axi_c_awready_i  (c_aw_ready),
    .m_axi_c_awid_o     (c_aw_id),
    .m_axi_c_awaddr_o   (c_aw_addr),
    .m_axi_c_awlen_o    (c_aw_len),
    .m_axi_c_awsize_o   (c_aw_size),
    .m_axi_c_awburst_o  (c_aw_burst),
    .m_axi_c_awcache_o  (c_aw_cache),
    .m_axi_c_awprot_o   (c_aw_prot),
    .m_axi_c_wvalid_o   (c_w_valid),
    .m_axi_c_wready_i   (c_w_ready),
    .m_axi_c_wdata_o    (c_w_data),
    .m_axi_c_wstrb_o    (c_w_strb),
    .m_axi_c_wlast_o    (c_w_last),
    .m_axi_c_bvalid_i   (c_b_valid),
    .m_axi_c_bready_o   (c_b_ready),
    .m_axi_c_bid_i      (2'd2),
    .m_axi_c_bresp_i    (2'd0)
  );

  // ---- memory and checks -----------------------------------------------------------------------
  logic [BusBits-1:0] a_mem [0:AWords-1];
  logic [BusBits-1:0] b_mem [0:BWords-1];
  logic [BusBits-1:0] c_exp [0:CWords-1];
  logic [BusBits-1:0] c_got [0:CWords-1];
  int                 c_count [0:CWords*BeatBytes-1];   // writes of each byte

  longint cyc = 0;       // clock edges so far
  int     errors = 0;
  longint read_beats = 0, write_beats = 0;

  task automatic fail(input string what, input logic [63:0] addr, input int len);
    if (errors < 10) $display("tb_npu: cycle %0d: %s (address 0x%0h, %0d beats)", cyc, what, addr, len);
    errors = errors + 1;
  endtask

  // buf: 0 A, 1 B, 2 C.
  task automatic check_burst(input int buf_i, input logic [63:0] addr, input logic [8:0] len, input logic [2:0] size,
                             input logic [1:0] burst, input logic [1:0] id);
    longint base, words, a, bytes;
    base  = buf_i == 0 ? ABase : buf_i == 1 ? BBase : CBase;
    words = buf_i == 0 ? AWords : buf_i == 1 ? BWords : CWords;
    a     = longint'(addr);
    bytes = longint'(len) * BeatBytes;
    if (a % BeatBytes != 0) fail("burst not beat-aligned", addr, int'(len));
    if ((1 << size) != BeatBytes) fail("burst of narrow transfers (AxSIZE is not the bus width)", addr, int'(len));
    if (burst != 2'b01) fail("burst not INCR", addr, int'(len));
    if (int'(id) != buf_i) fail("burst with another master's ID", addr, int'(len));
    if (len < 9'd1 || len > 9'd256) fail("burst length outside 1..256", addr, int'(len));
    if ((a % 4096) + bytes > 4096) fail("burst crosses a 4 KB boundary", addr, int'(len));
    if (a < base || a + bytes > base + words * BeatBytes)
      fail(buf_i == 2 ? "write outside C" : buf_i == 0 ? "read outside A" : "read outside B", addr, int'(len));
  endtask

  // Word index of byte address a in buffer buf_i, or -1 outside it.
  function automatic longint word_of(input int buf_i, input longint a);
    longint base, words;
    base  = buf_i == 0 ? ABase : buf_i == 1 ? BBase : CBase;
    words = buf_i == 0 ? AWords : buf_i == 1 ? BWords : CWords;
    if (a < base || a >= base + words * BeatBytes) return -1;
    return (a - base) / BeatBytes;
  endfunction

  function automatic logic [31:0] xorshift32(input logic [31:0] x);
    logic [31:0] y;
    y = x ^ (x << 13);
    y = y ^ (y >> 17);
    return y ^ (y << 5);
  endfunction

  // ---- the DRAM model: everything it drives changes right after a clock edge -------------------
  // Outstanding bursts: stream 0 (A reads) in [0, QDepth), 1 (B reads) in [QDepth, 2*QDepth),
  // 2 (C writes) in [2*QDepth, 3*QDepth); each a ring from q_head to q_tail.
  logic [63:0] q_addr [0:3*QDepth-1];
  int          q_len [0:3*QDepth-1];
  longint      q_ready_at [0:3*QDepth-1];
  int          q_head [0:2], q_tail [0:2], q_done [0:2];
  // Write responses due: the cycle each may be given.
  longint      b_ready_at [0:QDepth-1];
  int          b_head = 0, b_tail = 0;
  // Write beats that came before their burst's address.
  logic [BusBits-1:0] wq_data [0:QDepth-1];
  logic               wq_last [0:QDepth-1];
  logic [BusBits/8-1:0] wq_strb [0:QDepth-1];
  int                 wq_head = 0, wq_tail = 0;
  logic [31:0]        lfsr [0:6];
  bit                 stall [0:6];

  initial begin
    for (int s = 0; s < 3; s++) begin
      q_head[s] = 0;
      q_tail[s] = 0;
      q_done[s] = 0;
    end
    for (int i = 0; i < 7; i++) begin
      lfsr[i] = 32'(Seed) * 32'h9e37_79b9 ^ 32'(i + 1) * 32'h85eb_ca6b;
      if (lfsr[i] == 32'd0) lfsr[i] = 32'd1;
    end
    for (int i = 0; i < CWords * BeatBytes; i++) c_count[i] = 0;
  end

  task automatic push(input int s, input logic [63:0] addr, input logic [8:0] len, input longint ready_at);
    int slot;
    if (q_tail[s] - q_head[s] >= QDepth) begin
      fail("more outstanding bursts than the model holds", addr, int'(len));
    end else begin
      slot = s * QDepth + q_tail[s] % QDepth;
      q_addr[slot] = addr;
      q_len[slot] = int'(len);
      q_ready_at[slot] = ready_at;
      q_tail[s] = q_tail[s] + 1;
    end
  endtask

  // Takes one beat of stream s's head burst; returns its byte address.
  function automatic longint take_beat(input int s);
    int slot;
    longint at;
    slot = s * QDepth + q_head[s] % QDepth;
    at = longint'(q_addr[slot]) + longint'(q_done[s]) * BeatBytes;
    q_done[s] = q_done[s] + 1;
    if (q_done[s] == q_len[slot]) begin
      q_done[s] = 0;
      q_head[s] = q_head[s] + 1;
    end
    return at;
  endfunction

  // The head burst of read stream s may present a beat in cycle c.
  function automatic bit beat_ready(input int s, input longint c);
    return q_head[s] != q_tail[s] && c >= q_ready_at[s * QDepth + q_head[s] % QDepth];
  endfunction

  function automatic logic [BusBits-1:0] read_word(input int s, input longint at);
    longint w;
    w = word_of(s, at);
    if (w < 0) return '0;
    return s == 0 ? a_mem[w] : b_mem[w];
  endfunction

  always @(posedge clk) begin
    longint at, w;
    bit     last_expected;
    // Handshakes, as the design saw them before this edge.
    if (rst_n) begin
      if ((^{a_ar_valid, b_ar_valid, a_r_ready, b_r_ready, c_aw_valid, c_w_valid, c_b_ready, irq}) === 1'bx)
        fail("a valid, ready or irq output is unknown", 32'd0, 0);
      if (a_ar_valid && a_ar_ready) begin
        check_burst(0, a_ar_addr, {1'b0, a_ar_len} + 9'd1, a_ar_size, a_ar_burst, a_ar_id);
        push(0, a_ar_addr, {1'b0, a_ar_len} + 9'd1, cyc + 1 + Latency);
      end
      if (b_ar_valid && b_ar_ready) begin
        check_burst(1, b_ar_addr, {1'b0, b_ar_len} + 9'd1, b_ar_size, b_ar_burst, b_ar_id);
        push(1, b_ar_addr, {1'b0, b_ar_len} + 9'd1, cyc + 1 + Latency);
      end
      if (c_b_valid && c_b_ready) b_head = b_head + 1;
      if (a_r_valid && a_r_ready) begin
        at = take_beat(0);
        read_beats = read_beats + 1;
      end
      if (b_r_valid && b_r_ready) begin
        at = take_beat(1);
        read_beats = read_beats + 1;
      end
      if (c_aw_valid && c_aw_ready) begin
        check_burst(2, c_aw_addr, {1'b0, c_aw_len} + 9'd1, c_aw_size, c_aw_burst, c_aw_id);
        push(2, c_aw_addr, {1'b0, c_aw_len} + 9'd1, 0);
      end
      if (c_w_valid && c_w_ready) begin
        write_beats = write_beats + 1;
        if (wq_tail - wq_head >= QDepth) begin
          fail("more early write beats than the model holds", 32'd0, 0);
        end else begin
          wq_data[wq_tail % QDepth] = c_w_data;
          wq_last[wq_tail % QDepth] = c_w_last;
          wq_strb[wq_tail % QDepth] = c_w_strb;
          wq_tail = wq_tail + 1;
        end
      end
      // Write beats meet their bursts in order.
      while (wq_head != wq_tail && q_head[2] != q_tail[2]) begin
        last_expected = q_done[2] + 1 == q_len[2 * QDepth + q_head[2] % QDepth];
        if (wq_last[wq_head % QDepth] !== last_expected)
          fail("write data last flag does not end its burst", q_addr[2 * QDepth + q_head[2] % QDepth],
               q_len[2 * QDepth + q_head[2] % QDepth]);
        if (last_expected) begin  // the burst's response, after the latency
          b_ready_at[b_tail % QDepth] = cyc + 1 + Latency;
          b_tail = b_tail + 1;
        end
        at = take_beat(2);
        w = word_of(2, at);
        if (w >= 0) begin
          for (int j = 0; j < BeatBytes; j++)
            if (wq_strb[wq_head % QDepth][j] === 1'b1) begin
              c_got[w][8*j +: 8] = wq_data[wq_head % QDepth][8*j +: 8];
              c_count[w * BeatBytes + j] = c_count[w * BeatBytes + j] + 1;
            end else if (wq_strb[wq_head % QDepth][j] !== 1'b0) begin
              fail("write strobe not 0 or 1", at, 0);
            end
        end
        wq_head = wq_head + 1;
      end
    end
    // What the model drives in the next cycle (cycle cyc + 1).
    for (int i = 0; i < 7; i++) begin
      lfsr[i] = xorshift32(lfsr[i]);
      stall[i] = 32'(lfsr[i] % 32'd1000) < 32'(StallPermille);
    end
    a_ar_ready <= rst_n && !stall[0];
    b_ar_ready <= rst_n && !stall[1];
    c_aw_ready <= rst_n && !stall[4];
    c_w_ready  <= rst_n && !stall[5];
    if (!(a_r_valid && !a_r_ready)) begin   // a beat not taken stays
      a_r_valid <= rst_n && beat_ready(0, cyc + 1) && !stall[2];
      a_r_data  <= rst_n && beat_ready(0, cyc + 1) && !stall[2]
                   ? read_word(0, longint'(q_addr[q_head[0] % QDepth]) + longint'(q_done[0]) * BeatBytes) : '0;
      a_r_last  <= rst_n && beat_ready(0, cyc + 1) && !stall[2] && q_done[0] + 1 == q_len[q_head[0] % QDepth];
    end
    if (!(b_r_valid && !b_r_ready)) begin
      b_r_valid <= rst_n && beat_ready(1, cyc + 1) && !stall[3];
      b_r_data  <= rst_n && beat_ready(1, cyc + 1) && !stall[3]
                   ? read_word(1, longint'(q_addr[QDepth + q_head[1] % QDepth]) + longint'(q_done[1]) * BeatBytes) : '0;
      b_r_last  <= rst_n && beat_ready(1, cyc + 1) && !stall[3] && q_done[1] + 1 == q_len[QDepth + q_head[1] % QDepth];
    end
    if (!(c_b_valid && !c_b_ready))          // a response not taken stays
      c_b_valid <= rst_n && b_head != b_tail && cyc + 1 >= b_ready_at[b_head % QDepth] && !stall[6];
    cyc <= cyc + 1;
  end

  // ---- the host: AXI4-Lite transactions, driven between clock edges ----------------------------
  int reg_errors = 0;   // register accesses answered with an error
  task automatic reg_write(input logic [11:0] off, input logic [31:0] v);
    bit aw_done, w_done;
    aw_done = 1'b0;
    w_done = 1'b0;
    s_awaddr = off;
    s_wdata = v;
    s_awvalid = 1'b1;
    s_wvalid = 1'b1;
    while (!(aw_done && w_done)) begin
      @(posedge clk);
      if (s_awvalid && s_awready) aw_done = 1'b1;
      if (s_wvalid && s_wready) w_done = 1'b1;
      @(negedge clk);
      s_awvalid = !aw_done;
      s_wvalid = !w_done;
    end
    while (!s_bvalid) @(negedge clk);
    if (s_bresp != 2'b00) reg_errors = reg_errors + 1;
    @(negedge clk);   // the response is taken at this edge (BREADY is high)
  endtask

  task automatic reg_read(input logic [11:0] off, output logic [31:0] v);
    bit ar_done;
    ar_done = 1'b0;
    s_araddr = off;
    s_arvalid = 1'b1;
    while (!ar_done) begin
      @(posedge clk);
      if (s_arready) ar_done = 1'b1;
      @(negedge clk);
      s_arvalid = !ar_done;
    end
    while (!s_rvalid) @(negedge clk);
    v = s_rdata;
    if (s_rresp != 2'b00) reg_errors = reg_errors + 1;
    @(negedge clk);
  endtask

  reg [8*512-1:0] a_file, b_file, c_file;
  longint         start_cyc, run_cycles;
  logic [31:0]    status, error, hw_cycles, bound;
  longint         mismatches, missing, twice, past, unfinished;
  bit             bad;

  initial begin
    if (!$value$plusargs("a=%s", a_file)) a_file = "a.hex";
    if (!$value$plusargs("b=%s", b_file)) b_file = "b.hex";
    if (!$value$plusargs("c=%s", c_file)) c_file = "c.hex";
    $readmemh(a_file, a_mem);
    $readmemh(b_file, b_mem);
    $readmemh(c_file, c_exp);
    for (int i = 0; i < CWords; i++) c_got[i] = {(BusBits / 8){8'ha5}};   // not zero: every word must be written

    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    @(negedge clk);
    reg_write(`DG_REG_A_BASE, ABase[31:0]);
    reg_write(`DG_REG_B_BASE, BBase[31:0]);
    reg_write(`DG_REG_C_BASE, CBase[31:0]);
    reg_write(`DG_REG_A_BASE_HI, ABase[63:32]);
    reg_write(`DG_REG_B_BASE_HI, BBase[63:32]);
    reg_write(`DG_REG_C_BASE_HI, CBase[63:32]);
    reg_write(`DG_REG_M, 32'(M));
    reg_write(`DG_REG_N, 32'(N));
    reg_write(`DG_REG_K, 32'(K));
    reg_write(`DG_REG_CTRL, 32'd1 << `DG_CTRL_START_LSB);
    start_cyc = cyc - 1;   // START took effect at the edge that raised the write response, one before this
    while (irq !== 1'b1 && cyc - start_cyc < Limit) @(negedge clk);
    run_cycles = cyc - start_cyc;
    reg_read(`DG_REG_STATUS, status);
    reg_read(`DG_REG_ERROR, error);
    reg_read(`DG_REG_CYCLES, hw_cycles);
    reg_read(`DG_REG_BOUND, bound);

    if (irq !== 1'b1) fail("the design did not finish", 32'd0, 0);
    if (status[`DG_STATUS_DONE_LSB] !== 1'b1) fail("STATUS.DONE is not set", status, 0);
    if (status[`DG_STATUS_ERROR_LSB] !== 1'b0) fail("the design reported ERROR", error, 0);
    unfinished = 0;
    for (int s = 0; s < 3; s++) unfinished = unfinished + q_tail[s] - q_head[s];
    if (unfinished != 0 || wq_head != wq_tail || b_head != b_tail) fail("bursts left unfinished at DONE", 32'd0, int'(unfinished));
    if (reg_errors != 0) fail("register accesses answered with an error", 32'd0, reg_errors);
    // The bound protocol checkers.
    if (u_dut.u_check_regs.errors_q + u_dut.u_check_a.errors_q + u_dut.u_check_b.errors_q + u_dut.u_check_c.errors_q != 0)
      fail("the AXI4 protocol checker found rules broken", 32'd0,
           u_dut.u_check_regs.errors_q + u_dut.u_check_a.errors_q + u_dut.u_check_b.errors_q + u_dut.u_check_c.errors_q);

    mismatches = 0;
    missing = 0;
    twice = 0;
    past = 0;
    for (int i = 0; i < CWords * BeatBytes; i++) begin
      if (i >= CBytes) begin
        if (c_count[i] != 0) past = past + 1;
      end else if (c_count[i] == 0) begin
        missing = missing + 1;
      end else if (c_count[i] > 1) begin
        twice = twice + 1;
      end
    end
    for (int i = 0; i < CWords; i++) begin
      bad = 1'b0;
      for (int j = 0; j < BeatBytes; j++)
        if (i * BeatBytes + j < CBytes && c_got[i][8*j +: 8] !== c_exp[i][8*j +: 8]) bad = 1'b1;
      if (bad) begin
        if (mismatches < 8) $display("tb_npu: C word %0d (byte 0x%0h): got %h, expected %h", i, i * BeatBytes, c_got[i], c_exp[i]);
        mismatches = mismatches + 1;
      end
    end
    if (missing != 0) fail("C bytes never written", 32'd0, int'(missing));
    if (twice != 0) fail("C bytes written more than once", 32'd0, int'(twice));
    if (past != 0) fail("bytes past C's end written", 32'd0, int'(past));

    $display("%s: M=%0d N=%0d K=%0d, %0d-bit bus, latency %0d, stall %0d/1000, seed %0d: cycles %0d (CYCLES %0d, plan estimate %0d), %0d of %0d C words wrong, %0d protocol errors, %0d read and %0d write beats",
             mismatches == 0 && errors == 0 ? "PASS" : "FAIL", M, N, K, BusBits, Latency, StallPermille, Seed,
             run_cycles, hw_cycles, bound, mismatches, CWords, errors, read_beats, write_beats);
    if (mismatches != 0 || errors != 0) $fatal(1, "tb_npu: FAIL");
    $finish;
  end
endmodule
