// Shared by the GPU GEMM checks (tests/gpu) and the benchmark (bench/): read a module's launch
// record, make fp16/bf16 data, and run cuBLAS as the reference on the same device buffers.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <deepgemm/launch_format.h>
#include <deepgemm/module_format.h>

#include <algorithm>
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

#define DG_CUDA(x)                                                                             \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)
#define DG_CUBLAS(x)                                                                          \
  do {                                                                                        \
    cublasStatus_t s_ = (x);                                                                  \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                        \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, int(s_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

struct ModuleInfo {
  std::vector<uint8_t> bytes;
  ko::launch::Launch launch{};
  std::string a_type, b_type;             // "fp16" | "bf16" | "int8" | "fp8_e4m3" | "fp8_e5m2"
  std::string c_type;                     // "fp16" | "bf16" | "fp32" | "int32"
  std::string kernel;                     // family and tile, e.g. "wgmma 256x128x64"
  std::string epilogue;                   // "none", "relu", "gelu", "gelu_tanh", "silu", "bias", "bias_relu", ...
  std::string acc_type;                   // "fp32", "fp16" (fp16_fma), "int32"
  bool b_row_major = true;                // B as K x N rows (else N x K: column-major, K-major)
  bool scale_a = false, scale_b = false;  // per-tensor fp32 scales bound as sc_a, sc_b
  std::string scale_b_kind;  // the plan's scale_b: "none", "per_tensor", "group_G", "per_column", "block_128"
  /// fp8's fine-grained scales: sc_a (ceil(K/128) rows of M fp32) and sc_b (ceil(K/128) rows of
  /// ceil(N/128) fp32, one per 128×128 block of B).
  bool block_scaled() const { return scale_b_kind == "block_128"; }
  double alpha = 1, beta = 0;  // C = epilogue(alpha · (A·B) + bias + beta · C_in)
  double predicted_us = 0;     // the cost model's time for one launch (the plan's predicted_us)
  bool has_bias() const { return epilogue.rfind("bias", 0) == 0; }
  bool has_c_in() const { return beta != 0; }
  /// alpha and beta scale exactly (zero or powers of two): small-integer checks stay exact.
  bool exact_factors() const {
    auto pow2 = [](double v) {
      int e;
      return v == 0 || std::fabs(std::frexp(v, &e)) == 0.5;
    };
    return pow2(alpha) && pow2(beta);
  }
  /// The epilogue on the scaled accumulation x, in double: alpha, the bias, beta · C_in, the
  /// activation (the kernel's order).
  double finish(double x, double bias, double c_in) const;
  /// The group size of 4-bit weights' scales at K: G for group_G, K for per_column, 0 without.
  int group_size(int K) const {
    if (scale_b_kind == "per_column") return K;
    if (scale_b_kind.rfind("group_", 0) == 0) return std::atoi(scale_b_kind.c_str() + 6);
    return 0;
  }
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

inline double ModuleInfo::finish(double x, double bias, double c_in) const {
  x = alpha * x + bias + beta * c_in;
  return epilogue_ref(activation(), x);
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
  m.b_type = field("b_type");
  m.c_type = field("c_type");
  m.epilogue = field("epilogue");
  m.acc_type = field("acc_type");
  auto number = [&](const char* key) {
    auto k = plan.find(std::string("\"") + key + "\": ");
    return k == std::string::npos ? 0L : std::strtol(plan.c_str() + k + std::strlen(key) + 4, nullptr, 10);
  };
  m.b_row_major = plan.find("\"b_row_major\": false") == std::string::npos;
  // alpha and beta are written only where they act (1 and 0 otherwise).
  auto real = [&](const char* key, double dflt) {
    auto k = plan.find(std::string("\"") + key + "\": ");
    return k == std::string::npos ? dflt : std::strtod(plan.c_str() + k + std::strlen(key) + 4, nullptr);
  };
  m.alpha = real("alpha", 1.0);
  m.beta = real("beta", 0.0);
  m.predicted_us = real("predicted_us", 0.0);
  m.scale_a = field("scale_a") == "per_tensor";
  m.scale_b = field("scale_b") == "per_tensor";
  m.scale_b_kind = field("scale_b");
  m.kernel = field("family") + " " + std::to_string(number("tile_m")) + "x" + std::to_string(number("tile_n")) + "x" +
             std::to_string(number("tile_k")) + (m.epilogue.empty() || m.epilogue == "none" ? "" : " +" + m.epilogue) +
             (m.scale_a || m.scale_b ? " +scales" : "") + (m.block_scaled() ? " +block scales" : "") +
             (number("split_k") > 1 ? " split_k " + std::to_string(number("split_k")) : "") +
             (m.acc_type == "fp16" ? " +fp16 acc" : "");
  // 4-bit weights: the weight-streaming kernel takes its own block shape (not the plan's tile).
  if (m.b_type == "int4" || m.b_type == "u4" || m.b_type == "int4_e2m1")
    m.kernel = field("family") + " " + m.b_type + " " + m.scale_b_kind +
               (m.epilogue.empty() || m.epilogue == "none" ? "" : " +" + m.epilogue);
  if (m.alpha != 1 || m.beta != 0) {
    char ab[64];
    std::snprintf(ab, sizeof ab, " alpha %g beta %g", m.alpha, m.beta);
    m.kernel += ab;
  }
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
/// B is row-major (ld N) or, with b_row_major false, column-major (ld K). `batch` packed matrices
/// of each (strided batched GEMM) when above 1.
inline void cublas_gemm(cublasHandle_t h, bool bf16, const void* A, const void* B, void* C, cudaDataType c_type, int M,
                        int N, int K, bool b_row_major = true, int batch = 1, cudaDataType in_type = CUDA_R_16F,
                        float alpha = 1.f, float beta = 0.f) {
  float one = alpha, zero = beta;  // C = alpha · A·B + beta · C
  cudaDataType t = in_type == CUDA_R_32F ? CUDA_R_32F : bf16 ? CUDA_R_16BF : CUDA_R_16F;
  if (batch > 1) {
    DG_CUBLAS(cublasGemmStridedBatchedEx(h, b_row_major ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, B, t,
                                         b_row_major ? N : K, (long long)K * N, A, t, K, (long long)M * K, &zero, C,
                                         c_type, N, (long long)M * N, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    return;
  }
  DG_CUBLAS(cublasGemmEx(h, b_row_major ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, B, t,
                         b_row_major ? N : K, A, t, K, &zero, C, c_type, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

/// Row-major C[M×N] (int32) = A[M×K]·B (int8) with cuBLAS, exact 32-bit integer accumulation
/// (CUBLAS_COMPUTE_32I); B row-major K×N, or with b_row_major false N×K (column-major K×N).
inline void cublas_gemm_int8(cublasHandle_t h, const void* A, const void* B, void* C, int M, int N, int K,
                             bool b_row_major, int batch = 1) {
  int32_t one = 1, zero = 0;
  if (batch > 1) {
    DG_CUBLAS(cublasGemmStridedBatchedEx(h, b_row_major ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, B,
                                         CUDA_R_8I, b_row_major ? N : K, (long long)K * N, A, CUDA_R_8I, K,
                                         (long long)M * K, &zero, C, CUDA_R_32I, N, (long long)M * N, batch,
                                         CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
    return;
  }
  DG_CUBLAS(cublasGemmEx(h, b_row_major ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_8I,
                         b_row_major ? N : K, A, CUDA_R_8I, K, &zero, C, CUDA_R_32I, N, CUBLAS_COMPUTE_32I,
                         CUBLAS_GEMM_DEFAULT));
}

inline bool is_fp8(const std::string& t) { return t == "fp8_e4m3" || t == "fp8_e5m2"; }

/// The value of an fp8 code: e4m3 (bias 7, no infinities, S.1111.111 is NaN) or e5m2 (bias 15,
/// IEEE-style infinities and NaNs).
inline double fp8_value(uint8_t code, bool e5m2) {
  const int man_bits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  const int e = (code & 0x7F) >> man_bits, m = code & ((1 << man_bits) - 1);
  const double sign = code & 0x80 ? -1.0 : 1.0;
  if (e5m2 && e == 31) return m ? NAN : sign * INFINITY;
  if (!e5m2 && (code & 0x7F) == 0x7F) return NAN;
  if (e == 0) return sign * std::ldexp(m, 1 - bias - man_bits);
  return sign * std::ldexp((1 << man_bits) + m, e - bias - man_bits);
}

/// Random fp8 codes with magnitudes in [1/8, 2) (exponents -3..0, any mantissa, either sign):
/// finite, never zero, so that sums over K stay well inside fp16's range.
inline std::vector<uint8_t> random_fp8(size_t n, bool e5m2, uint32_t seed) {
  std::mt19937 rng(seed);
  const int man_bits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  std::uniform_int_distribution<int> exp(bias - 3, bias), man(0, (1 << man_bits) - 1), sign(0, 1);
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = uint8_t(sign(rng) << 7 | exp(rng) << man_bits | man(rng));
  return v;
}

/// The fp8 code of a small integer in [-2, 2] (exact in both formats).
inline uint8_t fp8_small_int(int v, bool e5m2) {
  if (v == 0) return 0;
  const int man_bits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  const int mag = v < 0 ? -v : v;  // 1 = 2^0, 2 = 2^1
  return uint8_t((v < 0 ? 0x80 : 0) | (bias + (mag == 2 ? 1 : 0)) << man_bits);
}

/// Row-major C[M×N] = A[M×K]·B with cuBLASLt (fp32 accumulation), the peer of modules cuBLAS's
/// GEMM cannot stand for: its fp8 GEMM (unit or per-tensor scales), and its own fused epilogues.
/// In column-major terms Cᵀ (N×M) = op(B)·Aᵀ: cuBLAS's A is our B — stored K×N row-major (N×K
/// column-major, op N) or, with b_row_major false, K-major (op T, the only form cuBLASLt takes for
/// fp8) — and its B is our A (K×M column-major). The descriptors and the algorithm are chosen once,
/// so that timing sees the GEMM alone; `ok` is false when cuBLASLt has no algorithm for it.
struct LtGemm {
  cublasLtHandle_t lt = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulAlgo_t algo{};
  void* workspace = nullptr;
  size_t workspace_bytes = size_t(32) << 20;
  bool ok = false;

  struct Options {
    bool b_row_major = false;
    const void* scale_a = nullptr;  // device pointers to our A's and B's fp32 scales, or null
    const void* scale_b = nullptr;
    int batch = 1;  // packed batches
    cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    const void* bias = nullptr;  // one per column of our C (per row of Cᵀ), in C's type
    // fp8 block scales (cuBLAS 12.9 and later): our B's 128×128 blocks (BLK128x128_32F on
    // cuBLAS's A) and our A's per-row groups of 128 k (VEC128_32F on cuBLAS's B), through the
    // scale pointers above.
    bool block_scales = false;
  };

  LtGemm(cudaDataType a_type, cudaDataType b_type, cudaDataType c_type, int M, int N, int K, const Options& o) {
    DG_CUBLAS(cublasLtCreate(&lt));
    DG_CUBLAS(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    // cuBLAS's A is our B and the other way round.
    if (o.scale_b)
      DG_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &o.scale_b, sizeof o.scale_b));
    if (o.scale_a)
      DG_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &o.scale_a, sizeof o.scale_a));
    if (o.block_scales) {
      const cublasLtMatmulMatrixScale_t blk = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F,
                                        vec = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
      // A cuBLASLt without these modes refuses them: no algorithm, ok stays false.
      if (cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &blk, sizeof blk) !=
              CUBLAS_STATUS_SUCCESS ||
          cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &vec, sizeof vec) !=
              CUBLAS_STATUS_SUCCESS)
        return;
    }
    cublasOperation_t ta = o.b_row_major ? CUBLAS_OP_N : CUBLAS_OP_T, tb = CUBLAS_OP_N;
    DG_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    DG_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    if (o.epilogue != CUBLASLT_EPILOGUE_DEFAULT)
      DG_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &o.epilogue, sizeof o.epilogue));
    if (o.bias)
      DG_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &o.bias, sizeof o.bias));
    if (o.b_row_major)
      DG_CUBLAS(cublasLtMatrixLayoutCreate(&la, b_type, N, K, N));  // our B: N×K column-major
    else
      DG_CUBLAS(cublasLtMatrixLayoutCreate(&la, b_type, K, N, K));  // our B: K×N column-major
    DG_CUBLAS(cublasLtMatrixLayoutCreate(&lb, a_type, K, M, K));    // our A: K×M column-major
    DG_CUBLAS(cublasLtMatrixLayoutCreate(&lc, c_type, N, M, N));
    if (o.batch > 1) {  // packed batches: each layout's matrix size apart
      const int32_t count = o.batch;
      for (auto [layout, stride] : {std::pair{la, int64_t(K) * N}, {lb, int64_t(K) * M}, {lc, int64_t(N) * M}}) {
        DG_CUBLAS(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
        DG_CUBLAS(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                                   sizeof stride));
      }
    }
    DG_CUDA(cudaMalloc(&workspace, workspace_bytes));
    cublasLtMatmulPreference_t pref;
    DG_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    DG_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                                   sizeof workspace_bytes));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    ok = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &result, &found) == CUBLAS_STATUS_SUCCESS &&
         found > 0;
    cublasLtMatmulPreferenceDestroy(pref);
    if (ok) algo = result.algo;
  }
  ~LtGemm() {
    cudaFree(workspace);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(op);
    cublasLtDestroy(lt);
  }
  void run(const void* A, const void* B, void* C, cudaStream_t stream) {
    float one = 1.f, zero = 0.f;
    DG_CUBLAS(
        cublasLtMatmul(lt, op, &one, B, la, A, lb, &zero, C, lc, C, lc, &algo, workspace, workspace_bytes, stream));
  }
};

/// Uniform int8 values in [-127, 127], from a fixed seed.
inline std::vector<int8_t> random_int8(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-127, 127);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(d(rng));
  return v;
}

}  // namespace dg::gpu
