// The dgmm_* C API over the CUDA driver API (SPEC.md section 4).
//
// A handle owns: the checked module (launch record, PTX, cubin), the CUmodule and CUfunction, a
// stream, and one slot per declared operand with its binding and its lazily allocated device
// buffer. Every driver call runs with the runtime's context pushed (ContextScope) and is checked;
// failures are recorded with the driver's name and text for the error.
#include "deepgemm/runtime.h"

#include <stdint.h>
#include <stdio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "cuda_driver.h"
#include "last_error.h"
#include "module_check.h"
#include "deepgemm/w4_pack.h"

using dg::cuda::ContextScope;
using dg::cuda::CUdeviceptr;
using dg::cuda::CUresult;
using dg::cuda::Driver;
using dg::rt::CheckedModule;
using dg::rt::fail;
namespace launch_fmt = dg::ko::launch;
namespace cu = dg::cuda;

namespace {

enum class Binding { None, Host, Device };

struct OperandSlot {
  launch_fmt::Operand decl{};
  Binding binding = Binding::None;
  const void* host_in = nullptr;  // Host binding of an input
  void* host_out = nullptr;       // Host binding of an output
  CUdeviceptr user_device = 0;    // Device binding (the caller's buffer)
  CUdeviceptr owned = 0;          // the runtime's buffer, allocated on first launch
  // Packed weights: the device buffers whose header dgmm_bind_device has checked (read back once
  // per buffer, so that rebinding a checked buffer between timed launches copies nothing).
  std::vector<CUdeviceptr> checked;

  bool is_input() const { return decl.role == launch_fmt::Role::Input; }
  const char* role_name() const { return is_input() ? "input" : "output"; }
  CUdeviceptr device() const { return binding == Binding::Device ? user_device : owned; }
};

constexpr uint32_t kDefaultSharedLimit = 48 * 1024;  // without the opt-in attribute
constexpr size_t kJitLogBytes = 16 * 1024;

// Built by appending: `"literal" + std::string&&` trips a false -Wrestrict in GCC 12 at -O3.
std::string enclosed(std::string_view s, char mark) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back(mark);
  out.append(s);
  out.push_back(mark);
  return out;
}
std::string quoted(std::string_view s) { return enclosed(s, '"'); }

std::string sm_name(int cc) { return "sm_" + std::to_string(cc); }
std::string cc_dotted(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }

std::string device_words(const Driver& d) {
  return "device 0 '" + d.device_name + "' (" + sm_name(d.compute_capability()) + ")";
}

// The status for a failed module load (cubin or PTX JIT).
dgmm_status load_status(CUresult r) {
  switch (r) {
    case cu::CUDA_ERROR_INVALID_PTX:
    case cu::CUDA_ERROR_INVALID_IMAGE: return DGMM_ERROR_BAD_MODULE;
    case cu::CUDA_ERROR_NO_BINARY_FOR_GPU: return DGMM_ERROR_TARGET_MISMATCH;
    case cu::CUDA_ERROR_OUT_OF_MEMORY: return DGMM_ERROR_OUT_OF_MEMORY;
    default: return DGMM_ERROR_DRIVER;
  }
}

std::string trimmed(const char* s) {
  std::string out(s);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ' || out.back() == '\t')) {
    out.pop_back();
  }
  return out;
}

// Records the driver's failure of `what` with `status`. A kernel fault (it may surface in any call
// after the faulting kernel) is DGMM_ERROR_LAUNCH and says that the context is now unusable.
dgmm_status driver_fail(const Driver& d, dgmm_status status, const std::string& what, CUresult r) {
  if (cu::is_kernel_fault(r)) {
    return fail(DGMM_ERROR_LAUNCH, what + ": " + d.describe(r) +
                                       " (a kernel failed while running; the CUDA context cannot "
                                       "be used again in this process)");
  }
  return fail(status, what + ": " + d.describe(r));
}

dgmm_status context_fail(const Driver& d, const ContextScope& scope) {
  return driver_fail(d, DGMM_ERROR_DRIVER, "cannot make the runtime's CUDA context current", scope.result());
}

// The driver, initialized on first use; records the reason when there is none.
const Driver* get_driver() {
  const cu::InitResult& r = cu::init();
  if (r.driver == nullptr) {
    fail(r.failure == cu::InitFailure::NoDevice ? DGMM_ERROR_NO_DEVICE : DGMM_ERROR_DRIVER, r.message);
  }
  return r.driver;
}

dgmm_status out_of_host_memory() { return fail(DGMM_ERROR_OUT_OF_MEMORY, "out of host memory"); }

}  // namespace

