// The wgmma kernel family with the tensor-memory accelerator (sm_90a), warp-specialized: the
// block's last warpgroup is the producer, the ones before it the consumers of wgmma.cpp's
// layout (warpgroup g owns rows [g·gtm, (g+1)·gtm) of the tile).
//
// - The producer gives its registers back (setmaxnreg.dec) and one of its threads issues, per K
//   tile, cp.async.bulk.tensor copies of A's and B's tiles straight into the 128-byte-swizzled
//   stage wgmma reads: A's box is tile_m rows of 128 bytes, a K-major B's tile_n rows, an N-major
//   B's tile_k rows of each 64-column slab. The maps come from the runtime (launch_format.h), as
//   kernel parameters by value; elements outside the matrix arrive as zeros, so M, N and K tails
//   need no code.
// - Each stage has two mbarriers: "full" (the producer's arrive.expect_tx of the stage's bytes,
//   completed by the copies) and "empty" (one arrive per consumer warp once the wgmma group that
//   read the stage has retired). The producer waits on empty with the parity of the previous
//   round, so its first round over the stages does not wait.
// - The consumers take more registers (setmaxnreg.inc), wait on full, issue the stage's wgmma
//   group, keep one group in flight, release the stage of the group that retired, and store the
//   accumulators through the plan's epilogue as wgmma.cpp does.
//
// Split K (split_k = S > 1): one block per (tile, split), block b taking tile b / S and split
// b mod S, whose K tiles are [s·per, min((s+1)·per, tiles)), per the plan's split coefficient
// (verify proved that the splits partition K and that none is empty). The reduction is serial
// ("fixup" by the last block to arrive), chosen over a second kernel because it needs no second
// launch, no pass over C, and runs the epilogue where the accumulators already live:
//   - every block stores its fp32 (int8: int32) partial tile to its own workspace slot, in the
//     accumulators' register order (slot (tile, split), 16 bytes per thread per step, so a warp
//     writes 512 contiguous bytes), fences (fence.acq_rel.gpu) and meets its consumers at a named
//     barrier; then one thread adds 1 to the tile's counter (atom.acq_rel.gpu) and bar.red tells
//     the consumers whether theirs was the tile's S-th arrival;
//   - that block (the last; any of the S) resets the counter to 0 for the next launch, fences,
//     and sums the S slots in split order, 0 first, into its accumulators, reading its own slot
//     back too: the order of the additions is fixed, so the result has the same bits whichever
//     block arrives last, in every run. Then the plan's epilogue (scales, bias, activation, cast)
//     runs once, on the sum, and stores C as the plan says (directly, or through the slab
//     buffers and the TMA with c_store "tma"). The other blocks end.
// No block waits for another, so any schedule of the S blocks completes. The workspace
// (launch_format.h): one 32-bit counter per tile (padded to 256 bytes), then tiles × S slots of
// tile_m · tile_n · 4 bytes; the runtime zeroes it once, and the kernel leaves the counters 0.
#include <deepgemm/w4_pack.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "codegen/families.h"
#include "codegen/inline_ptx.h"
#include "codegen/wgmma_common.h"
#include "support/error.h"

namespace dg::codegen {

namespace {

using llvm::Value;

/// Registers the producer warpgroup keeps (solve/space.h's kProducerRegisters: the solver's
/// register rule counts the same figure).
constexpr std::int64_t kProducerRegs = 40;
/// 4-bit weights: the packed words a producer thread loads from the staging slot before it
/// converts and stores them (fill_stage_w4), so that their shared-memory latency overlaps.
constexpr std::int64_t kW4Batch = 4;

class WgmmaTmaKernel : WgmmaBase {
 public:
  WgmmaTmaKernel(const Plan& p, llvm::LLVMContext& ctx, llvm::Module& m) : WgmmaBase(p, ctx, m) {}

  LaunchInfo build(const std::string& name) {
    read_plan();
    // K splits: the plan's split count and K tiles per split (its k_index coefficient of split,
    // in elements, over tile_k), the figures verify proved.
    split_ = extent(p_.index.k_vars, "split");
    per_split_ = coeff(p_.index.k_index, "split") / bk_;
    DG_INTERNAL_ASSERT(split_ == 1 || (per_split_ > 0 && !p_.k_dynamic && p_.persistent_blocks == 0),
                       "a split K reached the TMA kernel with a run-time K or a persistent loop");
    c_tma_ = p_.c_store == "tma";
    w4_ = p_.w4_staged();
    group_size_ = w4_ ? w4_group_size(p_.scale_b, p_.K) : 0;
    // The tensor maps: A's, B's (not for 4-bit weights, which the producer stages by cp.async), C's.
    const unsigned b_maps = w4_ ? 0 : 1;
    c_map_ = 1 + b_maps;
    begin_kernel(name, 128 * (groups_ + 1), p_.blocks_per_sm, 1024, 1 + b_maps + (c_tma_ ? 1 : 0), split_ > 1);
    scale_arg_ = has_bias() ? 4 : 3;
    // Shared memory: the stages, C's two slab buffers per consumer warpgroup (c_store "tma"; each
    // group_rows × 128 bytes, so 1024-byte aligned as the 128-byte swizzle needs), the 4-bit
    // weights' staging slots, the barriers.
    c_buffers_ = stages_ * (a_stage_ + b_stage_);
    staging_ = c_buffers_ + (c_tma_ ? c_store_bytes(bm_) : 0);
    barriers_ = staging_ + (w4_ ? w4_staging_bytes(bn_, group_size_) : 0);
    // Persistent (persistent_blocks > 0): the plan's blocks (verify proved they take every tile
    // once), each looping over the tiles blockIdx.x, blockIdx.x + grid, ... in the plan's raster
    // order. Otherwise one block per tile (per tile and split with a split K).
    tiles_ = grid_m_ * grid_n_;
    persistent_ = p_.persistent_blocks > 0;
    grid_ = persistent_ ? p_.persistent_blocks : tiles_ * split_;
    fresh_lane_ = persistent_;
    body();
    LaunchInfo li = launch_info(name, barriers_ + 2 * 8 * stages_);
    li.grid[0] = static_cast<std::uint32_t>(grid_);
    if (split_ > 1) li.workspace_bytes = split_workspace().bytes();
    const std::uint32_t row = static_cast<std::uint32_t>(128 / elem_bytes_);  // one 128-byte swizzle row
    li.box[0][0] = row;
    li.box[0][1] = static_cast<std::uint32_t>(bm_);
    if (!w4_) {
      li.box[1][0] = row;
      li.box[1][1] = static_cast<std::uint32_t>(p_.index.b_row_major ? bk_ : bn_);
    }
    if (c_tma_) {  // C: one slab (128 bytes of a row) of a warpgroup's rows
      li.box[2][0] = static_cast<std::uint32_t>(128 / element_bytes(p_.c_type));
      li.box[2][1] = static_cast<std::uint32_t>(group_rows_);
    }
    return li;
  }

