#include "codegen/kernel_builder.h"

#include "codegen/inline_ptx.h"
#include "codegen/launch_record.h"
#include "sema/dtype.h"
#include "support/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace dg::codegen {

std::int64_t element_bits(const std::string& type) {
  const std::optional<DType> d = parse_dtype(type);
  DG_INTERNAL_ASSERT(d.has_value(), "an operand type sema does not know: " + type);
  return d->bits;
}

std::int64_t element_bytes(const std::string& type) {
  const std::optional<DType> d = parse_dtype(type);
  DG_INTERNAL_ASSERT(d.has_value() && d->bits % 8 == 0, "an operand type of whole bytes: " + type);
  return d->bits / 8;
}

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

void KernelBuilder::begin_kernel(const std::string& name, std::int64_t threads, std::int64_t min_blocks,
                                 std::uint64_t smem_align, unsigned tensor_maps, bool workspace) {
  threads_ = threads;
  grid_m_ = extent(p_.index.out_vars, "block_m");
  grid_n_ = extent(p_.index.out_vars, "block_n");
  auto* i32 = b_.getInt32Ty();
  auto* gptr = llvm::PointerType::get(ctx_, 1);
  // Parameters: the operands' pointers in the launch record's order (A, B, C, then bias with a bias
  // epilogue, then sc_a and sc_b with per-tensor or fine-grained scales, sc_b alone with 4-bit
  // weights' group scales), the workspace's where the launch record has one, then M, N and K; the
  // runtime passes them so.
  std::vector<const char*> names = {"A", "B", "C"};
  if (has_bias()) names.push_back("bias");
  if (p_.scale_a != "none") names.push_back("sc_a");  // per-tensor, or fp8's per-token groups
  if (p_.scale_b != "none") names.push_back("sc_b");  // per-tensor, or 4-bit weights' group scales
  if (p_.reads_c_in()) names.push_back("C_in");       // beta · C_in in the epilogue
  if (workspace) names.push_back("ws");               // not an operand: launch_format.h's workspace
  pointers_ = static_cast<unsigned>(names.size());
  std::vector<llvm::Type*> params(pointers_, gptr);
  params.insert(params.end(), {i32, i32, i32});
  // Tensor maps (launch_format.h): 128 bytes by value, 64-byte aligned, after M, N and K.
  auto* map_ty = llvm::ArrayType::get(b_.getInt8Ty(), 128);
  for (unsigned i = 0; i < tensor_maps; ++i) params.push_back(llvm::PointerType::get(ctx_, 0));
  kernel_ = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), params, false),
                                   llvm::Function::ExternalLinkage, name, m_);
  kernel_->setCallingConv(llvm::CallingConv::PTX_Kernel);
  names.insert(names.end(), {"M", "N", "K"});
  for (unsigned i = 0; i < names.size(); ++i) kernel_->getArg(i)->setName(names[i]);
  const unsigned first_map = pointers_ + 3;
  for (unsigned i = 0; i < tensor_maps; ++i) {
    kernel_->getArg(first_map + i)->setName(i == 0 ? "tmap_A" : i == 1 ? "tmap_B" : "tmap_C");
    kernel_->addParamAttr(first_map + i, llvm::Attribute::getWithByValType(ctx_, map_ty));
    kernel_->addParamAttr(first_map + i, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(64)));
  }
  // Every pointer is noalias, C_in too, which may be C's own buffer: each element of C_in is read
  // by the one thread that then writes that element of C, from the value read (a data dependence
  // no reordering breaks), and no thread reads an element another writes.
  for (unsigned i = 0; i < pointers_; ++i) kernel_->addParamAttr(i, llvm::Attribute::NoAlias);
  auto* md = m_.getOrInsertNamedMetadata("nvvm.annotations");
  auto add = [&](const char* key, std::int64_t v) {
    llvm::Metadata* ops[] = {llvm::ValueAsMetadata::get(kernel_), llvm::MDString::get(ctx_, key),
                             llvm::ValueAsMetadata::get(b_.getInt32(static_cast<std::uint32_t>(v)))};
    md->addOperand(llvm::MDNode::get(ctx_, ops));
  };
  add("kernel", 1);
  add("maxntidx", threads);
  add("minctasm", min_blocks);
  if (tensor_maps > 0) {
    // Read in place (cvta.param), never copied to local memory: the copy engine reads the map
    // from the parameter space. Indices are 1-based.
    std::vector<llvm::Metadata*> idx;
    for (unsigned i = 0; i < tensor_maps; ++i)
      idx.push_back(llvm::ValueAsMetadata::get(b_.getInt32(first_map + i + 1)));
    llvm::Metadata* ops[] = {llvm::ValueAsMetadata::get(kernel_), llvm::MDString::get(ctx_, "grid_constant"),
                             llvm::MDNode::get(ctx_, idx)};
    md->addOperand(llvm::MDNode::get(ctx_, ops));
  }
  smem_ =
      new llvm::GlobalVariable(m_, llvm::ArrayType::get(b_.getInt8Ty(), 0), false, llvm::GlobalValue::ExternalLinkage,
                               nullptr, "dg_smem", nullptr, llvm::GlobalValue::NotThreadLocal, 3);
  smem_->setAlignment(llvm::Align(smem_align));
  auto* entry = llvm::BasicBlock::Create(ctx_, "entry", kernel_);
  b_.SetInsertPoint(entry);
  // A batched GEMM: blockIdx.y is the batch; A, B and C advance by their batch strides (the launch
  // record sizes the operands with the same strides). 64-bit offsets: a batch may pass 4 GB.
  for (auto& p : batched_) p = nullptr;
  if (p_.batch > 1) {
    Value* batch = b_.CreateZExt(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y), b_.getInt64Ty());
    const std::string* types[3] = {&p_.a_type, &p_.b_type, &p_.c_type};
    for (int i = 0; i < 3; ++i) {
      const std::int64_t bytes = batch_stride(p_, i) * element_bits(*types[i]) / 8;  // 4-bit: K is even
      batched_[i] = b_.CreateGEP(b_.getInt8Ty(), kernel_->getArg(static_cast<unsigned>(i)),
                                 b_.CreateMul(batch, b_.getInt64(static_cast<std::uint64_t>(bytes))));
    }
  }
  // C_in (beta ≠ 0), advanced by C's batch stride like C.
  c_in_ = nullptr;
  if (p_.reads_c_in()) {
    for (unsigned i = 0; i < pointers_; ++i)
      if (kernel_->getArg(i)->getName() == "C_in") c_in_ = kernel_->getArg(i);
    DG_INTERNAL_ASSERT(c_in_ != nullptr, "the kernel has no C_in parameter");
    if (p_.batch > 1) {
      Value* batch = b_.CreateZExt(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y), b_.getInt64Ty());
      const std::int64_t bytes = batch_stride(p_, 2) * element_bytes(p_.c_type);
      c_in_ = b_.CreateGEP(b_.getInt8Ty(), c_in_, b_.CreateMul(batch, b_.getInt64(static_cast<std::uint64_t>(bytes))));
    }
  }
  // The per-tensor scales' product, read once in the entry block (which dominates every store).
  scale_ = nullptr;
  unsigned next = has_bias() ? 4 : 3;
  for (const std::string* kind : {&p_.scale_a, &p_.scale_b}) {
    if (*kind != "per_tensor") continue;
    Value* v = b_.CreateAlignedLoad(b_.getFloatTy(), arg(next++), llvm::Align(4));
    scale_ = scale_ ? b_.CreateFMul(scale_, v) : v;
  }
}

