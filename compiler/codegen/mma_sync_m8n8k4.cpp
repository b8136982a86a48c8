// The mma.sync family on Volta (sm_70): mma.sync m8n8k4 (fp16 → fp32), which a warp runs as four
// independent 8×8×4 products, one per quad pair (lanes 4q..4q+3 and 4q+16..4q+19). The generator
// arranges the four 2×2, so one instruction steps a warp over 16×16 of C. Volta has no cp.async
// and no ldmatrix: operand tiles go global → registers (16-byte loads, or eight 2-byte loads when
// a leading dimension is not a multiple of 8; zero-filled outside the matrices) → shared memory, double-buffered
// through registers when the plan has two stages (the next tile's loads are in flight while the current one is
// multiplied); fragments are 8-byte shared-memory loads. Rows, columns and the shared-memory layout come from the
// plan's index description, as in the other families.
#include <fmt/format.h>

#include "codegen/families.h"
#include "codegen/kernel_builder.h"
#include "support/error.h"

namespace dg::codegen {

namespace {

using llvm::Value;

class M8n8k4Kernel : KernelBuilder {
 public:
  // Volta's kernel: sm_70 has no cvt.rn.f16x2.f32, so fp16 pairs are converted one by one.
  M8n8k4Kernel(const Plan& p, llvm::LLVMContext& ctx, llvm::Module& m) : KernelBuilder(p, ctx, m) {
    pack_f16x2_ = false;
  }

  LaunchInfo build(const std::string& name) {
    const IndexDesc& d = p_.index;
    bm_ = p_.tile_m;
    bn_ = p_.tile_n;
    bk_ = p_.tile_k;
    warps_n_ = extent(d.out_vars, "warp_n");
    const std::int64_t warps_m = extent(d.out_vars, "warp_m");
    fm_ = extent(d.out_vars, "frag_m");  // 16-row warp steps
    fn_ = extent(d.out_vars, "frag_n");  // 16-column warp steps
    k_tiles_ = extent(d.k_vars, "k_tile");
    stages_ = p_.stages;
    swz_ = d.swizzle_bits;
    a_pitch_ = d.a_smem_row_bytes + d.smem_row_pad_bytes;
    b_pitch_ = d.b_smem_row_bytes + d.smem_row_pad_bytes;
    a_stage_ = d.a_smem_rows * a_pitch_;
    b_stage_ = d.b_smem_rows * b_pitch_;
    begin_kernel(name, 32 * warps_m * warps_n_, p_.blocks_per_sm, 128);
    body();
    return launch_info(name, stages_ * (a_stage_ + b_stage_));
  }

  Value* smem_offset(Value* row, Value* chunk, std::int64_t pitch) {
    return KernelBuilder::smem_offset(row, chunk, pitch, swz_);
  }

  /// Byte `byte` of a row (any byte, not only a chunk start) through the layout.
  Value* smem_byte(Value* row, Value* byte, std::int64_t pitch) {
    return b_.CreateAdd(smem_offset(row, b_.CreateLShr(byte, 4), pitch), b_.CreateAnd(byte, c32(15)));
  }

  Value* acc_at(std::int64_t e) { return b_.CreateConstInBoundsGEP2_32(acc_ty_, acc_, 0, static_cast<unsigned>(e)); }

  Value* a_base(Value* stage) { return b_.CreateMul(stage, c32(a_stage_)); }
  Value* b_base(Value* stage) { return b_.CreateAdd(c32(stages_ * a_stage_), b_.CreateMul(stage, c32(b_stage_))); }

  // ---- global → registers → shared ------------------------------------------------------------
  struct Staged {
    std::vector<Value*> values, offsets;  // 16-byte vectors and where they go inside shared memory
    std::vector<Value*> guards;           // null, or "this thread owns the chunk" (a ragged last pass)
  };

