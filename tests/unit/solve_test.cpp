// The solver against independent plain C++: every rule re-checked without Z3, and on small spaces
// the optimum compared with a brute-force enumeration of every point.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "dgml/parser.h"
#include "sema/check.h"
#include "solve/solve.h"
#include "support/error.h"

using namespace dg;
using dg::solve::Options;
using dg::solve::Point;
using dg::solve::Result;
using dg::solve::Space;
using namespace dg::solve;

namespace {

GemmProblem problem(const std::string& text) {
  DiagEngine d;
  auto spec = dgml::parse("t.dgml", text, d);
  auto p = sema::check(spec, std::string(DEEPGEMM_SOURCE_DIR) + "/hw-models", d);
  if (!p) {
    std::ostringstream os;
    d.print(os);
    FAIL("spec rejected: " << os.str());
  }
  return *p;
}

std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// A free constraint evaluated directly on the AST at a point.
std::int64_t eval_expr(const Space& s, const Point& x, const ast::Expr& e) {
  const GemmProblem& p = *s.problem;
  using K = ast::Expr::Kind;
  switch (e.kind) {
    case K::Int: return e.int_value;
    case K::Bool: return e.bool_value;
    case K::Decimal: FAIL("decimal in a free constraint"); return 0;
    case K::Var: {
      if (e.text == "M") return p.M.value;
      if (e.text == "N") return p.N.value;
      if (e.text == "K") return p.K.value;
      if (e.text == "batch") return p.batch.value;
      if (e.text == "warps") return s.gpu ? at(s, x, "warp_m") * at(s, x, "warp_n") : 1;
      if (e.text == "smem_bytes")
        return s.gpu ? smem_bytes(s, at(s, x, "tile_m"), at(s, x, "tile_n"), at(s, x, "tile_k"), at(s, x, "stages"),
                                  at(s, x, "smem"))
                     : npu_spad_bytes(s, at(s, x, "tile_m"), at(s, x, "tile_n"), at(s, x, "tile_k"));
      return s.index_of(e.text) >= 0 ? at(s, x, e.text) : 1;
    }
    case K::Unary: return e.text == "!" ? !eval_expr(s, x, *e.lhs) : -eval_expr(s, x, *e.lhs);
    case K::Binary: {
      std::int64_t l = eval_expr(s, x, *e.lhs), r = eval_expr(s, x, *e.rhs);
      const std::string& op = e.text;
      if (op == "+") return l + r;
      if (op == "-") return l - r;
      if (op == "*") return l * r;
      if (op == "/") return l / r;
      if (op == "%") return l % r;
      if (op == "<") return l < r;
      if (op == "<=") return l <= r;
      if (op == ">") return l > r;
      if (op == ">=") return l >= r;
      if (op == "==") return l == r;
      if (op == "!=") return l != r;
      if (op == "&&") return l && r;
      if (op == "||") return l || r;
    }
  }
  FAIL("unknown expression");
  return 0;
}

/// The rules, restated without the solver. Returns the names of the violated ones.
std::vector<std::string> violations(const Space& s, const Point& x) {
  const GemmProblem& p = *s.problem;
  std::vector<std::string> bad;
  for (size_t i = 0; i < p.user_constraints.size(); ++i)
    if (!eval_expr(s, x, *p.user_constraints[i].expr)) bad.push_back(fmt::format("spec.constraint_{}", i + 1));
  auto v = [&](const char* n) { return at(s, x, n); };
  if (!s.gpu) {
    const auto& n = p.hw.npu;
    std::int64_t tm = v("tile_m"), tn = v("tile_n"), tk = v("tile_k");
    std::int64_t spad = 2 * ((tm * tk * s.a_bits + tk * tn * s.b_bits + 7) / 8);
    if (spad > std::int64_t(n.spad_banks) * n.spad_rows * n.spad_width_bits / 8) bad.push_back("hw.spad_capacity");
    if (p.sm_mem_limit_kb.user && spad > p.sm_mem_limit_kb.value * 1024) bad.push_back("spec.sm_mem_limit");
    if (tm * tn * s.acc_bits / 8 > std::int64_t(n.acc_rows) * n.acc_width_bits / 8) bad.push_back("hw.acc_capacity");
    std::int64_t beat = n.bus_data_bits / 8;
    if ((tk * s.a_bits / 8) % beat != 0 || (tn * s.b_bits / 8) % beat != 0) bad.push_back("hw.burst_alignment");
    return bad;
  }
  const auto& g = p.hw.gpu;
  std::int64_t tm = v("tile_m"), tn = v("tile_n"), tk = v("tile_k"), wm = v("warp_m"), wn = v("warp_n");
  std::int64_t st = v("stages"), sk = v("split_k"), rg = v("raster_group"), lay = v("smem"), occ = v("blocks_per_sm");
  if (s.family == dg::hw::Family::Wgmma) {  // warpgroups of 4 warps, each a multiple of the m64 instruction
    if (wm % 4 != 0 || tm % (wm / 4 * s.im) != 0) bad.push_back("hw.warp_tile_m");
  } else if ((tm / wm) % s.im != 0 || tm % wm != 0) {
    bad.push_back("hw.warp_tile_m");
  }
  if ((tn / wn) % s.in != 0 || tn % wn != 0) bad.push_back("hw.warp_tile_n");
  std::int64_t thr = 32 * wm * wn;
  if (thr > g.max_threads_per_block) bad.push_back("hw.threads_per_block");
  std::int64_t regs = regs_per_thread(s, tm, tn, tk, wm, wn) + element_load_registers(s, tm, tn, tk, wm, wn, st);
  if (regs > g.max_regs_per_thread) bad.push_back("hw.registers_per_thread");
  std::int64_t smem = smem_bytes(s, tm, tn, tk, st, lay);
  if (smem > g.smem_per_block_bytes) bad.push_back("hw.smem_per_block");
  if (p.sm_mem_limit_kb.user && smem > std::floor(p.sm_mem_limit_kb.value * 1024)) bad.push_back("spec.sm_mem_limit");
  if (occ * smem > g.smem_per_sm_bytes) bad.push_back("hw.occupancy_smem");
  if (occ * regs * thr > g.regs_per_sm) bad.push_back("hw.occupancy_registers");
  if (occ * thr > g.max_threads_per_sm) bad.push_back("hw.occupancy_threads");
  for (bool a : {true, false}) {
    std::int64_t rows, rb;
    smem_tile_shape(s, a, tm, tn, tk, rows, rb);
    // The conflict rate is the model's exact count; memoized here to keep enumeration fast.
    static std::map<std::tuple<const GemmProblem*, std::int64_t, std::int64_t, std::int64_t>, std::int64_t> memo;
    auto key = std::make_tuple(&p, rows, rb, lay);
    auto it = memo.find(key);
    if (it == memo.end()) it = memo.emplace(key, bank_conflict_milli(s, rows, rb, lay)).first;
    if (it->second > 50) bad.push_back(a ? "hw.bank_conflicts_a" : "hw.bank_conflicts_b");
  }
  if ((sk - 1) * cdiv(cdiv(s.K, tk), sk) >= cdiv(s.K, tk)) bad.push_back("hw.split_k");
  const bool tma = s.index_of("loader") >= 0 && v("loader") == kLoaderTma;
  if (sk != 1 && !(s.family == dg::hw::Family::Wgmma && tma)) bad.push_back("family.split_k");
  if (sk != 1 && p.k_dynamic) bad.push_back("family.split_k_fixed_k");
  if (sk != 1 && p.persistent.user && p.persistent.value) bad.push_back("family.split_k_persistent");
  if (p.split_k.user && sk != p.split_k.value) bad.push_back("spec.split_k");
  if (p.l2_hit_rate_min.user && l2_hit_milli(s, tm, tn, rg, occ) < std::ceil(p.l2_hit_rate_min.value * 1000 - 1e-9))
    bad.push_back("spec.l2_hit_rate_min");
  return bad;
}

/// Lexicographic preference among equal-cost points (the documented tie-break).
bool preferred(const Space& s, const Point& a, const Point& b) {
  for (size_t i = 0; i < s.vars.size(); ++i) {
    if (a[i] == b[i]) continue;
    const std::string& n = s.vars[i].name;
    bool large = n == "tile_m" || n == "tile_n" || n == "tile_k" || n == "smem" || n == "blocks_per_sm";
    auto ia = std::find(s.vars[i].values.begin(), s.vars[i].values.end(), a[i]) - s.vars[i].values.begin();
    auto ib = std::find(s.vars[i].values.begin(), s.vars[i].values.end(), b[i]) - s.vars[i].values.begin();
    return large ? ia > ib : ia < ib;
  }
  return false;
}

std::optional<Point> brute_force(const Space& s, std::int64_t& best_cost, std::int64_t& feasible_tiles) {
  std::optional<Point> best;
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> tiles;
  Point x(s.vars.size());
  std::vector<size_t> idx(s.vars.size(), 0);
  for (;;) {
    for (size_t i = 0; i < x.size(); ++i) x[i] = s.vars[i].values[idx[i]];
    if (violations(s, x).empty()) {
      tiles.insert({at(s, x, "tile_m"), at(s, x, "tile_n"), at(s, x, "tile_k")});
      std::int64_t c = cost_terms(s, x).total();
      if (!best || c < best_cost || (c == best_cost && preferred(s, x, *best))) {
        best = x;
        best_cost = c;
      }
    }
    size_t i = 0;
    while (i < idx.size() && ++idx[i] == s.vars[i].values.size()) idx[i++] = 0;
    if (i == idx.size()) break;
  }
  feasible_tiles = static_cast<std::int64_t>(tiles.size());
  return best;
}

std::string random_spec(std::mt19937& rng, bool small) {
  const char* targets[] = {"hopper", "ampere", "volta", "npu16"};
  std::string t = targets[rng() % 4];
  std::string a = "fp16", b = "fp16";
  if (t == "ampere" && rng() % 2) a = b = "int8";
  if (t == "hopper" && rng() % 2) a = b = "bf16";
  if (t == "npu16") a = b = (rng() % 2) ? "int8" : "int4";
  auto dim = [&](int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo)); };
  int M = small ? dim(1, 600) : dim(1, 9000), N = small ? dim(1, 600) : dim(1, 9000);
  int K = (small ? dim(1, 40) : dim(1, 300)) * 32;
  std::string extra;
  if (rng() % 2) extra += fmt::format("sm_mem_limit: {};\n", 32 + rng() % 160);
  if (t != "npu16" && rng() % 3 == 0) extra += fmt::format("l2_hit_rate_min: 0.{};\n", 5 + rng() % 4);
  if (t != "npu16" && rng() % 3 == 0) extra += "stages >= 2;\n";
  // 8-bit integer tensor-core shapes read B K-major only (the models' b_k_major_only).
  const char* layout = t != "npu16" && a == "int8" ? "layout { B: col_major; }\n" : "";
  return fmt::format(
      "target {};\nprecision {{ activation: {}; weight: {}; }}\nshape {{ M: {}; N: {}; K: {}; }}\n"
      "{}constraints {{\n{}}}\n",
      t, a, b, M, N, K, layout, extra);
}

}  // namespace