void KernelBuilder::block_origin() { block_origin(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x)); }

void KernelBuilder::block_origin(Value* id) {
  const IndexDesc& d = p_.index;
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
}

llvm::Value* KernelBuilder::smem_offset(Value* row, Value* chunk, std::int64_t pitch, int swizzle_bits) {
  Value* off = b_.CreateAdd(b_.CreateMul(row, c32(pitch)), b_.CreateShl(chunk, 4));
  if (swizzle_bits > 0) {
    Value* sel = b_.CreateAnd(b_.CreateLShr(off, 7), c32((1 << swizzle_bits) - 1));
    off = b_.CreateXor(off, b_.CreateShl(sel, 4));
  }
  return off;
}

void KernelBuilder::load_operand(Value* global, Value* base, std::int64_t rows, std::int64_t cols,
                                 const TileOffset& offset, Value* row0, Value* col0, Value* row_limit, Value* col_limit,
                                 Value* ld, Value* valid_tile, std::int64_t elem_bytes) {
  auto* cp = intr(llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16_s);
  const std::int64_t per_chunk = 16 / elem_bytes, cpr = cols / per_chunk, total = rows * cpr;
  llvm::Type* elem_ty = b_.getIntNTy(static_cast<unsigned>(elem_bytes * 8));
  // Rows that start on 16-byte boundaries and a column limit of whole chunks are copied by
  // cp.async, 16 bytes at a time. Otherwise (a K that is not a multiple of 16 bytes' elements,
  // with pad_k) each element is loaded on its own, zero past the limit, and the chunk is stored
  // with one 16-byte shared store at the same place: synchronous, but the same layout, so the
  // pipeline and the MMA code are unchanged. A run-time K is aligned by its rule (k_align).
  auto multiple = [&](Value* v) {
    auto* c = llvm::dyn_cast<llvm::ConstantInt>(v);
    return !c || c->getZExtValue() % static_cast<std::uint64_t>(per_chunk) == 0;
  };
  const bool by_element = !multiple(ld) || !multiple(col_limit);
  for (std::int64_t q0 = 0; q0 < total; q0 += threads_) {
    Value* q = b_.CreateAdd(tid_, c32(q0));
    Value* row = b_.CreateUDiv(q, c32(cpr));
    Value* ch = b_.CreateURem(q, c32(cpr));
    Value* gr = b_.CreateAdd(row0, row);
    Value* gc = b_.CreateAdd(col0, b_.CreateMul(ch, c32(per_chunk)));
    if (by_element) {
      Value* dst = smem_ptr(b_.CreateAdd(base, offset(row, ch)));
      emit_guarded(b_.CreateICmpULT(q, c32(total)), total % threads_ != 0 && q0 + threads_ > total, [&] {
        Value* row_ok = b_.CreateAnd(b_.CreateICmpULT(gr, row_limit), valid_tile);
        Value* row_start = b_.CreateMul(b_.CreateSelect(row_ok, gr, c32(0)), ld);
        // The chunk as four 32-bit words, each element shifted into its place.
        std::vector<Value*> words(4, c32(0));
        for (std::int64_t e = 0; e < per_chunk; ++e) {
          Value* col = b_.CreateAdd(gc, c32(e));
          Value* in = b_.CreateAnd(row_ok, b_.CreateICmpULT(col, col_limit));
          // Out of range: a load of the matrix's first element (always there), then a zero.
          Value* at = b_.CreateSelect(in, b_.CreateAdd(row_start, col), c32(0));
          Value* v = b_.CreateAlignedLoad(elem_ty, b_.CreateGEP(elem_ty, global, b_.CreateZExt(at, b_.getInt64Ty())),
                                          llvm::Align(static_cast<std::uint64_t>(elem_bytes)));
          v = b_.CreateZExt(b_.CreateSelect(in, v, llvm::ConstantInt::get(elem_ty, 0)), b_.getInt32Ty());
          const std::int64_t byte = e * elem_bytes;
          auto& w = words[static_cast<std::size_t>(byte / 4)];
          w = b_.CreateOr(w, byte % 4 ? b_.CreateShl(v, c32(8 * (byte % 4))) : v);
        }
        Value* chunk = llvm::PoisonValue::get(llvm::FixedVectorType::get(b_.getInt32Ty(), 4));
        for (unsigned i = 0; i < 4; ++i) chunk = b_.CreateInsertElement(chunk, words[i], std::uint64_t{i});
        b_.CreateAlignedStore(chunk, dst, llvm::Align(16));
      });
      continue;
    }
    Value* ok =
        b_.CreateAnd(b_.CreateAnd(b_.CreateICmpULT(gr, row_limit), b_.CreateICmpULT(gc, col_limit)), valid_tile);
    Value* elem = b_.CreateAdd(b_.CreateMul(b_.CreateSelect(ok, gr, c32(0)), ld), b_.CreateSelect(ok, gc, c32(0)));
    Value* src = b_.CreateGEP(elem_ty, global, b_.CreateZExt(elem, b_.getInt64Ty()));
    Value* dst = smem_ptr(b_.CreateAdd(base, offset(row, ch)));
    emit_guarded(b_.CreateICmpULT(q, c32(total)), total % threads_ != 0 && q0 + threads_ > total, [&] {
      b_.CreateCall(cp, {dst, src, b_.CreateSelect(ok, c32(16), c32(0))});
    });
  }
}

