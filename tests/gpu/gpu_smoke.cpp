// The CUDA runtime end to end on a real GPU, with the tests' elementwise kernel (add_f32.ptx):
// load, bind, launch, sync, wait, and the checks of C = A + B against a float64 reference.
//
//   gpu_smoke [--cubin=sm_XX=PATH ...]            the smoke tests; each cubin is add_f32.ptx
//                                                 through ptxas for sm_XX
//   gpu_smoke --fault                             a kernel that faults, reported by dgmm_wait; run
//                                                 alone, because a fault spoils the CUDA context
//
// Without a GPU it prints "skipped: no GPU (...)" and exits with 77, CTest's skip code.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cuda_driver.h"  // white box: device buffers for dgmm_bind_device
#include "test_support.h"

using namespace dgtest;
namespace cu = dg::cuda;

namespace {

constexpr int kSkip = 77;
constexpr uint32_t kSeed = 20261129;

std::mt19937 g_rng(kSeed);

void fill_random(float* p, size_t n) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (size_t i = 0; i < n; ++i) {
    float v = 0.0f;
    while (v == 0.0f) v = dist(g_rng);  // never zero: a kernel that writes nothing must show
    p[i] = v;
  }
}

void poison(float* p, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = std::numeric_limits<float>::quiet_NaN();
}

/// C == A + sign * B within fp32 rounding of a float64 reference; reports the first difference.
bool sum_ok(const float* a, const float* b, const float* c, size_t n, double sign = 1.0) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const double want = double(a[i]) + sign * double(b[i]);
    const double got = c[i];
    if (!(std::fabs(got - want) <= 1e-6)) {
      if (bad == 0) {
        std::fprintf(stderr, "    element %zu: got %.9g, expected %.9g (A %.9g, B %.9g)\n", i, got, want, double(a[i]),
                     double(b[i]));
      }
      ++bad;
    }
  }
  if (bad != 0) std::fprintf(stderr, "    %zu of %zu elements differ\n", bad, n);
  return bad == 0;
}

bool all_nan(const float* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (!std::isnan(p[i])) return false;
  }
  return true;
}

dgmm_handle load(const std::vector<uint8_t>& module) {
  dgmm_handle h = dgmm_load_kernel_from_memory(module.data(), module.size());
  DG_CHECK(h != nullptr);
  return h;
}

bool run_and_wait(dgmm_handle h) {
  if (!DG_CHECK_STATUS(dgmm_launch(h), DGMM_OK)) return false;
  dgmm_fence f = dgmm_sync(h);
  if (!DG_CHECK(f != nullptr)) return false;
  return DG_CHECK_STATUS(dgmm_wait(f), DGMM_OK);
}

// Page-locked buffers, repeated launches reusing device memory, and dgmm_launch_kernel_only.
void pinned_round_trips() {
  std::printf("pinned round trips (37 x 53)\n");
  dgmm_handle h = load(add_module(37, 53));
  if (h == nullptr) return;
  DG_CHECK_CONTAINS(std::string(dgmm_kernel_description(h)), "from PTX (JIT)");
  size_t bytes = 0;
  int bits = 0;
  DG_CHECK_STATUS(dgmm_operand_info(h, "A", &bytes, &bits), DGMM_OK);
  DG_CHECK(bytes == 37 * 53 * 4 && bits == 32);
  const size_t n = bytes / 4;
  auto* a = static_cast<float*>(dgmm_alloc_host(bytes));
  auto* b = static_cast<float*>(dgmm_alloc_host(bytes));
  auto* c = static_cast<float*>(dgmm_alloc_host(bytes));
  if (DG_CHECK(a != nullptr && b != nullptr && c != nullptr)) {
    fill_random(a, n);
    fill_random(b, n);
    poison(c, n);
    DG_CHECK_STATUS(dgmm_bind_input(h, "A", a), DGMM_OK);
    DG_CHECK_STATUS(dgmm_bind_input(h, "B", b), DGMM_OK);
    DG_CHECK_STATUS(dgmm_bind_output(h, "C", c), DGMM_OK);
    if (run_and_wait(h)) DG_CHECK(sum_ok(a, b, c, n));

    // Again with new inputs: the device buffers are reused.
    fill_random(a, n);
    fill_random(b, n);
    poison(c, n);
    if (run_and_wait(h)) DG_CHECK(sum_ok(a, b, c, n));

    // Kernel only: the new A stays on the host and C is not copied back.
    fill_random(a, n);
    poison(c, n);
    DG_CHECK_STATUS(dgmm_launch_kernel_only(h), DGMM_OK);
    dgmm_fence f = dgmm_sync(h);
    DG_CHECK(f != nullptr);
    DG_CHECK_STATUS(dgmm_wait(f), DGMM_OK);
    DG_CHECK(all_nan(c, n));
    if (run_and_wait(h)) DG_CHECK(sum_ok(a, b, c, n));

    // Three launches queued, one wait.
    for (int i = 0; i < 3; ++i) DG_CHECK_STATUS(dgmm_launch(h), DGMM_OK);
    dgmm_fence last = dgmm_sync(h);
    DG_CHECK(last != nullptr);
    DG_CHECK_STATUS(dgmm_wait(last), DGMM_OK);
    DG_CHECK(sum_ok(a, b, c, n));
  }
  dgmm_unload_kernel(h);
  dgmm_free_host(a);
  dgmm_free_host(b);
  dgmm_free_host(c);
}

