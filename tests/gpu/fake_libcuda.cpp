// A fake CUDA driver (libcuda.so.1) for testing the runtime on machines without a GPU.
//
// It checks how the runtime uses the driver, not the GPU: every entry point the runtime looks up
// exists with the signature of cuda_driver.h; calls that need a context fail unless one is current
// (push/pop balance); handles must be ones it gave out; copies must stay inside allocations; at
// exit every module, stream, event and allocation must have been released (else the process exits
// with 99). "Device" memory is host memory, work runs synchronously when it is enqueued, and the
// only kernel it can run is the tests' dg_add (add_f32.ptx): C = A + B over M x N floats, or
// C = A - B when the PTX says sub.f32. A launch whose pointers fall outside every allocation
// "faults": like a real device, the context then fails every call with CUDA_ERROR_ILLEGAL_ADDRESS.
//
// Environment: DG_FAKE_CC (compute capability, default 90), DG_FAKE_DEVICES (default 1).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda_driver.h"

using namespace dg::cuda;

namespace {

constexpr CUresult kInvalidContext = CUDA_ERROR_INVALID_CONTEXT;
constexpr CUresult kInvalidHandle = CUDA_ERROR_INVALID_HANDLE;
constexpr CUresult kIllegalAddress = CUDA_ERROR_ILLEGAL_ADDRESS;
constexpr CUresult kNotSupported = CUDA_ERROR_NOT_SUPPORTED;
constexpr int kOptinSmem = 227 * 1024;

struct FakeModule {
  bool subtract = false;
  std::set<std::string> entries;
};
struct FakeFunction {
  FakeModule* module = nullptr;
  std::string name;
  int max_dynamic_smem = 48 * 1024;
  int carveout = -1;
};

struct State {
  std::mutex mu;
  bool initialized = false;
  CUresult sticky = CUDA_SUCCESS;
  std::map<uintptr_t, size_t> device;  // allocations: address -> bytes
  std::set<void*> pinned;
  std::set<FakeModule*> modules;
  std::set<FakeFunction*> functions;
  std::set<CUstream> streams;
  std::set<CUevent> events;
};
State& state() {
  static State* s = new State;  // never destroyed: objects a faulted context keeps stay reachable
  return *s;
}

thread_local std::vector<CUcontext> t_stack;
alignas(64) char g_primary_context_storage[64];
CUcontext primary() { return reinterpret_cast<CUcontext>(g_primary_context_storage); }

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

// The checks at the top of every call that needs a context.
CUresult enter(State& s) {
  if (!s.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (t_stack.empty() || t_stack.back() != primary()) return kInvalidContext;
  return s.sticky;
}

bool inside(const State& s, uintptr_t p, size_t n) {
  auto it = s.device.upper_bound(p);
  if (it == s.device.begin()) return false;
  --it;
  return p >= it->first && p - it->first + n <= it->second;
}

bool known_stream(const State& s, CUstream st) { return st == nullptr || s.streams.count(st) != 0; }

void leak_check() {
  State& s = state();
  if (s.sticky != CUDA_SUCCESS) return;  // a spoiled context cannot release anything
  const size_t leaks = s.device.size() + s.pinned.size() + s.modules.size() + s.streams.size() + s.events.size();
  if (leaks != 0) {
    std::fprintf(stderr,
                 "fake libcuda: leaked at exit: %zu device allocations, %zu page-locked, %zu "
                 "modules, %zu streams, %zu events\n",
                 s.device.size(), s.pinned.size(), s.modules.size(), s.streams.size(), s.events.size());
    std::fflush(stderr);
    std::_Exit(99);
  }
}

const char* error_name(CUresult r) {
  switch (r) {
    case CUDA_SUCCESS: return "CUDA_SUCCESS";
    case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
    case CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
    case CUDA_ERROR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
    case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
    case CUDA_ERROR_INVALID_IMAGE: return "CUDA_ERROR_INVALID_IMAGE";
    case CUDA_ERROR_NO_BINARY_FOR_GPU: return "CUDA_ERROR_NO_BINARY_FOR_GPU";
    case kInvalidContext: return "CUDA_ERROR_INVALID_CONTEXT";
    case CUDA_ERROR_INVALID_PTX: return "CUDA_ERROR_INVALID_PTX";
    case kInvalidHandle: return "CUDA_ERROR_INVALID_HANDLE";
    case CUDA_ERROR_NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
    case kIllegalAddress: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case kNotSupported: return "CUDA_ERROR_NOT_SUPPORTED";
    default: return nullptr;
  }
}

}  // namespace

extern "C" {

CUresult cuGetErrorName(CUresult r, const char** out) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *out = error_name(r);
  return *out != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult r, const char** out) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *out = error_name(r) != nullptr ? "(fake driver) see the error name" : nullptr;
  return *out != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.initialized) std::atexit(leak_check);
  s.initialized = true;
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* v) {
  if (v == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *v = 13000;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* n) {
  if (!state().initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (n == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *n = env_int("DG_FAKE_DEVICES", 1);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  if (d == nullptr || ordinal < 0 || ordinal >= env_int("DG_FAKE_DEVICES", 1)) return CUDA_ERROR_INVALID_VALUE;
  *d = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice) {
  if (name == nullptr || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(name, size_t(len), "%s", "DeepGEMM fake GPU");
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice) {
  if (v == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const int cc = env_int("DG_FAKE_CC", 90);
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = cc / 10; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = cc % 10; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 4; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = kOptinSmem; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice) {
  if (!state().initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (c == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *c = primary();
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext c) {
  if (c != primary()) return kInvalidContext;
  t_stack.push_back(c);
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext* c) {
  if (t_stack.empty()) return kInvalidContext;
  if (c != nullptr) *c = t_stack.back();
  t_stack.pop_back();
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule* m, const void* image, unsigned int n, CUjit_option* options, void** values) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  if (m == nullptr || image == nullptr || (n != 0 && (options == nullptr || values == nullptr)))
    return CUDA_ERROR_INVALID_VALUE;
  char* log = nullptr;
  size_t log_size = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER) log = static_cast<char*>(values[i]);
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      log_size = static_cast<size_t>(reinterpret_cast<uintptr_t>(values[i]));
  }
  auto* mod = new FakeModule;
  const char* bytes = static_cast<const char*>(image);
  if (std::memcmp(bytes,
                  "\x7f"
                  "ELF",
                  4) == 0) {
    // A cubin (the tests' one: add_f32.ptx through ptxas). Its architecture is bits 8-15 of the
    // ELF64 e_flags (offset 48); like the real driver, it runs on the same major architecture
    // with an equal or higher minor version.
    uint32_t flags = 0;
    std::memcpy(&flags, bytes + 48, 4);
    const int sm = int((flags >> 8) & 0xff);
    const int cc = env_int("DG_FAKE_CC", 90);
    if (bytes[4] != 2 || sm / 10 != cc / 10 || sm % 10 > cc % 10) {
      delete mod;
      return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    mod->entries.insert("dg_add");
  } else {
    const std::string ptx(bytes);  // must be NUL-terminated
    if (ptx.find(".version") == std::string::npos) {
      delete mod;
      return CUDA_ERROR_INVALID_IMAGE;
    }
    if (ptx.find("frob") != std::string::npos) {
      if (log != nullptr && log_size != 0) {
        std::snprintf(log, log_size, "%s",
                      "ptxas application ptx input, line 48; error   : Not a name of any known "
                      "instruction: 'frob'\n");
      }
      delete mod;
      return CUDA_ERROR_INVALID_PTX;
    }
    for (size_t at = ptx.find(".entry "); at != std::string::npos; at = ptx.find(".entry ", at + 1)) {
      const size_t start = at + 7;
      const size_t end = ptx.find_first_of("( \n", start);
      mod->entries.insert(ptx.substr(start, end - start));
    }
    mod->subtract = ptx.find("sub.f32") != std::string::npos;
  }
  s.modules.insert(mod);
  *m = reinterpret_cast<CUmodule>(mod);
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule m) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  auto* mod = reinterpret_cast<FakeModule*>(m);
  if (s.modules.erase(mod) == 0) return kInvalidHandle;
  for (auto it = s.functions.begin(); it != s.functions.end();) {
    if ((*it)->module == mod) {
      delete *it;
      it = s.functions.erase(it);
    } else {
      ++it;
    }
  }
  delete mod;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  auto* mod = reinterpret_cast<FakeModule*>(m);
  if (f == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (s.modules.count(mod) == 0) return kInvalidHandle;
  if (mod->entries.count(name) == 0) return CUDA_ERROR_NOT_FOUND;
  auto* fn = new FakeFunction;
  fn->module = mod;
  fn->name = name;
  s.functions.insert(fn);
  *f = reinterpret_cast<CUfunction>(fn);
  return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction f) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  auto* fn = reinterpret_cast<FakeFunction*>(f);
  if (v == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (s.functions.count(fn) == 0) return kInvalidHandle;
  switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *v = 0; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *v = 14; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *v = fn->max_dynamic_smem; break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *v = fn->carveout; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  auto* fn = reinterpret_cast<FakeFunction*>(f);
  if (s.functions.count(fn) == 0) return kInvalidHandle;
  switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      if (v < 0 || v > kOptinSmem) return CUDA_ERROR_INVALID_VALUE;
      fn->max_dynamic_smem = v;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      if (v < -1 || v > 100) return CUDA_ERROR_INVALID_VALUE;
      fn->carveout = v;
      return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  if (p == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  void* mem = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (mem == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  std::memset(mem, 0xA5, bytes);
  s.device[reinterpret_cast<uintptr_t>(mem)] = bytes;
  *p = reinterpret_cast<uintptr_t>(mem);
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr p) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  if (s.device.erase(uintptr_t(p)) == 0) return CUDA_ERROR_INVALID_VALUE;
  std::free(reinterpret_cast<void*>(uintptr_t(p)));
  return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void** p, size_t bytes) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  if (p == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  *p = std::malloc(bytes);
  if (*p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  s.pinned.insert(*p);
  return CUDA_SUCCESS;
}

CUresult cuMemFreeHost(void* p) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  if (s.pinned.erase(p) == 0) return CUDA_ERROR_INVALID_VALUE;
  std::free(p);
  return CUDA_SUCCESS;
}

namespace {
CUresult copy(void* dst, const void* src, size_t bytes, CUdeviceptr dev, CUstream st, bool async) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  if (async && !known_stream(s, st)) return kInvalidHandle;
  if (dst == nullptr || src == nullptr || !inside(s, uintptr_t(dev), bytes)) return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(dst, src, bytes);
  return CUDA_SUCCESS;
}
}  // namespace

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
  return copy(reinterpret_cast<void*>(uintptr_t(dst)), src, bytes, dst, nullptr, false);
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
  return copy(dst, reinterpret_cast<const void*>(uintptr_t(src)), bytes, src, nullptr, false);
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t bytes, CUstream st) {
  return copy(reinterpret_cast<void*>(uintptr_t(dst)), src, bytes, dst, st, true);
}
CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t bytes, CUstream st) {
  return copy(dst, reinterpret_cast<const void*>(uintptr_t(src)), bytes, src, st, true);
}
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t bytes, CUstream st) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  if (!known_stream(s, st)) return kInvalidHandle;
  if (dst == 0 || !inside(s, uintptr_t(dst), bytes)) return CUDA_ERROR_INVALID_VALUE;
  std::memset(reinterpret_cast<void*>(uintptr_t(dst)), value, bytes);
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream* st, unsigned int flags) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  if (st == nullptr || (flags & ~CU_STREAM_NON_BLOCKING) != 0) return CUDA_ERROR_INVALID_VALUE;
  *st = reinterpret_cast<CUstream>(new char[16]);
  s.streams.insert(*st);
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream st) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  if (st == nullptr || s.streams.erase(st) == 0) return kInvalidHandle;
  delete[] reinterpret_cast<char*>(st);
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream st) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  return known_stream(s, st) ? CUDA_SUCCESS : kInvalidHandle;
}

