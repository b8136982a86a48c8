// The wgmma kernel family (sm_90a): one or two warpgroups per block, each issuing
// wgmma.mma_async m64nNk16 (fp16/bf16 → fp32) or m64nNk32 (int8 → int32; fp8 e4m3/e5m2 → fp32,
// the two operands' formats may differ) over its rows of the
// tile, with A and B read by the tensor cores straight from shared memory through matrix
// descriptors. Operand tiles arrive by a multi-stage cp.async pipeline into the 128-byte-swizzled
// layout wgmma reads: A K-major (one 128-byte row per tile row); B K-major the same way, or
// (16-bit types) N-major in 128-byte-wide slabs, transposed by the instruction. One
// wgmma group stays in flight while the next is issued, so a stage is refilled only two
// iterations after it was read. M, N and K tails are zero-filled loads and predicated stores, as
// in the mma.sync family; rows, columns and the warpgroup split come from the plan's index
// description.
#include <fmt/format.h>

#include "codegen/families.h"
#include "codegen/inline_ptx.h"
#include "codegen/kernel_builder.h"
#include "support/error.h"

namespace dg::codegen {

namespace {

using llvm::Value;

bool is_8bit(const std::string& t) { return element_bytes(t) == 1; }

/// The PTX name of an fp8 format: fp8_e4m3 → e4m3.
const char* fp8_name(const std::string& t) { return t == "fp8_e5m2" ? "e5m2" : "e4m3"; }

/// Matrix-descriptor bits (PTX ISA, "Matrix Descriptor Format" of wgmma): start address >> 4 in
/// bits 0-13, leading-dimension byte offset >> 4 in 16-29, stride-dimension byte offset >> 4 in
/// 32-45, base offset 0 (stage bases are 1024-byte aligned), swizzle mode 1 (128 B) in 62-63.
std::uint64_t descriptor_high_bits(std::uint64_t lbo, std::uint64_t sbo) {
  return ((lbo >> 4) & 0x3FFF) << 16 | ((sbo >> 4) & 0x3FFF) << 32 | std::uint64_t{1} << 62;
}

class WgmmaKernel : KernelBuilder {
 public:
  WgmmaKernel(const Plan& p, llvm::LLVMContext& ctx, llvm::Module& m) : KernelBuilder(p, ctx, m) {}

  LaunchInfo build(const std::string& name) {
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
    acc_per_frag_ = bn_ / 2;                        // m64nNk*: N/2 accumulators per thread
    begin_kernel(name, 128 * groups_, p_.blocks_per_sm, 1024);
    body();
    return launch_info(name, stages_ * (a_stage_ + b_stage_));
  }

 private:
  /// The 128-byte swizzle (the plan's layout, proved bank-conflict free): 16-byte chunk c of
  /// 128-byte row r lands at r·128 + ((c ^ (r mod 8)) · 16).
  Value* swizzled(Value* row, Value* chunk) { return smem_offset(row, chunk, 128, 3); }


  Value* acc_at(std::int64_t e) { return b_.CreateConstInBoundsGEP2_32(acc_ty_, acc_, 0, static_cast<unsigned>(e)); }

  Value* b_region() { return c32(stages_ * a_stage_); }

  void load_tile(Value* stage, Value* kt, Value* valid_tile) {
    const IndexDesc& d = p_.index;
    Value* k0 = b_.CreateMul(kt, c32(bk_));
    // A: tile_m rows (M) × tile_k columns (K), one 128-byte row each.
    auto plain = [&](Value* r, Value* c) { return swizzled(r, c); };
    load_operand(arg(0), b_.CreateMul(stage, c32(a_stage_)), bm_, bk_, plain, row_base_, k0, arg_m(), arg_k(), lda(),
                 valid_tile, elem_bytes_);
    Value* b_base = b_.CreateAdd(b_region(), b_.CreateMul(stage, c32(b_stage_)));
    if (d.b_row_major) {
      // N-major B: tile_k rows (K) × tile_n columns (N), stored slab by slab: chunk c of row k goes
      // to row (c / 8)·tile_k + k of the slab-major tile.
      const std::int64_t per_slab = 8;  // 16-byte chunks per 128-byte slab row
      load_operand(arg(1), b_base, bk_, bn_,
                   [&](Value* r, Value* c) {
                     Value* row = b_.CreateAdd(b_.CreateMul(b_.CreateUDiv(c, c32(per_slab)), c32(bk_)), r);
                     return swizzled(row, b_.CreateURem(c, c32(per_slab)));
                   },
                   k0, col_base_, arg_k(), arg_n(), ldb(), valid_tile, elem_bytes_);
    } else {
      // K-major B (column-major in global), as its transpose: tile_n rows (N) of one 128-byte row.
      load_operand(arg(1), b_base, bn_, bk_, plain, col_base_, k0, arg_n(), arg_k(), ldb(), valid_tile, elem_bytes_);
    }
    b_.CreateCall(intr(llvm::Intrinsic::nvvm_cp_async_commit_group));
  }