TEST_CASE("solver: the SPEC example gets a plan that satisfies every rule") {
  auto p = problem(
      "target hopper;\nprecision { weight: fp16; activation: fp16; output: fp16; }\n"
      "shape { M: 4096; N: 4096; K: 4096; }\nconstraints { use_hmma: true; sm_mem_limit: 96; l2_hit_rate_min: 0.85; "
      "}\n");
  Result r = dg::solve::solve(p);
  REQUIRE(r.plan);
  CHECK(violations(r.space, r.point).empty());
  CHECK(r.plan->smem_bytes <= 96 * 1024);
  CHECK(r.plan->l2_hit_rate >= 0.85);
  CHECK(r.plan->tile_k % 16 == 0);
  CHECK(r.feasible_tiles > 0);
  CHECK(r.plan->rules.size() == r.rules.size());
}

TEST_CASE("solver: on small spaces the optimum equals brute-force enumeration") {
  std::mt19937 rng(20261129);
  int compared = 0;
  for (int i = 0; i < 12; ++i) {
    std::string text = random_spec(rng, true);
    CAPTURE(text);
    GemmProblem p = problem(text);
    Options o;
    o.max_values = 3;
    Result r = dg::solve::solve(p, o);
    std::int64_t best_cost = 0, tiles = 0;
    auto best = brute_force(r.space, best_cost, tiles);
    REQUIRE(best.has_value() == r.plan.has_value());
    if (!best) continue;
    CHECK(r.cost == best_cost);
    CHECK(r.point == *best);
    CHECK(r.feasible_tiles == tiles);
    ++compared;
  }
  CHECK(compared >= 6);
}

