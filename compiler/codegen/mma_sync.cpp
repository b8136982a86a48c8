// The mma.sync kernel family (sm_80 and later): a multi-stage cp.async pipeline into swizzled or
// padded shared memory, ldmatrix fragment loads, mma.sync m16n8k16 (fp16/bf16 → fp32), predicated
// M, N and K tails (zero-filled loads), rasterized block order, and an epilogue that casts and
// stores with predication. Block, warp and fragment offsets come from the plan's index description
// (plan.index), the one the verify stage proved.
#include <fmt/format.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <map>

#include "codegen/nvptx_emit.h"
#include "codegen/ptx_backend.h"
#include "support/error.h"

namespace dg::codegen {

namespace {

using llvm::IRBuilder;
using llvm::Value;

std::int64_t coeff(const AffineMap& m, const std::string& var) {
  for (const auto& t : m.terms)
    if (t.var == var) return t.coeff;
  return 0;
}

std::int64_t extent(const std::vector<IndexVar>& vars, const std::string& name) {
  for (const auto& v : vars)
    if (v.name == name) return v.extent;
  return 1;
}

class MmaSyncKernel {
 public:
  MmaSyncKernel(const Plan& p, const hw::HwModel& hw, llvm::LLVMContext& ctx, llvm::Module& m)
      : p_(p), ctx_(ctx), m_(m), b_(ctx) {
    (void)hw;
  }

  LaunchInfo build(const std::string& name) {
    const IndexDesc& d = p_.index;
    bm_ = p_.tile_m;
    bn_ = p_.tile_n;
    bk_ = p_.tile_k;
    wm_ = coeff(d.c_row, "warp_m");  // warp tile extents, as proved
    wn_ = coeff(d.c_col, "warp_n");
    warps_m_ = extent(d.out_vars, "warp_m");
    warps_n_ = extent(d.out_vars, "warp_n");
    fm_ = extent(d.out_vars, "frag_m");
    fn_ = extent(d.out_vars, "frag_n");
    threads_ = 32 * warps_m_ * warps_n_;
    grid_m_ = extent(d.out_vars, "block_m");
    grid_n_ = extent(d.out_vars, "block_n");
    k_tiles_ = extent(d.k_vars, "k_tile");
    stages_ = p_.stages;
    pad_ = d.smem_row_pad_bytes;
    swz_ = d.swizzle_bits;
    a_pitch_ = d.a_smem_row_bytes + pad_;
    b_pitch_ = d.b_smem_row_bytes + pad_;
    a_stage_ = d.a_smem_rows * a_pitch_;
    b_stage_ = d.b_smem_rows * b_pitch_;
    bf16_ = p_.a_type == "bf16";

    auto* i32 = b_.getInt32Ty();
    auto* gptr = llvm::PointerType::get(ctx_, 1);
    std::vector<llvm::Type*> params = {gptr, gptr, gptr, i32, i32, i32};
    fn_ir_ = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), params, false),
                                    llvm::Function::ExternalLinkage, name, m_);
    fn_ir_->setCallingConv(llvm::CallingConv::PTX_Kernel);
    const char* names[] = {"A", "B", "C", "M", "N", "K"};
    for (unsigned i = 0; i < 6; ++i) fn_ir_->getArg(i)->setName(names[i]);
    for (unsigned i = 0; i < 3; ++i) fn_ir_->addParamAttr(i, llvm::Attribute::NoAlias);
    annotate(name);
    smem_ = new llvm::GlobalVariable(m_, llvm::ArrayType::get(b_.getInt8Ty(), 0), false,
                                     llvm::GlobalValue::ExternalLinkage, nullptr, "dg_smem", nullptr,
                                     llvm::GlobalValue::NotThreadLocal, 3);
    smem_->setAlignment(llvm::Align(128));

    auto* entry = llvm::BasicBlock::Create(ctx_, "entry", fn_ir_);
    b_.SetInsertPoint(entry);
    body();

