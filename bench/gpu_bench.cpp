// gpu_bench MODULE.ko[@K]...: our kernels against cuBLAS on the same GPU in the same run (@K: a
// module with a run-time K range, run at that K through dgmm_set_k).
// For each module: random fp16/bf16 inputs, rotating input buffers when one set would fit in L2,
// warm-up, then the median of per-launch CUDA-event timings for our kernel (through the dgmm
// runtime) and for cublasGemmEx (same types, fp32 accumulation, same output type; int8 x int8 ->
// int32 with CUBLAS_COMPUTE_32I and B in the module's layout; fp8 through cuBLASLt's fp8 GEMM with
// unit scales, the same output type (a module with fine-grained scales, its scales all ones,
// against cuBLASLt's block-scaled fp8 GEMM — 128×128 blocks of B, groups of 128 k of A's rows —
// where it has an algorithm, else its per-tensor one, as the line says); 4-bit weights (int4 packed by
// dgmm_pack_weights, random group scales) against cuBLAS fp16/bf16 of the same shape, whose B is a 16-bit K×N matrix).
// Prints TFLOP/s (TOP/s for int8), GB/s (the bytes our kernel moves: A + B + C, B packed and the scales for 4-bit
// weights, over time), the ratio to cuBLAS (for 4-bit weights the speedup over the 16-bit GEMM), and the geometric
// mean.
// --graph: time graph replays instead of single launches: each side's launches (20 of them, over
// the rotating input sets) are captured once in a CUDA graph, and the median replay time over 20
// gives the time per launch. This leaves out the host's launch overhead (binding, the driver
// call, the event), which is most of a decode-sized kernel's time when launches are timed one
// by one, as an inference engine that replays graphs sees it. Both sides are timed the same way.
#include <deepgemm/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "../tests/gpu/gemm_common.h"
#ifdef DG_BENCH_PASS
#include "activation.h"
#endif

