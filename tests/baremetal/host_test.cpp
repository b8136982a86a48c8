// Host unit tests of the freestanding runtime core with the host port: module validation, plan
// reading, the API state machine, the reference executor against a naive GEMM, and the NPU engine
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

// The register block of the generated NPU top (hdl-gen/hdlgen/top.cpp).
std::vector<RegDef> standard_regs() {
  return {{"ID", 0x000, kR},     {"CTRL", 0x004, kW},   {"STATUS", 0x008, kR}, {"ERROR", 0x00c, kR},
          {"CYCLES", 0x010, kR}, {"A_BASE", 0x014, kRW}, {"B_BASE", 0x018, kRW}, {"C_BASE", 0x01c, kRW},
          {"M", 0x020, kRW},     {"N", 0x024, kRW},     {"K", 0x028, kRW},     {"BOUND", 0x02c, kR}};
}

std::vector<uint8_t> make_table(uint64_t base, uint32_t id, const std::vector<RegDef>& regs) {
  std::vector<rm::RegisterSpec> specs;
  for (const RegDef& r : regs) specs.push_back({r.name.c_str(), r.offset, r.access});
  std::vector<uint8_t> out(rm::table_size(uint32_t(specs.size())));
  size_t written = 0;
  if (rm::write(base, id, specs.data(), uint32_t(specs.size()), out.data(), out.size(), &written) != rm::Status::Ok)
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
// 5, or a forced code), a run completes after `run_polls` STATUS reads (never when negative), and
// writes while running are ignored, as in the RTL. Every access the runtime makes is logged;
// accesses outside the table or against a register's access are violations.
class MockNpu : public hp::Device {
 public:
  MockNpu(uint64_t base, uint32_t id, std::vector<RegDef> regs) : base_(base), id_(id), regs_(std::move(regs)) {}

  // What the design was generated for.
  uint32_t want_m = 32, want_n = 48, k_min = 64, k_max = 64;
  uint32_t beat = 16, elem[3] = {1, 1, 4};
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
    violations.push_back(std::string(need == kR ? "read" : "write") + " of offset " +
                         std::to_string(address - base_));
    return nullptr;
  }
  uint32_t check() {
    if (forced_error != 0) return forced_error;
    const uint32_t m = value["M"], n = value["N"], k = value["K"];
    if (m != want_m) return 1;
    if (n != want_n) return 2;
    if (k < k_min || k > k_max) return 3;
    if (((value["A_BASE"] | value["B_BASE"] | value["C_BASE"]) & (beat - 1)) != 0) return 4;
    if (((k * elem[0]) | (n * elem[1]) | (n * elem[2])) & (beat - 1)) return 5;
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
  CHECK(dgmm_set_engine(h, DGMM_ENGINE_NPU) == DGMM_OK);

  // Tables the runtime cannot use.
  auto without = [](const char* name) {
    std::vector<RegDef> regs;
    for (const RegDef& r : standard_regs())
      if (r.name != name) regs.push_back(r);
    return regs;
  };
  auto engine_status = [](const std::vector<uint8_t>& t) {
    dgmm_handle k = load(npu_module(npu_plan(), t));
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

void test_npu_run() {
  const auto table = make_table(kNpuBase, kDesignId, standard_regs());
  const auto module = npu_module(npu_plan(), table);
  MockNpu npu(kNpuBase, kDesignId, standard_regs());
  Attached attached(&npu);
  dgmm_handle h = npu_handle(module);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_launch(h) == DGMM_OK);
  const std::vector<std::pair<std::string, uint32_t>> expected = {
      {"A_BASE", uint32_t(kAddrA)}, {"B_BASE", uint32_t(kAddrB)}, {"C_BASE", uint32_t(kAddrC)},
      {"M", 32}, {"N", 48}, {"K", 64}, {"CTRL", 1}};
  CHECK(npu.writes == expected);
  CHECK(npu.running);  // the launch did not wait
  CHECK(npu.status_reads == 1);  // BUSY checked before the start
  const dgmm_fence f = dgmm_sync(h);
  CHECK(dgmm_wait(f) == DGMM_OK);
  CHECK(!npu.running && npu.done);
  CHECK(npu.status_reads == 1 + 4);  // three BUSY polls, then DONE
  CHECK(hp::wait_calls() == 3);     // port_wait_irq between the polls
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

void test_npu_register_map_by_name() {
  // Other offsets, another base, an extra register: the runtime follows the table.
  const std::vector<RegDef> regs = {
      {"K", 0x100, kRW},     {"N", 0x104, kRW},      {"M", 0x108, kRW},      {"C_BASE", 0x10c, kRW},
      {"B_BASE", 0x110, kRW}, {"A_BASE", 0x114, kRW}, {"SCRATCH", 0x118, kRW}, {"CYCLES", 0x200, kR},
      {"ERROR", 0x204, kR},  {"STATUS", 0x208, kR},  {"CTRL", 0x20c, kW},    {"ID", 0xffc, kR}};
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
  const Case cases[] = {{1, "M is not the plan's"},
                        {2, "N is not the plan's"},
                        {3, "K is outside the plan's range"},
                        {4, "an operand base address is not aligned to a bus beat"},
                        {5, "an operand row is not a whole number of bus beats"},
                        {9, "unknown error code"}};
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
  npu.finish_now = true;  // the hardware finishes late
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
  if constexpr (sizeof(uintptr_t) == 8) {
    // An operand the 32-bit bus cannot reach.
    MockNpu npu(kNpuBase, kDesignId, standard_regs());
    Attached attached(&npu);
    dgmm_handle h = npu_handle(module);
    CHECK(h != nullptr);
    if (h == nullptr) return;
    CHECK(dgmm_bind_output(h, "C", uintptr_t(0xFFFFF000u)) == DGMM_OK);
    CHECK(dgmm_launch(h) == DGMM_ERROR_INVALID_ARGUMENT);
    CHECK(contains(dgmm_last_error(), "operand 'C' at 0x00000000:0xfffff000 does not fit"));
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
    if (!same) std::printf("  register %s: not in the table as 0x%03x %s\n", w.name.c_str(), w.offset, rm::access_name(w.access));
    CHECK(same);
  }

  // Run it on the emulated register block of that design (M 37, N 20, K 64; its bus beat is 16
  // bytes, so the mock uses 4-byte beats: 20-byte rows of B are not whole 16-byte beats).
  MockNpu npu(kNpuBase, table.design_id, want);
  npu.want_m = 37, npu.want_n = 20, npu.k_min = npu.k_max = 64, npu.beat = 4;
  Attached attached(&npu);
  dgmm_handle h = npu_handle(bytes);
  CHECK(h != nullptr);
  if (h == nullptr) return;
  CHECK(dgmm_launch(h) == DGMM_OK);
  CHECK(dgmm_wait_timeout(dgmm_sync(h), 1000) == DGMM_OK);
  uint64_t cycles = 0;
  CHECK(dgmm_npu_cycles(h, &cycles) == DGMM_OK && cycles == 1234);
  CHECK(npu.value["M"] == 37 && npu.value["N"] == 20 && npu.value["K"] == 64);
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
  test_npu_engine_choice();
  test_npu_run();
  test_npu_register_map_by_name();
  test_npu_errors();
  test_npu_timeout();
  test_npu_refused_before_start();
#ifdef DEEPGEMM_TEST_MODULE
  test_compiled_module_regmap();
#endif
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
