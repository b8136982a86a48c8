// Host unit tests of the freestanding runtime core with the host port: module validation, plan
// reading, the API state machine, the reference executor against a naive GEMM (run-time K,
// custom-width and packed 4-bit elements included), and the NPU engine
// against an emulated register block (a mock device behind the host port). A plain program (no
// test framework, so that it also builds in the runtime-only configuration); prints
// "N passed, N failed" and exits non-zero on any failure.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <deepgemm/baremetal.h>
#include <deepgemm/module_format.h>
#include <deepgemm/npu_regmap.h>
#include <deepgemm/npu_regs.h>

#include "port_host.h"

namespace {

int g_passed = 0, g_failed = 0;

#define CHECK(cond)                                                                                   \
  do {                                                                                                \
    if (cond) {                                                                                       \
      ++g_passed;                                                                                     \
    } else {                                                                                          \
      ++g_failed;                                                                                     \
      std::printf("FAIL %s:%d: %s [last error: %s]\n", __FILE__, __LINE__, #cond, dgmm_last_error()); \
    }                                                                                                 \
  } while (0)

struct PlanArgs {
  int M = 5, N = 7, K = 9, tm = 2, tn = 3, tk = 4;
  std::string a = "int8", b = "int8", acc = "int32", c = "int32";
  bool a_row = true, b_row = true, c_row = true;
  int lda = 0, ldb = 0, ldc = 0;
  int batch = 1;
  std::string target_kind = "npu";
  bool k_dynamic = false;  // K is chosen at run time, in [k_min, K]
  int k_align = 0;         // the plan's "k_align" when > 0 (absent otherwise, as older modules)
  int k_min = 0;
  int m_min = 0;    // > 0: M is chosen at run time, in [m_min, M] ("m_dynamic", "M_min")
  int m_align = 0;  // the plan's "m_align" when > 0 (absent otherwise: 1)
  int n_min = 0;    // > 0: N is chosen at run time, in [n_min, N] ("n_dynamic", "N_min", "n_align")
  int n_align = 1;
  int k_max = -1;        // the plan's "K_max" field when >= 0, else K (as the compiler writes it)
  std::string epilogue;  // the plan's "epilogue" when not empty (absent otherwise, as older modules)
  bool swapped = false;  // "operands_swapped": the plan is the transpose's, Cᵀ = Bᵀ·Aᵀ
};

// A plan like the compiler's (keys sorted, nested objects that repeat top-level key names).
std::string plan_json(const PlanArgs& p) {
  std::ostringstream s;
  s << "{\n  \"K\": " << p.K << ",\n  \"K_max\": " << (p.k_max >= 0 ? p.k_max : p.K)
    << ",\n  \"K_min\": " << (p.k_dynamic ? p.k_min : p.K) << ",\n  \"M\": " << p.M
    << (p.m_min > 0 ? ",\n  \"M_min\": " + std::to_string(p.m_min) : std::string()) << ",\n  \"N\": " << p.N
    << (p.n_min > 0 ? ",\n  \"N_min\": " + std::to_string(p.n_min) : std::string())
    << (p.epilogue.empty() ? std::string() : ",\n  \"epilogue\": \"" + p.epilogue + "\"") << ",\n  \"a_type\": \""
    << p.a << "\",\n  \"acc_type\": \"" << p.acc << "\",\n  \"b_type\": \"" << p.b << "\",\n  \"batch\": " << p.batch
    << ",\n  \"c_type\": \"" << p.c
    << "\",\n  \"format\": \"deepgemm-plan-1\",\n  \"index\": {\"M\": 999, \"a_row_major\": "
    << (p.a_row ? "true" : "false") << ", \"b_row_major\": " << (p.b_row ? "true" : "false")
    << ", \"c_row_major\": " << (p.c_row ? "true" : "false") << ", \"lda\": " << p.lda << ", \"ldb\": " << p.ldb
    << ", \"ldc\": " << p.ldc
    << ", \"terms\": [{\"var\": \"}]{[\", \"coeff\": -3}]},\n  \"k_dynamic\": " << (p.k_dynamic ? "true" : "false")
    << (p.k_align > 0 ? ",\n  \"k_align\": " + std::to_string(p.k_align) : std::string())
    << (p.m_align > 0 ? ",\n  \"m_align\": " + std::to_string(p.m_align) : std::string())
    << (p.m_min > 0 ? ",\n  \"m_dynamic\": true" : "")
    << (p.n_min > 0 ? ",\n  \"n_align\": " + std::to_string(p.n_align) + ",\n  \"n_dynamic\": true" : "")
    << ",\n  \"notes\": [\"tile_m: 1\"],\n"
    << (p.swapped ? "  \"operands_swapped\": true,\n" : "") << "  \"predicted_us\": 1.5e-3,\n  \"target_kind\": \""
    << p.target_kind << "\",\n  \"tile_k\": " << p.tk << ",\n  \"tile_m\": " << p.tm << ",\n  \"tile_n\": " << p.tn
    << "\n}\n";
  return s.str();
}

std::vector<uint8_t> make_module(const std::string& plan, dg::ko::TargetKind kind = dg::ko::TargetKind::Npu,
                                 bool with_plan = true, const std::vector<uint8_t>* regmap = nullptr) {
  dg::ko::SectionSpec secs[3];
  uint32_t n = 0;
  if (with_plan) {
    secs[n++] = {1, 0, "plan", reinterpret_cast<const uint8_t*>(plan.data()), uint32_t(plan.size())};
  }
  static const char proof[] = "{}";
  secs[n++] = {2, 0, "proof", reinterpret_cast<const uint8_t*>(proof), 2};
  if (regmap != nullptr) secs[n++] = {5, 0, "npu_regmap", regmap->data(), uint32_t(regmap->size())};
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

dgmm_status load_status(const std::vector<uint8_t>& m) { return load(m) != nullptr ? DGMM_OK : dgmm_last_error_code(); }

bool contains(const char* haystack, const char* needle) { return std::strstr(haystack, needle) != nullptr; }

// Binds A, B and C to host memory.
bool bind_fake_real(dgmm_handle h, const void* a, const void* b, void* c) {
  return dgmm_bind_input(h, "A", reinterpret_cast<uintptr_t>(a)) == DGMM_OK &&
         dgmm_bind_input(h, "B", reinterpret_cast<uintptr_t>(b)) == DGMM_OK &&
         dgmm_bind_output(h, "C", reinterpret_cast<uintptr_t>(c)) == DGMM_OK;
}

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
      dgmm_bind_output(h, "C", reinterpret_cast<uintptr_t>(C.data())) != DGMM_OK || dgmm_launch(h) != DGMM_OK ||
      dgmm_wait(dgmm_sync(h)) != DGMM_OK) {
    return false;
  }
  bool nonzero = false;
  for (int i = 0; i < p.M; ++i) {
    for (int j = 0; j < p.N; ++j) {
      int64_t s = 0;
      for (int k = 0; k < p.K; ++k) s += int64_t(A[at(a, i, k)]) * int64_t(B[at(b, k, j)]);
      if (int64_t(C[at(c, i, j)]) != s) {
        std::printf("  C[%d][%d] = %lld, expected %lld (seed %u)\n", i, j, (long long)C[at(c, i, j)], (long long)s,
                    seed);
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
  CHECK(a.rows == 5 && a.cols == 9 && a.ld == 9 && a.element_bits == 8 && a.row_major == 1 && a.bytes == 45 &&
        a.is_output == 0);
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
  CHECK(with([](PlanArgs& p) { p.batch = 0; }) == DGMM_ERROR_BAD_MODULE);  // a batch holds a matrix at least
  CHECK(contains(dgmm_last_error(), "batch"));
  // An int8 or int16 C is requantized (the rq operand); an unsigned one is not an output.
  CHECK(with([](PlanArgs& p) { p.c = "u16"; }) == DGMM_ERROR_UNSUPPORTED);
  CHECK(with([](PlanArgs& p) {
          p.acc = "int16";
          p.c = "int16";
        }) == DGMM_ERROR_UNSUPPORTED);
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
  std::string deep = "{\"format\": \"deepgemm-plan-1\", \"x\": " + std::string(100, '[') + std::string(100, ']') +
                     ", \"target_kind\": \"npu\"}";
  CHECK(load_status(make_module(deep)) == DGMM_ERROR_BAD_MODULE);
  // Missing field.
  CHECK(load_status(make_module("{\"format\": \"deepgemm-plan-1\", \"target_kind\": \"npu\"}")) ==
        DGMM_ERROR_BAD_MODULE);
  CHECK(contains(dgmm_last_error(), "'M': missing"));

  // A resealed module whose plan the compiler's reader (deepgemm inspect) refuses is refused here
  // too, whatever the fields the runtime reads hold: the whole text must be one JSON object.
  const std::string good = plan_json({});
  const std::string open = good.substr(0, good.rfind('}'));  // the members, without the closing '}'
  const std::string resealed[] = {
      good + " trailing",          // bytes after the object
      good + "{}",                 // a second object
      open + ", \"x\": 01}",       // a number with a leading zero
      open + ", \"x\": 1.}",       // a fraction without digits
      open + ", \"x\": tru}",      // a bad literal
      open + ", \"x\": \"\\q\"}",  // a bad escape
      open + ", \"x\": [1,]}",     // a trailing comma
      open + ", \"x\": {1: 2}}",   // a key that is not a string
  };
  bool resealed_rejected = true;
  for (const std::string& text : resealed) {
    const dgmm_status s = load_status(make_module(text));
    if (s != DGMM_ERROR_BAD_MODULE || !contains(dgmm_last_error(), "not a well-formed JSON object")) {
      std::printf("  accepted or misclassified: ...%s -> %s\n",
                  text.substr(text.size() > 40 ? text.size() - 40 : 0).c_str(), dgmm_status_string(s));
      resealed_rejected = false;
    }
  }
  CHECK(resealed_rejected);
  // A field given twice: the compiler's reader keeps the last, a first-match reader the first, so
  // the two would run different GEMMs: refused.
  CHECK(load_status(make_module(open + ", \"M\": 64}")) == DGMM_ERROR_BAD_MODULE);
  CHECK(contains(dgmm_last_error(), "'M': given twice"));
  // Valid JSON the reader does not look at still loads.
  CHECK(load_status(make_module(open + ", \"extra\": [\"a\\u00e9\\n\", -1.5e+3, true, null, {\"k\": []}]}")) ==
        DGMM_OK);
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
  CHECK(M == 256 && N == 256 && K == 1024 && tm == 64 && tn == 64 && tk == 256);
#ifdef DEEPGEMM_TEST_MODULE
  // A module compiled by deepgemm at build time.
  const std::string ko = read_file(DEEPGEMM_TEST_MODULE);
  std::vector<uint8_t> bytes(ko.begin(), ko.end());
  CHECK(load(bytes) != nullptr);
  dgmm_problem(load(bytes), &M, &N, &K, nullptr, nullptr, nullptr);
  CHECK(M == 37 && N == 48 && K == 64);
#endif
}

// ---- Run-time K and custom-width elements ---------------------------------------------------------

// An input type as the tests see it, decoded independently of the runtime: int4/int8/int16/int32
// or sN/uN (4 bits: two per byte; else a container of 1 byte up to 8 bits, 2 above).
struct TypeInfo {
  int bytes, bits;  // bytes: 0 for 4-bit elements (a nibble each)
  bool is_signed;
  uint32_t container_bits() const { return bytes == 0 ? 4u : 8u * uint32_t(bytes); }
};

TypeInfo type_info(const std::string& name) {
  if (name == "int4") return {0, 4, true};
  if (name == "int8") return {1, 8, true};
  if (name == "int16") return {2, 16, true};
  if (name == "int32") return {4, 32, true};
  if (name == "int64") return {8, 64, true};
  const int bits = std::stoi(name.substr(1));
  return {bits == 4 ? 0 : bits <= 8 ? 1 : 2, bits, name[0] == 's'};
}

// The value of an element: its container's low `bits` bits, sign- or zero-extended.
int64_t decode(uint64_t raw, const TypeInfo& t) {
  const uint64_t mask = t.bits == 64 ? ~uint64_t(0) : (uint64_t(1) << t.bits) - 1;
  const uint64_t v = raw & mask;
  if (t.is_signed && t.bits < 64 && (v >> (t.bits - 1)) != 0) return int64_t(v) - (int64_t(1) << t.bits);
  return int64_t(v);
}

uint64_t read_raw(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(p[i]) << (8 * i);  // little-endian
  return v;
}

// The value of element (r, c) of an operand in memory. A 4-bit element of linear index idx is the
// low nibble of byte idx / 2 when idx is even, the high nibble when it is odd.
int64_t element(const uint8_t* mem, const dgmm_operand& o, const TypeInfo& t, uint32_t r, uint32_t c) {
  const size_t idx = o.row_major ? size_t(r) * o.ld + c : size_t(c) * o.ld + r;
  if (t.bytes == 0) return decode(idx % 2 == 0 ? mem[idx / 2] & 0xF : mem[idx / 2] >> 4, t);
  return decode(read_raw(mem + idx * size_t(t.bytes), t.bytes), t);
}

// A buffer of exactly `bytes` bytes (operator new aligns it to 16), so that a sanitizer build sees
// any access past the extent the runtime reports.
struct Buffer {
  explicit Buffer(size_t bytes) : bytes(bytes) {}
  uint8_t* data() { return bytes.data(); }
  uintptr_t addr() { return reinterpret_cast<uintptr_t>(bytes.data()); }
  std::vector<uint8_t> bytes;
};

// Runs one GEMM on the reference executor, at run-time K `k` (0: the plan's), with random bits
// in every container byte (so that the bits above a custom width are garbage the executor must
// ignore), and compares C with a naive host GEMM of the decoded values.
bool run_raw(const PlanArgs& p, uint32_t seed, uint32_t k = 0, uint32_t m = 0, uint32_t n = 0) {
  const auto module = make_module(plan_json(p));
  dgmm_handle h = load(module);
  if (h == nullptr) return false;
  if (k != 0 && dgmm_set_k(h, k) != DGMM_OK) return false;
  if (m != 0 && dgmm_set_m(h, m) != DGMM_OK) return false;
  if (n != 0 && dgmm_set_n(h, n) != DGMM_OK) return false;
  uint32_t M = 0, N = 0, K = 0;
  dgmm_problem(h, &M, &N, &K, nullptr, nullptr, nullptr);
  if ((k != 0 && K != k) || (m != 0 && M != m) || (n != 0 && N != n)) return false;
  const TypeInfo ta = type_info(p.a), tb = type_info(p.b), tc = type_info(p.c);
  dgmm_operand op[3];
  const char* names[3] = {"A", "B", "C"};
  const TypeInfo* types[3] = {&ta, &tb, &tc};
  for (int i = 0; i < 3; ++i) {
    if (dgmm_operand_info(h, names[i], &op[i]) != DGMM_OK) return false;
    const TypeInfo& t = *types[i];
    if (op[i].element_bits != t.container_bits() || op[i].value_bits != uint32_t(t.bits) ||
        op[i].is_signed != (t.is_signed ? 1u : 0u)) {
      std::printf("  operand %s: element_bits %u value_bits %u is_signed %u\n", names[i], op[i].element_bits,
                  op[i].value_bits, op[i].is_signed);
      return false;
    }
  }
  Buffer A(op[0].bytes), B(op[1].bytes), C(op[2].bytes);
  std::mt19937 rng(seed);
  for (size_t i = 0; i < op[0].bytes; ++i) A.data()[i] = uint8_t(rng());
  for (size_t i = 0; i < op[1].bytes; ++i) B.data()[i] = uint8_t(rng());
  std::memset(C.data(), 0x5A, op[2].bytes);
  if (dgmm_bind_input(h, "A", A.addr()) != DGMM_OK || dgmm_bind_input(h, "B", B.addr()) != DGMM_OK ||
      dgmm_bind_output(h, "C", C.addr()) != DGMM_OK || dgmm_launch(h) != DGMM_OK ||
      dgmm_wait(dgmm_sync(h)) != DGMM_OK) {
    return false;
  }
  bool nonzero = false;
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t j = 0; j < N; ++j) {
      int64_t sum = 0;
      for (uint32_t kk = 0; kk < K; ++kk) {
        sum += element(A.data(), op[0], ta, i, kk) * element(B.data(), op[1], tb, kk, j);
      }
      const int64_t got = element(C.data(), op[2], tc, i, j);
      if (got != sum) {
        std::printf("  %sx%s K %u: C[%u][%u] = %lld, expected %lld (seed %u)\n", p.a.c_str(), p.b.c_str(), K, i, j,
                    (long long)got, (long long)sum, seed);
        return false;
      }
      nonzero |= sum != 0;
    }
  }
  return nonzero;
}

dgmm_operand operand(dgmm_handle h, const char* name) {
  dgmm_operand o{};
  dgmm_operand_info(h, name, &o);
  return o;
}

uint32_t current_k(dgmm_handle h) {
  uint32_t k = 0;
  dgmm_problem(h, nullptr, nullptr, &k, nullptr, nullptr, nullptr);
  return k;
}

PlanArgs k_range_plan() {
  PlanArgs p;
  p.M = 5, p.N = 7, p.K = 12, p.tm = 2, p.tn = 3, p.tk = 4;
  p.k_dynamic = true, p.k_min = 3;
  return p;
}

void test_k_range() {
  const auto m = make_module(plan_json(k_range_plan()));
  dgmm_handle h = load(m);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  uint32_t lo = 0, hi = 0, tk = 0;
  CHECK(dgmm_k_range(h, &lo, &hi) == DGMM_OK && lo == 3 && hi == 12);
  CHECK(dgmm_k_range(h, nullptr, nullptr) == DGMM_OK);
  // A handle starts at K_max.
  CHECK(current_k(h) == 12);
  dgmm_operand a = operand(h, "A"), b = operand(h, "B"), c = operand(h, "C");
  CHECK(a.rows == 5 && a.cols == 12 && a.ld == 12 && a.bytes == 60);
  CHECK(b.rows == 12 && b.cols == 7 && b.ld == 7 && b.bytes == 84);
  CHECK(c.rows == 5 && c.cols == 7 && c.ld == 7 && c.bytes == 140);
  // The edges of the range, and one past them.
  CHECK(dgmm_set_k(h, 2) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "K 2 is outside the plan's K range [3, 12]"));
  CHECK(dgmm_set_k(h, 13) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "K 13 is outside the plan's K range [3, 12]"));
  CHECK(dgmm_set_k(h, 0) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_set_k(h, 0xFFFFFFFFu) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(current_k(h) == 12);  // unchanged by a refusal
  CHECK(dgmm_set_k(h, 3) == DGMM_OK && current_k(h) == 3);
  a = operand(h, "A"), b = operand(h, "B"), c = operand(h, "C");
  CHECK(a.rows == 5 && a.cols == 3 && a.ld == 3 && a.bytes == 15);  // packed rows: stride K
  CHECK(b.rows == 3 && b.cols == 7 && b.ld == 7 && b.bytes == 21);
  CHECK(c.rows == 5 && c.cols == 7 && c.ld == 7 && c.bytes == 140);
  // The tile stays the plan's.
  CHECK(dgmm_problem(h, nullptr, nullptr, nullptr, nullptr, nullptr, &tk) == DGMM_OK && tk == 4);
  CHECK(dgmm_set_k(h, 12) == DGMM_OK && current_k(h) == 12 && operand(h, "A").bytes == 60);
  CHECK(dgmm_set_k(nullptr, 5) == DGMM_ERROR_INVALID_STATE);
  CHECK(dgmm_k_range(nullptr, &lo, &hi) == DGMM_ERROR_INVALID_STATE);

  // Column-major operands: a column-major A keeps its (padded) leading dimension, a column-major
  // B has packed columns of K elements.
  PlanArgs q = k_range_plan();
  q.a_row = false, q.lda = 8, q.b_row = false;
  h = load(make_module(plan_json(q)));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_set_k(h, 4) == DGMM_OK);
  a = operand(h, "A"), b = operand(h, "B");
  CHECK(a.rows == 5 && a.cols == 4 && a.ld == 8 && a.bytes == 3 * 8 + 5);
  CHECK(b.rows == 4 && b.cols == 7 && b.ld == 4 && b.bytes == 28);