  /// The 16-byte loads of one operand tile this thread owns (rows × cols elements, stored row by
  /// row in global memory), zero outside the matrix or past the last tile.
  void stage_operand(Staged& st, Value* global, std::int64_t rows, std::int64_t cols, std::int64_t pitch, Value* row0,
                     Value* col0, Value* row_limit, Value* col_limit, std::int64_t ld, Value* valid_tile, Value* base) {
    auto* v4 = llvm::FixedVectorType::get(b_.getInt32Ty(), 4);
    const std::int64_t cpr = cols / 8, total = rows * cpr;
    for (std::int64_t q0 = 0; q0 < total; q0 += threads_) {
      Value* q = b_.CreateAdd(tid_, c32(q0));
      Value* row = b_.CreateUDiv(q, c32(cpr));
      Value* ch = b_.CreateURem(q, c32(cpr));
      Value* gr = b_.CreateAdd(row0, row);
      Value* gc = b_.CreateAdd(col0, b_.CreateShl(ch, 3));
      Value* ok =
          b_.CreateAnd(b_.CreateAnd(b_.CreateICmpULT(gr, row_limit), b_.CreateICmpULT(gc, col_limit)), valid_tile);
      if (total % threads_ != 0 && q0 + threads_ > total) ok = b_.CreateAnd(ok, b_.CreateICmpULT(q, c32(total)));
      // Out of bounds reads element 0 (always present) and is replaced by zeros.
      if (ld % 8 == 0) {  // rows are 16-byte aligned: one vector load
        Value* elem =
            b_.CreateAdd(b_.CreateMul(b_.CreateSelect(ok, gr, c32(0)), c32(ld)), b_.CreateSelect(ok, gc, c32(0)));
        Value* src = b_.CreateGEP(b_.getInt16Ty(), global, b_.CreateZExt(elem, b_.getInt64Ty()));
        Value* v = b_.CreateAlignedLoad(v4, src, llvm::Align(16));
        st.values.push_back(b_.CreateSelect(ok, v, llvm::Constant::getNullValue(v4)));
      } else {  // an odd leading dimension (a K tail with pad_k): eight 2-byte loads, each predicated
        Value* row_ok = b_.CreateAnd(b_.CreateICmpULT(gr, row_limit), valid_tile);
        if (total % threads_ != 0 && q0 + threads_ > total)
          row_ok = b_.CreateAnd(row_ok, b_.CreateICmpULT(q, c32(total)));
        auto* v8 = llvm::FixedVectorType::get(b_.getInt16Ty(), 8);
        Value* vec = llvm::Constant::getNullValue(v8);
        for (unsigned e = 0; e < 8; ++e) {
          Value* c = b_.CreateAdd(gc, c32(e));
          Value* eok = b_.CreateAnd(row_ok, b_.CreateICmpULT(c, col_limit));
          Value* elem =
              b_.CreateAdd(b_.CreateMul(b_.CreateSelect(eok, gr, c32(0)), c32(ld)), b_.CreateSelect(eok, c, c32(0)));
          Value* x = b_.CreateAlignedLoad(b_.getInt16Ty(),
                                          b_.CreateGEP(b_.getInt16Ty(), global, b_.CreateZExt(elem, b_.getInt64Ty())),
                                          llvm::Align(2));
          vec = b_.CreateInsertElement(vec, b_.CreateSelect(eok, x, b_.getInt16(0)), uint64_t(e));
        }
        st.values.push_back(b_.CreateBitCast(vec, v4));
      }
      Value* in_tile = total % threads_ != 0 && q0 + threads_ > total ? b_.CreateICmpULT(q, c32(total)) : nullptr;
      st.offsets.push_back(b_.CreateAdd(base, smem_offset(row, ch, pitch)));
      st.guards.push_back(in_tile);
    }
  }

  Staged load_tile(Value* stage, Value* kt, Value* valid_tile) {
    const IndexDesc& d = p_.index;
    Staged st;
    Value* k0 = b_.CreateMul(kt, c32(bk_));
    stage_operand(st, arg(0), bm_, bk_, a_pitch_, row_base_, k0, arg_m(), arg_k(), d.lda, valid_tile, a_base(stage));
    if (d.b_row_major)
      stage_operand(st, arg(1), bk_, bn_, b_pitch_, k0, col_base_, arg_k(), arg_n(), d.ldb, valid_tile, b_base(stage));
    else
      stage_operand(st, arg(1), bn_, bk_, b_pitch_, col_base_, k0, arg_n(), arg_k(), d.ldb, valid_tile, b_base(stage));
    return st;
  }

  void store_tile(const Staged& st) {
    for (size_t i = 0; i < st.values.size(); ++i)
      emit_guarded(st.guards[i], st.guards[i] != nullptr,
                   [&] { b_.CreateAlignedStore(st.values[i], smem_ptr(st.offsets[i]), llvm::Align(16)); });
  }

