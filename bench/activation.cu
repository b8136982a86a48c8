// The elementwise pass a cuBLAS user runs after the GEMM when the epilogue is not fused: bias (one
// value per column, C's type) and the activation applied in fp32 to a row-major M×N C of fp16 or
// bf16, in place, eight elements (16 bytes) per thread. The peer of our fused epilogues in
// gpu_bench ("cuBLAS + pass"); the same formulas as the fused epilogues' reference
// (tests/gpu/gemm_common.h: epilogue_ref).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "activation.h"

namespace {

__device__ float activate(int act, float x) {
  switch (act) {
    case dg_bench::kRelu: return fmaxf(x, 0.f);
    case dg_bench::kGelu: return 0.5f * x * (1.f + erff(x * 0.70710678118654752f));
    case dg_bench::kGeluTanh: {
      const float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
      return 0.5f * x * (1.f + tanhf(u));
    }
    case dg_bench::kSilu: return x / (1.f + __expf(-x));
    default: return x;
  }
}

__device__ float to_f(__half v) { return __half2float(v); }
__device__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ T from_f(float v) {
  if constexpr (std::is_same_v<T, __half>)
    return __float2half_rn(v);
  else
    return __float2bfloat16_rn(v);
}

template <typename T>
__global__ void pass(T* c, const T* bias, long long total, int n, int act) {
  const long long i = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * 8;
  if (i >= total) return;
  uint4 raw = *reinterpret_cast<const uint4*>(c + i);
  T* v = reinterpret_cast<T*>(&raw);
  uint4 braw{};
  const T* b = reinterpret_cast<const T*>(&braw);
  if (bias != nullptr) braw = *reinterpret_cast<const uint4*>(bias + (i % n));
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    float x = to_f(v[j]);
    if (bias != nullptr) x += to_f(b[j]);
    v[j] = from_f<T>(activate(act, x));
  }
  *reinterpret_cast<uint4*>(c + i) = raw;
}

}  // namespace

namespace dg_bench {

bool activation_pass(void* c, const void* bias, int m, int n, bool bf16, int act, cudaStream_t stream) {
  if (n % 8 != 0) return false;  // 16-byte vectors within a row
  const long long total = static_cast<long long>(m) * n;
  const int threads = 256;
  const unsigned blocks = static_cast<unsigned>((total / 8 + threads - 1) / threads);
  if (bf16)
    pass<<<blocks, threads, 0, stream>>>(static_cast<__nv_bfloat16*>(c), static_cast<const __nv_bfloat16*>(bias),
                                         total, n, act);
  else
    pass<<<blocks, threads, 0, stream>>>(static_cast<__half*>(c), static_cast<const __half*>(bias), total, n, act);
  return cudaGetLastError() == cudaSuccess;
}

}  // namespace dg_bench
