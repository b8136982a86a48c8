// The CUDA-core (SIMT) kernel family, for specs without tensor cores (use_hmma: false, fp32
// inputs): the mma.sync family's pipeline and layout — a multi-stage cp.async pipeline into
// swizzled or padded shared memory, predicated M, N and K tails, rasterized block order — with the
// tensor-core step replaced by fused multiply-adds. Each lane owns the outputs an m16n8 fragment
// gives it (rows lane/4 and lane/4 + 8, columns 2·(lane%4) and the next) in every fragment of its
// warp, so the epilogue and the index description are the mma.sync family's: per K element it
// reads one A value per row and one B value per column from shared memory and issues the FMAs of
// the outer product in fp32 (fp16 and bf16 inputs are widened first). With fp16 accumulation
// (fp16_fma: fp16 inputs, the plan's acc_type fp16) each lane keeps its two adjacent columns as one
// fp16 pair and issues packed fma.rn.f16x2: the A value in both halves times the pair of B values
// plus the pair of sums; the sums are widened to fp32 only for the epilogue.
//
// Split K (split_k = S > 1; for few output tiles over a long K, such as a 1 × 128 × 4096 GEMV):
// one block per (tile, split), block b taking tile b / S and split b mod S, whose K tiles are
// [s·per, min((s+1)·per, tiles)) per the plan's split coefficient (verify proved that the splits
// partition K and that none is empty). As in the TMA kernel (wgmma_tma.cpp), every block stores
// its partial tile in fp32 (fp16 sums widened) to its own workspace slot, 16 bytes per thread per
// step, fences and counts its arrival on the tile's counter; the tile's last block resets the
// counter, sums the S slots in split order, 0 first, and runs the epilogue once on the sum, so the
// result has the same bits whichever block arrives last. Workspace: one 32-bit counter per tile
// (padded to 256 bytes), then tiles × S slots of tile_m · tile_n · 4 bytes, zeroed once by the
// runtime and left with its counters 0.
#include <fmt/format.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "codegen/families.h"
#include "codegen/inline_ptx.h"
#include "codegen/kernel_builder.h"
#include "support/error.h"

namespace dg::codegen {

namespace {

using llvm::Value;

class SimtKernel : KernelBuilder {
 public:
  SimtKernel(const Plan& p, llvm::LLVMContext& ctx, llvm::Module& m) : KernelBuilder(p, ctx, m) {}

  LaunchInfo build(const std::string& name) {
    const IndexDesc& d = p_.index;
    bm_ = p_.tile_m;
    bn_ = p_.tile_n;
    bk_ = p_.tile_k;
    warps_m_ = extent(d.out_vars, "warp_m");
    warps_n_ = extent(d.out_vars, "warp_n");
    fm_ = extent(d.out_vars, "frag_m");
    fn_ = extent(d.out_vars, "frag_n");
    k_tiles_ = extent(d.k_vars, "k_tile");
    stages_ = p_.stages;
    swz_ = d.swizzle_bits;
    a_pitch_ = d.a_smem_row_bytes + d.smem_row_pad_bytes;
    b_pitch_ = d.b_smem_row_bytes + d.smem_row_pad_bytes;
    a_stage_ = d.a_smem_rows * a_pitch_;
    b_stage_ = d.b_smem_rows * b_pitch_;
    elem_bytes_ = element_bytes(p_.a_type);
    split_ = extent(d.k_vars, "split");
    per_split_ = split_ > 1 ? coeff(d.k_index, "split") / bk_ : 0;
    DG_INTERNAL_ASSERT(split_ == 1 || (per_split_ > 0 && !p_.k_dynamic && p_.batch == 1),
                       "a split K reached the SIMT kernel with a run-time K or a batch");
    begin_kernel(name, 32 * warps_m_ * warps_n_, p_.blocks_per_sm, 128, 0, split_ > 1);
    tiles_ = grid_m_ * grid_n_;
    body();
    LaunchInfo li = launch_info(name, stages_ * (a_stage_ + b_stage_));
    if (split_ > 1) {
      li.grid[0] = static_cast<std::uint32_t>(tiles_ * split_);
      li.workspace_bytes = split_workspace().bytes();
    }
    return li;
  }

