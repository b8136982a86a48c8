// The generated NPU design of small plans (a fixed K, and K chosen at run time): every property
// proved by k-induction; and each seeded bug — an off-by-one in the AGU's row loop, a wrong row
// stride, a burst allowed across the 4 KB boundary, a burst length one beat off, bursts cut
// shorter than they may be, a loop that ends a tile early, an AXI4 master that drops ARVALID or
// AWVALID before its READY, issues more reads than it declares, or a read burst across 4 KB —
// makes a proof fail, and the AXI4 protocol checker names the rule broken.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "dgml/parser.h"
#include "hdlgen/formal.h"
#include "hdlgen/generate.h"
#include "rtl_mutate.h"
#include "sema/check.h"
#include "solve/solve.h"

namespace {

using namespace dg;

struct Fixture {
  GemmProblem problem;
  Plan plan;
};

/// The plan of `spec_path` on the project's hardware models (`models`: a folder of them instead).
Fixture load(const std::string& spec_path,
             const std::string& models = std::string(DEEPGEMM_SOURCE_DIR) + "/hw-models") {
  std::ifstream in(std::string(DEEPGEMM_SOURCE_DIR) + "/" + spec_path);
  std::stringstream ss;
  ss << in.rdbuf();
  DiagEngine d;
  auto spec = dgml::parse(spec_path, ss.str(), d);
  auto p = sema::check(spec, models, d);
  REQUIRE(p);
  Fixture fx{*p, {}};
  auto r = solve::solve(fx.problem);
  REQUIRE(r.plan);
  fx.plan = *r.plan;
  return fx;
}

const Fixture& tiny() {
  static Fixture f = load("tests/rtl/tiny_npu.dgml");
  return f;
}

/// K chosen at run time (32 .. 256, one or two K tiles), partial M and N tiles.
const Fixture& krange() {
  static Fixture f = load("tests/formal/krange_partial.dgml");
  return f;
}

/// The plan of a spec whose target is a test model of tests/cosim/models: the project's models and
/// that one, copied into a folder of the build.
Fixture load_test_model(const std::string& spec_path, const std::string& model) {
  namespace fs = std::filesystem;
  const fs::path src(DEEPGEMM_SOURCE_DIR), dir = fs::current_path() / ("models_" + model);
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(src / "hw-models"))
    if (e.path().extension() == ".json")
      fs::copy_file(e.path(), dir / e.path().filename(), fs::copy_options::overwrite_existing);
  fs::copy_file(src / "tests/cosim/models" / (model + ".json"), dir / (model + ".json"),
                fs::copy_options::overwrite_existing);
  return load(spec_path, dir.string());
}

/// A 6×12 array (sides that are not powers of two): 12×24×32 tiles, partial in M, N and K.
const Fixture& shape6x12() {
  static Fixture f = load_test_model("tests/cosim/npu_6x12.dgml", "npu6x12");
  return f;
}

/// A fixture's plan on its model with `bits`-bit bus addresses (the plan does not depend on them).
Fixture with_addr_bits(Fixture f, int bits) {
  f.problem.hw.npu.bus_addr_bits = bits;
  return f;
}

/// The tiny plan on a bus with 64-bit addresses, the run-time-K one with 40-bit addresses.
const Fixture& tiny64() {
  static Fixture f = with_addr_bits(tiny(), 64);
  return f;
}
/// M chosen at run time (1 .. 72, one to three M tiles) with a run-time K, a partial N tile.
const Fixture& mrange() {
  static Fixture f = load("tests/formal/mrange_partial.dgml");
  return f;
}
/// N chosen at run time (1 .. 72, byte rows), fixed M and K.
const Fixture& nrange() {
  static Fixture f = load("tests/formal/nrange_partial.dgml");
  return f;
}
const Fixture& krange40() {
  static Fixture f = with_addr_bits(krange(), 40);
  return f;
}

// Mutants are placed by structure, not by the exact text of the design (tests/support/
// rtl_mutate.h): a continuous assignment by the signal it drives, anything else by its tokens,
// white space aside; each must match exactly one place.

/// The text of file `file` of `d`.
std::string& file_text(hdlgen::Design& d, const std::string& file) {
  auto it = std::find_if(d.files.begin(), d.files.end(), [&](const auto& v) { return v.name == file; });
  REQUIRE_MESSAGE(it != d.files.end(), "the design has no file " << file);
  return it->text;
}

/// `d` with the one statement or expression `from` (white space aside) in file `file` replaced by `to`.
void replace_code(hdlgen::Design& d, const std::string& file, const std::string& from, const std::string& to) {
  const std::string why = testing::replace_code(file_text(d, file), from, to);
  INFO(file << ": " << why);
  REQUIRE(why.empty());
}

/// `d` with the continuous assignment to `lhs` in file `file` given the right-hand side `rhs(old)`.
void reassign(hdlgen::Design& d, const std::string& file, const std::string& lhs,
              const std::function<std::string(const std::string&)>& rhs) {
  const std::string why = testing::reassign(file_text(d, file), lhs, rhs);
  INFO(file << ": " << why);
  REQUIRE(why.empty());
}

hdlgen::Design design(const Fixture& f = tiny(), const std::string& name = "tiny") {
  return hdlgen::generate(f.plan, f.problem.hw, name);
}

/// The design with the code `from` in file `file` replaced by `to`.
hdlgen::Design mutate(const std::string& file, const std::string& from, const std::string& to,
                      const Fixture& f = tiny(), const std::string& name = "tiny") {
  hdlgen::Design d = design(f, name);
  replace_code(d, file, from, to);
  return d;
}