void KernelBuilder::load_stage(const StageLayout& t, Value* stage, Value* kt, Value* valid) {
  // Packed 4-bit operands are copied in bytes along K: K tile, K, the K offset and the leading
  // dimensions (K-major for both) halve.
  auto kb = [&](Value* v) { return t.k_packed ? b_.CreateLShr(v, 1) : v; };
  const std::int64_t bk = t.k_packed ? t.bk / 2 : t.bk, eb = t.k_packed ? 1 : t.elem_bytes;
  DG_INTERNAL_ASSERT(!t.k_packed || (p_.index.a_row_major && !p_.index.b_row_major),
                     "packed 4-bit operands reached the loader with a layout that is not K-major");
  Value* k0 = b_.CreateMul(kt, c32(bk));
  auto a_off = [&](Value* r, Value* c) { return smem_offset(r, c, t.a_pitch, t.swizzle_bits); };
  auto b_off = [&](Value* r, Value* c) { return smem_offset(r, c, t.b_pitch, t.swizzle_bits); };
  load_operand(arg(0), b_.CreateMul(stage, c32(t.a_stage)), t.bm, bk, a_off, row_base_, k0, arg_m(), kb(arg_k()),
               kb(lda()), valid, eb);
  Value* b_base = b_.CreateAdd(c32(t.stages * t.a_stage), b_.CreateMul(stage, c32(t.b_stage)));
  if (p_.index.b_row_major)
    load_operand(arg(1), b_base, t.bk, t.bn, b_off, k0, col_base_, arg_k(), arg_n(), ldb(), valid, t.elem_bytes);
  else
    load_operand(arg(1), b_base, t.bn, bk, b_off, col_base_, k0, arg_n(), kb(arg_k()), kb(ldb()), valid, eb);
  b_.CreateCall(intr(llvm::Intrinsic::nvvm_cp_async_commit_group));
}