 private:
  /// Shared-memory addresses of stage s's barriers.
  Value* full(Value* s) { return b_.CreateAdd(smem_base_, b_.CreateAdd(c32(barriers_), b_.CreateShl(s, 3))); }
  Value* empty(Value* s) {
    return b_.CreateAdd(smem_base_, b_.CreateAdd(c32(barriers_ + 8 * stages_), b_.CreateShl(s, 3)));
  }

  /// Spin until the barrier at `bar` completes the phase of parity `parity`.
  void wait(Value* bar, Value* parity) {
    llvm::Function* f = b_.GetInsertBlock()->getParent();
    auto* spin = llvm::BasicBlock::Create(ctx_, "wait", f);
    auto* done = llvm::BasicBlock::Create(ctx_, "waited", f);
    b_.CreateBr(spin);
    b_.SetInsertPoint(spin);
    InlinePtx w;
    int out = w.out('r');
    int a = w.in(bar, 'r'), ph = w.in(parity, 'r');
    Value* ok = w.emit(b_, fmt::format("{{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [${}], ${};\n"
                                       "selp.u32 ${}, 1, 0, p;\n}}",
                                       a, ph, out));
    b_.CreateCondBr(b_.CreateICmpNE(ok, c32(0)), done, spin);
    b_.SetInsertPoint(done);
  }

  /// A statement whose operands are all inputs, $0, $1, ... in order (i32 or i64).
  void statement(const std::string& text, std::initializer_list<Value*> regs) {
    InlinePtx w;
    for (Value* v : regs) w.in(v, v->getType()->isIntegerTy(64) ? 'l' : 'r');
    w.emit(b_, text);
  }

  /// One 2-D tensor copy of map `map` at coordinates (inner, outer) into shared `dst`, completing
  /// on the barrier `bar`.
  void copy(Value* dst, unsigned map, Value* inner, Value* outer, Value* bar) {
    statement(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], "
        "[$4];",
        {dst, tensor_map(map), inner, outer, bar});
  }

  /// This block's tiles: blockIdx.x, blockIdx.x + grid, ... below the tile count (at least one).
  Value* my_tiles() {
    Value* bid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
    return b_.CreateUDiv(b_.CreateAdd(b_.CreateSub(c32(tiles_), bid), c32(grid_ - 1)), c32(grid_));
  }
  /// For the block's i-th tile, its origin (row_base_, col_base_).
  void tile_origin(Value* i) {
    block_origin(b_.CreateAdd(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), b_.CreateMul(i, c32(grid_))));
  }
  /// body(i) for each of the block's tiles (i: the block's tile count so far), its origin set:
  /// a loop when persistent, else the block's one tile (i = 0).
  void for_tiles(const std::function<void(Value*)>& body) {
    if (!persistent_) {
      body(c32(0));
      return;
    }
    loop(my_tiles(), [&](Value* i) {
      tile_origin(i);
      body(i);
    });
  }

  /// The producer: one thread fills stage g mod stages with the block's g-th K tile (counted over
  /// all its output tiles) once the stage is empty.
  void produce(Value* tiles) {
    for_tiles([&](Value* i) { produce_tile(i, tiles); });
  }
  void produce_tile(Value* i, Value* tiles) {
    loop(tiles, [&](Value* kt) {
      Value* g = b_.CreateAdd(b_.CreateMul(i, tiles), kt);
      Value* s = b_.CreateURem(g, c32(stages_));
      Value* round = b_.CreateUDiv(g, c32(stages_));
      wait(empty(s), b_.CreateXor(b_.CreateAnd(round, c32(1)), c32(1)));
      Value* bar = full(s);
      statement("mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", {bar, c32(a_stage_ + b_stage_)});
      Value* k0 = b_.CreateMul(b_.CreateAdd(k_first_, kt), c32(bk_));
      Value* a_dst = b_.CreateAdd(smem_base_, b_.CreateMul(s, c32(a_stage_)));
      copy(a_dst, 0, k0, row_base_, bar);
      Value* b_dst = b_.CreateAdd(smem_base_, b_.CreateAdd(b_region(), b_.CreateMul(s, c32(b_stage_))));
      if (p_.index.b_row_major) {
        // N-major B: each 64-column slab of the tile is one box of tile_k rows, slab after slab.
        const std::int64_t per_slab = 128 / elem_bytes_;
        for (std::int64_t j = 0; j < bn_ / per_slab; ++j)
          copy(b_.CreateAdd(b_dst, c32(j * bk_ * 128)), 1, b_.CreateAdd(col_base_, c32(j * per_slab)), k0, bar);
      } else {
        copy(b_dst, 1, k0, col_base_, bar);
      }
    });
  }

