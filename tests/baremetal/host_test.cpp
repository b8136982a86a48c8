// Host unit tests of the freestanding runtime core with the host port: module validation, plan
// reading, the API state machine and the reference executor against a naive GEMM. A plain program
// (no test framework, so that it also builds in the runtime-only configuration); prints
// "N passed, N failed" and exits non-zero on any failure.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <deepgemm/baremetal.h>
#include <deepgemm/module_format.h>

#include "port_host.h"

namespace {

int g_passed = 0, g_failed = 0;

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (cond) {                                                            \
      ++g_passed;                                                          \
    } else {                                                               \
      ++g_failed;                                                          \
      std::printf("FAIL %s:%d: %s [last error: %s]\n", __FILE__, __LINE__, \
                  #cond, dgmm_last_error());                               \
    }                                                                      \
  } while (0)

struct PlanArgs {
  int M = 5, N = 7, K = 9, tm = 2, tn = 3, tk = 4;
  std::string a = "int8", b = "int8", acc = "int32", c = "int32";
  bool a_row = true, b_row = true, c_row = true;
  int lda = 0, ldb = 0, ldc = 0;
  int batch = 1;
  std::string target_kind = "npu";
};

// A plan like the compiler's (keys sorted, nested objects that repeat top-level key names).
std::string plan_json(const PlanArgs& p) {
  std::ostringstream s;
  s << "{\n  \"K\": " << p.K << ",\n  \"M\": " << p.M << ",\n  \"N\": " << p.N
    << ",\n  \"a_type\": \"" << p.a << "\",\n  \"acc_type\": \"" << p.acc << "\",\n  \"b_type\": \""
    << p.b << "\",\n  \"batch\": " << p.batch << ",\n  \"c_type\": \"" << p.c
    << "\",\n  \"format\": \"deepgemm-plan-1\",\n  \"index\": {\"M\": 999, \"a_row_major\": "
    << (p.a_row ? "true" : "false") << ", \"b_row_major\": " << (p.b_row ? "true" : "false")
    << ", \"c_row_major\": " << (p.c_row ? "true" : "false") << ", \"lda\": " << p.lda
    << ", \"ldb\": " << p.ldb << ", \"ldc\": " << p.ldc
    << ", \"terms\": [{\"var\": \"}]{[\", \"coeff\": -3}]},\n  \"notes\": [\"tile_m: 1\"],\n"
    << "  \"predicted_us\": 1.5e-3,\n  \"target_kind\": \"" << p.target_kind
    << "\",\n  \"tile_k\": " << p.tk << ",\n  \"tile_m\": " << p.tm << ",\n  \"tile_n\": " << p.tn
    << "\n}\n";
  return s.str();
}

std::vector<uint8_t> make_module(const std::string& plan, dg::ko::TargetKind kind = dg::ko::TargetKind::Npu,
                                 bool with_plan = true) {
  dg::ko::SectionSpec secs[2];
  uint32_t n = 0;
  if (with_plan) {
    secs[n++] = {1, 0, "plan", reinterpret_cast<const uint8_t*>(plan.data()), uint32_t(plan.size())};
  }
  static const char proof[] = "{}";
  secs[n++] = {2, 0, "proof", reinterpret_cast<const uint8_t*>(proof), 2};
  dg::ko::ModuleSpec spec;
  spec.target_kind = kind;
  spec.target_name = kind == dg::ko::TargetKind::Npu ? "npu16" : "hopper";
  spec.sections = secs;
  spec.section_count = n;
  std::vector<uint8_t> out(dg::ko::module_size(secs, n));
  size_t written = 0;
  if (dg::ko::write(spec, out.data(), out.size(), &written) != dg::ko::Status::Ok) out.clear();
  return out;
}

struct Arena {
  alignas(16) unsigned char bytes[64 * 1024];
};
Arena g_arena;

dgmm_handle load(const std::vector<uint8_t>& m) {
  return dgmm_load_image(m.data(), m.size(), g_arena.bytes, sizeof g_arena.bytes);
}

dgmm_status load_status(const std::vector<uint8_t>& m) {
  return load(m) != nullptr ? DGMM_OK : dgmm_last_error_code();
}

bool contains(const char* haystack, const char* needle) { return std::strstr(haystack, needle) != nullptr; }

// Runs one GEMM through the API with random data and compares with a naive reference.
template <typename TA, typename TB, typename TC>
bool run_gemm(const PlanArgs& p, uint32_t seed) {
  const auto module = make_module(plan_json(p));
  dgmm_handle h = load(module);
  if (h == nullptr) return false;
  dgmm_operand a, b, c;
  dgmm_operand_info(h, "A", &a);
  dgmm_operand_info(h, "B", &b);
  dgmm_operand_info(h, "C", &c);
  auto at = [](const dgmm_operand& o, int r, int col) {
    return o.row_major ? size_t(r) * o.ld + col : size_t(col) * o.ld + r;
  };
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-100, 100);
  std::vector<TA> A(a.bytes / sizeof(TA));
  std::vector<TB> B(b.bytes / sizeof(TB));
  std::vector<TC> C(c.bytes / sizeof(TC), TC(0x5A5A));
  for (int i = 0; i < p.M; ++i)
    for (int k = 0; k < p.K; ++k) A[at(a, i, k)] = TA(dist(rng));
  for (int k = 0; k < p.K; ++k)
    for (int j = 0; j < p.N; ++j) B[at(b, k, j)] = TB(dist(rng));
  if (dgmm_bind_input(h, "A", reinterpret_cast<uintptr_t>(A.data())) != DGMM_OK ||
      dgmm_bind_input(h, "B", reinterpret_cast<uintptr_t>(B.data())) != DGMM_OK ||
      dgmm_bind_output(h, "C", reinterpret_cast<uintptr_t>(C.data())) != DGMM_OK ||
      dgmm_launch(h) != DGMM_OK || dgmm_wait(dgmm_sync(h)) != DGMM_OK) {
    return false;
  }
  bool nonzero = false;
  for (int i = 0; i < p.M; ++i) {
    for (int j = 0; j < p.N; ++j) {
      int64_t s = 0;
      for (int k = 0; k < p.K; ++k) s += int64_t(A[at(a, i, k)]) * int64_t(B[at(b, k, j)]);
      if (int64_t(C[at(c, i, j)]) != s) {
        std::printf("  C[%d][%d] = %lld, expected %lld (seed %u)\n", i, j, (long long)C[at(c, i, j)],
                    (long long)s, seed);
        return false;
      }
      nonzero |= s != 0;
    }
  }
  return nonzero;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void test_valid_module() {
  const auto m = make_module(plan_json({}));
  CHECK(!m.empty());
  const size_t need = dgmm_arena_size(m.data(), m.size());
  CHECK(need > 0);
  dgmm_handle h = load(m);
  CHECK(h != nullptr);
  uint32_t M, N, K, tm, tn, tk;
  CHECK(dgmm_problem(h, &M, &N, &K, &tm, &tn, &tk) == DGMM_OK);
  CHECK(M == 5 && N == 7 && K == 9 && tm == 2 && tn == 3 && tk == 4);
  dgmm_operand a;
  CHECK(dgmm_operand_info(h, "A", &a) == DGMM_OK);
  CHECK(a.rows == 5 && a.cols == 9 && a.ld == 9 && a.element_bits == 8 && a.row_major == 1 &&
        a.bytes == 45 && a.is_output == 0);
  dgmm_operand c;
  CHECK(dgmm_operand_info(h, "C", &c) == DGMM_OK && c.bytes == 5 * 7 * 4 && c.is_output == 1);
}

void test_bad_modules() {
  const auto good = make_module(plan_json({}));
  // Truncated, at every length below the full size.
  bool all_rejected = true;
  for (size_t n = 0; n < good.size(); ++n) {
    dgmm_handle h = dgmm_load_image(good.data(), n, g_arena.bytes, sizeof g_arena.bytes);
    const dgmm_status s = dgmm_last_error_code();
    if (h != nullptr || (n != 0 && s != DGMM_ERROR_BAD_MODULE)) all_rejected = false;
  }
  CHECK(all_rejected);
  CHECK(load(std::vector<uint8_t>(good.begin(), good.end() - 1)) == nullptr);
  CHECK(contains(dgmm_last_error(), "invalid module"));
  // Any single corrupted byte is rejected.
  bool all_corrupt_rejected = true;
  for (size_t i = 0; i < good.size(); ++i) {
    auto bad = good;
    bad[i] ^= 0x40;
    if (load(bad) != nullptr) all_corrupt_rejected = false;
  }
  CHECK(all_corrupt_rejected);
  auto bad = good;
  bad[good.size() - 20] ^= 1;  // inside the proof payload or padding
  CHECK(load_status(bad) == DGMM_ERROR_BAD_MODULE);
  // Wrong ABI version (header CRC recomputed so only the version is wrong).
  bad = good;
  dg::ko::store_u32(bad.data() + dg::ko::header_field::kAbiVersion, 2);
  dg::ko::store_u32(bad.data() + dg::ko::header_field::kCrc, dg::ko::compute_header_crc(bad.data()));
  CHECK(load_status(bad) == DGMM_ERROR_ABI_MISMATCH);
  // GPU module.
  CHECK(load_status(make_module(plan_json({}), dg::ko::TargetKind::Gpu)) == DGMM_ERROR_TARGET_MISMATCH);
  CHECK(contains(dgmm_last_error(), "GPU target 'hopper'"));
  // No plan.
  CHECK(load_status(make_module("", dg::ko::TargetKind::Npu, false)) == DGMM_ERROR_BAD_MODULE);
  CHECK(contains(dgmm_last_error(), "no plan section"));
  // Null arguments.
  CHECK(dgmm_load_image(nullptr, 10, g_arena.bytes, sizeof g_arena.bytes) == nullptr);
  CHECK(dgmm_last_error_code() == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_load_image(good.data(), good.size(), nullptr, 100) == nullptr);
  CHECK(dgmm_last_error_code() == DGMM_ERROR_INVALID_ARGUMENT);
}

void test_bad_plans() {
  auto with = [](auto edit) {
    PlanArgs p;
    edit(p);
    return load_status(make_module(plan_json(p)));
  };
  CHECK(with([](PlanArgs& p) { p.a = "fp16"; }) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "a_type"));
  CHECK(with([](PlanArgs& p) { p.batch = 2; }) == DGMM_ERROR_UNSUPPORTED);
  CHECK(with([](PlanArgs& p) { p.c = "int16"; }) == DGMM_ERROR_UNSUPPORTED);
  CHECK(with([](PlanArgs& p) { p.acc = "int16"; p.c = "int16"; }) == DGMM_ERROR_UNSUPPORTED);
  CHECK(with([](PlanArgs& p) { p.M = 0; }) == DGMM_ERROR_BAD_MODULE);
  CHECK(contains(dgmm_last_error(), "'M': out of range"));
  CHECK(with([](PlanArgs& p) { p.tk = -1; }) == DGMM_ERROR_BAD_MODULE);
  CHECK(with([](PlanArgs& p) { p.lda = 3; }) == DGMM_ERROR_BAD_MODULE);
  CHECK(with([](PlanArgs& p) { p.target_kind = "gpu"; }) == DGMM_ERROR_TARGET_MISMATCH);