/// The design with the continuous assignment to `lhs` in file `file` given the right-hand side
/// `rhs(old right-hand side)`.
hdlgen::Design mutate_assign(const std::string& file, const std::string& lhs,
                             const std::function<std::string(const std::string&)>& rhs, const Fixture& f = tiny(),
                             const std::string& name = "tiny") {
  hdlgen::Design d = design(f, name);
  reassign(d, file, lhs, rhs);
  return d;
}

/// A new right-hand side whatever the old one was.
std::function<std::string(const std::string&)> to(const std::string& rhs) {
  return [rhs](const std::string&) { return rhs; };
}

/// Prove only `module` of `d`.
hdlgen::ModuleProof prove_one(hdlgen::Design d, const std::string& module) {
  d.formal_tops = {module};
  // A mutant must be caught by a counterexample, not by a proof that ran out of time: five times
  // the compiler's budget, for a 2-core machine running other tests beside this one.
  hdlgen::FormalReport r = hdlgen::prove(d, 2, 5 * formal::kWorkPerModule);
  REQUIRE(r.error.empty());
  REQUIRE(r.modules.size() == 1);
  return r.modules[0];
}

/// The source lines of the assertions that fail on their own: not those unproved only because
/// another fails or is not inductive.
std::vector<std::string> failing_lines(const hdlgen::ModuleProof& m, const hdlgen::Design& d) {
  std::vector<std::string> out;
  for (const auto& p : m.result.properties) {
    if (p.proved || p.detail.find("another assertion") != std::string::npos ||
        p.detail.find("an unproved assertion") != std::string::npos)
      continue;
    // Yosys's location, file.v:LINE.COL-LINE.COL, ends on the assertion's line (in a flattened
    // hierarchy, the last of the places it lists, "top.v:...|checker.v:...", is the assertion's).
    const std::string loc = p.location.substr(p.location.rfind('|') + 1);
    auto colon = loc.find(':'), dash = loc.find('-');
    if (colon == std::string::npos || dash == std::string::npos) continue;
    const std::string file = loc.substr(0, colon);
    const int line = std::atoi(loc.c_str() + dash + 1);
    for (const auto& v : d.files)
      if (v.name == file) {
        std::istringstream in(v.text);
        std::string text;
        for (int i = 0; i < line && std::getline(in, text); ++i) {
        }
        out.push_back(text);
      }
  }
  return out;
}

/// `m` is not proved, and every assertion that fails by itself contains `statement`.
void check_fails_only_on(const hdlgen::ModuleProof& m, const hdlgen::Design& d, const std::string& statement) {
  CHECK(!m.result.all_proved());
  auto lines = failing_lines(m, d);
  REQUIRE(!lines.empty());
  for (const auto& l : lines) CHECK_MESSAGE(l.find(statement) != std::string::npos, l);
}

bool some_fails_after_reset(const hdlgen::ModuleProof& m) {
  for (const auto& p : m.result.properties)
    if (!p.proved && p.detail.rfind("fails ", 0) == 0 &&
        (p.detail.find("after reset") != std::string::npos || p.detail.find("at reset") != std::string::npos))
      return true;
  return false;
}

}  // namespace

TEST_CASE("formal: every property of the generated design is proved by k-induction") {
  const Fixture& f = tiny();
  hdlgen::Design d = hdlgen::generate(f.plan, f.problem.hw, "tiny");
  hdlgen::FormalReport r = hdlgen::prove(d);
  INFO(hdlgen::report_text(r));
  REQUIRE(r.error.empty());
  // Three AGUs, the read master and the write master's address side against the AXI4 protocol
  // checker, the burst splitter, the scratchpad fill's bank mapping, the scratchpad write arbiter,
  // the compute engine in its environment.
  CHECK(r.modules.size() == 9);
  CHECK(r.all_proved());
  for (const auto& m : r.modules)
    for (const auto& p : m.result.properties) CHECK(p.detail.find("k-induction") == 0);
  // The report names each property by file, line and its assert statement.
  const std::string text = hdlgen::report_text(r);
  CHECK(text.find("  proved    npu_gemm_tiny_agu_c.v:") != std::string::npos);
  CHECK(text.find("assert (f_count == 32'd40);") != std::string::npos);
}