void KernelBuilder::store_m16n8_fragments(Value* warp_row, Value* warp_col, std::int64_t fm, std::int64_t fn,
                                          const std::function<Value*(std::int64_t)>& acc) {
  Value* r0 = b_.CreateLShr(lane_, 2);                       // accumulator row within the fragment
  Value* c0 = b_.CreateShl(b_.CreateAnd(lane_, c32(3)), 1);  // first of two columns
  for (std::int64_t i = 0; i < fm; ++i)
    for (std::int64_t j = 0; j < fn; ++j)
      for (unsigned half = 0; half < 2; ++half) {
        Value* gm = b_.CreateAdd(b_.CreateAdd(row_base_, warp_row), b_.CreateAdd(c32(i * 16 + half * 8), r0));
        Value* gn = b_.CreateAdd(b_.CreateAdd(col_base_, warp_col), b_.CreateAdd(c32(j * 8), c0));
        const std::int64_t base = (i * fn + j) * 4 + half * 2;
        store_pair(gm, gn, acc(base), acc(base + 1));
      }
}

void KernelBuilder::cp_async_main_loop(std::int64_t stages, Value* tiles,
                                       const std::function<void(Value*, Value*, Value*)>& load,
                                       const std::function<void(Value*)>& compute) {
  auto* wait = intr(llvm::Intrinsic::nvvm_cp_async_wait_group);
  auto* bar = intr(llvm::Intrinsic::nvvm_barrier0);
  if (stages == 1) {
    loop(tiles, [&](Value* kt) {
      load(c32(0), kt, b_.getTrue());
      b_.CreateCall(wait, {c32(0)});
      b_.CreateCall(bar);
      compute(c32(0));
      b_.CreateCall(bar);
    });
    return;
  }
  for (std::int64_t s = 0; s + 1 < stages; ++s) load(c32(s), c32(s), b_.CreateICmpULT(c32(s), tiles));
  loop(tiles, [&](Value* kt) {
    b_.CreateCall(wait, {c32(stages - 2)});
    b_.CreateCall(bar);
    Value* next = b_.CreateAdd(kt, c32(stages - 1));
    load(b_.CreateURem(next, c32(stages)), next, b_.CreateICmpULT(next, tiles));
    compute(b_.CreateURem(kt, c32(stages)));
  });
  b_.CreateCall(wait, {c32(0)});
}