  // Leading dimensions along K: the plan gives K_max (packed); a padded one is refused.
  auto with = [](auto edit) {
    PlanArgs p = k_range_plan();
    edit(p);
    return load_status(make_module(plan_json(p)));
  };
  CHECK(with([](PlanArgs& p) { p.lda = 12; }) == DGMM_OK);
  CHECK(with([](PlanArgs& p) { p.lda = 16; }) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "plan field 'lda': 16 pads a K-range operand"));
  CHECK(with([](PlanArgs& p) { p.b_row = false, p.ldb = 13; }) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "plan field 'ldb': 13 pads a K-range operand"));
  CHECK(with([](PlanArgs& p) { p.lda = 11; }) == DGMM_ERROR_BAD_MODULE);
  CHECK(contains(dgmm_last_error(), "'lda': 11 is smaller than the 12 elements"));
  CHECK(with([](PlanArgs& p) { p.ldb = 9; }) == DGMM_OK);  // B row-major: rows of N, padding allowed
  // The range fields.
  CHECK(with([](PlanArgs& p) { p.k_min = 13; }) == DGMM_ERROR_BAD_MODULE);
  CHECK(contains(dgmm_last_error(), "plan field 'K_min': out of range"));
  CHECK(with([](PlanArgs& p) { p.k_min = 0; }) == DGMM_ERROR_BAD_MODULE);
  CHECK(with([](PlanArgs& p) { p.k_max = 16; }) == DGMM_ERROR_BAD_MODULE);
  CHECK(contains(dgmm_last_error(), "plan field 'K_max': out of range"));
  CHECK(with([](PlanArgs& p) { p.k_min = 12; }) == DGMM_OK);  // a range of one
  CHECK(load_status(make_module("{\"format\": \"deepgemm-plan-1\", \"target_kind\": \"npu\", \"M\": 4, \"N\": 4, "
                                "\"K\": 8, \"tile_m\": 4, \"tile_n\": 4, \"tile_k\": 4, \"k_dynamic\": true}")) ==
        DGMM_ERROR_BAD_MODULE);
  CHECK(contains(dgmm_last_error(), "plan field 'K_min': missing"));
  CHECK(load_status(make_module("{\"format\": \"deepgemm-plan-1\", \"target_kind\": \"npu\", \"M\": 4, \"N\": 4, "
                                "\"K\": 8, \"tile_m\": 4, \"tile_n\": 4, \"tile_k\": 4, \"k_dynamic\": 1}")) ==
        DGMM_ERROR_BAD_MODULE);
  CHECK(contains(dgmm_last_error(), "plan field 'k_dynamic': wrong type"));

  // A fixed-K plan accepts its K only.
  h = load(make_module(plan_json({})));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_k_range(h, &lo, &hi) == DGMM_OK && lo == 9 && hi == 9);
  CHECK(dgmm_set_k(h, 9) == DGMM_OK && current_k(h) == 9);
  CHECK(dgmm_set_k(h, 8) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "K 8 is not the plan's K 9 (the plan has no K range)"));
  CHECK(dgmm_set_k(h, 10) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(current_k(h) == 9);
  // K_min/K_max of a plan without "k_dynamic": true are not a range.
  PlanArgs f;
  f.k_min = 2;
  h = load(make_module(plan_json(f)));
  CHECK(h != nullptr && dgmm_k_range(h, &lo, &hi) == DGMM_OK && lo == 9 && hi == 9);

  // Bindings stay valid: a K under which a bound operand would wrap around the address space is
  // refused, and K stays.
  h = load(m);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_set_k(h, 3) == DGMM_OK);
  const uintptr_t top = ~uintptr_t(0) - 40;  // 15 bytes of A fit at K 3, 60 at K 12 do not
  CHECK(dgmm_bind_input(h, "A", top) == DGMM_OK);
  CHECK(dgmm_set_k(h, 12) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "operand 'A' would wrap around the address space"));
  CHECK(current_k(h) == 3 && operand(h, "A").bytes == 15);
  CHECK(dgmm_set_k(h, 5) == DGMM_OK && operand(h, "A").bytes == 25);  // 25 bytes still fit
  CHECK(dgmm_bind_input(h, "B", top) == DGMM_OK);                     // 35 bytes of B at K 5
  CHECK(dgmm_set_k(h, 6) == DGMM_ERROR_INVALID_ARGUMENT);             // 42 bytes of B do not
  CHECK(contains(dgmm_last_error(), "operand 'B' would wrap"));
  CHECK(current_k(h) == 5 && operand(h, "A").bytes == 25 && operand(h, "B").bytes == 35);

  // The plan the compiler writes for examples/npu_int8.dgml: K from 64 to 1024, lda 1024.
  const std::string plan = read_file(DEEPGEMM_SOURCE_DIR "/tests/golden/npu_int8.plan.json");
  h = load(make_module(plan));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_k_range(h, &lo, &hi) == DGMM_OK && lo == 64 && hi == 1024);
  CHECK(operand(h, "A").ld == 1024);
  CHECK(dgmm_set_k(h, 63) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "K 63 is outside the plan's K range [64, 1024]"));
  CHECK(dgmm_set_k(h, 96) == DGMM_OK);
  a = operand(h, "A"), b = operand(h, "B");
  CHECK(a.rows == 256 && a.cols == 96 && a.ld == 96 && a.bytes == 256 * 96);
  CHECK(b.rows == 96 && b.cols == 256 && b.ld == 256 && b.bytes == 96 * 256);
  // With the plan's k_align, a K inside the range that is not a multiple is refused at the call.
  {  // (a handle of its own in the shared arena: h is not used after this)
    PlanArgs q = k_range_plan();
    q.k_align = 4;
    dgmm_handle g = load(make_module(plan_json(q)));
    CHECK(g != nullptr);
    if (g != nullptr) {
      CHECK(dgmm_set_k(g, 6) == DGMM_ERROR_INVALID_ARGUMENT);
      CHECK(contains(dgmm_last_error(), "K 6 is not a multiple of 4: the plan's DMA moves rows of K elements (A's"));
      CHECK(dgmm_set_k(g, 8) == DGMM_OK && current_k(g) == 8);
      dgmm_unload(g);
    }
  }
}

void test_k_range_gemm() {
  // The executor at run-time K: the edges of the range and inside it, K below and above tile_k,
  // and not a multiple of it.
  PlanArgs p = k_range_plan();
  p.M = 9, p.N = 10, p.K = 40, p.k_min = 1, p.tm = 4, p.tn = 4, p.tk = 8;
  bool all = true;
  for (uint32_t k : {1u, 5u, 8u, 19u, 40u}) all &= run_raw(p, 100 + k, k);
  CHECK(all);
  PlanArgs q = p;
  q.a_row = false, q.lda = 11, q.b_row = false, q.c_row = false;
  CHECK(run_raw(q, 7, 13));
  q.a = "s10", q.b = "u8";
  CHECK(run_raw(q, 8, 27));

  // One handle, several K: each launch uses the K set before it.
  const auto m = make_module(plan_json(p));
  dgmm_handle h = load(m);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  std::vector<int8_t> a(9 * 40, 1), b(40 * 10, 1);
  std::vector<int32_t> c(9 * 10, 0);
  CHECK(bind_fake_real(h, a.data(), b.data(), c.data()));
  CHECK(dgmm_launch(h) == DGMM_OK && c[0] == 40 && c.back() == 40);
  CHECK(dgmm_set_k(h, 17) == DGMM_OK);
  CHECK(dgmm_launch(h) == DGMM_OK && c[0] == 17 && c.back() == 17);
  CHECK(dgmm_set_k(h, 1) == DGMM_OK);
  CHECK(dgmm_launch(h) == DGMM_OK && c[0] == 1 && c.back() == 1);
  CHECK(dgmm_wait(dgmm_sync(h)) == DGMM_OK);
}

void test_m_range() {
  // M chosen at run time in [2, 9]: the range, refusals, extents, and the executor at each M.
  PlanArgs p;
  p.M = 9, p.N = 10, p.K = 12, p.m_min = 2, p.tm = 4, p.tn = 4, p.tk = 8;
  const auto module = make_module(plan_json(p));
  dgmm_handle h = load(module);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  uint32_t lo = 0, hi = 0, m = 0;
  CHECK(dgmm_m_range(h, &lo, &hi) == DGMM_OK && lo == 2 && hi == 9);
  CHECK(dgmm_problem(h, &m, nullptr, nullptr, nullptr, nullptr, nullptr) == DGMM_OK && m == 9);  // M_max at first
  CHECK(dgmm_set_m(h, 1) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "M 1 is outside the plan's M range [2, 9]"));
  CHECK(dgmm_set_m(h, 10) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_set_m(h, 0xFFFFFFFFu) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_set_m(h, 3) == DGMM_OK);
  CHECK(dgmm_problem(h, &m, nullptr, nullptr, nullptr, nullptr, nullptr) == DGMM_OK && m == 3);
  CHECK(operand(h, "A").rows == 3 && operand(h, "A").bytes == 36);
  CHECK(operand(h, "C").rows == 3 && operand(h, "C").bytes == 120);
  CHECK(operand(h, "B").bytes == 120);
  CHECK(dgmm_set_m(nullptr, 3) == DGMM_ERROR_INVALID_STATE);
  CHECK(dgmm_m_range(nullptr, &lo, &hi) == DGMM_ERROR_INVALID_STATE);
  // A fixed-M plan takes its own M only.
  PlanArgs f;
  dgmm_handle g = load(make_module(plan_json(f)));
  CHECK(g != nullptr);
  if (g == nullptr) return;
  CHECK(dgmm_m_range(g, &lo, &hi) == DGMM_OK && lo == 5 && hi == 5);
  CHECK(dgmm_set_m(g, 5) == DGMM_OK);
  CHECK(dgmm_set_m(g, 4) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "M 4 is not the plan's M 5 (the plan has no M range)"));
  // The plan's fields: M_min inside [1, M].
  PlanArgs bad = p;
  bad.m_min = 10;
  CHECK(load_status(make_module(plan_json(bad))) == DGMM_ERROR_BAD_MODULE);
  CHECK(contains(dgmm_last_error(), "plan field 'M_min': out of range"));
  // The executor at the range's ends, on a tile edge, past it, with K and the layouts varying.
  bool all = true;
  for (uint32_t mm : {2u, 4u, 5u, 9u}) all &= run_raw(p, 200 + mm, 0, mm);
  CHECK(all);
  PlanArgs q = p;
  q.k_dynamic = true, q.k_min = 1, q.a_row = false, q.lda = 11, q.c_row = false, q.ldc = 9;
  CHECK(run_raw(q, 7, 5, 6));
  CHECK(run_raw(q, 8, 12, 2));
  // A packed column-major A: its columns are M elements, so its stride follows M, and M is a
  // multiple of the plan's m_align (whole bus beats of A's columns).
  PlanArgs c = p;
  c.M = 12, c.m_min = 4, c.m_align = 4, c.a_row = false;
  h = load(make_module(plan_json(c)));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(operand(h, "A").ld == 12 && operand(h, "A").bytes == 12 * 12);
  CHECK(dgmm_set_m(h, 6) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "M 6 is not a multiple of 4: the plan's DMA moves operand 'A''s columns of M"));
  CHECK(dgmm_set_m(h, 8) == DGMM_OK);
  CHECK(operand(h, "A").ld == 8 && operand(h, "A").bytes == 12 * 8);
  CHECK(dgmm_set_ld(h, "A", 8) == DGMM_OK && dgmm_set_m(h, 12) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "M 12 is above operand 'A''s leading dimension 8 (set by dgmm_set_ld)"));
  CHECK(run_raw(c, 9, 0, 8) && run_raw(c, 10, 0, 4));
}