  // ---- 4-bit weights (Plan::w4_staged) ----
  //
  // Every thread of the producer warpgroup takes part. Per output tile, the packed 128-k blocks of
  // the tile's columns (tile_n / 8 n8 tiles of 512 bytes each, <deepgemm/w4_pack.h>) and their
  // scale rows are copied by cp.async into kW4Slots staging slots, kW4Slots - 1 blocks ahead. Each
  // block is two K tiles of 64: for each, once the stage is empty, one thread has the copy engine
  // load A's tile as before (arrive.expect_tx, the full barrier's first arrival), and the 128
  // threads convert the block's half into the stage as a K-major fp16/bf16 tile in the 128-byte
  // swizzle wgmma reads (convert_w4_word: one packed word is eight consecutive k of one column,
  // one 16-byte chunk of its row), multiplied by the group's scale (one rounding to the 16-bit
  // type; exact for power-of-two scales), fence the writes for the async proxy, meet at a named
  // barrier, and one thread arrives on the full barrier a second time. A split's first K tile
  // is even (wgmma_tma_unsupported), so its blocks are whole.

  /// The producer warpgroup's named barrier (its 128 threads).
  void producer_barrier() { emit_ptx_statement(b_, "bar.sync 15, 128;"); }
  Value* slot_at(Value* q) {
    return b_.CreateAdd(smem_base_, b_.CreateAdd(c32(staging_), b_.CreateMul(b_.CreateURem(q, c32(kW4Slots)),
                                                                             c32(w4_slot_bytes(bn_, group_size_)))));
  }
  /// 16 bytes from global `src` (i64 byte offset from operand `arg`) into shared `dst`; zeros when
  /// `valid` is false.
  void copy16(Value* dst, unsigned arg, Value* byte, Value* valid) {
    Value* ptr = b_.CreatePtrToInt(b_.CreateGEP(b_.getInt8Ty(), this->arg(arg), byte), b_.getInt64Ty());
    statement("cp.async.cg.shared.global [$0], [$1], 16, $2;", {dst, ptr, b_.CreateSelect(valid, c32(16), c32(0))});
  }

  /// cp.async copies of packed block qg (a global 128-k block index) of the tile's columns, and of
  /// its scale rows, into the slot at `slot`.
  void stage_block(Value* ptid, Value* qg, Value* slot) {
    const std::int64_t kb = (p_.K + 127) / 128, n8 = p_.N / 8;
    Value* j0 = b_.CreateLShr(col_base_, 3);
    for (std::int64_t r = 0; r < bn_ / 32; ++r) {
      Value* c = b_.CreateAdd(ptid, c32(128 * r));
      Value* jl = b_.CreateLShr(c, 5);
      Value* lane = b_.CreateAnd(c, c32(31));
      Value* jg = b_.CreateAdd(j0, jl);
      Value* valid = b_.CreateICmpULT(jg, c32(n8));
      jg = b_.CreateSelect(valid, jg, c32(0));
      auto* i64 = b_.getInt64Ty();
      Value* chunk = b_.CreateAdd(b_.CreateMul(b_.CreateZExt(jg, i64), b_.getInt64(kb)), b_.CreateZExt(qg, i64));
      Value* byte =
          b_.CreateAdd(b_.CreateMul(chunk, b_.getInt64(512)),
                       b_.CreateAdd(b_.getInt64(ko::w4::kHeaderBytes), b_.CreateZExt(b_.CreateShl(lane, 4), i64)));
      copy16(b_.CreateAdd(slot, b_.CreateAdd(b_.CreateShl(jl, 9), b_.CreateShl(lane, 4))), 1, byte, valid);
    }
    const std::int64_t rows = w4_scale_rows(group_size_);
    if (rows == 0) return;
    // rows × tile_n / 8 chunks of 16 bytes (at most 4 × 32): one per thread.
    const std::int64_t per_row = bn_ / 8, groups = p_.K / group_size_;
    emit_guarded(b_.CreateICmpULT(ptid, c32(rows * per_row)), rows * per_row < 128, [&] {
      Value* rr = b_.CreateUDiv(ptid, c32(per_row));
      Value* cc = b_.CreateURem(ptid, c32(per_row));
      Value* row = group_size_ < 128 ? b_.CreateAdd(b_.CreateMul(qg, c32(rows)), rr)
                                     : b_.CreateUDiv(b_.CreateMul(qg, c32(128)), c32(group_size_));
      Value* col = b_.CreateAdd(col_base_, b_.CreateShl(cc, 3));
      Value* valid = b_.CreateAnd(b_.CreateICmpULT(row, c32(groups)), b_.CreateICmpULT(col, c32(p_.N)));
      row = b_.CreateSelect(valid, row, c32(0));
      col = b_.CreateSelect(valid, col, c32(0));
      auto* i64 = b_.getInt64Ty();
      Value* elem = b_.CreateAdd(b_.CreateMul(b_.CreateZExt(row, i64), b_.getInt64(p_.N)), b_.CreateZExt(col, i64));
      Value* dst = b_.CreateAdd(
          slot, b_.CreateAdd(c32(per_row * 512), b_.CreateAdd(b_.CreateMul(rr, c32(bn_ * 2)), b_.CreateShl(cc, 4))));
      copy16(dst, scale_arg_, b_.CreateShl(elem, 1), valid);
    });
  }