    LaunchInfo li;
    li.kernel = name;
    li.grid[0] = static_cast<std::uint32_t>(grid_m_ * grid_n_);
    li.block[0] = static_cast<std::uint32_t>(threads_);
    li.smem_bytes = static_cast<std::uint32_t>(stages_ * (a_stage_ + b_stage_));
    return li;
  }

 private:
  // ---- helpers ----------------------------------------------------------------------------------
  Value* c32(std::int64_t v) { return b_.getInt32(static_cast<std::uint32_t>(v)); }
  Value* sreg(llvm::Intrinsic::ID id) { return b_.CreateCall(llvm::Intrinsic::getDeclaration(&m_, id)); }
  llvm::Function* intr(llvm::Intrinsic::ID id) { return llvm::Intrinsic::getDeclaration(&m_, id); }

  void annotate(const std::string& name) {
    (void)name;
    auto* md = m_.getOrInsertNamedMetadata("nvvm.annotations");
    auto add = [&](const char* key, std::int64_t v) {
      llvm::Metadata* ops[] = {llvm::ValueAsMetadata::get(fn_ir_), llvm::MDString::get(ctx_, key),
                               llvm::ValueAsMetadata::get(b_.getInt32(static_cast<std::uint32_t>(v)))};
      md->addOperand(llvm::MDNode::get(ctx_, ops));
    };
    add("kernel", 1);
    add("maxntidx", threads_);
    add("minctasm", p_.blocks_per_sm);
  }

  /// Byte offset of (row, 16-byte chunk) in a tile with `pitch`, through the plan's layout: the
  /// same function the solver counted conflicts on and the verifier proved conflict-free.
  Value* smem_offset(Value* row, Value* chunk, std::int64_t pitch) {
    Value* off = b_.CreateAdd(b_.CreateMul(row, c32(pitch)), b_.CreateShl(chunk, 4));
    if (swz_ > 0) {
      Value* sel = b_.CreateAnd(b_.CreateLShr(off, 7), c32((1 << swz_) - 1));
      off = b_.CreateXor(off, b_.CreateShl(sel, 4));
    }
    return off;
  }

  Value* acc_at(std::int64_t e) { return b_.CreateConstInBoundsGEP2_32(acc_ty_, acc_, 0, static_cast<unsigned>(e)); }

  Value* smem_ptr(Value* byte_offset) {
    return b_.CreateGEP(b_.getInt8Ty(), smem_, byte_offset);
  }

  // ---- global → shared ------------------------------------------------------------------------
  /// Issue the cp.async copies of K tile `kt` into stage `stage` (both i32 values); loads outside
  /// the matrices (M, N and K tails, and tiles past the last) are zero-filled.
  void load_tile(Value* stage, Value* kt, Value* valid_tile) {
    const IndexDesc& d = p_.index;
    Value* k0 = b_.CreateMul(kt, c32(bk_));
    // A: tile_m rows (M) × tile_k columns (K).
    load_operand(fn_ir_->getArg(0), b_.CreateMul(stage, c32(a_stage_)), bm_, bk_, a_pitch_, row_base_, k0,
                 fn_ir_->getArg(3), fn_ir_->getArg(5), d.lda, valid_tile);
    // B: tile_k rows (K) × tile_n columns (N).
    load_operand(fn_ir_->getArg(1), b_.CreateAdd(c32(stages_ * a_stage_), b_.CreateMul(stage, c32(b_stage_))), bk_,
                 bn_, b_pitch_, k0, col_base_, fn_ir_->getArg(5), fn_ir_->getArg(4), d.ldb, valid_tile);
    b_.CreateCall(intr(llvm::Intrinsic::nvvm_cp_async_commit_group));
  }

  /// cp.async copies of one row-major operand tile (`rows` × `cols` elements, 8 per 16-byte chunk)
  /// from global rows [row0, row0 + rows) and columns [col0, col0 + cols) into shared memory at
  /// `base`; chunks outside the matrix (row >= row_limit or col >= col_limit) are zero-filled.
  void load_operand(Value* global, Value* base, std::int64_t rows, std::int64_t cols, std::int64_t pitch, Value* row0,
                    Value* col0, Value* row_limit, Value* col_limit, std::int64_t ld, Value* valid_tile) {
    auto* cp = intr(llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16_s);
    const std::int64_t cpr = cols / 8, total = rows * cpr;
    for (std::int64_t q0 = 0; q0 < total; q0 += threads_) {
      Value* q = b_.CreateAdd(tid_, c32(q0));
      Value* row = b_.CreateUDiv(q, c32(cpr));
      Value* ch = b_.CreateURem(q, c32(cpr));
      Value* gr = b_.CreateAdd(row0, row);
      Value* gc = b_.CreateAdd(col0, b_.CreateShl(ch, 3));
      Value* ok =
          b_.CreateAnd(b_.CreateAnd(b_.CreateICmpULT(gr, row_limit), b_.CreateICmpULT(gc, col_limit)), valid_tile);
      Value* elem = b_.CreateAdd(b_.CreateMul(b_.CreateSelect(ok, gr, c32(0)), c32(ld)), b_.CreateSelect(ok, gc, c32(0)));
      Value* src = b_.CreateGEP(b_.getInt16Ty(), global, b_.CreateZExt(elem, b_.getInt64Ty()));
      Value* dst = smem_ptr(b_.CreateAdd(base, smem_offset(row, ch, pitch)));
      emit_guarded(b_.CreateICmpULT(q, c32(total)), total % threads_ != 0 && q0 + threads_ > total,
                   [&] { b_.CreateCall(cp, {dst, src, b_.CreateSelect(ok, c32(16), c32(0))}); });
    }
  }

  template <typename F>
  void emit_guarded(Value* cond, bool needed, F&& f) {
    if (!needed) {
      f();
      return;
    }
    auto* then = llvm::BasicBlock::Create(ctx_, "guard", fn_ir_);
    auto* cont = llvm::BasicBlock::Create(ctx_, "guard.end", fn_ir_);
    b_.CreateCondBr(cond, then, cont);
    b_.SetInsertPoint(then);
    f();
    b_.CreateBr(cont);
    b_.SetInsertPoint(cont);
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
    Value* lane_row = b_.CreateAnd(lane_, c32(15));   // ldmatrix: lanes 0-15 rows, 16-31 next chunk
    Value* lane_chunk = b_.CreateLShr(lane_, 4);
    for (std::int64_t kk = 0; kk < bk_ / 16; ++kk) {
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
      for (std::int64_t j = 0; j < fn_; j += 2) {
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
    auto* f32 = b_.getFloatTy();
    std::vector<Value*> args;
    if (bf16_) {
      for (Value* v : a) args.push_back(v);
      for (Value* v : bb) args.push_back(v);
    } else {
      auto* h2 = llvm::FixedVectorType::get(b_.getHalfTy(), 2);
      for (Value* v : a) args.push_back(b_.CreateBitCast(v, h2));
      for (Value* v : bb) args.push_back(b_.CreateBitCast(v, h2));
    }
    std::int64_t base = (i * fn_ + j) * 4;
    for (unsigned e = 0; e < 4; ++e)
      args.push_back(b_.CreateLoad(f32, acc_at(base + e)));
    auto* f = intr(bf16_ ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16
                         : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32);  // D and C in f32
    Value* r = b_.CreateCall(f, args);
    for (unsigned e = 0; e < 4; ++e)
      b_.CreateStore(b_.CreateExtractValue(r, e), acc_at(base + e));
  }

  // ---- epilogue ---------------------------------------------------------------------------------
  void epilogue() {
    Value* M = fn_ir_->getArg(3);
    Value* N = fn_ir_->getArg(4);
    auto* f32 = b_.getFloatTy();
    const IndexDesc& d = p_.index;
    Value* r0 = b_.CreateLShr(lane_, 2);                 // accumulator row within the fragment
    Value* c0 = b_.CreateShl(b_.CreateAnd(lane_, c32(3)), 1);  // first of two columns
    for (std::int64_t i = 0; i < fm_; ++i)
      for (std::int64_t j = 0; j < fn_; ++j)
        for (unsigned half = 0; half < 2; ++half) {
          Value* gm = b_.CreateAdd(b_.CreateAdd(row_base_, warp_row_), b_.CreateAdd(c32(i * 16 + half * 8), r0));
          Value* gn = b_.CreateAdd(b_.CreateAdd(col_base_, warp_col_), b_.CreateAdd(c32(j * 8), c0));
          Value* ok = b_.CreateAnd(b_.CreateICmpULT(gm, M), b_.CreateICmpULT(gn, N));
          std::int64_t base = (i * fn_ + j) * 4 + half * 2;
          Value* v0 = b_.CreateLoad(f32, acc_at(base));
          Value* v1 = b_.CreateLoad(f32, acc_at(base + 1));
          Value* elem = b_.CreateAdd(b_.CreateMul(gm, c32(d.ldc)), gn);
          emit_guarded(ok, true, [&] {
            Value* idx = b_.CreateZExt(elem, b_.getInt64Ty());
            if (p_.c_type == "fp32") {
              auto* v2 = llvm::FixedVectorType::get(f32, 2);
              Value* vec = b_.CreateInsertElement(b_.CreateInsertElement(llvm::PoisonValue::get(v2), v0, uint64_t(0)), v1, uint64_t(1));
              b_.CreateAlignedStore(vec, b_.CreateGEP(f32, fn_ir_->getArg(2), idx), llvm::Align(8));
            } else if (p_.c_type == "bf16") {
              Value* pair = b_.CreateCall(intr(llvm::Intrinsic::nvvm_ff2bf16x2_rn), {v1, v0});  // hi, lo
              b_.CreateAlignedStore(b_.CreateBitCast(pair, b_.getInt32Ty()),
                                    b_.CreateGEP(b_.getInt16Ty(), fn_ir_->getArg(2), idx), llvm::Align(4));
            } else {
              auto* h2 = llvm::FixedVectorType::get(b_.getHalfTy(), 2);
              Value* vec = b_.CreateInsertElement(
                  b_.CreateInsertElement(llvm::PoisonValue::get(h2), b_.CreateFPTrunc(v0, b_.getHalfTy()), uint64_t(0)),
                  b_.CreateFPTrunc(v1, b_.getHalfTy()), uint64_t(1));
              b_.CreateAlignedStore(b_.CreateBitCast(vec, b_.getInt32Ty()),
                                    b_.CreateGEP(b_.getInt16Ty(), fn_ir_->getArg(2), idx), llvm::Align(4));
            }
          });
        }
  }

  // ---- the kernel -------------------------------------------------------------------------------
  void body() {
    const IndexDesc& d = p_.index;
    auto* f32 = b_.getFloatTy();
    acc_ty_ = llvm::ArrayType::get(f32, static_cast<std::uint64_t>(fm_ * fn_ * 4));
    acc_ = b_.CreateAlloca(acc_ty_, nullptr, "acc");
    for (std::int64_t e = 0; e < fm_ * fn_ * 4; ++e) b_.CreateStore(llvm::ConstantFP::get(f32, 0.0), acc_at(e));
    tid_ = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
    lane_ = b_.CreateAnd(tid_, c32(31));
    Value* warp = b_.CreateLShr(tid_, 5);
    // Warps are laid out warp_n-fastest.
    Value* warp_m = b_.CreateUDiv(warp, c32(warps_n_));
    Value* warp_n = b_.CreateURem(warp, c32(warps_n_));
    warp_row_ = b_.CreateMul(warp_m, c32(coeff(d.c_row, "warp_m")));
    warp_col_ = b_.CreateMul(warp_n, c32(coeff(d.c_col, "warp_n")));
    // Rasterized block order: groups of raster_group block rows, column by column within a group.
    Value* id = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
    std::int64_t g = std::max<std::int64_t>(1, std::min(p_.raster_group, grid_m_));
    Value* per_group = c32(g * grid_n_);
    Value* group = b_.CreateUDiv(id, per_group);
    Value* first_m = b_.CreateMul(group, c32(g));
    Value* rows_left = b_.CreateSub(c32(grid_m_), first_m);
    Value* gsize = b_.CreateSelect(b_.CreateICmpULT(rows_left, c32(g)), rows_left, c32(g));
    Value* in_group = b_.CreateURem(id, per_group);
    Value* block_m = b_.CreateAdd(first_m, b_.CreateURem(in_group, gsize));
    Value* block_n = b_.CreateUDiv(in_group, gsize);
    row_base_ = b_.CreateMul(block_m, c32(coeff(d.c_row, "block_m")));
    col_base_ = b_.CreateMul(block_n, c32(coeff(d.c_col, "block_n")));

    auto* wait = intr(llvm::Intrinsic::nvvm_cp_async_wait_group);
    auto* bar = intr(llvm::Intrinsic::nvvm_barrier0);
    Value* tiles = c32(k_tiles_);
    if (stages_ == 1) {
      loop(tiles, [&](Value* kt) {
        load_tile(c32(0), kt, b_.getTrue());
        b_.CreateCall(wait, {c32(0)});
        b_.CreateCall(bar);
        compute_stage(c32(0));
        b_.CreateCall(bar);
      });
    } else {
      for (std::int64_t s = 0; s + 1 < stages_; ++s) load_tile(c32(s), c32(s), b_.getInt1(s < k_tiles_));
      loop(tiles, [&](Value* kt) {
        b_.CreateCall(wait, {c32(stages_ - 2)});
        b_.CreateCall(bar);
        Value* next = b_.CreateAdd(kt, c32(stages_ - 1));
        load_tile(b_.CreateURem(next, c32(stages_)), next, b_.CreateICmpULT(next, tiles));
        compute_stage(b_.CreateURem(kt, c32(stages_)));
      });
      b_.CreateCall(wait, {c32(0)});
    }
    epilogue();
    b_.CreateRetVoid();
  }

  template <typename F>
  void loop(Value* count, F&& f) {
    auto* pre = b_.GetInsertBlock();
    auto* head = llvm::BasicBlock::Create(ctx_, "k.loop", fn_ir_);
    auto* exit = llvm::BasicBlock::Create(ctx_, "k.done", fn_ir_);
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    auto* kt = b_.CreatePHI(b_.getInt32Ty(), 2, "kt");
    kt->addIncoming(c32(0), pre);
    f(kt);
    Value* next = b_.CreateAdd(kt, c32(1));
    kt->addIncoming(next, b_.GetInsertBlock());
    b_.CreateCondBr(b_.CreateICmpULT(next, count), head, exit);
    b_.SetInsertPoint(exit);
  }

  const Plan& p_;
  llvm::LLVMContext& ctx_;
  llvm::Module& m_;
  IRBuilder<> b_;
  llvm::Function* fn_ir_ = nullptr;
  llvm::GlobalVariable* smem_ = nullptr;
  llvm::ArrayType* acc_ty_ = nullptr;
  Value *tid_ = nullptr, *lane_ = nullptr, *warp_row_ = nullptr, *warp_col_ = nullptr, *row_base_ = nullptr,
        *col_base_ = nullptr, *acc_ = nullptr;
  std::int64_t bm_ = 0, bn_ = 0, bk_ = 0, wm_ = 0, wn_ = 0, warps_m_ = 1, warps_n_ = 1, fm_ = 1, fn_ = 1, threads_ = 32;
  std::int64_t grid_m_ = 1, grid_n_ = 1, k_tiles_ = 1, stages_ = 1, pad_ = 0, a_pitch_ = 0, b_pitch_ = 0;
  std::int64_t a_stage_ = 0, b_stage_ = 0;
  int swz_ = 0;
  bool bf16_ = false;
};

class MmaSyncBackend : public PtxBackend {
 public:
  explicit MmaSyncBackend(const hw::HwModel& hw) : hw_(hw) {}

  Artifacts generate(const Plan& plan) override {
    if (std::string why = unsupported_reason(plan, hw_); !why.empty()) throw UserError(why);
    llvm::LLVMContext ctx;
    auto m = std::make_unique<llvm::Module>("deepgemm", ctx);
    std::string name = fmt::format("dg_gemm_{}_{}x{}x{}", plan.a_type, plan.tile_m, plan.tile_n, plan.tile_k);
    MmaSyncKernel k(plan, hw_, ctx, *m);
    Artifacts a;
    a.launch = k.build(name);
    const auto& g = hw_.gpu;
    std::string arch = g.arch;
    a.launch.compute_capability = static_cast<std::uint32_t>(std::stoi(arch.substr(3, 2)));
    a.llvm_ir = print_ir(*m);
    a.ptx = emit_ptx(*m, arch, fmt::format("+ptx{}{}", g.ptx_version_major, g.ptx_version_minor));
    a.ptxas = run_ptxas(a.ptx, arch);
    return a;
  }

 private:
  const hw::HwModel& hw_;
};

}  // namespace

