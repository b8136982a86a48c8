// The mma.sync kernel family (sm_80 and later): a multi-stage cp.async pipeline into swizzled or
// padded shared memory, ldmatrix fragment loads, mma.sync m16n8k16 (fp16/bf16 → fp32), m16n8k32
// (int8 → int32) and m16n8k64 (int4/u4 → int32, two k to a byte), predicated
// M, N and K tails (zero-filled loads), rasterized block order, and an epilogue that casts and
// stores with predication. Block, warp and fragment offsets come from the plan's index description
// (plan.index), the one the verify stage proved.
#include <fmt/format.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <map>

#include "codegen/kernel_builder.h"
#include "codegen/families.h"
#include "support/error.h"

namespace dg::codegen {

namespace {

using llvm::Value;

class MmaSyncKernel : KernelBuilder {
 public:
  MmaSyncKernel(const Plan& p, llvm::LLVMContext& ctx, llvm::Module& m) : KernelBuilder(p, ctx, m) {}

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
    pad_ = d.smem_row_pad_bytes;
    swz_ = d.swizzle_bits;
    a_pitch_ = d.a_smem_row_bytes + pad_;
    b_pitch_ = d.b_smem_row_bytes + pad_;
    a_stage_ = d.a_smem_rows * a_pitch_;
    b_stage_ = d.b_smem_rows * b_pitch_;
    bf16_ = p_.a_type == "bf16";
    int4_ = p_.a_type == "int4" || p_.a_type == "u4";
    int8_ = p_.a_type == "int8" || int4_;  // integer: int32 accumulators, fragments as they are
    elem_bytes_ = int4_ ? 1 : element_bytes(p_.a_type);
    begin_kernel(name, 32 * warps_m_ * warps_n_, p_.blocks_per_sm, 128);
    body();

    return launch_info(name, stages_ * (a_stage_ + b_stage_));
  }

  Value* smem_offset(Value* row, Value* chunk, std::int64_t pitch) {
    return KernelBuilder::smem_offset(row, chunk, pitch, swz_);
  }

  Value* acc_at(std::int64_t e) { return b_.CreateConstInBoundsGEP2_32(acc_ty_, acc_, 0, static_cast<unsigned>(e)); }

  // ---- global → shared ------------------------------------------------------------------------
  /// Issue the cp.async copies of K tile `kt` into stage `stage` (both i32 values); loads outside
  /// the matrices (M, N and K tails, and tiles past the last) are zero-filled.
  void load_tile(Value* stage, Value* kt, Value* valid_tile) {
    load_stage({bm_, bn_, bk_, a_pitch_, b_pitch_, a_stage_, b_stage_, stages_, elem_bytes_, swz_, int4_}, stage, kt,
               valid_tile);
  }