void test_n_range() {
  // N chosen at run time in [3, 10], a multiple of 1 (then of 2): the range, refusals, packed
  // rows of B and C at the current N, and the executor at each N.
  PlanArgs p;
  p.M = 5, p.N = 10, p.K = 12, p.n_min = 3, p.tm = 4, p.tn = 4, p.tk = 8;
  dgmm_handle h = load(make_module(plan_json(p)));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  uint32_t lo = 0, hi = 0, n = 0;
  CHECK(dgmm_n_range(h, &lo, &hi) == DGMM_OK && lo == 3 && hi == 10);
  CHECK(dgmm_problem(h, nullptr, &n, nullptr, nullptr, nullptr, nullptr) == DGMM_OK && n == 10);
  CHECK(dgmm_set_n(h, 2) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "N 2 is outside the plan's N range [3, 10]"));
  CHECK(dgmm_set_n(h, 11) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_set_n(h, 7) == DGMM_OK);
  CHECK(operand(h, "B").cols == 7 && operand(h, "B").ld == 7 && operand(h, "B").bytes == 84);  // packed
  CHECK(operand(h, "C").cols == 7 && operand(h, "C").ld == 7 && operand(h, "C").bytes == 140);
  CHECK(operand(h, "A").bytes == 60);
  // A leading dimension set on B stays; N above it is refused; 0 returns to packed at N.
  CHECK(dgmm_set_ld(h, "B", 8) == DGMM_OK && operand(h, "B").ld == 8);
  CHECK(dgmm_set_n(h, 9) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "N 9 is above operand 'B''s leading dimension 8"));
  CHECK(dgmm_set_n(h, 8) == DGMM_OK);
  CHECK(dgmm_set_ld(h, "B", 0) == DGMM_OK && operand(h, "B").ld == 8);
  CHECK(dgmm_set_n(h, 4) == DGMM_OK && operand(h, "B").ld == 4);
  CHECK(dgmm_set_n(nullptr, 4) == DGMM_ERROR_INVALID_STATE);
  CHECK(dgmm_n_range(nullptr, &lo, &hi) == DGMM_ERROR_INVALID_STATE);
  // n_align: only its multiples.
  PlanArgs a = p;
  a.n_align = 2;
  h = load(make_module(plan_json(a)));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_set_n(h, 5) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "N 5 is not a multiple of 2"));
  CHECK(dgmm_set_n(h, 6) == DGMM_OK);
  // A padded plan ld on an N-range operand along N is refused; N_min past N too.
  PlanArgs bad = p;
  bad.ldc = 12;
  CHECK(load_status(make_module(plan_json(bad))) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "plan field 'ldc': 12 pads an N-range operand"));
  bad = p;
  bad.n_min = 11;
  CHECK(load_status(make_module(plan_json(bad))) == DGMM_ERROR_BAD_MODULE);
  CHECK(contains(dgmm_last_error(), "plan field 'N_min': out of range"));
  // The executor: ends of the range, tile edges, with M and K ranges beside it, column-major B.
  bool all = true;
  for (uint32_t nn : {3u, 4u, 5u, 10u}) all &= run_raw(p, 300 + nn, 0, 0, nn);
  CHECK(all);
  PlanArgs q = p;
  q.m_min = 1, q.k_dynamic = true, q.k_min = 1, q.b_row = false;
  CHECK(run_raw(q, 9, 7, 2, 9));
  CHECK(run_raw(q, 10, 12, 5, 3));
}

void test_swapped() {
  // A column-major C planned as the transpose Cᵀ = Bᵀ·Aᵀ: the plan's A is the spec's B (N×K
  // row-major: a column-major B), its B the spec's A (K×M column-major: a row-major A), its M and N
  // the spec's N and M. The API speaks the spec's names: M = 7 in [3, 7], N = 5, K = 9.
  PlanArgs p;
  p.M = 5, p.N = 7, p.K = 9, p.n_min = 3, p.tm = 2, p.tn = 4, p.tk = 4;
  p.b_row = false, p.swapped = true;
  dgmm_handle h = load(make_module(plan_json(p)));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  uint32_t m = 0, n = 0, k = 0, tm = 0, tn = 0, lo = 0, hi = 0;
  CHECK(dgmm_problem(h, &m, &n, &k, &tm, &tn, nullptr) == DGMM_OK && m == 7 && n == 5 && k == 9 && tm == 4 && tn == 2);
  CHECK(dgmm_m_range(h, &lo, &hi) == DGMM_OK && lo == 3 && hi == 7);
  CHECK(dgmm_n_range(h, &lo, &hi) == DGMM_OK && lo == 5 && hi == 5);
  const dgmm_operand a = operand(h, "A"), b = operand(h, "B"), c = operand(h, "C");
  CHECK(a.rows == 7 && a.cols == 9 && a.row_major == 1 && a.ld == 9 && a.is_output == 0);
  CHECK(b.rows == 9 && b.cols == 5 && b.row_major == 0 && b.ld == 9 && b.is_output == 0);
  CHECK(c.rows == 7 && c.cols == 5 && c.row_major == 0 && c.ld == 7 && c.is_output == 1 && c.bytes == 140);
  // Refusals name the spec's M and operands.
  CHECK(dgmm_set_m(h, 8) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "M 8 is outside the plan's M range [3, 7]"));
  CHECK(dgmm_set_n(h, 4) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "N 4 is not the plan's N 5"));
  CHECK(dgmm_set_ld(h, "A", 8) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "operand 'A': leading dimension 8 is smaller than its rows' 9 elements"));
  CHECK(dgmm_set_ld(h, "C", 6) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "operand 'C': leading dimension 6 is smaller than its columns' 7 elements"));
  static int8_t A[7 * 9], B[5 * 9];
  static int32_t C[7 * 5];
  CHECK(dgmm_bind_input(h, "B", reinterpret_cast<uintptr_t>(B)) == DGMM_OK);
  CHECK(dgmm_bind_output(h, "C", reinterpret_cast<uintptr_t>(C)) == DGMM_OK);
  CHECK(dgmm_launch(h) == DGMM_ERROR_UNBOUND_OPERAND);
  CHECK(contains(dgmm_last_error(), "operand 'A' is not bound"));
  CHECK(dgmm_bind_input(h, "A", reinterpret_cast<uintptr_t>(A)) == DGMM_OK);
  // The reference executor at M = 7 and at M = 4: C (column-major, packed) = A (row-major) ·
  // B (column-major).
  uint32_t seed = 7;
  auto next = [&] { return static_cast<int8_t>((seed = seed * 1103515245u + 12345u) >> 24); };
  for (uint32_t mm : {7u, 4u}) {
    for (auto& x : A) x = next();
    for (auto& x : B) x = next();
    CHECK(dgmm_set_m(h, mm) == DGMM_OK);
    // (C's columns are packed at the current M: they are the rows of the plan's Cᵀ, at its N.)
    CHECK(operand(h, "A").rows == mm && operand(h, "C").rows == mm && operand(h, "C").ld == mm);
    CHECK(dgmm_launch(h) == DGMM_OK && dgmm_wait(dgmm_sync(h)) == DGMM_OK);
    bool same = true;
    for (uint32_t i = 0; i < mm; ++i)
      for (uint32_t j = 0; j < 5; ++j) {
        int32_t want = 0;
        for (uint32_t kk = 0; kk < 9; ++kk) want += A[i * 9 + kk] * B[j * 9 + kk];
        same &= C[j * mm + i] == want;
      }
    CHECK(same);
  }
  // A swapped plan has no bias or requantization (they would apply per row of C).
  PlanArgs bad = p;
  bad.epilogue = "bias";
  CHECK(load_status(make_module(plan_json(bad))) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "plan field 'operands_swapped'"));
}

void test_custom_widths() {
  // Operand info: the container and the value.
  PlanArgs p;
  p.a = "s10", p.b = "u8";
  dgmm_handle h = load(make_module(plan_json(p)));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  dgmm_operand a = operand(h, "A"), b = operand(h, "B"), c = operand(h, "C");
  CHECK(a.element_bits == 16 && a.value_bits == 10 && a.is_signed == 1 && a.bytes == 5 * 9 * 2 && a.ld == 9);
  CHECK(b.element_bits == 8 && b.value_bits == 8 && b.is_signed == 0 && b.bytes == 9 * 7);
  CHECK(c.element_bits == 32 && c.value_bits == 32 && c.is_signed == 1);
  // A 2-byte container is bound at an even address.
  alignas(8) static uint8_t mem[256];
  CHECK(dgmm_bind_input(h, "A", reinterpret_cast<uintptr_t>(mem) + 1) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "not aligned to its element size"));
  CHECK(dgmm_bind_input(h, "A", reinterpret_cast<uintptr_t>(mem) + 2) == DGMM_OK);
  CHECK(dgmm_bind_input(h, "B", reinterpret_cast<uintptr_t>(mem) + 1) == DGMM_OK);  // u8: any address
  struct Want {
    const char* type;
    uint32_t container, bits, is_signed;
  };
  const Want accepted[] = {{"s2", 8, 2, 1},      {"u2", 8, 2, 0},    {"s3", 8, 3, 1},    {"u5", 8, 5, 0},
                           {"s8", 8, 8, 1},      {"u8", 8, 8, 0},    {"s9", 16, 9, 1},   {"u10", 16, 10, 0},
                           {"s12", 16, 12, 1},   {"s16", 16, 16, 1}, {"u16", 16, 16, 0}, {"int16", 16, 16, 1},
                           {"int32", 32, 32, 1}, {"int4", 4, 4, 1},  {"s4", 4, 4, 1},    {"u4", 4, 4, 0}};
  bool all = true;
  for (const Want& w : accepted) {
    PlanArgs q;
    q.b = w.type, q.N = 8;  // 4-bit B: rows of an even N
    dgmm_handle k = load(make_module(plan_json(q)));
    const dgmm_operand o = k != nullptr ? operand(k, "B") : dgmm_operand{};
    if (k == nullptr || o.element_bits != w.container || o.value_bits != w.bits || o.is_signed != w.is_signed) {
      std::printf("  %s: %s\n", w.type, k == nullptr ? dgmm_last_error() : "wrong operand info");
      all = false;
    }
  }
  CHECK(all);
  // Refused: widths outside 2..16, malformed names.
  const char* refused[] = {"s1",    "u1",   "s17",   "u32",  "s010", "s08", "s04", "s",   "u",   "uint8", "uint4",
                           "int04", "s16x", "int12", "int2", "int",  "S8",  "S4",  "s-8", "s 8", "u100",  "s99999"};
  all = true;
  for (const char* t : refused) {
    PlanArgs q;
    q.a = t;
    const dgmm_status st = load_status(make_module(plan_json(q)));
    const std::string want = std::string("plan field 'a_type': element type '") + t + "' is not supported";
    if (st != DGMM_ERROR_UNSUPPORTED || !contains(dgmm_last_error(), want.c_str())) {
      std::printf("  %s: %s: %s\n", t, dgmm_status_string(st), dgmm_last_error());
      all = false;
    }
  }
  CHECK(all);
  CHECK(contains(dgmm_last_error(), "is not supported (int4, int8, int16, int32, int64, or sN/uN with 2 <= N <= 16)"));
  // The accumulator stays int32, int48 or int64, C int32 or int64; int48 is an accumulator only.
  PlanArgs q;
  q.acc = "s16", q.c = "s16";
  CHECK(load_status(make_module(plan_json(q))) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "the accumulator must be int32, int48 or int64"));
  q = PlanArgs{};
  q.c = "u16";
  CHECK(load_status(make_module(plan_json(q))) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "C must be int32 or int64"));
  q = PlanArgs{};
  q.c = "int48";
  CHECK(load_status(make_module(plan_json(q))) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "int48 is an accumulator type only"));

  // The executor against a host GEMM of the decoded values (random container bits).
  struct Case {
    const char* a;
    const char* b;
    const char* acc;
  };
  const Case cases[] = {{"s10", "int8", "int32"}, {"u8", "int8", "int32"},  {"s12", "s12", "int32"},
                        {"int8", "u8", "int32"},  {"s2", "u3", "int32"},    {"u2", "s9", "int32"},
                        {"s16", "s16", "int64"},  {"u16", "u16", "int64"},  {"u16", "int32", "int64"},
                        {"s7", "s15", "int32"},   {"int16", "s10", "int32"}};
  all = true;
  uint32_t seed = 200;
  for (const Case& k : cases) {
    PlanArgs g;
    g.M = 13, g.N = 11, g.K = 17, g.tm = 4, g.tn = 8, g.tk = 5;
    g.a = k.a, g.b = k.b, g.acc = k.acc, g.c = k.acc;
    all &= run_raw(g, seed++);
    g.a_row = false, g.lda = 15, g.b_row = false, g.ldb = 19;  // column-major, padded
    all &= run_raw(g, seed++);
  }
  CHECK(all);
  // The shapes of the co-simulation specs: s10 x int8 48x64x64, s12 x s12 32x32x96 (K not a
  // multiple of the 64-wide K tile), u8 x int8 64x32 with K from 32 to 256.
  PlanArgs g;
  g.M = 48, g.N = 64, g.K = 64, g.tm = 32, g.tn = 32, g.tk = 32, g.a = "s10";
  CHECK(run_raw(g, 300));
  g.M = 32, g.N = 32, g.K = 96, g.tm = 16, g.tn = 32, g.tk = 64, g.a = "s12", g.b = "s12";
  CHECK(run_raw(g, 301));
  g = PlanArgs{};
  g.M = 64, g.N = 32, g.K = 256, g.k_dynamic = true, g.k_min = 32, g.tm = 32, g.tn = 16, g.tk = 128, g.a = "u8";
  CHECK(run_raw(g, 302, 32) && run_raw(g, 303, 160) && run_raw(g, 304, 256));

  // Values by hand: the bits above the width are ignored; uN is not negative.
  PlanArgs one;
  one.M = 1, one.N = 1, one.K = 3, one.a = "s10", one.b = "u8";
  h = load(make_module(plan_json(one)));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  uint16_t av[3] = {0xFE00, 0x01FF, 0xFC01};  // -512, 511, 1
  uint8_t bv[3] = {0xFF, 2, 7};               // 255, 2, 7
  int32_t cv[1] = {0};
  CHECK(bind_fake_real(h, av, bv, cv));
  CHECK(dgmm_launch(h) == DGMM_OK && cv[0] == -512 * 255 + 511 * 2 + 7);
  // int32 accumulation stays checked: 65535 * 65535 does not fit.
  PlanArgs big;
  big.M = 1, big.N = 1, big.K = 2, big.a = "u16", big.b = "u16";
  h = load(make_module(plan_json(big)));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  uint16_t x[2] = {0xFFFF, 0xFFFF};
  CHECK(bind_fake_real(h, x, x, cv));
  CHECK(dgmm_launch(h) == DGMM_ERROR_LAUNCH);
  CHECK(contains(dgmm_last_error(), "accumulator overflow (int32) at C[0][0], k = 0"));
  x[0] = 0x8000;  // 32768^2 = 2^30, twice: 2^31 does not fit either
  x[1] = 0x8000;
  CHECK(dgmm_launch(h) == DGMM_ERROR_LAUNCH);
  CHECK(contains(dgmm_last_error(), "k = 1"));
  x[1] = 0x7FFF;  // 2^30 + 32767 * 32767 fits
  CHECK(dgmm_launch(h) == DGMM_OK && cv[0] == (1 << 30) + 32767 * 32767);
  x[0] = x[1] = 0xFFFF;
  // A 48-bit accumulator holds that sum, and an int32 C saturates it; an int64 C keeps it.
  for (const char* c : {"int32", "int64"}) {
    big.acc = "int48", big.c = c;
    h = load(make_module(plan_json(big)));
    CHECK(h != nullptr);
    if (h == nullptr) return;
    int64_t c64[1] = {0};
    int32_t c32[1] = {0};
    CHECK(std::string(c) == "int32" ? bind_fake_real(h, x, x, c32) : bind_fake_real(h, x, x, c64));
    CHECK(dgmm_launch(h) == DGMM_OK);
    CHECK(std::string(c) == "int32" ? c32[0] == 2147483647 : c64[0] == 2 * int64_t{65535} * 65535);
  }
  // Its own range stays checked: 2^47 does not fit.
  big.acc = "int48", big.c = "int64", big.a = "int32", big.b = "int32";
  h = load(make_module(plan_json(big)));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  int32_t x32[2] = {1 << 30, 1 << 30};
  int32_t y32[2] = {1 << 17, 0};
  int64_t c48[1] = {0};
  CHECK(bind_fake_real(h, x32, y32, c48));
  CHECK(dgmm_launch(h) == DGMM_ERROR_LAUNCH);
  CHECK(contains(dgmm_last_error(), "accumulator overflow (int48) at C[0][0], k = 0"));
}