  /// Fill the stage of the block's g-th K tile (g = i·tiles + kt) with A's tile (the copy engine)
  /// and half h of the staged block at `slot`, converted.
  void fill_stage_w4(Value* ptid, Value* issuer, Value* g, Value* kt, Value* slot, std::int64_t h) {
    Value* s = b_.CreateURem(g, c32(stages_));
    Value* round = b_.CreateUDiv(g, c32(stages_));
    wait(empty(s), b_.CreateXor(b_.CreateAnd(round, c32(1)), c32(1)));
    Value* bar = full(s);
    emit_guarded(issuer, true, [&] {
      statement("mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", {bar, c32(a_stage_)});
      Value* k0 = b_.CreateMul(b_.CreateAdd(k_first_, kt), c32(bk_));
      copy(b_.CreateAdd(smem_base_, b_.CreateMul(s, c32(a_stage_))), 0, k0, row_base_, bar);
    });
    Value* b_dst = b_.CreateAdd(smem_base_, b_.CreateAdd(b_region(), b_.CreateMul(s, c32(b_stage_))));
    const bool bf16 = p_.a_type == "bf16", e2m1 = p_.b_type == "int4_e2m1";
    // Item it (of 8·tile_n: n8 tile jl, lane, word w' of the half) → one packed word, eight k of
    // column 8·jl + lane/4 from 32·w' + 8·(lane % 4): chunk 4·w' + lane % 4 of that row. A thread
    // takes kW4Batch items at a time: their words and scales loaded first, then converted and
    // stored, so that the loads' latency overlaps (tile_n / 16 items a thread, a multiple of it).
    struct Item {
      Value* lane;
      Value* wp;
      Value* t;
      Value* n;
      Value* word;
      Value* scale;
    };
    // (tile_n / 16 is 4, 8, 12 or 16: the batch is kW4Batch where it divides it, else 4.)
    const std::int64_t batch = bn_ / 16 % kW4Batch == 0 ? kW4Batch : 4;
    DG_INTERNAL_ASSERT(bn_ / 16 % batch == 0, "a 4-bit tile_n that is not a multiple of 64");
    loop(c32(bn_ / 16 / batch), [&](Value* r) {
      std::vector<Item> items(static_cast<std::size_t>(batch));
      for (std::int64_t u = 0; u < batch; ++u) {
        Item& x = items[static_cast<std::size_t>(u)];
        Value* it = b_.CreateAdd(ptid, b_.CreateMul(b_.CreateAdd(b_.CreateMul(r, c32(batch)), c32(u)), c32(128)));
        Value* jl = b_.CreateLShr(it, 6);
        x.lane = b_.CreateAnd(b_.CreateLShr(it, 1), c32(31));
        x.wp = b_.CreateAnd(it, c32(1));
        x.t = b_.CreateAnd(x.lane, c32(3));
        x.n = b_.CreateAdd(b_.CreateShl(jl, 3), b_.CreateLShr(x.lane, 2));
        Value* src =
            b_.CreateAdd(slot, b_.CreateAdd(b_.CreateShl(jl, 9), b_.CreateAdd(b_.CreateShl(x.lane, 4), c32(8 * h))));
        src = b_.CreateAdd(src, b_.CreateShl(x.wp, 2));
        InlinePtx ld;
        ld.out('r');
        ld.in(src, 'r');
        x.word = ld.emit(b_, "ld.shared.b32 $0, [$1];");
        x.scale = nullptr;
        if (group_size_ > 0) {
          // The scale of column n in this word's group: row (64·h + 32·w' + 8·t) / G of the block's.
          Value* row =
              group_size_ < 128
                  ? b_.CreateUDiv(b_.CreateAdd(c32(64 * h), b_.CreateAdd(b_.CreateShl(x.wp, 5), b_.CreateShl(x.t, 3))),
                                  c32(group_size_))
                  : c32(0);
          Value* at = b_.CreateAdd(slot, b_.CreateAdd(c32(bn_ / 8 * 512), b_.CreateAdd(b_.CreateMul(row, c32(bn_ * 2)),
                                                                                       b_.CreateShl(x.n, 1))));
          InlinePtx sl;
          sl.out('r');
          sl.in(at, 'r');
          x.scale = sl.emit(b_, "{\n.reg .b16 h;\nld.shared.b16 h, [$1];\nmov.b32 $0, {h, h};\n}");
        }
      }
      for (const Item& x : items) {
        std::array<Value*, 4> v = convert_w4_word(b_, x.word, bf16, e2m1);
        if (x.scale != nullptr)
          for (auto& e : v) {
            InlinePtx m;
            m.out('r');
            m.in(e, 'r');
            m.in(x.scale, 'r');
            // (bf16: an fma with -0.0, which keeps the sign of a zero product, as sm_80 has no bf16x2 mul.)
            e = m.emit(b_,
                       bf16 ? "{\n.reg .b32 z;\nmov.b32 z, 0x80008000;\nfma.rn.bf16x2 $0, $1, $2, z;\n}"
                            : "mul.rn.f16x2 $0, $1, $2;",
                       false, false);
          }
        Value* dst = b_.CreateAdd(b_dst, swizzled(x.n, b_.CreateAdd(b_.CreateShl(x.wp, 2), x.t)));
        statement("st.shared.v4.b32 [$0], {$1, $2, $3, $4};", {dst, v[0], v[1], v[2], v[3]});
      }
    });
    emit_ptx_statement(b_, "fence.proxy.async.shared::cta;");
    producer_barrier();
    emit_guarded(issuer, true, [&] { statement("mbarrier.arrive.shared::cta.b64 _, [$0];", {bar}); });
  }

  void produce_w4(Value* tiles) {
    Value* ptid = b_.CreateSub(tid_, c32(128 * groups_));
    Value* issuer = b_.CreateICmpEQ(ptid, c32(0));
    for_tiles([&](Value* i) {
      Value* blocks = b_.CreateLShr(b_.CreateAdd(tiles, c32(1)), 1);
      Value* q_first = b_.CreateLShr(k_first_, 1);
      // Stage local block q (when below `blocks`) into slot q mod kW4Slots; always one commit
      // group, so that "wait_group kW4Slots - 1" means block q has landed.
      auto issue = [&](Value* q) {
        emit_guarded(b_.CreateICmpULT(q, blocks), true,
                     [&] { stage_block(ptid, b_.CreateAdd(q_first, q), slot_at(q)); });
        emit_ptx_statement(b_, "cp.async.commit_group;");
      };
      for (std::int64_t d = 0; d + 1 < kW4Slots; ++d) issue(c32(d));
      loop(blocks, [&](Value* q) {
        // The slot block q + kW4Slots - 1 takes was converted in iteration q - 1, which ended at
        // the producer's barrier.
        issue(b_.CreateAdd(q, c32(kW4Slots - 1)));
        emit_ptx_statement(b_, fmt::format("cp.async.wait_group {};", kW4Slots - 1));
        producer_barrier();
        Value* slot = slot_at(q);
        for (std::int64_t h = 0; h < 2; ++h) {
          Value* kt = b_.CreateAdd(b_.CreateShl(q, 1), c32(h));
          emit_guarded(b_.CreateICmpULT(kt, tiles), h == 1,
                       [&] { fill_stage_w4(ptid, issuer, b_.CreateAdd(b_.CreateMul(i, tiles), kt), kt, slot, h); });
        }
      });
    });
  }