TEST_CASE("solver: random feasible specs satisfy every rule re-checked in plain C++") {
  std::mt19937 rng(7);
  int feasible = 0;
  for (int i = 0; i < 25; ++i) {
    std::string text = random_spec(rng, false);
    CAPTURE(text);
    GemmProblem p = problem(text);
    Result r = dg::solve::solve(p);
    if (!r.plan) {
      CHECK(!r.conflict.empty());
      continue;
    }
    ++feasible;
    CHECK(violations(r.space, r.point).empty());
    CHECK(r.plan->predicted_us > 0);
  }
  CHECK(feasible >= 15);
}

TEST_CASE("solver: an infeasible spec names the conflicting declarations and the best achievable bound") {
  auto p = problem(
      "target volta;\nprecision { activation: fp16; weight: fp16; }\nshape { M: 8192; N: 8192; K: 8192; }\n"
      "constraints {\n  sm_mem_limit: 8;\n  l2_hit_rate_min: 0.99;\n}\n");
  Result r = dg::solve::solve(p);
  REQUIRE(!r.plan);
  REQUIRE(!r.conflict.empty());
  bool has_l2 = false;
  for (const auto& c : r.conflict) has_l2 |= c.name == "spec.l2_hit_rate_min";
  CHECK(has_l2);
  for (const auto& c : r.conflict)
    if (c.origin == "user") CHECK(c.loc.valid());
  REQUIRE(!r.hints.empty());
  CHECK(r.hints[0].find("highest achievable l2_hit_rate_min") == 0);
}