 private:
  Value* acc_at(std::int64_t e) { return b_.CreateConstInBoundsGEP2_32(acc_ty_, acc_, 0, static_cast<unsigned>(e)); }
  bool half_acc() const { return p_.acc_type == "fp16"; }
  llvm::Type* half2() { return llvm::FixedVectorType::get(b_.getHalfTy(), 2); }

  void load_tile(Value* stage, Value* kt, Value* valid_tile) {
    load_stage({bm_, bn_, bk_, a_pitch_, b_pitch_, a_stage_, b_stage_, stages_, elem_bytes_, swz_}, stage, kt,
               valid_tile);
  }

  /// Element (row, col) of a shared-memory tile of `pitch`-byte rows, as f32: the swizzle moves
  /// whole 16-byte chunks, so the element sits at its chunk's offset plus its place in the chunk.
  /// Its shared-memory address: the swizzle moves whole 16-byte chunks, so the element sits at its
  /// chunk's offset plus its place in the chunk.
  Value* smem_addr(Value* base, Value* row, std::int64_t col, std::int64_t pitch) {
    const std::int64_t per_chunk = 16 / elem_bytes_;
    return smem_ptr(b_.CreateAdd(
        base, b_.CreateAdd(smem_offset(row, c32(col / per_chunk), pitch, swz_), c32((col % per_chunk) * elem_bytes_))));
  }
  Value* smem_addr(Value* base, std::int64_t row, Value* col, std::int64_t pitch) {
    const std::int64_t per_chunk = 16 / elem_bytes_;
    Value* chunk = b_.CreateUDiv(col, c32(per_chunk));
    Value* in_chunk = b_.CreateMul(b_.CreateURem(col, c32(per_chunk)), c32(elem_bytes_));
    return smem_ptr(b_.CreateAdd(base, b_.CreateAdd(smem_offset(c32(row), chunk, pitch, swz_), in_chunk)));
  }
  Value* smem_elem(Value* base, Value* row, std::int64_t col, std::int64_t pitch) {
    return widen(smem_addr(base, row, col, pitch));
  }
  Value* smem_elem(Value* base, std::int64_t row, Value* col, std::int64_t pitch) {
    return widen(smem_addr(base, row, col, pitch));
  }
  Value* load_half(Value* ptr) { return b_.CreateAlignedLoad(b_.getHalfTy(), ptr, llvm::Align(2)); }

  /// Load one element of the input type and widen it to f32.
  Value* widen(Value* ptr) {
    auto* f32 = b_.getFloatTy();
    if (p_.a_type == "fp32") return b_.CreateAlignedLoad(f32, ptr, llvm::Align(4));
    llvm::Type* t = p_.a_type == "bf16" ? b_.getBFloatTy() : b_.getHalfTy();
    return b_.CreateFPExt(b_.CreateAlignedLoad(t, ptr, llvm::Align(2)), f32);
  }

  /// tile_k steps of outer products: per K element, this lane's A values (two rows per fragment
  /// row) and B values (two columns per fragment column), then 4·fm·fn FMAs.
  void compute_stage(Value* stage) {
    const bool b_rm = p_.index.b_row_major;
    Value* a_base = b_.CreateMul(stage, c32(a_stage_));
    Value* b_base = b_.CreateAdd(c32(stages_ * a_stage_), b_.CreateMul(stage, c32(b_stage_)));
    if (half_acc()) return compute_stage_f16x2(a_base, b_base, b_rm);
    for (std::int64_t kk = 0; kk < bk_; ++kk) {
      std::vector<std::array<Value*, 2>> av(fm_), bv(fn_);
      for (std::int64_t i = 0; i < fm_; ++i)
        for (unsigned h = 0; h < 2; ++h)
          av[i][h] = smem_elem(a_base, b_.CreateAdd(row0_, c32(i * 16 + h * 8)), kk, a_pitch_);
      for (std::int64_t j = 0; j < fn_; ++j)
        for (unsigned e = 0; e < 2; ++e) {
          Value* col = b_.CreateAdd(col0_, c32(j * 8 + e));
          bv[j][e] = b_rm ? smem_elem(b_base, kk, col, b_pitch_) : smem_elem(b_base, col, kk, b_pitch_);
        }
      for (std::int64_t i = 0; i < fm_; ++i)
        for (std::int64_t j = 0; j < fn_; ++j)
          for (unsigned h = 0; h < 2; ++h)
            for (unsigned e = 0; e < 2; ++e) {
              Value* at = acc_at((i * fn_ + j) * 4 + h * 2 + e);
              Value* sum = b_.CreateIntrinsic(llvm::Intrinsic::fma, {b_.getFloatTy()},
                                              {av[i][h], bv[j][e], b_.CreateLoad(b_.getFloatTy(), at)});
              b_.CreateStore(sum, at);
            }
    }
  }