std::string unsupported_reason(const Plan& p, const hw::HwModel& hw) {
  if (!hw.is_gpu()) return "the PTX backend generates code for GPU targets only";
  if (p.family != "mma.sync") return fmt::format("the '{}' family has no PTX generator yet (mma.sync only)", p.family);
  if (!hw.gpu.has_cp_async) return fmt::format("{} has no cp.async: its mma.sync generator is not written yet", hw.name);
  if (!p.weight_conversion.empty())
    return fmt::format("in-register conversion of {} weights is not generated yet", p.b_type);
  if (p.a_type != p.b_type || (p.a_type != "fp16" && p.a_type != "bf16") || p.acc_type != "fp32")
    return "the mma.sync generator handles fp16 and bf16 inputs with fp32 accumulation only";
  if (p.c_type != "fp16" && p.c_type != "bf16" && p.c_type != "fp32") return "outputs are fp16, bf16 or fp32";
  if (!p.index.a_row_major || !p.index.b_row_major || !p.index.c_row_major)
    return "the mma.sync generator handles row-major A, B and C only";
  if (p.split_k != 1) return "split-K reduction is not generated yet";
  if (p.batch != 1) return "batched GEMM is not generated yet";
  if (p.k_dynamic) return "a run-time K range is not generated yet for GPUs";
  if (p.K % 8 != 0 || p.N % 8 != 0)
    return fmt::format("16-byte loads need K and N to be multiples of 8 (K = {}, N = {})", p.K, p.N);
  if (p.epilogue != "none") return fmt::format("the fused '{}' epilogue is not generated yet", p.epilogue);
  if (p.instr_m != 16 || p.instr_n != 8 || p.instr_k != 16) return "only the m16n8k16 instruction is generated";
  if (p.tile_k % 16 != 0 || p.tile_n % 8 != 0) return "tile_k must be a multiple of 16 and tile_n of 8";
  return "";
}

std::unique_ptr<PtxBackend> make_ptx_backend(const hw::HwModel& model) {
  return std::make_unique<MmaSyncBackend>(model);
}

}  // namespace dg::codegen