TEST_CASE("solver: free constraints are honoured") {
  auto p = problem(
      "target ampere;\nprecision { activation: bf16; weight: bf16; }\nshape { M: 4096; N: 4096; K: 4096; }\n"
      "constraints { tile_m * tile_k <= 4096; stages >= 4; tile_n == 64 || tile_n == 32; smem_bytes <= 65536;\n"
      "  warps == 2; blocks_per_sm >= 2; }\n");
  Result r = dg::solve::solve(p);
  REQUIRE(r.plan);
  CHECK(r.plan->tile_m * r.plan->tile_k <= 4096);
  CHECK(r.plan->stages >= 4);
  CHECK((r.plan->tile_n == 64 || r.plan->tile_n == 32));
  CHECK(r.plan->smem_bytes <= 65536);
  CHECK(r.plan->warp_m * r.plan->warp_n == 2);  // the derived variable, not a constant
  CHECK(r.plan->blocks_per_sm >= 2);
}

TEST_CASE("solver: on Hopper each family is solved and the faster prediction wins") {
  const char* big =
      "target hopper;\nprecision { activation: fp16; weight: fp16; }\nshape { M: 4096; N: 4096; K: 4096; }\n";
  const auto p = problem(big);  // the space points at its problem: it must outlive r
  Result r = dg::solve::solve(p);
  REQUIRE(r.plan);
  CHECK(r.plan->family == dg::hw::Family::Wgmma);
  CHECK(violations(r.space, r.point).empty());
  // The winner's prediction is the lower one: each family alone predicts no faster.
  Options only_sync;
  only_sync.family = dg::hw::Family::MmaSync;
  Result sync = dg::solve::solve(problem(big), only_sync);
  REQUIRE(sync.plan);
  CHECK(sync.plan->family == dg::hw::Family::MmaSync);
  CHECK(r.cost <= sync.cost);
  // A wgmma plan: warpgroups of 4 warps, 128-byte rows of the swizzled tiles, three stages or more.
  CHECK(r.plan->warp_m % 4 == 0);
  CHECK(r.plan->warp_n == 1);
  CHECK(r.plan->smem_layout == "swizzle_128b");
  CHECK(r.plan->index.a_smem_row_bytes == 128);
  CHECK(r.plan->index.b_smem_row_bytes == 128);
  CHECK(r.plan->stages >= 3);
  // Decode: a 64-row wgmma tile wastes 63 of 64 rows; the mma.sync family's 16-row tile wins.
  Result decode = dg::solve::solve(
      problem("target hopper;\nprecision { activation: fp16; weight: fp16; }\nshape { M: 1; N: 4096; K: 4096; }\n"));
  REQUIRE(decode.plan);
  CHECK(decode.plan->family == dg::hw::Family::MmaSync);
  // The declared family is the only one solved.
  Result forced = dg::solve::solve(
      problem("target hopper;\nprecision { activation: fp16; weight: fp16; }\nshape { M: 1; N: 4096; K: 4096; }\n"
              "constraints { family: wgmma; }\n"));
  REQUIRE(forced.plan);
  CHECK(forced.plan->family == dg::hw::Family::Wgmma);
  CHECK(forced.plan->tile_m == 64);
}