struct dgmm_kernel {
  const Driver* drv = nullptr;
  CheckedModule mod;
  cu::CUmodule module = nullptr;
  cu::CUfunction function = nullptr;
  cu::CUstream stream = nullptr;
  bool from_cubin = false;
  int registers = 0;
  std::vector<OperandSlot> operands;
  std::string description;
  uint64_t k = 0;  // the run-time K of the next launch (the record's K until dgmm_set_k)
  // The tensor maps of the operands with a box, as last encoded, and the buffer and K they were
  // encoded for: a launch re-encodes one only when either changed. Passed by value, so a launch
  // already queued keeps the copy it was given.
  cu::TensorMap maps[launch_fmt::kMaxOperands];
  CUdeviceptr map_ptr[launch_fmt::kMaxOperands] = {};
  uint64_t map_k[launch_fmt::kMaxOperands] = {};
  // The kernel's workspace (launch record's workspace bytes, split-K): the caller's
  // (dgmm_bind_workspace) or the runtime's, allocated and zeroed on the stream at the first launch.
  CUdeviceptr workspace_user = 0;
  CUdeviceptr workspace_owned = 0;

  /// Bytes operand `op` holds at the current K: as declared at the largest K (buffers are sized
  /// for it), A and B packed at a smaller run-time K.
  uint64_t bytes_now(const OperandSlot& op) const {
    return k == mod.launch.K ? op.decl.bytes : launch_fmt::operand_bytes(mod.launch, op.decl, k);
  }

  dgmm_kernel() = default;
  dgmm_kernel(const dgmm_kernel&) = delete;
  dgmm_kernel& operator=(const dgmm_kernel&) = delete;

  // Waits for outstanding work, then releases everything; a failure is recorded, not returned.
  ~dgmm_kernel() {
    if (drv == nullptr || (module == nullptr && stream == nullptr)) return;
    const Driver& d = *drv;
    ContextScope scope(d);
    if (!scope.ok()) {
      context_fail(d, scope);
      return;
    }
    if (stream != nullptr) {
      if (CUresult r = d.cuStreamSynchronize(stream))
        driver_fail(d, DGMM_ERROR_LAUNCH, "dgmm_unload_kernel: outstanding work failed", r);
    }
    for (OperandSlot& op : operands) {
      if (op.owned != 0) {
        if (CUresult r = d.cuMemFree_v2(op.owned)) {
          driver_fail(d, DGMM_ERROR_DRIVER,
                      "dgmm_unload_kernel: cannot free the device buffer of operand " + quoted(op.decl.name), r);
        }
      }
    }
    if (workspace_owned != 0) {
      if (CUresult r = d.cuMemFree_v2(workspace_owned))
        driver_fail(d, DGMM_ERROR_DRIVER, "dgmm_unload_kernel: cannot free the workspace", r);
    }
    if (stream != nullptr) {
      if (CUresult r = d.cuStreamDestroy_v2(stream))
        driver_fail(d, DGMM_ERROR_DRIVER, "dgmm_unload_kernel: cannot destroy the stream", r);
    }
    if (module != nullptr) {
      if (CUresult r = d.cuModuleUnload(module))
        driver_fail(d, DGMM_ERROR_DRIVER, "dgmm_unload_kernel: cannot unload the module", r);
    }
  }

  // The slot named `name`, or nullptr with the error recorded.
  OperandSlot* find(const char* api, const char* name) {
    if (name == nullptr) {
      fail(DGMM_ERROR_INVALID_ARGUMENT, std::string(api) + ": operand name is NULL");
      return nullptr;
    }
    for (OperandSlot& op : operands) {
      if (std::strcmp(op.decl.name, name) == 0) return &op;
    }
    std::string known;
    for (const OperandSlot& op : operands) {
      known += (known.empty() ? "" : ", ") + quoted(op.decl.name);
    }
    fail(DGMM_ERROR_INVALID_ARGUMENT, std::string(api) + ": unknown operand " + quoted(name) + "; kernel '" +
                                          mod.launch.kernel + "' declares " + known);
    return nullptr;
  }
};

struct dgmm_fence_s {
  const Driver* drv = nullptr;
  cu::CUevent event = nullptr;
};

