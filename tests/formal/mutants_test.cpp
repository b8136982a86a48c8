// The generated NPU design of a small plan: every property proved by k-induction; and each seeded
// bug — an off-by-one in the AGU's row loop, a wrong row stride, a burst allowed across the 4 KB
// boundary, a burst length one beat off — makes a proof fail.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "dgml/parser.h"
#include "hdlgen/formal.h"
#include "hdlgen/generate.h"
#include "sema/check.h"
#include "solve/solve.h"

namespace {

using namespace dg;

struct Fixture {
  GemmProblem problem;
  Plan plan;
};

const Fixture& tiny() {
  static Fixture f = [] {
    std::ifstream in(std::string(DEEPGEMM_SOURCE_DIR) + "/tests/rtl/tiny_npu.dgml");
    std::stringstream ss;
    ss << in.rdbuf();
    DiagEngine d;
    auto spec = dgml::parse("tiny_npu.dgml", ss.str(), d);
    auto p = sema::check(spec, std::string(DEEPGEMM_SOURCE_DIR) + "/hw-models", d);
    REQUIRE(p);
    Fixture fx{*p, {}};
    auto r = solve::solve(fx.problem);
    REQUIRE(r.plan);
    fx.plan = *r.plan;
    return fx;
  }();
  return f;
}

/// The design with `from` replaced by `to` in file `file` (the replacement must apply).
hdlgen::Design mutate(const std::string& file, const std::string& from, const std::string& to) {
  const Fixture& f = tiny();
  hdlgen::Design d = hdlgen::generate(f.plan, f.problem.hw, "tiny");
  bool done = false;
  for (auto& v : d.files)
    if (v.name == file) {
      auto at = v.text.find(from);
      REQUIRE(at != std::string::npos);
      v.text.replace(at, from.size(), to);
      done = true;
    }
  REQUIRE(done);
  return d;
}

/// Prove only `module` of `d`.
hdlgen::ModuleProof prove_one(hdlgen::Design d, const std::string& module) {
  d.formal_tops = {module};
  hdlgen::FormalReport r = hdlgen::prove(d);
  REQUIRE(r.error.empty());
  REQUIRE(r.modules.size() == 1);
  return r.modules[0];
}

bool some_fails_after_reset(const hdlgen::ModuleProof& m) {
  for (const auto& p : m.result.properties)
    if (!p.proved && p.detail.find("steps after reset") != std::string::npos &&
        p.detail.find("fails") != std::string::npos)
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
  CHECK(r.modules.size() == 5);  // three AGUs, the burst splitter, the scratchpad write arbiter
  CHECK(r.all_proved());
  for (const auto& m : r.modules)
    for (const auto& p : m.result.properties) CHECK(p.detail.find("k-induction") == 0);
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
  // Rows twice as far apart as the matrix's leading dimension.
  // (Row 0 of the first tile is right whatever the stride, so the induction step refutes it.)
  auto m = prove_one(mutate("npu_gemm_tiny_agu_b.v", "assign ld_bytes = 32'd48;", "assign ld_bytes = 32'd96;"),
                     "npu_gemm_tiny_agu_b");
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
  auto m = prove_one(mutate("dg_burst_split.v", "assign burst_len_o   = take[8:0];",
                            "assign burst_len_o   = take[8:0] + 9'd1;"),
                     "dg_burst_split");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
  CHECK(some_fails_after_reset(m));
}

TEST_CASE("formal: a scratchpad write arbiter that lets A and B into one bank is caught") {
  // B granted whatever A does: both write one bank in the same cycle.
  auto m = prove_one(mutate("dg_spad_arbiter.v", "assign b_grant_o = !(a_req_i && a_bank_i == b_bank_i);",
                            "assign b_grant_o = 1'b1;"),
                     "dg_spad_arbiter");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}

TEST_CASE("formal: an AGU that skips the last column tile is caught by the exactly-once count") {
  // The loop over N ends one tile early: every request still lies inside C and on its index map,
  // but the tile row of the last block_n is never written.
  auto m = prove_one(mutate("npu_gemm_tiny_agu_c.v", "assign last_n = n0_q + 8'(TileN) >= n_q;",
                            "assign last_n = n0_q + 8'(2 * TileN) >= n_q;"),
                     "npu_gemm_tiny_agu_c");
  INFO(hdlgen::report_text({{m}, ""}));
  CHECK(!m.result.all_proved());
}