  Value* descriptor(Value* byte_address, std::uint64_t high) {
    Value* start = b_.CreateZExt(b_.CreateLShr(byte_address, 4), b_.getInt64Ty());
    return b_.CreateOr(start, b_.getInt64(high));
  }

  /// One wgmma.mma_async m64nNk16 on fragment f: D += A(desc_a) · B(desc_b).
  void mma(std::int64_t f, Value* desc_a, Value* desc_b) {
    InlinePtx w;
    std::vector<std::string> regs;
    for (std::int64_t e = 0; e < acc_per_frag_; ++e)
      regs.push_back(fmt::format("${}", w.inout(b_.CreateLoad(acc_elem_, acc_at(f * acc_per_frag_ + e)), acc_c_)));
    int da = w.in(desc_a, 'l'), db = w.in(desc_b, 'l'), scale = w.in(c32(1), 'r');
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
      tail = fmt::format(", 1, 1, 0, {}", p_.index.b_row_major ? 1 : 0);  // B N-major: transposed
    }
    std::string text = fmt::format(
        "{{\n.reg .pred p;\nsetp.ne.b32 p, ${}, 0;\n"
        "wgmma.mma_async.sync.aligned.{} {{{}}}, ${}, ${}, p{};\n}}",
        scale, shape_types, fmt::join(regs, ", "), da, db, tail);
    Value* r = w.emit(b_, text);
    for (std::int64_t e = 0; e < acc_per_frag_; ++e)
      b_.CreateStore(b_.CreateExtractValue(r, static_cast<unsigned>(e)), acc_at(f * acc_per_frag_ + e));
  }

  /// The wgmma group of one K tile: tile_k / 16 steps on every fragment of this warpgroup.
  void compute_stage(Value* stage) {
    const bool b_n_major = p_.index.b_row_major;
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
        mma(f, a, bd);
      }
    emit_ptx_statement(b_, "wgmma.commit_group.sync.aligned;");
  }

  void epilogue() {
    auto* f32 = acc_elem_;
    // The accumulators are final once the last group has retired: route them through an empty
    // statement after the wait, so that no use is scheduled above it.
    for (std::int64_t f = 0; f < fm_; ++f) {
      InlinePtx fence;
      for (std::int64_t e = 0; e < acc_per_frag_; ++e)
        fence.inout(b_.CreateLoad(f32, acc_at(f * acc_per_frag_ + e)), acc_c_);
      Value* r = fence.emit(b_, "", false);
      for (std::int64_t e = 0; e < acc_per_frag_; ++e)
        b_.CreateStore(b_.CreateExtractValue(r, static_cast<unsigned>(e)), acc_at(f * acc_per_frag_ + e));
    }
    Value* r0 = b_.CreateLShr(lane_, 2);
    Value* c0 = b_.CreateShl(b_.CreateAnd(lane_, c32(3)), 1);
    Value* rows = b_.CreateAdd(b_.CreateAdd(row_base_, group_row_), b_.CreateAdd(warp_row_, r0));
    Value* cols = b_.CreateAdd(col_base_, c0);
    for (std::int64_t f = 0; f < fm_; ++f)
      for (std::int64_t j = 0; j < bn_ / 8; ++j)
        for (unsigned half = 0; half < 2; ++half) {
          Value* gm = b_.CreateAdd(rows, c32(f * 64 + half * 8));
          Value* gn = b_.CreateAdd(cols, c32(j * 8));
          std::int64_t e = f * acc_per_frag_ + j * 4 + half * 2;
          store_pair(gm, gn, b_.CreateLoad(f32, acc_at(e)), b_.CreateLoad(f32, acc_at(e + 1)));
        }
  }