namespace {

// Loads the device code: the cubin when the module has one that may fit this device, else (or
// when the cubin is refused) the PTX through the driver's JIT, with its error log on failure.
dgmm_status load_code(dgmm_kernel& h) {
  const Driver& d = *h.drv;
  const launch_fmt::Launch& l = h.mod.launch;
  const int required = static_cast<int>(l.compute_capability);
  std::string cubin_failure;
  if (!h.mod.cubin.empty() && (required == 0 || required == d.compute_capability())) {
    CUresult r = d.cuModuleLoadDataEx(&h.module, h.mod.cubin.data(), 0, nullptr, nullptr);
    if (r == cu::CUDA_SUCCESS) {
      h.from_cubin = true;
      return DGMM_OK;
    }
    h.module = nullptr;
    if (r == cu::CUDA_ERROR_OUT_OF_MEMORY) {
      return driver_fail(d, DGMM_ERROR_OUT_OF_MEMORY, "cannot load the module's cubin", r);
    }
    cubin_failure = "; the module's cubin was refused first: " + d.describe(r);
  }

  std::vector<char> log(kJitLogBytes, '\0');
  cu::CUjit_option options[2] = {cu::CU_JIT_ERROR_LOG_BUFFER, cu::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[2] = {log.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(log.size() - 1))};
  CUresult r = d.cuModuleLoadDataEx(&h.module, h.mod.ptx.c_str(), 2, options, values);
  if (r == cu::CUDA_SUCCESS) return DGMM_OK;
  h.module = nullptr;
  log.back() = '\0';
  std::string msg = "PTX JIT compilation of kernel '" + std::string(l.kernel) + "' (target '" + h.mod.target_name +
                    "') for " + device_words(d) + " failed: " + d.describe(r);
  if (required != 0 && required != d.compute_capability()) {
    msg += " (the module was compiled for " + sm_name(required) + ")";
  }
  msg += cubin_failure;
  const std::string jit_log = trimmed(log.data());
  if (!jit_log.empty()) msg += "\n" + jit_log;
  return fail(load_status(r), msg);
}

// Checks the kernel against this device's limits and sets its shared-memory attributes.
dgmm_status configure_function(dgmm_kernel& h) {
  const Driver& d = *h.drv;
  const launch_fmt::Launch& l = h.mod.launch;
  const std::string kernel = "kernel '" + std::string(l.kernel) + "'";

  int static_smem = 0;
  if (CUresult r = d.cuFuncGetAttribute(&static_smem, cu::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, h.function)) {
    return driver_fail(d, DGMM_ERROR_DRIVER, "cannot query the static shared memory of " + kernel, r);
  }
  const uint64_t smem_total = uint64_t(l.smem_bytes) + uint64_t(static_smem);
  if (smem_total > uint64_t(d.smem_optin)) {
    return fail(DGMM_ERROR_TARGET_MISMATCH, kernel + " needs " + std::to_string(l.smem_bytes) +
                                                " bytes of dynamic and " + std::to_string(static_smem) +
                                                " bytes of static shared memory, but " + device_words(d) +
                                                " allows at most " + std::to_string(d.smem_optin) + " bytes per block");
  }
  if (smem_total > kDefaultSharedLimit) {
    if (CUresult r = d.cuFuncSetAttribute(h.function, cu::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                          static_cast<int>(l.smem_bytes))) {
      return driver_fail(d, DGMM_ERROR_DRIVER,
                         "cannot raise the dynamic shared memory limit of " + kernel + " to " +
                             std::to_string(l.smem_bytes) + " bytes",
                         r);
    }
  }
  if (CUresult r = d.cuFuncSetAttribute(h.function, cu::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                                        static_cast<int>(l.carveout_percent))) {
    return driver_fail(
        d, DGMM_ERROR_DRIVER,
        "cannot set the shared memory carve-out of " + kernel + " to " + std::to_string(l.carveout_percent) + "%", r);
  }

  int max_threads = 0;
  if (CUresult r = d.cuFuncGetAttribute(&max_threads, cu::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, h.function)) {
    return driver_fail(d, DGMM_ERROR_DRIVER, "cannot query the thread limit of " + kernel, r);
  }
  if (CUresult r = d.cuFuncGetAttribute(&h.registers, cu::CU_FUNC_ATTRIBUTE_NUM_REGS, h.function)) {
    return driver_fail(d, DGMM_ERROR_DRIVER, "cannot query the register use of " + kernel, r);
  }
  const uint64_t threads = uint64_t(l.block[0]) * l.block[1] * l.block[2];
  if (threads > uint64_t(max_threads)) {
    return fail(DGMM_ERROR_TARGET_MISMATCH, kernel + " is launched with " + std::to_string(threads) +
                                                " threads per block, but with " + std::to_string(h.registers) +
                                                " registers per thread it can run at most " +
                                                std::to_string(max_threads) + " on " + device_words(d));
  }
  return DGMM_OK;
}

std::string describe_handle(const dgmm_kernel& h) {
  const launch_fmt::Launch& l = h.mod.launch;
  const Driver& d = *h.drv;
  std::string s = "kernel '" + std::string(l.kernel) + "' (target '" + h.mod.target_name + "'";
  if (l.compute_capability != 0) s += ", " + sm_name(static_cast<int>(l.compute_capability));
  s += ") from ";
  s += h.from_cubin ? "cubin" : "PTX (JIT)";
  s += " on " + device_words(d) + ", grid " + std::to_string(l.grid[0]) + "x" + std::to_string(l.grid[1]) + "x" +
       std::to_string(l.grid[2]) + ", block " + std::to_string(l.block[0]) + "x" + std::to_string(l.block[1]) + "x" +
       std::to_string(l.block[2]) + ", " + std::to_string(l.smem_bytes) + " bytes dynamic shared memory, carve-out " +
       std::to_string(l.carveout_percent) + "%, " + std::to_string(h.registers) +
       " registers, M=" + std::to_string(l.M) + " N=" + std::to_string(l.N) + " K=" + std::to_string(l.K);
  if (l.batch != 1) s += " batch=" + std::to_string(l.batch);
  return s;
}

dgmm_handle load(const uint8_t* data, size_t size, const std::string& source) {
  auto h = std::make_unique<dgmm_kernel>();
  if (dg::rt::check_module(data, size, source, &h->mod) != DGMM_OK) return nullptr;
  const launch_fmt::Launch& l = h->mod.launch;

  h->drv = get_driver();
  if (h->drv == nullptr) return nullptr;
  const Driver& d = *h->drv;

  const int required = static_cast<int>(l.compute_capability);
  if (required != 0 && d.compute_capability() < required) {
    fail(DGMM_ERROR_TARGET_MISMATCH, "module " + source + " (target '" + h->mod.target_name +
                                         "') requires compute capability " + cc_dotted(required) + " (" +
                                         sm_name(required) + "), but device 0 '" + d.device_name +
                                         "' has compute capability " + cc_dotted(d.compute_capability()) + " (" +
                                         sm_name(d.compute_capability()) + ")");
    return nullptr;
  }

  ContextScope scope(d);
  if (!scope.ok()) {
    context_fail(d, scope);
    return nullptr;
  }
  if (load_code(*h) != DGMM_OK) return nullptr;
  if (CUresult r = d.cuModuleGetFunction(&h->function, h->module, l.kernel)) {
    driver_fail(d, r == cu::CUDA_ERROR_NOT_FOUND ? DGMM_ERROR_BAD_MODULE : DGMM_ERROR_DRIVER,
                "kernel '" + std::string(l.kernel) + "' named by the launch record of module " + source +
                    " is not in its " + (h->from_cubin ? "cubin" : "PTX"),
                r);
    return nullptr;
  }
  if (configure_function(*h) != DGMM_OK) return nullptr;
  // An ordinary (blocking) stream: it waits for work on the legacy default stream, so device
  // buffers filled with plain cudaMemcpy/cuMemcpy calls before dgmm_bind_device are ready.
  if (CUresult r = d.cuStreamCreate(&h->stream, cu::CU_STREAM_DEFAULT)) {
    h->stream = nullptr;
    driver_fail(d, DGMM_ERROR_DRIVER, "cannot create a CUDA stream", r);
    return nullptr;
  }
  h->k = l.K;
  h->operands.resize(l.operand_count);
  for (uint32_t i = 0; i < l.operand_count; ++i) h->operands[i].decl = l.operands[i];
  h->description = describe_handle(*h);
  return h.release();
}

// Reads a whole file; records DGMM_ERROR_IO (with the system's reason) on failure.
bool read_file(const char* path, std::vector<uint8_t>* out) {
  const std::string where = "cannot read module '" + std::string(path) + "'";
  FILE* f = fopen(path, "rb");
  if (f == nullptr) {
    fail(DGMM_ERROR_IO, where + ": " + std::strerror(errno));
    return false;
  }
  std::unique_ptr<FILE, int (*)(FILE*)> closer(f, fclose);
  uint8_t chunk[64 * 1024];
  for (;;) {
    const size_t n = fread(chunk, 1, sizeof(chunk), f);
    out->insert(out->end(), chunk, chunk + n);
    if (out->size() > 0xFFFFFFFFull) {
      fail(DGMM_ERROR_BAD_MODULE, where + ": larger than any module (4 GiB)");
      return false;
    }
    if (n < sizeof(chunk)) break;
  }
  if (ferror(f)) {
    fail(DGMM_ERROR_IO, where + ": " + std::strerror(errno));
    return false;
  }
  return true;
}

dgmm_status bind(dgmm_handle h, const char* api, const char* name, bool as_input, const void* in, void* out) {
  if (h == nullptr) return fail(DGMM_ERROR_INVALID_ARGUMENT, std::string(api) + ": handle is NULL");
  OperandSlot* op = h->find(api, name);
  if (op == nullptr) return dgmm_last_error_code();
  if (op->is_input() != as_input) {
    return fail(DGMM_ERROR_INVALID_ARGUMENT, std::string(api) + ": operand " + quoted(name) + " is an " +
                                                 op->role_name() + "; bind it with " +
                                                 (op->is_input() ? "dgmm_bind_input" : "dgmm_bind_output"));
  }
  if ((as_input ? in : out) == nullptr) {
    return fail(DGMM_ERROR_INVALID_ARGUMENT,
                std::string(api) + ": host pointer for operand " + quoted(name) + " is NULL");
  }
  // Packed 4-bit weights carry a header naming their layout, K and N: weights packed for another
  // module (or not packed at all) are refused here rather than read as garbage.
  if (as_input && op->decl.packing != 0) {
    if (const char* why = dg::ko::w4::check_header(static_cast<const uint8_t*>(in), op->decl.bytes, op->decl.packing,
                                                   h->mod.launch.K, h->mod.launch.N))
      return fail(DGMM_ERROR_INVALID_ARGUMENT,
                  std::string(api) + ": operand " + quoted(name) + ": " + why + " (this module reads layout " +
                      dg::ko::w4::layout_name(op->decl.packing) + " for K " + std::to_string(h->mod.launch.K) + ", N " +
                      std::to_string(h->mod.launch.N) + ")");
  }
  op->binding = Binding::Host;
  op->host_in = in;
  op->host_out = out;
  op->user_device = 0;
  return DGMM_OK;
}

// Enqueues the work of dgmm_launch (copies == true) or dgmm_launch_kernel_only.
dgmm_status enqueue(dgmm_handle h, bool copies) {
  const char* api = copies ? "dgmm_launch" : "dgmm_launch_kernel_only";
  if (h == nullptr) return fail(DGMM_ERROR_INVALID_ARGUMENT, std::string(api) + ": handle is NULL");
  std::string unbound;
  for (const OperandSlot& op : h->operands) {
    if (op.binding == Binding::None) {
      unbound += std::string(unbound.empty() ? "" : ", ") + quoted(op.decl.name) + " (" + op.role_name() + ", " +
                 std::to_string(h->bytes_now(op)) + " bytes)";
    }
  }
  if (!unbound.empty()) {
    return fail(DGMM_ERROR_UNBOUND_OPERAND,
                std::string(api) + ": kernel '" + h->mod.launch.kernel + "' has unbound operands: " + unbound +
                    "; bind every operand (dgmm_bind_input, dgmm_bind_output or dgmm_bind_device) "
                    "before launching");
  }
  if (!copies) {
    for (const OperandSlot& op : h->operands) {
      if (op.binding == Binding::Host && op.owned == 0) {
        return fail(DGMM_ERROR_INVALID_STATE,
                    std::string(api) + ": operand " + quoted(op.decl.name) +
                        " is bound to host memory but not resident on the device: run dgmm_launch "
                        "once, or bind a device buffer with dgmm_bind_device");
      }
    }
  }

  const Driver& d = *h->drv;
  ContextScope scope(d);
  if (!scope.ok()) return context_fail(d, scope);

  if (copies) {
    for (OperandSlot& op : h->operands) {
      if (op.binding != Binding::Host || op.owned != 0) continue;
      CUdeviceptr p = 0;
      if (CUresult r = d.cuMemAlloc_v2(&p, static_cast<size_t>(op.decl.bytes))) {
        return driver_fail(d, r == cu::CUDA_ERROR_OUT_OF_MEMORY ? DGMM_ERROR_OUT_OF_MEMORY : DGMM_ERROR_DRIVER,
                           std::string(api) + ": cannot allocate " + std::to_string(op.decl.bytes) +
                               " bytes of device memory for operand " + quoted(op.decl.name),
                           r);
      }
      op.owned = p;
    }
    for (const OperandSlot& op : h->operands) {
      if (op.binding != Binding::Host || !op.is_input()) continue;
      if (CUresult r = d.cuMemcpyHtoDAsync_v2(op.owned, op.host_in, static_cast<size_t>(h->bytes_now(op)), h->stream)) {
        return driver_fail(d, DGMM_ERROR_DRIVER,
                           std::string(api) + ": cannot copy input " + quoted(op.decl.name) + " to the device", r);
      }
    }
  }

  const launch_fmt::Launch& l = h->mod.launch;
  // The workspace: the caller's, or the runtime's, allocated once and zeroed in the stream before
  // the first kernel that uses it (kernels leave it zeroed where it must be: launch_format.h).
  CUdeviceptr workspace = h->workspace_user != 0 ? h->workspace_user : h->workspace_owned;
  if (l.workspace_bytes != 0 && workspace == 0) {
    if (CUresult r = d.cuMemAlloc_v2(&h->workspace_owned, static_cast<size_t>(l.workspace_bytes))) {
      h->workspace_owned = 0;
      return driver_fail(
          d, r == cu::CUDA_ERROR_OUT_OF_MEMORY ? DGMM_ERROR_OUT_OF_MEMORY : DGMM_ERROR_DRIVER,
          std::string(api) + ": cannot allocate the kernel's " + std::to_string(l.workspace_bytes) + "-byte workspace",
          r);
    }
    if (CUresult r = d.cuMemsetD8Async(h->workspace_owned, 0, static_cast<size_t>(l.workspace_bytes), h->stream)) {
      d.cuMemFree_v2(h->workspace_owned);
      h->workspace_owned = 0;
      return driver_fail(d, DGMM_ERROR_DRIVER, std::string(api) + ": cannot zero the kernel's workspace", r);
    }
    workspace = h->workspace_owned;
  }
  CUdeviceptr pointers[launch_fmt::kMaxOperands + 1] = {};
  int32_t sizes[3] = {static_cast<int32_t>(l.M), static_cast<int32_t>(l.N), static_cast<int32_t>(h->k)};
  void* params[2 * launch_fmt::kMaxOperands + 4] = {};
  size_t n = 0;
  for (size_t i = 0; i < h->operands.size(); ++i) {
    pointers[i] = h->operands[i].device();
    params[n++] = &pointers[i];
  }
  if (l.workspace_bytes != 0) {
    pointers[h->operands.size()] = workspace;
    params[n++] = &pointers[h->operands.size()];
  }
  for (int32_t& s : sizes) params[n++] = &s;
  // The tensor maps of the operands the copy engine reads (launch_format.h), for the buffers
  // bound now and the run-time K.
  for (size_t i = 0; i < h->operands.size(); ++i) {
    const launch_fmt::Operand& o = h->operands[i].decl;
    if (o.box_inner == 0) continue;
    params[n++] = &h->maps[i];
    if (h->map_ptr[i] == pointers[i] && h->map_k[i] == h->k) continue;
    // (Every buffer is 16-byte aligned, as the copy engine needs: dgmm_bind_device refuses
    // others, and the runtime's own come from cuMemAlloc.)
    const char which = o.name[0];  // A (M×K), B (K×N) or C (M×N, which the kernel stores through the map)
    const uint64_t rows = which == 'B' ? h->k : l.M, cols = which == 'A' ? h->k : l.N;
    const uint64_t dims[2] = {o.row_major ? cols : rows, o.row_major ? rows : cols};
    const uint64_t ld = o.ld_is_k ? h->k : o.ld;
    const uint64_t strides[1] = {ld * o.element_bits / 8};
    const uint32_t box[2] = {o.box_inner, o.box_outer};
    const uint32_t element_strides[2] = {1, 1};
    const cu::CUtensorMapDataType type = o.element_bits == 8    ? cu::CU_TENSOR_MAP_DATA_TYPE_UINT8
                                         : o.element_bits == 16 ? cu::CU_TENSOR_MAP_DATA_TYPE_UINT16
                                                                : cu::CU_TENSOR_MAP_DATA_TYPE_UINT32;
    if (CUresult r = d.cuTensorMapEncodeTiled(
            &h->maps[i], type, 2, reinterpret_cast<void*>(static_cast<uintptr_t>(pointers[i])), dims, strides, box,
            element_strides, cu::CU_TENSOR_MAP_INTERLEAVE_NONE, cu::CU_TENSOR_MAP_SWIZZLE_128B,
            cu::CU_TENSOR_MAP_L2_PROMOTION_L2_256B, cu::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)) {
      return driver_fail(d, DGMM_ERROR_DRIVER,
                         std::string(api) + ": cannot describe operand " + quoted(o.name) +
                             " to the tensor-memory accelerator (cuTensorMapEncodeTiled)",
                         r);
    }
    h->map_ptr[i] = pointers[i];
    h->map_k[i] = h->k;
  }
  if (CUresult r = d.cuLaunchKernel(h->function, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
                                    l.smem_bytes, h->stream, params, nullptr)) {
    return driver_fail(d, DGMM_ERROR_LAUNCH, std::string(api) + ": cannot launch kernel '" + l.kernel + "'", r);
  }

  if (copies) {
    for (const OperandSlot& op : h->operands) {
      if (op.binding != Binding::Host || op.is_input()) continue;
      if (CUresult r =
              d.cuMemcpyDtoHAsync_v2(op.host_out, op.owned, static_cast<size_t>(h->bytes_now(op)), h->stream)) {
        return driver_fail(d, DGMM_ERROR_DRIVER,
                           std::string(api) + ": cannot copy output " + quoted(op.decl.name) + " back to the host", r);
      }
    }
  }
  return DGMM_OK;
}

}  // namespace

