// Search: the optimum of the cost over the rules, cube by cube (one cube per tile shape), and the
// best of the instruction families a problem allows.
#include "solve/solve.h"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <limits>

#include "solve/build_plan.h"
#include "solve/encode_rules.h"
#include "solve/explain.h"
#include "solve/query.h"
#include "support/error.h"

namespace dg::solve {

namespace {

/// A lower bound of the cost over every point with this tile shape: the exact minimum of the cost
/// over the other variables with the rules ignored. The cost's max() is monotone in each argument
/// and its arguments depend on disjoint variables once split_k, blocks_per_sm and stages are
/// fixed, so each is minimized separately under those three. Sound (no point of the cube costs
/// less), so a cube whose bound cannot beat the incumbent needs no bound query.
std::int64_t cube_lower_bound(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk) {
  constexpr std::int64_t kInf = std::numeric_limits<std::int64_t>::max() / 4;
  auto dom = [&](const char* n) {
    int i = s.index_of(n);
    return i >= 0 ? s.vars[i].values : std::vector<std::int64_t>{1};
  };
  if (!s.gpu) {
    std::int64_t best = kInf;
    for (std::int64_t df : dom("dataflow")) best = std::min(best, npu_log_cycles(s, tm, tn, tk, df));
    return best;
  }
  const std::int64_t m1 = log_math_tile(s, tm, tn, tk), mem1 = log_mem_tile(s, tm, tn, tk);
  std::int64_t best = kInf;
  for (std::int64_t occ : dom("blocks_per_sm")) {
    std::int64_t warps = kInf, rate = kInf;
    for (std::int64_t wm : dom("warp_m"))
      for (std::int64_t wn : dom("warp_n"))
        warps = std::min(warps, log_math_warps(s, tm, tn, wm, wn) + log_math_occ(s, wm, wn, occ));
    for (std::int64_t rg : dom("raster_group")) rate = std::min(rate, log_mem_rate(s, tm, tn, rg, occ));
    for (std::int64_t sk : dom("split_k")) {
      std::int64_t base = log_waves(s, tm, tn, sk, occ) + log_epilogue(s, tm, tn, tk, sk);
      for (std::int64_t st : dom("stages"))
        best =
            std::min(best, base + log_iters(s, tk, sk, st) + std::max({m1 + warps, mem1 + rate, log_latency(s, st)}));
    }
  }
  return best;
}

Result solve_family(const GemmProblem& p, const Options& opts, hw::Family family) {
  Result r;
  r.space = make_space(p, opts.max_values, family);
  r.space.w4_lighter = opts.w4_lighter;
  const Space& s = r.space;
  smt::Solver z("schedule", /*optimizing=*/true);
  z.set_budget(opts.budget_s, opts.work);
  Query q(s, z);
  Model m;
  encode_rules(s, z, q, m);
  for (const auto& v : s.vars) {
    if (opts.fixed.empty()) break;
    auto it = std::find_if(opts.fixed.begin(), opts.fixed.end(), [&](const auto& f) { return f.first == v.name; });
    DG_INTERNAL_ASSERT(it != opts.fixed.end(), "a fixed schedule without " + v.name);
    const std::string value = v.name == "smem"       ? smem_layout_name(it->second)
                              : v.name == "dataflow" ? (it->second == 0 ? "weight_stationary" : "output_stationary")
                                                     : std::to_string(it->second);
    const bool in_domain = std::find(v.values.begin(), v.values.end(), it->second) != v.values.end();
    const std::string text =
        fmt::format("{}: {} = {}{}", opts.fixed_from, v.name, value,
                    in_domain ? "" : fmt::format(", which is not one of its values {{{}}}", fmt::join(v.values, ", ")));
    m.rules.push_back({"plan." + v.name, text, {}, "plan", text});
    m.rule_expr.emplace("plan." + v.name, q.is_value(v.name, it->second));
    z.track(q.is_value(v.name, it->second), "plan." + v.name);
  }
  r.rules = m.rules;
  for (const auto& [fam, sched] : opts.exclude_schedules) {
    if (fam != s.family) continue;
    std::vector<Expr> same;
    for (const auto& [name, value] : sched)
      if (s.index_of(name) >= 0) same.push_back(q.is_value(name, value));
    z.add(!smt::all_of(same));
  }
  for (const Point& x : opts.exclude) {
    std::vector<Expr> same;
    for (size_t i = 0; i < x.size(); ++i) same.push_back(q.is_value(s.vars[i].name, x[i]));
    z.add(!smt::all_of(same));
  }

  // The optimum, cube by cube: each tile shape (tile_m, tile_n, tile_k) is one cube, visited in
  // tie-break order (larger tiles first). In a cube the solver first decides feasibility (which
  // also counts the feasible tile shapes), then tightens `cost < incumbent` until UNSAT: the last
  // UNSAT answer of every cube proves that no point of it beats the incumbent. Among points of
  // optimal cost the tie-break key is then minimized the same way inside the winning cube.
  int vm = s.index_of("tile_m"), vn = s.index_of("tile_n"), vk = s.index_of("tile_k");
  struct Cube {
    std::int64_t m, n, k;  // value indices
    int order;             // position in tie-break order (larger tiles first)
    std::int64_t bound;    // analytic lower bound of the cost over the cube
  };
  std::vector<Cube> cubes;
  for (std::int64_t a = static_cast<std::int64_t>(s.vars[vm].values.size()); a-- > 0;)
    for (std::int64_t b = static_cast<std::int64_t>(s.vars[vn].values.size()); b-- > 0;)
      for (std::int64_t c = static_cast<std::int64_t>(s.vars[vk].values.size()); c-- > 0;)
        cubes.push_back({a, b, c, static_cast<int>(cubes.size()),
                         cube_lower_bound(s, s.vars[vm].values[a], s.vars[vn].values[b], s.vars[vk].values[c])});
  // Most promising first, so that the incumbent is strong early and later cubes are pruned.
  std::sort(cubes.begin(), cubes.end(),
            [](const Cube& x, const Cube& y) { return x.bound != y.bound ? x.bound < y.bound : x.order < y.order; });
  smt::Result res = z.check();  // the whole space first: infeasible specs go to the explanation
  if (const char* dump = std::getenv("DEEPGEMM_DUMP_SMT"); dump && *dump)
    std::ofstream(dump) << z.to_smt2() << "; objective: " << m.cost->str() << "\n";
  std::optional<Cube> best_cube;
  std::int64_t best = 0;
  auto unknown = [&] { gave_up(z); };
  // DG_DEBUG_SOLVE=1 traces the search on stderr: each cube's feasibility, bound check and
  // optimization, and the total.
  const bool trace = std::getenv("DG_DEBUG_SOLVE") != nullptr;
  if (res == smt::Result::Sat) {
    for (const Cube& c : cubes) {
      z.push();
      z.add(q.index(vm) == c.m && q.index(vn) == c.n && q.index(vk) == c.k);
      smt::Result fr = z.check();
      if (trace) fmt::print(stderr, "cube {} {} {} feasibility {}\n", c.m, c.n, c.k, smt::result_name(fr));
      if (fr == smt::Result::Unknown) unknown();
      if (fr == smt::Result::Sat) {
        ++r.feasible_tiles;
        // The model's cost, evaluated on its point (the cost's max() is not asserted here).
        std::int64_t cur = cost_terms(s, q.read(z)).total();
        // Equal cost goes to the cube that comes first in tie-break order.
        bool first = best_cube && c.order < best_cube->order;
        bool wins = !best_cube || cur < best || (cur == best && first);
        if (!wins && !(c.bound > best || (c.bound == best && !first))) {
          for (const auto& l : m.cost_links) z.add(l);
          z.add(first ? *m.cost <= best : *m.cost < best);
          fr = z.check();
          if (trace) fmt::print(stderr, "  bound check {}\n", smt::result_name(fr));
          if (fr == smt::Result::Unknown) unknown();
          wins = fr == smt::Result::Sat;
        }
        if (wins) {
          // This cube holds a better point: its optimum, from the optimizer.
          z.push();
          for (const auto& l : m.cost_links) z.add(l);
          z.minimize(*m.cost);
          fr = z.check();
          if (trace) fmt::print(stderr, "  optimize\n");
          if (fr != smt::Result::Sat) unknown();
          best = z.eval_int(*m.cost);
          best_cube = c;
          z.pop();
        }
      }
      z.pop();
    }
    DG_INTERNAL_ASSERT(best_cube.has_value(), "a satisfiable space with no feasible cube");
    r.cost = best;
    z.push();
    for (const auto& l : m.cost_links) z.add(l);
    z.add(q.index(vm) == best_cube->m && q.index(vn) == best_cube->n && q.index(vk) == best_cube->k);
    z.add(*m.cost == best);
    smt::Result tr = z.check();
    DG_INTERNAL_ASSERT(tr == smt::Result::Sat, "the optimum was lost");
    std::int64_t tb = z.eval_int(*m.tiebreak);
    Point pt = q.read(z);
    for (;;) {
      z.add(*m.tiebreak < tb);
      tr = z.check();
      if (tr == smt::Result::Unknown) unknown();
      if (tr != smt::Result::Sat) break;
      tb = z.eval_int(*m.tiebreak);
      pt = q.read(z);
    }
    r.point = pt;
    z.pop();
    CostTerms ct = cost_terms(s, r.point);
    DG_INTERNAL_ASSERT(
        ct.total() == r.cost,
        fmt::format("the solver's cost {} differs from the model's {} at its point (waves {} iters {} epi {} "
                    "math {} mem {} latency {})",
                    r.cost, ct.total(), ct.waves, ct.iters, ct.epilogue, ct.math, ct.mem, ct.latency));
  }
  if (trace) fmt::print(stderr, "optimize: {:.3f}s {} checks\n", z.seconds(), z.checks());
  if (res == smt::Result::Unknown) unknown();

  if (res == smt::Result::Sat) {
    Plan pl = make_plan(s, r.point, r.rules);
    pl.space_size = s.size();
    pl.feasible_tiles = r.feasible_tiles;
    r.plan = pl;
  } else {
    explain_conflict(r, z, m, q, p);
  }
  r.seconds = z.seconds();
  r.checks = z.checks();
  return r;
}

}  // namespace

Result solve(const GemmProblem& p, const Options& opts) {
  std::vector<hw::Family> fams = opts.family ? std::vector<hw::Family>{*opts.family} : families(p);
  std::optional<Result> best, first;
  double seconds = 0;
  int checks = 0;
  std::vector<Result::FamilyResult> tried;
  for (hw::Family f : fams) {
    Result r = solve_family(p, opts, f);
    seconds += r.seconds;
    checks += r.checks;
    tried.push_back({r.space.family, r.plan ? std::optional<double>(r.plan->predicted_us) : std::nullopt});
    if (!r.plan) {
      if (!first) first = std::move(r);
      continue;
    }
    // 4-bit weights: the weight-streaming kernel's plan is not the searched point, so the families
    // compare by their plans' predicted times.
    const bool w4 = p.hw.is_gpu() && p.b.value.bits == 4 && !p.weight_conversion.empty();
    if (!best || (w4 ? r.plan->predicted_us < best->plan->predicted_us : r.cost < best->cost)) best = std::move(r);
  }
  Result out = best ? std::move(*best) : std::move(*first);
  out.seconds = seconds;
  out.checks = checks;
  out.families = std::move(tried);
  return out;
}

}  // namespace dg::solve