  const char* malformed[] = {
      "",
      "[]",
      "{",
      "{\"M\": 5",
      "{\"M\" 5}",
      "{\"format\": \"deepgemm-plan-1\", \"x\": [1, 2}",
      "{\"format\": \"deepgemm-plan-1\", \"x\": \"unterminated}",
      "{\"format\": \"deepgemm-plan-1\", \"x\": @}",
      "{\"format\": \"deepgemm-plan-1\", \"target_kind\": \"npu\", \"M\": 99999999999999999999}",
  };
  bool all_rejected = true;
  for (const char* text : malformed) {
    const dgmm_status s = load_status(make_module(text));
    if (s != DGMM_ERROR_BAD_MODULE) {
      std::printf("  accepted or misclassified: %s -> %s\n", text, dgmm_status_string(s));
      all_rejected = false;
    }
  }
  CHECK(all_rejected);
  // Nesting deeper than the reader's limit.
  std::string deep = "{\"format\": \"deepgemm-plan-1\", \"x\": " + std::string(100, '[') +
                     std::string(100, ']') + ", \"target_kind\": \"npu\"}";
  CHECK(load_status(make_module(deep)) == DGMM_ERROR_BAD_MODULE);
  // Missing field.
  CHECK(load_status(make_module("{\"format\": \"deepgemm-plan-1\", \"target_kind\": \"npu\"}")) ==
        DGMM_ERROR_BAD_MODULE);
  CHECK(contains(dgmm_last_error(), "'M': missing"));
}