// ---- The C API ---------------------------------------------------------------------------------
// Each entry point catches everything: nothing may unwind into C.

extern "C" {

dgmm_handle dgmm_load_kernel(const char* path) {
  try {
    if (path == nullptr) {
      fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_load_kernel: path is NULL");
      return nullptr;
    }
    std::vector<uint8_t> image;
    if (!read_file(path, &image)) return nullptr;
    return load(image.data(), image.size(), enclosed(path, '\''));
  } catch (...) {
    out_of_host_memory();
    return nullptr;
  }
}

dgmm_handle dgmm_load_kernel_from_memory(const void* data, size_t size) {
  try {
    if (data == nullptr) {
      fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_load_kernel_from_memory: data is NULL");
      return nullptr;
    }
    return load(static_cast<const uint8_t*>(data), size, "in memory");
  } catch (...) {
    out_of_host_memory();
    return nullptr;
  }
}

void dgmm_unload_kernel(dgmm_handle handle) {
  try {
    delete handle;
  } catch (...) {
    out_of_host_memory();
  }
}

void* dgmm_alloc_host(size_t bytes) {
  try {
    if (bytes == 0) {
      fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_alloc_host: size is 0");
      return nullptr;
    }
    const Driver* d = get_driver();
    if (d == nullptr) return nullptr;
    ContextScope scope(*d);
    if (!scope.ok()) {
      context_fail(*d, scope);
      return nullptr;
    }
    void* p = nullptr;
    if (CUresult r = d->cuMemAllocHost_v2(&p, bytes)) {
      driver_fail(*d, r == cu::CUDA_ERROR_OUT_OF_MEMORY ? DGMM_ERROR_OUT_OF_MEMORY : DGMM_ERROR_DRIVER,
                  "dgmm_alloc_host: cannot allocate " + std::to_string(bytes) + " bytes of page-locked host memory", r);
      return nullptr;
    }
    return p;
  } catch (...) {
    out_of_host_memory();
    return nullptr;
  }
}

void dgmm_free_host(void* ptr) {
  try {
    if (ptr == nullptr) return;
    const Driver* d = get_driver();
    if (d == nullptr) return;
    ContextScope scope(*d);
    if (!scope.ok()) {
      context_fail(*d, scope);
      return;
    }
    if (CUresult r = d->cuMemFreeHost(ptr)) {
      driver_fail(*d, DGMM_ERROR_INVALID_ARGUMENT, "dgmm_free_host: cannot free the memory (not from dgmm_alloc_host?)",
                  r);
    }
  } catch (...) {
    out_of_host_memory();
  }
}

dgmm_status dgmm_bind_input(dgmm_handle handle, const char* name, const void* host_ptr) {
  try {
    return bind(handle, "dgmm_bind_input", name, true, host_ptr, nullptr);
  } catch (...) {
    return out_of_host_memory();
  }
}

dgmm_status dgmm_bind_output(dgmm_handle handle, const char* name, void* host_ptr) {
  try {
    return bind(handle, "dgmm_bind_output", name, false, nullptr, host_ptr);
  } catch (...) {
    return out_of_host_memory();
  }
}

dgmm_status dgmm_bind_device(dgmm_handle handle, const char* name, unsigned long long device_ptr) {
  try {
    if (handle == nullptr) return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_bind_device: handle is NULL");
    OperandSlot* op = handle->find("dgmm_bind_device", name);
    if (op == nullptr) return dgmm_last_error_code();
    if (device_ptr == 0) {
      return fail(DGMM_ERROR_INVALID_ARGUMENT,
                  "dgmm_bind_device: device pointer for operand " + quoted(name) + " is 0");
    }
    // The kernels move whole aligned words (16-byte loads of A and B, paired stores of C, the bias
    // pair): a misaligned buffer would fault the kernel, so it is refused here.
    if (device_ptr % 16 != 0) {
      return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_bind_device: device pointer for operand " + quoted(name) +
                                                   " is not 16-byte aligned (cuMemAlloc's buffers are)");
    }
    // Packed weights in device memory: their header is read back and checked as for a host buffer.
    const bool known = std::find(op->checked.begin(), op->checked.end(), device_ptr) != op->checked.end();
    if (op->decl.packing != 0 && !known) {
      const Driver& d = *handle->drv;
      ContextScope scope(d);
      if (!scope.ok()) return context_fail(d, scope);
      uint8_t header[dg::ko::w4::kHeaderBytes];
      if (CUresult r = d.cuMemcpyDtoH_v2(header, device_ptr, sizeof header))
        return driver_fail(d, DGMM_ERROR_INVALID_ARGUMENT,
                           "dgmm_bind_device: cannot read the header of packed operand " + quoted(name), r);
      if (const char* why = dg::ko::w4::check_header(header, sizeof header, op->decl.packing, handle->mod.launch.K,
                                                     handle->mod.launch.N))
        return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_bind_device: operand " + quoted(name) + ": " + why);
      if (op->checked.size() >= 64) op->checked.erase(op->checked.begin());
      op->checked.push_back(device_ptr);
    }
    op->binding = Binding::Device;
    op->host_in = nullptr;
    op->host_out = nullptr;
    op->user_device = device_ptr;
    return DGMM_OK;
  } catch (...) {
    return out_of_host_memory();
  }
}