CUresult cuEventCreate(CUevent* e, unsigned int flags) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  if (e == nullptr || (flags & ~CU_EVENT_DISABLE_TIMING) != 0) return CUDA_ERROR_INVALID_VALUE;
  *e = reinterpret_cast<CUevent>(new char[16]);
  s.events.insert(*e);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent e, CUstream st) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  return s.events.count(e) != 0 && known_stream(s, st) ? CUDA_SUCCESS : kInvalidHandle;
}

CUresult cuEventSynchronize(CUevent e) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  return s.events.count(e) != 0 ? CUDA_SUCCESS : kInvalidHandle;
}

CUresult cuEventDestroy_v2(CUevent e) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (t_stack.empty()) return kInvalidContext;
  if (s.events.erase(e) == 0) return kInvalidHandle;
  delete[] reinterpret_cast<char*>(e);
  return s.sticky;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                        unsigned int by, unsigned int bz, unsigned int smem, CUstream st, void** params, void** extra) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = enter(s)) return r;
  auto* fn = reinterpret_cast<FakeFunction*>(f);
  if (s.functions.count(fn) == 0 || !known_stream(s, st)) return kInvalidHandle;
  if (params == nullptr || extra != nullptr || gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 ||
      uint64_t(bx) * by * bz > 1024)
    return CUDA_ERROR_INVALID_VALUE;
  if (smem > unsigned(fn->max_dynamic_smem)) return CUDA_ERROR_INVALID_VALUE;
  if (fn->name != "dg_add" && fn->name != "dg_add_ws") return kNotSupported;
  // dg_add(A, B, C, M, N, K): operand pointers, then M, N, K as 32-bit integers. dg_add_ws(A, B,
  // C, ws, M, N, K): a workspace after the operand pointers, whose first 64 bytes must be device
  // memory holding zeros (cuMemAlloc's fill is 0xA5: the runtime must have zeroed it).
  const int ws = fn->name == "dg_add_ws" ? 1 : 0;
  CUdeviceptr p[3];
  int32_t mnk[3];
  for (int i = 0; i < 3; ++i) std::memcpy(&p[i], params[i], sizeof(CUdeviceptr));
  for (int i = 0; i < 3; ++i) std::memcpy(&mnk[i], params[3 + ws + i], sizeof(int32_t));
  if (mnk[0] <= 0 || mnk[1] <= 0 || mnk[2] <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (ws) {
    CUdeviceptr w = 0;
    std::memcpy(&w, params[3], sizeof(CUdeviceptr));
    if (!inside(s, uintptr_t(w), 64)) {
      s.sticky = kIllegalAddress;
      return CUDA_SUCCESS;
    }
    const auto* bytes = reinterpret_cast<const uint8_t*>(uintptr_t(w));
    for (int i = 0; i < 64; ++i)
      if (bytes[i] != 0) return CUDA_ERROR_INVALID_VALUE;
  }
  const uint64_t threads = uint64_t(gx) * gy * gz * bx * by * bz;
  const uint64_t n = std::min<uint64_t>(threads, uint64_t(mnk[0]) * uint64_t(mnk[1]));
  for (int i = 0; i < 3; ++i) {
    if (!inside(s, uintptr_t(p[i]), n * 4)) {
      s.sticky = kIllegalAddress;  // the kernel faults; reported by later calls
      return CUDA_SUCCESS;
    }
  }
  const auto* a = reinterpret_cast<const float*>(uintptr_t(p[0]));
  const auto* b = reinterpret_cast<const float*>(uintptr_t(p[1]));
  auto* c = reinterpret_cast<float*>(uintptr_t(p[2]));
  for (uint64_t i = 0; i < n; ++i) c[i] = fn->module->subtract ? a[i] - b[i] : a[i] + b[i];
  return CUDA_SUCCESS;
}