namespace {

constexpr int kWarmup = 10;
constexpr int kRuns = 50;

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

/// cuBLASLt's fused epilogue for ours, where it has one: relu, bias, bias_relu; gelu and
/// gelu_tanh both as CUBLASLT_EPILOGUE_GELU (cuBLASLt documents one GELU; ours has the erf and the
/// tanh forms), bias_gelu as GELU_BIAS. SiLU has none.
bool lt_epilogue(const std::string& e, cublasLtEpilogue_t* out) {
  const std::pair<const char*, cublasLtEpilogue_t> map[] = {
      {"relu", CUBLASLT_EPILOGUE_RELU},           {"gelu", CUBLASLT_EPILOGUE_GELU},
      {"gelu_tanh", CUBLASLT_EPILOGUE_GELU},      {"bias", CUBLASLT_EPILOGUE_BIAS},
      {"bias_relu", CUBLASLT_EPILOGUE_RELU_BIAS}, {"bias_gelu", CUBLASLT_EPILOGUE_GELU_BIAS}};
  for (const auto& [name, epi] : map)
    if (e == name) {
      *out = epi;
      return true;
    }
  return false;
}

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("skipped: no GPU\n");
    return 77;
  }
  cudaDeviceProp prop{};
  DG_CUDA(cudaGetDeviceProperties(&prop, 0));
  bool graph = false;
  if (argc > 1 && std::string(argv[1]) == "--graph") {
    graph = true;
    --argc;
    ++argv;
  }
  std::printf("device: %s, %d SMs, L2 %d MB%s\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20,
              graph ? "; time per launch from graph replays" : "; time per launch from single launches");
  // "pred us": the cost model's time (the plan's predicted_us); "meas/pred": measured over it.
  std::printf("%-6s %6s %6s %6s  %10s %10s %8s %9s %9s %9s %9s  %s\n", "type", "M", "N", "K", "ours TF/s", "cuBLAS",
              "ratio", "ours GB/s", "us", "pred us", "meas/pred", "kernel");
  cublasHandle_t cb;
  DG_CUBLAS(cublasCreate(&cb));
  cudaStream_t cstream;
  DG_CUDA(cudaStreamCreate(&cstream));
  DG_CUBLAS(cublasSetStream(cb, cstream));
  double log_sum = 0;
  int count = 0, failures = 0;
  for (int i = 1; i < argc; ++i) {
    std::string path = argv[i];
    int run_k = 0;  // a run-time K, from MODULE.ko@K
    if (const auto at = path.rfind('@'); at != std::string::npos) {
      run_k = std::atoi(path.c_str() + at + 1);
      path.resize(at);
    }
    dg::gpu::ModuleInfo mi;
    std::string why;
    if (!dg::gpu::read_module(path.c_str(), mi, why)) {
      std::printf("%s: %s\n", path.c_str(), why.c_str());
      ++failures;
      continue;
    }
    const auto& L = mi.launch;
    const int M = int(L.M), N = int(L.N), K = run_k > 0 ? run_k : int(L.K), batch = int(L.batch);
    const bool bf16 = mi.a_type == "bf16", int8 = mi.a_type == "int8", fp8 = dg::gpu::is_fp8(mi.a_type);
    const bool f32 = mi.a_type == "fp32", w4 = mi.b_type == "int4" || mi.b_type == "u4" || mi.b_type == "int4_e2m1";
    const size_t in_elem = int8 || fp8 ? 1 : f32 ? 4 : 2;
    size_t c_elem = mi.c_type == "fp32" || mi.c_type == "int32" ? 4 : 2;
    size_t set_bytes = ((size_t(M) * K + size_t(K) * N) * in_elem + size_t(M) * N * c_elem) * batch;
    // 4-bit weights: our B is the packed buffer and sc_b the group scales; cuBLAS gets a 16-bit B.
    size_t packed_bytes = 0, scale_bytes = 0;
    if (w4) {
      dgmm_handle ph = dgmm_load_kernel(path.c_str());
      if (!ph || dgmm_operand_info(ph, "B", &packed_bytes, nullptr) != DGMM_OK ||
          (mi.group_size(K) > 0 && dgmm_operand_info(ph, "sc_b", &scale_bytes, nullptr) != DGMM_OK)) {
        std::printf("%s: %s\n", path.c_str(), dgmm_last_error());
        ++failures;
        continue;
      }
      dgmm_unload_kernel(ph);
    }
    const size_t our_bytes = w4 ? size_t(M) * K * 2 + packed_bytes + scale_bytes + size_t(M) * N * c_elem : set_bytes;
    // Enough input sets that the smaller side's sets span three times the L2 (4-bit weights move
    // fewer bytes than cuBLAS's 16-bit B).
    const size_t small_set = std::min(set_bytes, our_bytes);
    int sets = int(std::min<size_t>(w4 ? 32 : 16, std::max<size_t>(1, (size_t(prop.l2CacheSize) * 3) / small_set + 1)));
    std::vector<void*> A(sets), B(sets), C(sets), Bw(sets, nullptr), S(sets, nullptr);
    // The inputs' bytes: fp16/bf16 in [-1, 1), int8 in [-127, 127], fp8 magnitudes in [1/8, 2).
    auto bytes_of = [&](size_t n, uint32_t seed, const std::string& type) {
      std::vector<uint8_t> out(n * in_elem);
      if (f32) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> d(-1.f, 1.f);
        for (size_t i = 0; i < n; ++i) {
          const float x = d(rng);
          std::memcpy(out.data() + 4 * i, &x, 4);
        }
      } else if (fp8) {
        out = dg::gpu::random_fp8(n, type == "fp8_e5m2", seed);
      } else if (int8) {
        auto v = dg::gpu::random_int8(n, seed);
        std::memcpy(out.data(), v.data(), n);
      } else {
        auto v = dg::gpu::random_matrix(n, bf16, seed);
        std::memcpy(out.data(), v.data(), n * 2);
      }
      return out;
    };
    auto a = bytes_of(size_t(M) * K * batch, 1, mi.a_type);
    auto b = bytes_of(size_t(K) * N * batch, 2, mi.b_type);
    for (int s = 0; s < sets; ++s) {
      DG_CUDA(cudaMalloc(&A[s], a.size()));
      DG_CUDA(cudaMalloc(&B[s], b.size()));
      DG_CUDA(cudaMalloc(&C[s], size_t(M) * N * c_elem * batch));
      DG_CUDA(cudaMemcpy(A[s], a.data(), a.size(), cudaMemcpyHostToDevice));
      DG_CUDA(cudaMemcpy(B[s], b.data(), b.size(), cudaMemcpyHostToDevice));
    }
    dgmm_handle h = dgmm_load_kernel(path.c_str());
    if (!h || (run_k > 0 && dgmm_set_k(h, uint32_t(run_k)) != DGMM_OK)) {
      std::printf("%s: %s\n", path.c_str(), dgmm_last_error());
      ++failures;
      continue;
    }
    if (w4) {  // random int4 weights (every nibble value), packed once; scales in [1/256, 1/64)
      std::mt19937 rng(3);
      std::vector<uint8_t> plain((size_t(K) * N + 1) / 2), packed(packed_bytes);
      for (auto& x : plain) x = uint8_t(rng());
      if (dgmm_pack_weights(h, "B", plain.data(), DGMM_WEIGHTS_K_BY_N, packed.data(), packed.size()) != DGMM_OK) {
        std::printf("%s: %s\n", path.c_str(), dgmm_last_error());
        ++failures;
        continue;
      }
      std::uniform_real_distribution<float> sd(1.f / 256, 1.f / 64);
      std::vector<uint16_t> scales(scale_bytes / 2);
      for (auto& x : scales) x = dg::gpu::to_half_bits(sd(rng), bf16);
      for (int s = 0; s < sets; ++s) {
        DG_CUDA(cudaMalloc(&Bw[s], packed.size()));
        DG_CUDA(cudaMemcpy(Bw[s], packed.data(), packed.size(), cudaMemcpyHostToDevice));
        if (scale_bytes > 0) {
          DG_CUDA(cudaMalloc(&S[s], scale_bytes));
          DG_CUDA(cudaMemcpy(S[s], scales.data(), scale_bytes, cudaMemcpyHostToDevice));
        }
        // The first bind of a packed buffer reads its header back (a synchronous copy): done here,
        // outside the timed launches, which rebind checked buffers for free.
        if (dgmm_bind_device(h, "B", (unsigned long long)(uintptr_t)Bw[s]) != DGMM_OK) {
          std::printf("%s: %s\n", path.c_str(), dgmm_last_error());
          std::exit(1);
        }
      }
    }
    cudaStream_t ours = static_cast<cudaStream_t>(dgmm_stream(h));
    cudaEvent_t e0, e1;
    DG_CUDA(cudaEventCreate(&e0));
    DG_CUDA(cudaEventCreate(&e1));
    void* bias = nullptr;  // a bias epilogue's operand: random values, never zeros
    if (mi.has_bias()) {
      std::vector<uint16_t> raw = dg::gpu::random_matrix(size_t(N) * (c_elem / 2), bf16, 7);
      DG_CUDA(cudaMalloc(&bias, size_t(N) * c_elem));
      DG_CUDA(cudaMemcpy(bias, raw.data(), size_t(N) * c_elem, cudaMemcpyHostToDevice));
    }
    // Per-tensor scales: fp32 ones (sc_a, sc_b), for us and for cuBLASLt; each its own allocation,
    // since the runtime takes 16-byte-aligned buffers only.
    auto one_scale = [](bool on) {
      void* p = nullptr;
      if (!on) return p;
      const float one = 1.f;
      DG_CUDA(cudaMalloc(&p, sizeof one));
      DG_CUDA(cudaMemcpy(p, &one, sizeof one, cudaMemcpyHostToDevice));
      return p;
    };
    void* scale_a = one_scale(mi.scale_a);
    void* scale_b = one_scale(mi.scale_b);
    // fp8's fine-grained scales: sc_a ceil(K/128) rows of M, sc_b ceil(K/128) rows of ceil(N/128),
    // all ones; cuBLASLt (per-tensor scales on Hopper) reads the first of each as its scale.
    if (mi.block_scaled()) {
      auto ones = [](size_t n) {
        void* p = nullptr;
        std::vector<float> v(n, 1.f);
        DG_CUDA(cudaMalloc(&p, n * 4));
        DG_CUDA(cudaMemcpy(p, v.data(), n * 4, cudaMemcpyHostToDevice));
        return p;
      };
      // Sized for either operand's per-row groups, whichever layout cuBLASLt reads them in.
      const size_t kb = (size_t(K) + 127) / 128, rows = size_t(std::max(M, N)) + 128;
      scale_a = ones(kb * rows);
      scale_b = ones(kb * rows);
    }
    auto run_ours = [&](int s) {
      if ((scale_a != nullptr && dgmm_bind_device(h, "sc_a", (unsigned long long)(uintptr_t)scale_a) != DGMM_OK) ||
          (scale_b != nullptr && dgmm_bind_device(h, "sc_b", (unsigned long long)(uintptr_t)scale_b) != DGMM_OK)) {
        std::fprintf(stderr, "bind: %s\n", dgmm_last_error());
        std::exit(1);
      }
      if (bias != nullptr) dgmm_bind_device(h, "bias", (unsigned long long)(uintptr_t)bias);
      dgmm_bind_device(h, "A", (unsigned long long)(uintptr_t)A[s]);
      if ((S[s] != nullptr && dgmm_bind_device(h, "sc_b", (unsigned long long)(uintptr_t)S[s]) != DGMM_OK) ||
          dgmm_bind_device(h, "B", (unsigned long long)(uintptr_t)(w4 ? Bw[s] : B[s])) != DGMM_OK) {
        std::fprintf(stderr, "bind: %s\n", dgmm_last_error());
        std::exit(1);
      }
      dgmm_bind_device(h, "C", (unsigned long long)(uintptr_t)C[s]);
      // beta ≠ 0: C_in is C itself (C = alpha · A·B + beta · C, as cuBLAS computes it beside us).
      if (mi.has_c_in() && dgmm_bind_device(h, "C_in", (unsigned long long)(uintptr_t)C[s]) != DGMM_OK) {
        std::fprintf(stderr, "bind: %s\n", dgmm_last_error());
        std::exit(1);
      }
      if (dgmm_launch_kernel_only(h) != DGMM_OK) {
        std::fprintf(stderr, "launch: %s\n", dgmm_last_error());
        std::exit(1);
      }
    };
    cudaDataType ct = mi.c_type == "fp32" ? CUDA_R_32F : mi.c_type == "bf16" ? CUDA_R_16BF : CUDA_R_16F;
    std::unique_ptr<dg::gpu::LtGemm> lt;
    if (fp8) {
      dg::gpu::LtGemm::Options lo;
      lo.scale_a = scale_a;
      lo.scale_b = scale_b;
      lo.batch = batch;
      lo.block_scales = mi.block_scaled();
      auto make = [&] {
        return std::make_unique<dg::gpu::LtGemm>(mi.a_type == "fp8_e5m2" ? CUDA_R_8F_E5M2 : CUDA_R_8F_E4M3,
                                                 mi.b_type == "fp8_e5m2" ? CUDA_R_8F_E5M2 : CUDA_R_8F_E4M3, ct, M, N, K,
                                                 lo);
      };
      lt = make();
      if (lo.block_scales) {
        if (!lt->ok) {
          lo.block_scales = false;
          lt = make();
        }
        std::printf("         (cuBLASLt peer of %dx%dx%d: %s)\n", M, N, K,
                    lo.block_scales ? "block-scaled fp8, 128x128 on B, 1x128 on A"
                                    : "per-tensor fp8: no block-scaled algorithm");
      }
      if (!lt->ok) {
        std::fprintf(stderr, "cuBLASLt has no fp8 algorithm for %dx%dx%d\n", M, N, K);
        std::exit(1);
      }
    }
    auto run_cublas = [&](int s) {
      if (fp8)
        lt->run(A[s], B[s], C[s], cstream);
      else if (int8)
        dg::gpu::cublas_gemm_int8(cb, A[s], B[s], C[s], M, N, K, mi.b_row_major, batch);
      else
        dg::gpu::cublas_gemm(cb, bf16, A[s], B[s], C[s], ct, M, N, K, mi.b_row_major, batch,
                             f32    ? CUDA_R_32F
                             : bf16 ? CUDA_R_16BF
                                    : CUDA_R_16F,
                             float(mi.alpha), float(mi.beta));
    };
    auto time = [&](cudaStream_t st, auto&& fn) {
      for (int w = 0; w < kWarmup; ++w) fn(w % sets);
      std::vector<float> ms;
      for (int r = 0; r < kRuns; ++r) {
        DG_CUDA(cudaEventRecord(e0, st));
        fn(r % sets);
        DG_CUDA(cudaEventRecord(e1, st));
        DG_CUDA(cudaEventSynchronize(e1));
        float t = 0;
        DG_CUDA(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
      }
      DG_CUDA(cudaGetLastError());
      return median(ms);
    };
    // Graph replays: `per` launches captured once (relaxed capture: the runtime and cuBLAS make no
    // stream-ordered allocations here), replayed; the median replay over `per` launches.
    auto time_graph = [&](cudaStream_t st, auto&& fn) {
      const int per = 20, replays = 20;
      for (int w = 0; w < kWarmup; ++w) fn(w % sets);
      cudaGraph_t g = nullptr;
      cudaGraphExec_t ge = nullptr;
      DG_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
      for (int r = 0; r < per; ++r) fn(r % sets);
      DG_CUDA(cudaStreamEndCapture(st, &g));
      DG_CUDA(cudaGraphInstantiate(&ge, g, 0));
      for (int w = 0; w < 3; ++w) DG_CUDA(cudaGraphLaunch(ge, st));
      std::vector<float> ms;
      for (int r = 0; r < replays; ++r) {
        DG_CUDA(cudaEventRecord(e0, st));
        DG_CUDA(cudaGraphLaunch(ge, st));
        DG_CUDA(cudaEventRecord(e1, st));
        DG_CUDA(cudaEventSynchronize(e1));
        float t = 0;
        DG_CUDA(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t / per);
      }
      DG_CUDA(cudaGetLastError());
      cudaGraphExecDestroy(ge);
      cudaGraphDestroy(g);
      return median(ms);
    };
    float t_ours = graph ? time_graph(ours, run_ours) : time(ours, run_ours);
    float t_cublas = graph ? time_graph(cstream, run_cublas) : time(cstream, run_cublas);
    double flops = 2.0 * M * N * K * batch;
    double tf_ours = flops / (t_ours * 1e-3) / 1e12, tf_cublas = flops / (t_cublas * 1e-3) / 1e12;
    double gbs = double(our_bytes) / (t_ours * 1e-3) / 1e9;
    double ratio = tf_ours / tf_cublas;
    log_sum += std::log(ratio);
    ++count;
    const std::string type = fp8  ? mi.a_type.substr(4) + (mi.b_type != mi.a_type ? "x" + mi.b_type.substr(5) : "")
                             : w4 ? (mi.b_type == "u4"     ? "u4"
                                     : mi.b_type == "int4" ? "w4"
                                                           : "f4") +
                                        mi.a_type
                                  : mi.a_type;  // e4m3, e4m3xm2
    // The prediction is for the plan's K (the largest of a K range).
    const double pred = K == int(L.K) ? mi.predicted_us : 0;
    std::printf("%-6s %6d %6d %6d  %10.1f %10.1f %8.3f %9.0f %9.1f %9.1f %9.2f  %s%s\n", type.c_str(), M, N, K, tf_ours,
                tf_cublas, ratio, gbs, t_ours * 1000, pred, pred > 0 ? t_ours * 1000 / pred : 0.0, mi.kernel.c_str(),
                batch > 1        ? (" batch " + std::to_string(batch)).c_str()
                : L.K_min != L.K ? (" K range " + std::to_string(L.K_min) + ".." + std::to_string(L.K)).c_str()
                                 : "");
    // A fused epilogue: beside the plain cuBLAS GEMM, its unfused peer (cuBLAS, then bias and the
    // activation as a separate pass over C) and cuBLASLt's own fused epilogue where it has one.
    const bool epi = !mi.epilogue.empty() && mi.epilogue != "none";
    if (epi && !fp8 && !int8 && !w4 && !f32 && batch == 1) {
      std::string line = "         +" + mi.epilogue + ": ours " + std::to_string(t_ours * 1000).substr(0, 7) + " us";
#ifdef DG_BENCH_PASS
      const std::string act = mi.activation();
      const int a = act == "relu"        ? dg_bench::kRelu
                    : act == "gelu"      ? dg_bench::kGelu
                    : act == "gelu_tanh" ? dg_bench::kGeluTanh
                    : act == "silu"      ? dg_bench::kSilu
                                         : dg_bench::kNone;
      bool pass_ok = true;
      auto run_pass = [&](int s) {
        run_cublas(s);
        pass_ok = dg_bench::activation_pass(C[s], bias, M, N, bf16, a, cstream) && pass_ok;
      };
      const float t_pass = graph ? time_graph(cstream, run_pass) : time(cstream, run_pass);
      char buf[160];
      if (pass_ok)
        std::snprintf(buf, sizeof buf, "; cuBLAS + pass %.1f us (ours %.3fx as fast)", t_pass * 1000, t_pass / t_ours);
      else
        std::snprintf(buf, sizeof buf, "; cuBLAS + pass: not run (N not a multiple of 8)");
      line += buf;
#endif
      dg::gpu::LtGemm::Options lo;
      lo.b_row_major = mi.b_row_major;
      lo.bias = bias;
      const cudaDataType in = bf16 ? CUDA_R_16BF : CUDA_R_16F;
      std::unique_ptr<dg::gpu::LtGemm> lte;
      if (lt_epilogue(mi.epilogue, &lo.epilogue)) lte = std::make_unique<dg::gpu::LtGemm>(in, in, ct, M, N, K, lo);
      if (lte && lte->ok) {
        auto run_lt = [&](int s) { lte->run(A[s], B[s], C[s], cstream); };
        const float t_lt = graph ? time_graph(cstream, run_lt) : time(cstream, run_lt);
        char buf[160];
        std::snprintf(buf, sizeof buf, "; cuBLASLt fused %.1f us (ours %.3fx as fast)", t_lt * 1000, t_lt / t_ours);
        line += buf;
      } else {
        line += "; cuBLASLt fused: none for " + mi.epilogue;
      }
      std::printf("%s\n", line.c_str());
    }
    std::fflush(stdout);
    dgmm_unload_kernel(h);
    cudaFree(scale_a);
    cudaFree(scale_b);
    cudaFree(bias);
    for (int s = 0; s < sets; ++s) {
      cudaFree(A[s]);
      cudaFree(B[s]);
      cudaFree(C[s]);
      cudaFree(Bw[s]);
      cudaFree(S[s]);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  }
  if (count) std::printf("geometric mean of ours/cuBLAS over %d shapes: %.3f\n", count, std::exp(log_sum / count));
  return failures ? 1 : 0;
}