dgmm_status dgmm_pack_weights(dgmm_handle handle, const char* name, const void* plain, int order, void* packed,
                              size_t packed_bytes) {
  try {
    if (handle == nullptr) return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_pack_weights: handle is NULL");
    OperandSlot* op = handle->find("dgmm_pack_weights", name);
    if (op == nullptr) return dgmm_last_error_code();
    if (op->decl.packing == 0)
      return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_pack_weights: operand " + quoted(name) +
                                                   " is not packed weights in this module (kernel '" +
                                                   handle->mod.launch.kernel + "')");
    if (plain == nullptr || packed == nullptr)
      return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_pack_weights: a buffer is NULL");
    if (order != DGMM_WEIGHTS_K_BY_N && order != DGMM_WEIGHTS_N_BY_K)
      return fail(
          DGMM_ERROR_INVALID_ARGUMENT,
          "dgmm_pack_weights: order is DGMM_WEIGHTS_K_BY_N or DGMM_WEIGHTS_N_BY_K, not " + std::to_string(order));
    const launch_fmt::Launch& l = handle->mod.launch;
    if (packed_bytes < op->decl.bytes)
      return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_pack_weights: the packed buffer has " +
                                                   std::to_string(packed_bytes) + " bytes; operand " + quoted(name) +
                                                   " needs " + std::to_string(op->decl.bytes));
    if (const char* why =
            dg::ko::w4::pack(static_cast<const uint8_t*>(plain),
                             order == DGMM_WEIGHTS_K_BY_N ? dg::ko::w4::Order::KByN : dg::ko::w4::Order::NByK, l.K, l.N,
                             op->decl.packing, static_cast<uint8_t*>(packed), packed_bytes))
      return fail(DGMM_ERROR_INVALID_ARGUMENT, std::string("dgmm_pack_weights: ") + why);
    return DGMM_OK;
  } catch (...) {
    return out_of_host_memory();
  }
}

