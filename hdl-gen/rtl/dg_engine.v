// dg_engine: the compute engine of the NPU. It walks the plan's tile loop nest in the same order
// as the A and B AGUs (block_m, block_n, k_tile), and inside each K step the Rows x Cols
// sub-blocks of the C tile (mi, nj) and, for each, the step's k in groups of G:
//
//   prefetch  reads the group's operands from the scratchpad buffer of the step: the A words of
//             the sub-block's Rows tile rows (one bank each, one cycle), then the B words of the
//             group's G tile rows (one bank each, BSeg cycles) -- or, with BColMajor (B's tile
//             rows run along K), the B words of the sub-block's Cols tile rows (one bank each,
//             one cycle), as for A -- into the prefetch registers. With AColMajor (A's tile rows
//             run along M) the A words are those of the group's G tile rows (one bank each, ASeg
//             cycles), as for a row-major B;
//   compute   feeds the MAC array one k per cycle for G cycles (a k past K adds zero), while the
//             prefetch of the next group proceeds;
//   drain     after a sub-block's last group of a step, moves the array's shadow registers into
//             the accumulator buffer of the C tile: row i of the sub-block is added to (first K
//             step: written as) accumulator row (mi*Rows + i) * (TileN/Cols) + nj.
//
// A scratchpad buffer is released to the DMA when its step's last group has been read; a C tile
// begins draining into an accumulator buffer only while that buffer is free (the C stream has
// written its previous tile out), and the buffer is handed to the C stream when the tile's last
// drain is written. Part of the fixed DeepGEMM RTL library; the generated top sets the
// parameters from the plan.
module dg_engine #(
  parameter int Rows     = 16,
  parameter int Cols     = 16,
  parameter int Banks    = 16,
  parameter int LgBanks  = 4,
  parameter int WordBits = 128,
  parameter int SpadAW   = 10,
  parameter int EABits   = 8,     // bits of an A element in memory: 4 (packed two per byte), 8 or 16
  parameter int EBBits   = 8,
  parameter int AW       = 8,     // bits of an A element the multiplier uses
  parameter int BW       = 8,
  parameter bit ASigned  = 1'b1,
  parameter bit BSigned  = 1'b1,
  parameter int G        = 16,    // k per group
  parameter int TileM    = 16,
  parameter int TileN    = 32,
  parameter int TileK    = 64,
  parameter int DW       = 12,
  parameter int AWords   = 4,     // scratchpad words per A tile row
  parameter int BWords   = 2,     // scratchpad words per B tile row
  parameter int ABase0   = 0,
  parameter int ABase1   = 4,
  parameter int BBase0   = 8,
  parameter int BBase1   = 16,
  parameter int BSeg     = 1,     // scratchpad words per B row segment of a sub-block
  parameter int AccAW    = 5,
  parameter bit Shadow   = 1'b1,  // the MAC array has shadow registers (else it waits while draining)
  parameter int AccW     = 32,    // accumulator bits: 32, 48 or 64
  parameter bit BankXor  = 1'b0,  // the bank mapping (dg_bank_map): XOR-swizzled, else modulo
  parameter bit BColMajor = 1'b0, // B's tile rows run along K: TileN rows of BWords words (Cols <= Banks)
  parameter bit AColMajor = 1'b0, // A's tile rows run along M: TileK rows of AWords words
  parameter int ASeg     = 1      // scratchpad words per A row segment of a sub-block (AColMajor)
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic                       start_i,
  input  logic [DW-1:0]              m_i,
  input  logic [DW-1:0]              n_i,
  input  logic [DW-1:0]              k_i,
  output logic                       idle_o,
  // scratchpad buffers and read ports
  input  logic [1:0]                 a_full_i,
  input  logic [1:0]                 b_full_i,
  output logic                       release_o,
  output logic                       release_buf_o,
  output logic [Banks-1:0]           rd_en_o,
  output logic [Banks*SpadAW-1:0]    rd_addr_o,
  input  logic [Banks*WordBits-1:0]  rd_data_i,
  // accumulator buffers
  input  logic [1:0]                 acc_full_i,
  output logic                       acc_set_o,
  output logic                       acc_buf_o,
  output logic                       acc_re_o,
  output logic [AccAW-1:0]           acc_raddr_o,
  input  logic [Cols*AccW-1:0]       acc_rdata_i,
  output logic                       acc_we_o,
  output logic [AccAW-1:0]           acc_waddr_o,
  output logic [Cols*AccW-1:0]       acc_wdata_o
);
  localparam int NMi = TileM / Rows, NNj = TileN / Cols, NG = TileK / G;
  localparam int MiW = NMi > 1 ? $clog2(NMi) : 1;
  localparam int NjW = NNj > 1 ? $clog2(NNj) : 1;
  localparam int GiW = NG > 1 ? $clog2(NG) : 1;
  localparam int CW  = G > 1 ? $clog2(G) : 1;     // k within a group
  localparam int KvW = $clog2(G + 1);
  localparam int APh = AColMajor ? ASeg : 1;      // read cycles of A per group
  localparam int BPh  = BColMajor ? 1 : BSeg;     // read cycles of B per group
  localparam int PhW = $clog2(APh + BPh);
  localparam int RiW = Rows > 1 ? $clog2(Rows) : 1;
  localparam int LaneW = $clog2(WordBits);        // a bit offset inside a word
  localparam int GA   = G * EABits;               // bits of one A row of a group
  localparam int SegB = Cols * EBBits;            // bits of one B row of a sub-block
  localparam int ElemsA = WordBits / EABits;
  localparam int ElemsB = WordBits / EBBits;

  // ---- prefetch: the loop nest ------------------------------------------------------------------
  logic            p_busy_q, sb_q, cb_q;
  logic [DW-1:0]   m_q, n_q, k_q, m0_q, n0_q, k0_q;
  logic [MiW-1:0]  mi_q;
  logic [NjW-1:0]  nj_q;
  logic [GiW-1:0]  g_q;
  logic [PhW-1:0]  ph_q;

  logic last_g, last_nj, last_mi, last_k, last_n, last_m;
  assign last_nj = nj_q == NjW'(NNj - 1);
  assign last_mi = mi_q == MiW'(NMi - 1);
  assign last_k  = k0_q + DW'(TileK) >= k_q;
  assign last_n  = n0_q + DW'(TileN) >= n_q;
  assign last_m  = m0_q + DW'(TileM) >= m_q;

  // The prefetch registers and what travels with them.
  typedef struct packed {
    logic [KvW-1:0] kv;        // k of the group inside K
    logic           last_g;    // the sub-block's last group of this step: drain after it
    logic           first;     // first K step of the C tile: the drain writes, later ones add
    logic [MiW-1:0] mi;
    logic [NjW-1:0] nj;
    logic           cb;        // accumulator buffer of the C tile
    logic           tile_last; // the drain completes the C tile
  } meta_t;

  logic [Rows*GA-1:0] pf_a_q;
  logic [G*SegB-1:0]  pf_b_q;
  logic               pf_valid_q;
  meta_t              pf_meta_q, cap_meta_q, meta_now;

  // Capture of the read issued last cycle.
  logic               cap_q, cap_last_q, cap_release_q, cap_sb_q;
  logic [PhW-1:0]     cap_ph_q;
  logic [LgBanks-1:0] cap_off_q, cap_q_q;
  logic [LaneW-1:0]   cap_lane_q;

  // The step's last group: the tile's last, or the last that starts inside K (a run-time K below
  // the plan's K tile skips the groups past it).
  logic [DW-1:0] kbase;
  assign kbase  = k0_q + DW'(g_q) * DW'(G);
  assign last_g = g_q == GiW'(NG - 1) || kbase + DW'(G) >= k_q;
  always_comb begin
    meta_now.kv = kbase + DW'(G) <= k_q ? KvW'(G) : kbase < k_q ? KvW'(k_q - kbase) : KvW'(0);
    meta_now.last_g = last_g;
    meta_now.first = k0_q == '0;
    meta_now.mi = mi_q;
    meta_now.nj = nj_q;
    meta_now.cb = cb_q;
    meta_now.tile_last = last_k && last_mi && last_nj;
  end

  logic rd_go, rd_last;
  assign rd_go   = p_busy_q && (ph_q != '0 || (!pf_valid_q && !(cap_q && cap_last_q) && a_full_i[sb_q] && b_full_i[sb_q]));
  assign rd_last = ph_q == PhW'(APh + BPh - 1);
  logic rd_a;  // this read cycle is one of A's
  assign rd_a    = ph_q < PhW'(APh);

  // Scratchpad read addresses: A rows mi*Rows + i sit in banks offA + i (mod Banks), B rows g*G + t
  // in banks offB + t (G divides Banks). Where Rows does not divide Banks (an array of, say, 6 rows
  // on 8 banks) the sub-block's rows wrap past the last bank: those in banks below offA are at the
  // next word row of their banks. (Rows and G are j = r mod Banks of the rows; the bank mapping,
  // dg_bank_map, places j of word row q, which it also inverts.)
  // A column-major B's rows nj*Cols + j sit in banks offB + j, like A's (BWrap: Cols does not
  // divide Banks).
  // A column-major A's rows g*G + t sit in banks offA + t, like a row-major B's (G divides Banks).
  localparam bit AWrap = !AColMajor && Banks % Rows != 0;
  localparam bit BWrap = BColMajor && Banks % Cols != 0;
  logic [LgBanks-1:0] off_a, off_b, q_a, q_b, q_rd;
  logic [SpadAW-1:0]  word_a, word_b;
  logic [LaneW-1:0]   lane_a, lane_b;
  assign off_a  = AColMajor ? LgBanks'((32'(g_q) * G) % Banks) : LgBanks'((32'(mi_q) * Rows) % Banks);
  assign off_b  = BColMajor ? LgBanks'((32'(nj_q) * Cols) % Banks) : LgBanks'((32'(g_q) * G) % Banks);
  assign q_a    = AColMajor ? LgBanks'((32'(g_q) * G) / Banks) : LgBanks'((32'(mi_q) * Rows) / Banks);
  assign q_b    = BColMajor ? LgBanks'((32'(nj_q) * Cols) / Banks) : LgBanks'((32'(g_q) * G) / Banks);
  assign q_rd   = rd_a ? q_a : q_b;
  assign word_a = AColMajor
                ? SpadAW'(sb_q ? ABase1 : ABase0) + SpadAW'((32'(g_q) * G / Banks) * AWords)
                  + SpadAW'(32'(mi_q) * Rows * EABits / WordBits) + SpadAW'(ph_q)
                : SpadAW'(sb_q ? ABase1 : ABase0) + SpadAW'((32'(mi_q) * Rows / Banks) * AWords)
                  + SpadAW'(32'(g_q) * G * EABits / WordBits);
  assign word_b = BColMajor
                ? SpadAW'(sb_q ? BBase1 : BBase0) + SpadAW'((32'(nj_q) * Cols / Banks) * BWords)
                  + SpadAW'(32'(g_q) * G * EBBits / WordBits)
                : SpadAW'(sb_q ? BBase1 : BBase0) + SpadAW'((32'(g_q) * G / Banks) * BWords)
                  + SpadAW'(32'(nj_q) * Cols * EBBits / WordBits) + SpadAW'(ph_q) - SpadAW'(APh);
  assign lane_a = AColMajor ? LaneW'((32'(mi_q) * Rows * EABits) % WordBits) : LaneW'(((32'(g_q) * G) % ElemsA) * EABits);
  assign lane_b = BColMajor ? LaneW'(((32'(g_q) * G) % ElemsB) * EBBits) : LaneW'((32'(nj_q) * Cols * EBBits) % WordBits);

  for (genvar b = 0; b < Banks; b++) begin : g_rd
    logic [LgBanks-1:0] ia, tb;
    logic [LgBanks-1:0] j;        // the row of the word row this bank holds
    logic               wrapped;  // the A row read from this bank wrapped past the last bank
    logic               wrapped_b;  // likewise the column-major B row
    dg_bank_map #(.LgBanks(LgBanks), .Xor(BankXor)) u_bank_map (.q_i(q_rd), .j_i(LgBanks'(b)), .bank_o(j));
    assign ia = j - off_a;
    assign tb = j - off_b;
    if (AWrap && b < Banks - 1) begin : g_wrap
      assign wrapped = off_a > LgBanks'(b);
    end else begin : g_no_wrap
      assign wrapped = 1'b0;
    end
    if (BWrap && b < Banks - 1) begin : g_wrap_b
      assign wrapped_b = off_b > LgBanks'(b);
    end else begin : g_no_wrap_b
      assign wrapped_b = 1'b0;
    end
    assign rd_en_o[b] = rd_go && (rd_a ? 32'(ia) < (AColMajor ? G : Rows) : 32'(tb) < (BColMajor ? Cols : G));
    assign rd_addr_o[b*SpadAW +: SpadAW] = !rd_a ? (wrapped_b ? word_b + SpadAW'(BWords) : word_b)
                                         : wrapped ? word_a + SpadAW'(AWords) : word_a;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p_busy_q <= 1'b0;
      sb_q <= 1'b0;
      cb_q <= 1'b0;
      m_q <= '0;
      n_q <= '0;
      k_q <= '0;
      m0_q <= '0;
      n0_q <= '0;
      k0_q <= '0;
      mi_q <= '0;
      nj_q <= '0;
      g_q <= '0;
      ph_q <= '0;
      cap_q <= 1'b0;
      cap_last_q <= 1'b0;
      cap_release_q <= 1'b0;
      cap_sb_q <= 1'b0;
      cap_ph_q <= '0;
      cap_off_q <= '0;
      cap_q_q <= '0;
      cap_lane_q <= '0;
      cap_meta_q <= '0;
    end else if (start_i) begin
      p_busy_q <= 1'b1;
      sb_q <= 1'b0;
      cb_q <= 1'b0;
      m_q <= m_i;
      n_q <= n_i;
      k_q <= k_i;
      m0_q <= '0;
      n0_q <= '0;
      k0_q <= '0;
      mi_q <= '0;
      nj_q <= '0;
      g_q <= '0;
      ph_q <= '0;
      cap_q <= 1'b0;
    end else begin
      cap_q <= rd_go;
      if (rd_go) begin
        cap_ph_q <= ph_q;
        cap_off_q <= rd_a ? off_a : off_b;
        cap_q_q <= q_rd;
        cap_lane_q <= rd_a ? lane_a : lane_b;
        cap_last_q <= rd_last;
        cap_release_q <= rd_last && last_g && last_nj && last_mi;
        cap_sb_q <= sb_q;
        cap_meta_q <= meta_now;
        if (!rd_last) begin
          ph_q <= ph_q + PhW'(1);
        end else begin
          ph_q <= '0;
          if (!last_g) begin
            g_q <= g_q + GiW'(1);
          end else begin
            g_q <= '0;
            if (!last_nj) begin
              nj_q <= nj_q + NjW'(1);
            end else begin
              nj_q <= '0;
              if (!last_mi) begin
                mi_q <= mi_q + MiW'(1);
              end else begin
                mi_q <= '0;
                sb_q <= !sb_q;                 // the next K step uses the other buffer
                if (!last_k) begin
                  k0_q <= k0_q + DW'(TileK);
                end else begin
                  k0_q <= '0;
                  cb_q <= !cb_q;               // the next C tile uses the other accumulator buffer
                  if (!last_n) begin
                    n0_q <= n0_q + DW'(TileN);
                  end else begin
                    n0_q <= '0;
                    if (!last_m) m0_q <= m0_q + DW'(TileM);
                    else p_busy_q <= 1'b0;
                  end
                end
              end
            end
          end
        end
      end
    end
  end

  assign release_o     = cap_q && cap_release_q;
  assign release_buf_o = cap_sb_q;

  // ---- compute ----------------------------------------------------------------------------------
  logic               cm_valid_q, shadow_full_q;
  logic [CW-1:0]      c_q;
  logic [Rows*GA-1:0] cm_a_q;
  logic [G*SegB-1:0]  cm_b_q;
  meta_t              cm_meta_q;
  logic               at_end, stall, step, finish, load, to_shadow;

  assign at_end    = c_q == CW'(G - 1);
  // With shadow registers only a sub-block's last step waits for the previous drain; without
  // them no step happens while the accumulators are drained.
  assign stall     = Shadow ? at_end && cm_meta_q.last_g && shadow_full_q : shadow_full_q;
  assign step      = cm_valid_q && !stall;
  assign finish    = step && at_end;
  assign load      = pf_valid_q && (!cm_valid_q || finish);
  assign to_shadow = finish && cm_meta_q.last_g;

  logic [Rows*AW-1:0] a_vec;
  logic [Cols*BW-1:0] b_vec;
  for (genvar i = 0; i < Rows; i++) begin : g_avec
    assign a_vec[i*AW +: AW] = cm_a_q[i*GA +: AW];
  end
  for (genvar j = 0; j < Cols; j++) begin : g_bvec
    assign b_vec[j*BW +: BW] = cm_b_q[j*EBBits +: BW];
  end

  logic [Rows*Cols*AccW-1:0] shadow;
`ifndef FORMAL
  dg_mac_array #(.Rows(Rows), .Cols(Cols), .AW(AW), .BW(BW), .ASigned(ASigned), .BSigned(BSigned), .Shadow(Shadow),
                 .AccW(AccW)) u_array (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .step_i     (step),
    .mask_i     (32'(c_q) < 32'(cm_meta_q.kv)),
    .to_shadow_i(to_shadow),
    .a_i        (a_vec),
    .b_i        (b_vec),
    .shadow_o   (shadow)
  );
`else
  assign shadow = '0;
`endif

  // The word each tile row of the capture reads: row t of the group sits in bank cap_off + t
  // (mod Banks: the bank index wraps), chosen by a Banks-way multiplexer; the lane inside it is a
  // shift by at most a word. (A part-select of the whole read data at a computed offset would be a
  // barrel shifter over every bank's bits.)
  localparam int CapRows0 = Rows > G ? Rows : G;
  localparam int CapRows = BColMajor && Cols > CapRows0 ? Cols : CapRows0;
  logic [WordBits-1:0] cap_word [CapRows];
  for (genvar t = 0; t < CapRows; t++) begin : g_cap_word
    logic [LgBanks-1:0] bank;
    dg_bank_map #(.LgBanks(LgBanks), .Xor(BankXor)) u_bank_map (
      .q_i   (cap_q_q),
      .j_i   (cap_off_q + LgBanks'(t)),
      .bank_o(bank)
    );
    always_comb begin
      cap_word[t] = rd_data_i[0 +: WordBits];
      for (int k = 1; k < Banks; k++)
        if (bank == LgBanks'(k)) cap_word[t] = rd_data_i[k*WordBits +: WordBits];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pf_valid_q <= 1'b0;
      pf_a_q <= '0;
      pf_b_q <= '0;
      pf_meta_q <= '0;
      cm_valid_q <= 1'b0;
      c_q <= '0;
      cm_a_q <= '0;
      cm_b_q <= '0;
      cm_meta_q <= '0;
    end else if (start_i) begin
      pf_valid_q <= 1'b0;
      cm_valid_q <= 1'b0;
    end else begin
`ifndef FORMAL  // (the data path: see the properties below)
      // Capture: A rows from their banks, or one word of each B row.
      if (cap_q) begin
        if (cap_ph_q < PhW'(APh)) begin
          if (AColMajor) begin
            // Row i's G k from the group's rows (k-major), the elements of word cap_ph of the
            // sub-block's segment: row i's k-ordered group in the prefetch, as for a row-major A.
            for (int i = 0; i < Rows; i++)
              if (i / ElemsA == 32'(cap_ph_q))
                for (int t = 0; t < G; t++)
                  pf_a_q[i*GA + t*EABits +: EABits] <= EABits'(WordBits'(cap_word[t] >> cap_lane_q) >> ((i % ElemsA) * EABits));
          end else begin
            for (int i = 0; i < Rows; i++) pf_a_q[i*GA +: GA] <= GA'(cap_word[i] >> cap_lane_q);
          end
        end else if (BColMajor) begin
          // Column j's G k from its row's word, into the prefetch's k-major order.
          for (int j = 0; j < Cols; j++)
            for (int t = 0; t < G; t++)
              pf_b_q[t*SegB + j*EBBits +: EBBits] <= EBBits'(WordBits'(cap_word[j] >> cap_lane_q) >> (t * EBBits));
        end else begin
          for (int t = 0; t < G; t++) begin
            if (BSeg == 1)
              // (shifted at the word's width: with two-word segments this branch is not taken,
              // but it is still elaborated with SegB wider than the word)
              pf_b_q[t*SegB +: SegB] <= SegB'(WordBits'(cap_word[t] >> cap_lane_q));
            else
              pf_b_q[t*SegB + (32'(cap_ph_q) - APh) * WordBits +: WordBits] <= cap_word[t];
          end
        end
      end
`endif
      if (load) begin
        cm_a_q <= pf_a_q;
        cm_b_q <= pf_b_q;
        cm_meta_q <= pf_meta_q;
        c_q <= '0;
        cm_valid_q <= 1'b1;
      end else if (finish) begin
        cm_valid_q <= 1'b0;
      end else if (step) begin
        c_q <= c_q + CW'(1);
        for (int i = 0; i < Rows; i++) cm_a_q[i*GA +: GA] <= cm_a_q[i*GA +: GA] >> EABits;
        cm_b_q <= cm_b_q >> SegB;
      end
      if (cap_q && cap_last_q) begin
        pf_valid_q <= 1'b1;
        pf_meta_q <= cap_meta_q;
      end else if (load) begin
        pf_valid_q <= 1'b0;
      end
    end
  end

  // ---- drain ------------------------------------------------------------------------------------
  logic [1:0]     d_state_q;   // 0: waiting for the accumulator buffer, 1: rows, 2: last write
  logic [RiW-1:0] d_i_q, w_i_q;
  logic           w_valid_q;
  meta_t          d_meta_q;

  // Accumulator row of sub-block row i: (mi * Rows + i) * (TileN / Cols) + nj.
  logic [31:0] d_row, w_row;
  assign d_row = (32'(d_meta_q.mi) * Rows + 32'(d_i_q)) * NNj + 32'(d_meta_q.nj);
  assign w_row = (32'(d_meta_q.mi) * Rows + 32'(w_i_q)) * NNj + 32'(d_meta_q.nj);

  assign acc_buf_o   = d_meta_q.cb;
  assign acc_re_o    = d_state_q == 2'd1 && !d_meta_q.first;
  assign acc_raddr_o = AccAW'(d_row);
  assign acc_we_o    = w_valid_q;
  assign acc_waddr_o = AccAW'(w_row);
  // The shadow row being written, chosen by a Rows-way multiplexer (a part-select at a computed
  // offset would be a barrel shifter over the whole array's sums).
  logic [Cols*AccW-1:0] w_sums;
  always_comb begin
    w_sums = shadow[0 +: Cols*AccW];
    for (int i = 1; i < Rows; i++)
      if (w_i_q == RiW'(i)) w_sums = shadow[i*Cols*AccW +: Cols*AccW];
  end
  for (genvar j = 0; j < Cols; j++) begin : g_wdata
    assign acc_wdata_o[j*AccW +: AccW] = (d_meta_q.first ? AccW'(0) : acc_rdata_i[j*AccW +: AccW]) + w_sums[j*AccW +: AccW];
  end
  logic unused_drain;
  assign unused_drain = ^{d_meta_q.kv, d_meta_q.last_g, d_row[31:AccAW], w_row[31:AccAW]};
  assign acc_set_o = w_valid_q && w_i_q == RiW'(Rows - 1) && d_meta_q.tile_last;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      shadow_full_q <= 1'b0;
      d_state_q <= 2'd0;
      d_i_q <= '0;
      w_i_q <= '0;
      w_valid_q <= 1'b0;
      d_meta_q <= '0;
    end else if (start_i) begin
      shadow_full_q <= 1'b0;
      d_state_q <= 2'd0;
      w_valid_q <= 1'b0;
    end else begin
      if (to_shadow) begin
        shadow_full_q <= 1'b1;
        d_meta_q <= cm_meta_q;
      end
      w_valid_q <= 1'b0;
      if (shadow_full_q) begin
        case (d_state_q)
          2'd0: if (!acc_full_i[d_meta_q.cb]) begin
            d_state_q <= 2'd1;
            d_i_q <= '0;
          end
          2'd1: begin
            w_valid_q <= 1'b1;
            w_i_q <= d_i_q;
            if (d_i_q == RiW'(Rows - 1)) d_state_q <= 2'd2;
            else d_i_q <= d_i_q + RiW'(1);
          end
          default: ;
        endcase
      end
      if (w_valid_q && w_i_q == RiW'(Rows - 1)) begin
        shadow_full_q <= 1'b0;
        d_state_q <= 2'd0;
      end
    end
  end

  assign idle_o = !p_busy_q && !cap_q && !pf_valid_q && !cm_valid_q && !shadow_full_q;
`ifdef FORMAL
  // ---- properties -------------------------------------------------------------------------------
  // Proved by k-induction through dg_engine_proof, in the environment dg_engine_env assumes
  // (START only while the engine is idle, with M, N and K inside the plan's ranges; a scratchpad
  // buffer emptied only after the engine released it; an accumulator buffer taken by the C stream
  // only after the engine handed it over). The data path is outside these properties (the
  // co-simulation checks the sums bit for bit); they are about where and when the engine reads and
  // writes. Under FORMAL the data path's capture of the operands and the MAC array are left out:
  // nothing these properties see depends on them, and elaborating them costs Yosys minutes at
  // 16-bit elements.
  localparam int ABufW = ABase1 - ABase0;  // scratchpad words per bank of one A or B buffer
  localparam int BBufW = BBase1 - BBase0;
  localparam int AccRows = NMi * Rows * NNj;  // accumulator rows of one C tile
  always @(*) if (rst_ni) begin
    // The loop counters stay inside the tile; the tile origins inside the problem, with room for
    // one more tile in DW bits (the last-tile tests cannot wrap).
    assert (32'(mi_q) < NMi && 32'(nj_q) < NNj && 32'(g_q) < NG && 32'(ph_q) < APh + BPh);
    assert (64'(m_q) + TileM < 64'(1) << DW && 64'(n_q) + TileN < 64'(1) << DW && 64'(k_q) + TileK < 64'(1) << DW);
    if (p_busy_q) assert (m0_q < m_q && n0_q < n_q && k0_q < k_q);
    // Reads come only from a buffer the DMA filled and has not been given back: a group's first
    // read waits for both, and a step's buffer is released the cycle after its last read, when
    // the reads have moved to the other buffer.
    if (p_busy_q && ph_q != '0) assert (a_full_i[sb_q] && b_full_i[sb_q]);
    if (rd_go) assert (a_full_i[sb_q] && b_full_i[sb_q]);
    if (cap_q && cap_release_q) assert (cap_sb_q != sb_q && a_full_i[cap_sb_q] && b_full_i[cap_sb_q]);
    // A capture never overwrites a prefetch the array has not taken: the read after a group's last
    // is the next group's first, which waits for the prefetch registers.
    if (cap_q && cap_last_q) assert (ph_q == '0);
    if (cap_q) assert (!pf_valid_q);
    // The meta fields of every stage stay inside the C tile.
    assert (32'(cap_meta_q.mi) < NMi && 32'(cap_meta_q.nj) < NNj);
    assert (32'(pf_meta_q.mi) < NMi && 32'(pf_meta_q.nj) < NNj);
    assert (32'(cm_meta_q.mi) < NMi && 32'(cm_meta_q.nj) < NNj);
    assert (32'(d_meta_q.mi) < NMi && 32'(d_meta_q.nj) < NNj);
    assert (32'(d_i_q) < Rows && 32'(w_i_q) < Rows);
    // The drain reads and writes only an accumulator buffer the C stream does not hold, at a row
    // of the C tile that the address port carries whole.
    if (d_state_q != 2'd0 || w_valid_q) assert (shadow_full_q && !acc_full_i[d_meta_q.cb]);
    if (acc_re_o) assert (!acc_full_i[acc_buf_o] && d_row < AccRows && d_row < 32'(1) << AccAW);
    if (acc_we_o) assert (!acc_full_i[acc_buf_o] && w_row < AccRows && w_row < 32'(1) << AccAW);
  end
  // Every scratchpad read lies inside its operand's buffer of the step.
  for (genvar b = 0; b < Banks; b++) begin : g_rd_check
    always @(*)
      if (rst_ni && rd_en_o[b]) begin
        if (rd_a)
          assert (rd_addr_o[b*SpadAW +: SpadAW] >= SpadAW'(sb_q ? ABase1 : ABase0) &&
                  32'(rd_addr_o[b*SpadAW +: SpadAW]) < (sb_q ? ABase1 : ABase0) + ABufW);
        else
          assert (rd_addr_o[b*SpadAW +: SpadAW] >= SpadAW'(sb_q ? BBase1 : BBase0) &&
                  32'(rd_addr_o[b*SpadAW +: SpadAW]) < (sb_q ? BBase1 : BBase0) + BBufW);
      end
  end
`endif
endmodule