TEST_CASE("solver: K is split where the tiles leave SMs idle, and not where they fill them") {
  auto solve_for = [](const std::string& shape, const std::string& extra = "") {
    auto p = problem("target hopper;\nprecision { activation: bf16; weight: bf16; output: bf16; }\nshape { " + shape +
                     " }\nconstraints { cast_output: bf16; " + extra + " }\n");
    Result r = dg::solve::solve(p);
    REQUIRE(r.plan);
    CHECK(violations(r.space, r.point).empty());
    return *r.plan;
  };
  // 128 × 4096 × 14336: 16-32 tiles of 128 rows for 132 SMs.
  Plan deep = solve_for("M: 128; N: 4096; K: 14336;");
  CHECK(deep.split_k > 1);
  CHECK(deep.loader == "tma");
  CHECK(deep.persistent_blocks == 0);
  CHECK(deep.grid_m * deep.grid_n * deep.split_k <= 132 * deep.blocks_per_sm);
  // 4096³: 512 tiles of 128 × 256 already fill the SMs; splitting only adds partials.
  CHECK(solve_for("M: 4096; N: 4096; K: 4096;").split_k == 1);
  // Forced: the plan takes it, and 1 turns splitting off.
  CHECK(solve_for("M: 128; N: 4096; K: 14336;", "split_k: 3;").split_k == 3);
  CHECK(solve_for("M: 128; N: 4096; K: 14336;", "split_k: 1;").split_k == 1);
}

TEST_CASE("solver: NPU plans fit the double-buffered scratchpad") {
  auto p = problem("target npu16;\nprecision { activation: int8; weight: int8; }\nshape { M: 512; N: 512; K: 512; }\n");
  Result r = dg::solve::solve(p);
  REQUIRE(r.plan);
  CHECK(r.plan->tile_m % 16 == 0);
  CHECK(violations(r.space, r.point).empty());
  CHECK(r.plan->smem_bytes <= 256 * 1024);
}