// The documented rules of a tiled map (CUDA driver API, cuTensorMapEncodeTiled): a 16-byte
// aligned address, dimensions of at most 2^32, strides that are multiples of 16 bytes below 2^40,
// boxes of 1-256 elements, a 128-byte swizzle's box row at most 128 bytes. The map records the
// address and the first dimensions, enough for a test to look at.
CUresult cuTensorMapEncodeTiled(void* map, CUtensorMapDataType type, uint32_t rank, void* address, const uint64_t* dims,
                                const uint64_t* strides, const uint32_t* box, const uint32_t* element_strides,
                                CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                                CUtensorMapFloatOOBfill fill) {
  if (map == nullptr || (uintptr_t(map) % 64) != 0 || rank < 1 || rank > 5 || address == nullptr ||
      (uintptr_t(address) % 16) != 0 || type < 0 || type > 12 || interleave != 0 || swizzle < 0 || swizzle > 3 ||
      l2 < 0 || l2 > 3 || (fill != 0 && fill != 1) || dims == nullptr || box == nullptr || element_strides == nullptr ||
      (rank > 1 && strides == nullptr))
    return CUDA_ERROR_INVALID_VALUE;
  const uint32_t bytes = type == 0 ? 1 : type == 1 ? 2 : type <= 3 ? 4 : 8;
  for (uint32_t i = 0; i < rank; ++i) {
    if (dims[i] == 0 || dims[i] > (uint64_t(1) << 32) || box[i] == 0 || box[i] > 256 || element_strides[i] == 0 ||
        element_strides[i] > 8)
      return CUDA_ERROR_INVALID_VALUE;
    if (i + 1 < rank && (strides[i] % 16 != 0 || strides[i] >= (uint64_t(1) << 40))) return CUDA_ERROR_INVALID_VALUE;
  }
  if (swizzle == 3 && uint64_t(box[0]) * bytes > 128) return CUDA_ERROR_INVALID_VALUE;
  std::memset(map, 0, 128);
  std::memcpy(map, &address, sizeof address);
  std::memcpy(static_cast<char*>(map) + 8, dims, sizeof(uint64_t) * (rank < 2 ? rank : 2));
  return CUDA_SUCCESS;
}

}  // extern "C"

// Every entry point the runtime looks up exists here with the runtime's signature.
#define DG_FAKE_CHECK(name, params)                                  \
  static_assert(std::is_same_v<decltype(&::name), PFN_##name>, #name \
                " differs from "                                     \
                "cuda_driver.h");
DG_CUDA_DRIVER_FUNCTIONS(DG_FAKE_CHECK)
#undef DG_FAKE_CHECK