void test_arena() {
  const auto m = make_module(plan_json({}));
  const size_t need = dgmm_arena_size(m.data(), m.size());
  CHECK(dgmm_load_image(m.data(), m.size(), g_arena.bytes, need - 1) == nullptr);
  CHECK(dgmm_last_error_code() == DGMM_ERROR_OUT_OF_MEMORY);
  CHECK(contains(dgmm_last_error(), "too small"));
  CHECK(dgmm_load_image(m.data(), m.size(), g_arena.bytes + 3, need) != nullptr);  // misaligned arena
  CHECK(dgmm_load_image(m.data(), m.size(), g_arena.bytes, 16) == nullptr);
}

void test_state_machine() {
  const auto m = make_module(plan_json({}));
  dgmm_handle h = load(m);
  CHECK(h != nullptr);
  int8_t a[64] = {}, b[64] = {};
  int32_t c[64] = {};
  CHECK(dgmm_sync(h).handle == nullptr);
  CHECK(dgmm_last_error_code() == DGMM_ERROR_INVALID_STATE);
  CHECK(dgmm_launch(h) == DGMM_ERROR_UNBOUND_OPERAND);
  CHECK(contains(dgmm_last_error(), "'A' is not bound"));
  CHECK(dgmm_bind_input(h, "A", reinterpret_cast<uintptr_t>(a)) == DGMM_OK);
  CHECK(dgmm_bind_output(h, "C", reinterpret_cast<uintptr_t>(c)) == DGMM_OK);
  CHECK(dgmm_launch(h) == DGMM_ERROR_UNBOUND_OPERAND);
  CHECK(contains(dgmm_last_error(), "'B' is not bound"));
  CHECK(dgmm_bind_input(h, "C", reinterpret_cast<uintptr_t>(c)) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_bind_output(h, "B", reinterpret_cast<uintptr_t>(b)) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_bind_input(h, "X", reinterpret_cast<uintptr_t>(b)) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_bind_input(h, nullptr, reinterpret_cast<uintptr_t>(b)) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_bind_input(h, "B", 0) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_bind_output(h, "C", reinterpret_cast<uintptr_t>(c) + 2) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "not aligned"));
  CHECK(dgmm_bind_input(h, "B", reinterpret_cast<uintptr_t>(b)) == DGMM_OK);
  dg::bm::host_port::reset();
  CHECK(dgmm_launch(h) == DGMM_OK);
  dgmm_fence f = dgmm_sync(h);
  CHECK(f.handle == h && f.sequence == 1);
  CHECK(dgmm_wait(f) == DGMM_OK);
  CHECK(dg::bm::host_port::ticks() >= 1);  // the wait asked the port for the time
  CHECK(dgmm_wait_timeout(f, 5) == DGMM_OK);
  dgmm_fence stale{h, 7};
  CHECK(dgmm_wait(stale) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_launch(h) == DGMM_OK);  // relaunch
  CHECK(dgmm_sync(h).sequence == 2);
  dgmm_unload(h);
  CHECK(dgmm_launch(h) == DGMM_ERROR_INVALID_STATE);
  CHECK(dgmm_wait(f) == DGMM_ERROR_INVALID_STATE);
  CHECK(dgmm_bind_input(nullptr, "A", 16) == DGMM_ERROR_INVALID_STATE);
  CHECK(std::strcmp(dgmm_status_string(DGMM_ERROR_UNBOUND_OPERAND), "DGMM_ERROR_UNBOUND_OPERAND") == 0);
  CHECK(std::strcmp(dgmm_status_string(static_cast<dgmm_status>(99)), "DGMM_ERROR_UNKNOWN") == 0);
}