  /// The consumers, per output tile: wgmma over each stage once full, the stage of the retired
  /// group released, the last one once every group retired; then the tile's epilogue, while the
  /// producer already fills the stages with the next tile.
  void consume(Value* tiles) {
    for_tiles([&](Value* i) {
      if (persistent_) zero_accumulators();
      if (block_scaled_) {  // the tile's first step's scales
        std::vector<Value*> rows, blocks;
        block_scales(k_first_, rows, blocks);
        keep_scales(rows, blocks);
      }
      Value* first = b_.CreateMul(i, tiles);
      loop(tiles, [&](Value* kt) {
        Value* g = b_.CreateAdd(first, kt);
        Value* s = b_.CreateURem(g, c32(stages_));
        if (block_scaled_) {
          // The step's group is waited for at once, the stage released, and the partial sums
          // scaled into the accumulators by the scales loaded one step ahead; the next step's
          // are loaded while this step's group runs (the last step reloads its own), so that
          // their latency hides under a whole step.
          wait(full(s), b_.CreateAnd(b_.CreateUDiv(g, c32(stages_)), c32(1)));
          compute_stage(s);
          Value* next = b_.CreateAdd(kt, c32(1));
          next = b_.CreateSelect(b_.CreateICmpULT(next, tiles), next, kt);
          std::vector<Value*> rows, blocks;
          block_scales(b_.CreateAdd(k_first_, next), rows, blocks);
          emit_ptx_statement(b_, "wgmma.wait_group.sync.aligned 0;");
          release(b_.CreateICmpEQ(lane_, c32(0)), g);
          std::vector<Value*> cur_rows, cur_blocks;
          take_scales(cur_rows, cur_blocks);
          promote(cur_rows, cur_blocks);
          keep_scales(rows, blocks);
          return;
        }
        wait(full(s), b_.CreateAnd(b_.CreateUDiv(g, c32(stages_)), c32(1)));
        compute_stage(s);
        emit_ptx_statement(b_, "wgmma.wait_group.sync.aligned 1;");
        // The group of the K tile before has retired in this warp: its stage may be refilled.
        release(b_.CreateAnd(b_.CreateICmpUGT(kt, c32(0)), b_.CreateICmpEQ(lane_, c32(0))),
                b_.CreateAdd(g, c32(stages_ - 1)));
      });
      if (!block_scaled_) {
        emit_ptx_statement(b_, "wgmma.wait_group.sync.aligned 0;");
        // The tile's last stage, for the next tile's copies.
        if (persistent_) release(b_.CreateICmpEQ(lane_, c32(0)), b_.CreateSub(b_.CreateAdd(first, tiles), c32(1)));
      }
      if (split_ > 1)
        reduce_splits();
      else if (c_tma_)
        epilogue_through_slabs();
      else
        epilogue();
    });
  }

  // ---- fine-grained fp8 scales (Plan::block_scaled) ----
  //
  // sc_a holds ceil(K/128) rows of M fp32 values (row kb: the scales of every row of A over k in
  // [128·kb, 128·kb + 128)), sc_b ceil(K/128) rows of ceil(N/128) (B's 128×128 blocks). For K step
  // kb (tile_k is 128) each consumer thread reads the scales of its 2·fm rows and of the tile's
  // blocks of columns: non-coherent 4-byte loads, row-contiguous across the warp's lanes.

  /// The scales of K step `kb`: `rows` (2·fm, the thread's fragment rows f·64 + half·8, a row
  /// past M reading row M - 1's) and `blocks` (max(1, tile_n / 128), a block past N reading the
  /// last one's).
  /// The scales loaded for the next step, kept across the K loop in `held_scales_` (an array at
  /// the top of the entry block, which mem2reg makes registers): keep_scales stores them,
  /// take_scales reads them back.
  void keep_scales(const std::vector<Value*>& rows, const std::vector<Value*>& blocks) {
    const auto n = static_cast<std::uint64_t>(rows.size() + blocks.size());
    if (held_scales_ == nullptr) {
      llvm::BasicBlock& entry = b_.GetInsertBlock()->getParent()->getEntryBlock();
      llvm::IRBuilder<> top(&entry, entry.getFirstInsertionPt());
      held_scales_ = top.CreateAlloca(llvm::ArrayType::get(b_.getFloatTy(), n), nullptr, "scales");
      held_rows_ = rows.size();
      held_count_ = n;
    }
    DG_INTERNAL_ASSERT(n == held_count_ && rows.size() == held_rows_, "a K step's scales changed in number");
    auto* ty = llvm::ArrayType::get(b_.getFloatTy(), n);
    for (size_t i = 0; i < rows.size(); ++i)
      b_.CreateStore(rows[i], b_.CreateConstInBoundsGEP2_32(ty, held_scales_, 0, static_cast<unsigned>(i)));
    for (size_t i = 0; i < blocks.size(); ++i)
      b_.CreateStore(blocks[i],
                     b_.CreateConstInBoundsGEP2_32(ty, held_scales_, 0, static_cast<unsigned>(rows.size() + i)));
  }
  void take_scales(std::vector<Value*>& rows, std::vector<Value*>& blocks) {
    auto* ty = llvm::ArrayType::get(b_.getFloatTy(), held_count_);
    for (std::uint64_t i = 0; i < held_count_; ++i) {
      Value* v =
          b_.CreateLoad(b_.getFloatTy(), b_.CreateConstInBoundsGEP2_32(ty, held_scales_, 0, static_cast<unsigned>(i)));
      (i < held_rows_ ? rows : blocks).push_back(v);
    }
  }