dgmm_status dgmm_set_k(dgmm_handle handle, uint32_t k) {
  try {
    if (handle == nullptr) return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_set_k: handle is NULL");
    const launch_fmt::Launch& l = handle->mod.launch;
    if (l.K_min == l.K && k != l.K) {
      return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_set_k: kernel '" + std::string(l.kernel) +
                                                   "' was compiled for K = " + std::to_string(l.K) +
                                                   " only (declare K_min and K_max in the spec for a run-time K)");
    }
    if (k < l.K_min || k > l.K) {
      return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_set_k: K = " + std::to_string(k) +
                                                   " is outside the module's range [" + std::to_string(l.K_min) + ", " +
                                                   std::to_string(l.K) + "]");
    }
    if (k % l.k_align != 0) {
      return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_set_k: K = " + std::to_string(k) + " is not a multiple of " +
                                                   std::to_string(l.k_align) +
                                                   " (rows of A start on 16-byte boundaries)");
    }
    handle->k = k;
    return DGMM_OK;
  } catch (...) {
    return out_of_host_memory();
  }
}

dgmm_status dgmm_launch(dgmm_handle handle) {
  try {
    return enqueue(handle, true);
  } catch (...) {
    return out_of_host_memory();
  }
}

dgmm_status dgmm_launch_kernel_only(dgmm_handle handle) {
  try {
    return enqueue(handle, false);
  } catch (...) {
    return out_of_host_memory();
  }
}

