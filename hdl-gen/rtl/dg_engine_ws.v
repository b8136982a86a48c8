// dg_engine_ws: the weight-stationary compute engine of the NPU. It walks the plan's tile loop
// nest in the same order as the A and B AGUs (block_m, block_n, k_tile), and inside each K step
// the step's weight blocks: for each column block nj (Cols columns of the C tile) and each k
// block kb (Rows consecutive k of the step),
//
//   weights  the block's Rows x Cols elements of B, the segment of Cols columns of the step's B
//            tile rows kb*Rows + r (r < Rows; one bank each, BSeg cycles), are read into the
//            array's shadow weights while the previous block streams; a k past K is masked and
//            adds zero;
//   stream   the tile's TileM rows of A, each cut to the block's Rows k, pass through the array
//            one per cycle; A is read a batch at a time, min(Banks, TileM) consecutive rows m in
//            one cycle (row m sits in bank m mod Banks, and every row of a batch at the same word,
//            so the batch reads every bank once), which leaves the other cycles of the batch's
//            stream free for the next block's weights. The array's first streamed row of a block
//            makes its shadow weights active;
//   accumulate  the Cols dot products of row m (registered a cycle after the row streams) are
//            added to accumulator row m * (TileN/Cols) + nj: the row is read the cycle the A row
//            streams and written the next one (on a C tile's first weight block, at k 0, written
//            without the read). Successive rows are distinct, so the read never meets the
//            pending write of its own row (the layout requires TileM >= 2 for the block
//            boundary).
//
// The reads go through one prefetch register that holds either a block's weights or one A batch,
// in the loop order; the weights move into the shadow once it is free (after the previous
// block's first batch made it active), an A batch into the stream register once the previous
// batch has streamed (and, for a block's first batch, its weights are in the shadow; for every
// batch, its C tile's accumulator buffer is free). A scratchpad buffer is released to the DMA
// when its step's last A batch has been read; the accumulator buffer of a C tile is handed to the
// C stream when the tile's last row is written. The whole tile is computed at the edges of M and N
// (rows and columns past them are never written out), and the blocks wholly past K are skipped.
// Part of the fixed DeepGEMM RTL library; the generated top sets the parameters from the plan.
module dg_engine_ws #(
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
  parameter int BSeg     = 1,     // scratchpad words per B row segment of a block
  parameter int AccAW    = 5,
  parameter int AccW     = 32,    // accumulator bits: 32, 48 or 64
  parameter bit BankXor  = 1'b0   // the bank mapping (dg_bank_map): XOR-swizzled, else modulo
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
  localparam int NNj = TileN / Cols, NKb = TileK / Rows;
  localparam int BR  = TileM < Banks ? TileM : Banks;  // rows of A per batch
  localparam int NQ  = TileM / BR;                     // batches per block
  localparam int NjW = NNj > 1 ? $clog2(NNj) : 1;
  localparam int KbW = NKb > 1 ? $clog2(NKb) : 1;
  localparam int QW  = NQ > 1 ? $clog2(NQ) : 1;
  localparam int RW  = BR > 1 ? $clog2(BR) : 1;        // a row within a batch
  localparam int MW  = TileM > 1 ? $clog2(TileM) : 1;  // a row within the tile
  localparam int PhW = $clog2(BSeg + 1);
  localparam int LaneW = $clog2(WordBits);
  localparam int RA   = Rows * EABits;                 // bits of one A row of a block
  localparam int SegB = Cols * EBBits;                 // bits of one B row of a block
  localparam int ElemsA = WordBits / EABits;
  localparam int WBits = Rows * SegB;                  // a block's weights as read
  localparam int ABits = BR * RA;                      // an A batch as read
  localparam int PfW   = WBits > ABits ? WBits : ABits;

  // ---- reads: the loop nest -----------------------------------------------------------------------
  logic            p_busy_q, sb_q, cb_q, in_a_q;
  logic [DW-1:0]   m_q, n_q, k_q, m0_q, n0_q, k0_q;
  logic [NjW-1:0]  nj_q;
  logic [KbW-1:0]  kb_q;
  logic [QW-1:0]   q_q;
  logic [PhW-1:0]  ph_q;   // weight reads: the segment word being read (0: the first)

  logic last_q, last_kb, last_nj, last_k, last_n, last_m;
  logic [DW-1:0] kbase;
  assign kbase   = k0_q + DW'(kb_q) * DW'(Rows);
  assign last_q  = q_q == QW'(NQ - 1);
  // The step's last block: the tile's last, or the last that starts inside K (a run-time K below
  // the plan's K tile skips the blocks past it).
  assign last_kb = kb_q == KbW'(NKb - 1) || kbase + DW'(Rows) >= k_q;
  assign last_nj = nj_q == NjW'(NNj - 1);
  assign last_k  = k0_q + DW'(TileK) >= k_q;
  assign last_n  = n0_q + DW'(TileN) >= n_q;
  assign last_m  = m0_q + DW'(TileM) >= m_q;

  // What travels with an item of the prefetch register.
  typedef struct packed {
    logic            is_a;       // an A batch (else a block's weights)
    logic [Rows-1:0] mask;       // weights: row r is inside K
    logic [QW-1:0]   q;          // A: the batch
    logic            first_q;    // A: the block's first batch (its weights become active)
    logic            first;      // A: the C tile's first block: the rows are written, not added
    logic [NjW-1:0]  nj;
    logic            cb;         // accumulator buffer of the C tile
    logic            tile_last;  // A: the C tile's last batch
  } meta_t;

  logic [PfW-1:0] pf_q;
  logic           pf_valid_q;
  meta_t          pf_meta_q, cap_meta_q, meta_now;

  logic               cap_q, cap_last_q, cap_release_q;
  logic               cap_sb_q;
  logic [PhW-1:0]     cap_ph_q;
  logic [LgBanks-1:0] cap_off_q, cap_q_q;
  logic [LaneW-1:0]   cap_lane_q;

  logic [Rows-1:0] mask_now;   // the block's k inside K
  for (genvar r = 0; r < Rows; r++) begin : g_mask
    assign mask_now[r] = kbase + DW'(r) < k_q;
  end
  always_comb begin
    meta_now.is_a = in_a_q;
    meta_now.mask = mask_now;
    meta_now.q = q_q;
    meta_now.first_q = q_q == '0;
    meta_now.first = k0_q == '0 && kb_q == '0;
    meta_now.nj = nj_q;
    meta_now.cb = cb_q;
    meta_now.tile_last = last_q && last_kb && last_nj && last_k;
  end

  logic rd_go, rd_last;
  // A read starts an item only when the prefetch register is free and the step's buffers are
  // full; a block's weights continue for BSeg cycles.
  assign rd_go   = p_busy_q && ((!in_a_q && ph_q != '0) ||
                                (!pf_valid_q && !(cap_q && cap_last_q) && a_full_i[sb_q] && b_full_i[sb_q]));
  assign rd_last = in_a_q || ph_q == PhW'(BSeg - 1);

  // Scratchpad read addresses: B rows kb*Rows + r sit in banks offB + r (Rows divides Banks); the
  // A rows of batch q in banks 0 .. BR-1, all at one word. (Those are j = r mod Banks of the rows;
  // the bank mapping, dg_bank_map, places j of word row q, which it also inverts.)
  logic [LgBanks-1:0] off_b, q_a, q_b, q_rd;
  logic [SpadAW-1:0]  word_a, word_b;
  logic [LaneW-1:0]   lane_a, lane_b;
  assign off_b  = LgBanks'((32'(kb_q) * Rows) % Banks);
  assign q_a    = LgBanks'((32'(q_q) * BR) / Banks);
  assign q_b    = LgBanks'((32'(kb_q) * Rows) / Banks);
  assign q_rd   = in_a_q ? q_a : q_b;
  assign word_a = SpadAW'(sb_q ? ABase1 : ABase0) + SpadAW'((32'(q_q) * BR / Banks) * AWords)
                + SpadAW'(32'(kb_q) * RA / WordBits);
  assign word_b = SpadAW'(sb_q ? BBase1 : BBase0) + SpadAW'((32'(kb_q) * Rows / Banks) * BWords)
                + SpadAW'(32'(nj_q) * SegB / WordBits) + SpadAW'(ph_q);
  assign lane_a = LaneW'(((32'(kb_q) * Rows) % ElemsA) * EABits);
  assign lane_b = LaneW'((32'(nj_q) * SegB) % WordBits);

  for (genvar b = 0; b < Banks; b++) begin : g_rd
    logic [LgBanks-1:0] j, tb;    // the row of the word row this bank holds; B's row in the block
    dg_bank_map #(.LgBanks(LgBanks), .Xor(BankXor)) u_bank_map (.q_i(q_rd), .j_i(LgBanks'(b)), .bank_o(j));
    assign tb = j - off_b;
    assign rd_en_o[b] = rd_go && (in_a_q ? 32'(j) < BR : 32'(tb) < Rows);
    assign rd_addr_o[b*SpadAW +: SpadAW] = in_a_q ? word_a : word_b;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p_busy_q <= 1'b0;
      sb_q <= 1'b0;
      cb_q <= 1'b0;
      in_a_q <= 1'b0;
      m_q <= '0;
      n_q <= '0;
      k_q <= '0;
      m0_q <= '0;
      n0_q <= '0;
      k0_q <= '0;
      nj_q <= '0;
      kb_q <= '0;
      q_q <= '0;
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
      in_a_q <= 1'b0;
      m_q <= m_i;
      n_q <= n_i;
      k_q <= k_i;
      m0_q <= '0;
      n0_q <= '0;
      k0_q <= '0;
      nj_q <= '0;
      kb_q <= '0;
      q_q <= '0;
      ph_q <= '0;
      cap_q <= 1'b0;
    end else begin
      cap_q <= rd_go;
      if (rd_go) begin
        cap_ph_q <= ph_q;
        cap_off_q <= in_a_q ? '0 : off_b;
        cap_q_q <= q_rd;
        cap_lane_q <= in_a_q ? lane_a : lane_b;
        cap_last_q <= rd_last;
        cap_release_q <= in_a_q && last_q && last_kb && last_nj;
        cap_sb_q <= sb_q;
        cap_meta_q <= meta_now;
        if (!in_a_q) begin
          if (!rd_last) begin
            ph_q <= ph_q + PhW'(1);
          end else begin
            ph_q <= '0;
            in_a_q <= 1'b1;
          end
        end else if (!last_q) begin
          q_q <= q_q + QW'(1);
        end else begin
          q_q <= '0;
          in_a_q <= 1'b0;
          if (!last_kb) begin
            kb_q <= kb_q + KbW'(1);
          end else begin
            kb_q <= '0;
            if (!last_nj) begin
              nj_q <= nj_q + NjW'(1);
            end else begin
              nj_q <= '0;
              sb_q <= !sb_q;                   // the next K step uses the other buffer
              if (!last_k) begin
                k0_q <= k0_q + DW'(TileK);
              end else begin
                k0_q <= '0;
                cb_q <= !cb_q;                 // the next C tile uses the other accumulator buffer
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

  assign release_o     = cap_q && cap_release_q;
  assign release_buf_o = cap_sb_q;

  // The word each bank of the capture holds for row t of the item: A rows in banks 0 .. BR-1, B
  // rows in banks cap_off + t (below Banks: the offset is a multiple of Rows, which divides
  // Banks), chosen by a Banks-way multiplexer.
  localparam int CapRows = Rows > BR ? Rows : BR;
  logic [WordBits-1:0] cap_word [CapRows];
  logic [CapRows*WordBits-1:0] cap_lanes;   // row t's word shifted to its lane, at t*WordBits
  for (genvar t = 0; t < CapRows; t++) begin : g_cap_word
    logic [LgBanks-1:0]  bank;
    logic [WordBits-1:0] word;
    dg_bank_map #(.LgBanks(LgBanks), .Xor(BankXor)) u_bank_map (
      .q_i   (cap_q_q),
      .j_i   (cap_off_q + LgBanks'(t)),
      .bank_o(bank)
    );
    always_comb begin
      word = rd_data_i[0 +: WordBits];
      for (int k = 1; k < Banks; k++)
        if (bank == LgBanks'(k)) word = rd_data_i[k*WordBits +: WordBits];
    end
    assign cap_word[t] = word;
    assign cap_lanes[t*WordBits +: WordBits] = word >> cap_lane_q;
  end

  // ---- stream -----------------------------------------------------------------------------------
  logic           sh_valid_q, s_valid_q;
  logic [ABits-1:0] s_a_q;
  logic [RW-1:0]  s_r_q;
  meta_t          s_meta_q;
  logic           to_shadow, s_last, s_load;

  assign to_shadow = pf_valid_q && !pf_meta_q.is_a && !sh_valid_q;
  assign s_last    = s_valid_q && s_r_q == RW'(BR - 1);
  assign s_load    = pf_valid_q && pf_meta_q.is_a && (!s_valid_q || s_last) &&
                     (!pf_meta_q.first_q || sh_valid_q) && !acc_full_i[pf_meta_q.cb];

  // The block's weights as the array takes them: row r, column j.
  logic [Rows*Cols*BW-1:0] w_vec;
  for (genvar r = 0; r < Rows; r++) begin : g_wrow
    for (genvar j = 0; j < Cols; j++) begin : g_wcol
      assign w_vec[(r*Cols+j)*BW +: BW] = pf_q[r*SegB + j*EBBits +: BW];
    end
  end
  logic [Rows*AW-1:0] a_vec;
  for (genvar i = 0; i < Rows; i++) begin : g_avec
    assign a_vec[i*AW +: AW] = s_a_q[i*EABits +: AW];
  end

  logic [Cols*AccW-1:0] psum;
`ifndef FORMAL
  dg_ws_array #(.Rows(Rows), .Cols(Cols), .AW(AW), .BW(BW), .ASigned(ASigned), .BSigned(BSigned), .AccW(AccW)) u_array (
    .clk_i (clk_i),
    .rst_ni(rst_ni),
    .load_i(to_shadow),
    .w_i   (w_vec),
    .mask_i(pf_meta_q.mask),
    .swap_i(s_load && pf_meta_q.first_q),
    .a_i   (a_vec),
    .psum_o(psum)
  );
`else
  assign psum = '0;
`endif

  // The accumulator row of the streamed row: (q * BR + r) * (TileN / Cols) + nj.
  logic [MW-1:0] s_m;
  assign s_m = MW'(32'(s_meta_q.q) * BR + 32'(s_r_q));
  logic [31:0] s_row;
  assign s_row = 32'(s_m) * NNj + 32'(s_meta_q.nj);

  // The write a cycle after the read.
  logic             w_valid_q, w_first_q, w_cb_q, w_set_q;
  logic [AccAW-1:0] w_row_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pf_valid_q <= 1'b0;
      pf_q <= '0;
      pf_meta_q <= '0;
      sh_valid_q <= 1'b0;
      s_valid_q <= 1'b0;
      s_a_q <= '0;
      s_r_q <= '0;
      s_meta_q <= '0;
      w_valid_q <= 1'b0;
      w_first_q <= 1'b0;
      w_cb_q <= 1'b0;
      w_set_q <= 1'b0;
      w_row_q <= '0;
    end else if (start_i) begin
      pf_valid_q <= 1'b0;
      sh_valid_q <= 1'b0;
      s_valid_q <= 1'b0;
      w_valid_q <= 1'b0;
    end else begin
`ifndef FORMAL  // (the data path: see the properties below)
      // Capture: a batch of A rows, or one word of each of the block's B rows.
      if (cap_q) begin
        if (cap_meta_q.is_a) begin
          for (int i = 0; i < BR; i++) pf_q[i*RA +: RA] <= cap_lanes[i*WordBits +: RA];
        end else begin
          for (int r = 0; r < Rows; r++) begin
            if (BSeg == 1)
              pf_q[r*SegB +: SegB] <= SegB'(cap_lanes[r*WordBits +: WordBits]);
            else
              pf_q[r*SegB + 32'(cap_ph_q) * WordBits +: WordBits] <= cap_word[r];
          end
        end
      end
`endif
      if (cap_q && cap_last_q) begin
        pf_valid_q <= 1'b1;
        pf_meta_q <= cap_meta_q;
      end else if (to_shadow || s_load) begin
        pf_valid_q <= 1'b0;
      end
      if (to_shadow) sh_valid_q <= 1'b1;
      else if (s_load && pf_meta_q.first_q) sh_valid_q <= 1'b0;
      if (s_load) begin
        s_valid_q <= 1'b1;
        s_a_q <= pf_q[ABits-1:0];
        s_meta_q <= pf_meta_q;
        s_r_q <= '0;
      end else if (s_last) begin
        s_valid_q <= 1'b0;
      end else if (s_valid_q) begin
        s_r_q <= s_r_q + RW'(1);
        s_a_q <= s_a_q >> RA;
      end
      w_valid_q <= s_valid_q;
      w_first_q <= s_meta_q.first;
      w_cb_q <= s_meta_q.cb;
      w_set_q <= s_last && s_meta_q.tile_last;
      w_row_q <= AccAW'(s_row);
    end
  end

  // The read is issued as the row streams, the write the next cycle. A C tile's first block reads
  // nothing, so a read and a write in one cycle always belong to one tile: one buffer select.
  assign acc_buf_o   = w_valid_q ? w_cb_q : s_meta_q.cb;
  assign acc_re_o    = s_valid_q && !s_meta_q.first;
  assign acc_raddr_o = AccAW'(s_row);
  assign acc_we_o    = w_valid_q;
  assign acc_waddr_o = w_row_q;
  for (genvar j = 0; j < Cols; j++) begin : g_wdata
    assign acc_wdata_o[j*AccW +: AccW] = (w_first_q ? AccW'(0) : acc_rdata_i[j*AccW +: AccW]) + psum[j*AccW +: AccW];
  end
  assign acc_set_o = w_valid_q && w_set_q;

  logic unused;
  assign unused = ^{s_row[31:AccAW], s_meta_q.is_a, s_meta_q.mask, s_meta_q.first_q, s_meta_q.tile_last,
                    pf_meta_q.q, pf_meta_q.first, pf_meta_q.nj, pf_meta_q.tile_last, cap_ph_q, pf_q};

  assign idle_o = !p_busy_q && !cap_q && !pf_valid_q && !s_valid_q && !w_valid_q;
`ifdef FORMAL
  // ---- properties -------------------------------------------------------------------------------
  // Proved by k-induction through dg_engine_ws_proof, in the environment dg_engine_env assumes.
  // The data path is outside them (the co-simulation checks the sums bit for bit); they are about
  // where and when the engine reads and writes. Under FORMAL the data path's capture of the
  // operands and the weight-stationary array are left out: nothing these properties see depends
  // on them, and elaborating them costs Yosys minutes at 16-bit elements.
  localparam int ABufW = ABase1 - ABase0;  // scratchpad words per bank of one A or B buffer
  localparam int BBufW = BBase1 - BBase0;
  localparam int AccRows = TileM * NNj;    // accumulator rows of one C tile
  // An item is a C tile's last A batch: the items after it belong to the next C tile, whose
  // accumulator buffer is the other one.
  logic f_cap_flip, f_pf_flip, f_s_flip, f_next_cb, f_next_first;
  assign f_cap_flip = cap_meta_q.is_a && cap_meta_q.tile_last;
  assign f_pf_flip  = pf_meta_q.is_a && pf_meta_q.tile_last;
  assign f_s_flip   = s_meta_q.tile_last;
  // The C tile's buffer of the item after the streamed batch (read, prefetched or still to read).
  assign f_next_cb  = cap_q ? cap_meta_q.cb : pf_valid_q ? pf_meta_q.cb : cb_q;
  // ... and whether it is of the C tile's first block (its rows written, not added).
  assign f_next_first = cap_q ? cap_meta_q.first : pf_valid_q ? pf_meta_q.first : !p_busy_q || (k0_q == '0 && kb_q == '0);
  always @(*) if (rst_ni) begin
    // The loop counters stay inside the tile; the tile origins inside the problem, with room for
    // one more tile in DW bits (the last-tile tests cannot wrap).
    assert (32'(nj_q) < NNj && 32'(kb_q) < NKb && 32'(q_q) < NQ && 32'(ph_q) < BSeg && (!in_a_q || ph_q == '0));
    assert (64'(m_q) + TileM < 64'(1) << DW && 64'(n_q) + TileN < 64'(1) << DW && 64'(k_q) + TileK < 64'(1) << DW);
    if (p_busy_q) assert (m0_q < m_q && n0_q < n_q && k0_q < k_q);
    // Reads come only from a buffer the DMA filled and has not been given back: an item's first
    // read waits for both, and a step's buffer is released the cycle after its last A batch is
    // read, when the reads have moved to the other buffer.
    if (p_busy_q && ph_q != '0) assert (a_full_i[sb_q] && b_full_i[sb_q]);
    if (rd_go) assert (a_full_i[sb_q] && b_full_i[sb_q]);
    if (cap_q && cap_release_q) assert (cap_sb_q != sb_q && a_full_i[cap_sb_q] && b_full_i[cap_sb_q]);
    // A capture never overwrites a prefetch the array has not taken.
    if (cap_q && cap_last_q) assert (ph_q == '0);
    if (cap_q) assert (!pf_valid_q);
    // An A batch is one read; a block's weights are read while the loop stays at that block.
    if (cap_q && cap_meta_q.is_a) assert (cap_last_q);
    if (cap_q && !cap_last_q) assert (!in_a_q && ph_q != '0 && !cap_meta_q.is_a);
    if (cap_q && !cap_meta_q.is_a) assert (p_busy_q && cap_meta_q.first == (k0_q == '0 && kb_q == '0));
    if (pf_valid_q && !pf_meta_q.is_a) assert (p_busy_q && in_a_q && pf_meta_q.first == (k0_q == '0 && kb_q == '0));
    // The meta fields of every stage stay inside the C tile.
    assert (32'(cap_meta_q.nj) < NNj && 32'(cap_meta_q.q) < NQ);
    assert (32'(pf_meta_q.nj) < NNj && 32'(pf_meta_q.q) < NQ);
    assert (32'(s_meta_q.nj) < NNj && 32'(s_meta_q.q) < NQ && 32'(s_r_q) < BR);
    if (s_valid_q) assert (s_meta_q.is_a && s_row < AccRows && s_row < 32'(1) << AccAW);
    if (w_valid_q) assert (32'(w_row_q) < AccRows);
    // The order of the items in flight: a row written after the previous one streamed, the rows
    // of a batch one per cycle, and each C tile's buffer the other one after a tile's last batch.
    if (w_valid_q && s_valid_q && s_r_q != '0) assert (!w_set_q && w_cb_q == s_meta_q.cb);
    if (w_valid_q && s_valid_q) assert (s_meta_q.cb == (w_set_q ? !w_cb_q : w_cb_q));
    if (w_valid_q && !s_valid_q) assert (f_next_cb == (w_set_q ? !w_cb_q : w_cb_q));
    if (w_set_q) assert (w_valid_q);
    if (s_valid_q) assert (f_next_cb == (f_s_flip ? !s_meta_q.cb : s_meta_q.cb));
    if (cap_q) assert (cb_q == (f_cap_flip ? !cap_meta_q.cb : cap_meta_q.cb));
    if (pf_valid_q) assert (cb_q == (f_pf_flip ? !pf_meta_q.cb : pf_meta_q.cb));
    // After a C tile's last row the next tile begins with its first block, which reads nothing.
    if (w_valid_q && s_valid_q && w_set_q) assert (s_meta_q.first);
    if (w_valid_q && !s_valid_q && w_set_q) assert (f_next_first);
    if (s_valid_q && f_s_flip) assert (f_next_first);
    if ((cap_q && f_cap_flip) || (pf_valid_q && f_pf_flip)) assert (!p_busy_q || (k0_q == '0 && kb_q == '0));
    // The accumulator rows are read and written only in a buffer the C stream does not hold; a
    // read and a write in one cycle are of one buffer.
    if (s_valid_q) assert (!acc_full_i[s_meta_q.cb]);
    if (w_valid_q) assert (!acc_full_i[w_cb_q]);
    if (acc_re_o) assert (!acc_full_i[acc_buf_o] && acc_buf_o == s_meta_q.cb);
    if (acc_we_o) assert (!acc_full_i[acc_buf_o] && acc_buf_o == w_cb_q);
  end
  // Every scratchpad read lies inside its operand's buffer of the step.
  for (genvar b = 0; b < Banks; b++) begin : g_rd_check
    always @(*)
      if (rst_ni && rd_en_o[b]) begin
        if (in_a_q)
          assert (rd_addr_o[b*SpadAW +: SpadAW] >= SpadAW'(sb_q ? ABase1 : ABase0) &&
                  32'(rd_addr_o[b*SpadAW +: SpadAW]) < (sb_q ? ABase1 : ABase0) + ABufW);
        else
          assert (rd_addr_o[b*SpadAW +: SpadAW] >= SpadAW'(sb_q ? BBase1 : BBase0) &&
                  32'(rd_addr_o[b*SpadAW +: SpadAW]) < (sb_q ? BBase1 : BBase0) + BBufW);
      end
  end
`endif
endmodule