  void block_scales(Value* kb, std::vector<Value*>& rows, std::vector<Value*>& blocks) {
    auto* i64 = b_.getInt64Ty();
    auto load = [&](unsigned param, Value* index) {
      Value* at = b_.CreateGEP(b_.getFloatTy(), arg(param), index);
      auto* ld = b_.CreateAlignedLoad(b_.getFloatTy(), at, llvm::Align(4));
      ld->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx_, {}));
      return static_cast<Value*>(ld);
    };
    Value* kb64 = b_.CreateZExt(kb, i64);
    Value* r0 = b_.CreateLShr(lane_, 2);
    Value* first = b_.CreateAdd(b_.CreateAdd(row_base_, group_row_), b_.CreateAdd(warp_row_, r0));
    Value* row_of_kb = b_.CreateMul(kb64, b_.getInt64(static_cast<std::uint64_t>(p_.M)));
    for (std::int64_t f = 0; f < fm_; ++f)
      for (std::int64_t half = 0; half < 2; ++half) {
        Value* row = b_.CreateAdd(first, c32(f * 64 + half * 8));
        row = b_.CreateSelect(b_.CreateICmpULT(row, c32(p_.M)), row, c32(p_.M - 1));
        rows.push_back(load(scale_arg_, b_.CreateAdd(row_of_kb, b_.CreateZExt(row, i64))));
      }
    const std::int64_t nbn = (p_.N + kScaleBlock - 1) / kScaleBlock;
    Value* nb0 = b_.CreateUDiv(col_base_, c32(kScaleBlock));
    Value* block_of_kb = b_.CreateMul(kb64, b_.getInt64(static_cast<std::uint64_t>(nbn)));
    for (std::int64_t i = 0; i < std::max<std::int64_t>(1, bn_ / kScaleBlock); ++i) {
      Value* nb = b_.CreateAdd(nb0, c32(i));
      nb = b_.CreateSelect(b_.CreateICmpULT(nb, c32(nbn)), nb, c32(nbn - 1));
      blocks.push_back(load(scale_arg_ + 1, b_.CreateAdd(block_of_kb, b_.CreateZExt(nb, i64))));
    }
  }

  // ---- C through the tensor-memory accelerator (c_store "tma") ----
  //
  // Each consumer warpgroup stores its rows of the tile a 128-byte column slab at a time through
  // two shared-memory buffers, used in turn over all the block's slabs (slab_count_). Its first
  // thread issues the bulk tensor stores and is the one that waits on them: before a buffer is
  // written again, until at most one store (the other buffer's) still reads shared memory. The
  // warpgroup goes on with its next slab and its next tile while the copy engine writes.

  /// This warpgroup's named barrier (1 is the split K's; 0 the block's).
  void group_barrier() { statement("bar.sync $0, 128;", {b_.CreateAdd(group_, c32(2))}); }
  Value* issuer() { return b_.CreateICmpEQ(b_.CreateAnd(tid_, c32(127)), c32(0)); }

  void epilogue_through_slabs() {
    const std::int64_t buffer_bytes = group_rows_ * 128, slab_cols = 128 / element_bytes(p_.c_type);
    // The buffer of the warpgroup's current slab: its pair's, then the count's parity.
    auto buffer = [&] {
      Value* parity = b_.CreateAnd(b_.CreateLoad(b_.getInt32Ty(), slab_count_), c32(1));
      Value* mine = b_.CreateAdd(c32(c_buffers_), b_.CreateMul(group_, c32(2 * buffer_bytes)));
      return b_.CreateAdd(smem_base_, b_.CreateAdd(mine, b_.CreateMul(parity, c32(buffer_bytes))));
    };
    Slabs slabs;
    slabs.begin = [&](std::int64_t) {
      emit_guarded(issuer(), true, [&] { emit_ptx_statement(b_, "cp.async.bulk.wait_group.read 1;"); });
      group_barrier();
      return buffer();
    };
    slabs.end = [&](std::int64_t s) {
      // Every thread's writes, then the copy engine's read of them (the async proxy).
      emit_ptx_statement(b_, "fence.proxy.async.shared::cta;");
      group_barrier();
      Value* at = buffer();
      emit_guarded(issuer(), true, [&] {
        statement(
            "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$0, {$1, $2}], [$3];\n"
            "cp.async.bulk.commit_group;",
            {tensor_map(c_map_), b_.CreateAdd(col_base_, c32(s * slab_cols)), b_.CreateAdd(row_base_, group_row_), at});
      });
      b_.CreateStore(b_.CreateAdd(b_.CreateLoad(b_.getInt32Ty(), slab_count_), c32(1)), slab_count_);
    };
    epilogue(&slabs);
  }

  // ---- split K (see the header comment) ----

  /// The workspace: the tiles' counters, then their partial tiles.
  SplitWorkspace split_workspace() const { return {tiles_, split_, bm_, bn_}; }

  /// This block's partial tile to its slot; the tile's last block sums every slot in split order
  /// and runs the epilogue, the others end.
  void reduce_splits() {
    settle();
    const std::int64_t consumers = 128 * groups_, steps = fm_ * acc_per_frag_ / 4;
    llvm::Type* v4 = llvm::FixedVectorType::get(acc_elem(), 4);
    Value* ws = arg_workspace();
    auto i64 = [&](Value* v) { return b_.CreateZExt(v, b_.getInt64Ty()); };
    const auto at = split_slot_at(split_workspace(), ws, tile_id_, tid_, consumers);
    Value* mine = i64(split_id_);
    for (std::int64_t c = 0; c < steps; ++c) {
      Value* v = llvm::PoisonValue::get(v4);
      for (unsigned j = 0; j < 4; ++j) v = b_.CreateInsertElement(v, b_.CreateLoad(acc_elem(), acc_at(4 * c + j)), j);
      b_.CreateAlignedStore(v, at(mine, c), llvm::Align(16));
    }
    // Every consumer's stores before the count (fence, then the consumers' named barrier 1); one
    // thread counts the arrival, and the last arrival resets the counter; bar.red gives every
    // consumer thread its answer.
    emit_ptx_statement(b_, "fence.acq_rel.gpu;");
    emit_ptx_statement(b_, fmt::format("bar.sync 1, {};", consumers));
    Value* arrivals = count_split_arrival(ws, tile_id_, tid_, split_, 1, consumers);
    emit_guarded(b_.CreateICmpNE(arrivals, c32(0)), true, [&] {
      emit_ptx_statement(b_, "fence.acq_rel.gpu;");
      auto add = [&](Value* slot, bool first_slot) {
        for (std::int64_t c = 0; c < steps; ++c) {
          Value* v = b_.CreateAlignedLoad(v4, at(slot, c), llvm::Align(16));
          for (unsigned j = 0; j < 4; ++j) {
            Value* x = b_.CreateExtractElement(v, j);
            if (!first_slot) {
              Value* sum = b_.CreateLoad(acc_elem(), acc_at(4 * c + j));
              x = int8_ ? b_.CreateAdd(sum, x) : b_.CreateFAdd(sum, x);
            }
            b_.CreateStore(x, acc_at(4 * c + j));
          }
        }
      };
      add(b_.getInt64(0), true);
      loop(c32(split_ - 1), [&](Value* j) { add(i64(b_.CreateAdd(j, c32(1))), false); });
      if (c_tma_)
        epilogue_through_slabs();
      else
        epilogue();
    });
  }
  /// One arrive on the empty barrier of the stage of K tile g, when `cond`.
  void release(Value* cond, Value* g) {
    emit_guarded(cond, true, [&] {
      statement("mbarrier.arrive.shared::cta.b64 _, [$0];", {empty(b_.CreateURem(g, c32(stages_)))});
    });
  }

  /// Registers per thread: the launch bound's share at entry, then the producer's few and the
  /// consumers' share of the rest (setmaxnreg counts are multiples of 8 in [24, 256]). The block
  /// holds threads × entry registers from its launch to its end: setmaxnreg.inc waits until the
  /// block's own pool has them, so the consumers take no more than the producer gave back (a
  /// share of 65536 instead, with 384 threads and an 80-register producer, left the consumers
  /// waiting forever).
  void rebalance(bool producer) {
    const std::int64_t budget = 65536 / std::max<std::int64_t>(1, p_.blocks_per_sm);
    const std::int64_t entry = std::min<std::int64_t>(255, budget / (128 * (groups_ + 1))) / 8 * 8;
    const std::int64_t kept = std::min(entry, w4_ ? kW4ProducerRegisters : kProducerRegs);
    const std::int64_t pool = entry * 128 * (groups_ + 1);
    const std::int64_t consumer = std::min<std::int64_t>(240, (pool - 128 * kept) / (128 * groups_) / 8 * 8);
    if (producer && kept < entry) emit_ptx_statement(b_, fmt::format("setmaxnreg.dec.sync.aligned.u32 {};", kept));
    if (!producer && consumer > entry)
      emit_ptx_statement(b_, fmt::format("setmaxnreg.inc.sync.aligned.u32 {};", consumer));
  }

  void body() {
    setup(!persistent_ && split_ == 1);  // one tile per block: its origin at the entry
    Value* tiles = k_tile_count(bk_, k_tiles_);
    k_first_ = c32(0);
    if (split_ > 1) {
      // Block b: tile b / S, split s = b mod S, K tiles [s·per, min((s+1)·per, K tiles)).
      Value* bid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
      tile_id_ = b_.CreateUDiv(bid, c32(split_));
      split_id_ = b_.CreateURem(bid, c32(split_));
      block_origin(tile_id_);
      const std::int64_t k_total = (p_.K + bk_ - 1) / bk_;
      k_first_ = b_.CreateMul(split_id_, c32(per_split_));
      Value* left = b_.CreateSub(c32(k_total), k_first_);
      tiles = b_.CreateSelect(b_.CreateICmpULT(left, c32(per_split_)), left, c32(per_split_));
    }
    // Thread 0 initializes the barriers: full expects the producer's one arrive (and the bytes),
    // empty one arrive per consumer warp.
    emit_guarded(b_.CreateICmpEQ(tid_, c32(0)), true, [&] {
      for (std::int64_t s = 0; s < stages_; ++s) {
        // (4-bit weights: a second arrive once the producer's threads converted B into the stage.)
        statement("mbarrier.init.shared::cta.b64 [$0], $1;", {full(c32(s)), c32(w4_ ? 2 : 1)});
        statement("mbarrier.init.shared::cta.b64 [$0], $1;", {empty(c32(s)), c32(4 * groups_)});
      }
      emit_ptx_statement(b_, "fence.mbarrier_init.release.cluster;");
    });
    b_.CreateCall(intr(llvm::Intrinsic::nvvm_barrier0));
    if (c_tma_) {  // at the top of the entry block, so that it lives in a register (not .local)
      llvm::BasicBlock& entry = b_.GetInsertBlock()->getParent()->getEntryBlock();
      llvm::IRBuilder<> top(&entry, entry.getFirstInsertionPt());
      slab_count_ = top.CreateAlloca(b_.getInt32Ty(), nullptr, "slabs");
      b_.CreateStore(c32(0), slab_count_);
    }

    llvm::Function* f = b_.GetInsertBlock()->getParent();
    auto* producer = llvm::BasicBlock::Create(ctx_, "producer", f);
    auto* consumer = llvm::BasicBlock::Create(ctx_, "consumer", f);
    auto* end = llvm::BasicBlock::Create(ctx_, "end", f);
    b_.CreateCondBr(b_.CreateICmpEQ(group_, c32(groups_)), producer, consumer);

    b_.SetInsertPoint(producer);
    rebalance(true);
    if (w4_)
      produce_w4(tiles);  // every producer thread converts weights
    else
      emit_guarded(b_.CreateICmpEQ(tid_, c32(128 * groups_)), true, [&] { produce(tiles); });
    b_.CreateBr(end);

    b_.SetInsertPoint(consumer);
    rebalance(false);
    consume(tiles);  // each tile's epilogue included
    // The block's last stores: shared memory stays until the copy engine has read it.
    if (c_tma_) emit_guarded(issuer(), true, [&] { emit_ptx_statement(b_, "cp.async.bulk.wait_group 0;"); });
    b_.CreateBr(end);

    b_.SetInsertPoint(end);
    b_.CreateRetVoid();
  }

  std::int64_t barriers_ = 0;     // byte offset of the barriers: after every stage, C's buffers, the staging
  std::int64_t staging_ = 0;      // byte offset of the 4-bit weights' staging slots
  bool w4_ = false;               // 4-bit weights converted by the producer (Plan::w4_staged)
  std::int64_t group_size_ = 0;   // their scales' group size along K (0: none; K: per_column)
  unsigned c_map_ = 2;            // C's tensor map: after A's and B's (after A's alone with 4-bit weights)
  Value* held_scales_ = nullptr;  // the next K step's fine-grained scales (keep_scales)
  std::uint64_t held_rows_ = 0, held_count_ = 0;
  unsigned scale_arg_ = 3;       // the scales' pointer parameter: sc_b, or sc_a (sc_b next) with block scales
  std::int64_t c_buffers_ = 0;   // byte offset of C's slab buffers (c_store "tma")
  bool c_tma_ = false;           // C stored through the tensor-memory accelerator
  Value* slab_count_ = nullptr;  // the warpgroup's slabs so far (an i32 slot): which buffer is next
  std::int64_t tiles_ = 1, grid_ = 1;
  bool persistent_ = false;
  std::int64_t split_ = 1, per_split_ = 0;                               // K splits, K tiles per split
  Value *k_first_ = nullptr, *tile_id_ = nullptr, *split_id_ = nullptr;  // the block's first K tile, tile, split
};

}  // namespace