void KernelBuilder::emit_guarded(Value* cond, bool needed, const std::function<void()>& f) {
  if (!needed) {
    f();
    return;
  }
  auto* then = llvm::BasicBlock::Create(ctx_, "guard", kernel_);
  auto* cont = llvm::BasicBlock::Create(ctx_, "guard.end", kernel_);
  b_.CreateCondBr(cond, then, cont);
  b_.SetInsertPoint(then);
  f();
  b_.CreateBr(cont);
  b_.SetInsertPoint(cont);
}

void KernelBuilder::loop(Value* count, const std::function<void(Value*)>& body) {
  auto* pre = b_.GetInsertBlock();
  auto* head = llvm::BasicBlock::Create(ctx_, "k.loop", kernel_);
  auto* exit = llvm::BasicBlock::Create(ctx_, "k.done", kernel_);
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  auto* kt = b_.CreatePHI(b_.getInt32Ty(), 2, "kt");
  kt->addIncoming(c32(0), pre);
  body(kt);
  Value* next = b_.CreateAdd(kt, c32(1));
  kt->addIncoming(next, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpULT(next, count), head, exit);
  b_.SetInsertPoint(exit);
}

llvm::Value* KernelBuilder::activate(llvm::Value* x) {
  const std::string op = has_bias() ? (p_.epilogue == "bias" ? "none" : p_.epilogue.substr(5)) : p_.epilogue;
  if (op == "none" || op.empty()) return x;
  auto* f32 = b_.getFloatTy();
  auto f = [&](double v) { return llvm::ConstantFP::get(f32, v); };
  // The activation's own arithmetic may contract into FMAs: its rounding is far below the
  // fp16/bf16 output's.
  llvm::IRBuilderBase::FastMathFlagGuard guard(b_);
  llvm::FastMathFlags fmf;
  fmf.setAllowContract();
  b_.setFastMathFlags(fmf);
  // 2^y through ex2.approx (relative error about 2^-22): e^y = 2^(y log2 e).
  auto exp = [&](Value* y) {
    return b_.CreateCall(intr(llvm::Intrinsic::nvvm_ex2_approx_f), {b_.CreateFMul(y, f(1.4426950408889634))});
  };
  // a / b by div.approx.f32 (2 ulp for |b| in [2^-126, 2^126]; a huge b gives 0, the limits the
  // activations need).
  auto div = [&](Value* a, Value* d) { return b_.CreateCall(intr(llvm::Intrinsic::nvvm_div_approx_f), {a, d}); };
  if (op == "relu") return b_.CreateMaxNum(x, f(0.0));                            // max(x, 0); NaN gives 0
  if (op == "silu") return div(x, b_.CreateFAdd(f(1.0), exp(b_.CreateFNeg(x))));  // x·sigmoid(x)
  if (op == "gelu_tanh") {
    // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), tanh(u) = 1 − 2/(e^(2u) + 1), saturating at ±1.
    Value* u = b_.CreateFMul(f(0.7978845608028654),
                             b_.CreateFAdd(x, b_.CreateFMul(f(0.044715), b_.CreateFMul(x, b_.CreateFMul(x, x)))));
    Value* e2u = exp(b_.CreateFMul(f(2.0), b_.CreateMinNum(u, f(40.0))));
    Value* t = b_.CreateFSub(f(1.0), div(f(2.0), b_.CreateFAdd(e2u, f(1.0))));
    return b_.CreateFMul(b_.CreateFMul(f(0.5), x), b_.CreateFAdd(f(1.0), t));
  }
  DG_INTERNAL_ASSERT(op == "gelu", "an epilogue the generator does not know: " + op);
  // 0.5·x·(1 + erf(x/√2)); erf by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7):
  // erf(z) = 1 − (a1 t + a2 t² + a3 t³ + a4 t⁴ + a5 t⁵) e^(−z²), t = 1/(1 + p z), z ≥ 0, odd.
  Value* z = b_.CreateFMul(x, f(0.7071067811865476));
  Value* az = b_.CreateCall(llvm::Intrinsic::getDeclaration(&m_, llvm::Intrinsic::fabs, {f32}), {z});
  Value* t = div(f(1.0), b_.CreateFAdd(f(1.0), b_.CreateFMul(f(0.3275911), az)));
  Value* poly = f(1.061405429);
  for (double a : {-1.453152027, 1.421413741, -0.284496736, 0.254829592})
    poly = b_.CreateFAdd(b_.CreateFMul(poly, t), f(a));
  poly = b_.CreateFMul(poly, t);
  Value* erf_abs = b_.CreateFSub(f(1.0), b_.CreateFMul(poly, exp(b_.CreateFNeg(b_.CreateFMul(az, az)))));
  Value* erf = b_.CreateSelect(b_.CreateFCmpOLT(z, f(0.0)), b_.CreateFNeg(erf_abs), erf_abs);
  return b_.CreateFMul(b_.CreateFMul(f(0.5), x), b_.CreateFAdd(f(1.0), erf));
}