// ---- Packed 4-bit elements -------------------------------------------------------------------------

void test_int4() {
  // Operand info: a nibble per element, ceil(elements / 2) bytes, the sign of the type.
  PlanArgs p;
  p.M = 5, p.N = 7, p.K = 8, p.a = "int4", p.b = "u4", p.ldb = 8;  // B: rows of 7 in a stride of 8
  dgmm_handle h = load(make_module(plan_json(p)));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  dgmm_operand a = operand(h, "A"), b = operand(h, "B"), c = operand(h, "C");
  CHECK(a.element_bits == 4 && a.value_bits == 4 && a.is_signed == 1 && a.ld == 8 && a.bytes == 5 * 8 / 2);
  CHECK(a.rows == 5 && a.cols == 8 && a.row_major == 1 && a.is_output == 0);
  CHECK(b.element_bits == 4 && b.value_bits == 4 && b.is_signed == 0 && b.ld == 8);
  CHECK(b.bytes == (7 * 8 + 7 + 1) / 2);  // 63 elements: the last byte holds one
  CHECK(c.element_bits == 32 && c.value_bits == 32 && c.bytes == 5 * 7 * 4);
  // Any address: a packed operand starts at the low nibble of its first byte.
  alignas(8) static uint8_t mem[64];
  CHECK(dgmm_bind_input(h, "A", reinterpret_cast<uintptr_t>(mem) + 1) == DGMM_OK);
  CHECK(dgmm_bind_input(h, "B", reinterpret_cast<uintptr_t>(mem) + 3) == DGMM_OK);
  p.a = "s4", p.a_row = false, p.lda = 6;  // column-major: 8 columns of 5 in a stride of 6
  h = load(make_module(plan_json(p)));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  a = operand(h, "A");
  CHECK(a.element_bits == 4 && a.value_bits == 4 && a.is_signed == 1 && a.ld == 6 && a.row_major == 0);
  CHECK(a.bytes == (7 * 6 + 5 + 1) / 2);

  // An odd leading dimension is refused at load, by its field; the inputs of other types keep it.
  auto with = [](auto edit) {
    PlanArgs q;
    q.M = 5, q.N = 8, q.K = 8, q.a = "int4", q.b = "s4";
    edit(q);
    return load_status(make_module(plan_json(q)));
  };
  CHECK(with([](PlanArgs&) {}) == DGMM_OK);
  CHECK(with([](PlanArgs& q) { q.K = 9; }) == DGMM_ERROR_UNSUPPORTED);  // lda: K by default
  CHECK(contains(dgmm_last_error(),
                 "plan field 'lda': 9 is odd: 4-bit elements are packed two per byte, "
                 "and each row or column must start on a byte"));
  CHECK(with([](PlanArgs& q) { q.K = 9, q.lda = 10; }) == DGMM_OK);  // an even padded stride
  CHECK(with([](PlanArgs& q) { q.lda = 11; }) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "plan field 'lda': 11 is odd"));
  CHECK(with([](PlanArgs& q) { q.N = 7; }) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "plan field 'ldb': 7 is odd"));
  CHECK(with([](PlanArgs& q) { q.b_row = false, q.ldb = 9; }) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "plan field 'ldb': 9 is odd"));
  CHECK(with([](PlanArgs& q) { q.a_row = false, q.lda = 0; }) == DGMM_ERROR_UNSUPPORTED);  // M 5
  CHECK(contains(dgmm_last_error(), "plan field 'lda': 5 is odd"));
  CHECK(with([](PlanArgs& q) { q.lda = 7; }) == DGMM_ERROR_BAD_MODULE);  // too small comes first
  CHECK(contains(dgmm_last_error(), "'lda': 7 is smaller than the 8 elements"));
  CHECK(with([](PlanArgs& q) { q.a = "int8", q.lda = 11; }) == DGMM_OK);
  CHECK(with([](PlanArgs& q) { q.a = "s3", q.K = 9; }) == DGMM_OK);  // 3 bits: a byte each
  // Never C or the accumulator.
  CHECK(with([](PlanArgs& q) { q.c = "int4"; }) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "C must be int32 or int64"));
  CHECK(with([](PlanArgs& q) { q.acc = "int4", q.c = "int4"; }) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "the accumulator must be int32, int48 or int64"));

  // Values by hand: the even index in the low nibble; int4 / s4 sign-extend, u4 does not.
  PlanArgs one;
  one.M = 1, one.N = 2, one.K = 4, one.tm = 1, one.tn = 1, one.tk = 3, one.a = "int4", one.b = "u4";
  const uint8_t av[2] = {0x8F, 0x17};              // A[0][0..3] = -1, -8, 7, 1
  const uint8_t bv[4] = {0xF0, 0x21, 0x87, 0x3F};  // B rows (u4): {0, 15}, {1, 2}, {7, 8}, {15, 3}
  int32_t cv[2] = {0, 0};
  h = load(make_module(plan_json(one)));
  CHECK(h != nullptr && bind_fake_real(h, av, bv, cv));
  CHECK(dgmm_launch(h) == DGMM_OK && cv[0] == -8 + 49 + 15 && cv[1] == -15 - 16 + 56 + 3);
  one.b = "s4";  // B rows: {0, -1}, {1, 2}, {7, -8}, {-1, 3}
  h = load(make_module(plan_json(one)));
  CHECK(h != nullptr && bind_fake_real(h, av, bv, cv));
  CHECK(dgmm_launch(h) == DGMM_OK && cv[0] == -8 + 49 - 1 && cv[1] == 1 - 16 - 56 + 3);
  one.b = "int4", one.a = "u4";  // A: 15, 8, 7, 1
  h = load(make_module(plan_json(one)));
  CHECK(h != nullptr && bind_fake_real(h, av, bv, cv));
  CHECK(dgmm_launch(h) == DGMM_OK && cv[0] == 8 + 49 - 1 && cv[1] == -15 + 16 - 56 + 3);
  // Column-major: the index runs down a column (A 2 x 2, stride 2), B int8 the identity.
  PlanArgs col;
  col.M = 2, col.N = 2, col.K = 2, col.a = "int4", col.a_row = false;
  const uint8_t acv[2] = {0x21, 0x4C};  // A[0][0] 1, A[1][0] 2, A[0][1] -4, A[1][1] 4
  const int8_t eye[4] = {1, 0, 0, 1};
  int32_t c4[4] = {};
  h = load(make_module(plan_json(col)));
  CHECK(h != nullptr && bind_fake_real(h, acv, eye, c4));
  CHECK(dgmm_launch(h) == DGMM_OK && c4[0] == 1 && c4[1] == -4 && c4[2] == 2 && c4[3] == 4);

  // The executor against a host GEMM of the decoded nibbles (random bytes: the unused nibble after
  // an odd row or column is garbage too), row- and column-major, packed and with even padding.
  struct Case {
    const char* a;
    const char* b;
    const char* acc;
  };
  const Case cases[] = {{"int4", "int4", "int32"}, {"s4", "u4", "int32"},      {"u4", "s4", "int32"},
                        {"u4", "u4", "int64"},     {"int4", "int8", "int32"},  {"u8", "s4", "int32"},
                        {"s10", "u4", "int32"},    {"int4", "int16", "int64"}, {"s4", "s3", "int32"}};
  bool all = true;
  uint32_t seed = 400;
  for (const Case& k : cases) {
    PlanArgs g;
    g.M = 13, g.N = 12, g.K = 18, g.tm = 4, g.tn = 8, g.tk = 5;
    g.a = k.a, g.b = k.b, g.acc = k.acc, g.c = k.acc;
    all &= run_raw(g, seed++);
    g.N = 11, g.K = 17, g.lda = 18, g.ldb = 12;  // odd rows in even strides
    all &= run_raw(g, seed++);
    g.a_row = false, g.lda = 14, g.b_row = false, g.ldb = 20;  // column-major, padded
    all &= run_raw(g, seed++);
    g.c_row = false, g.lda = 0, g.ldb = 0, g.M = 14, g.K = 16;  // column-major, packed
    all &= run_raw(g, seed++);
  }
  CHECK(all);
  // The shapes of the co-simulation specs: int4 40x64x96, int8 x int4 33x96x64.
  PlanArgs g;
  g.M = 40, g.N = 64, g.K = 96, g.tm = 32, g.tn = 32, g.tk = 64, g.a = "int4", g.b = "int4";
  CHECK(run_raw(g, 450));
  g.M = 33, g.N = 96, g.K = 64, g.a = "int8";
  CHECK(run_raw(g, 451));

  // The byte count cannot wrap: C of int64 with 2^61 elements was 0 bytes with 8 per element.
  PlanArgs huge;
  huge.M = (1 << 30) + 1, huge.N = 1 << 30, huge.ldc = 0x7FFFFFFF, huge.acc = "int64", huge.c = "int64";
  CHECK(load_status(make_module(plan_json(huge))) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "operand C is larger than this target can address"));
}

void test_int4_k_range() {
  // A row-major 4-bit A in a K-range plan: its rows are K nibbles, so K must be even.
  PlanArgs p = k_range_plan();  // M 5, N 7, K from 3 to 12
  p.a = "int4";
  const auto m = make_module(plan_json(p));
  dgmm_handle h = load(m);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(current_k(h) == 12 && operand(h, "A").bytes == 5 * 12 / 2);
  CHECK(dgmm_set_k(h, 5) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(),
                 "K 5 is odd: operand 'A' has 4-bit elements packed two per byte along K, "
                 "and each of its rows must start on a byte"));
  CHECK(current_k(h) == 12 && operand(h, "A").ld == 12);    // unchanged by the refusal
  CHECK(dgmm_set_k(h, 3) == DGMM_ERROR_INVALID_ARGUMENT);   // K_min itself is odd
  CHECK(dgmm_set_k(h, 13) == DGMM_ERROR_INVALID_ARGUMENT);  // the range is checked first
  CHECK(contains(dgmm_last_error(), "K 13 is outside the plan's K range [3, 12]"));
  CHECK(dgmm_set_k(h, 6) == DGMM_OK && current_k(h) == 6);
  dgmm_operand a = operand(h, "A"), b = operand(h, "B");
  CHECK(a.cols == 6 && a.ld == 6 && a.bytes == 15 && a.element_bits == 4);
  CHECK(b.rows == 6 && b.bytes == 6 * 7);  // int8 B: any K
  CHECK(dgmm_set_k(h, 4) == DGMM_OK && operand(h, "A").bytes == 10);
  // A padded K-range row is refused as for any type, an odd K_max as an odd lda.
  PlanArgs q = p;
  q.lda = 14;
  CHECK(load_status(make_module(plan_json(q))) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "plan field 'lda': 14 pads a K-range operand"));
  q = p;
  q.K = 13;
  CHECK(load_status(make_module(plan_json(q))) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "plan field 'lda': 13 is odd"));

  // A column-major 4-bit B: its columns are K nibbles.
  q = k_range_plan();
  q.b = "u4", q.b_row = false;
  h = load(make_module(plan_json(q)));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_set_k(h, 7) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(),
                 "K 7 is odd: operand 'B' has 4-bit elements packed two per byte along K, "
                 "and each of its columns must start on a byte"));
  CHECK(dgmm_set_k(h, 4) == DGMM_OK);
  b = operand(h, "B");
  CHECK(b.rows == 4 && b.ld == 4 && b.bytes == 7 * 4 / 2 && b.is_signed == 0);
  // Both: A is named.
  q.a = "s4";
  h = load(make_module(plan_json(q)));
  CHECK(h != nullptr && dgmm_set_k(h, 9) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "K 9 is odd: operand 'A'"));
  // Not along K (column-major A, row-major B with even strides): any K.
  q = k_range_plan();
  q.N = 8, q.a = "int4", q.a_row = false, q.lda = 6, q.b = "u4";
  h = load(make_module(plan_json(q)));
  CHECK(h != nullptr && dgmm_set_k(h, 5) == DGMM_OK);
  a = operand(h, "A"), b = operand(h, "B");
  CHECK(a.ld == 6 && a.bytes == (4 * 6 + 5 + 1) / 2 && b.ld == 8 && b.bytes == (4 * 8 + 8) / 2);

  // The executor at run-time K against a host GEMM.
  PlanArgs g = k_range_plan();
  g.M = 9, g.N = 10, g.K = 40, g.k_min = 1, g.tm = 4, g.tn = 4, g.tk = 8;
  g.a = "int4", g.b = "u4", g.b_row = false;
  bool all = true;
  for (uint32_t k : {2u, 8u, 18u, 40u}) all &= run_raw(g, 500 + k, k);
  g.a = "u4", g.b = "s4", g.a_row = false, g.lda = 10, g.b_row = true;  // neither along K
  for (uint32_t k : {1u, 5u, 19u, 40u}) all &= run_raw(g, 550 + k, k);
  CHECK(all);
  // The compiler's shape for the u4 x int4 co-simulation spec: M 48, N 32, K from 32 to 256.
  g = PlanArgs{};
  g.M = 48, g.N = 32, g.K = 256, g.k_dynamic = true, g.k_min = 32, g.tm = 32, g.tn = 32, g.tk = 128;
  g.a = "u4", g.b = "int4";
  CHECK(run_raw(g, 600, 32) && run_raw(g, 601, 130) && run_raw(g, 602, 256));

  // Bindings stay valid at the smaller K: 15 bytes of A at K 6, 30 at K 12.
  h = load(m);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_set_k(h, 6) == DGMM_OK);
  const uintptr_t top = ~uintptr_t(0) - 20;
  CHECK(dgmm_bind_input(h, "A", top) == DGMM_OK);
  CHECK(dgmm_set_k(h, 12) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "operand 'A' would wrap around the address space"));
  CHECK(dgmm_set_k(h, 8) == DGMM_OK && operand(h, "A").bytes == 20);
}

