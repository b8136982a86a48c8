#include "codegen/nvptx_emit.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Triple.h>

#include <mutex>

#include "support/error.h"

namespace dg::codegen {

std::string print_ir(const llvm::Module& m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return os.str();
}

std::string emit_ptx(llvm::Module& m, const std::string& arch, const std::string& ptx_features) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  const std::string triple = "nvptx64-nvidia-cuda";
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, err);
  DG_INTERNAL_ASSERT(target != nullptr, "NVPTX target missing from LLVM: " + err);
  llvm::TargetOptions opts;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(triple, arch, ptx_features, opts, std::nullopt,
                                                                      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  DG_INTERNAL_ASSERT(tm != nullptr, "cannot create the NVPTX target machine for " + arch);
  m.setTargetTriple(triple);
  m.setDataLayout(tm->createDataLayout());

  std::string verify;
  llvm::raw_string_ostream vs(verify);
  DG_INTERNAL_ASSERT(!llvm::verifyModule(m, &vs), "generated LLVM IR is invalid: " + vs.str());

  {  // O3 with the NVPTX callbacks
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(tm.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    mpm.run(m, mam);
  }

  llvm::SmallString<0> buf;
  llvm::raw_svector_ostream out(buf);
  llvm::legacy::PassManager pm;
  DG_INTERNAL_ASSERT(!tm->addPassesToEmitFile(pm, out, nullptr, llvm::CodeGenFileType::AssemblyFile),
                     "NVPTX cannot emit assembly");
  pm.run(m);
  return std::string(buf.str());
}

}  // namespace dg::codegen
