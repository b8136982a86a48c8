// What the two wgmma kernel families share (wgmma.cpp: tiles loaded by cp.async in every thread;
// wgmma_tma.cpp: tiles loaded by the tensor-memory accelerator from a producer warpgroup): the
// accumulators, the wgmma.mma_async instructions over one stage of 128-byte-swizzled A and B
// tiles through matrix descriptors, and the epilogue's stores. Internal to compiler/codegen/.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "codegen/kernel_builder.h"

namespace dg::codegen {

class WgmmaBase : protected KernelBuilder {
 protected:
  WgmmaBase(const Plan& p, llvm::LLVMContext& ctx, llvm::Module& m) : KernelBuilder(p, ctx, m) {}

  /// The tile's shape and the stages' sizes, from the plan and its index description.
  void read_plan();
  /// The accumulators (zeroed), thread, lane, warpgroup and row registers, the shared-memory base,
  /// and (`origin`) the block's origin. Call at the kernel's entry.
  void setup(bool origin = true);
  /// Zero the accumulators (a persistent block's next tile).
  void zero_accumulators();

  /// The 128-byte swizzle (the plan's layout, proved bank-conflict free): 16-byte chunk c of
  /// 128-byte row r lands at r·128 + ((c ^ (r mod 8)) · 16). The copy engine's 128-byte swizzle
  /// writes the same layout into a 1024-byte-aligned buffer.
  Value* swizzled(Value* row, Value* chunk) { return smem_offset(row, chunk, 128, 3); }
  /// Offset of B's stages: after every A stage.
  Value* b_region() { return c32(stages_ * a_stage_); }

  /// The wgmma group of one K tile in `stage`: tile_k / instr_k steps on every fragment of this
  /// warpgroup, fenced before and committed after. With fine-grained fp8 scales (block_scaled_)
  /// the group writes the step's partial sums (part_at), from zero, for promote() to scale.
  void compute_stage(Value* stage);
  /// Fine-grained fp8 scales, once the stage's group retired: every accumulator e += partial e ·
  /// (A's row scale · B's block scale), one fused multiply-add. `row_scale[2·f + half]`: the scale
  /// of the thread's row f·64 + half·8 of its fragment rows; `block_scale[i]`: B's scale of the
  /// tile's i-th 128-column block (one when tile_n <= 128).
  void promote(const std::vector<Value*>& row_scale, const std::vector<Value*>& block_scale);
  /// Where epilogue() puts C through shared memory, one 128-byte column slab (64 columns of 16 bits,
  /// 32 of 32) at a time: `begin(s)` returns the shared address of slab s's buffer (this
  /// warpgroup's rows, 128 bytes each, 128-byte swizzled as swizzled() says), which the warpgroup
  /// then fills; `end(s)` stores it.
  struct Slabs {
    std::function<Value*(std::int64_t)> begin;
    std::function<void(std::int64_t)> end;
  };
  /// The accumulators, final after the last wgmma group retired, stored through the plan's
  /// epilogue: by each thread into C, or (`slabs`) into the slabs' buffers.
  void epilogue(const Slabs* slabs = nullptr);
  /// Keep every use of the accumulators below the last wgmma wait (an empty statement that takes
  /// and gives them back). epilogue() starts with it.
  void settle() { settle(acc_); }
  /// The same for the values of `array` (the accumulators, or the partial sums).
  void settle(Value* array);
  /// Accumulator e of this thread (fm · tile_n / 2 of them, m64nNk* fragment order), and its type:
  /// f32, or i32 for int8.
  Value* acc_at(std::int64_t e) { return b_.CreateConstInBoundsGEP2_32(acc_ty_, acc_, 0, static_cast<unsigned>(e)); }
  llvm::Type* acc_elem() const { return acc_elem_; }
  /// Partial sum e of the running 128-k step (block_scaled_ only), in the accumulators' order.
  Value* part_at(std::int64_t e) { return b_.CreateConstInBoundsGEP2_32(acc_ty_, part_, 0, static_cast<unsigned>(e)); }

  std::int64_t bm_ = 0, bn_ = 0, bk_ = 0, groups_ = 1, fm_ = 1, group_rows_ = 0, warp_rows_ = 16, k_tiles_ = 1;
  std::int64_t stages_ = 3, a_stage_ = 0, b_stage_ = 0, acc_per_frag_ = 0, elem_bytes_ = 2;
  bool int8_ = false;
  bool block_scaled_ = false;  // fine-grained fp8 scales (Plan::block_scaled): partial sums per 128-k step
  bool b_n_major_ = false;     // B's stage N-major (a row-major B, not 4-bit weights): slabs, transposed
  bool fresh_lane_ = false;    // the epilogue re-reads the lane (a persistent kernel's tile loop)
  Value *acc_ = nullptr, *part_ = nullptr, *group_row_ = nullptr, *group_row_bytes_ = nullptr, *warp_row_ = nullptr,
        *smem_base_ = nullptr, *warp_ = nullptr, *group_ = nullptr;

 private:
  Value* descriptor(Value* byte_address, std::uint64_t high);
  /// D += A·B on fragment f, or (`fresh`) D = A·B; D: the accumulators, or the partial sums.
  void mma(std::int64_t f, Value* desc_a, Value* desc_b, bool fresh);

  llvm::ArrayType* acc_ty_ = nullptr;
  llvm::Type* acc_elem_ = nullptr;
  char acc_c_ = 'f';
};

}  // namespace dg::codegen