  /// fp16 accumulation: per K element, this lane's A values splatted into both halves, its B
  /// column pairs (one 4-byte load where B is row-major: the pair is adjacent in one chunk), and
  /// 2·fm·fn packed fma.rn.f16x2.
  void compute_stage_f16x2(Value* a_base, Value* b_base, bool b_rm) {
    auto* h2 = half2();
    for (std::int64_t kk = 0; kk < bk_; ++kk) {
      std::vector<std::array<Value*, 2>> av(fm_);
      std::vector<Value*> bv(fn_);
      for (std::int64_t i = 0; i < fm_; ++i)
        for (unsigned h = 0; h < 2; ++h)
          av[i][h] = b_.CreateVectorSplat(
              2, load_half(smem_addr(a_base, b_.CreateAdd(row0_, c32(i * 16 + h * 8)), kk, a_pitch_)));
      for (std::int64_t j = 0; j < fn_; ++j) {
        Value* col = b_.CreateAdd(col0_, c32(j * 8));
        if (b_rm) {
          bv[j] = b_.CreateAlignedLoad(h2, smem_addr(b_base, kk, col, b_pitch_), llvm::Align(4));
        } else {
          Value* lo = load_half(smem_addr(b_base, col, kk, b_pitch_));
          Value* hi = load_half(smem_addr(b_base, b_.CreateAdd(col, c32(1)), kk, b_pitch_));
          bv[j] = b_.CreateInsertElement(b_.CreateInsertElement(llvm::PoisonValue::get(h2), lo, uint64_t(0)), hi,
                                         uint64_t(1));
        }
      }
      for (std::int64_t i = 0; i < fm_; ++i)
        for (std::int64_t j = 0; j < fn_; ++j)
          for (unsigned h = 0; h < 2; ++h) {
            Value* at = acc_at((i * fn_ + j) * 2 + h);
            b_.CreateStore(b_.CreateIntrinsic(llvm::Intrinsic::fma, {h2}, {av[i][h], bv[j], b_.CreateLoad(h2, at)}),
                           at);
          }
    }
  }

  /// Accumulator e (fragment order: four per m16n8 fragment) as fp32.
  Value* acc_f32(std::int64_t e) {
    if (!half_acc()) return b_.CreateLoad(b_.getFloatTy(), acc_at(e));
    // Element e = pair e / 2, half e % 2 (the fragment's accumulator order: rows, then columns).
    Value* pair = b_.CreateLoad(half2(), acc_at(e / 2));
    return b_.CreateFPExt(b_.CreateExtractElement(pair, static_cast<uint64_t>(e % 2)), b_.getFloatTy());
  }

  void epilogue() {
    store_m16n8_fragments(warp_row_, warp_col_, fm_, fn_, [&](std::int64_t e) { return acc_f32(e); });
  }

  // ---- split K (see the header comment) ----

  /// The workspace: the tiles' counters, then their partial tiles.
  SplitWorkspace split_workspace() const { return {tiles_, split_, bm_, bn_}; }