// Ordinary (pageable) host memory, and a module read from a file.
void pageable_from_file() {
  std::printf("pageable memory, module from a file (64 x 64)\n");
  DG_CHECK(write_bytes("gpu_smoke_add.ko", add_module(64, 64)));
  dgmm_handle h = dgmm_load_kernel("gpu_smoke_add.ko");
  if (!DG_CHECK(h != nullptr)) return;
  std::vector<float> a(64 * 64), b(64 * 64), c(64 * 64);
  fill_random(a.data(), a.size());
  fill_random(b.data(), b.size());
  poison(c.data(), c.size());
  DG_CHECK_STATUS(dgmm_bind_input(h, "A", a.data()), DGMM_OK);
  DG_CHECK_STATUS(dgmm_bind_input(h, "B", b.data()), DGMM_OK);
  DG_CHECK_STATUS(dgmm_bind_output(h, "C", c.data()), DGMM_OK);
  if (run_and_wait(h)) DG_CHECK(sum_ok(a.data(), b.data(), c.data(), a.size()));
  dgmm_unload_kernel(h);
}

// Dynamic shared memory below and above the 48 KB that needs no opt-in; the kernel routes every
// sum through the top of it, so a launch without the memory it asked for would fail.
void shared_memory(uint32_t smem, uint32_t carveout) {
  std::printf("dynamic shared memory %u bytes, carve-out %u%%\n", smem, carveout);
  dgmm_handle h = load(add_module(100, 30, smem, carveout));
  if (h == nullptr) return;
  DG_CHECK_CONTAINS(std::string(dgmm_kernel_description(h)),
                    std::to_string(smem) + " bytes dynamic shared memory, carve-out " + std::to_string(carveout) + "%");
  std::vector<float> a(3000), b(3000), c(3000);
  fill_random(a.data(), a.size());
  fill_random(b.data(), b.size());
  poison(c.data(), c.size());
  dgmm_bind_input(h, "A", a.data());
  dgmm_bind_input(h, "B", b.data());
  dgmm_bind_output(h, "C", c.data());
  if (run_and_wait(h)) DG_CHECK(sum_ok(a.data(), b.data(), c.data(), a.size()));
  dgmm_unload_kernel(h);
}