void test_gemm() {
  PlanArgs p;
  CHECK((run_gemm<int8_t, int8_t, int32_t>(p, 1)));
  p.M = 37, p.N = 20, p.K = 64, p.tm = 16, p.tn = 32, p.tk = 64;
  CHECK((run_gemm<int8_t, int8_t, int32_t>(p, 2)));
  p.tm = 1, p.tn = 1, p.tk = 1;
  CHECK((run_gemm<int8_t, int8_t, int32_t>(p, 3)));
  p.tm = 1000, p.tn = 1000, p.tk = 1000;  // tiles larger than the problem
  CHECK((run_gemm<int8_t, int8_t, int32_t>(p, 4)));
  // Mixed types, column-major operands with padding, int64 C.
  PlanArgs q;
  q.M = 13, q.N = 11, q.K = 17, q.tm = 4, q.tn = 8, q.tk = 5;
  q.a = "int16", q.b = "int32", q.acc = "int64", q.c = "int64";
  q.a_row = false, q.lda = 16, q.c_row = false, q.ldb = 12;
  CHECK((run_gemm<int16_t, int32_t, int64_t>(q, 5)));
}

void test_overflow() {
  PlanArgs p;
  p.M = 1, p.N = 1, p.K = 4, p.a = "int32", p.b = "int32";
  const auto m = make_module(plan_json(p));
  dgmm_handle h = load(m);
  CHECK(h != nullptr);
  int32_t a[4] = {2000000000, 2000000000, 0, 0}, b[4] = {1, 1, 0, 0}, c[1] = {0};
  dgmm_bind_input(h, "A", reinterpret_cast<uintptr_t>(a));
  dgmm_bind_input(h, "B", reinterpret_cast<uintptr_t>(b));
  dgmm_bind_output(h, "C", reinterpret_cast<uintptr_t>(c));
  CHECK(dgmm_launch(h) == DGMM_ERROR_LAUNCH);
  CHECK(contains(dgmm_last_error(), "accumulator overflow (int32) at C[0][0], k = 1"));
  CHECK(dgmm_wait(dgmm_sync(h)) == DGMM_ERROR_LAUNCH);
  b[1] = -1;
  CHECK(dgmm_launch(h) == DGMM_OK && c[0] == 0);
}