  /// This block's partial tile to its slot; the tile's last block sums every slot in split order
  /// and runs the epilogue, the others end.
  void reduce_splits() {
    auto* f32 = b_.getFloatTy();
    const std::int64_t threads = 32 * warps_m_ * warps_n_, steps = fm_ * fn_;
    llvm::Type* v4 = llvm::FixedVectorType::get(f32, 4);
    Value* ws = arg_workspace();
    auto i64 = [&](Value* v) { return b_.CreateZExt(v, b_.getInt64Ty()); };
    const auto at = split_slot_at(split_workspace(), ws, tile_id_, tid_, threads);
    for (std::int64_t c = 0; c < steps; ++c) {
      Value* v = llvm::PoisonValue::get(v4);
      for (unsigned j = 0; j < 4; ++j) v = b_.CreateInsertElement(v, acc_f32(4 * c + j), j);
      b_.CreateAlignedStore(v, at(i64(split_id_), c), llvm::Align(16));
    }
    // Every thread's stores before the count (fence, then the block's barrier); one thread counts
    // the arrival, and the last arrival resets the counter; bar.red gives every thread its answer.
    emit_ptx_statement(b_, "fence.acq_rel.gpu;");
    b_.CreateCall(intr(llvm::Intrinsic::nvvm_barrier0));
    Value* arrivals = count_split_arrival(ws, tile_id_, tid_, split_, 0, threads);
    emit_guarded(b_.CreateICmpNE(arrivals, c32(0)), true, [&] {
      emit_ptx_statement(b_, "fence.acq_rel.gpu;");
      auto sum_at = [&](std::int64_t e) {
        return b_.CreateConstInBoundsGEP2_32(sum_ty_, sum_, 0, static_cast<unsigned>(e));
      };
      auto add = [&](Value* slot, bool first_slot) {
        for (std::int64_t c = 0; c < steps; ++c) {
          Value* v = b_.CreateAlignedLoad(v4, at(slot, c), llvm::Align(16));
          for (unsigned j = 0; j < 4; ++j) {
            Value* x = b_.CreateExtractElement(v, j);
            if (!first_slot) x = b_.CreateFAdd(b_.CreateLoad(f32, sum_at(4 * c + j)), x);
            b_.CreateStore(x, sum_at(4 * c + j));
          }
        }
      };
      add(b_.getInt64(0), true);
      loop(c32(split_ - 1), [&](Value* j) { add(i64(b_.CreateAdd(j, c32(1))), false); });
      store_m16n8_fragments(warp_row_, warp_col_, fm_, fn_,
                            [&](std::int64_t e) { return b_.CreateLoad(f32, sum_at(e)); });
    });
  }

  void body() {
    const IndexDesc& d = p_.index;
    auto* f32 = b_.getFloatTy();
    if (half_acc()) {
      acc_ty_ = llvm::ArrayType::get(half2(), static_cast<std::uint64_t>(fm_ * fn_ * 2));
      acc_ = b_.CreateAlloca(acc_ty_, nullptr, "acc");
      for (std::int64_t e = 0; e < fm_ * fn_ * 2; ++e) b_.CreateStore(llvm::Constant::getNullValue(half2()), acc_at(e));
    } else {
      acc_ty_ = llvm::ArrayType::get(f32, static_cast<std::uint64_t>(fm_ * fn_ * 4));
      acc_ = b_.CreateAlloca(acc_ty_, nullptr, "acc");
      for (std::int64_t e = 0; e < fm_ * fn_ * 4; ++e) b_.CreateStore(llvm::ConstantFP::get(f32, 0.0), acc_at(e));
    }
    if (split_ > 1) {  // the split-K sum (fp32), in the entry block so that it lives in registers
      sum_ty_ = llvm::ArrayType::get(f32, static_cast<std::uint64_t>(fm_ * fn_ * 4));
      sum_ = b_.CreateAlloca(sum_ty_, nullptr, "sum");
    }
    tid_ = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
    lane_ = b_.CreateAnd(tid_, c32(31));
    Value* warp = b_.CreateLShr(tid_, 5);
    // Warps are laid out warp_n-fastest, as in the mma.sync family.
    Value* warp_m = b_.CreateUDiv(warp, c32(warps_n_));
    Value* warp_n = b_.CreateURem(warp, c32(warps_n_));
    // This lane's first row and column inside the block tile (the m16n8 fragment layout).
    warp_row_ = b_.CreateMul(warp_m, c32(coeff(d.c_row, "warp_m")));
    warp_col_ = b_.CreateMul(warp_n, c32(coeff(d.c_col, "warp_n")));
    row0_ = b_.CreateAdd(warp_row_, b_.CreateLShr(lane_, 2));
    col0_ = b_.CreateAdd(warp_col_, b_.CreateShl(b_.CreateAnd(lane_, c32(3)), 1));
    Value* tiles = k_tile_count(bk_, k_tiles_);
    Value* k_first = c32(0);
    if (split_ > 1) {
      // Block b: tile b / S, split s = b mod S, K tiles [s·per, min((s+1)·per, K tiles)).
      Value* bid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
      tile_id_ = b_.CreateUDiv(bid, c32(split_));
      split_id_ = b_.CreateURem(bid, c32(split_));
      block_origin(tile_id_);
      const std::int64_t k_total = (p_.K + bk_ - 1) / bk_;
      k_first = b_.CreateMul(split_id_, c32(per_split_));
      Value* left = b_.CreateSub(c32(k_total), k_first);
      tiles = b_.CreateSelect(b_.CreateICmpULT(left, c32(per_split_)), left, c32(per_split_));
    } else {
      block_origin();
    }

    cp_async_main_loop(
        stages_, tiles, [&](Value* st, Value* kt, Value* ok) { load_tile(st, b_.CreateAdd(kt, k_first), ok); },
        [&](Value* st) { compute_stage(st); });
    if (split_ > 1)
      reduce_splits();
    else
      epilogue();
    b_.CreateRetVoid();
  }