  void body() {
    acc_elem_ = int8_ ? b_.getInt32Ty() : b_.getFloatTy();
    acc_c_ = int8_ ? 'r' : 'f';
    acc_ty_ = llvm::ArrayType::get(acc_elem_, static_cast<std::uint64_t>(fm_ * acc_per_frag_));
    acc_ = b_.CreateAlloca(acc_ty_, nullptr, "acc");
    Value* zero = int8_ ? static_cast<Value*>(b_.getInt32(0)) : llvm::ConstantFP::get(acc_elem_, 0.0);
    for (std::int64_t e = 0; e < fm_ * acc_per_frag_; ++e) b_.CreateStore(zero, acc_at(e));
    tid_ = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
    lane_ = b_.CreateAnd(tid_, c32(31));
    Value* warp = b_.CreateLShr(tid_, 5);
    Value* group = b_.CreateLShr(warp, 2);
    group_row_ = b_.CreateMul(group, c32(group_rows_));
    group_row_bytes_ = b_.CreateMul(group_row_, c32(128));
    warp_row_ = b_.CreateMul(b_.CreateAnd(warp, c32(3)), c32(warp_rows_));
    smem_base_ = b_.CreateTrunc(b_.CreatePtrToInt(smem_, b_.getInt64Ty()), b_.getInt32Ty());
    block_origin();

    auto* wait = intr(llvm::Intrinsic::nvvm_cp_async_wait_group);
    auto* bar = intr(llvm::Intrinsic::nvvm_barrier0);
    Value* tiles = k_tile_count(bk_, k_tiles_);
    const std::int64_t ahead = stages_ - 2;  // tiles in flight while one is read and one is retiring
    for (std::int64_t s = 0; s < ahead; ++s) load_tile(c32(s), c32(s), b_.CreateICmpULT(c32(s), tiles));
    loop(tiles, [&](Value* kt) {
      b_.CreateCall(wait, {c32(ahead - 1)});
      emit_ptx_statement(b_, "fence.proxy.async.shared::cta;");  // cp.async writes → wgmma reads
      b_.CreateCall(bar);
      // The stage refilled now was read by the group of iteration kt - 2, which every warpgroup
      // retired (wait_group 1 at the end of iteration kt - 1) before the barrier above.
      Value* next = b_.CreateAdd(kt, c32(ahead));
      load_tile(b_.CreateURem(next, c32(stages_)), next, b_.CreateICmpULT(next, tiles));
      compute_stage(b_.CreateURem(kt, c32(stages_)));
      emit_ptx_statement(b_, "wgmma.wait_group.sync.aligned 1;");
    });
    emit_ptx_statement(b_, "wgmma.wait_group.sync.aligned 0;");
    b_.CreateCall(wait, {c32(0)});
    epilogue();
    b_.CreateRetVoid();
  }

  llvm::ArrayType* acc_ty_ = nullptr;
  Value *acc_ = nullptr, *group_row_ = nullptr, *group_row_bytes_ = nullptr, *warp_row_ = nullptr,
        *smem_base_ = nullptr;
  std::int64_t bm_ = 0, bn_ = 0, bk_ = 0, groups_ = 1, fm_ = 1, group_rows_ = 0, warp_rows_ = 16, k_tiles_ = 1;
  std::int64_t stages_ = 3, a_stage_ = 0, b_stage_ = 0, acc_per_frag_ = 0, elem_bytes_ = 2;
  bool int8_ = false;
  llvm::Type* acc_elem_ = nullptr;
  char acc_c_ = 'f';
};

}  // namespace

LaunchInfo build_wgmma(const Plan& plan, llvm::LLVMContext& ctx, llvm::Module& m, const std::string& name) {
  return WgmmaKernel(plan, ctx, m).build(name);
}

std::string wgmma_unsupported(const Plan& p, const hw::HwModel& hw) {
  if (hw.gpu.arch != "sm_90a") return fmt::format("wgmma needs the sm_90a target ({} is {})", hw.name, hw.gpu.arch);
  if (!hw.gpu.has_cp_async) return fmt::format("{} has no cp.async", hw.name);
  const std::int64_t ik = is_8bit(p.a_type) ? 32 : 16;
  if (p.instr_m != 64 || p.instr_k != ik) return fmt::format("only the m64nNk{} instruction is generated", ik);
  if (p.smem_layout != "swizzle_128b" || p.index.swizzle_bits != 3) return "wgmma reads 128-byte-swizzled tiles only";
  if (p.index.a_smem_row_bytes != 128 || p.index.b_smem_row_bytes != 128)
    return "wgmma tiles are stored as 128-byte rows (tile_k = 64 elements, tile_n a multiple of 64)";
  if (p.tile_n % 64 != 0 || p.tile_n > 256) return "tile_n must be a multiple of 64, at most 256";
  if (p.a_type == "int8" && p.tile_n % 16 != 0) return "integer wgmma needs tile_n a multiple of 16";
  if (p.warp_m % 4 != 0 || p.warp_n != 1) return "warps come in warpgroups of 4 along M";
  if (p.stages < 3) return "the wgmma pipeline needs at least 3 stages";
  return "";
}

}  // namespace dg::codegen