dgmm_fence dgmm_sync(dgmm_handle handle) {
  try {
    if (handle == nullptr) {
      fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_sync: handle is NULL");
      return nullptr;
    }
    const Driver& d = *handle->drv;
    auto fence = std::make_unique<dgmm_fence_s>();
    fence->drv = &d;
    ContextScope scope(d);
    if (!scope.ok()) {
      context_fail(d, scope);
      return nullptr;
    }
    if (CUresult r = d.cuEventCreate(&fence->event, cu::CU_EVENT_DISABLE_TIMING)) {
      driver_fail(d, DGMM_ERROR_DRIVER, "dgmm_sync: cannot create an event", r);
      return nullptr;
    }
    if (CUresult r = d.cuEventRecord(fence->event, handle->stream)) {
      d.cuEventDestroy_v2(fence->event);
      driver_fail(d, DGMM_ERROR_DRIVER, "dgmm_sync: cannot record an event", r);
      return nullptr;
    }
    return fence.release();
  } catch (...) {
    out_of_host_memory();
    return nullptr;
  }
}

dgmm_status dgmm_wait(dgmm_fence fence) {
  if (fence == nullptr) return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_wait: fence is NULL");
  std::unique_ptr<dgmm_fence_s> owner(fence);
  try {
    const Driver& d = *fence->drv;
    ContextScope scope(d);
    if (!scope.ok()) return context_fail(d, scope);
    const CUresult r = d.cuEventSynchronize(fence->event);
    d.cuEventDestroy_v2(fence->event);
    if (r != cu::CUDA_SUCCESS) {
      return driver_fail(d, DGMM_ERROR_LAUNCH, "dgmm_wait: the kernel or a copy failed while running", r);
    }
    return DGMM_OK;
  } catch (...) {
    return out_of_host_memory();
  }
}