void test_cosim_plans() {
  // The plans the compiler writes for the co-simulation specs tests/cosim/*.dgml (kept in the
  // plan fuzz corpus).
  const std::string dir = DEEPGEMM_SOURCE_DIR "/tests/fuzz/corpus/baremetal_plan/";
  dgmm_handle h = load(make_module(read_file(dir + "npu_s10_i8.plan.json")));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  dgmm_operand a = operand(h, "A"), b = operand(h, "B");
  CHECK(a.element_bits == 16 && a.value_bits == 10 && a.is_signed == 1 && a.bytes == 48 * 64 * 2);
  CHECK(b.element_bits == 8 && b.value_bits == 8 && b.is_signed == 1);
  uint32_t lo = 0, hi = 0;
  CHECK(dgmm_k_range(h, &lo, &hi) == DGMM_OK && lo == 64 && hi == 64);
  h = load(make_module(read_file(dir + "npu_s12.plan.json")));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  a = operand(h, "A"), b = operand(h, "B");
  CHECK(a.value_bits == 12 && a.element_bits == 16 && b.value_bits == 12 && a.bytes == 32 * 96 * 2);
  h = load(make_module(read_file(dir + "npu_krange.plan.json")));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_k_range(h, &lo, &hi) == DGMM_OK && lo == 32 && hi == 256 && current_k(h) == 256);
  a = operand(h, "A");
  CHECK(a.element_bits == 8 && a.value_bits == 8 && a.is_signed == 0 && a.ld == 256);
  CHECK(dgmm_set_k(h, 100) == DGMM_OK);
  a = operand(h, "A");
  CHECK(a.cols == 100 && a.ld == 100 && a.bytes == 64 * 100 && operand(h, "B").bytes == 100 * 32);
  // Packed 4-bit inputs: int4 x int4 40x64x96, int8 x int4 33x96x64, u4 x int4 with K from 32 to 256.
  h = load(make_module(read_file(dir + "npu_i4.plan.json")));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  a = operand(h, "A"), b = operand(h, "B");
  CHECK(a.element_bits == 4 && a.value_bits == 4 && a.is_signed == 1 && a.bytes == 40 * 96 / 2);
  CHECK(b.element_bits == 4 && b.is_signed == 1 && b.bytes == 96 * 64 / 2);
  h = load(make_module(read_file(dir + "npu_i8_w4.plan.json")));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  a = operand(h, "A"), b = operand(h, "B");
  CHECK(a.element_bits == 8 && a.bytes == 33 * 64 && b.element_bits == 4 && b.bytes == 64 * 96 / 2);
  h = load(make_module(read_file(dir + "npu_u4_w4_krange.plan.json")));
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_k_range(h, &lo, &hi) == DGMM_OK && lo == 32 && hi == 256);
  a = operand(h, "A");
  CHECK(a.element_bits == 4 && a.is_signed == 0 && a.ld == 256 && a.bytes == 48 * 256 / 2);
  CHECK(dgmm_set_k(h, 33) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_set_k(h, 34) == DGMM_OK);
  CHECK(operand(h, "A").bytes == 48 * 34 / 2 && operand(h, "B").bytes == 34 * 32 / 2);
}

// ---- The NPU engine ------------------------------------------------------------------------------

namespace rm = dg::ko::regmap;
namespace hp = dg::bm::host_port;

constexpr uint32_t kR = rm::kAccessRead, kW = rm::kAccessWrite, kRW = kR | kW;
constexpr uint64_t kNpuBase = 0x40000000u;
constexpr uint32_t kDesignId = 0x9b575bdbu;
constexpr uintptr_t kAddrA = 0x80100000u, kAddrB = 0x80200000u, kAddrC = 0x80300000u;

struct RegDef {
  std::string name;
  uint32_t offset;
  uint32_t access;
};

// The register block of the generated NPU top: its one description, <deepgemm/npu_regs.h>
// (the registers of a design with the leading dimensions, the default: not those of the fused
// epilogue's operands).
std::vector<RegDef> standard_regs() {
  std::vector<RegDef> out;
  for (const auto& r : dg::npu_regs::kRegisters)
    if (r.feature == 0 || r.feature == dg::npu_regs::kFeatureLd) out.push_back({r.name, r.offset, uint32_t(r.access)});
  return out;
}

std::vector<uint8_t> make_table(uint64_t base, uint32_t id, const std::vector<RegDef>& regs, uint32_t addr_bits = 32) {
  std::vector<rm::RegisterSpec> specs;
  for (const RegDef& r : regs) specs.push_back({r.name.c_str(), r.offset, r.access});
  std::vector<uint8_t> out(rm::table_size(uint32_t(specs.size())));
  size_t written = 0;
  if (rm::write(base, id, addr_bits, 16, specs.data(), uint32_t(specs.size()), out.data(), out.size(), &written) !=
      rm::Status::Ok)
    return {};
  out.resize(written);
  return out;
}

// A plan the mock NPU accepts as is: M 32, N 48, K 64, int8 x int8 -> int32 (rows of 64, 48 and
// 192 bytes: whole 16-byte beats).
PlanArgs npu_plan() {
  PlanArgs p;
  p.M = 32, p.N = 48, p.K = 64, p.tm = 16, p.tn = 16, p.tk = 64;
  return p;
}

// Emulates the register block of the generated NPU top at `base`, register by register name from
// the same definitions the module's table was built from: START runs the top's checks (ERROR 1 to
// 5, 10 and 9, or a forced code), a run completes after `run_polls` STATUS reads (never when negative), and
// writes while running are ignored, as in the RTL. Every access the runtime makes is logged;
// accesses outside the table or against a register's access are violations.
class MockNpu : public hp::Device {
 public:
  MockNpu(uint64_t base, uint32_t id, std::vector<RegDef> regs) : base_(base), id_(id), regs_(std::move(regs)) {}

  // What the design was generated for.
  uint32_t want_m = 32, want_n = 48, k_min = 64, k_max = 64;
  uint32_t beat = 16, elem_bits[3] = {8, 8, 32};  // A, B, C in memory (4: two per byte)
  bool byte_rows = false;                         // a design that realigns rows of whole bytes
  uint32_t addr_bits = 32;                        // the bus's address width
  int run_polls = 3;
  uint32_t run_cycles = 1234;
  uint32_t forced_error = 0;
  bool finish_now = false;  // the next STATUS read of a run reports DONE

  // State and observations.
  bool running = false, done = false;
  uint32_t error = 0, cycles = 0;
  int status_reads = 0;
  std::map<std::string, uint32_t> value;
  std::vector<std::pair<std::string, uint32_t>> writes;
  std::vector<std::string> violations;

  uint32_t read32(uintptr_t address) override {
    const RegDef* r = lookup(address, kR);
    if (r == nullptr) return 0xDEADBEEFu;
    if (r->name == "ID") return id_;
    if (r->name == "STATUS") {
      ++status_reads;
      if (running) {
        if (finish_now || (run_polls >= 0 && polls_left_ == 0)) {
          running = false;
          done = true;
          cycles = run_cycles;
        } else if (polls_left_ > 0) {
          --polls_left_;
        }
      }
      return (running ? 1u : 0u) | (done ? 2u : 0u) | (error != 0 ? 4u : 0u);
    }
    if (r->name == "ERROR") return error;
    if (r->name == "CYCLES") return cycles;
    return value[r->name];
  }

  void write32(uintptr_t address, uint32_t v) override {
    const RegDef* r = lookup(address, kW);
    if (r == nullptr) return;
    writes.push_back({r->name, v});
    if (running) return;
    if (r->name == "CTRL") {
      if ((v & 1u) == 0) return;
      error = check();
      if (error == 0) {
        running = true;
        done = false;
        cycles = 0;
        polls_left_ = run_polls < 0 ? 0 : run_polls;
      }
      return;
    }
    value[r->name] = v;
  }

 private:
  const RegDef* lookup(uintptr_t address, uint32_t need) {
    if (address < base_ || address - base_ >= 4096) {
      violations.push_back("access outside the register page");
      return nullptr;
    }
    for (const RegDef& r : regs_) {
      if (base_ + r.offset == address && (r.access & need) != 0) return &r;
    }
    violations.push_back(std::string(need == kR ? "read" : "write") + " of offset " + std::to_string(address - base_));
    return nullptr;
  }
  uint32_t check() {
    if (forced_error != 0) return forced_error;
    const uint32_t m = value["M"], n = value["N"], k = value["K"];
    if (m != want_m) return 1;
    if (n != want_n) return 2;
    if (k < k_min || k > k_max) return 3;
    if (((value["A_BASE"] | value["B_BASE"] | value["C_BASE"]) & (beat - 1)) != 0) return 4;
    const uint64_t row_bits =
        (uint64_t(k) * elem_bits[0]) | (uint64_t(n) * elem_bits[1]) | (uint64_t(n) * elem_bits[2]);
    if ((row_bits & (byte_rows ? 7 : 8 * beat - 1)) != 0) return 5;
    // The leading dimensions in bytes (0: packed) and the extents that follow: the last row's end.
    const uint64_t row[3] = {uint64_t(k) * elem_bits[0] / 8, uint64_t(n) * elem_bits[1] / 8,
                             uint64_t(n) * elem_bits[2] / 8};
    const uint64_t rows[3] = {m, k, m};
    const char* lds[3] = {"LDA", "LDB", "LDC"};
    uint64_t extent[3];
    for (int i = 0; i < 3; ++i) {
      const uint64_t ld = value[lds[i]] != 0 ? value[lds[i]] : row[i];
      extent[i] = (rows[i] - 1) * ld + row[i];
      if ((ld & (beat - 1)) != 0 || ld < row[i] || extent[i] > (uint64_t(1) << 32)) return 10;
    }
    const char* names[3] = {"A_BASE", "B_BASE", "C_BASE"};
    for (int i = 0; i < 3; ++i) {
      const uint64_t a = (uint64_t(value[std::string(names[i]) + "_HI"]) << 32) | value[names[i]];
      if (addr_bits < 64 && ((a >> addr_bits) != 0 || extent[i] > (uint64_t(1) << addr_bits) - a)) return 9;
      if (addr_bits == 64 && a > ~uint64_t(0) - extent[i]) return 9;
    }
    return 0;
  }

  uint64_t base_;
  uint32_t id_;
  std::vector<RegDef> regs_;
  int polls_left_ = 0;
};

// Attaches a device to the host port for one scope.
struct Attached {
  explicit Attached(hp::Device* d) {
    hp::reset();
    hp::attach(d);
  }
  ~Attached() { hp::attach(nullptr); }
};

std::vector<uint8_t> npu_module(const PlanArgs& p, const std::vector<uint8_t>& table) {
  return make_module(plan_json(p), dg::ko::TargetKind::Npu, true, &table);
}

bool bind_fake(dgmm_handle h, uintptr_t a = kAddrA, uintptr_t b = kAddrB, uintptr_t c = kAddrC) {
  return dgmm_bind_input(h, "A", a) == DGMM_OK && dgmm_bind_input(h, "B", b) == DGMM_OK &&
         dgmm_bind_output(h, "C", c) == DGMM_OK;
}

// A handle on the NPU engine with fake operand addresses (never dereferenced on that engine), or
// nullptr. Tests stop when it is null: the reference executor must never see fake addresses.
dgmm_handle npu_handle(const std::vector<uint8_t>& module) {
  dgmm_handle h = load(module);
  if (h == nullptr || !bind_fake(h) || dgmm_set_engine(h, DGMM_ENGINE_NPU) != DGMM_OK) return nullptr;
  return h;
}

void test_npu_engine_choice() {
  // No register table: the NPU is refused, the reference executor stays.
  const auto plain = make_module(plan_json(npu_plan()));
  dgmm_handle h = load(plain);
  CHECK(h != nullptr);
  CHECK(dgmm_set_engine(h, DGMM_ENGINE_NPU) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "no NPU register table"));
  CHECK(dgmm_set_engine(h, static_cast<dgmm_engine>(7)) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "unknown engine 7"));
  CHECK(dgmm_set_engine(h, DGMM_ENGINE_REFERENCE) == DGMM_OK);
  uint64_t cycles = 99;
  CHECK(dgmm_npu_cycles(h, nullptr) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_npu_cycles(h, &cycles) == DGMM_ERROR_INVALID_STATE && cycles == 99);
  CHECK(dgmm_npu_cycles(nullptr, &cycles) == DGMM_ERROR_INVALID_STATE);
  CHECK(dgmm_set_engine(nullptr, DGMM_ENGINE_REFERENCE) == DGMM_ERROR_INVALID_STATE);

  // With a table, the default is still the reference executor: it runs in software and touches no
  // register.
  const auto table = make_table(kNpuBase, kDesignId, standard_regs());
  CHECK(!table.empty());
  const auto with_table = npu_module(npu_plan(), table);
  h = load(with_table);
  CHECK(h != nullptr);
  std::vector<int8_t> a(32 * 64, 1), b(64 * 48, 2);
  std::vector<int32_t> c(32 * 48, 0);
  hp::reset();
  CHECK(dgmm_bind_input(h, "A", reinterpret_cast<uintptr_t>(a.data())) == DGMM_OK);
  CHECK(dgmm_bind_input(h, "B", reinterpret_cast<uintptr_t>(b.data())) == DGMM_OK);
  CHECK(dgmm_bind_output(h, "C", reinterpret_cast<uintptr_t>(c.data())) == DGMM_OK);
  CHECK(dgmm_launch(h) == DGMM_OK && dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  CHECK(c[0] == 128 && c.back() == 128);
  CHECK(hp::mmio_writes() == 0);
  CHECK(dgmm_npu_cycles(h, &cycles) == DGMM_ERROR_INVALID_STATE);
  // (The host's buffers may lie above the NPU's 32-bit bus: bound again at addresses it reaches.)
  CHECK(bind_fake(h));
  CHECK(dgmm_set_engine(h, DGMM_ENGINE_NPU) == DGMM_OK);

  // Tables the runtime cannot use.
  auto without = [](const char* name) {
    std::vector<RegDef> regs;
    for (const RegDef& r : standard_regs())
      if (r.name != name) regs.push_back(r);
    return regs;
  };
  auto engine_status = [](const std::vector<uint8_t>& t) {
    const auto module = npu_module(npu_plan(), t);  // must outlive the handle
    dgmm_handle k = load(module);
    return k == nullptr ? dgmm_last_error_code() : dgmm_set_engine(k, DGMM_ENGINE_NPU);
  };
  CHECK(engine_status(make_table(kNpuBase, kDesignId, without("CYCLES"))) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "no readable register CYCLES"));
  auto ro_k = standard_regs();
  ro_k[10].access = kR;
  CHECK(engine_status(make_table(kNpuBase, kDesignId, ro_k)) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "no writable register K"));
  if constexpr (sizeof(uintptr_t) == 8) {
    CHECK(engine_status(make_table(0xFFFFFFFFFFFFF800ull, kDesignId, standard_regs())) == DGMM_ERROR_UNSUPPORTED);
  } else {
    CHECK(engine_status(make_table(0x100000000ull, kDesignId, standard_regs())) == DGMM_ERROR_UNSUPPORTED);
  }
  CHECK(contains(dgmm_last_error(), "not addressable"));

  // A malformed table makes the module invalid.
  auto bad = table;
  bad[rm::kHeaderSize + rm::record_field::kOffset] = 2;  // ID at offset 2
  CHECK(load_status(npu_module(npu_plan(), bad)) == DGMM_ERROR_BAD_MODULE);
  CHECK(contains(dgmm_last_error(), "npu_regmap section: register 0 (ID) offset 0x00000002 is not a multiple of 4"));
  bad = table;
  bad.pop_back();
  CHECK(load_status(npu_module(npu_plan(), bad)) == DGMM_ERROR_BAD_MODULE);
  CHECK(contains(dgmm_last_error(), "register table is truncated"));
}

