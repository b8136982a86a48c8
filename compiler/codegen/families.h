// The kernel families behind make_ptx_backend: one generator per instruction family, each in its
// own file (mma_sync.cpp, mma_sync_m8n8k4.cpp, wgmma.cpp, simt.cpp). Internal to compiler/codegen/.
#pragma once

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

}  // namespace dg::codegen