TEST_CASE("solver: 4-bit weights on wgmma from large M, the weight-streaming kernel at small M") {
  auto big = problem(
      "target hopper;\nprecision { activation: fp16; weight: int4; }\nshape { M: 4096; N: 4096; K: 4096; }\n"
      "scales { B: group_128; }\n");
  Result r = dg::solve::solve(big);
  REQUIRE(r.plan);
  CHECK(r.plan->family == dg::hw::Family::Wgmma);
  CHECK(r.plan->w4_staged());
  CHECK(r.plan->loader == "tma");
  CHECK(r.plan->tile_k == 64);
  CHECK(violations(r.space, r.point).empty());
  // The stages hold B converted (16 bits), beside the staging slots of packed blocks and scales.
  const std::int64_t stages = r.plan->stages * (r.plan->tile_m + r.plan->tile_n) * 64 * 2;
  CHECK(r.plan->smem_bytes >= stages + w4_staging_bytes(r.plan->tile_n, 128));
  CHECK(r.plan->smem_bytes <= 227 * 1024);
  CHECK(r.plan->index.b_smem_row_bytes == 128);
  CHECK(r.plan->index.b_smem_rows == r.plan->tile_n);
  // A split K takes whole 128-k blocks.
  if (r.plan->split_k > 1) CHECK((4096 / 64 + r.plan->split_k - 1) / r.plan->split_k % 2 == 0);
  auto small = problem(
      "target hopper;\nprecision { activation: fp16; weight: int4; }\nshape { M: 16; N: 4096; K: 4096; }\n"
      "scales { B: group_128; }\n");
  Result s = dg::solve::solve(small);
  REQUIRE(s.plan);
  CHECK(s.plan->family == dg::hw::Family::MmaSync);
  CHECK(s.plan->loader == "registers");
  CHECK_FALSE(s.plan->w4_staged());
}

TEST_CASE("plan: JSON round-trips byte-identically") {
  auto p =
      problem("target hopper;\nprecision { activation: fp16; weight: int4; }\nshape { M: 16; N: 4096; K: 4096; }\n");
  Result r = dg::solve::solve(p);
  REQUIRE(r.plan);
  std::string once = dump_plan(*r.plan);
  std::string twice = dump_plan(plan_from_json(nlohmann::json::parse(once)));
  CHECK(once == twice);
  CHECK_THROWS_AS(plan_from_json(nlohmann::json::parse("{\"format\": \"deepgemm-plan-1\"}")), dg::UserError);
  // The enums are written as their names; an unknown name is refused by field, never defaulted.
  const nlohmann::json j = nlohmann::json::parse(once);
  CHECK(j.at("family") == "mma.sync");
  CHECK(j.at("target_kind") == "gpu");
  auto error_with = [&](const char* field, const char* value) {
    nlohmann::json bad = j;
    bad[field] = value;
    try {
      plan_from_json(bad);
    } catch (const dg::UserError& e) {
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  CHECK(error_with("family", "wgmmma") ==
        "plan: family: unknown value \"wgmmma\" (expected \"mma.sync\", \"wgmma\", \"simt\" or \"npu\")");
  CHECK(error_with("target_kind", "tpu") == "plan: target_kind: unknown value \"tpu\" (expected \"gpu\" or \"npu\")");
}

TEST_CASE("plan: alpha and beta reach the plan, are written only where they act, and round-trip") {
  auto plain = dg::solve::solve(
      problem("target hopper;\nprecision { activation: fp16; weight: fp16; }\nshape { M: 256; N: 256; K: 256; }\n"));
  REQUIRE(plain.plan);
  CHECK(!to_json(*plain.plan).contains("alpha"));
  CHECK(!to_json(*plain.plan).contains("beta"));
  CHECK(!plain.plan->reads_c_in());
  auto r = dg::solve::solve(
      problem("target hopper;\nprecision { activation: fp16; weight: fp16; }\nshape { M: 256; N: 256; K: 256; }\n"
              "constraints { alpha: 0.25; beta: -1.5; }\n"));
  REQUIRE(r.plan);
  CHECK(r.plan->alpha == 0.25);
  CHECK(r.plan->beta == -1.5);
  CHECK(r.plan->reads_c_in());
  const std::string once = dump_plan(*r.plan);
  const Plan back = plan_from_json(nlohmann::json::parse(once));
  CHECK(back.alpha == 0.25);
  CHECK(back.beta == -1.5);
  CHECK(dump_plan(back) == once);
  nlohmann::json bad = nlohmann::json::parse(once);
  bad["beta"] = 1e300;
  CHECK_THROWS_AS(plan_from_json(bad), dg::UserError);
}