std::pair<llvm::Value*, llvm::Value*> KernelBuilder::load_bias_pair(Value* gn) {
  auto* f32 = b_.getFloatTy();
  Value* in = b_.CreateICmpULT(gn, arg_n());
  Value* col = b_.CreateZExt(b_.CreateSelect(in, gn, b_.CreateSub(arg_n(), c32(2))), b_.getInt64Ty());
  // One load for the pair: gn is even and the bias row starts aligned, so the two values are
  // one aligned 4-byte (fp16/bf16) or 8-byte (fp32) word.
  if (p_.c_type == "fp32") {
    auto* v2 = llvm::FixedVectorType::get(f32, 2);
    Value* pair = b_.CreateAlignedLoad(v2, b_.CreateGEP(f32, arg(3), col), llvm::Align(8));
    return {b_.CreateExtractElement(pair, uint64_t(0)), b_.CreateExtractElement(pair, uint64_t(1))};
  }
  auto* h = p_.c_type == "bf16" ? b_.getBFloatTy() : b_.getHalfTy();
  auto* v2 = llvm::FixedVectorType::get(h, 2);
  Value* pair = b_.CreateAlignedLoad(v2, b_.CreateGEP(h, arg(3), col), llvm::Align(4));
  return {b_.CreateFPExt(b_.CreateExtractElement(pair, uint64_t(0)), f32),
          b_.CreateFPExt(b_.CreateExtractElement(pair, uint64_t(1)), f32)};
}

std::function<llvm::Value*(llvm::Value*, std::int64_t)> KernelBuilder::split_slot_at(const SplitWorkspace& w, Value* ws,
                                                                                     Value* tile_id, Value* tid,
                                                                                     std::int64_t threads) {
  auto i64 = [&](Value* v) { return b_.CreateZExt(v, b_.getInt64Ty()); };
  // Slot (tile, s) starts at counters + (tile·S + s)·slot; thread t's step c at (c·threads + t)·16.
  Value* tile_slots =
      b_.CreateAdd(b_.getInt64(w.counter_bytes()),
                   b_.CreateMul(i64(tile_id), b_.getInt64(static_cast<std::uint64_t>(w.split) * w.slot_bytes())));
  Value* thread_off = i64(b_.CreateShl(tid, 4));
  return [this, ws, tile_slots, thread_off, threads, slot_bytes = w.slot_bytes()](Value* slot, std::int64_t c) {
    Value* off = b_.CreateAdd(b_.CreateAdd(tile_slots, b_.CreateMul(slot, b_.getInt64(slot_bytes))),
                              b_.CreateAdd(thread_off, b_.getInt64(static_cast<std::uint64_t>(c * threads * 16))));
    return b_.CreateGEP(b_.getInt8Ty(), ws, off);
  };
}