// The fused epilogue's operands: bound by name (bias, rq) where the plan has them, refused where
// not; the launch needs them bound, and on the NPU: the reference executor does not apply the
// epilogue. Their base registers are written with the others.
void test_npu_epilogue() {
  // A plan without them refuses them, naming what has them.
  {
    const auto module = make_module(plan_json(npu_plan()));
    dgmm_handle h = load(module);
    CHECK(h != nullptr);
    CHECK(dgmm_bind_input(h, "bias", 0x80400000u) == DGMM_ERROR_INVALID_ARGUMENT);
    CHECK(contains(dgmm_last_error(), "the module's plan has no operand 'bias' (op_type bias or bias_relu has it)"));
    CHECK(dgmm_bind_input(h, "rq", 0x80400000u) == DGMM_ERROR_INVALID_ARGUMENT);
    CHECK(contains(dgmm_last_error(), "no operand 'rq' (an int8 or int16 output has it)"));
    dgmm_operand o{};
    CHECK(dgmm_operand_info(h, "bias", &o) == DGMM_ERROR_INVALID_ARGUMENT);
    CHECK(contains(dgmm_last_error(), "the module's plan has no operand 'bias'"));
  }
  PlanArgs p = npu_plan();
  p.epilogue = "bias_relu";
  p.c = "int8";
  std::vector<RegDef> regs;
  for (const auto& r : dg::npu_regs::kRegisters) regs.push_back({r.name, r.offset, uint32_t(r.access)});
  const auto table = make_table(kNpuBase, kDesignId, regs);
  const auto module = npu_module(p, table);
  MockNpu npu(kNpuBase, kDesignId, regs);
  npu.elem_bits[2] = 8;
  Attached attached(&npu);
  dgmm_handle h = load(module);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(bind_fake(h));
  // Described like A, B and C: 1 x N, an int32 bias and an 8-byte rq record per column.
  dgmm_operand bias{}, rq{};
  CHECK(dgmm_operand_info(h, "bias", &bias) == DGMM_OK);
  CHECK(dgmm_operand_info(h, "rq", &rq) == DGMM_OK);
  CHECK(bias.rows == 1);
  CHECK(bias.cols == 48);
  CHECK(bias.element_bits == 32);
  CHECK(bias.is_signed == 1);
  CHECK(bias.is_output == 0);
  CHECK(bias.bytes == 48 * 4);
  CHECK(rq.cols == 48);
  CHECK(rq.element_bits == 64);
  CHECK(rq.bytes == 48 * 8);
  CHECK(dgmm_operand_info(h, "bias", nullptr) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_bind_output(h, "bias", 0x80400000u) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "operand 'bias' is an input"));
  CHECK(dgmm_bind_input(h, "bias", 0x80400002u) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "not aligned to 4 bytes"));
  CHECK(dgmm_launch(h) == DGMM_ERROR_UNBOUND_OPERAND);
  CHECK(contains(dgmm_last_error(), "operand 'bias' is not bound"));
  CHECK(dgmm_bind_input(h, "bias", 0x80400000u) == DGMM_OK);
  CHECK(dgmm_launch(h) == DGMM_ERROR_UNBOUND_OPERAND);
  CHECK(contains(dgmm_last_error(), "operand 'rq' is not bound"));
  CHECK(dgmm_bind_input(h, "rq", 0x80500000u) == DGMM_OK);
  CHECK(dgmm_launch(h) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "the reference executor does not apply the plan's fused epilogue"));
  CHECK(dgmm_set_engine(h, DGMM_ENGINE_NPU) == DGMM_OK);
  CHECK(dgmm_launch(h) == DGMM_OK);
  CHECK(dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  const std::vector<std::pair<std::string, uint32_t>> expected = {{"A_BASE", uint32_t(kAddrA)},
                                                                  {"A_BASE_HI", 0},
                                                                  {"B_BASE", uint32_t(kAddrB)},
                                                                  {"B_BASE_HI", 0},
                                                                  {"C_BASE", kAddrC},
                                                                  {"C_BASE_HI", 0},
                                                                  {"BIAS_BASE", 0x80400000u},
                                                                  {"BIAS_BASE_HI", 0},
                                                                  {"RQ_BASE", 0x80500000u},
                                                                  {"RQ_BASE_HI", 0},
                                                                  {"LDA", 64},
                                                                  {"LDB", 48},
                                                                  {"LDC", 48},
                                                                  {"M", 32},
                                                                  {"N", 48},
                                                                  {"K", 64},
                                                                  {"CTRL", 1}};
  CHECK(npu.writes == expected);
  CHECK(npu.violations.empty());

  // A design whose table lacks an operand's registers cannot run the plan.
  const auto no_rq_table = make_table(kNpuBase, kDesignId, standard_regs());
  const auto no_rq = npu_module(p, no_rq_table);
  dgmm_handle k = load(no_rq);
  CHECK(k != nullptr);
  CHECK(dgmm_set_engine(k, DGMM_ENGINE_NPU) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "no writable register BIAS_BASE, which the plan's operand 'bias' needs"));
}

// The register writes of a launch of npu_plan() bound at kAddrA, kAddrB, kAddrC: the bases, the
// leading dimensions in bytes, M, N, K, then START.
std::vector<std::pair<std::string, uint32_t>> npu_plan_start_writes() {
  return {{"A_BASE", uint32_t(kAddrA)},
          {"A_BASE_HI", 0},
          {"B_BASE", uint32_t(kAddrB)},
          {"B_BASE_HI", 0},
          {"C_BASE", uint32_t(kAddrC)},
          {"C_BASE_HI", 0},
          {"LDA", 64},
          {"LDB", 48},
          {"LDC", 192},
          {"M", 32},
          {"N", 48},
          {"K", 64},
          {"CTRL", 1}};
}

void test_npu_run() {
  const auto table = make_table(kNpuBase, kDesignId, standard_regs());
  const auto module = npu_module(npu_plan(), table);
  MockNpu npu(kNpuBase, kDesignId, standard_regs());
  Attached attached(&npu);
  dgmm_handle h = npu_handle(module);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_launch(h) == DGMM_OK);
  const std::vector<std::pair<std::string, uint32_t>> expected = npu_plan_start_writes();
  CHECK(npu.writes == expected);
  CHECK(npu.running);            // the launch did not wait
  CHECK(npu.status_reads == 1);  // BUSY checked before the start
  const dgmm_fence f = dgmm_sync(h);
  CHECK(dgmm_wait(f) == DGMM_OK);
  CHECK(!npu.running && npu.done);
  CHECK(npu.status_reads == 1 + 4);  // three BUSY polls, then DONE
  CHECK(hp::wait_calls() == 3);      // port_wait_irq between the polls
  uint64_t cycles = 0;
  CHECK(dgmm_npu_cycles(h, &cycles) == DGMM_OK && cycles == 1234);
  CHECK(dgmm_wait(f) == DGMM_OK);  // a finished fence stays finished
  CHECK(npu.violations.empty());

  // While a run is outstanding, nothing else may change; a poll that sees DONE ends it.
  npu.run_polls = 100;
  npu.run_cycles = 77;
  CHECK(dgmm_launch(h) == DGMM_OK);
  CHECK(dgmm_npu_cycles(h, &cycles) == DGMM_ERROR_INVALID_STATE);
  CHECK(dgmm_launch(h) == DGMM_ERROR_INVALID_STATE);
  CHECK(dgmm_bind_input(h, "A", kAddrA) == DGMM_ERROR_INVALID_STATE);
  CHECK(dgmm_set_engine(h, DGMM_ENGINE_REFERENCE) == DGMM_ERROR_INVALID_STATE);
  npu.finish_now = true;
  CHECK(dgmm_npu_cycles(h, &cycles) == DGMM_OK && cycles == 77);
  CHECK(dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  CHECK(dgmm_sync(h).sequence == 2);
  CHECK(npu.violations.empty());

  // Back to the reference executor: no register is touched.
  const size_t writes = npu.writes.size();
  CHECK(dgmm_set_engine(h, DGMM_ENGINE_REFERENCE) == DGMM_OK);
  std::vector<int8_t> a(32 * 64, 3), b(64 * 48, -1);
  std::vector<int32_t> c(32 * 48, 0);
  CHECK(bind_fake(h, reinterpret_cast<uintptr_t>(a.data()), reinterpret_cast<uintptr_t>(b.data()),
                  reinterpret_cast<uintptr_t>(c.data())));
  CHECK(dgmm_launch(h) == DGMM_OK && c[5] == -192);
  CHECK(npu.writes.size() == writes);
}

// A batch: one NPU run per matrix, each started by the runtime when the previous one is DONE, the
// bases one matrix (rows × ld elements) on; the cycles summed. The reference executor runs the
// same matrices.
void test_npu_batch() {
  PlanArgs p = npu_plan();
  p.batch = 3;
  const auto table = make_table(kNpuBase, kDesignId, standard_regs());
  const auto module = npu_module(p, table);
  MockNpu npu(kNpuBase, kDesignId, standard_regs());
  Attached attached(&npu);
  dgmm_handle h = npu_handle(module);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(operand(h, "A").bytes == 3 * 32 * 64 && operand(h, "B").bytes == 3 * 64 * 48 &&
        operand(h, "C").bytes == 3 * 32 * 48 * 4);
  CHECK(dgmm_launch(h) == DGMM_OK);
  CHECK(dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  std::vector<std::pair<std::string, uint32_t>> expected = npu_plan_start_writes();
  for (uint32_t b = 1; b < 3; ++b) {
    for (const auto& [name, at] : std::vector<std::pair<std::string, uint64_t>>{
             {"A", kAddrA + b * 32 * 64}, {"B", kAddrB + b * 64 * 48}, {"C", kAddrC + b * 32 * 48 * 4}}) {
      expected.push_back({name + "_BASE", uint32_t(at)});
      expected.push_back({name + "_BASE_HI", uint32_t(at >> 32)});
    }
    expected.push_back({"CTRL", 1});
  }
  CHECK(npu.writes == expected);
  uint64_t cycles = 0;
  CHECK(dgmm_npu_cycles(h, &cycles) == DGMM_OK && cycles == 3 * 1234);
  CHECK(npu.violations.empty());

  // The reference executor: matrix b of A holds b + 1, B holds -1: C of matrix b is -(b + 1) · 64.
  CHECK(dgmm_set_engine(h, DGMM_ENGINE_REFERENCE) == DGMM_OK);
  std::vector<int8_t> a(3 * 32 * 64), b(3 * 64 * 48, -1);
  for (size_t i = 0; i < a.size(); ++i) a[i] = int8_t(1 + i / (32 * 64));
  std::vector<int32_t> c(3 * 32 * 48, 0);
  CHECK(bind_fake(h, reinterpret_cast<uintptr_t>(a.data()), reinterpret_cast<uintptr_t>(b.data()),
                  reinterpret_cast<uintptr_t>(c.data())));
  CHECK(dgmm_launch(h) == DGMM_OK && c[5] == -64 && c[32 * 48 + 5] == -128 && c[2 * 32 * 48 + 7] == -192);
}

// A batch on a design with the batch loop (BATCH and the strides in its table): one START for the
// three matrices, the strides in bytes, one CYCLES for them all.
void test_npu_batch_loop() {
  PlanArgs p = npu_plan();
  p.batch = 3;
  std::vector<RegDef> regs = standard_regs();
  for (const auto& r : dg::npu_regs::kRegisters)
    if (r.feature == dg::npu_regs::kFeatureBatch) regs.push_back({r.name, r.offset, uint32_t(r.access)});
  const auto module = npu_module(p, make_table(kNpuBase, kDesignId, regs));
  MockNpu npu(kNpuBase, kDesignId, regs);
  Attached attached(&npu);
  dgmm_handle h = npu_handle(module);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_launch(h) == DGMM_OK);
  CHECK(dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  std::vector<std::pair<std::string, uint32_t>> expected = npu_plan_start_writes();
  const std::vector<std::pair<std::string, uint32_t>> loop = {
      {"BATCH", 3}, {"A_STRIDE", 32 * 64}, {"B_STRIDE", 64 * 48}, {"C_STRIDE", 32 * 48 * 4}};
  expected.insert(expected.begin() + 6, loop.begin(), loop.end());  // after the bases
  CHECK(npu.writes == expected);
  uint64_t cycles = 0;
  CHECK(dgmm_npu_cycles(h, &cycles) == DGMM_OK && cycles == 1234);
  CHECK(npu.violations.empty());

  // Packed matrices that do not start whole beats apart (A: 3 rows of 40 bytes, 120 bytes) are
  // refused at the launch, before a register is written; a leading dimension of 48 makes A's 144
  // bytes, nine beats.
  PlanArgs q = npu_plan();
  q.batch = 2, q.M = 3, q.K = 40, q.tm = 4, q.tk = 40;
  const auto module2 = npu_module(q, make_table(kNpuBase, kDesignId, regs));
  MockNpu npu2(kNpuBase, kDesignId, regs);
  npu2.want_m = 3, npu2.k_min = npu2.k_max = 40, npu2.byte_rows = true;
  Attached attached2(&npu2);
  dgmm_handle k = npu_handle(module2);
  CHECK(k != nullptr);
  if (k == nullptr) return;
  CHECK(dgmm_launch(k) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(),
                 "operand 'A': a batch's matrices are 120 bytes apart, not whole 16-byte bus beats: set a leading "
                 "dimension that makes them so (dgmm_set_ld)"));
  CHECK(npu2.writes.empty());
  CHECK(dgmm_set_ld(k, "A", 48) == DGMM_OK);
  CHECK(dgmm_launch(k) == DGMM_OK && dgmm_wait(dgmm_sync(k)) == DGMM_OK);
  CHECK(npu2.value["A_STRIDE"] == 3 * 48 && npu2.violations.empty());
}

// dgmm_set_batch and dgmm_set_batch_stride: a launch of fewer matrices than the plan's batch (BATCH
// written each launch, 1 included), matrices at other distances (an input shared by every matrix
// at stride 0, C's matrices apart by more than one), each refusal at the call, and the reference
// executor on the same layout.
void test_batch_count_and_strides() {
  PlanArgs p = npu_plan();
  p.batch = 3;
  std::vector<RegDef> regs = standard_regs();
  for (const auto& r : dg::npu_regs::kRegisters)
    if (r.feature == dg::npu_regs::kFeatureBatch) regs.push_back({r.name, r.offset, uint32_t(r.access)});
  const auto module = npu_module(p, make_table(kNpuBase, kDesignId, regs));
  MockNpu npu(kNpuBase, kDesignId, regs);
  Attached attached(&npu);
  dgmm_handle h = npu_handle(module);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_set_batch(h, 0) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "batch 0 is outside the plan's 1 to 3"));
  CHECK(dgmm_set_batch(h, 4) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_set_batch(h, 2) == DGMM_OK);
  CHECK(operand(h, "A").bytes == 2 * 32 * 64 && operand(h, "C").bytes == 2 * 32 * 48 * 4);
  CHECK(dgmm_launch(h) == DGMM_OK && dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  CHECK(npu.value["BATCH"] == 2 && npu.violations.empty());
  CHECK(dgmm_set_batch(h, 1) == DGMM_OK);  // BATCH is written back to 1, not left at 2
  CHECK(dgmm_launch(h) == DGMM_OK && dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  CHECK(npu.value["BATCH"] == 1);
  CHECK(dgmm_set_batch(h, 3) == DGMM_OK);

  // Strides: B shared by the three matrices (0), C's matrices 2000 elements apart (8000 bytes, 500
  // beats); refused: C's matrices closer than one matrix (1536 elements), an A stride of 2050
  // bytes (not whole beats) on the NPU, an unknown operand, a stride beyond any memory.
  CHECK(dgmm_set_batch_stride(h, "B", 0) == DGMM_OK);
  CHECK(operand(h, "B").bytes == 64 * 48);
  CHECK(dgmm_set_batch_stride(h, "C", 100) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(),
                 "operand 'C': a batch's matrices are 100 elements apart, fewer than one "
                 "matrix's 1536: the output's matrices would overlap"));
  CHECK(operand(h, "C").bytes == 3 * 32 * 48 * 4);  // unchanged
  CHECK(dgmm_set_batch_stride(h, "C", 2000) == DGMM_OK);
  CHECK(operand(h, "C").bytes == 2 * 8000 + 32 * 48 * 4);
  CHECK(dgmm_set_batch_stride(h, "A", 2050) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(),
                 "operand 'A': a batch's matrices are 2050 bytes apart, not whole 16-byte bus "
                 "beats: set a stride that makes them so (dgmm_set_batch_stride)"));
  CHECK(dgmm_set_batch_stride(h, "X", 0) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "unknown operand 'X'"));
  CHECK(dgmm_set_batch_stride(h, "A", uint64_t{1} << 59) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_launch(h) == DGMM_OK && dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  CHECK(npu.value["BATCH"] == 3 && npu.value["A_STRIDE"] == 32 * 64 && npu.value["B_STRIDE"] == 0 &&
        npu.value["C_STRIDE"] == 8000 && npu.violations.empty());
  // C's matrices 2000 elements apart: a C leading dimension of 64 makes a matrix 31 × 64 + 48 =
  // 2032 elements, more than that: refused at dgmm_set_ld.
  CHECK(dgmm_set_ld(h, "C", 64) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "fewer than one matrix's 2032"));

  // The reference executor: matrix b of A holds b + 1, the one B -1: matrix b of C is -(b + 1)·64,
  // and the 464 elements between C's matrices are not written.
  CHECK(dgmm_set_engine(h, DGMM_ENGINE_REFERENCE) == DGMM_OK);
  std::vector<int8_t> a(3 * 32 * 64), b(64 * 48, -1);
  for (size_t i = 0; i < a.size(); ++i) a[i] = int8_t(1 + i / (32 * 64));
  std::vector<int32_t> c(2 * 2000 + 32 * 48, 7);
  CHECK(bind_fake(h, reinterpret_cast<uintptr_t>(a.data()), reinterpret_cast<uintptr_t>(b.data()),
                  reinterpret_cast<uintptr_t>(c.data())));
  CHECK(dgmm_launch(h) == DGMM_OK);
  CHECK(c[5] == -64 && c[2000 + 5] == -128 && c[4000 + 32 * 48 - 1] == -192);
  CHECK(c[32 * 48] == 7 && c[1999] == 7 && c[2000 + 32 * 48] == 7);
  CHECK(dgmm_set_batch_stride(h, "C", DGMM_STRIDE_PACKED) == DGMM_OK);
  CHECK(operand(h, "C").bytes == 3 * 32 * 48 * 4);

  // A plan without a batch takes only 1.
  const auto single = npu_module(npu_plan(), make_table(kNpuBase, kDesignId, regs));
  dgmm_handle s = npu_handle(single);
  CHECK(s != nullptr);
  if (s == nullptr) return;
  CHECK(dgmm_set_batch(s, 1) == DGMM_OK);
  CHECK(dgmm_set_batch(s, 2) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "batch 2 is outside the plan's 1 to 1 (the spec's shape has no batch)"));
}