void test_compiler_plan() {
  // The plan the compiler writes for examples/npu_int8.dgml (golden file).
  const std::string plan = read_file(DEEPGEMM_SOURCE_DIR "/tests/golden/npu_int8.plan.json");
  CHECK(!plan.empty());
  dgmm_handle h = load(make_module(plan));
  CHECK(h != nullptr);
  uint32_t M = 0, N = 0, K = 0, tm = 0, tn = 0, tk = 0;
  dgmm_problem(h, &M, &N, &K, &tm, &tn, &tk);
  CHECK(M == 256 && N == 256 && K == 1024 && tm == 32 && tn == 32 && tk == 1024);
#ifdef DEEPGEMM_TEST_MODULE
  // A module compiled by deepgemm at build time.
  const std::string ko = read_file(DEEPGEMM_TEST_MODULE);
  std::vector<uint8_t> bytes(ko.begin(), ko.end());
  CHECK(load(bytes) != nullptr);
  dgmm_problem(load(bytes), &M, &N, &K, nullptr, nullptr, nullptr);
  CHECK(M == 37 && N == 20 && K == 64);
#endif
}

}  // namespace

int main() {
  test_valid_module();
  test_bad_modules();
  test_bad_plans();
  test_arena();
  test_state_machine();
  test_gemm();
  test_overflow();
  test_compiler_plan();
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
