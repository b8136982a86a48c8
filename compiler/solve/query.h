// The solver's query over a schedule space (internal to solve/): one Z3 index variable per
// schedule variable, every derived quantity a table over the few variables it depends on, and the
// rules and objective terms encode_rules() put in it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "smt/smt.h"
#include "solve/solve.h"
#include "support/error.h"

namespace dg::solve {

using smt::Expr;

/// Builds the Z3 query over the space: one index variable per schedule variable, and every
/// derived quantity as a table (nested ite) over the few variables it depends on.
class Query {
 public:
  Query(const Space& s, smt::Solver& z) : s_(s), z_(z) {
    for (const auto& v : s_.vars) {
      Expr i = z_.int_var(v.name + "_i");
      z_.add(i >= 0);
      z_.add(i < static_cast<std::int64_t>(v.values.size()));
      idx_.push_back(i);
    }
  }

  const Expr& index(int var) const { return idx_[var]; }
  int var(const std::string& name) const {
    int i = s_.index_of(name);
    DG_INTERNAL_ASSERT(i >= 0, "no schedule variable " + name);
    return i;
  }

  /// f tabulated over the named variables' domains.
  Expr table(const std::vector<std::string>& names,
             const std::function<std::int64_t(const std::vector<std::int64_t>&)>& f) {
    std::vector<int> vars;
    for (const auto& n : names) vars.push_back(var(n));
    std::vector<std::int64_t> vals(vars.size());
    std::string sig;
    return build(vars, 0, vals, f, sig);
  }

  Expr value(const std::string& name) {
    return table({name}, [](const std::vector<std::int64_t>& v) { return v[0]; });
  }

  /// x · term, where x is a schedule variable with a small domain: expanded into a sum of ites so
  /// that the query stays linear.
  Expr times_var(const std::string& name, const Expr& term) {
    int v = var(name);
    std::vector<Expr> parts;
    for (size_t i = 0; i < s_.vars[v].values.size(); ++i)
      parts.push_back(smt::ite(idx_[v] == static_cast<std::int64_t>(i), term * s_.vars[v].values[i], z_.int_val(0)));
    return z_.sum(parts);
  }

  Expr is_value(const std::string& name, std::int64_t value) {
    int v = var(name);
    const auto& vals = s_.vars[v].values;
    auto it = std::find(vals.begin(), vals.end(), value);
    if (it == vals.end()) return z_.bool_val(false);
    return idx_[v] == static_cast<std::int64_t>(it - vals.begin());
  }

  Point read(const smt::Solver& z) const {
    Point x;
    for (size_t i = 0; i < s_.vars.size(); ++i) x.push_back(s_.vars[i].values[z.eval_int(idx_[i])]);
    return x;
  }

 private:
  // Nested ite over the variables' indices; subtrees that do not depend on a variable collapse
  // (compared by a structural signature), so a table only branches where its function varies.
  Expr build(const std::vector<int>& vars, size_t d, std::vector<std::int64_t>& vals,
             const std::function<std::int64_t(const std::vector<std::int64_t>&)>& f, std::string& sig) {
    if (d == vars.size()) {
      std::int64_t k = f(vals);
      sig = std::to_string(k);
      return z_.int_val(k);
    }
    const auto& dom = s_.vars[vars[d]].values;
    std::vector<Expr> sub;
    std::vector<std::string> sigs(dom.size());
    for (size_t i = 0; i < dom.size(); ++i) {
      vals[d] = dom[i];
      sub.push_back(build(vars, d + 1, vals, f, sigs[i]));
    }
    if (std::all_of(sigs.begin(), sigs.end(), [&](const std::string& x) { return x == sigs[0]; })) {
      sig = sigs[0];
      return sub[0];
    }
    sig = "(" + std::to_string(vars[d]);
    for (const auto& x : sigs) sig += " " + x;
    sig += ")";
    Expr e = sub.back();
    for (size_t i = sub.size() - 1; i-- > 0;) e = smt::ite(idx_[vars[d]] == static_cast<std::int64_t>(i), sub[i], e);
    return e;
  }

  const Space& s_;
  smt::Solver& z_;
  std::vector<Expr> idx_;
};

/// Everything about one query: rules, the objective terms and the handles to read them back.
struct Model {
  std::vector<Rule> rules;
  std::map<std::string, smt::Expr> rule_expr;
  std::optional<smt::Expr> cost, tiebreak, smem, l2;
  std::vector<smt::Expr> cost_links;  // defines the cost's max() term; asserted only where the cost is used
};

/// "96 KB", "1.5 KB".
std::string kb(std::int64_t bytes);
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// The solver gave no answer within its budget: a user error (GaveUp) naming Z3's reason.
[[noreturn]] void gave_up(const smt::Solver& z);

}  // namespace dg::solve