// The caller's device buffers (dgmm_bind_device), with and without dgmm_launch's copies.
void device_buffers() {
  std::printf("device buffers (dgmm_bind_device)\n");
  const cu::InitResult& init = cu::init();
  if (!DG_CHECK(init.driver != nullptr)) return;
  const cu::Driver& d = *init.driver;
  const size_t n = 50 * 40, bytes = n * 4;
  dgmm_handle h = load(add_module(50, 40));
  if (h == nullptr) return;
  std::vector<float> a(n), b(n), c(n), a2(n);
  fill_random(a.data(), n);
  fill_random(b.data(), n);
  fill_random(a2.data(), n);
  poison(c.data(), n);
  cu::CUdeviceptr da = 0, db = 0, dc = 0;
  {
    cu::ContextScope scope(d);
    DG_CHECK(scope.ok());
    DG_CHECK(d.cuMemAlloc_v2(&da, bytes) == 0);
    DG_CHECK(d.cuMemAlloc_v2(&db, bytes) == 0);
    DG_CHECK(d.cuMemAlloc_v2(&dc, bytes) == 0);
    DG_CHECK(d.cuMemcpyHtoD_v2(da, a.data(), bytes) == 0);
    DG_CHECK(d.cuMemcpyHtoD_v2(db, b.data(), bytes) == 0);
  }
  // A misaligned buffer is refused at bind time, not left to fault the kernel.
  DG_CHECK_STATUS(dgmm_bind_device(h, "A", da + 2), DGMM_ERROR_INVALID_ARGUMENT);
  DG_CHECK_STATUS(dgmm_bind_device(h, "A", da), DGMM_OK);
  DG_CHECK_STATUS(dgmm_bind_device(h, "B", db), DGMM_OK);
  DG_CHECK_STATUS(dgmm_bind_device(h, "C", dc), DGMM_OK);
  DG_CHECK_STATUS(dgmm_launch_kernel_only(h), DGMM_OK);
  dgmm_fence f = dgmm_sync(h);
  DG_CHECK_STATUS(dgmm_wait(f), DGMM_OK);
  {
    cu::ContextScope scope(d);
    DG_CHECK(d.cuMemcpyDtoH_v2(c.data(), dc, bytes) == 0);
  }
  DG_CHECK(sum_ok(a.data(), b.data(), c.data(), n));

  // Mixed: host inputs copied by dgmm_launch, the output left in the caller's device buffer.
  poison(c.data(), n);
  DG_CHECK_STATUS(dgmm_bind_input(h, "A", a2.data()), DGMM_OK);
  DG_CHECK_STATUS(dgmm_bind_input(h, "B", b.data()), DGMM_OK);
  if (run_and_wait(h)) {
    DG_CHECK(all_nan(c.data(), n));  // nothing copied back to the host
    cu::ContextScope scope(d);
    DG_CHECK(d.cuMemcpyDtoH_v2(c.data(), dc, bytes) == 0);
  }
  DG_CHECK(sum_ok(a2.data(), b.data(), c.data(), n));
  dgmm_unload_kernel(h);
  cu::ContextScope scope(d);
  DG_CHECK(d.cuMemFree_v2(da) == 0 && d.cuMemFree_v2(db) == 0 && d.cuMemFree_v2(dc) == 0);
}

// Two handles in flight at once; a fence that outlives its handle; unloading with work queued.
void several_handles() {
  std::printf("two handles, fence after unload, unload in flight\n");
  dgmm_handle h1 = load(add_module(37, 53));
  dgmm_handle h2 = load(add_module(128, 5));
  if (h1 == nullptr || h2 == nullptr) return;
  std::vector<float> a1(37 * 53), b1(a1.size()), c1(a1.size());
  std::vector<float> a2(128 * 5), b2(a2.size()), c2(a2.size());
  fill_random(a1.data(), a1.size());
  fill_random(b1.data(), b1.size());
  fill_random(a2.data(), a2.size());
  fill_random(b2.data(), b2.size());
  poison(c1.data(), c1.size());
  poison(c2.data(), c2.size());
  dgmm_bind_input(h1, "A", a1.data());
  dgmm_bind_input(h1, "B", b1.data());
  dgmm_bind_output(h1, "C", c1.data());
  dgmm_bind_input(h2, "A", a2.data());
  dgmm_bind_input(h2, "B", b2.data());
  dgmm_bind_output(h2, "C", c2.data());
  DG_CHECK_STATUS(dgmm_launch(h1), DGMM_OK);
  DG_CHECK_STATUS(dgmm_launch(h2), DGMM_OK);
  dgmm_fence f1 = dgmm_sync(h1);
  dgmm_fence f2 = dgmm_sync(h2);
  DG_CHECK(f1 != nullptr && f2 != nullptr);
  DG_CHECK_STATUS(dgmm_wait(f2), DGMM_OK);
  dgmm_unload_kernel(h1);  // f1 stays valid
  DG_CHECK_STATUS(dgmm_wait(f1), DGMM_OK);
  DG_CHECK(sum_ok(a1.data(), b1.data(), c1.data(), c1.size()));
  DG_CHECK(sum_ok(a2.data(), b2.data(), c2.data(), c2.size()));

  // Unloading waits for queued work before freeing anything.
  poison(c2.data(), c2.size());
  DG_CHECK_STATUS(dgmm_launch(h2), DGMM_OK);
  dgmm_unload_kernel(h2);
  DG_CHECK(sum_ok(a2.data(), b2.data(), c2.data(), c2.size()));
}

// "sm_90" -> 90; 0 when `s` is not of that form.
int sm_number(const std::string& s) { return s.rfind("sm_", 0) == 0 ? std::atoi(s.c_str() + 3) : 0; }

