// gemm_check MODULE.ko [SEED]: run a compiled GEMM module through the dgmm runtime on random inputs
// and compare it with cuBLAS (fp32 output, fp32 accumulation) on the same inputs. The output buffer
// is poisoned first. Prints the relative Frobenius error and the largest absolute error; exit 0
// when the relative error is below 1e-2 and every element is finite, 1 otherwise, 77 (skip) on a
// machine without a GPU. int8 modules (and int4 × int4, u4 × u4: packed two k to a byte) are
// compared exactly with an int64 reference on the host
// (every row, or 256 rows spread over M when the problem has more than 2^31 multiply-adds), and no
// element may keep the poison. fp8 modules (cuBLAS has no fp8 GEMM with this interface) run twice:
// random fp8 values against a float64 host reference on the same rows (relative Frobenius error
// below 1e-2), and small integers in [-2, 2], whose products and fp32 sums are exact, so that every
// output must equal the exact result rounded once to C's type, bit for bit; with fine-grained
// scales (sc_a per row and 128 k, sc_b per 128×128 block) random scales in the first run and
// powers of two in the second, the reference scaling each 128-k step's sum. Modules with 4-bit
// weights (int4, u4 or FP4 E2M1, packed by dgmm_pack_weights, group scales sc_b) run twice as well: random
// activations, weights and scales against a float64 reference of the dequantized weights
// (relative Frobenius error at most 1e-3, 8e-3 for a bf16 output), and small integers with
// power-of-two scales, bit for bit.
#include <deepgemm/runtime.h>

#include <cmath>
#include <random>
#include <tuple>

#include "gemm_common.h"