llvm::Value* KernelBuilder::count_split_arrival(Value* ws, Value* tile_id, Value* tid, std::int64_t split, int barrier,
                                                std::int64_t threads) {
  Value* offset = b_.CreateZExt(b_.CreateShl(tile_id, 2), b_.getInt64Ty());
  Value* counter = b_.CreatePtrToInt(b_.CreateGEP(b_.getInt8Ty(), ws, offset), b_.getInt64Ty());
  InlinePtx count;
  int last = count.out('r');
  int first = count.in(b_.CreateZExt(b_.CreateICmpEQ(tid, c32(0)), b_.getInt32Ty()), 'r');
  int addr = count.in(counter, 'l');
  return count.emit(b_, fmt::format("{{\n.reg .pred p, q;\n.reg .u32 old;\nsetp.ne.u32 p, ${}, 0;\nmov.u32 old, 0;\n"
                                    "@p atom.acq_rel.gpu.global.add.u32 old, [${}], 1;\n"
                                    "setp.eq.and.u32 q, old, {}, p;\n@q st.relaxed.gpu.global.u32 [${}], 0;\n"
                                    "bar.red.popc.u32 ${}, {}, {}, q;\n}}",
                                    first, addr, split - 1, addr, last, barrier, threads));
}

std::pair<llvm::Value*, llvm::Value*> KernelBuilder::load_c_in_pair(Value* gm, Value* gn) {
  auto* f32 = b_.getFloatTy();
  // Clamped into the matrix (row M - 1, columns N - 2 and N - 1 for the tails) so that the load
  // needs no guard; the store of an element outside is what is guarded.
  Value* row = b_.CreateSelect(b_.CreateICmpULT(gm, arg_m()), gm, b_.CreateSub(arg_m(), c32(1)));
  Value* col = b_.CreateSelect(b_.CreateICmpULT(gn, arg_n()), gn, b_.CreateSub(arg_n(), c32(2)));
  Value* idx = b_.CreateZExt(b_.CreateAdd(b_.CreateMul(row, c32(p_.index.ldc)), col), b_.getInt64Ty());
  if (p_.c_type == "fp32") {
    auto* v2 = llvm::FixedVectorType::get(f32, 2);
    Value* pair = b_.CreateAlignedLoad(v2, b_.CreateGEP(f32, c_in_, idx), llvm::Align(8));
    return {b_.CreateExtractElement(pair, uint64_t(0)), b_.CreateExtractElement(pair, uint64_t(1))};
  }
  auto* h = p_.c_type == "bf16" ? b_.getBFloatTy() : b_.getHalfTy();
  auto* v2 = llvm::FixedVectorType::get(h, 2);
  Value* pair = b_.CreateAlignedLoad(v2, b_.CreateGEP(h, c_in_, idx), llvm::Align(4));
  return {b_.CreateFPExt(b_.CreateExtractElement(pair, uint64_t(0)), f32),
          b_.CreateFPExt(b_.CreateExtractElement(pair, uint64_t(1)), f32)};
}

std::pair<llvm::Value*, llvm::Value*> KernelBuilder::epilogue_pair(Value* gm, Value* gn, Value* v0, Value* v1,
                                                                   const std::pair<Value*, Value*>* bias,
                                                                   const std::pair<Value*, Value*>* c_in) {
  auto* f32 = b_.getFloatTy();
  // The fused epilogue, in fp32 before the cast (float accumulators only): the per-tensor scales,
  // alpha, the bias of the two columns (C's type; N is even, so both lie inside when the first
  // does; loaded here unless the caller loaded it ahead), beta · C_in (likewise), then the
  // activation. It is computed on a column clamped into [0, N - 2] for the tail, outside any
  // guard, so that only the store is guarded and ptxas can predicate it.
  if (v0->getType()->isFloatTy()) {
    if (scale_) {
      v0 = b_.CreateFMul(v0, scale_);
      v1 = b_.CreateFMul(v1, scale_);
    }
    if (p_.alpha != 1) {
      Value* alpha = llvm::ConstantFP::get(f32, p_.alpha);
      v0 = b_.CreateFMul(v0, alpha);
      v1 = b_.CreateFMul(v1, alpha);
    }
    if (has_bias()) {
      const auto [b0, b1] = bias != nullptr ? *bias : load_bias_pair(gn);
      v0 = b_.CreateFAdd(v0, b0);
      v1 = b_.CreateFAdd(v1, b1);
    }
    if (c_in_ != nullptr) {
      const auto [c0, c1] = c_in != nullptr ? *c_in : load_c_in_pair(gm, gn);
      Value* beta = llvm::ConstantFP::get(f32, p_.beta);
      v0 = b_.CreateFAdd(v0, p_.beta == 1 ? c0 : b_.CreateFMul(c0, beta));
      v1 = b_.CreateFAdd(v1, p_.beta == 1 ? c1 : b_.CreateFMul(c1, beta));
    }
    v0 = activate(v0);
    v1 = activate(v1);
  }
  return {v0, v1};
}