  // ---- shared → registers → tensor cores --------------------------------------------------------
  void compute_stage(Value* stage) {
    // ldmatrix is overloaded on the shared-memory pointer type.
    llvm::Type* sptr = llvm::PointerType::get(ctx_, 3);
    auto* ldA = llvm::Intrinsic::getDeclaration(&m_, llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16, {sptr});
    auto* ldB4 =
        llvm::Intrinsic::getDeclaration(&m_, llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16, {sptr});
    auto* ldB2 =
        llvm::Intrinsic::getDeclaration(&m_, llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x2_trans_b16, {sptr});
    Value* a_base = b_.CreateMul(stage, c32(a_stage_));
    Value* b_base = b_.CreateAdd(c32(stages_ * a_stage_), b_.CreateMul(stage, c32(b_stage_)));
    Value* lane_row = b_.CreateAnd(lane_, c32(15));  // ldmatrix: lanes 0-15 rows, 16-31 next chunk
    Value* lane_chunk = b_.CreateLShr(lane_, 4);
    auto* ldB4n = llvm::Intrinsic::getDeclaration(&m_, llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16, {sptr});
    auto* ldB2n = llvm::Intrinsic::getDeclaration(&m_, llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x2_b16, {sptr});
    const bool b_rm = p_.index.b_row_major;
    // One instruction step is 32 bytes of K (16 fp16/bf16, 32 int8 or 64 4-bit elements): two
    // 16-byte chunks. A 4-bit fragment holds the bytes an int8 one does, two k to each.
    for (std::int64_t kk = 0; kk < bk_ / p_.instr_k; ++kk) {
      std::vector<std::array<Value*, 4>> af(fm_);
      for (std::int64_t i = 0; i < fm_; ++i) {
        Value* row = b_.CreateAdd(warp_row_, c32(i * 16));
        row = b_.CreateAdd(row, lane_row);
        Value* ch = b_.CreateAdd(c32(kk * 2), lane_chunk);
        Value* ptr = smem_ptr(b_.CreateAdd(a_base, smem_offset(row, ch, a_pitch_)));
        Value* r = b_.CreateCall(ldA, {ptr});
        for (unsigned j = 0; j < 4; ++j) af[i][j] = b_.CreateExtractValue(r, j);
      }
      std::vector<std::array<Value*, 2>> bfr(fn_);
      for (std::int64_t j = 0; j < fn_ && !b_rm; j += 2) {
        // B^T tile (N rows, K contiguous): ldmatrix without transpose gives the "col" fragment.
        // x4: lanes 0-7 and 8-15 address the two K chunks of fragment j, 16-31 those of j + 1.
        Value* lane8 = b_.CreateAnd(lane_, c32(7));
        Value* half_k = b_.CreateAnd(b_.CreateLShr(lane_, 3), c32(1));
        Value* ch = b_.CreateAdd(c32(kk * 2), half_k);
        if (j + 1 < fn_) {
          Value* nrow = b_.CreateAdd(b_.CreateAdd(warp_col_, c32(j * 8)),
                                     b_.CreateAdd(b_.CreateShl(b_.CreateLShr(lane_, 4), 3), lane8));
          Value* r = b_.CreateCall(ldB4n, {smem_ptr(b_.CreateAdd(b_base, smem_offset(nrow, ch, b_pitch_)))});
          bfr[j] = {b_.CreateExtractValue(r, 0), b_.CreateExtractValue(r, 1)};
          bfr[j + 1] = {b_.CreateExtractValue(r, 2), b_.CreateExtractValue(r, 3)};
        } else {
          Value* nrow = b_.CreateAdd(b_.CreateAdd(warp_col_, c32(j * 8)), lane8);
          Value* r = b_.CreateCall(ldB2n, {smem_ptr(b_.CreateAdd(b_base, smem_offset(nrow, ch, b_pitch_)))});
          bfr[j] = {b_.CreateExtractValue(r, 0), b_.CreateExtractValue(r, 1)};
        }
      }
      for (std::int64_t j = 0; j < fn_ && b_rm; j += 2) {
        Value* krow = b_.CreateAdd(c32(kk * 16), lane_row);
        if (j + 1 < fn_) {
          Value* ch = b_.CreateAdd(b_.CreateLShr(b_.CreateAdd(warp_col_, c32(j * 8)), 3), lane_chunk);
          Value* ptr = smem_ptr(b_.CreateAdd(b_base, smem_offset(krow, ch, b_pitch_)));
          Value* r = b_.CreateCall(ldB4, {ptr});
          bfr[j] = {b_.CreateExtractValue(r, 0), b_.CreateExtractValue(r, 1)};
          bfr[j + 1] = {b_.CreateExtractValue(r, 2), b_.CreateExtractValue(r, 3)};
        } else {
          // x2: lanes 0-15 address k rows 0-15 of one 8-column chunk (the rest are ignored).
          Value* ch = b_.CreateLShr(b_.CreateAdd(warp_col_, c32(j * 8)), 3);
          Value* ptr = smem_ptr(b_.CreateAdd(b_base, smem_offset(krow, ch, b_pitch_)));
          Value* r = b_.CreateCall(ldB2, {ptr});
          bfr[j] = {b_.CreateExtractValue(r, 0), b_.CreateExtractValue(r, 1)};
        }
      }
      for (std::int64_t i = 0; i < fm_; ++i)
        for (std::int64_t j = 0; j < fn_; ++j) mma(i, j, af[i], bfr[j]);
    }
  }

  void mma(std::int64_t i, std::int64_t j, const std::array<Value*, 4>& a, const std::array<Value*, 2>& bb) {
    auto* f32 = acc_elem_;
    std::vector<Value*> args;
    if (bf16_ || int8_) {
      for (Value* v : a) args.push_back(v);
      for (Value* v : bb) args.push_back(v);
    } else {
      auto* h2 = llvm::FixedVectorType::get(b_.getHalfTy(), 2);
      for (Value* v : a) args.push_back(b_.CreateBitCast(v, h2));
      for (Value* v : bb) args.push_back(b_.CreateBitCast(v, h2));
    }
    std::int64_t base = (i * fn_ + j) * 4;
    for (unsigned e = 0; e < 4; ++e) args.push_back(b_.CreateLoad(f32, acc_at(base + e)));
    auto* f = intr(int4_   ? (p_.a_type == "u4" ? llvm::Intrinsic::nvvm_mma_m16n8k64_row_col_u4
                                                : llvm::Intrinsic::nvvm_mma_m16n8k64_row_col_s4)
                   : int8_ ? llvm::Intrinsic::nvvm_mma_m16n8k32_row_col_s8  // D and C in s32
                   : bf16_ ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16
                           : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32);  // D and C in f32
    Value* r = b_.CreateCall(f, args);
    for (unsigned e = 0; e < 4; ++e) b_.CreateStore(b_.CreateExtractValue(r, e), acc_at(base + e));
  }

