// The CUDA driver API, loaded at run time.
//
// The runtime never links libcuda: it dlopen()s "libcuda.so.1" on first use, so a program linked
// with it starts on machines without a GPU or driver and reports DGMM_ERROR_NO_DEVICE. It does not
// include <cuda.h> either: the handful of types, constants and entry points it uses are declared
// here, so the runtime builds with nothing but a C++ compiler. Where a CUDA toolkit is found,
// cuda_driver_check.cpp compiles these declarations against the real <cuda.h> and fails the build
// on any difference (values, parameter types, arity).
//
// Entry points are looked up by their exported, versioned symbol names (cuMemAlloc_v2, not the
// cuMemAlloc macro of <cuda.h>), which is what <cuda.h> binds a program to.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <string>

// Opaque driver objects, with the struct tags <cuda.h> uses, so that both spellings name the same
// types when they meet in one translation unit.
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;

namespace dg::cuda {

using CUresult = int;  // enum cudaError_enum in <cuda.h>; int-sized on every supported ABI
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = CUctx_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUstream = CUstream_st*;
using CUevent = CUevent_st*;
using CUjit_option = int;          // enum CUjit_option_enum
using CUfunction_attribute = int;  // enum CUfunction_attribute_enum
using CUdevice_attribute = int;    // enum CUdevice_attribute_enum
// The copy engine's tensor maps (cuTensorMapEncodeTiled). The map itself is 128 opaque bytes,
// aligned (CUtensorMap in <cuda.h>); the runtime passes its address as void*.
using CUtensorMapDataType = int;      // enum CUtensorMapDataType_enum
using CUtensorMapInterleave = int;    // enum CUtensorMapInterleave_enum
using CUtensorMapSwizzle = int;       // enum CUtensorMapSwizzle_enum
using CUtensorMapL2promotion = int;   // enum CUtensorMapL2promotion_enum
using CUtensorMapFloatOOBfill = int;  // enum CUtensorMapFloatOOBfill_enum
struct alignas(128) TensorMap {       // <cuda.h> aligns CUtensorMap to 128 bytes
  unsigned char bytes[128];
};

// CUresult values the runtime treats specially (the rest are reported with the driver's words).
inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
inline constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
inline constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
inline constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
inline constexpr CUresult CUDA_ERROR_INVALID_IMAGE = 200;
inline constexpr CUresult CUDA_ERROR_INVALID_CONTEXT = 201;
inline constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
inline constexpr CUresult CUDA_ERROR_INVALID_PTX = 218;
inline constexpr CUresult CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221;
inline constexpr CUresult CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222;
inline constexpr CUresult CUDA_ERROR_CONTAINED = 226;
inline constexpr CUresult CUDA_ERROR_INVALID_HANDLE = 400;
inline constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
inline constexpr CUresult CUDA_ERROR_ILLEGAL_ADDRESS = 700;
inline constexpr CUresult CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
inline constexpr CUresult CUDA_ERROR_LAUNCH_TIMEOUT = 702;
inline constexpr CUresult CUDA_ERROR_ASSERT = 710;
inline constexpr CUresult CUDA_ERROR_HARDWARE_STACK_ERROR = 714;
inline constexpr CUresult CUDA_ERROR_ILLEGAL_INSTRUCTION = 715;
inline constexpr CUresult CUDA_ERROR_MISALIGNED_ADDRESS = 716;
inline constexpr CUresult CUDA_ERROR_INVALID_ADDRESS_SPACE = 717;
inline constexpr CUresult CUDA_ERROR_INVALID_PC = 718;
inline constexpr CUresult CUDA_ERROR_LAUNCH_FAILED = 719;
inline constexpr CUresult CUDA_ERROR_NOT_SUPPORTED = 801;

inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;

inline constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
inline constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
inline constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_NUM_REGS = 4;
inline constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
inline constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9;

inline constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
inline constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

inline constexpr CUtensorMapDataType CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0;
inline constexpr CUtensorMapDataType CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1;
inline constexpr CUtensorMapDataType CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2;
inline constexpr CUtensorMapInterleave CU_TENSOR_MAP_INTERLEAVE_NONE = 0;
inline constexpr CUtensorMapSwizzle CU_TENSOR_MAP_SWIZZLE_128B = 3;
inline constexpr CUtensorMapL2promotion CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3;
inline constexpr CUtensorMapFloatOOBfill CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0;

inline constexpr unsigned CU_STREAM_DEFAULT = 0x0;
inline constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
inline constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;

// Every entry point the runtime (and its white-box tests) use: X(exported symbol, parameters).
// All return CUresult.
#define DG_CUDA_DRIVER_FUNCTIONS(X)                                                                                   \
  X(cuGetErrorName, (CUresult, const char**))                                                                         \
  X(cuGetErrorString, (CUresult, const char**))                                                                       \
  X(cuInit, (unsigned int))                                                                                           \
  X(cuDriverGetVersion, (int*))                                                                                       \
  X(cuDeviceGetCount, (int*))                                                                                         \
  X(cuDeviceGet, (CUdevice*, int))                                                                                    \
  X(cuDeviceGetName, (char*, int, CUdevice))                                                                          \
  X(cuDeviceGetAttribute, (int*, CUdevice_attribute, CUdevice))                                                       \
  X(cuDevicePrimaryCtxRetain, (CUcontext*, CUdevice))                                                                 \
  X(cuCtxPushCurrent_v2, (CUcontext))                                                                                 \
  X(cuCtxPopCurrent_v2, (CUcontext*))                                                                                 \
  X(cuModuleLoadDataEx, (CUmodule*, const void*, unsigned int, CUjit_option*, void**))                                \
  X(cuModuleUnload, (CUmodule))                                                                                       \
  X(cuModuleGetFunction, (CUfunction*, CUmodule, const char*))                                                        \
  X(cuFuncGetAttribute, (int*, CUfunction_attribute, CUfunction))                                                     \
  X(cuFuncSetAttribute, (CUfunction, CUfunction_attribute, int))                                                      \
  X(cuMemAlloc_v2, (CUdeviceptr*, size_t))                                                                            \
  X(cuMemFree_v2, (CUdeviceptr))                                                                                      \
  X(cuMemAllocHost_v2, (void**, size_t))                                                                              \
  X(cuMemFreeHost, (void*))                                                                                           \
  X(cuMemcpyHtoD_v2, (CUdeviceptr, const void*, size_t))                                                              \
  X(cuMemcpyDtoH_v2, (void*, CUdeviceptr, size_t))                                                                    \
  X(cuMemcpyHtoDAsync_v2, (CUdeviceptr, const void*, size_t, CUstream))                                               \
  X(cuMemcpyDtoHAsync_v2, (void*, CUdeviceptr, size_t, CUstream))                                                     \
  X(cuMemsetD8Async, (CUdeviceptr, unsigned char, size_t, CUstream))                                                  \
  X(cuStreamCreate, (CUstream*, unsigned int))                                                                        \
  X(cuStreamDestroy_v2, (CUstream))                                                                                   \
  X(cuStreamSynchronize, (CUstream))                                                                                  \
  X(cuEventCreate, (CUevent*, unsigned int))                                                                          \
  X(cuEventRecord, (CUevent, CUstream))                                                                               \
  X(cuEventSynchronize, (CUevent))                                                                                    \
  X(cuEventDestroy_v2, (CUevent))                                                                                     \
  X(cuLaunchKernel, (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,  \
                     unsigned int, CUstream, void**, void**))                                                         \
  X(cuTensorMapEncodeTiled,                                                                                           \
    (void*, CUtensorMapDataType, uint32_t, void*, const uint64_t*, const uint64_t*, const uint32_t*, const uint32_t*, \
     CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill))

#define DG_CUDA_DECLARE_PFN(name, params) using PFN_##name = CUresult(*) params;
DG_CUDA_DRIVER_FUNCTIONS(DG_CUDA_DECLARE_PFN)
#undef DG_CUDA_DECLARE_PFN

/// The loaded driver and the device the runtime uses (device 0, its primary context).
struct Driver {
#define DG_CUDA_DECLARE_MEMBER(name, params) PFN_##name name = nullptr;
  DG_CUDA_DRIVER_FUNCTIONS(DG_CUDA_DECLARE_MEMBER)
#undef DG_CUDA_DECLARE_MEMBER

