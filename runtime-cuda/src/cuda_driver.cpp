#include "cuda_driver.h"

#include <dlfcn.h>

#include <cstring>
#include <string>

namespace dg::cuda {
namespace {

constexpr const char* kLibrary = "libcuda.so.1";

struct KnownError {
  CUresult code;
  const char* name;
  const char* text;
};

// What the runtime says when the driver cannot name an error itself (the toolkit's stub library
// answers every call, cuGetErrorName included, with CUDA_ERROR_STUB_LIBRARY).
constexpr KnownError kKnownErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY",
     "libcuda is the CUDA toolkit's stub library, not an installed driver"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "PTX JIT compiler library not found"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
};

const KnownError* find_known(CUresult r) {
  for (const KnownError& e : kKnownErrors) {
    if (e.code == r) return &e;
  }
  return nullptr;
}

// dlsym returns an object pointer; a byte copy turns it into a function pointer without the
// conditionally-supported cast.
template <typename Fn>
bool lookup(void* lib, const char* symbol, Fn* out) {
  void* p = dlsym(lib, symbol);
  static_assert(sizeof(Fn) == sizeof(p), "function and object pointers differ in size");
  std::memcpy(out, &p, sizeof(p));
  return p != nullptr;
}

InitResult fail(InitFailure kind, std::string message) {
  InitResult r;
  r.failure = kind;
  r.message = std::move(message);
  return r;
}

InitResult load_and_init() {
  static Driver d;

  dlerror();
  void* lib = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return fail(InitFailure::NoDevice, std::string("no NVIDIA GPU found: cannot load the CUDA driver ") + kLibrary +
                                           " (" + (why ? why : "unknown reason") + ")");
  }
  // The library stays loaded for the lifetime of the process: handles, host allocations and
  // fences may outlive any particular caller.
#define DG_CUDA_LOOKUP(name, params)                                                          \
  if (!lookup(lib, #name, &d.name)) {                                                         \
    return fail(InitFailure::Driver, std::string("the CUDA driver ") + kLibrary +             \
                                         " has no entry point " #name                         \
                                         "; the installed NVIDIA driver is too old for this " \
                                         "runtime");                                          \
  }
  DG_CUDA_DRIVER_FUNCTIONS(DG_CUDA_LOOKUP)
#undef DG_CUDA_LOOKUP

  CUresult r = d.cuInit(0);
  if (r != CUDA_SUCCESS) {
    return fail(InitFailure::NoDevice, "no NVIDIA GPU found: cuInit failed: " + d.describe(r));
  }
  r = d.cuDriverGetVersion(&d.driver_version);
  if (r != CUDA_SUCCESS) {
    return fail(InitFailure::Driver, "cuDriverGetVersion failed: " + d.describe(r));
  }
  int count = 0;
  r = d.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) {
    return fail(InitFailure::NoDevice, "no NVIDIA GPU found: cuDeviceGetCount failed: " + d.describe(r));
  }
  if (count == 0) {
    return fail(InitFailure::NoDevice,
                "no NVIDIA GPU found: the CUDA driver reports no devices (check "
                "CUDA_VISIBLE_DEVICES)");
  }
  r = d.cuDeviceGet(&d.device, 0);
  if (r != CUDA_SUCCESS) {
    return fail(InitFailure::Driver, "cuDeviceGet(0) failed: " + d.describe(r));
  }
  char name[256] = {};
  r = d.cuDeviceGetName(name, static_cast<int>(sizeof(name) - 1), d.device);
  if (r != CUDA_SUCCESS) {
    return fail(InitFailure::Driver, "cuDeviceGetName for device 0 failed: " + d.describe(r));
  }
  d.device_name = name;
  struct Query {
    CUdevice_attribute attribute;
    int* value;
    const char* what;
  };
  const Query queries[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &d.cc_major, "compute capability major"},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &d.cc_minor, "compute capability minor"},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &d.sm_count, "multiprocessor count"},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &d.smem_optin, "opt-in shared memory per block"},
  };
  for (const Query& q : queries) {
    r = d.cuDeviceGetAttribute(q.value, q.attribute, d.device);
    if (r != CUDA_SUCCESS) {
      return fail(InitFailure::Driver,
                  std::string("cannot query the ") + q.what + " of device 0 '" + d.device_name + "': " + d.describe(r));
    }
  }
  // Retained once and never released: page-locked host memory from dgmm_alloc_host lives in this
  // context and must stay valid however handles come and go.
  r = d.cuDevicePrimaryCtxRetain(&d.context, d.device);
  if (r != CUDA_SUCCESS) {
    return fail(InitFailure::Driver,
                "cannot retain the primary context of device 0 '" + d.device_name + "': " + d.describe(r));
  }
  InitResult ok;
  ok.driver = &d;
  return ok;
}

}  // namespace

bool is_kernel_fault(CUresult r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_CONTAINED: return true;
    default: return false;
  }
}

const char* fallback_error_name(CUresult r) {
  const KnownError* e = find_known(r);
  return e != nullptr ? e->name : nullptr;
}

std::string Driver::describe(CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName == nullptr || cuGetErrorName(r, &name) != CUDA_SUCCESS) name = nullptr;
  if (cuGetErrorString == nullptr || cuGetErrorString(r, &text) != CUDA_SUCCESS) text = nullptr;
  if (name == nullptr || text == nullptr) {
    if (const KnownError* e = find_known(r)) {
      if (name == nullptr) name = e->name;
      if (text == nullptr) text = e->text;
    }
  }
  std::string out = name != nullptr ? std::string(name) : "CUresult " + std::to_string(r);
  if (text != nullptr) out.append(": ").append(text);
  return out;
}

const InitResult& init() {
  static const InitResult result = load_and_init();
  return result;
}

ContextScope::ContextScope(const Driver& d) : d_(d), result_(d.cuCtxPushCurrent_v2(d.context)) {}

ContextScope::~ContextScope() {
  if (result_ == CUDA_SUCCESS) {
    CUcontext popped = nullptr;
    d_.cuCtxPopCurrent_v2(&popped);
  }
}

}  // namespace dg::cuda