// A module with a cubin (add_f32.ptx through ptxas for `arch`) and a launch record for any device
// (compute capability 0): the runtime offers the cubin to the driver, which takes it when the
// device can run it (same major architecture, equal or higher minor), and otherwise loads the
// PTX. The PTX here subtracts, so the result shows which one ran.
void cubin_module(const std::string& arch, const std::string& path) {
  std::printf("cubin for %s (%s)\n", arch.c_str(), path.c_str());
  std::string sub = add_ptx();
  sub.replace(sub.find("add.f32"), 7, "sub.f32");
  ModuleParts p;
  p.ptx = sub;
  p.has_cubin = true;
  p.cubin = read_bytes(path);
  if (!DG_CHECK(!p.cubin.empty())) return;
  p.launch = launch_bytes(add_launch(20, 20, 128, 0, 0, 0));
  dgmm_handle h = load(build_module(p));
  if (h == nullptr) return;
  const std::string description = dgmm_kernel_description(h);
  std::printf("    %s\n", description.c_str());
  const size_t at = description.find("' (sm_");
  const int device = at == std::string::npos ? 0 : std::atoi(description.c_str() + at + 6);
  const int cubin = sm_number(arch);
  const bool fits = device / 10 == cubin / 10 && device % 10 >= cubin % 10;
  const bool from_cubin = description.find("from cubin") != std::string::npos;
  DG_CHECK(device != 0 && cubin != 0);
  DG_CHECK(from_cubin == fits);
  std::vector<float> a(20 * 20), b(a.size()), c(a.size());
  fill_random(a.data(), a.size());
  fill_random(b.data(), b.size());
  poison(c.data(), c.size());
  dgmm_bind_input(h, "A", a.data());
  dgmm_bind_input(h, "B", b.data());
  dgmm_bind_output(h, "C", c.data());
  if (run_and_wait(h)) DG_CHECK(sum_ok(a.data(), b.data(), c.data(), c.size(), from_cubin ? 1 : -1));
  dgmm_unload_kernel(h);
}

// C bound to an address no allocation covers: the kernel faults, and the fault is reported.
int fault() {
  std::printf("kernel fault\n");
  dgmm_handle h = load(add_module(64, 64));
  if (h == nullptr) return report();
  std::vector<float> a(64 * 64, 1.0f), b(a.size(), 2.0f);
  dgmm_bind_input(h, "A", a.data());
  dgmm_bind_input(h, "B", b.data());
  DG_CHECK_STATUS(dgmm_bind_device(h, "C", 0x1000), DGMM_OK);
  DG_CHECK_STATUS(dgmm_launch(h), DGMM_OK);
  dgmm_fence f = dgmm_sync(h);
  if (f != nullptr) {
    DG_CHECK_STATUS(dgmm_wait(f), DGMM_ERROR_LAUNCH);
    DG_CHECK_CONTAINS(std::string(dgmm_last_error()),
                      "dgmm_wait: the kernel or a copy failed while running: CUDA_ERROR_");
  } else {
    // The fault was already known when dgmm_sync ran.
    DG_CHECK_STATUS(dgmm_last_error_code(), DGMM_ERROR_LAUNCH);
    DG_CHECK_CONTAINS(std::string(dgmm_last_error()), "dgmm_sync: cannot ");
  }
  DG_CHECK_CONTAINS(std::string(dgmm_last_error()), "the CUDA context cannot be used again");
  std::printf("    reported: %s\n", dgmm_last_error());
  dgmm_unload_kernel(h);  // must not crash on a spoiled context
  DG_CHECK(dgmm_last_error_code() != DGMM_OK);
  return report();
}

}  // namespace

int main(int argc, char** argv) {
  void* probe = dgmm_alloc_host(16);
  if (probe == nullptr) {
    if (dgmm_last_error_code() == DGMM_ERROR_NO_DEVICE) {
      std::printf("skipped: no GPU (%s)\n", dgmm_last_error());
      return kSkip;
    }
    DG_CHECK(probe != nullptr);
    return report();
  }
  dgmm_free_host(probe);
  std::printf("random inputs: std::mt19937 seed %u\n", kSeed);

  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--fault") return fault();
  }
  pinned_round_trips();
  pageable_from_file();
  shared_memory(40 * 1024, 0);
  shared_memory(64 * 1024, 100);
  device_buffers();
  several_handles();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];  // --cubin=ARCH=PATH
    const size_t eq = arg.find('=', 8);
    if (arg.rfind("--cubin=", 0) == 0 && eq != std::string::npos) {
      cubin_module(arg.substr(8, eq - 8), arg.substr(eq + 1));
    }
  }
  return report();
}