  // ---- shared → registers → tensor cores --------------------------------------------------------
  /// Two f16x2 registers: 4 consecutive fp16 (8 bytes) of `row` from byte `byte`.
  std::array<Value*, 2> frag(Value* base, Value* row, Value* byte, std::int64_t pitch) {
    auto* v2 = llvm::FixedVectorType::get(b_.getInt32Ty(), 2);
    Value* v = b_.CreateAlignedLoad(v2, smem_ptr(b_.CreateAdd(base, smem_byte(row, byte, pitch))), llvm::Align(8));
    auto* h2 = llvm::FixedVectorType::get(b_.getHalfTy(), 2);
    return {b_.CreateBitCast(b_.CreateExtractElement(v, uint64_t(0)), h2),
            b_.CreateBitCast(b_.CreateExtractElement(v, uint64_t(1)), h2)};
  }

  void compute_stage(Value* stage) {
    const bool b_rm = p_.index.b_row_major;
    Value* ab = a_base(stage);
    Value* bb = b_base(stage);
    auto* f32 = b_.getFloatTy();
    auto* mma = intr(b_rm ? llvm::Intrinsic::nvvm_mma_m8n8k4_row_row_f32_f32
                          : llvm::Intrinsic::nvvm_mma_m8n8k4_row_col_f32_f32);
    for (std::int64_t kk = 0; kk < bk_ / 4; ++kk) {
      // A (row-major): this thread's row of its quad pair, k = 4kk .. 4kk+3.
      std::vector<std::array<Value*, 2>> af(fm_), bfr(fn_);
      for (std::int64_t i = 0; i < fm_; ++i) af[i] = frag(ab, b_.CreateAdd(a_row_, c32(i * 16)), c32(kk * 8), a_pitch_);
      for (std::int64_t j = 0; j < fn_; ++j) {
        if (b_rm)  // B row-major: k row 4kk + lane%4, four columns from this thread's first
          bfr[j] =
              frag(bb, b_.CreateAdd(c32(kk * 4), l4_), b_.CreateShl(b_.CreateAdd(b_col_, c32(j * 16)), 1), b_pitch_);
        else  // B column-major (its transpose, N rows): this thread's column, k = 4kk .. 4kk+3
          bfr[j] = frag(bb, b_.CreateAdd(b_row_t_, c32(j * 16)), c32(kk * 8), b_pitch_);
      }
      for (std::int64_t i = 0; i < fm_; ++i)
        for (std::int64_t j = 0; j < fn_; ++j) {
          std::vector<Value*> args = {af[i][0], af[i][1], bfr[j][0], bfr[j][1]};
          const std::int64_t base = (i * fn_ + j) * 8;
          for (unsigned e = 0; e < 8; ++e) args.push_back(b_.CreateLoad(f32, acc_at(base + e)));
          Value* r = b_.CreateCall(mma, args);
          for (unsigned e = 0; e < 8; ++e) b_.CreateStore(b_.CreateExtractValue(r, e), acc_at(base + e));
        }
    }
  }

  void epilogue() {
    auto* f32 = b_.getFloatTy();
    // f32 accumulators of m8n8k4: c_i sits at row (lane & 1) + (i & 2) (+ 4 for the high half of
    // the quad pair) and column (i & 4) + (lane & 2) + (i & 1) of the quad pair's 8×8 product.
    Value* r0 = b_.CreateAdd(b_.CreateAnd(lane_, c32(1)), b_.CreateShl(high_, 2));
    Value* c0 = b_.CreateAnd(lane_, c32(2));
    for (std::int64_t i = 0; i < fm_; ++i)
      for (std::int64_t j = 0; j < fn_; ++j)
        for (std::int64_t e = 0; e < 8; e += 2) {
          Value* gm = b_.CreateAdd(b_.CreateAdd(row_base_, qp_row_), b_.CreateAdd(r0, c32(i * 16 + (e & 2))));
          Value* gn = b_.CreateAdd(b_.CreateAdd(col_base_, qp_col_), b_.CreateAdd(c0, c32(j * 16 + (e & 4))));
          const std::int64_t base = (i * fn_ + j) * 8 + e;
          store_pair(gm, gn, b_.CreateLoad(f32, acc_at(base)), b_.CreateLoad(f32, acc_at(base + 1)));
        }
  }

