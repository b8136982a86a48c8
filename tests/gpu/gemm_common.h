// Shared by the GPU GEMM checks (tests/gpu) and the benchmark (bench/): read a module's launch
// record, make fp16/bf16 data, and run cuBLAS as the reference on the same device buffers.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <deepgemm/launch_format.h>
#include <deepgemm/module_format.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace dg::gpu {

#define DG_CUDA(x)                                                                                  \
  do {                                                                                              \
    cudaError_t e_ = (x);                                                                           \
    if (e_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));      \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)
#define DG_CUBLAS(x)                                                                                \
  do {                                                                                              \
    cublasStatus_t s_ = (x);                                                                        \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                              \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, int(s_));        \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

struct ModuleInfo {
  std::vector<uint8_t> bytes;
  ko::launch::Launch launch{};
  std::string a_type, c_type;  // "fp16" | "bf16" | "int8" (A and B), output "fp16" | "bf16" | "fp32" | "int32"
  std::string kernel;          // family and tile, e.g. "wgmma 256x128x64"
  std::string epilogue;        // "none", "relu", "gelu", "gelu_tanh", "silu", "bias", "bias_relu", ...
  bool b_row_major = true;     // B as K x N rows (else N x K: column-major, K-major)
  bool has_bias() const { return epilogue.rfind("bias", 0) == 0; }
  /// The activation after the bias ("none" for a plain bias).
  std::string activation() const {
    return !has_bias() ? epilogue : epilogue == "bias" ? std::string("none") : epilogue.substr(5);
  }
};

/// The plan's epilogue on an fp32 result, in double: the reference the checks compare with.
inline double epilogue_ref(const std::string& op, double x) {
  if (op == "relu") return x > 0 ? x : 0;
  if (op == "gelu") return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  if (op == "gelu_tanh") return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  if (op == "silu") return x / (1 + std::exp(-x));
  return x;
}

inline std::string type_of_bits(uint32_t bits, bool bf16) { return bits == 32 ? "fp32" : bf16 ? "bf16" : "fp16"; }

/// Read a module and its launch record; the element types come from the plan's JSON text.
inline bool read_module(const char* path, ModuleInfo& m, std::string& why) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    why = "cannot read module";
    return false;
  }
  m.bytes.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  ko::ModuleView v;
  if (ko::parse(m.bytes.data(), m.bytes.size(), &v) != ko::Status::Ok) {
    why = v.error();
    return false;
  }
  auto l = v.find(ko::SectionKind::Launch);
  auto p = v.find(ko::SectionKind::Plan);
  if (!l.data || !p.data) {
    why = "module has no launch record or plan (no PTX was generated for it)";
    return false;
  }
  if (const char* e = ko::launch::parse(l.data, l.size, &m.launch)) {
    why = e;
    return false;
  }
  std::string plan(reinterpret_cast<const char*>(p.data), p.size);
  auto field = [&](const char* key) {
    auto k = plan.find(std::string("\"") + key + "\": \"");
    if (k == std::string::npos) return std::string();
    k += std::strlen(key) + 5;
    return plan.substr(k, plan.find('"', k) - k);
  };
  m.a_type = field("a_type");
  m.c_type = field("c_type");
  m.epilogue = field("epilogue");
  auto number = [&](const char* key) {
    auto k = plan.find(std::string("\"") + key + "\": ");
    return k == std::string::npos ? 0L : std::strtol(plan.c_str() + k + std::strlen(key) + 4, nullptr, 10);
  };
  m.b_row_major = plan.find("\"b_row_major\": false") == std::string::npos;
  m.kernel = field("family") + " " + std::to_string(number("tile_m")) + "x" + std::to_string(number("tile_n")) + "x" +
             std::to_string(number("tile_k")) + (m.epilogue.empty() || m.epilogue == "none" ? "" : " +" + m.epilogue);
  return true;
}

inline uint16_t to_half_bits(float f, bool bf16) {
  if (bf16) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u += 0x7FFF + ((u >> 16) & 1);  // round to nearest even
    return uint16_t(u >> 16);
  }
  // fp16 via the compiler's conversion (IEEE round to nearest even)
  _Float16 h = static_cast<_Float16>(f);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

inline float from_half_bits(uint16_t b, bool bf16) {
  if (bf16) {
    uint32_t u = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return static_cast<float>(h);
}

/// Uniform values in [-1, 1), never all zero, from a fixed seed.
inline std::vector<uint16_t> random_matrix(size_t n, bool bf16, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<uint16_t> v(n);
  for (auto& x : v) x = to_half_bits(d(rng), bf16);
  return v;
}

/// Row-major C[M×N] = A[M×K]·B[K×N] with cuBLAS (column-major: Cᵀ = Bᵀ·Aᵀ), fp32 accumulation.
/// B is row-major (ld N) or, with b_row_major false, column-major (ld K).
inline void cublas_gemm(cublasHandle_t h, bool bf16, const void* A, const void* B, void* C, cudaDataType c_type,
                        int M, int N, int K, bool b_row_major = true) {
  float one = 1.f, zero = 0.f;
  cudaDataType t = bf16 ? CUDA_R_16BF : CUDA_R_16F;
  DG_CUBLAS(cublasGemmEx(h, b_row_major ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, B, t,
                         b_row_major ? N : K, A, t, K, &zero, C, c_type, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

/// Row-major C[M×N] (int32) = A[M×K]·B (int8) with cuBLAS, exact 32-bit integer accumulation
/// (CUBLAS_COMPUTE_32I); B row-major K×N, or with b_row_major false N×K (column-major K×N).
inline void cublas_gemm_int8(cublasHandle_t h, const void* A, const void* B, void* C, int M, int N, int K,
                             bool b_row_major) {
  int32_t one = 1, zero = 0;
  DG_CUBLAS(cublasGemmEx(h, b_row_major ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_8I,
                         b_row_major ? N : K, A, CUDA_R_8I, K, &zero, C, CUDA_R_32I, N, CUBLAS_COMPUTE_32I,
                         CUBLAS_GEMM_DEFAULT));
}

/// Uniform int8 values in [-127, 127], from a fixed seed.
inline std::vector<int8_t> random_int8(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-127, 127);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(d(rng));
  return v;
}

}  // namespace dg::gpu
