// Built only where a CUDA toolkit is found: compiles cuda_driver.h's own declarations against the
// real <cuda.h> and fails the build on any difference, so that the runtime's private copy of the
// driver API cannot drift from NVIDIA's (constant values, entry-point arity and parameter types).
// Nothing here runs; the translation unit is its own test.
#include <cuda.h>

#include <type_traits>

#include "cuda_driver.h"

namespace {

// Maps the enum types of <cuda.h> to int, the spelling cuda_driver.h uses for them, through
// pointers, const and function types, so that two signatures can be compared with is_same.
template <typename T>
struct canon {
  using type = T;
};
template <>
struct canon<CUresult> {
  using type = int;
};
template <>
struct canon<CUjit_option> {
  using type = int;
};
template <>
struct canon<CUfunction_attribute> {
  using type = int;
};
template <>
struct canon<CUdevice_attribute> {
  using type = int;
};
template <>
struct canon<CUtensorMapDataType> {
  using type = int;
};
template <>
struct canon<CUtensorMapInterleave> {
  using type = int;
};
template <>
struct canon<CUtensorMapSwizzle> {
  using type = int;
};
template <>
struct canon<CUtensorMapL2promotion> {
  using type = int;
};
template <>
struct canon<CUtensorMapFloatOOBfill> {
  using type = int;
};
template <>
struct canon<CUtensorMap*> {  // passed as void* (the runtime's own 128-byte, 64-byte-aligned map)
  using type = void*;
};
template <>
struct canon<cuuint32_t> {
  using type = uint32_t;
};
template <>
struct canon<cuuint64_t> {
  using type = uint64_t;
};
template <typename T>
struct canon<const T> {
  using type = const typename canon<T>::type;
};
template <typename T>
struct canon<T*> {
  using type = typename canon<T>::type*;
};
template <typename R, typename... A>
struct canon<R (*)(A...)> {
  using type = typename canon<R>::type (*)(typename canon<A>::type...);
};
template <typename T>
using canon_t = typename canon<T>::type;

static_assert(sizeof(CUresult) == sizeof(int) && sizeof(CUjit_option) == sizeof(int) &&
              sizeof(CUfunction_attribute) == sizeof(int) && sizeof(CUdevice_attribute) == sizeof(int));
static_assert(std::is_same_v<::CUdevice, dg::cuda::CUdevice>);
static_assert(std::is_same_v<::CUdeviceptr, dg::cuda::CUdeviceptr>);
static_assert(std::is_same_v<::CUcontext, dg::cuda::CUcontext>);
static_assert(std::is_same_v<::CUmodule, dg::cuda::CUmodule>);
static_assert(std::is_same_v<::CUfunction, dg::cuda::CUfunction>);
static_assert(std::is_same_v<::CUstream, dg::cuda::CUstream>);
static_assert(std::is_same_v<::CUevent, dg::cuda::CUevent>);

#define DG_CHECK_SIGNATURE(name, params)                                                   \
  static_assert(std::is_same_v<canon_t<decltype(&::name)>, canon_t<dg::cuda::PFN_##name>>, \
                "cuda_driver.h declares " #name " differently from <cuda.h>");
DG_CUDA_DRIVER_FUNCTIONS(DG_CHECK_SIGNATURE)
#undef DG_CHECK_SIGNATURE

#define DG_CHECK_VALUE(name) \
  static_assert(static_cast<long long>(::name) == static_cast<long long>(dg::cuda::name), #name);
DG_CHECK_VALUE(CUDA_SUCCESS)
DG_CHECK_VALUE(CUDA_ERROR_INVALID_VALUE)
DG_CHECK_VALUE(CUDA_ERROR_OUT_OF_MEMORY)
DG_CHECK_VALUE(CUDA_ERROR_NOT_INITIALIZED)
DG_CHECK_VALUE(CUDA_ERROR_STUB_LIBRARY)
DG_CHECK_VALUE(CUDA_ERROR_NO_DEVICE)
DG_CHECK_VALUE(CUDA_ERROR_INVALID_IMAGE)
DG_CHECK_VALUE(CUDA_ERROR_INVALID_CONTEXT)
DG_CHECK_VALUE(CUDA_ERROR_NO_BINARY_FOR_GPU)
DG_CHECK_VALUE(CUDA_ERROR_INVALID_PTX)
DG_CHECK_VALUE(CUDA_ERROR_JIT_COMPILER_NOT_FOUND)
DG_CHECK_VALUE(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
DG_CHECK_VALUE(CUDA_ERROR_CONTAINED)
DG_CHECK_VALUE(CUDA_ERROR_INVALID_HANDLE)
DG_CHECK_VALUE(CUDA_ERROR_NOT_FOUND)
DG_CHECK_VALUE(CUDA_ERROR_ILLEGAL_ADDRESS)
DG_CHECK_VALUE(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
DG_CHECK_VALUE(CUDA_ERROR_LAUNCH_TIMEOUT)
DG_CHECK_VALUE(CUDA_ERROR_ASSERT)
DG_CHECK_VALUE(CUDA_ERROR_HARDWARE_STACK_ERROR)
DG_CHECK_VALUE(CUDA_ERROR_ILLEGAL_INSTRUCTION)
DG_CHECK_VALUE(CUDA_ERROR_MISALIGNED_ADDRESS)
DG_CHECK_VALUE(CUDA_ERROR_INVALID_ADDRESS_SPACE)
DG_CHECK_VALUE(CUDA_ERROR_INVALID_PC)
DG_CHECK_VALUE(CUDA_ERROR_LAUNCH_FAILED)
DG_CHECK_VALUE(CUDA_ERROR_NOT_SUPPORTED)
DG_CHECK_VALUE(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
DG_CHECK_VALUE(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
DG_CHECK_VALUE(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
DG_CHECK_VALUE(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
DG_CHECK_VALUE(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
DG_CHECK_VALUE(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
DG_CHECK_VALUE(CU_FUNC_ATTRIBUTE_NUM_REGS)
DG_CHECK_VALUE(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
DG_CHECK_VALUE(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)
DG_CHECK_VALUE(CU_JIT_ERROR_LOG_BUFFER)
DG_CHECK_VALUE(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
DG_CHECK_VALUE(CU_STREAM_DEFAULT)
DG_CHECK_VALUE(CU_STREAM_NON_BLOCKING)
DG_CHECK_VALUE(CU_EVENT_DISABLE_TIMING)
DG_CHECK_VALUE(CU_TENSOR_MAP_DATA_TYPE_UINT8)
DG_CHECK_VALUE(CU_TENSOR_MAP_DATA_TYPE_UINT16)
DG_CHECK_VALUE(CU_TENSOR_MAP_DATA_TYPE_UINT32)
DG_CHECK_VALUE(CU_TENSOR_MAP_INTERLEAVE_NONE)
DG_CHECK_VALUE(CU_TENSOR_MAP_SWIZZLE_128B)
DG_CHECK_VALUE(CU_TENSOR_MAP_L2_PROMOTION_L2_256B)
DG_CHECK_VALUE(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
static_assert(sizeof(CUtensorMap) == sizeof(dg::cuda::TensorMap) &&
              alignof(CUtensorMap) == alignof(dg::cuda::TensorMap));
static_assert(sizeof(CUtensorMapDataType) == sizeof(int) && sizeof(CUtensorMapSwizzle) == sizeof(int));
#undef DG_CHECK_VALUE

}  // namespace