void test_npu_register_map_by_name() {
  // Other offsets, another base, an extra register: the runtime follows the table.
  const std::vector<RegDef> regs = {{"K", 0x100, kRW},       {"N", 0x104, kRW},      {"M", 0x108, kRW},
                                    {"C_BASE", 0x10c, kRW},  {"B_BASE", 0x110, kRW}, {"A_BASE", 0x114, kRW},
                                    {"SCRATCH", 0x118, kRW}, {"CYCLES", 0x200, kR},  {"ERROR", 0x204, kR},
                                    {"STATUS", 0x208, kR},   {"CTRL", 0x20c, kW},    {"ID", 0xffc, kR}};
  const uint64_t base = 0x50000000u;
  const auto module = npu_module(npu_plan(), make_table(base, 0xA5A5A5A5u, regs));
  MockNpu npu(base, 0xA5A5A5A5u, regs);
  npu.run_polls = 0;
  Attached attached(&npu);
  dgmm_handle h = npu_handle(module);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_launch(h) == DGMM_OK);
  CHECK(dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  CHECK(npu.writes.size() == 7 && npu.writes.back().first == "CTRL");
  CHECK(npu.value["A_BASE"] == kAddrA && npu.value["K"] == 64);
  CHECK(npu.violations.empty());
}

void test_npu_errors() {
  const auto table = make_table(kNpuBase, kDesignId, standard_regs());
  struct Case {
    uint32_t code;
    const char* meaning;
  };
  const Case cases[] = {
      {1, "M is outside the plan's range"},
      {2, "N is outside the plan's range"},
      {3, "K is outside the plan's range"},
      {4, "an operand base address is not aligned to a bus beat"},
      {5, "an operand row is not a whole number of bus beats (of bytes where the design moves byte rows)"},
      {9, "an operand's base or extent does not fit the bus's address width"},
      {10,
       "a leading dimension (LDA, LDB, LDC) is not a whole number of bus beats, is smaller than its "
       "row's bytes, or makes its operand span more than 4 GiB"},
      {11, "BATCH is 0 or above the plan's batch"},
      {12, "unknown error code"}};
  for (const Case& c : cases) {
    const auto module = npu_module(npu_plan(), table);
    MockNpu npu(kNpuBase, kDesignId, standard_regs());
    Attached attached(&npu);
    dgmm_handle h = npu_handle(module);
    CHECK(h != nullptr);
    if (h == nullptr) return;
    // A good run first, so that DONE is still set when the refused START raises ERROR.
    CHECK(dgmm_launch(h) == DGMM_OK && dgmm_wait(dgmm_sync(h)) == DGMM_OK);
    switch (c.code) {
      case 1: npu.want_m = 33; break;
      case 2: npu.want_n = 64; break;
      case 3: npu.k_min = 128, npu.k_max = 1024; break;
      case 4: CHECK(dgmm_bind_input(h, "B", kAddrB + 8) == DGMM_OK); break;
      case 5: npu.beat = 128; break;
      default: npu.forced_error = c.code; break;
    }
    CHECK(dgmm_launch(h) == DGMM_OK);
    const dgmm_fence f = dgmm_sync(h);
    CHECK(dgmm_wait_timeout(f, 1000) == DGMM_ERROR_LAUNCH);
    CHECK(npu.error == c.code && npu.done);
    const std::string want = "ERROR " + std::to_string(c.code) + " (" + c.meaning + ")";
    CHECK(contains(dgmm_last_error(), want.c_str()));
    CHECK(dgmm_wait(f) == DGMM_ERROR_LAUNCH);  // reported again by the same fence
    CHECK(contains(dgmm_last_error(), want.c_str()));
    uint64_t cycles = 0;
    CHECK(dgmm_npu_cycles(h, &cycles) == DGMM_ERROR_INVALID_STATE);
    CHECK(npu.violations.empty());
  }
}

void test_npu_timeout() {
  const auto module = npu_module(npu_plan(), make_table(kNpuBase, kDesignId, standard_regs()));
  MockNpu npu(kNpuBase, kDesignId, standard_regs());
  npu.run_polls = -1;  // never completes
  Attached attached(&npu);
  dgmm_handle h = npu_handle(module);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_launch(h) == DGMM_OK);
  const dgmm_fence f = dgmm_sync(h);
  hp::set_tick_step(7);
  CHECK(dgmm_wait_timeout(f, 100) == DGMM_ERROR_TIMEOUT);
  CHECK(contains(dgmm_last_error(), "timed out after"));
  CHECK(contains(dgmm_last_error(), "(NPU STATUS 0x00000001)"));
  CHECK(hp::wait_calls() > 5);
  CHECK(dgmm_launch(h) == DGMM_ERROR_INVALID_STATE);  // still running
  npu.finish_now = true;                              // the hardware finishes late
  CHECK(dgmm_wait_timeout(f, 100) == DGMM_OK);
  uint64_t cycles = 0;
  CHECK(dgmm_npu_cycles(h, &cycles) == DGMM_OK && cycles == 1234);
  CHECK(npu.violations.empty());
}

void test_npu_refused_before_start() {
  const auto module = npu_module(npu_plan(), make_table(kNpuBase, kDesignId, standard_regs()));
  {
    // Another design in the FPGA: nothing is written.
    MockNpu npu(kNpuBase, 0x12345678u, standard_regs());
    Attached attached(&npu);
    dgmm_handle h = npu_handle(module);
    CHECK(h != nullptr);
    if (h == nullptr) return;
    CHECK(dgmm_launch(h) == DGMM_ERROR_TARGET_MISMATCH);
    CHECK(contains(dgmm_last_error(), "ID register reads 0x12345678, the module's design is 0x9b575bdb"));
    CHECK(npu.writes.empty());
    CHECK(dgmm_sync(h).handle == nullptr);  // no launch happened
  }
  {
    // Busy with a run this handle did not start.
    MockNpu npu(kNpuBase, kDesignId, standard_regs());
    npu.running = true;
    npu.run_polls = -1;
    Attached attached(&npu);
    dgmm_handle h = npu_handle(module);
    CHECK(h != nullptr);
    if (h == nullptr) return;
    CHECK(dgmm_launch(h) == DGMM_ERROR_INVALID_STATE);
    CHECK(contains(dgmm_last_error(), "the NPU is busy"));
    CHECK(npu.writes.empty());
  }
  {
    // An operand the 32-bit bus cannot reach: refused at the bind, the old binding stays.
    MockNpu npu(kNpuBase, kDesignId, standard_regs());
    Attached attached(&npu);
    dgmm_handle h = npu_handle(module);
    CHECK(h != nullptr);
    if (h == nullptr) return;
    CHECK(dgmm_bind_output(h, "C", 0xFFFFF000u) == DGMM_ERROR_INVALID_ARGUMENT);
    CHECK(contains(dgmm_last_error(),
                   "operand 'C' at 0x00000000:0xfffff000 does not fit the NPU's 32-bit bus addresses"));
    CHECK(dgmm_bind_output(h, "C", 0x100000000ull) == DGMM_ERROR_INVALID_ARGUMENT);
    CHECK(contains(dgmm_last_error(),
                   "operand 'C' at 0x00000001:0x00000000 does not fit the NPU's 32-bit bus addresses"));
    CHECK(dgmm_launch(h) == DGMM_OK && dgmm_wait(dgmm_sync(h)) == DGMM_OK);
    CHECK(npu.value["C_BASE"] == kAddrC && npu.value["C_BASE_HI"] == 0);
    CHECK(npu.violations.empty());
  }
}