dgmm_status dgmm_operand_info(dgmm_handle handle, const char* name, size_t* bytes, int* element_bits) {
  try {
    if (handle == nullptr) {
      return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_operand_info: handle is NULL");
    }
    const OperandSlot* op = handle->find("dgmm_operand_info", name);
    if (op == nullptr) return dgmm_last_error_code();
    if (bytes != nullptr) *bytes = static_cast<size_t>(handle->bytes_now(*op));
    if (element_bits != nullptr) *element_bits = static_cast<int>(op->decl.element_bits);
    return DGMM_OK;
  } catch (...) {
    return out_of_host_memory();
  }
}

dgmm_status dgmm_workspace_bytes(dgmm_handle handle, size_t* bytes) {
  if (handle == nullptr) return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_workspace_bytes: handle is NULL");
  if (bytes == nullptr) return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_workspace_bytes: bytes is NULL");
  *bytes = static_cast<size_t>(handle->mod.launch.workspace_bytes);
  return DGMM_OK;
}

dgmm_status dgmm_bind_workspace(dgmm_handle handle, unsigned long long device_ptr) {
  if (handle == nullptr) return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_bind_workspace: handle is NULL");
  if (handle->mod.launch.workspace_bytes == 0) {
    try {
      return fail(DGMM_ERROR_INVALID_ARGUMENT,
                  "dgmm_bind_workspace: kernel '" + std::string(handle->mod.launch.kernel) + "' takes no workspace");
    } catch (...) {
      return out_of_host_memory();
    }
  }
  if (device_ptr % 16 != 0)
    return fail(DGMM_ERROR_INVALID_ARGUMENT, "dgmm_bind_workspace: the workspace is not 16-byte aligned");
  // 0 gives the workspace back to the runtime (its own, allocated and zeroed at the next launch).
  handle->workspace_user = static_cast<CUdeviceptr>(device_ptr);
  return DGMM_OK;
}

const char* dgmm_kernel_description(dgmm_handle handle) { return handle != nullptr ? handle->description.c_str() : ""; }

void* dgmm_stream(dgmm_handle handle) { return handle != nullptr ? static_cast<void*>(handle->stream) : nullptr; }

}  // extern "C"
