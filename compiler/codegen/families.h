// The kernel families behind make_ptx_backend: one generator per instruction family, each in its
// own file (mma_sync.cpp, mma_sync_m8n8k4.cpp, wgmma.cpp, simt.cpp). Internal to compiler/codegen/.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <array>
#include <string>

#include "codegen/ptx_backend.h"

namespace dg::codegen {

/// Build the kernel `name` for `plan` into `m`; returns its launch shape.
LaunchInfo build_mma_sync(const Plan& plan, llvm::LLVMContext& ctx, llvm::Module& m, const std::string& name);
LaunchInfo build_mma_sync_m8n8k4(const Plan& plan, llvm::LLVMContext& ctx, llvm::Module& m, const std::string& name);
LaunchInfo build_wgmma(const Plan& plan, llvm::LLVMContext& ctx, llvm::Module& m, const std::string& name);
/// With the plan's persistent_blocks > 0, that many blocks loop over the tiles.
LaunchInfo build_wgmma_tma(const Plan& plan, llvm::LLVMContext& ctx, llvm::Module& m, const std::string& name);
/// 4-bit weights (the plan's loader "registers"): packed weights streamed into registers (w4a16.cpp).
LaunchInfo build_w4a16(const Plan& plan, const hw::HwModel& hw, llvm::LLVMContext& ctx, llvm::Module& m,
                       const std::string& name);
LaunchInfo build_simt(const Plan& plan, llvm::LLVMContext& ctx, llvm::Module& m, const std::string& name);

/// Why the family cannot generate `plan` beyond what every family shares ("" when it can).
std::string mma_sync_unsupported(const Plan& plan, const hw::HwModel& hw);
std::string mma_sync_m8n8k4_unsupported(const Plan& plan, const hw::HwModel& hw);
std::string wgmma_unsupported(const Plan& plan, const hw::HwModel& hw);
std::string wgmma_tma_unsupported(const Plan& plan, const hw::HwModel& hw);
std::string w4a16_unsupported(const Plan& plan, const hw::HwModel& hw);
std::string simt_unsupported(const Plan& plan, const hw::HwModel& hw);

/// One 32-bit word of eight packed 4-bit weights (the n8k128 layouts of <deepgemm/w4_pack.h>:
/// nibble p holds k0 + kPerm[p]) → four fp16x2 (bf16x2 with `bf16`) registers, register i holding
/// the weights of k0 + 2i and k0 + 2i + 1 exactly; `e2m1`: FP4 E2M1 codes, else int4/u4 (stored
/// v + 8). w4a16.cpp; the wgmma TMA kernel's producer converts with it too.
std::array<llvm::Value*, 4> convert_w4_word(llvm::IRBuilder<>& b, llvm::Value* word, bool bf16, bool e2m1);

}  // namespace dg::codegen
