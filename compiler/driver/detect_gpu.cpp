#include "driver/detect_gpu.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <string>

#include "support/error.h"

namespace dg::driver {

namespace {

// The few driver-API entry points needed, declared here so the compiler does not need cuda.h.
using CUresult = int;
using CUdevice = int;
using cuInit_t = CUresult (*)(unsigned);
using cuDeviceGetCount_t = CUresult (*)(int*);
using cuDeviceGet_t = CUresult (*)(CUdevice*, int);
using cuDeviceGetName_t = CUresult (*)(char*, int, CUdevice);
using cuDeviceGetAttribute_t = CUresult (*)(int*, int, CUdevice);
using cuDeviceTotalMem_t = CUresult (*)(size_t*, CUdevice);
using cuGetErrorString_t = CUresult (*)(CUresult, const char**);

constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;

}  // namespace

int detect_gpu(std::ostream& out, std::ostream& err) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    err << "no NVIDIA GPU found: the CUDA driver library libcuda.so.1 cannot be loaded ("
        << (why ? why : "unknown reason") << ")\n";
    return kExitNoGpu;
  }
  auto sym = [&](const char* name) { return dlsym(lib, name); };
  auto init = reinterpret_cast<cuInit_t>(sym("cuInit"));
  auto count_fn = reinterpret_cast<cuDeviceGetCount_t>(sym("cuDeviceGetCount"));
  auto get = reinterpret_cast<cuDeviceGet_t>(sym("cuDeviceGet"));
  auto get_name = reinterpret_cast<cuDeviceGetName_t>(sym("cuDeviceGetName"));
  auto get_attr = reinterpret_cast<cuDeviceGetAttribute_t>(sym("cuDeviceGetAttribute"));
  auto total_mem = reinterpret_cast<cuDeviceTotalMem_t>(sym("cuDeviceTotalMem_v2"));
  auto err_str = reinterpret_cast<cuGetErrorString_t>(sym("cuGetErrorString"));
  if (!init || !count_fn || !get || !get_name || !get_attr || !total_mem) {
    err << "no NVIDIA GPU found: libcuda.so.1 lacks the driver API entry points (too old a driver?)\n";
    dlclose(lib);
    return kExitNoGpu;
  }
  auto describe = [&](CUresult r) {
    const char* s = nullptr;
    if (err_str && err_str(r, &s) == 0 && s) return fmt::format("{} (CUDA error {})", s, r);
    return fmt::format("CUDA error {}", r);
  };
  if (CUresult r = init(0); r != 0) {
    err << "no NVIDIA GPU found: cuInit failed: " << describe(r) << "\n";
    dlclose(lib);
    return kExitNoGpu;
  }
  int n = 0;
  if (CUresult r = count_fn(&n); r != 0 || n == 0) {
    err << "no NVIDIA GPU found: " << (r != 0 ? describe(r) : std::string("the driver reports 0 devices")) << "\n";
    dlclose(lib);
    return kExitNoGpu;
  }
  for (int i = 0; i < n; ++i) {
    CUdevice dev = 0;
    char name[256] = {};
    int major = 0, minor = 0, sms = 0;
    size_t mem = 0;
    if (get(&dev, i) != 0 || get_name(name, sizeof name, dev) != 0 ||
        get_attr(&major, kAttrComputeCapabilityMajor, dev) != 0 ||
        get_attr(&minor, kAttrComputeCapabilityMinor, dev) != 0 || get_attr(&sms, kAttrMultiprocessorCount, dev) != 0 ||
        total_mem(&mem, dev) != 0) {
      err << "GPU " << i << ": the driver could not describe it\n";
      continue;
    }
    out << fmt::format("GPU {}: {}, sm_{}{}, {} SMs, {:.1f} GiB\n", i, name, major, minor, sms,
                       static_cast<double>(mem) / (1024.0 * 1024.0 * 1024.0));
  }
  dlclose(lib);
  return 0;
}

}  // namespace dg::driver