llvm::Value* KernelBuilder::packed_pair(Value* v0, Value* v1) {
  auto* f32 = b_.getFloatTy();
  auto vec2 = [&](llvm::Type* t) {
    auto* v2 = llvm::FixedVectorType::get(t, 2);
    return b_.CreateInsertElement(b_.CreateInsertElement(llvm::PoisonValue::get(v2), v0, uint64_t(0)), v1, uint64_t(1));
  };
  if (p_.c_type == "int32") return vec2(b_.getInt32Ty());
  if (p_.c_type == "fp32") return vec2(f32);
  if (p_.c_type == "bf16")
    return b_.CreateBitCast(b_.CreateCall(intr(llvm::Intrinsic::nvvm_ff2bf16x2_rn), {v1, v0}),  // hi, lo
                            b_.getInt32Ty());
  if (pack_f16x2_)  // one cvt.rn.f16x2.f32 packs the pair (sm_80 and later), as the bf16 pair above
    return b_.CreateBitCast(b_.CreateCall(intr(llvm::Intrinsic::nvvm_ff2f16x2_rn), {v1, v0}), b_.getInt32Ty());
  auto* h2 = llvm::FixedVectorType::get(b_.getHalfTy(), 2);
  Value* vec = b_.CreateInsertElement(
      b_.CreateInsertElement(llvm::PoisonValue::get(h2), b_.CreateFPTrunc(v0, b_.getHalfTy()), uint64_t(0)),
      b_.CreateFPTrunc(v1, b_.getHalfTy()), uint64_t(1));
  return b_.CreateBitCast(vec, b_.getInt32Ty());
}

llvm::Value* KernelBuilder::finished_pair(Value* gm, Value* gn, Value* v0, Value* v1,
                                          const std::pair<Value*, Value*>* bias,
                                          const std::pair<Value*, Value*>* c_in) {
  const auto [e0, e1] = epilogue_pair(gm, gn, v0, v1, bias, c_in);
  return packed_pair(e0, e1);
}

void KernelBuilder::store_pair(Value* gm, Value* gn, Value* v0, Value* v1, const std::pair<Value*, Value*>* bias,
                               const std::pair<Value*, Value*>* c_in) {
  Value* ok = b_.CreateAnd(b_.CreateICmpULT(gm, arg_m()), b_.CreateICmpULT(gn, arg_n()));
  Value* elem = b_.CreateAdd(b_.CreateMul(gm, c32(p_.index.ldc)), gn);
  const auto [e0, e1] = epilogue_pair(gm, gn, v0, v1, bias, c_in);
  emit_guarded(ok, true, [&] {
    Value* idx = b_.CreateZExt(elem, b_.getInt64Ty());
    Value* pair = packed_pair(e0, e1);
    if (pair->getType()->isVectorTy()) {  // two 32-bit elements
      auto* t = llvm::cast<llvm::VectorType>(pair->getType())->getElementType();
      b_.CreateAlignedStore(pair, b_.CreateGEP(t, arg(2), idx), llvm::Align(8));
    } else {  // a 16-bit pair
      b_.CreateAlignedStore(pair, b_.CreateGEP(b_.getInt16Ty(), arg(2), idx), llvm::Align(4));
    }
  });
}

}  // namespace dg::codegen