  void body() {
    const IndexDesc& d = p_.index;
    auto* f32 = b_.getFloatTy();
    acc_ty_ = llvm::ArrayType::get(f32, static_cast<std::uint64_t>(fm_ * fn_ * 8));
    acc_ = b_.CreateAlloca(acc_ty_, nullptr, "acc");
    for (std::int64_t e = 0; e < fm_ * fn_ * 8; ++e) b_.CreateStore(llvm::ConstantFP::get(f32, 0.0), acc_at(e));
    tid_ = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
    lane_ = b_.CreateAnd(tid_, c32(31));
    Value* warp = b_.CreateLShr(tid_, 5);
    Value* warp_row = b_.CreateMul(b_.CreateUDiv(warp, c32(warps_n_)), c32(coeff(d.c_row, "warp_m")));
    Value* warp_col = b_.CreateMul(b_.CreateURem(warp, c32(warps_n_)), c32(coeff(d.c_col, "warp_n")));
    // Quad pair q = (lane / 4) % 4 computes the 8×8 block (q % 2, q / 2) of each 16×16 step; the
    // high half (lanes 16-31) of a quad pair holds rows (A) or columns (B) 4-7.
    Value* q = b_.CreateAnd(b_.CreateLShr(lane_, 2), c32(3));
    high_ = b_.CreateLShr(lane_, 4);
    l4_ = b_.CreateAnd(lane_, c32(3));
    qp_row_ = b_.CreateAdd(warp_row, b_.CreateShl(b_.CreateAnd(q, c32(1)), 3));
    qp_col_ = b_.CreateAdd(warp_col, b_.CreateShl(b_.CreateLShr(q, 1), 3));
    Value* four = b_.CreateAdd(l4_, b_.CreateShl(high_, 2));  // lane % 4 (+ 4 in the high half)
    a_row_ = b_.CreateAdd(qp_row_, four);
    b_col_ = b_.CreateAdd(qp_col_, b_.CreateShl(high_, 2));  // first of 4 columns (row-major B)
    b_row_t_ = b_.CreateAdd(qp_col_, four);                  // this thread's column (column-major B)
    block_origin();

    auto* bar = intr(llvm::Intrinsic::nvvm_barrier0);
    Value* tiles = c32(k_tiles_);
    if (stages_ == 1) {
      loop(tiles, [&](Value* kt) {
        Staged st = load_tile(c32(0), kt, b_.getTrue());
        b_.CreateCall(bar);  // the previous tile's readers are done
        store_tile(st);
        b_.CreateCall(bar);
        compute_stage(c32(0));
      });
    } else {
      store_tile(load_tile(c32(0), c32(0), b_.getTrue()));
      b_.CreateCall(bar);
      loop(tiles, [&](Value* kt) {
        // Tile kt + 1 travels into registers while tile kt is multiplied; it lands in the other
        // buffer, whose readers (iteration kt - 1) passed the barrier at the end of that iteration.
        Value* next = b_.CreateAdd(kt, c32(1));
        Value* nstage = b_.CreateAnd(next, c32(1));
        Staged st = load_tile(nstage, next, b_.CreateICmpULT(next, tiles));
        compute_stage(b_.CreateAnd(kt, c32(1)));
        store_tile(st);
        b_.CreateCall(bar);
      });
    }
    epilogue();
    b_.CreateRetVoid();
  }

  llvm::ArrayType* acc_ty_ = nullptr;
  Value *acc_ = nullptr, *high_ = nullptr, *l4_ = nullptr, *qp_row_ = nullptr, *qp_col_ = nullptr, *a_row_ = nullptr,
        *b_col_ = nullptr, *b_row_t_ = nullptr;
  std::int64_t bm_ = 0, bn_ = 0, bk_ = 0, warps_n_ = 1, fm_ = 1, fn_ = 1, k_tiles_ = 1, stages_ = 1;
  std::int64_t a_pitch_ = 0, b_pitch_ = 0, a_stage_ = 0, b_stage_ = 0;
  int swz_ = 0;
};

}  // namespace

LaunchInfo build_mma_sync_m8n8k4(const Plan& plan, llvm::LLVMContext& ctx, llvm::Module& m, const std::string& name) {
  return M8n8k4Kernel(plan, ctx, m).build(name);
}

std::string mma_sync_m8n8k4_unsupported(const Plan& p, const hw::HwModel& hw) {
  (void)hw;
  if (p.a_type != "fp16" || p.acc_type != "fp32") return "Volta's m8n8k4 generator handles fp16 with fp32 accumulation";
  if (p.stages > 2) return "without cp.async the pipeline has at most 2 stages (register double buffering)";
  if (p.tile_k % 8 != 0 || p.tile_n % 8 != 0) return "tile_k and tile_n must be multiples of 8 (16-byte chunks)";
  // The shared store writes two adjacent columns as one aligned word: an odd N would put a pair
  // across a row's end and misalign every other row.
  if (p.N % 2 != 0) return fmt::format("N must be even: C is stored two columns at a time (N = {})", p.N);
  return "";
}

}  // namespace dg::codegen