TEST_CASE("formal: an off-by-one in the AGU's row loop is caught") {
  // The last row of a tile becomes TileRows instead of TileRows - 1: one row too many.
  // The bad state is 17 rows after reset, beyond the base case, so the induction step refutes it.
  auto m = prove_one(mutate("npu_gemm_tiny_agu_a.v", "r_q == 8'(TileRows - 1)", "r_q == 8'(TileRows)"),
                     "npu_gemm_tiny_agu_a");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

TEST_CASE("formal: a wrong row stride is caught") {
  // Rows twice as far apart as the matrix's packed leading dimension, whatever LDB says.
  // (Row 0 of the first tile is right whatever the stride, so the induction step refutes it.)
  auto m = prove_one(mutate_assign("npu_gemm_tiny_agu_b.v", "ld_bytes", to("32'd96")), "npu_gemm_tiny_agu_b");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

TEST_CASE("formal: an AGU that ignores the run-time leading dimension is caught") {
  // C's rows at the packed stride (N int32, 192 bytes) whatever LDC says: right only for the reset
  // value, and the proof covers every stride the START check admits.
  auto m = prove_one(mutate_assign("npu_gemm_tiny_agu_c.v", "ld_bytes", to("32'd192")), "npu_gemm_tiny_agu_c");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
  // Rows a byte apart more than LDC: off the bus beat, and into the next row's bytes.
  auto o = prove_one(mutate_assign("npu_gemm_tiny_agu_c.v", "ld_bytes", to("ld_q + 32'd1")), "npu_gemm_tiny_agu_c");
  INFO(hdlgen::report_text({{o}, ""}));
  CHECK(!o.result.all_proved());
}

/// A fixture's plan on its model without the leading-dimension registers (packed rows only).
Fixture packed(Fixture f) {
  f.problem.hw.npu.ld_registers = false;
  return f;
}

TEST_CASE("formal: with packed rows (no leading-dimension registers) every property is proved") {
  // At a fixed K the row strides are the plan's constants; at a run-time K, A's is the latched K.
  for (const Fixture* f : {&tiny(), &krange()}) {
    const Fixture p = packed(*f);
    hdlgen::Design d = hdlgen::generate(p.plan, p.problem.hw, p.plan.k_dynamic ? "pkr" : "pk");
    for (const auto& v : d.files) {
      CHECK(v.text.find("ld_i") == std::string::npos);
      CHECK(v.text.find("lda_q") == std::string::npos);
    }
    hdlgen::FormalReport r = hdlgen::prove(d);
    INFO(hdlgen::report_text(r));
    REQUIRE(r.error.empty());
    CHECK(r.all_proved());
  }
}

TEST_CASE("formal: with packed rows, a wrong row stride is caught") {
  // B's packed rows are N = 48 bytes apart: 96 reads every other row.
  const Fixture p = packed(tiny());
  hdlgen::Design d = design(p, "pk");
  REQUIRE(file_text(d, "npu_gemm_pk_agu_b.v").find("assign ld_bytes = 32'd48;") != std::string::npos);
  auto m = prove_one(mutate_assign("npu_gemm_pk_agu_b.v", "ld_bytes", to("32'd96"), p, "pk"), "npu_gemm_pk_agu_b");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

TEST_CASE("formal: a burst across the 4 KB boundary is caught") {
  auto m = prove_one(mutate("dg_burst_split.v", "if (take > (LenW+1)'(to_edge)) take = (LenW+1)'(to_edge);", ""),
                     "dg_burst_split");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
  CHECK(some_fails_after_reset(m));
}

TEST_CASE("formal: a burst one beat longer than issued is caught") {
  // (Dropping the MaxBurst clamp is no bug on this bus: 256 beats of 16 bytes are one 4 KB window,
  // so the boundary clamp already bounds every burst; the proof says so, too.)
  auto m = prove_one(
      mutate_assign("dg_burst_split.v", "burst_len_o", [](const std::string& rhs) { return rhs + " + 9'd1"; }),
      "dg_burst_split");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
  CHECK(some_fails_after_reset(m));
}

TEST_CASE("formal: a burst splitter that cuts bursts at half the maximum is caught by its bound") {
  // Every burst is still aligned, within the maximum and the window, and the bursts still cover
  // the request; only their number exceeds the bound.
  hdlgen::Design d = mutate("dg_burst_split.v", "if (take > (LenW+1)'(MaxBurst)) take = (LenW+1)'(MaxBurst);",
                            "if (take > (LenW+1)'(MaxBurst / 2)) take = (LenW+1)'(MaxBurst / 2);");
  auto m = prove_one(d, "dg_burst_split");
  INFO(hdlgen::report_text({{m}, ""}));
  check_fails_only_on(m, d, "assert (f_budget_q == f_bursts(");
}

/// The XOR-swizzled bank mapping (npu16 with spad_bank_map "xor").
const Fixture& xor_banks() {
  static Fixture f = load_test_model("tests/cosim/npu_xor.dgml", "npu16_xor");
  return f;
}

TEST_CASE("formal: the scratchpad fill writes each row to the model's bank, modulo and XOR-swizzled") {
  for (const auto& [name, f] :
       std::vector<std::pair<const char*, const Fixture*>>{{"tiny", &tiny()}, {"xor", &xor_banks()}}) {
    INFO(name);
    auto m = prove_one(design(*f, name), "dg_spad_fill");
    INFO(hdlgen::report_text({{m}, ""}));
    CHECK(m.result.all_proved());
    CHECK(!m.result.properties.empty());
  }
}

TEST_CASE("formal: with the XOR bank mapping, a fill that places rows by the modulo mapping is caught") {
  // (cosim.mutant_xor_fill catches it as wrong data; the fill's own property names the rule.)
  auto m =
      prove_one(mutate("dg_spad_fill.v", ".q_i (LgBanks'(head_row >> LgBanks)),", ".q_i ('0),", xor_banks(), "xor"),
                "dg_spad_fill");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

TEST_CASE("formal: a bank mapping other than the model's is caught") {
  // Still its own inverse, so the engines' reads would agree with the fill: only the model's
  // definition tells it apart.
  auto m = prove_one(mutate("dg_bank_map.v", "assign bank_o = j_i ^ q_i;", "assign bank_o = j_i ^ q_i ^ LgBanks'(1);",
                            xor_banks(), "xor"),
                     "dg_spad_fill");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

TEST_CASE("formal: a scratchpad write arbiter that lets A and B into one bank is caught") {
  // Both granted whatever the other does: both write one bank in the same cycle.
  hdlgen::Design d = design();
  reassign(d, "dg_spad_arbiter.v", "a_grant_o", to("1'b1"));
  reassign(d, "dg_spad_arbiter.v", "b_grant_o", to("1'b1"));
  auto m = prove_one(d, "dg_spad_arbiter");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

TEST_CASE("formal: an AGU that skips the last column tile is caught by the exactly-once count") {
  // The loop over N ends one tile early: every request still lies inside C and on its index map,
  // but the tile row of the last block_n is never written.
  hdlgen::Design d = mutate("npu_gemm_tiny_agu_c.v", "n0_q + 8'(TileN) >= n_q", "n0_q + 8'(2 * TileN) >= n_q");
  auto m = prove_one(d, "npu_gemm_tiny_agu_c");
  INFO(hdlgen::report_text({{m}, ""}));
  check_fails_only_on(m, d, "assert (f_count");
}

TEST_CASE("formal: with K chosen at run time every property is proved, exactly-once included") {
  const Fixture& f = krange();
  REQUIRE(f.plan.k_dynamic);
  hdlgen::Design d = hdlgen::generate(f.plan, f.problem.hw, "kr");
  hdlgen::FormalReport r = hdlgen::prove(d);
  INFO(hdlgen::report_text(r));
  REQUIRE(r.error.empty());
  CHECK(r.all_proved());
  // Each AGU has its exactly-once assertions: blocks and requests within them for A and B, the
  // request count for C.
  for (const auto& v : d.files) {
    if (v.name == "npu_gemm_kr_agu_a.v" || v.name == "npu_gemm_kr_agu_b.v")
      CHECK(v.text.find("assert (f_in == ") != std::string::npos);
    if (v.name == "npu_gemm_kr_agu_c.v") CHECK(v.text.find("assert (f_count == ") != std::string::npos);
  }
}

TEST_CASE("formal: with a run-time K, an AGU that skips the last K tile is caught by the exactly-once count") {
  // The K loop of A ends one tile early where more than one is left: every request still lies
  // inside A and on its index map, but the last K tile of each block is never read.
  hdlgen::Design d =
      mutate("npu_gemm_kr_agu_a.v", "k0_q + 9'(TileK) >= k_q", "k0_q + 9'(2 * TileK) >= k_q", krange(), "kr");
  auto m = prove_one(d, "npu_gemm_kr_agu_a");
  const std::string text = hdlgen::report_text({{m}, ""});
  INFO(text);
  check_fails_only_on(m, d, "assert (f_");
  // The report says which fail by themselves and which are unproved only for their sake.
  CHECK(text.find("NOT PROVED") != std::string::npos);
  CHECK(text.find("FAILED") != std::string::npos);
  CHECK(text.find("unproved") != std::string::npos);
}

TEST_CASE("formal: with a run-time K, a B stream one row short of K is caught by the exactly-once count") {
  // The last K tile of B stops a row early.
  hdlgen::Design d =
      mutate("npu_gemm_kr_agu_b.v", "k0_q + r_q + 9'(1) >= k_q", "k0_q + r_q + 9'(2) >= k_q", krange(), "kr");
  auto m = prove_one(d, "npu_gemm_kr_agu_b");
  INFO(hdlgen::report_text({{m}, ""}));
  check_fails_only_on(m, d, "assert (f_");
}

TEST_CASE("formal: with a run-time M every property is proved, exactly-once included") {
  const Fixture& f = mrange();
  REQUIRE(f.plan.m_dynamic);
  REQUIRE(f.plan.M_min == 1);
  hdlgen::Design d = hdlgen::generate(f.plan, f.problem.hw, "mr");
  hdlgen::FormalReport r = hdlgen::prove(d);
  INFO(hdlgen::report_text(r));
  REQUIRE(r.error.empty());
  CHECK(r.all_proved());
  // Every AGU has the nest of counters, and the start check takes the range.
  for (const auto& v : d.files) {
    if (v.name.find("_agu_") != std::string::npos) CHECK(v.text.find("assert (f_mb < f_mbs") != std::string::npos);
    if (v.name == "npu_gemm_mr_core.v") CHECK(v.text.find("m_q < 9'(1) || m_q > 9'(72)") != std::string::npos);
  }
}

TEST_CASE("formal: with a run-time M, an A stream that skips the last M tile is caught by the counters") {
  // The loop over M ends one tile early where more than one is left: every request still lies
  // inside A and on its index map, but the rows of the last block_m are never read.
  hdlgen::Design d = mutate_assign("npu_gemm_mr_agu_a.v", "last_m", to("m0_q + 9'(2 * TileM) >= m_q"), mrange(), "mr");
  auto m = prove_one(d, "npu_gemm_mr_agu_a");
  INFO(hdlgen::report_text({{m}, ""}));
  check_fails_only_on(m, d, "assert (f_");
}

TEST_CASE("formal: with a run-time M, a C stream that stops a row short of M is caught by the counters") {
  // The last M tile of C ends a row early (a row of C is never written).
  hdlgen::Design d = mutate_assign("npu_gemm_mr_agu_c.v", "last_r",
                                   to("r_q == 9'(TileRows - 1) || m0_q + r_q + 9'(2) >= m_q"), mrange(), "mr");
  auto m = prove_one(d, "npu_gemm_mr_agu_c");
  INFO(hdlgen::report_text({{m}, ""}));
  check_fails_only_on(m, d, "assert (f_");
}

TEST_CASE("formal: with a run-time N every property is proved, exactly-once included") {
  const Fixture& f = nrange();
  REQUIRE(f.plan.n_dynamic);
  REQUIRE(f.plan.npu_layout->byte_rows);
  hdlgen::Design d = hdlgen::generate(f.plan, f.problem.hw, "nr");
  hdlgen::FormalReport r = hdlgen::prove(d);
  INFO(hdlgen::report_text(r));
  REQUIRE(r.error.empty());
  CHECK(r.all_proved());
  for (const auto& v : d.files)
    if (v.name.find("_agu_") != std::string::npos) CHECK(v.text.find("assert (f_mb < f_mbs") != std::string::npos);
}

TEST_CASE("formal: with a run-time N, a B stream that skips the last N tile is caught by the counters") {
  hdlgen::Design d = mutate_assign("npu_gemm_nr_agu_b.v", "last_n", to("n0_q + 8'(2 * TileN) >= n_q"), nrange(), "nr");
  auto m = prove_one(d, "npu_gemm_nr_agu_b");
  INFO(hdlgen::report_text({{m}, ""}));
  check_fails_only_on(m, d, "assert (f_");
}

TEST_CASE("formal: a module that instantiates another is proved with the design's other files") {
  // Its own file alone does not hold the arbiter, so the flow reads every file; the hierarchy is
  // flattened, and the arbiter's assertions are checked as the wrapper's own.
  const Fixture& f = tiny();
  hdlgen::Design d = hdlgen::generate(f.plan, f.problem.hw, "tiny");
  d.files.push_back({"f_wrap.v", R"(module f_wrap (
  input  logic       a_req_i,
  input  logic [1:0] a_bank_i,
  input  logic       b_req_i,
  input  logic [1:0] b_bank_i,
  output logic       b_grant_o,
  output logic [3:0] we_o
);
  logic a_grant;
  logic [15:0] waddr;
  logic [31:0] wdata;
  dg_spad_arbiter #(.Banks(4), .LgBanks(2), .WordBits(8), .SpadAW(4)) u_arb (
    .a_req_i(a_req_i), .a_bank_i(a_bank_i), .a_addr_i(4'd1), .a_data_i(8'd2), .a_grant_o(a_grant),
    .b_req_i(b_req_i), .b_bank_i(b_bank_i), .b_addr_i(4'd3), .b_data_i(8'd4), .b_grant_o(b_grant_o),
    .we_o(we_o), .waddr_o(waddr), .wdata_o(wdata));
endmodule
)"});
  auto m = prove_one(d, "f_wrap");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(m.result.error.empty());
  CHECK(m.result.properties.size() >= 4);
  CHECK(m.result.all_proved());
}

/// Some assertion that fails by itself names `rule` (the AXI4 checker's rules are named wires).
void check_breaks_rule(const hdlgen::ModuleProof& m, const hdlgen::Design& d, const std::string& rule) {
  CHECK(!m.result.all_proved());
  bool found = false;
  for (const auto& l : failing_lines(m, d)) found = found || l.find(rule) != std::string::npos;
  CHECK_MESSAGE(found, rule);
}

TEST_CASE("formal: an AXI4 read master that drops ARVALID before ARREADY is caught by the protocol checker") {
  hdlgen::Design d =
      mutate_assign("dg_axi_rd.v", "arvalid_o", [](const std::string& rhs) { return rhs + " && !rvalid_i"; });
  auto m = prove_one(d, "dg_axi_rd_proof");
  INFO(hdlgen::report_text({{m}, ""}));
  check_breaks_rule(m, d, "ERRM_ARVALID_STABLE");
}

TEST_CASE("formal: an AXI4 read master that issues more reads than it declares is caught") {
  // The address goes out whatever the count; the splitter still waits for the room.
  hdlgen::Design d = mutate_assign("dg_axi_rd.v", "arvalid_o", to("ar_valid_i"));
  auto m = prove_one(d, "dg_axi_rd_proof");
  INFO(hdlgen::report_text({{m}, ""}));
  check_breaks_rule(m, d, "ERRM_AR_OUTSTANDING");
}

TEST_CASE("formal: an AXI4 read burst across 4 KB is caught by the protocol checker") {
  hdlgen::Design d = mutate("dg_burst_split.v", "if (take > (LenW+1)'(to_edge)) take = (LenW+1)'(to_edge);", "");
  auto m = prove_one(d, "dg_axi_rd_proof");
  INFO(hdlgen::report_text({{m}, ""}));
  check_breaks_rule(m, d, "ERRM_AR_BOUNDARY");
}

TEST_CASE("formal: an AXI4 write master that drops AWVALID before AWREADY is caught by the protocol checker") {
  hdlgen::Design d =
      mutate_assign("dg_axi_wr.v", "awvalid_o", [](const std::string& rhs) { return rhs + " && !wready_i"; });
  auto m = prove_one(d, "dg_axi_wr_proof");
  INFO(hdlgen::report_text({{m}, ""}));
  check_breaks_rule(m, d, "ERRM_AWVALID_STABLE");
}

TEST_CASE("formal: with 64- and 40-bit bus addresses every property is proved at that width") {
  for (const auto& [f, name, bits] : {std::tuple{&tiny64(), "t64", 64}, std::tuple{&krange40(), "k40", 40}}) {
    CAPTURE(bits);
    hdlgen::Design d = hdlgen::generate(f->plan, f->problem.hw, name);
    CHECK(d.addr_bits == bits);
    hdlgen::FormalReport r = hdlgen::prove(d);
    INFO(hdlgen::report_text(r));
    REQUIRE(r.error.empty());
    CHECK(r.modules.size() == 9);
    CHECK(r.all_proved());
    // The library modules are proved at the design's width, the AGUs' addresses are that wide.
    const std::string text = hdlgen::report_text(r);
    CHECK(text.find(fmt::format("dg_burst_split (AddrW={}, ", bits)) != std::string::npos);
    CHECK(text.find(fmt::format("dg_axi_rd_proof (AddrW={}, ", bits)) != std::string::npos);
    CHECK(text.find(fmt::format("dg_axi_wr_proof (AddrW={}, ", bits)) != std::string::npos);
    for (const auto& v : d.files)
      if (v.name.find("_agu_") != std::string::npos)
        CHECK(v.text.find(fmt::format("output logic [{}:0] req_addr_o", bits - 1)) != std::string::npos);
  }
}

TEST_CASE("formal: with 64-bit bus addresses the protocol mutants still fail") {
  // A read burst across 4 KB, through the splitter and the master, against the checker.
  hdlgen::Design d =
      mutate("dg_burst_split.v", "if (take > (LenW+1)'(to_edge)) take = (LenW+1)'(to_edge);", "", tiny64(), "t64");
  auto m = prove_one(d, "dg_axi_rd_proof");
  INFO(hdlgen::report_text({{m}, ""}));
  check_breaks_rule(m, d, "ERRM_AR_BOUNDARY");
  // A write master that drops AWVALID before AWREADY.
  d = mutate_assign(
      "dg_axi_wr.v", "awvalid_o", [](const std::string& rhs) { return rhs + " && !wready_i"; }, tiny64(), "t64");
  m = prove_one(d, "dg_axi_wr_proof");
  INFO(hdlgen::report_text({{m}, ""}));
  check_breaks_rule(m, d, "ERRM_AWVALID_STABLE");
  // An AGU whose address drops the base's high half.
  d = mutate_assign("npu_gemm_t64_agu_b.v", "req_addr_o", to("{32'd0, base_q[31:0]} + 64'(offset)"), tiny64(), "t64");
  m = prove_one(d, "npu_gemm_t64_agu_b");
  INFO(hdlgen::report_text({{m}, ""}));
  check_fails_only_on(m, d, "assert (req_addr_o ==");
}

TEST_CASE("formal: on a 6x12 array (tiles of 12 and 24) every property is proved, exactly-once included") {
  const Fixture& f = shape6x12();
  REQUIRE(f.plan.tile_m == 12);
  REQUIRE(f.plan.tile_n == 24);
  hdlgen::Design d = hdlgen::generate(f.plan, f.problem.hw, "s6");
  hdlgen::FormalReport r = hdlgen::prove(d);
  INFO(hdlgen::report_text(r));
  REQUIRE(r.error.empty());
  CHECK(r.modules.size() == 9);
  CHECK(r.all_proved());
  // The tile indices are divisions and products by the tiles, not shifts.
  for (const auto& v : d.files)
    if (v.name == "npu_gemm_s6_agu_c.v") {
      CHECK(v.text.find("32'(n0_q) / 32'd24") != std::string::npos);
      CHECK(v.text.find("m0_q % 7'(12) == '0") != std::string::npos);
    }
}

TEST_CASE("formal: on a 6x12 array, an AGU that skips the last column tile is caught by the exactly-once count") {
  hdlgen::Design d =
      mutate("npu_gemm_s6_agu_c.v", "n0_q + 7'(TileN) >= n_q", "n0_q + 7'(2 * TileN) >= n_q", shape6x12(), "s6");
  auto m = prove_one(d, "npu_gemm_s6_agu_c");
  INFO(hdlgen::report_text({{m}, ""}));
  check_fails_only_on(m, d, "assert (f_count");
}

TEST_CASE("formal: on a 6x12 array, an A stream whose M tiles are 8 rows apart instead of 12 is caught") {
  // (As if the tile were the power of two below it: requests stay inside A, on the wrong rows.)
  hdlgen::Design d =
      mutate("npu_gemm_s6_agu_a.v", "m0_q <= m0_q + 7'(TileM);", "m0_q <= m0_q + 7'(8);", shape6x12(), "s6");
  auto m = prove_one(d, "npu_gemm_s6_agu_a");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

/// Byte rows: rows of A, B and C that are not whole bus beats (the realigners dg_rd_align and
/// dg_wr_align, AGUs that request bytes).
const Fixture& byte_rows() {
  static Fixture f = load("tests/cosim/npu_byte_rows.dgml");
  return f;
}

TEST_CASE("formal: with byte rows every property is proved, the realigners' included") {
  const Fixture& f = byte_rows();
  REQUIRE(f.plan.npu_layout.has_value());
  REQUIRE(f.plan.npu_layout->byte_rows);
  hdlgen::Design d = hdlgen::generate(f.plan, f.problem.hw, "br");
  hdlgen::FormalReport r = hdlgen::prove(d, 2, 5 * formal::kWorkPerModule);
  INFO(hdlgen::report_text(r));
  REQUIRE(r.error.empty());
  std::vector<std::string> names;
  for (const auto& m : r.modules) names.push_back(m.module);
  CHECK(std::find(names.begin(), names.end(), "dg_rd_align") != names.end());
  CHECK(std::find(names.begin(), names.end(), "dg_wr_align") != names.end());
  CHECK(r.all_proved());
}

TEST_CASE("formal: with byte rows, a read realigner that makes a word of an offset row's first beat is caught") {
  hdlgen::Design d = mutate_assign("dg_rd_align.v", "absorb", to("1'b0"), byte_rows(), "br");
  auto m = prove_one(d, "dg_rd_align");
  INFO(hdlgen::report_text({{m}, ""}));
  // (The counts fall out of step: words run ahead of beats.)
  CHECK(!m.result.all_proved());
  for (const auto& l : failing_lines(m, d)) CHECK_MESSAGE(l.find("out_q") != std::string::npos, l);
}

TEST_CASE("formal: with byte rows, C strobes that write the bytes before a row's offset are caught") {
  hdlgen::Design d = mutate_assign("dg_wr_align.v", "from_off", to("{BeatBytes{1'b1}}"), byte_rows(), "br");
  auto m = prove_one(d, "dg_wr_align");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

TEST_CASE("formal: with byte rows, an AGU that requests a row one byte short is caught") {
  hdlgen::Design d = mutate_assign(
      "npu_gemm_br_agu_a.v", "req_bytes_o", [](const std::string& old) { return "(" + old + ") - 8'd1"; }, byte_rows(),
      "br");
  auto m = prove_one(d, "npu_gemm_br_agu_a");
  INFO(hdlgen::report_text({{m}, ""}));
  check_fails_only_on(m, d, "req_bytes_o) << 3");
}

/// A 64-bit bus under 128-bit scratchpad words: byte rows regrouped by dg_rd_gear.
const Fixture& bus64() {
  static Fixture f = load_test_model("tests/cosim/npu_bus64.dgml", "npu16_bus64");
  return f;
}

TEST_CASE("formal: byte rows on a bus narrower than the scratchpad word: every property is proved") {
  hdlgen::Design d = hdlgen::generate(bus64().plan, bus64().problem.hw, "b64");
  hdlgen::FormalReport r = hdlgen::prove(d, 2, 5 * formal::kWorkPerModule);
  INFO(hdlgen::report_text(r));
  REQUIRE(r.error.empty());
  std::vector<std::string> names;
  for (const auto& m : r.modules) names.push_back(m.module);
  CHECK(std::find(names.begin(), names.end(), "dg_rd_gear") != names.end());
  CHECK(std::find(names.begin(), names.end(), "dg_rd_align") == names.end());
  CHECK(r.all_proved());
}

TEST_CASE("formal: byte rows, a regrouping buffer that takes a beat it has no room for is caught") {
  hdlgen::Design d = mutate_assign("dg_rd_gear.v", "in_ready_o", to("!empty && need_in"), bus64(), "b64");
  auto m = prove_one(d, "dg_rd_gear");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

// The whole C master, the write data channel included (dg_axi_wdata_proof: the burst splitter,
// dg_cout's framing and the AXI4 write master against the protocol checker), at the design's
// queue depths. A proof of minutes, so the formal tests run it rather than every compile.

TEST_CASE("formal: the C master's write data channel is proved against the AXI4 checker") {
  hdlgen::Design d = design();
  auto m = prove_one(d, "dg_axi_wdata_proof");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(m.result.all_proved());
  // At the design's own depths: 32 writes outstanding, 8 bursts ahead of their data.
  CHECK(m.params.find("LgOut=5, LgLens=3, LgQueue=4") != std::string::npos);
}

TEST_CASE("formal: the C master's write data channel is proved with strobes, on rows that are not whole beats") {
  hdlgen::Design d = design(byte_rows(), "br");
  auto m = prove_one(d, "dg_axi_wdata_proof");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(m.params.find("Align=1") != std::string::npos);
  CHECK(m.result.all_proved());
}

/// `d` with the whole C master's proof at shallow queues (2 bursts ahead of their data, 4 writes
/// outstanding, 2 row requests): the framing logic a mutant breaks is the same at any depth, and
/// the counterexample comes in seconds instead of minutes.
hdlgen::Design shallow_wdata(hdlgen::Design d) {
  for (auto& [name, value] : d.formal_params["dg_axi_wdata_proof"]) {
    if (name == "LgOut") value = 2;
    if (name == "LgLens" || name == "LgQueue") value = 1;
  }
  return d;
}

TEST_CASE("formal: a C stream whose WLAST comes a beat early is caught by the protocol checker") {
  hdlgen::Design d = shallow_wdata(mutate_assign("dg_cout.v", "w_last_o", to("wbeat_q == len_head - 9'd2")));
  auto m = prove_one(d, "dg_axi_wdata_proof");
  INFO(hdlgen::report_text({{m}, ""}));
  check_breaks_rule(m, d, "ERRM_WLAST");
}

TEST_CASE("formal: a C stream that drops WVALID while its beat waits is caught by the protocol checker") {
  // The cosim mutant's bug: the beat is withdrawn while the next one is read from the buffer.
  hdlgen::Design d =
      shallow_wdata(mutate_assign("dg_cout.v", "w_valid_o", [](const std::string& rhs) { return rhs + " && !rd_q"; }));
  auto m = prove_one(d, "dg_axi_wdata_proof");
  INFO(hdlgen::report_text({{m}, ""}));
  check_breaks_rule(m, d, "ERRM_WVALID_STABLE");
}

/// A column-major B (N×K in memory): B's AGU walks tile_n rows of tile_k elements.
const Fixture& b_col_major() {
  static Fixture f = load("tests/cosim/npu4_bcol.dgml");
  return f;
}

TEST_CASE("formal: with a column-major B every property of its AGU is proved") {
  const Fixture& f = b_col_major();
  REQUIRE(!f.plan.index.b_row_major);
  hdlgen::Design d = hdlgen::generate(f.plan, f.problem.hw, "bc");
  auto m = prove_one(d, "npu_gemm_bc_agu_b");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(m.result.all_proved());
}

TEST_CASE("formal: a column-major B's AGU that strides by a row-major B's row (N bytes, not K) is caught") {
  // (K = 48 and N = 20 int8: the packed row of a column-major B is 48 bytes.)
  hdlgen::Design d = mutate_assign("npu_gemm_bc_agu_b.v", "ld_bytes", to("32'd20"), b_col_major(), "bc");
  auto m = prove_one(d, "npu_gemm_bc_agu_b");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

TEST_CASE("formal: a column-major B's AGU that ends its tiles after 4 of their rows is caught") {
  // (Its tiles are 8 rows of B along N: rows 4 to 7 of each would never be requested.)
  hdlgen::Design d = mutate_assign(
      "npu_gemm_bc_agu_b.v", "last_r", [](const std::string& old) { return "(" + old + ") || r_q == 8'd3"; },
      b_col_major(), "bc");
  auto m = prove_one(d, "npu_gemm_bc_agu_b");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

// The compute engines in their environment (dg_engine_proof, dg_engine_ws_proof): loop counters,
// scratchpad reads, buffer hand-overs and the accumulator rows, at the parameters each design
// instantiates the engine with, proved at every compile; each seeded bug below makes the proof
// fail.

/// The engine's proof of `f`'s design, whose plan must have the dataflow `dataflow`.
hdlgen::ModuleProof engine_proof(const Fixture& f, const std::string& name,
                                 const std::string& dataflow = "output_stationary") {
  REQUIRE(f.plan.dataflow == dataflow);
  const std::string top = dataflow == "output_stationary" ? "dg_engine_proof" : "dg_engine_ws_proof";
  hdlgen::Design d = hdlgen::generate(f.plan, f.problem.hw, name);
  REQUIRE(std::find(d.formal_tops.begin(), d.formal_tops.end(), top) != d.formal_tops.end());
  return prove_one(d, top);
}

TEST_CASE("formal: the output-stationary engine's properties are proved in its environment") {
  // npu16 (shadow registers, 16 rows on 16 banks), npu4 without shadow registers with a
  // column-major B and a column-major A (run-time M and K), a 6x12 array (rows that do not divide
  // the banks), the XOR-swizzled bank mapping.
  const std::vector<std::tuple<const char*, Fixture>> cases = {
      {"tiny", tiny()},
      {"bc", b_col_major()},
      {"ac", load("tests/cosim/npu4_acol.dgml")},
      {"s6x12", shape6x12()},
      {"xor", load_test_model("tests/cosim/npu_xor.dgml", "npu16_xor")}};
  for (const auto& [name, f] : cases) {
    INFO(name);
    auto m = engine_proof(f, name);
    INFO(hdlgen::report_text({{m}, ""}));
    CHECK(m.result.all_proved());
    CHECK(m.result.properties.size() >= 20);
  }
}

/// The tiny design with the engine mutated (`lhs`'s assignment, or the code `from` replaced).
hdlgen::ModuleProof engine_mutant(const std::string& lhs, const std::function<std::string(const std::string&)>& rhs) {
  return prove_one(mutate_assign("dg_engine.v", lhs, rhs), "dg_engine_proof");
}
hdlgen::ModuleProof engine_mutant_code(const std::string& from, const std::string& to_code) {
  return prove_one(mutate("dg_engine.v", from, to_code), "dg_engine_proof");
}

TEST_CASE("formal: an engine that reads a group without waiting for B's buffer is caught") {
  auto m = engine_mutant("rd_go", to("p_busy_q && (ph_q != '0 || (!pf_valid_q && !(cap_q && cap_last_q) && "
                                     "a_full_i[sb_q]))"));
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
  CHECK(some_fails_after_reset(m));
}

TEST_CASE("formal: an engine that releases a step's buffer before its last sub-block is read is caught") {
  // (tiny: two sub-blocks along N; the buffer is given back after the first.)
  auto m = engine_mutant_code("cap_release_q <= rd_last && last_g && last_nj && last_mi;",
                              "cap_release_q <= rd_last && last_g && last_mi;");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

TEST_CASE("formal: an engine whose B reads are one word off is caught by the buffer bounds") {
  auto m = engine_mutant("word_b", [](const std::string& old) { return "(" + old + ") + SpadAW'(1)"; });
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

TEST_CASE("formal: an engine that drains into an accumulator buffer the C stream holds is caught") {
  auto m = engine_mutant_code("2'd0: if (!acc_full_i[d_meta_q.cb]) begin", "2'd0: if (1'b1) begin");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

TEST_CASE("formal: an engine whose K loop runs one tile past K is caught") {
  auto m = engine_mutant("last_k", to("k0_q + DW'(TileK) > k_q"));
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

TEST_CASE("formal: the weight-stationary engine's properties are proved in its environment") {
  // npu16 with a run-time K and partial tiles, npu16_ws, a 4x12 array, the XOR-swizzled bank
  // mapping, rows that are not whole beats.
  const std::vector<std::tuple<const char*, Fixture>> cases = {
      {"kr", krange()},
      {"ws", load_test_model("tests/cosim/npu_ws.dgml", "npu16_ws")},
      {"ws4x12", load_test_model("tests/cosim/npu_ws_4x12.dgml", "npu4x12")},
      {"wsxor", load_test_model("tests/cosim/npu_ws_xor.dgml", "npu16_xor")},
      {"wsbr", load_test_model("tests/cosim/npu_ws_byte_rows.dgml", "npu16_ws")}};
  for (const auto& [name, f] : cases) {
    INFO(name);
    auto m = engine_proof(f, name, "weight_stationary");
    INFO(hdlgen::report_text({{m}, ""}));
    CHECK(m.result.all_proved());
    CHECK(m.result.properties.size() >= 30);
  }
}

/// The run-time-K design (weight stationary) with its engine mutated.
hdlgen::ModuleProof ws_mutant(const std::string& lhs, const std::function<std::string(const std::string&)>& rhs) {
  REQUIRE(krange().plan.dataflow == "weight_stationary");
  return prove_one(mutate_assign("dg_engine_ws.v", lhs, rhs, krange(), "kr"), "dg_engine_ws_proof");
}

TEST_CASE("formal: a weight-stationary engine that streams into an accumulator buffer the C stream holds is caught") {
  auto m = ws_mutant("s_load", to("pf_valid_q && pf_meta_q.is_a && (!s_valid_q || s_last) && "
                                  "(!pf_meta_q.first_q || sh_valid_q)"));
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

TEST_CASE("formal: a weight-stationary engine whose A reads are one word off is caught by the buffer bounds") {
  auto m = ws_mutant("word_a", [](const std::string& old) { return "(" + old + ") + SpadAW'(1)"; });
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

TEST_CASE("formal: a weight-stationary engine that starts a block's weights without waiting for A's buffer is caught") {
  auto m = ws_mutant("rd_go", to("p_busy_q && ((!in_a_q && ph_q != '0) || (!pf_valid_q && !(cap_q && cap_last_q) && "
                                 "b_full_i[sb_q]))"));
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}
