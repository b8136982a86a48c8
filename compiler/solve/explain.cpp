#include "solve/explain.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace dg::solve {

namespace {

/// The largest (or smallest) value of `e` in [lo, hi] over the rules except `relaxed`, by
/// bisection with plain satisfiability checks; nullopt when no point exists at all.
std::optional<std::int64_t> extreme(smt::Solver& z, const Expr& e, std::int64_t lo, std::int64_t hi, bool largest,
                                    const std::vector<std::string>& relaxed) {
  auto reachable = [&](std::int64_t v) {
    z.push();
    z.add(largest ? e >= v : e <= v);
    smt::Result r = z.check_without(relaxed);
    z.pop();
    if (r == smt::Result::Unknown)
      throw GaveUp(
          fmt::format("the schedule solver gave no answer within its budget of {} while explaining an "
                      "infeasible spec ({})",
                      z.budget_text(), z.reason_unknown()));
    return r == smt::Result::Sat;
  };
  if (!reachable(largest ? lo : hi)) return std::nullopt;
  while (lo < hi) {
    if (largest) {
      std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (reachable(mid))
        lo = mid;
      else
        hi = mid - 1;
    } else {
      std::int64_t mid = lo + (hi - lo) / 2;
      if (reachable(mid))
        hi = mid;
      else
        lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace

void explain_conflict(Result& r, smt::Solver& z, const Model& m, Query& q, const GemmProblem& p) {
  const Space& s = r.space;
  // Shrink the solver's core to a minimal conflicting set.
  std::vector<std::string> core = z.unsat_core();
  auto all_but = [&](const std::vector<std::string>& keep) {
    std::vector<std::string> relaxed;
    for (const auto& rule : r.rules)
      if (std::find(keep.begin(), keep.end(), rule.name) == keep.end()) relaxed.push_back(rule.name);
    return relaxed;
  };
  for (size_t i = 0; i < core.size();) {
    std::vector<std::string> trial = core;
    trial.erase(trial.begin() + static_cast<std::ptrdiff_t>(i));
    smt::Result tr = z.check_without(all_but(trial));
    if (tr == smt::Result::Unknown) gave_up(z);
    if (tr == smt::Result::Unsat)
      core = trial;
    else
      ++i;
  }
  for (const auto& rule : r.rules)
    if (std::find(core.begin(), core.end(), rule.name) != core.end()) r.conflict.push_back(rule);
  // For a numeric bound in the conflict, the best value the rest of the spec allows.
  auto others = [&](const std::string& name) {
    std::vector<std::string> desc;
    for (const auto& c : r.conflict)
      if (c.name != name && c.origin == "user") desc.push_back(c.decl);
    return desc.empty() ? std::string() : fmt::format(" with {}", fmt::join(desc, ", "));
  };
  for (const auto& c : r.conflict) {
    if (c.name == "spec.l2_hit_rate_min" && m.l2) {
      if (auto best = extreme(z, *m.l2, 0, 1000, true, {c.name}))
        r.hints.push_back(fmt::format("highest achievable l2_hit_rate_min{} on {}: {:.3f}", others(c.name), p.hw.name,
                                      *best / 1000.0));
    } else if (c.name == "hw.npu_layout" && s.index_of("dataflow") >= 0) {
      // Why the generated design cannot lay out a tile shape that every other rule allows, for each
      // dataflow the space holds.
      for (std::int64_t df : s.vars[static_cast<size_t>(s.index_of("dataflow"))].values) {
        z.push();
        z.add(q.is_value("dataflow", df));
        const smt::Result tr = z.check_without({c.name});
        if (tr == smt::Result::Unknown) gave_up(z);
        const Point pt = tr == smt::Result::Sat ? q.read(z) : Point{};
        z.pop();
        if (pt.empty()) continue;
        auto at = [&](const char* name) { return pt[static_cast<size_t>(s.index_of(name))]; };
        const hw::NpuLayout l = npu_layout_of(s, at("tile_m"), at("tile_n"), at("tile_k"), df);
        if (!l.unbuildable.empty())
          r.hints.push_back(fmt::format("{}: the tile {}×{}×{}, which the other rules allow, cannot be laid out: {}",
                                        df == 0 ? "weight stationary" : "output stationary", at("tile_m"), at("tile_n"),
                                        at("tile_k"), l.unbuildable));
      }
    } else if (c.name == "spec.sm_mem_limit" && m.smem) {
      std::int64_t cap = s.gpu ? p.hw.gpu.smem_per_block_bytes
                               : std::int64_t(p.hw.npu.spad_banks) * p.hw.npu.spad_rows * p.hw.npu.spad_width_bits / 8;
      if (auto best = extreme(z, *m.smem, 0, cap, false, {c.name}))
        r.hints.push_back(
            fmt::format("smallest sm_mem_limit any plan needs{} on {}: {}", others(c.name), p.hw.name, kb(*best)));
    }
  }
}

void explain(const Result& r, const GemmProblem& p, DiagEngine& diags) {
  Loc at = p.target_loc;
  for (const auto& c : r.conflict)
    if (c.loc.valid()) {
      at = c.loc;
      break;
    }
  diags.error(at, "No valid candidate found after pruning");
  for (const auto& c : r.conflict) {
    if (c.origin == "user")
      diags.note(c.loc, fmt::format("conflicting declaration: {} [{}]", c.text, c.name));
    else
      diags.note(c.loc.valid() ? c.loc : p.target_loc, fmt::format("{} rule: {} [{}]", c.origin, c.text, c.name));
  }
  for (const auto& h : r.hints) diags.note(at, h);
}

void dump_space(std::ostream& os, const Result& r) {
  const Space& s = r.space;
  os << fmt::format("Space for {} ({}): {} points\n", s.problem->hw.name, s.family, s.size());
  for (const auto& v : s.vars) os << fmt::format("  {:<14} {{{}}}  — {}\n", v.name, fmt::join(v.values, ", "), v.note);
  os << fmt::format("Rules ({}):\n", r.rules.size());
  for (const auto& rule : r.rules)
    os << fmt::format("  {:<28} {}{}\n", rule.name, rule.text, rule.loc.valid() ? "  (" + rule.loc.str() + ")" : "");
  if (r.plan)
    os << fmt::format("Feasible tile shapes: {}; optimum cost {:.6f} ({})\n", r.feasible_tiles, r.cost / kLogScale,
                      r.space.gpu ? "log2 ns" : "log2 cycles");
  else
    os << "Feasible tile shapes: 0\n";
}

}  // namespace dg::solve