namespace {

/// The rows of C a host reference checks: every row when that is cheap (M·N·K at most 2^31
/// multiply-adds), else `cap` rows spread over the whole of M, the first and last included.
struct RowSample {
  int total = 0, rows = 0;
  bool all = true;
  int at(int r) const { return all || rows < 2 ? r : int(int64_t(r) * (total - 1) / (rows - 1)); }
};
RowSample sample_rows(int rows_of_c, int N, int K, int cap) {
  RowSample s;
  s.total = rows_of_c;
  s.all = double(rows_of_c) * N * K <= 2147483648.0;
  s.rows = s.all ? rows_of_c : std::min(rows_of_c, cap);
  return s;
}

/// C read back from the device as raw bits, one uint32 per element of `c_bytes` (2 or 4) bytes.
std::vector<uint32_t> read_c_bits(const void* dC, size_t count, size_t c_bytes) {
  std::vector<uint32_t> bits(count);
  if (c_bytes == 4) {
    DG_CUDA(cudaMemcpy(bits.data(), dC, bits.size() * 4, cudaMemcpyDeviceToHost));
  } else {
    std::vector<uint16_t> raw(bits.size());
    DG_CUDA(cudaMemcpy(raw.data(), dC, raw.size() * 2, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < raw.size(); ++i) bits[i] = raw[i];
  }
  return bits;
}

/// Every check of one module at one K (the module's, or a run-time K of its range). 0 when all
/// pass.
int check_at(const char* path, const dg::gpu::ModuleInfo& mi, int K, uint32_t seed) {
  const auto& L = mi.launch;
  const int M = int(L.M), N = int(L.N);
  const bool k_range = L.K_min != L.K;
  // A batched module: A, B and C hold `batch` packed matrices. The checks below see A and C as
  // batch·M stacked rows (MB); row m multiplies the B of batch m / M (at b_off(m)).
  const int batch = int(L.batch), MB = M * batch;
  auto b_off = [&](int m) { return size_t(m / M) * size_t(K) * N; };
  const bool bf16 = mi.a_type == "bf16";
  std::printf(
      "%s: M=%d N=%d K=%d%s%s %s -> %s (%s), seed %u\n", path, M, N, K,
      k_range ? (" (run-time K in [" + std::to_string(L.K_min) + ", " + std::to_string(L.K) + "])").c_str() : "",
      batch > 1 ? (" batch=" + std::to_string(batch)).c_str() : "", mi.a_type.c_str(), mi.c_type.c_str(),
      mi.kernel.c_str(), seed);

  const bool b_row_major = L.operands[1].row_major;
  dgmm_handle h = nullptr;
  void* dBias = nullptr;  // a bias epilogue's per-column operand, in C's type
  // Per-tensor scales (fp32 operands sc_a, sc_b): set_scales picks their values, and the
  // reference multiplies by their product (scale_product).
  void *dScaleA = nullptr, *dScaleB = nullptr;
  double scale_product = 1.0;
  auto set_scales = [&](float sa, float sb) {
    for (auto [on, v, d] : {std::tuple{mi.scale_a, sa, &dScaleA}, std::tuple{mi.scale_b, sb, &dScaleB}}) {
      if (!on) continue;
      if (*d == nullptr) DG_CUDA(cudaMalloc(d, 4));
      DG_CUDA(cudaMemcpy(*d, &v, 4, cudaMemcpyHostToDevice));
    }
    // The kernel multiplies the two scales in fp32 first, then the accumulation by their product.
    scale_product = double(float(mi.scale_a ? sa : 1.f) * float(mi.scale_b ? sb : 1.f));
  };
  // beta ≠ 0: C_in, C's shape and type (MB × N, packed), read by the epilogue. set_c_in fills it
  // with random values in [-2, 2) or small integers in [-2, 2]; c_in holds them as the kernel reads
  // them (rounded to C's type).
  void* dCin = nullptr;
  std::vector<double> c_in;
  auto set_c_in = [&](bool small_int) {
    if (!mi.has_c_in()) return;
    const bool c16 = mi.c_type != "fp32", c_bf16 = mi.c_type == "bf16";
    const size_t n = size_t(MB) * N;
    std::mt19937 rng(seed + (small_int ? 9 : 8));
    std::uniform_real_distribution<float> d(-2.f, 2.f);
    std::uniform_int_distribution<int> di(-2, 2);
    std::vector<float> wide(n);
    std::vector<uint16_t> raw(n);
    c_in.resize(n);
    for (size_t i = 0; i < n; ++i) {
      wide[i] = small_int ? float(di(rng)) : d(rng);
      if (c16) {
        raw[i] = dg::gpu::to_half_bits(wide[i], c_bf16);
        wide[i] = dg::gpu::from_half_bits(raw[i], c_bf16);
      }
      c_in[i] = wide[i];
    }
    if (dCin == nullptr) DG_CUDA(cudaMalloc(&dCin, n * (c16 ? 2 : 4)));
    DG_CUDA(cudaMemcpy(dCin, c16 ? static_cast<const void*>(raw.data()) : wide.data(), n * (c16 ? 2 : 4),
                       cudaMemcpyHostToDevice));
  };
  auto c_in_at = [&](size_t i) { return c_in.empty() ? 0.0 : c_in[i]; };
  bool c_in_is_c = false;  // C_in bound to C's own buffer (in place): run() does not relaunch
  auto run = [&](void* dA, void* dB, void* dC) {
    h = dgmm_load_kernel(path);
    if (!h) {
      std::fprintf(stderr, "load: %s\n", dgmm_last_error());
      std::exit(1);
    }
    if (k_range && dgmm_set_k(h, uint32_t(K)) != DGMM_OK) {
      std::fprintf(stderr, "set_k: %s\n", dgmm_last_error());
      std::exit(1);
    }
    if ((dScaleA != nullptr && dgmm_bind_device(h, "sc_a", (unsigned long long)(uintptr_t)dScaleA) != DGMM_OK) ||
        (dScaleB != nullptr && dgmm_bind_device(h, "sc_b", (unsigned long long)(uintptr_t)dScaleB) != DGMM_OK) ||
        (dBias != nullptr && dgmm_bind_device(h, "bias", (unsigned long long)(uintptr_t)dBias) != DGMM_OK) ||
        (dCin != nullptr && dgmm_bind_device(h, "C_in", (unsigned long long)(uintptr_t)dCin) != DGMM_OK) ||
        dgmm_bind_device(h, "A", (unsigned long long)(uintptr_t)dA) != DGMM_OK ||
        dgmm_bind_device(h, "B", (unsigned long long)(uintptr_t)dB) != DGMM_OK ||
        dgmm_bind_device(h, "C", (unsigned long long)(uintptr_t)dC) != DGMM_OK ||
        dgmm_launch_kernel_only(h) != DGMM_OK) {
      std::fprintf(stderr, "launch: %s\n", dgmm_last_error());
      std::exit(1);
    }
    if (dgmm_wait(dgmm_sync(h)) != DGMM_OK) {
      std::fprintf(stderr, "wait: %s\n", dgmm_last_error());
      std::exit(1);
    }
    if (L.workspace_bytes != 0 && !c_in_is_c) {
      // Split K: three more launches on the same workspace (the counters each launch leaves at
      // zero serve the next) must store the same bits (the partials are summed in a fixed order,
      // whichever block of a tile arrives last).
      const size_t cb = size_t(L.operands[2].bytes);
      std::vector<uint8_t> first(cb), again(cb);
      DG_CUDA(cudaMemcpy(first.data(), dC, cb, cudaMemcpyDeviceToHost));
      DG_CUDA(cudaMemset(dC, 0xFF, cb));
      for (int i = 0; i < 3; ++i)
        if (dgmm_launch_kernel_only(h) != DGMM_OK) {
          std::fprintf(stderr, "launch: %s\n", dgmm_last_error());
          std::exit(1);
        }
      if (dgmm_wait(dgmm_sync(h)) != DGMM_OK) {
        std::fprintf(stderr, "wait: %s\n", dgmm_last_error());
        std::exit(1);
      }
      DG_CUDA(cudaMemcpy(again.data(), dC, cb, cudaMemcpyDeviceToHost));
      size_t differ = 0;
      for (size_t i = 0; i < cb; ++i) differ += first[i] != again[i];
      std::printf("split-K workspace of %llu bytes: 3 more launches, %zu bytes of C differ from the first%s\n",
                  (unsigned long long)L.workspace_bytes, differ, differ ? "  FAILED" : "");
      if (differ) std::exit(1);
    }
  };
  const bool int4 = mi.a_type == "int4" || mi.a_type == "u4";
  if (mi.a_type == "int8" || int4) {
    // A row-major M×K; B as the module stores it (row-major K×N, or column-major: N rows of K).
    // int8: values in [-127, 127]. int4: [-8, 7], u4: [0, 15], packed two k to a byte along K
    // (both operands K-major), the even k in the low nibble.
    auto values = [&](size_t n, uint32_t s) {
      if (!int4) return dg::gpu::random_int8(n, s);
      std::mt19937 rng(s);
      std::uniform_int_distribution<int> d(mi.a_type == "u4" ? 0 : -8, mi.a_type == "u4" ? 15 : 7);
      std::vector<int8_t> v(n);
      for (auto& x : v) x = static_cast<int8_t>(d(rng));
      return v;
    };
    auto a = values(size_t(MB) * K, seed);
    auto b = values(size_t(K) * N * batch, seed + 1);
    auto device_bytes = [&](const std::vector<int8_t>& v) {
      if (!int4) return std::vector<uint8_t>(v.begin(), v.end());
      std::vector<uint8_t> packed(v.size() / 2, 0);  // K even: every row of K starts on a byte
      for (size_t i = 0; i < v.size(); ++i) packed[i / 2] |= uint8_t((uint8_t(v[i]) & 15u) << (i % 2 * 4));
      return packed;
    };
    const std::vector<uint8_t> a_dev = device_bytes(a), b_dev = device_bytes(b);
    if (int4 && !k_range && (L.operands[0].bytes != a_dev.size() || L.operands[1].bytes != b_dev.size())) {
      std::printf("the launch record sizes A and B as %llu and %llu bytes; packed 4-bit they are %zu and %zu  FAILED\n",
                  (unsigned long long)L.operands[0].bytes, (unsigned long long)L.operands[1].bytes, a_dev.size(),
                  b_dev.size());
      return 1;
    }
    void *dA, *dB, *dC;
    DG_CUDA(cudaMalloc(&dA, a_dev.size()));
    DG_CUDA(cudaMalloc(&dB, b_dev.size()));
    DG_CUDA(cudaMalloc(&dC, size_t(MB) * N * 4));
    DG_CUDA(cudaMemcpy(dA, a_dev.data(), a_dev.size(), cudaMemcpyHostToDevice));
    DG_CUDA(cudaMemcpy(dB, b_dev.data(), b_dev.size(), cudaMemcpyHostToDevice));
    DG_CUDA(cudaMemset(dC, 0x7F, size_t(MB) * N * 4));  // poison: 0x7F7F7F7F, beyond any K·127² here
    run(dA, dB, dC);
    std::vector<int32_t> got(size_t(MB) * N);
    DG_CUDA(cudaMemcpy(got.data(), dC, got.size() * 4, cudaMemcpyDeviceToHost));
    size_t wrong = 0, first = SIZE_MAX, unwritten = 0;
    for (int32_t v : got) unwritten += v == 0x7F7F7F7F;
    // Every row when the host reference is cheap; beyond 2^31 MACs a fixed sample of 256 rows
    // (spread over the whole of M, the first and last included), every column of each.
    const RowSample sample = sample_rows(MB, N, K, 256);
    const int rows = sample.rows;
    std::vector<int64_t> row(N);
    for (int r = 0; r < rows; ++r) {
      const int m = sample.at(r);
      const int8_t* bm = b.data() + b_off(m);
      std::fill(row.begin(), row.end(), 0);
      for (int k = 0; k < K; ++k) {
        const int64_t x = a[size_t(m) * K + k];
        for (int n = 0; n < N; ++n) row[n] += x * (b_row_major ? bm[size_t(k) * N + n] : bm[size_t(n) * K + k]);
      }
      for (int n = 0; n < N; ++n)
        if (int64_t(got[size_t(m) * N + n]) != row[n] && wrong++ == 0) first = size_t(m) * N + n;
    }
    bool ok = wrong == 0 && unwritten == 0;
    std::printf("exact int64 reference (%s) on %d of %d rows: %zu elements differ, %zu unwritten%s\n",
                mi.a_type.c_str(), rows, MB, wrong, unwritten, ok ? "" : "  FAILED");
    if (!ok) std::printf("first difference at row %zu col %zu: got %d\n", first / N, first % N, got[first]);
    dgmm_unload_kernel(h);
    std::printf("%d passed, %d failed\n", ok ? 1 : 0, ok ? 0 : 1);
    return ok ? 0 : 1;
  }

  if (mi.b_type == "int4" || mi.b_type == "u4" || mi.b_type == "int4_e2m1") {
    // 4-bit weights: plain codes (nibbles) given to dgmm_pack_weights, whose values are int4's two's
    // complement, u4's u - 8 (the implicit zero point) or FP4 E2M1's; group scales (sc_b) in A's
    // type.
    auto weight_value = [&](uint8_t code) {
      if (mi.b_type == "u4") return double(code) - 8;
      if (mi.b_type == "int4") return double(code < 8 ? code : code - 16);
      static const double e2m1[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
      return (code & 8 ? -1.0 : 1.0) * e2m1[code & 7];
    };
    const int G = mi.group_size(K);  // 0 without scales
    const bool c_bf16 = mi.c_type == "bf16";
    const size_t c_bytes = mi.c_type == "fp32" ? 4 : 2;
    const int groups = G > 0 ? K / G : 0;
    size_t packed_bytes = 0;
    {
      dgmm_handle ph = dgmm_load_kernel(path);
      if (!ph || dgmm_operand_info(ph, "B", &packed_bytes, nullptr) != DGMM_OK) {
        std::fprintf(stderr, "load: %s\n", dgmm_last_error());
        return 1;
      }
      dgmm_unload_kernel(ph);
    }
    void *dA, *dB, *dC, *dS = nullptr;
    DG_CUDA(cudaMalloc(&dA, size_t(M) * K * 2));
    DG_CUDA(cudaMalloc(&dB, packed_bytes));
    DG_CUDA(cudaMalloc(&dC, size_t(M) * N * c_bytes));
    if (groups > 0) DG_CUDA(cudaMalloc(&dS, size_t(groups) * N * 2));
    dScaleB = dS;  // bound as sc_b by run()
    std::vector<float> bias;
    if (mi.has_bias()) {  // values of C's type
      std::mt19937 rng(seed + 2);
      std::uniform_real_distribution<float> d(-2.f, 2.f);
      std::vector<uint16_t> raw(N);
      bias.resize(N);
      for (int j = 0; j < N; ++j) {
        bias[j] = d(rng);
        raw[j] = dg::gpu::to_half_bits(bias[j], c_bf16);
        if (c_bytes == 2) bias[j] = dg::gpu::from_half_bits(raw[j], c_bf16);
      }
      DG_CUDA(cudaMalloc(&dBias, size_t(N) * c_bytes));
      DG_CUDA(cudaMemcpy(dBias, c_bytes == 4 ? static_cast<const void*>(bias.data()) : raw.data(), size_t(N) * c_bytes,
                         cudaMemcpyHostToDevice));
    }
    // Rows checked: every row when the host reference is cheap, else 16 spread over M.
    const RowSample sample = sample_rows(M, N, K, 16);
    const int rows = sample.rows;
    auto row_of = [&](int r) { return sample.at(r); };
    // Run on activations a (A's type bits), weights w (K×N values in [-8, 7]) packed in `order`,
    // scales s (groups×N, A's type bits); C comes back as raw bits.
    auto run_w4 = [&](const std::vector<uint16_t>& a, const std::vector<uint8_t>& w, const std::vector<uint16_t>& s,
                      int order) {
      std::vector<uint8_t> plain((size_t(K) * N + 1) / 2, 0), packed(packed_bytes);
      for (int k = 0; k < K; ++k)
        for (int n = 0; n < N; ++n) {
          const size_t e = order == DGMM_WEIGHTS_K_BY_N ? size_t(k) * N + n : size_t(n) * K + k;
          plain[e / 2] |= uint8_t((w[size_t(k) * N + n] & 15u) << ((e % 2) * 4));
        }
      dgmm_handle ph = dgmm_load_kernel(path);
      if (!ph || dgmm_pack_weights(ph, "B", plain.data(), order, packed.data(), packed.size()) != DGMM_OK) {
        std::fprintf(stderr, "pack: %s\n", dgmm_last_error());
        std::exit(1);
      }
      dgmm_unload_kernel(ph);
      DG_CUDA(cudaMemcpy(dA, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
      DG_CUDA(cudaMemcpy(dB, packed.data(), packed.size(), cudaMemcpyHostToDevice));
      if (dS) DG_CUDA(cudaMemcpy(dS, s.data(), s.size() * 2, cudaMemcpyHostToDevice));
      DG_CUDA(cudaMemset(dC, 0xFF, size_t(M) * N * c_bytes));  // poison: NaN in every format
      run(dA, dB, dC);
      dgmm_unload_kernel(h);
      return read_c_bits(dC, size_t(M) * N, c_bytes);
    };
    auto value = [&](uint32_t bits) {
      if (c_bytes == 2) return double(dg::gpu::from_half_bits(uint16_t(bits), c_bf16));
      float f;
      std::memcpy(&f, &bits, 4);
      return double(f);
    };
    // The float64 reference of row m with the dequantized weights w·s.
    auto reference_row = [&](const std::vector<uint16_t>& a, const std::vector<uint8_t>& w,
                             const std::vector<uint16_t>& s, int m, std::vector<double>& row) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int k = 0; k < K; ++k) {
        const double x = dg::gpu::from_half_bits(a[size_t(m) * K + k], bf16);
        for (int n = 0; n < N; ++n) {
          const double sc = G > 0 ? dg::gpu::from_half_bits(s[size_t(k / G) * N + n], bf16) : 1.0;
          row[n] += x * (weight_value(w[size_t(k) * N + n]) * sc);
        }
      }
    };
    std::printf("4-bit weights (%s), %s scales, packed with dgmm_pack_weights (%zu bytes)\n", mi.b_type.c_str(),
                G == 0   ? "no"
                : G == K ? "per-column"
                         : ("group-" + std::to_string(G)).c_str(),
                packed_bytes);
    int failed = 0;
    {  // random activations in [-1, 1), weights in [-8, 7], scales in [1/256, 1/64): float64 reference
      auto a = dg::gpu::random_matrix(size_t(M) * K, bf16, seed);
      std::mt19937 rng(seed + 1);
      std::uniform_int_distribution<int> wd(0, 15);
      std::uniform_real_distribution<float> sd(1.f / 256, 1.f / 64);
      std::vector<uint8_t> w(size_t(K) * N);
      for (auto& x : w) x = uint8_t(wd(rng));
      std::vector<uint16_t> s(size_t(groups) * N);
      for (auto& x : s) x = dg::gpu::to_half_bits(sd(rng), bf16);
      set_c_in(false);
      auto got = run_w4(a, w, s, DGMM_WEIGHTS_K_BY_N);
      double num = 0, den = 0, max_abs = 0;
      size_t bad = 0;
      std::vector<double> row(N);
      for (int r = 0; r < rows; ++r) {
        const int m = row_of(r);
        reference_row(a, w, s, m, row);
        for (int n = 0; n < N; ++n) {
          const double ref = mi.finish(row[n], mi.has_bias() ? bias[n] : 0.0, c_in_at(size_t(m) * N + n));
          const double g = value(got[size_t(m) * N + n]);
          if (!std::isfinite(g)) {
            ++bad;
            continue;
          }
          num += (g - ref) * (g - ref);
          den += ref * ref;
          max_abs = std::max(max_abs, std::fabs(g - ref));
        }
      }
      // fp32 accumulation of exact products: the error is C's rounding, 2^-11 relative for fp16
      // (about 3e-4 in the Frobenius norm) but 2^-8 for bf16 (about 2e-3), whose bound is wider.
      const double tol = c_bf16 ? 8e-3 : 1e-3;
      const double rel = std::sqrt(num / (den > 0 ? den : 1));
      const bool ok = bad == 0 && rel <= tol && den > 0;
      failed += !ok;
      std::printf(
          "relative Frobenius error %.3e (bound %.0e), max abs error %.3e, non-finite %zu (float64 reference "
          "of the dequantized weights on %d of %d rows)%s\n",
          rel, tol, max_abs, bad, rows, M, ok ? "" : "  FAILED");
    }
    if ((mi.epilogue.empty() || mi.epilogue == "none") && mi.exact_factors()) {
      // Small integers: activations in [-2, 2], every weight code (integers in [-8, 7], E2M1
      // multiples of 1/2 up to 6), power-of-two scales in [1/16, 1]: every product, per-group sum,
      // scaled sum and total is exact in fp32, so C must equal the exact result rounded once to
      // its type, bit for bit. N×K order this time.
      std::mt19937 rng(seed + 3);
      std::uniform_int_distribution<int> ad(-2, 2), wd(0, 15), sd(0, 4);
      std::vector<uint16_t> a(size_t(M) * K);
      for (auto& x : a) x = dg::gpu::to_half_bits(float(ad(rng)), bf16);
      std::vector<uint8_t> w(size_t(K) * N);
      for (auto& x : w) x = uint8_t(wd(rng));
      std::vector<uint16_t> s(size_t(groups) * N);
      for (auto& x : s) x = dg::gpu::to_half_bits(std::ldexp(1.f, -sd(rng)), bf16);
      set_c_in(true);
      auto got = run_w4(a, w, s, DGMM_WEIGHTS_N_BY_K);
      size_t wrong = 0, first = SIZE_MAX;
      std::vector<double> row(N);
      for (int r = 0; r < rows; ++r) {
        const int m = row_of(r);
        reference_row(a, w, s, m, row);
        for (int n = 0; n < N; ++n) {
          // a multiple of 1/32 below 2^20 (and alpha, beta powers of two): exact in fp32
          const float exact = float(mi.finish(row[n], 0, c_in_at(size_t(m) * N + n)));
          uint32_t want;
          if (c_bytes == 4)
            std::memcpy(&want, &exact, 4);
          else
            want = dg::gpu::to_half_bits(exact, c_bf16);
          if (got[size_t(m) * N + n] != want && wrong++ == 0) first = size_t(m) * N + n;
        }
      }
      failed += wrong != 0;
      std::printf("exact small-integer check on %d of %d rows: %zu elements differ%s\n", rows, M, wrong,
                  wrong ? "  FAILED" : "");
      if (wrong)
        std::printf("first difference at row %zu col %zu: got %.9g\n", first / N, first % N, value(got[first]));
    }
    std::printf("%d passed, %d failed\n", failed ? 0 : 1, failed ? 1 : 0);
    return failed ? 1 : 0;
  }

  if (dg::gpu::is_fp8(mi.a_type)) {
    const bool a_e5m2 = mi.a_type == "fp8_e5m2", b_e5m2 = mi.b_type == "fp8_e5m2";
    const size_t c_bytes = mi.c_type == "fp32" ? 4 : 2;
    void *dA, *dB, *dC;
    DG_CUDA(cudaMalloc(&dA, size_t(MB) * K));
    DG_CUDA(cudaMalloc(&dB, size_t(K) * N * batch));
    DG_CUDA(cudaMalloc(&dC, size_t(MB) * N * c_bytes));
    void* dBiasFp8 = nullptr;
    std::vector<float> bias8;
    if (mi.has_bias()) {  // bias values in C's type, as for the 16-bit modules
      std::mt19937 rng(seed + 2);
      std::uniform_real_distribution<float> d(-2.f, 2.f);
      std::vector<uint16_t> raw(N);
      bias8.resize(N);
      for (int j = 0; j < N; ++j) {
        bias8[j] = d(rng);
        raw[j] = dg::gpu::to_half_bits(bias8[j], mi.c_type == "bf16");
        if (c_bytes == 2) bias8[j] = dg::gpu::from_half_bits(raw[j], mi.c_type == "bf16");
      }
      DG_CUDA(cudaMalloc(&dBiasFp8, size_t(N) * c_bytes));
      DG_CUDA(cudaMemcpy(dBiasFp8, c_bytes == 4 ? static_cast<const void*>(bias8.data()) : raw.data(),
                         size_t(N) * c_bytes, cudaMemcpyHostToDevice));
      dBias = dBiasFp8;
    }
    // Rows checked: every row when the host reference is cheap, else 256 spread over M.
    const RowSample sample = sample_rows(MB, N, K, 256);
    const int rows = sample.rows;
    auto row_of = [&](int r) { return sample.at(r); };
    // Run the module on A and B's codes; returns C as raw bits (one uint32 per element).
    auto run_codes = [&](const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
      DG_CUDA(cudaMemcpy(dA, a.data(), a.size(), cudaMemcpyHostToDevice));
      DG_CUDA(cudaMemcpy(dB, b.data(), b.size(), cudaMemcpyHostToDevice));
      DG_CUDA(cudaMemset(dC, 0xFF, size_t(MB) * N * c_bytes));  // poison: NaN in every format
      run(dA, dB, dC);
      dgmm_unload_kernel(h);
      return read_c_bits(dC, size_t(MB) * N, c_bytes);
    };
    auto value = [&](uint32_t bits) {
      if (c_bytes == 2) return dg::gpu::from_half_bits(uint16_t(bits), mi.c_type == "bf16");
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    };
    auto b_at = [&](const std::vector<uint8_t>& b, int m, int k, int n) {
      return b_row_major ? b[b_off(m) + size_t(k) * N + n] : b[b_off(m) + size_t(n) * K + k];
    };
    // Fine-grained scales (A group_128, B block_128): sc_a holds KB rows of M, sc_b KB rows of NB;
    // the kernel scales each 128-k step's partial sums by sc_a[kb][m] · sc_b[kb][n / 128] (fp32).
    // Random scales in [0.5, 2), or powers of two (1/2, 1, 2 on A; 1/4, 1, 4 on B) that keep the
    // small-integer check exact.
    const int KB = (K + 127) / 128, NB = (N + 127) / 128;
    std::vector<float> blk_a, blk_b;
    auto set_block_scales = [&](bool pow2, uint32_t s) {
      if (!mi.block_scaled()) return;
      std::mt19937 rng(s);
      std::uniform_real_distribution<float> d(0.5f, 2.f);
      std::uniform_int_distribution<int> e(-1, 1);
      blk_a.resize(size_t(KB) * M);
      blk_b.resize(size_t(KB) * NB);
      for (float& x : blk_a) x = pow2 ? std::ldexp(1.f, e(rng)) : d(rng);
      for (float& x : blk_b) x = pow2 ? std::ldexp(1.f, 2 * e(rng)) : d(rng);
      if (dScaleA == nullptr) DG_CUDA(cudaMalloc(&dScaleA, blk_a.size() * 4));
      if (dScaleB == nullptr) DG_CUDA(cudaMalloc(&dScaleB, blk_b.size() * 4));
      DG_CUDA(cudaMemcpy(dScaleA, blk_a.data(), blk_a.size() * 4, cudaMemcpyHostToDevice));
      DG_CUDA(cudaMemcpy(dScaleB, blk_b.data(), blk_b.size() * 4, cudaMemcpyHostToDevice));
    };
    auto row_scale = [&](int m, int k) { return blk_a.empty() ? 1.0 : double(blk_a[size_t(k / 128) * M + m]); };
    auto col_scale = [&](int k, int n) { return blk_b.empty() ? 1.0 : double(blk_b[size_t(k / 128) * NB + n / 128]); };
    if (mi.block_scaled()) std::printf("fine-grained scales: sc_a %d x %d, sc_b %d x %d (fp32)\n", KB, M, KB, NB);
    int failed = 0;
    {  // random fp8 values against a float64 reference
      set_scales(0.75f, 1.25f);
      set_block_scales(false, seed + 4);
      set_c_in(false);
      auto a = dg::gpu::random_fp8(size_t(MB) * K, a_e5m2, seed);
      auto b = dg::gpu::random_fp8(size_t(K) * N * batch, b_e5m2, seed + 1);
      auto got = run_codes(a, b);
      std::vector<double> av(256), bv(256);
      for (int c = 0; c < 256; ++c) {
        av[c] = dg::gpu::fp8_value(uint8_t(c), a_e5m2);
        bv[c] = dg::gpu::fp8_value(uint8_t(c), b_e5m2);
      }
      double num = 0, den = 0, max_abs = 0;
      size_t bad = 0;
      std::vector<double> row(N);
      for (int r = 0; r < rows; ++r) {
        const int m = row_of(r);
        std::fill(row.begin(), row.end(), 0.0);
        for (int k = 0; k < K; ++k) {
          const double x = av[a[size_t(m) * K + k]] * row_scale(m, k);
          for (int n = 0; n < N; ++n) row[n] += x * bv[b_at(b, m, k, n)] * col_scale(k, n);
        }
        for (int n = 0; n < N; ++n) {
          const double ref =
              mi.finish(row[n] * scale_product, mi.has_bias() ? bias8[n] : 0.0, c_in_at(size_t(m) * N + n));
          const double g = value(got[size_t(m) * N + n]);
          if (!std::isfinite(g)) {
            ++bad;
            continue;
          }
          num += (g - ref) * (g - ref);
          den += ref * ref;
          max_abs = std::max(max_abs, std::fabs(g - ref));
        }
      }
      const double rel = std::sqrt(num / (den > 0 ? den : 1));
      const bool ok = bad == 0 && rel < 1e-2 && den > 0;
      failed += !ok;
      std::printf(
          "relative Frobenius error %.3e, max abs error %.3e, non-finite %zu (float64 reference on %d of %d "
          "rows)%s\n",
          rel, max_abs, bad, rows, MB, ok ? "" : "  FAILED");
    }
    if ((mi.epilogue.empty() || mi.epilogue == "none") && mi.exact_factors()) {  // small integers: exact
      set_scales(0.5f, 4.f);                                                     // a product of 2: scaling stays exact
      set_block_scales(true, seed + 5);
      set_c_in(true);
      std::mt19937 rng(seed + 3);
      std::uniform_int_distribution<int> d(-2, 2);
      std::vector<int8_t> ai(size_t(MB) * K), bi(size_t(K) * N * batch);
      std::vector<uint8_t> a(ai.size()), b(bi.size());
      for (size_t i = 0; i < ai.size(); ++i) a[i] = dg::gpu::fp8_small_int(ai[i] = int8_t(d(rng)), a_e5m2);
      for (size_t i = 0; i < bi.size(); ++i) b[i] = dg::gpu::fp8_small_int(bi[i] = int8_t(d(rng)), b_e5m2);
      auto got = run_codes(a, b);
      size_t wrong = 0, first = SIZE_MAX;
      // In double: integers times power-of-two block scales, every partial and total sum exact.
      std::vector<double> row(N);
      for (int r = 0; r < rows; ++r) {
        const int m = row_of(r);
        std::fill(row.begin(), row.end(), 0);
        for (int k = 0; k < K; ++k) {
          const double x = ai[size_t(m) * K + k] * row_scale(m, k);
          for (int n = 0; n < N; ++n)
            row[n] += x * (b_row_major ? bi[b_off(m) + size_t(k) * N + n] : bi[b_off(m) + size_t(n) * K + k]) *
                      col_scale(k, n);
        }
        for (int n = 0; n < N; ++n) {
          // |sum| <= 4K (times scales in [1/8, 8]), a power-of-two scale (and alpha, beta): exact
          const float exact = float(mi.finish(double(row[n]) * scale_product, 0, c_in_at(size_t(m) * N + n)));
          uint32_t want;
          if (c_bytes == 4)
            std::memcpy(&want, &exact, 4);
          else
            want = dg::gpu::to_half_bits(exact, mi.c_type == "bf16");
          if (got[size_t(m) * N + n] != want && wrong++ == 0) first = size_t(m) * N + n;
        }
      }
      failed += wrong != 0;
      std::printf("exact small-integer check on %d of %d rows: %zu elements differ%s\n", rows, MB, wrong,
                  wrong ? "  FAILED" : "");
      if (wrong) std::printf("first difference at row %zu col %zu\n", first / N, first % N);
    }
    std::printf("%d passed, %d failed\n", failed ? 0 : 1, failed ? 1 : 0);
    return failed ? 1 : 0;
  }

  if (mi.a_type == "fp32") {
    // fp32 inputs (the SIMT family): a float64 host reference on the rows below, relative
    // Frobenius error under 1e-5 (fp32 fused multiply-adds), then small integers, exactly.
    const size_t c_bytes = mi.c_type == "fp32" ? 4 : 2;
    const RowSample sample = sample_rows(MB, N, K, 256);
    const int rows = sample.rows;
    auto row_of = [&](int r) { return sample.at(r); };
    void *dA, *dB, *dC;
    DG_CUDA(cudaMalloc(&dA, size_t(MB) * K * 4));
    DG_CUDA(cudaMalloc(&dB, size_t(K) * N * batch * 4));
    DG_CUDA(cudaMalloc(&dC, size_t(MB) * N * c_bytes));
    auto run_on = [&](const std::vector<float>& a, const std::vector<float>& b) {
      DG_CUDA(cudaMemcpy(dA, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
      DG_CUDA(cudaMemcpy(dB, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
      DG_CUDA(cudaMemset(dC, 0xFF, size_t(MB) * N * c_bytes));  // poison: NaN
      run(dA, dB, dC);
      dgmm_unload_kernel(h);
      std::vector<float> got(size_t(MB) * N);
      if (c_bytes == 4) {
        DG_CUDA(cudaMemcpy(got.data(), dC, got.size() * 4, cudaMemcpyDeviceToHost));
      } else {
        std::vector<uint16_t> raw(got.size());
        DG_CUDA(cudaMemcpy(raw.data(), dC, raw.size() * 2, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < raw.size(); ++i) got[i] = dg::gpu::from_half_bits(raw[i], mi.c_type == "bf16");
      }
      return got;
    };
    auto reference_row = [&](const std::vector<float>& a, const std::vector<float>& b, int m,
                             std::vector<double>& row) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int k = 0; k < K; ++k) {
        const double x = a[size_t(m) * K + k];
        for (int n = 0; n < N; ++n)
          row[n] += x * (b_row_major ? b[b_off(m) + size_t(k) * N + n] : b[b_off(m) + size_t(n) * K + k]);
      }
    };
    int failed = 0;
    {
      std::mt19937 rng(seed);
      std::uniform_real_distribution<float> d(-1.f, 1.f);
      std::vector<float> a(size_t(MB) * K), b(size_t(K) * N * batch);
      for (float& x : a) x = d(rng);
      for (float& x : b) x = d(rng);
      set_scales(0.75f, 1.25f);
      set_c_in(false);
      auto got = run_on(a, b);
      double num = 0, den = 0;
      size_t bad = 0;
      std::vector<double> row(N);
      for (int r = 0; r < rows; ++r) {
        const int m = row_of(r);
        reference_row(a, b, m, row);
        for (int n = 0; n < N; ++n) {
          const double ref = mi.finish(row[n] * scale_product, 0, c_in_at(size_t(m) * N + n));
          const double g = got[size_t(m) * N + n];
          if (!std::isfinite(g)) {
            ++bad;
            continue;
          }
          num += (g - ref) * (g - ref);
          den += ref * ref;
        }
      }
      const double rel = std::sqrt(num / (den > 0 ? den : 1));
      const bool ok = bad == 0 && den > 0 && rel < (c_bytes == 4 ? 1e-5 : 1e-2);
      failed += !ok;
      std::printf("relative Frobenius error %.3e, non-finite %zu (float64 reference on %d of %d rows)%s\n", rel, bad,
                  rows, MB, ok ? "" : "  FAILED");
    }
    if (!mi.has_bias() && (mi.epilogue.empty() || mi.epilogue == "none") && mi.exact_factors()) {
      std::mt19937 rng(seed + 3);
      std::uniform_int_distribution<int> d(-2, 2);
      std::vector<float> a(size_t(MB) * K), b(size_t(K) * N * batch);
      for (float& x : a) x = float(d(rng));
      for (float& x : b) x = float(d(rng));
      set_scales(0.5f, 4.f);
      set_c_in(true);
      auto got = run_on(a, b);
      size_t wrong = 0;
      std::vector<double> row(N);
      for (int r = 0; r < rows; ++r) {
        const int m = row_of(r);
        reference_row(a, b, m, row);
        for (int n = 0; n < N; ++n) {
          const float exact = float(mi.finish(row[n] * scale_product, 0, c_in_at(size_t(m) * N + n)));
          const float want = c_bytes == 4 ? exact
                                          : dg::gpu::from_half_bits(dg::gpu::to_half_bits(exact, mi.c_type == "bf16"),
                                                                    mi.c_type == "bf16");
          if (std::memcmp(&got[size_t(m) * N + n], &want, 4) != 0) ++wrong;
        }
      }
      failed += wrong != 0;
      std::printf("exact small-integer check on %d of %d rows: %zu elements differ%s\n", rows, MB, wrong,
                  wrong ? "  FAILED" : "");
    }
    std::printf("%d passed, %d failed\n", failed ? 0 : 1, failed ? 1 : 0);
    return failed ? 1 : 0;
  }

  auto a = dg::gpu::random_matrix(size_t(MB) * K, bf16, seed);
  auto b = dg::gpu::random_matrix(size_t(K) * N * batch, bf16, seed + 1);
  size_t c_elem = mi.c_type == "fp32" ? 4 : 2;
  void *dA, *dB, *dC, *dRef;
  DG_CUDA(cudaMalloc(&dA, a.size() * 2));
  DG_CUDA(cudaMalloc(&dB, b.size() * 2));
  DG_CUDA(cudaMalloc(&dC, size_t(MB) * N * c_elem));
  DG_CUDA(cudaMalloc(&dRef, size_t(MB) * N * 4));
  DG_CUDA(cudaMemcpy(dA, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
  DG_CUDA(cudaMemcpy(dB, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
  DG_CUDA(cudaMemset(dC, 0xFF, size_t(MB) * N * c_elem));  // poison: NaN in every format
  std::vector<float> bias;                                 // as the kernel reads it: values of C's type
  if (mi.has_bias()) {
    std::mt19937 rng(seed + 2);
    std::uniform_real_distribution<float> d(-2.f, 2.f);
    std::vector<uint16_t> raw(N);
    std::vector<float> wide(N);
    for (int j = 0; j < N; ++j) {
      wide[j] = d(rng);
      raw[j] = dg::gpu::to_half_bits(wide[j], mi.c_type == "bf16");
      if (c_elem == 2) wide[j] = dg::gpu::from_half_bits(raw[j], mi.c_type == "bf16");
    }
    bias = wide;
    DG_CUDA(cudaMalloc(&dBias, size_t(N) * c_elem));
    if (c_elem == 4)
      DG_CUDA(cudaMemcpy(dBias, wide.data(), size_t(N) * 4, cudaMemcpyHostToDevice));
    else
      DG_CUDA(cudaMemcpy(dBias, raw.data(), size_t(N) * 2, cudaMemcpyHostToDevice));
  }

  set_scales(0.75f, 1.25f);
  set_c_in(false);
  run(dA, dB, dC);
  if (std::getenv("DG_CHECK_KERNEL_ONLY") != nullptr) {
    // Our kernel alone (for compute-sanitizer's racecheck, which cuBLAS's kernels upset): no
    // reference, no check.
    dgmm_unload_kernel(h);
    std::printf("kernel only (DG_CHECK_KERNEL_ONLY): launched, not checked\n");
    return 0;
  }
  cublasHandle_t cb;
  DG_CUBLAS(cublasCreate(&cb));
  for (int i = 0; i < batch; ++i)  // one cuBLAS GEMM per batch, on the same packed matrices
    dg::gpu::cublas_gemm(cb, bf16, static_cast<uint16_t*>(dA) + size_t(i) * M * K,
                         static_cast<uint16_t*>(dB) + size_t(i) * K * N, static_cast<float*>(dRef) + size_t(i) * M * N,
                         CUDA_R_32F, M, N, K, b_row_major);
  DG_CUDA(cudaDeviceSynchronize());

  std::vector<float> ref(size_t(MB) * N), got(size_t(MB) * N);
  DG_CUDA(cudaMemcpy(ref.data(), dRef, ref.size() * 4, cudaMemcpyDeviceToHost));
  // The scales and the fused epilogue, applied to cuBLAS's fp32 result in double.
  if (mi.scale_a || mi.scale_b)
    for (float& r : ref) r = static_cast<float>(double(r) * scale_product);
  if ((!mi.epilogue.empty() && mi.epilogue != "none") || mi.alpha != 1 || mi.has_c_in()) {
    for (size_t i = 0; i < ref.size(); ++i)
      ref[i] = static_cast<float>(mi.finish(ref[i], mi.has_bias() ? bias[i % N] : 0.0, c_in_at(i)));
    std::printf("epilogue %s, alpha %g, beta %g (C_in) applied to the reference\n",
                mi.epilogue.empty() ? "none" : mi.epilogue.c_str(), mi.alpha, mi.beta);
  }
  if (c_elem == 4) {
    DG_CUDA(cudaMemcpy(got.data(), dC, got.size() * 4, cudaMemcpyDeviceToHost));
  } else {
    std::vector<uint16_t> raw(got.size());
    DG_CUDA(cudaMemcpy(raw.data(), dC, raw.size() * 2, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < raw.size(); ++i) got[i] = dg::gpu::from_half_bits(raw[i], mi.c_type == "bf16");
  }
  double num = 0, den = 0, max_abs = 0;
  size_t bad = 0, first_bad = SIZE_MAX;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) {
      if (bad++ == 0) first_bad = i;
      continue;
    }
    double d = double(got[i]) - double(ref[i]);
    num += d * d;
    den += double(ref[i]) * ref[i];
    max_abs = std::max(max_abs, std::fabs(d));
  }
  double rel = std::sqrt(num / (den > 0 ? den : 1));
  // fp16 accumulation (fp16_fma): each of the K additions rounds the running sum to fp16, whose
  // error grows as 2^-11 · sqrt(K) relative (against cuBLAS's fp32 sums): bounded at 4 times that.
  const double bound = mi.acc_type == "fp16" ? std::max(1e-2, 4 * std::ldexp(1.0, -11) * std::sqrt(double(K))) : 1e-2;
  bool ok = bad == 0 && rel < bound && den > 0;
  std::printf("relative Frobenius error %.3e (bound %.1e), max abs error %.3e, non-finite %zu%s\n", rel, bound, max_abs,
              bad, ok ? "" : "  FAILED");
  if (bad) std::printf("first non-finite at row %zu col %zu\n", first_bad / N, first_bad % N);
  if (mi.has_c_in()) {
    // In place (C = alpha · A·B + beta · C): C_in bound to C's own buffer, holding the same values,
    // must give the same bits as a separate C_in (each element is read before it is written).
    const size_t c_bytes_all = size_t(MB) * N * c_elem;
    std::vector<uint8_t> separate(c_bytes_all), in_place(c_bytes_all);
    DG_CUDA(cudaMemcpy(separate.data(), dC, c_bytes_all, cudaMemcpyDeviceToHost));
    dgmm_unload_kernel(h);
    DG_CUDA(cudaMemcpy(dC, dCin, c_bytes_all, cudaMemcpyDeviceToDevice));
    void* own = dCin;
    dCin = dC;
    c_in_is_c = true;
    run(dA, dB, dC);
    dCin = own;
    c_in_is_c = false;
    DG_CUDA(cudaMemcpy(in_place.data(), dC, c_bytes_all, cudaMemcpyDeviceToHost));
    size_t differ = 0;
    for (size_t i = 0; i < c_bytes_all; ++i) differ += separate[i] != in_place[i];
    std::printf("C_in in place (bound to C's buffer): %zu bytes differ from a separate C_in%s\n", differ,
                differ ? "  FAILED" : "");
    ok = ok && differ == 0;
  }
  dgmm_unload_kernel(h);
  cublasDestroy(cb);
  // With fp16 accumulation the small-integer sums are exact while they stay within 2048 (4·K at most).
  if (!mi.has_bias() && (mi.epilogue.empty() || mi.epilogue == "none") && (mi.acc_type != "fp16" || 4 * K <= 2048) &&
      mi.exact_factors()) {
    // Small integers in [-2, 2]: every product and fp32 partial sum is exact, so C must be the
    // exact sum (times a power-of-two scale product) rounded once to C's type, bit for bit. Every
    // row when the host reference is cheap, else 256 spread over M.
    const RowSample sample = sample_rows(MB, N, K, 256);
    const int rows = sample.rows;
    std::mt19937 rng(seed + 3);
    std::uniform_int_distribution<int> d(-2, 2);
    std::vector<int8_t> ai(a.size()), bi(b.size());
    for (size_t i = 0; i < a.size(); ++i) a[i] = dg::gpu::to_half_bits(float(ai[i] = int8_t(d(rng))), bf16);
    for (size_t i = 0; i < b.size(); ++i) b[i] = dg::gpu::to_half_bits(float(bi[i] = int8_t(d(rng))), bf16);
    DG_CUDA(cudaMemcpy(dA, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
    DG_CUDA(cudaMemcpy(dB, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
    DG_CUDA(cudaMemset(dC, 0xFF, size_t(MB) * N * c_elem));
    set_scales(0.5f, 4.f);
    set_c_in(true);
    run(dA, dB, dC);
    dgmm_unload_kernel(h);
    const std::vector<uint32_t> bits = read_c_bits(dC, size_t(MB) * N, c_elem);
    size_t wrong = 0, first = SIZE_MAX;
    std::vector<int64_t> sums(N);
    for (int r = 0; r < rows; ++r) {
      const int m = sample.at(r);
      std::fill(sums.begin(), sums.end(), 0);
      for (int k = 0; k < K; ++k) {
        const int64_t x = ai[size_t(m) * K + k];
        if (x == 0) continue;
        for (int n = 0; n < N; ++n)
          sums[n] += x * (b_row_major ? bi[b_off(m) + size_t(k) * N + n] : bi[b_off(m) + size_t(n) * K + k]);
      }
      for (int n = 0; n < N; ++n) {
        const size_t at = size_t(m) * N + n;
        const float exact = float(mi.finish(double(sums[n]) * scale_product, 0, c_in_at(at)));
        uint32_t want = 0;
        if (c_elem == 4)
          std::memcpy(&want, &exact, 4);
        else
          want = dg::gpu::to_half_bits(exact, mi.c_type == "bf16");
        const bool same = bits[at] == want;
        if (!same && wrong++ == 0) first = at;
      }
    }
    std::printf("exact small-integer check on %d of %d rows: %zu elements differ%s\n", rows, MB, wrong,
                wrong ? "  FAILED" : "");
    if (wrong) std::printf("first difference at row %zu col %zu\n", first / N, first % N);
    ok = ok && wrong == 0;
  }
  std::printf("%d passed, %d failed\n", ok ? 1 : 0, ok ? 0 : 1);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gemm_check MODULE.ko [SEED]\n");
    return 2;
  }
  uint32_t seed = argc > 2 ? uint32_t(std::strtoul(argv[2], nullptr, 10)) : 20261129u;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("skipped: no GPU\n");
    return 77;
  }
  dg::gpu::ModuleInfo mi;
  std::string why;
  if (!dg::gpu::read_module(argv[1], mi, why)) {
    std::fprintf(stderr, "%s: %s\n", argv[1], why.c_str());
    return 1;
  }
  // A module with a run-time K range is checked at its smallest K, its largest, and an aligned K
  // in between that is not a multiple of the tile's K.
  const auto& L = mi.launch;
  std::vector<int> ks = {int(L.K)};
  if (L.K_min != L.K) {
    const uint64_t a = L.k_align, mid = (L.K_min + L.K) / 2 / a * a + a;
    ks = {int(L.K_min), int(std::min<uint64_t>(mid, L.K)), int(L.K)};
  }
  int failed = 0;
  for (int k : ks) failed += check_at(argv[1], mi, k, seed) != 0;
  return failed ? 1 : 0;
}
