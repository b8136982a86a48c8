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
#include "codegen/wgmma_common.h"
#include "support/error.h"

namespace dg::codegen {

namespace {

using llvm::Value;

bool is_8bit(const std::string& t) { return element_bytes(t) == 1; }

class WgmmaKernel : WgmmaBase {
 public:
  WgmmaKernel(const Plan& p, llvm::LLVMContext& ctx, llvm::Module& m) : WgmmaBase(p, ctx, m) {}

  LaunchInfo build(const std::string& name) {
    read_plan();
    begin_kernel(name, 128 * groups_, p_.blocks_per_sm, 1024);
    body();
    return launch_info(name, stages_ * (a_stage_ + b_stage_));
  }

 private:
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
      load_operand(
          arg(1), b_base, bk_, bn_,
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

  void body() {
    setup();

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