  // ---- epilogue ---------------------------------------------------------------------------------
  void epilogue() {
    store_m16n8_fragments(warp_row_, warp_col_, fm_, fn_,
                          [&](std::int64_t e) { return b_.CreateLoad(acc_elem_, acc_at(e)); });
  }

  // ---- the kernel -------------------------------------------------------------------------------
  void body() {
    const IndexDesc& d = p_.index;
    acc_elem_ = int8_ ? b_.getInt32Ty() : b_.getFloatTy();
    acc_ty_ = llvm::ArrayType::get(acc_elem_, static_cast<std::uint64_t>(fm_ * fn_ * 4));
    acc_ = b_.CreateAlloca(acc_ty_, nullptr, "acc");
    Value* zero = int8_ ? static_cast<Value*>(b_.getInt32(0)) : llvm::ConstantFP::get(acc_elem_, 0.0);
    for (std::int64_t e = 0; e < fm_ * fn_ * 4; ++e) b_.CreateStore(zero, acc_at(e));
    tid_ = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
    lane_ = b_.CreateAnd(tid_, c32(31));
    Value* warp = b_.CreateLShr(tid_, 5);
    // Warps are laid out warp_n-fastest.
    Value* warp_m = b_.CreateUDiv(warp, c32(warps_n_));
    Value* warp_n = b_.CreateURem(warp, c32(warps_n_));
    warp_row_ = b_.CreateMul(warp_m, c32(coeff(d.c_row, "warp_m")));
    warp_col_ = b_.CreateMul(warp_n, c32(coeff(d.c_col, "warp_n")));
    block_origin();

    cp_async_main_loop(
        stages_, k_tile_count(bk_, k_tiles_), [&](Value* st, Value* kt, Value* ok) { load_tile(st, kt, ok); },
        [&](Value* st) { compute_stage(st); });
    epilogue();
    b_.CreateRetVoid();
  }

  llvm::ArrayType* acc_ty_ = nullptr;
  Value *warp_row_ = nullptr, *warp_col_ = nullptr, *acc_ = nullptr;
  std::int64_t bm_ = 0, bn_ = 0, bk_ = 0, warps_m_ = 1, warps_n_ = 1, fm_ = 1, fn_ = 1;
  std::int64_t k_tiles_ = 1, stages_ = 1, pad_ = 0, a_pitch_ = 0, b_pitch_ = 0;
  std::int64_t a_stage_ = 0, b_stage_ = 0;
  int swz_ = 0;
  bool bf16_ = false, int8_ = false, int4_ = false;
  std::int64_t elem_bytes_ = 2;
  llvm::Type* acc_elem_ = nullptr;
};

}  // namespace

LaunchInfo build_mma_sync(const Plan& plan, llvm::LLVMContext& ctx, llvm::Module& m, const std::string& name) {
  return MmaSyncKernel(plan, ctx, m).build(name);
}

std::string mma_sync_unsupported(const Plan& p, const hw::HwModel& hw) {
  if (!hw.gpu.has_cp_async)
    return fmt::format("{} has no cp.async: its mma.sync generator is not written yet", hw.name);
  const bool int4 = p.a_type == "int4" || p.a_type == "u4";
  const std::int64_t ik = int4 ? 64 : p.a_type == "int8" ? 32 : 16;
  if (int4 && (p.K % 2 != 0 || (p.k_dynamic && (p.K_min % 2 != 0))))
    return fmt::format("K = {} is odd: {} operands are packed two k to a byte", p.k_dynamic ? p.K_min : p.K, p.a_type);
  if (p.instr_m != 16 || p.instr_n != 8 || p.instr_k != ik)
    return fmt::format("only the m16n8k{} instruction is generated for {}", ik, p.a_type);
  if (p.tile_k % ik != 0 || p.tile_n % 8 != 0)
    return fmt::format("tile_k must be a multiple of {} and tile_n of 8", ik);
  return "";
}

}  // namespace dg::codegen