void test_npu_wide_bus() {
  // A design with 40-bit bus addresses (the table says so): operands above 4 GiB, both halves
  // written; an operand at or past 2^40 refused at the call that names it.
  const auto module = npu_module(npu_plan(), make_table(kNpuBase, kDesignId, standard_regs(), 40));
  MockNpu npu(kNpuBase, kDesignId, standard_regs());
  npu.addr_bits = 40;
  npu.run_polls = 0;
  Attached attached(&npu);
  dgmm_handle h = load(module);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_set_engine(h, DGMM_ENGINE_NPU) == DGMM_OK);
  const uint64_t a = 0x1280100000ull, b = 0xFF00200000ull, c = 0x0100300000ull;
  CHECK(dgmm_bind_input(h, "A", a) == DGMM_OK && dgmm_bind_input(h, "B", b) == DGMM_OK &&
        dgmm_bind_output(h, "C", c) == DGMM_OK);
  CHECK(dgmm_launch(h) == DGMM_OK && dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  const std::vector<std::pair<std::string, uint32_t>> expected = {{"A_BASE", 0x80100000u},
                                                                  {"A_BASE_HI", 0x12},
                                                                  {"B_BASE", 0x00200000u},
                                                                  {"B_BASE_HI", 0xFF},
                                                                  {"C_BASE", 0x00300000u},
                                                                  {"C_BASE_HI", 0x01},
                                                                  {"LDA", 64},
                                                                  {"LDB", 48},
                                                                  {"LDC", 192},
                                                                  {"M", 32},
                                                                  {"N", 48},
                                                                  {"K", 64},
                                                                  {"CTRL", 1}};
  CHECK(npu.writes == expected);
  // 2^40 and an extent that passes it (C is 32 x 48 x 4 = 6144 bytes): refused, nothing changes.
  CHECK(dgmm_bind_output(h, "C", 0x10000000000ull) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(
      contains(dgmm_last_error(), "operand 'C' at 0x00000100:0x00000000 does not fit the NPU's 40-bit bus addresses"));
  CHECK(dgmm_bind_output(h, "C", 0x10000000000ull - 4096) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(
      contains(dgmm_last_error(), "operand 'C' at 0x000000ff:0xfffff000 does not fit the NPU's 40-bit bus addresses"));
  CHECK(dgmm_bind_output(h, "C", 0x10000000000ull - 6144) == DGMM_OK);  // its last byte is the bus's last
  npu.writes.clear();
  CHECK(dgmm_launch(h) == DGMM_OK && dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  CHECK(npu.value["C_BASE_HI"] == 0xFF && npu.value["C_BASE"] == 0xFFFFE800u);
  // Bound for the reference executor, then the NPU chosen: refused there, the engine stays.
  CHECK(dgmm_set_engine(h, DGMM_ENGINE_REFERENCE) == DGMM_OK);
  CHECK(dgmm_bind_output(h, "C", 0x20000000000ull) == DGMM_OK);
  CHECK(dgmm_set_engine(h, DGMM_ENGINE_NPU) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(
      contains(dgmm_last_error(), "operand 'C' at 0x00000200:0x00000000 does not fit the NPU's 40-bit bus addresses"));
  CHECK(dgmm_bind_output(h, "C", c) == DGMM_OK && dgmm_set_engine(h, DGMM_ENGINE_NPU) == DGMM_OK);
  // Hardware whose bus is narrower than the table says refuses the START with BASE_RANGE.
  npu.addr_bits = 32;
  CHECK(dgmm_launch(h) == DGMM_OK);
  CHECK(dgmm_wait(dgmm_sync(h)) == DGMM_ERROR_LAUNCH);
  CHECK(contains(dgmm_last_error(), "ERROR 9 (an operand's base or extent does not fit the bus's address width)"));
  CHECK(npu.violations.empty());

  // A table of a wide bus without the high halves cannot drive it; a 32-bit one can.
  std::vector<RegDef> low_only;
  for (const RegDef& r : standard_regs())
    if (r.name.find("_HI") == std::string::npos) low_only.push_back(r);
  // (The runtime reads a module in place: each module outlives its handle.)
  const auto wide = npu_module(npu_plan(), make_table(kNpuBase, kDesignId, low_only, 40));
  dgmm_handle w = load(wide);
  CHECK(w != nullptr && dgmm_set_engine(w, DGMM_ENGINE_NPU) == DGMM_ERROR_UNSUPPORTED);
  CHECK(contains(dgmm_last_error(), "no writable register A_BASE_HI"));
  const auto narrow = npu_module(npu_plan(), make_table(kNpuBase, kDesignId, low_only, 32));
  dgmm_handle n = load(narrow);
  CHECK(n != nullptr && dgmm_set_engine(n, DGMM_ENGINE_NPU) == DGMM_OK);
}

void test_npu_k_range() {
  // A K-range plan (K from 32 to 64) on an NPU generated with that range: each launch writes the
  // K set before it.
  PlanArgs p = npu_plan();
  p.k_dynamic = true, p.k_min = 32;
  const auto module = npu_module(p, make_table(kNpuBase, kDesignId, standard_regs()));
  MockNpu npu(kNpuBase, kDesignId, standard_regs());
  npu.k_min = 32, npu.k_max = 64;
  npu.run_polls = 0;
  Attached attached(&npu);
  dgmm_handle h = npu_handle(module);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_launch(h) == DGMM_OK && dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  CHECK(npu.value["K"] == 64);  // K_max until set
  CHECK(dgmm_set_k(h, 48) == DGMM_OK);
  npu.writes.clear();
  CHECK(dgmm_launch(h) == DGMM_OK);
  const std::vector<std::pair<std::string, uint32_t>> expected = {{"A_BASE", uint32_t(kAddrA)},
                                                                  {"A_BASE_HI", 0},
                                                                  {"B_BASE", uint32_t(kAddrB)},
                                                                  {"B_BASE_HI", 0},
                                                                  {"C_BASE", uint32_t(kAddrC)},
                                                                  {"C_BASE_HI", 0},
                                                                  {"LDA", 48},
                                                                  {"LDB", 48},
                                                                  {"LDC", 192},
                                                                  {"M", 32},
                                                                  {"N", 48},
                                                                  {"K", 48},
                                                                  {"CTRL", 1}};
  CHECK(npu.writes == expected);
  CHECK(dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  CHECK(dgmm_set_k(h, 32) == DGMM_OK);
  CHECK(dgmm_launch(h) == DGMM_OK && dgmm_wait(dgmm_sync(h)) == DGMM_OK && npu.value["K"] == 32);
  // Outside the range: refused by the runtime, nothing written.
  npu.writes.clear();
  CHECK(dgmm_set_k(h, 31) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "K 31 is outside the plan's K range [32, 64]"));
  CHECK(dgmm_set_k(h, 65) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(dgmm_launch(h) == DGMM_OK && npu.value["K"] == 32);
  CHECK(dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  // Inside the range, rows of A that are not whole bus beats (40 bytes): the NPU refuses the run.
  CHECK(dgmm_set_k(h, 40) == DGMM_OK);
  CHECK(dgmm_launch(h) == DGMM_OK && npu.value["K"] == 40);
  CHECK(dgmm_wait(dgmm_sync(h)) == DGMM_ERROR_LAUNCH);
  CHECK(contains(
      dgmm_last_error(),
      "ERROR 5 (an operand row is not a whole number of bus beats (of bytes where the design moves byte rows))"));
  // Not while a run is outstanding.
  CHECK(dgmm_set_k(h, 64) == DGMM_OK);
  npu.run_polls = 100;
  CHECK(dgmm_launch(h) == DGMM_OK);
  CHECK(dgmm_set_k(h, 48) == DGMM_ERROR_INVALID_STATE);
  CHECK(contains(dgmm_last_error(), "K change while a launch runs"));
  npu.finish_now = true;
  CHECK(dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  CHECK(dgmm_set_k(h, 48) == DGMM_OK && current_k(h) == 48);
  CHECK(npu.violations.empty());

  // The operand extents the 32-bit bus check uses are the current K's.
  {
    MockNpu npu2(kNpuBase, kDesignId, standard_regs());
    npu2.k_min = 32, npu2.k_max = 64;
    Attached attached2(&npu2);
    dgmm_handle k = npu_handle(module);
    CHECK(k != nullptr);
    if (k == nullptr) return;
    // 32 rows of A at K 32 end exactly at 4 GiB; at K 64 they do not fit.
    CHECK(dgmm_set_k(k, 32) == DGMM_OK);
    CHECK(dgmm_bind_input(k, "A", uintptr_t(0x100000000ull - 32 * 32)) == DGMM_OK);
    CHECK(dgmm_launch(k) == DGMM_OK && dgmm_wait(dgmm_sync(k)) == DGMM_OK);
    CHECK(dgmm_set_k(k, 64) == DGMM_OK);
    npu2.writes.clear();
    CHECK(dgmm_launch(k) == DGMM_ERROR_INVALID_ARGUMENT);
    CHECK(contains(dgmm_last_error(), "operand 'A' at 0x00000000:0xfffffc00 does not fit"));
    CHECK(npu2.writes.empty());
  }
}

void test_npu_leading_dimensions() {
  // M 32, N 48, K 64, int8 x int8 -> int32 on a 16-byte bus.
  const auto module = npu_module(npu_plan(), make_table(kNpuBase, kDesignId, standard_regs()));
  MockNpu npu(kNpuBase, kDesignId, standard_regs());
  npu.run_polls = 0;
  Attached attached(&npu);
  dgmm_handle h = npu_handle(module);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  // Sub-matrices of larger arrays: A's rows 80 elements apart (80 bytes, five beats), B's 64, C's 52
  // (208 bytes); the extents follow, and each launch writes the registers in bytes.
  CHECK(dgmm_set_ld(h, "A", 80) == DGMM_OK);
  CHECK(dgmm_set_ld(h, "B", 64) == DGMM_OK);
  CHECK(dgmm_set_ld(h, "C", 52) == DGMM_OK);
  CHECK(operand(h, "A").ld == 80 && operand(h, "A").bytes == 31 * 80 + 64);
  CHECK(operand(h, "B").ld == 64 && operand(h, "B").bytes == 63 * 64 + 48);
  CHECK(operand(h, "C").ld == 52 && operand(h, "C").bytes == (31 * 52 + 48) * 4);
  CHECK(dgmm_launch(h) == DGMM_OK && dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  CHECK(npu.value["LDA"] == 80 && npu.value["LDB"] == 64 && npu.value["LDC"] == 208 && npu.error == 0);
  // Refused at the call, naming the operand and the rule; the leading dimension stays.
  CHECK(dgmm_set_ld(h, "A", 63) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "operand 'A': leading dimension 63 is smaller than its rows' 64 elements"));
  CHECK(dgmm_set_ld(h, "B", 56) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(),
                 "operand 'B': leading dimension 56 is not a whole number of the NPU's 16-byte bus beats: make it a "
                 "multiple of 16"));
  CHECK(dgmm_set_ld(h, "C", 50) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "make it a multiple of 4"));
  CHECK(dgmm_set_ld(h, "C", 1u << 26) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "span more than 4 GiB"));
  CHECK(operand(h, "B").ld == 64 && operand(h, "C").ld == 52 && operand(h, "C").bytes == (31 * 52 + 48) * 4);
  CHECK(dgmm_set_ld(h, "bias", 64) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "operand 'bias' is one vector"));
  CHECK(dgmm_set_ld(h, "D", 64) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "unknown operand 'D'"));
  CHECK(dgmm_set_ld(nullptr, "A", 64) == DGMM_ERROR_INVALID_STATE);
  // 0 returns to the plan's, packed.
  CHECK(dgmm_set_ld(h, "A", 0) == DGMM_OK && operand(h, "A").ld == 64 && operand(h, "A").bytes == 32 * 64);
  CHECK(dgmm_launch(h) == DGMM_OK && dgmm_wait(dgmm_sync(h)) == DGMM_OK && npu.value["LDA"] == 64);
  // The reference executor takes any ld that holds a row; choosing the NPU checks them again.
  CHECK(dgmm_set_engine(h, DGMM_ENGINE_REFERENCE) == DGMM_OK);
  CHECK(dgmm_set_ld(h, "B", 50) == DGMM_OK);
  CHECK(dgmm_set_engine(h, DGMM_ENGINE_NPU) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "operand 'B': leading dimension 50 is not a whole number"));
  CHECK(dgmm_set_ld(h, "B", 0) == DGMM_OK && dgmm_set_engine(h, DGMM_ENGINE_NPU) == DGMM_OK);
  // The hardware's START check has the last word: a launch it refuses with LD (ERROR 10) fails
  // with the code's meaning from the register description.
  MockNpu strict(kNpuBase, kDesignId, standard_regs());
  strict.forced_error = 10;
  strict.run_polls = 0;
  {
    Attached other(&strict);
    CHECK(dgmm_set_ld(h, "A", 80) == DGMM_OK);
    CHECK(dgmm_launch(h) == DGMM_OK);
    CHECK(dgmm_wait(dgmm_sync(h)) == DGMM_ERROR_LAUNCH);
    CHECK(contains(dgmm_last_error(), "ERROR 10 (a leading dimension (LDA, LDB, LDC) is not a whole number"));
  }

  // A design without the leading-dimension registers takes packed operands only.
  std::vector<RegDef> no_ld;
  for (const RegDef& r : standard_regs())
    if (r.name.rfind("LD", 0) != 0) no_ld.push_back(r);
  const auto old_module = npu_module(npu_plan(), make_table(kNpuBase, kDesignId, no_ld));
  dgmm_handle o = npu_handle(old_module);
  CHECK(o != nullptr);
  CHECK(dgmm_set_ld(o, "A", 80) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(),
                 "has no leading-dimension registers (LDA, LDB, LDC: its model's npu.ld_registers is false)"));
  CHECK(dgmm_set_ld(o, "A", 64) == DGMM_OK);

  // K at run time: an ld set on A stays, and K may not pass it; 0 follows K again.
  PlanArgs p = npu_plan();
  p.k_dynamic = true, p.k_min = 32;
  const auto kr_module = npu_module(p, make_table(kNpuBase, kDesignId, standard_regs()));
  dgmm_handle k = npu_handle(kr_module);
  CHECK(k != nullptr);
  if (k == nullptr) return;
  CHECK(dgmm_set_ld(k, "A", 48) == DGMM_ERROR_INVALID_ARGUMENT);  // K is 64 until set
  CHECK(dgmm_set_k(k, 32) == DGMM_OK && dgmm_set_ld(k, "A", 48) == DGMM_OK);
  CHECK(dgmm_set_k(k, 48) == DGMM_OK && operand(k, "A").ld == 48);
  CHECK(dgmm_set_k(k, 64) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "K 64 is above operand 'A''s leading dimension 48 (set by dgmm_set_ld)"));
  CHECK(current_k(k) == 48);
  CHECK(dgmm_set_ld(k, "A", 0) == DGMM_OK && operand(k, "A").ld == 48);
  CHECK(dgmm_set_k(k, 64) == DGMM_OK && operand(k, "A").ld == 64);
}

void test_npu_int4() {
  // int4 x u4 on an NPU generated for them: the registers are those of any plan; the 32-bit bus
  // check uses the packed extents. A's rows are K / 2 bytes, B's 64 / 2 = 32.
  PlanArgs p = npu_plan();
  p.N = 64, p.K = 128, p.k_dynamic = true, p.k_min = 32, p.a = "int4", p.b = "u4";
  const auto module = npu_module(p, make_table(kNpuBase, kDesignId, standard_regs()));
  MockNpu npu(kNpuBase, kDesignId, standard_regs());
  npu.want_n = 64, npu.k_min = 32, npu.k_max = 128, npu.run_polls = 0;
  npu.elem_bits[0] = 4, npu.elem_bits[1] = 4;
  Attached attached(&npu);
  dgmm_handle h = npu_handle(module);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_set_k(h, 64) == DGMM_OK);
  CHECK(dgmm_launch(h) == DGMM_OK);
  const std::vector<std::pair<std::string, uint32_t>> expected = {{"A_BASE", uint32_t(kAddrA)},
                                                                  {"A_BASE_HI", 0},
                                                                  {"B_BASE", uint32_t(kAddrB)},
                                                                  {"B_BASE_HI", 0},
                                                                  {"C_BASE", uint32_t(kAddrC)},
                                                                  {"C_BASE_HI", 0},
                                                                  {"LDA", 32},
                                                                  {"LDB", 32},
                                                                  {"LDC", 256},
                                                                  {"M", 32},
                                                                  {"N", 64},
                                                                  {"K", 64},
                                                                  {"CTRL", 1}};
  CHECK(npu.writes == expected);
  CHECK(dgmm_wait(dgmm_sync(h)) == DGMM_OK);
  // An odd K is refused by the runtime: nothing is written.
  npu.writes.clear();
  CHECK(dgmm_set_k(h, 33) == DGMM_ERROR_INVALID_ARGUMENT);
  CHECK(contains(dgmm_last_error(), "K 33 is odd: operand 'A'"));
  CHECK(npu.writes.empty() && current_k(h) == 64);
  // K 48: rows of A of 24 bytes, not whole beats; the NPU refuses the run.
  CHECK(dgmm_set_k(h, 48) == DGMM_OK);
  CHECK(dgmm_launch(h) == DGMM_OK && npu.value["K"] == 48);
  CHECK(dgmm_wait(dgmm_sync(h)) == DGMM_ERROR_LAUNCH);
  CHECK(contains(dgmm_last_error(), "ERROR 5"));
  CHECK(npu.violations.empty());
  if constexpr (sizeof(uintptr_t) == 8) {
    // 32 rows of 32 bytes at K 64 end exactly at 4 GiB (a byte per element would not fit); at
    // K 128 they do not.
    CHECK(dgmm_set_k(h, 64) == DGMM_OK);
    CHECK(dgmm_bind_input(h, "A", uintptr_t(0x100000000ull - 32 * 32)) == DGMM_OK);
    CHECK(dgmm_launch(h) == DGMM_OK && dgmm_wait(dgmm_sync(h)) == DGMM_OK);
    CHECK(dgmm_set_k(h, 128) == DGMM_OK);
    npu.writes.clear();
    CHECK(dgmm_launch(h) == DGMM_ERROR_INVALID_ARGUMENT);
    CHECK(contains(dgmm_last_error(), "operand 'A' at 0x00000000:0xfffffc00 does not fit"));
    CHECK(npu.writes.empty());
  }
}

#ifdef DEEPGEMM_TEST_MODULE
void test_compiled_module_regmap() {
  // The module deepgemm compiled from tests/baremetal/gemm_int8.dgml carries the generated top's
  // register table, which the runtime's reader accepts.
  const std::string ko = read_file(DEEPGEMM_TEST_MODULE);
  const std::vector<uint8_t> bytes(ko.begin(), ko.end());
  dg::ko::ModuleView view;
  CHECK(dg::ko::parse(bytes.data(), bytes.size(), &view) == dg::ko::Status::Ok);
  const dg::ko::Payload payload = view.find(dg::ko::SectionKind::NpuRegmap);
  CHECK(payload.present);
  rm::View table;
  CHECK(rm::parse(payload.data, payload.size, &table) == rm::Status::Ok);
  CHECK(table.mmio_base == kNpuBase);  // hw-models/npu16.json
  // The design ID is the one the top's ID register reads (its Verilog's Id localparam).
  const dg::ko::Payload verilog = view.find(dg::ko::SectionKind::Verilog);
  const std::string text(reinterpret_cast<const char*>(verilog.data), verilog.size);
  char id_param[64];
  std::snprintf(id_param, sizeof id_param, "localparam logic [31:0] Id = 32'h%08x;", table.design_id);
  CHECK(text.find(id_param) != std::string::npos);
  // Every register of the top's block, at its offset with its access (more may follow).
  const auto want = standard_regs();
  CHECK(table.count >= want.size());
  for (const RegDef& w : want) {
    rm::Register r;
    const bool same = table.find(w.name.c_str(), &r) && r.offset == w.offset && r.access == w.access;
    if (!same)
      std::printf("  register %s: not in the table as 0x%03x %s\n", w.name.c_str(), w.offset,
                  rm::access_name(w.access));
    CHECK(same);
  }

  // Run it on the emulated register block of that design (M 37, N 48, K 64; 16-byte bus beats).
  MockNpu npu(kNpuBase, table.design_id, want);
  npu.want_m = 37, npu.want_n = 48, npu.k_min = npu.k_max = 64, npu.beat = 16;
  Attached attached(&npu);
  dgmm_handle h = npu_handle(bytes);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_launch(h) == DGMM_OK);
  CHECK(dgmm_wait_timeout(dgmm_sync(h), 1000) == DGMM_OK);
  uint64_t cycles = 0;
  CHECK(dgmm_npu_cycles(h, &cycles) == DGMM_OK && cycles == 1234);
  CHECK(npu.value["M"] == 37 && npu.value["N"] == 48 && npu.value["K"] == 64);
  CHECK(npu.violations.empty());
}
#endif

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
  test_k_range();
  test_m_range();
  test_n_range();
  test_swapped();
  test_k_range_gemm();
  test_custom_widths();
  test_int4();
  test_int4_k_range();
  test_cosim_plans();
  test_npu_engine_choice();
  test_npu_run();
  test_npu_batch();
  test_npu_batch_loop();
  test_batch_count_and_strides();
  test_npu_epilogue();
  test_npu_register_map_by_name();
  test_npu_errors();
  test_npu_timeout();
  test_npu_refused_before_start();
  test_npu_wide_bus();
  test_npu_k_range();
  test_npu_leading_dimensions();
  test_npu_int4();
#ifdef DEEPGEMM_TEST_MODULE
  test_compiled_module_regmap();
#endif
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