LaunchInfo build_wgmma_tma(const Plan& plan, llvm::LLVMContext& ctx, llvm::Module& m, const std::string& name) {
  return WgmmaTmaKernel(plan, ctx, m).build(name);
}

std::string wgmma_tma_unsupported(const Plan& p, const hw::HwModel& hw) {
  if (std::string why = wgmma_unsupported(p, hw); !why.empty()) return why;
  if (!hw.gpu.has_tma) return fmt::format("{} has no tensor-memory accelerator (has_tma)", hw.name);
  if (p.batch != 1) return "the TMA loader maps one matrix per operand (batch 1)";
  if (p.tile_m > 256 || p.tile_n > 256 || p.tile_k > 256) return "a TMA box holds at most 256 rows";
  if (p.persistent_blocks < 0 || p.persistent_blocks > p.grid_m * p.grid_n)
    return "a persistent grid has between 1 and one block per tile (persistent_blocks)";
  if (p.split_k > 1 && (p.persistent_blocks > 0 || p.k_dynamic))
    return "a split K runs one block per tile and split, at a K fixed at compile time (no persistent loop, no "
           "run-time K)";
  if (p.split_k > 1 &&
      static_cast<std::uint64_t>(p.grid_m * p.grid_n) * static_cast<std::uint64_t>(p.split_k) > 0x7fffffffu)
    return "a split K launches one block per tile and split: at most 2^31 - 1 blocks";
  if (p.block_scaled()) {
    if (p.tile_k != kScaleBlock) return "fine-grained fp8 scales take K tiles of 128 (one scale block a step)";
    if (p.tile_n % kScaleBlock != 0 && kScaleBlock % p.tile_n != 0)
      return "fine-grained fp8 scales: tile_n divides 128 or is a multiple of it (whole scale blocks of B)";
  }
  if (p.w4_staged()) {
    if (p.b_type != "int4" && p.b_type != "u4" && p.b_type != "int4_e2m1")
      return fmt::format("weight {} is not generated yet (int4, u4 and int4_e2m1 only)", p.b_type);
    if ((p.a_type != "fp16" && p.a_type != "bf16") || p.weight_conversion != p.a_type || p.acc_type != "fp32")
      return "4-bit weights are converted to the fp16 or bf16 activation's type and accumulate in fp32";
    if (p.tile_k != 64 || p.tile_n % 64 != 0)
      return "4-bit weights on wgmma take K tiles of 64 and tile_n a multiple of 64";
    if (p.N % 8 != 0 || p.K % 32 != 0 || p.k_dynamic) return "4-bit weights need N a multiple of 8, K of 32, K fixed";
    if (!p.index.a_row_major) return "4-bit weights on wgmma: a row-major A";
    if (p.scale_a != "none" || p.scale_b == "per_tensor") return "4-bit weights take group scales on B only";
    const std::int64_t g = w4_group_size(p.scale_b, p.K);
    if (g > 0 && g != p.K && (g > 128 || 128 % g != 0 || p.K % g != 0))
      return fmt::format("group size {} (32, 64, 128 or per_column, dividing K)", g);
    const std::int64_t tiles = (p.K + p.tile_k - 1) / p.tile_k;
    if (p.split_k > 1 && ((tiles + p.split_k - 1) / p.split_k) % 2 != 0)
      return "a split K of 4-bit weights gives each split an even number of K tiles (whole 128-k blocks)";
  }
  if (p.c_store == "tma") {
    const std::int64_t bits = 8 * element_bytes(p.c_type);
    if (!p.index.c_row_major || (bits != 16 && bits != 32) || (p.index.ldc * bits / 8) % 16 != 0)
      return "C's store through the TMA needs a row-major C of 16- or 32-bit elements whose rows are whole 16-byte "
             "chunks (c_store)";
  }
  return "";
}

}  // namespace dg::codegen