  llvm::ArrayType* acc_ty_ = nullptr;
  Value *acc_ = nullptr, *warp_row_ = nullptr, *warp_col_ = nullptr, *row0_ = nullptr, *col0_ = nullptr;
  std::int64_t bm_ = 0, bn_ = 0, bk_ = 0, warps_m_ = 1, warps_n_ = 1, fm_ = 1, fn_ = 1, k_tiles_ = 1, stages_ = 1;
  std::int64_t a_pitch_ = 0, b_pitch_ = 0, a_stage_ = 0, b_stage_ = 0, elem_bytes_ = 4;
  int swz_ = 0;
  std::int64_t split_ = 1, per_split_ = 0, tiles_ = 1;  // K splits, K tiles per split, output tiles
  Value *tile_id_ = nullptr, *split_id_ = nullptr;      // this block's tile and split (split K)
  llvm::ArrayType* sum_ty_ = nullptr;                   // the split-K sum of the partial tiles
  Value* sum_ = nullptr;
};

}  // namespace

LaunchInfo build_simt(const Plan& plan, llvm::LLVMContext& ctx, llvm::Module& m, const std::string& name) {
  return SimtKernel(plan, ctx, m).build(name);
}

std::string simt_unsupported(const Plan& p, const hw::HwModel& hw) {
  if (!hw.gpu.has_cp_async) return fmt::format("the SIMT family loads with cp.async, which {} lacks", hw.name);
  if (p.acc_type != "fp32" && !(p.acc_type == "fp16" && p.a_type == "fp16"))
    return fmt::format("the SIMT family accumulates in fp32, or in fp16 for fp16 inputs (fp16_fma), not {} for {}",
                       p.acc_type, p.a_type);
  if (p.a_type != p.b_type) return "the SIMT family takes A and B of one type";
  if (p.instr_m != 16 || p.instr_n != 8) return "the SIMT family lays lanes out as m16n8 fragments";
  if (p.tile_k > 128) return "tile_k above 128 unrolls too far";
  if (p.split_k > 1 && (p.k_dynamic || p.batch != 1))
    return "a split K runs one block per tile and split, at a K fixed at compile time, batch 1";
  if (p.split_k > 1 &&
      static_cast<std::uint64_t>(p.grid_m * p.grid_n) * static_cast<std::uint64_t>(p.split_k) > 0x7fffffffu)
    return "a split K launches one block per tile and split: at most 2^31 - 1 blocks";
  return "";
}

}  // namespace dg::codegen
