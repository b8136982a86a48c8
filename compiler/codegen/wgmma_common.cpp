// The wgmma families' shared part: see wgmma_common.h.
#include "codegen/wgmma_common.h"

#include <fmt/format.h>

#include "codegen/inline_ptx.h"
#include "support/error.h"

namespace dg::codegen {

namespace {

/// The PTX name of an fp8 format: fp8_e4m3 → e4m3.
const char* fp8_name(const std::string& t) { return t == "fp8_e5m2" ? "e5m2" : "e4m3"; }

/// Matrix-descriptor bits (PTX ISA, "Matrix Descriptor Format" of wgmma): start address >> 4 in
/// bits 0-13, leading-dimension byte offset >> 4 in 16-29, stride-dimension byte offset >> 4 in
/// 32-45, base offset 0 (stage bases are 1024-byte aligned), swizzle mode 1 (128 B) in 62-63.
std::uint64_t descriptor_high_bits(std::uint64_t lbo, std::uint64_t sbo) {
  return ((lbo >> 4) & 0x3FFF) << 16 | ((sbo >> 4) & 0x3FFF) << 32 | std::uint64_t{1} << 62;
}

}  // namespace

void WgmmaBase::read_plan() {
  const IndexDesc& d = p_.index;
  bm_ = p_.tile_m;
  bn_ = p_.tile_n;
  bk_ = p_.tile_k;
  groups_ = extent(d.out_vars, "group_m");
  fm_ = extent(d.out_vars, "frag_m");
  group_rows_ = coeff(d.c_row, "group_m");
  warp_rows_ = coeff(d.c_row, "warp_m");
  k_tiles_ = extent(d.k_vars, "k_tile");
  stages_ = p_.stages;
  a_stage_ = d.a_smem_rows * d.a_smem_row_bytes;
  b_stage_ = d.b_smem_rows * d.b_smem_row_bytes;
  elem_bytes_ = element_bytes(p_.a_type);
  int8_ = p_.a_type == "int8";
  block_scaled_ = p_.block_scaled();
  acc_per_frag_ = bn_ / 2;  // m64nNk*: N/2 accumulators per thread
  // 4-bit weights reach the stages converted by the producer, K-major whatever the spec's B.
  b_n_major_ = d.b_row_major && !p_.w4_staged();
  if (p_.w4_staged()) b_stage_ = bn_ * 128;
}

void WgmmaBase::zero_accumulators() {
  Value* zero = int8_ ? static_cast<Value*>(b_.getInt32(0)) : llvm::ConstantFP::get(acc_elem_, 0.0);
  for (std::int64_t e = 0; e < fm_ * acc_per_frag_; ++e) b_.CreateStore(zero, acc_at(e));
}

void WgmmaBase::setup(bool origin) {
  acc_elem_ = int8_ ? b_.getInt32Ty() : b_.getFloatTy();
  acc_c_ = int8_ ? 'r' : 'f';
  acc_ty_ = llvm::ArrayType::get(acc_elem_, static_cast<std::uint64_t>(fm_ * acc_per_frag_));
  acc_ = b_.CreateAlloca(acc_ty_, nullptr, "acc");
  zero_accumulators();
  if (block_scaled_) {
    // Zeroed once, so that no undefined value reaches the first group (which overwrites them).
    part_ = b_.CreateAlloca(acc_ty_, nullptr, "part");
    for (std::int64_t e = 0; e < fm_ * acc_per_frag_; ++e)
      b_.CreateStore(llvm::ConstantFP::get(acc_elem_, 0.0), part_at(e));
  }
  tid_ = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  lane_ = b_.CreateAnd(tid_, c32(31));
  warp_ = b_.CreateLShr(tid_, 5);
  group_ = b_.CreateLShr(warp_, 2);
  group_row_ = b_.CreateMul(group_, c32(group_rows_));
  group_row_bytes_ = b_.CreateMul(group_row_, c32(128));
  warp_row_ = b_.CreateMul(b_.CreateAnd(warp_, c32(3)), c32(warp_rows_));
  smem_base_ = b_.CreateTrunc(b_.CreatePtrToInt(smem_, b_.getInt64Ty()), b_.getInt32Ty());
  if (origin) block_origin();
}

llvm::Value* WgmmaBase::descriptor(Value* byte_address, std::uint64_t high) {
  Value* start = b_.CreateZExt(b_.CreateLShr(byte_address, 4), b_.getInt64Ty());
  return b_.CreateOr(start, b_.getInt64(high));
}

/// One wgmma.mma_async m64nNk16 on fragment f: D += A(desc_a) · B(desc_b), or D = A · B when
/// `fresh` (the instruction's scale-d predicate false).
void WgmmaBase::mma(std::int64_t f, Value* desc_a, Value* desc_b, bool fresh) {
  InlinePtx w;
  std::vector<std::string> regs;
  auto at = [&](std::int64_t e) { return block_scaled_ ? part_at(e) : acc_at(e); };
  for (std::int64_t e = 0; e < acc_per_frag_; ++e)
    regs.push_back(fmt::format("${}", w.inout(b_.CreateLoad(acc_elem_, at(f * acc_per_frag_ + e)), acc_c_)));
  int da = w.in(desc_a, 'l'), db = w.in(desc_b, 'l'), scale = w.in(c32(fresh ? 0 : 1), 'r');
  std::string shape_types, tail;
  if (int8_) {
    shape_types = fmt::format("m64n{}k32.s32.s8.s8", bn_);  // integer wgmma: no scales, no transposes
  } else if (elem_bytes_ == 1) {
    // fp8: both operands K-major, so no transpose operands; the input scales are +1.
    shape_types = fmt::format("m64n{}k32.f32.{}.{}", bn_, fp8_name(p_.a_type), fp8_name(p_.b_type));
    tail = ", 1, 1";
  } else {
    const char* t = p_.a_type == "bf16" ? "bf16" : "f16";
    shape_types = fmt::format("m64n{}k16.f32.{}.{}", bn_, t, t);
    tail = fmt::format(", 1, 1, 0, {}", b_n_major_ ? 1 : 0);  // B N-major: transposed
  }
  std::string text = fmt::format(
      "{{\n.reg .pred p;\nsetp.ne.b32 p, ${}, 0;\n"
      "wgmma.mma_async.sync.aligned.{} {{{}}}, ${}, ${}, p{};\n}}",
      scale, shape_types, fmt::join(regs, ", "), da, db, tail);
  Value* r = w.emit(b_, text);
  for (std::int64_t e = 0; e < acc_per_frag_; ++e)
    b_.CreateStore(b_.CreateExtractValue(r, static_cast<unsigned>(e)), at(f * acc_per_frag_ + e));
}

/// The wgmma group of one K tile: tile_k / 16 steps on every fragment of this warpgroup.
void WgmmaBase::compute_stage(Value* stage) {
  const bool b_n_major = b_n_major_;
  const std::uint64_t a_high = descriptor_high_bits(16, 1024);  // K-major: LBO unused, 8 rows apart
  const std::uint64_t b_high = b_n_major ? descriptor_high_bits(static_cast<std::uint64_t>(bk_ * 128), 1024)  // slabs
                                         : a_high;
  Value* a_base = b_.CreateAdd(smem_base_, b_.CreateAdd(b_.CreateMul(stage, c32(a_stage_)), group_row_bytes_));
  Value* b_base = b_.CreateAdd(smem_base_, b_.CreateAdd(b_region(), b_.CreateMul(stage, c32(b_stage_))));
  emit_ptx_statement(b_, "wgmma.fence.sync.aligned;");
  for (std::int64_t kk = 0; kk < bk_ / p_.instr_k; ++kk)
    for (std::int64_t f = 0; f < fm_; ++f) {
      // A: the fragment's 64 rows start f·64 rows in; step kk is 32 bytes along K inside the
      // swizzle atom (16 fp16/bf16 or 32 int8/fp8 elements). B: N-major, step kk is 16 k rows (two
      // 8-row atoms) further; K-major, 32 bytes along K as for A.
      Value* a = descriptor(b_.CreateAdd(a_base, c32(f * 64 * 128 + kk * 32)), a_high);
      Value* bd = descriptor(b_.CreateAdd(b_base, c32(b_n_major ? kk * 16 * 128 : kk * 32)), b_high);
      mma(f, a, bd, block_scaled_ && kk == 0);  // fine-grained scales: each step's sums from zero
    }
  emit_ptx_statement(b_, "wgmma.commit_group.sync.aligned;");
}

void WgmmaBase::settle(Value* array) {
  // The accumulators are final once the last group has retired: route them through an empty
  // statement after the wait, so that no use is scheduled above it.
  auto at = [&](std::int64_t e) { return b_.CreateConstInBoundsGEP2_32(acc_ty_, array, 0, static_cast<unsigned>(e)); };
  for (std::int64_t f = 0; f < fm_; ++f) {
    InlinePtx fence;
    for (std::int64_t e = 0; e < acc_per_frag_; ++e)
      fence.inout(b_.CreateLoad(acc_elem_, at(f * acc_per_frag_ + e)), acc_c_);
    Value* r = fence.emit(b_, "", false);
    for (std::int64_t e = 0; e < acc_per_frag_; ++e)
      b_.CreateStore(b_.CreateExtractValue(r, static_cast<unsigned>(e)), at(f * acc_per_frag_ + e));
  }
}

void WgmmaBase::promote(const std::vector<Value*>& row_scale, const std::vector<Value*>& block_scale) {
  settle(part_);  // the partial sums, read below the wait that retired their group
  llvm::Function* fma = llvm::Intrinsic::getDeclaration(&m_, llvm::Intrinsic::fma, {acc_elem_});
  // The thread's accumulator e of fragment f: column group j = e / 4 (8 columns), row half
  // (e mod 4) / 2 (rows r0 and r0 + 8), as the epilogue stores them.
  std::vector<Value*> product(row_scale.size() * block_scale.size());
  for (size_t r = 0; r < row_scale.size(); ++r)
    for (size_t i = 0; i < block_scale.size(); ++i)
      product[r * block_scale.size() + i] = b_.CreateFMul(row_scale[r], block_scale[i]);
  for (std::int64_t f = 0; f < fm_; ++f)
    for (std::int64_t e = 0; e < acc_per_frag_; ++e) {
      const std::int64_t j = e / 4, half = (e % 4) / 2;
      const std::int64_t block = bn_ > kScaleBlock ? j * 8 / kScaleBlock : 0;
      Value* scale = product[static_cast<size_t>((2 * f + half)) * block_scale.size() + static_cast<size_t>(block)];
      const std::int64_t k = f * acc_per_frag_ + e;
      Value* sum =
          b_.CreateCall(fma, {b_.CreateLoad(acc_elem_, part_at(k)), scale, b_.CreateLoad(acc_elem_, acc_at(k))});
      b_.CreateStore(sum, acc_at(k));
    }
}

void WgmmaBase::epilogue(const Slabs* slabs) {
  auto* f32 = acc_elem_;
  settle();
  // In a persistent kernel the thread's row and column offsets are read afresh here (an opaque
  // read of %tid.x): the tile loop would otherwise keep every store's lane-dependent offset live
  // across the main loop, beside the accumulators.
  Value* lane = lane_;
  if (fresh_lane_) {
    InlinePtx tid;
    tid.out('r');
    lane = b_.CreateAnd(tid.emit(b_, "mov.u32 $0, %tid.x;", false), c32(31));
  }
  Value* r0 = b_.CreateLShr(lane, 2);
  Value* c0 = b_.CreateShl(b_.CreateAnd(lane, c32(3)), 1);
  Value* rows = b_.CreateAdd(b_.CreateAdd(row_base_, group_row_), b_.CreateAdd(warp_row_, r0));
  Value* cols = b_.CreateAdd(col_base_, c0);
  // A bias: the thread's bn / 8 column pairs, each used by 2 · fm rows, loaded once and all ahead
  // of the stores, so that their latency is paid once per tile rather than once per pair behind
  // the activation's arithmetic (measured: bias + GELU cost 10.7% over the plain GEMM at 4096³
  // with a load per pair, bias and GELU alone 1.6% and 2.3%).
  std::vector<std::pair<Value*, Value*>> bias;
  if (has_bias() && f32->isFloatTy())
    for (std::int64_t j = 0; j < bn_ / 8; ++j) bias.push_back(load_bias_pair(b_.CreateAdd(cols, c32(j * 8))));
  // C_in (beta ≠ 0): the pairs of eight column groups (16 per thread) loaded together ahead of
  // their stores, so that a batch's loads are in flight at once.
  constexpr std::int64_t kCinBatch = 8;
  // Through shared memory: slab by slab (eight column groups of 16 bits, four of 32); each pair
  // goes to its row of the warpgroup's buffer, at its bytes' 16-byte chunk swizzled by the row (the
  // row's low 3 bits are the lane's r0: fragment and warp rows are multiples of 8). A warp's 8
  // rows then write 8 different chunks: every bank once.
  const std::int64_t c_bytes = element_bytes(p_.c_type), slab_groups = slabs != nullptr ? 128 / c_bytes / 8 : bn_ / 8;
  Value* in_row = nullptr;  // the thread's bytes in its slab row, by column group, before the swizzle
  if (slabs != nullptr) in_row = b_.CreateMul(c0, c32(c_bytes));
  for (std::int64_t s = 0; s < bn_ / 8 / slab_groups; ++s) {
    Value* buffer = slabs != nullptr ? slabs->begin(s) : nullptr;
    for (std::int64_t f = 0; f < fm_; ++f)
      for (std::int64_t j0 = s * slab_groups; j0 < (s + 1) * slab_groups; j0 += kCinBatch) {
        const std::int64_t j1 = std::min<std::int64_t>((s + 1) * slab_groups, j0 + kCinBatch);
        auto at = [&](std::int64_t j, unsigned half) {
          return std::pair{b_.CreateAdd(rows, c32(f * 64 + half * 8)), b_.CreateAdd(cols, c32(j * 8))};
        };
        std::vector<std::pair<Value*, Value*>> c_in;
        if (reads_c_in() && f32->isFloatTy())
          for (std::int64_t j = j0; j < j1; ++j)
            for (unsigned half = 0; half < 2; ++half) {
              const auto [gm, gn] = at(j, half);
              c_in.push_back(load_c_in_pair(gm, gn));
            }
        for (std::int64_t j = j0; j < j1; ++j)
          for (unsigned half = 0; half < 2; ++half) {
            const auto [gm, gn] = at(j, half);
            std::int64_t e = f * acc_per_frag_ + j * 4 + half * 2;
            const auto* bias_j = bias.empty() ? nullptr : &bias[static_cast<size_t>(j)];
            const auto* c_in_j = c_in.empty() ? nullptr : &c_in[static_cast<size_t>((j - j0) * 2 + half)];
            Value* v0 = b_.CreateLoad(f32, acc_at(e));
            Value* v1 = b_.CreateLoad(f32, acc_at(e + 1));
            if (slabs == nullptr) {
              store_pair(gm, gn, v0, v1, bias_j, c_in_j);
              continue;
            }
            Value* pair = finished_pair(gm, gn, v0, v1, bias_j, c_in_j);
            Value* row = b_.CreateAdd(b_.CreateAdd(warp_row_, r0), c32(f * 64 + half * 8));
            Value* bytes = b_.CreateAdd(in_row, c32((j - s * slab_groups) * 8 * c_bytes));
            Value* chunk = b_.CreateXor(b_.CreateLShr(bytes, 4), r0);
            Value* addr =
                b_.CreateAdd(buffer, b_.CreateAdd(b_.CreateMul(row, c32(128)),
                                                  b_.CreateAdd(b_.CreateShl(chunk, 4), b_.CreateAnd(bytes, c32(15)))));
            InlinePtx st;
            st.in(addr, 'r');
            if (pair->getType()->isVectorTy()) {
              const int x = st.in(b_.CreateBitCast(b_.CreateExtractElement(pair, uint64_t(0)), b_.getInt32Ty()), 'r');
              const int y = st.in(b_.CreateBitCast(b_.CreateExtractElement(pair, uint64_t(1)), b_.getInt32Ty()), 'r');
              st.emit(b_, fmt::format("st.shared.v2.b32 [$0], {{${}, ${}}};", x, y));
            } else {
              const int x = st.in(pair, 'r');
              st.emit(b_, fmt::format("st.shared.b32 [$0], ${};", x));
            }
          }
      }
    if (slabs != nullptr) slabs->end(s);
  }
}

}  // namespace dg::codegen
