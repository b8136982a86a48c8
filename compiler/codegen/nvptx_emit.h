// In-process LLVM → PTX: optimize an NVPTX module (O3) and print it with the NVPTX TargetMachine.
#pragma once

#include <string>

namespace llvm {
class Module;
}

namespace dg::codegen {

/// `arch` like "sm_90a", `ptx_features` like "+ptx85". Returns PTX text; throws InternalError.
std::string emit_ptx(llvm::Module& m, const std::string& arch, const std::string& ptx_features);

/// The module as LLVM IR text.
std::string print_ir(const llvm::Module& m);

}  // namespace dg::codegen