  int driver_version = 0;  // 13000 for CUDA 13.0
  CUdevice device = 0;
  CUcontext context = nullptr;  // device 0's primary context, retained for the process lifetime
  std::string device_name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int smem_optin = 0;  // most shared memory one block may opt in to, bytes

  int compute_capability() const { return cc_major * 10 + cc_minor; }

  /// "CUDA_ERROR_OUT_OF_MEMORY: out of memory" — the driver's name and text for `r`, with a
  /// fallback when the driver cannot say (a stub library, an unknown code).
  std::string describe(CUresult r) const;
};

/// Why the driver is unavailable: NoDevice (no libcuda, no GPU, cuInit failed) or Driver (a
/// libcuda that lacks an entry point, a failing device query).
enum class InitFailure { None, NoDevice, Driver };

struct InitResult {
  const Driver* driver = nullptr;  // non-null on success
  InitFailure failure = InitFailure::None;
  std::string message;  // on failure: the complete message for dgmm_last_error()
};

/// Loads libcuda, initializes it and retains device 0's primary context, once per process; later
/// calls return the same result (success or failure) at once. Thread-safe.
const InitResult& init();

/// Makes the runtime's context current on this thread for the lifetime of the object, restoring
/// the caller's on destruction (push/pop), so that callers with their own context are left alone.
class ContextScope {
 public:
  explicit ContextScope(const Driver& d);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

  bool ok() const { return result_ == CUDA_SUCCESS; }
  CUresult result() const { return result_; }

 private:
  const Driver& d_;
  CUresult result_;
};

/// True for the errors a kernel leaves behind when it fails while running (illegal address, trap,
/// assert, ...): the context is unusable afterwards and every later call reports the same error.
bool is_kernel_fault(CUresult r);

/// A fallback name for CUresult values declared above ("CUDA_ERROR_NO_DEVICE"), else nullptr.
const char* fallback_error_name(CUresult r);

}  // namespace dg::cuda
