// The GPU backend: a Plan becomes an LLVM IR kernel (IRBuilder, NVVM intrinsics), then PTX through
// LLVM's NVPTX back end in-process, then — where ptxas is found — a cubin with its register,
// shared-memory and spill figures. Families are one file each (mma_sync.cpp; wgmma joins later);
// make_ptx_backend picks one from the plan and the hardware model.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hw/hw_model.h"
#include "plan/plan.h"

namespace llvm {
class Module;
class LLVMContext;
}  // namespace llvm

namespace dg::codegen {

/// Launch facts the runtime needs (they go into the module's LAUNCH section).
struct LaunchInfo {
  std::string kernel;
  std::uint32_t grid[3] = {1, 1, 1};
  std::uint32_t block[3] = {1, 1, 1};
  std::uint32_t smem_bytes = 0;
  std::uint32_t compute_capability = 0;  // e.g. 90
  // Tensor-map boxes of A, B and C (elements along the contiguous dimension, rows); {0, 0} when
  // the kernel takes no tensor map for the operand.
  std::uint32_t box[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  // Bytes of the global workspace the kernel takes after its operand pointers (split-K's
  // counters and partial tiles), zeroed before its first launch; 0: no workspace parameter.
  std::uint64_t workspace_bytes = 0;
};

struct PtxasReport {
  bool ran = false;
  std::string tool;     // path of ptxas
  std::string not_run;  // why it did not assemble this kernel (ran == false): not found, or no such target
  int registers = 0;
  int spill_stores = 0, spill_loads = 0;
  int smem_static = 0;
  std::string log;  // ptxas -v output
  std::vector<std::uint8_t> cubin;
};

struct Artifacts {
  std::string llvm_ir;  // --emit=llvm
  std::string ptx;      // --emit=ptx
  LaunchInfo launch;
  PtxasReport ptxas;
};

class PtxBackend {
 public:
  virtual ~PtxBackend() = default;
  /// Build the kernel for `plan`; throws UserError when the plan asks for something this family
  /// does not generate (the message says what).
  virtual Artifacts generate(const Plan& plan) = 0;
};

/// The backend for a GPU target model.
std::unique_ptr<PtxBackend> make_ptx_backend(const hw::HwModel& model);

/// Why this backend cannot generate `plan` ("" when it can): checked before the solver's answer
/// is accepted, so the next-best plan can be tried.
std::string unsupported_reason(const Plan& plan, const hw::HwModel& model);

/// Run ptxas (PATH, then /usr/local/cuda/bin) on `ptx` for `arch`; ran == false when not found.
PtxasReport run_ptxas(const std::string& ptx, const std::string& arch);

}  // namespace dg::codegen
