#include "smt/smt.h"

#include <z3++.h>
#include <z3_version.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "support/error.h"

namespace dg::smt {

struct Expr::Impl {
  z3::expr e;
};

Expr::Expr() = default;
Expr::~Expr() = default;
Expr::Expr(const Expr&) = default;
Expr& Expr::operator=(const Expr&) = default;
Expr::Expr(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

namespace {

Expr wrap(const z3::expr& e);
const z3::expr& raw(const Expr& e);

}  // namespace

struct ExprAccess {
  static Expr make(const z3::expr& e) { return Expr(std::make_shared<Expr::Impl>(Expr::Impl{e})); }
  static const z3::expr& get(const Expr& e) {
    DG_INTERNAL_ASSERT(e.impl_ != nullptr, "use of an empty smt::Expr");
    return e.impl_->e;
  }
};

namespace {
Expr wrap(const z3::expr& e) { return ExprAccess::make(e); }
const z3::expr& raw(const Expr& e) { return ExprAccess::get(e); }
}  // namespace

std::string Expr::str() const { return raw(*this).to_string(); }

Expr operator+(const Expr& a, const Expr& b) { return wrap(raw(a) + raw(b)); }
Expr operator-(const Expr& a, const Expr& b) { return wrap(raw(a) - raw(b)); }
Expr operator*(const Expr& a, const Expr& b) { return wrap(raw(a) * raw(b)); }
Expr operator/(const Expr& a, const Expr& b) { return wrap(raw(a) / raw(b)); }
Expr operator%(const Expr& a, const Expr& b) { return wrap(z3::mod(raw(a), raw(b))); }
Expr operator-(const Expr& a) { return wrap(-raw(a)); }
Expr operator==(const Expr& a, const Expr& b) { return wrap(raw(a) == raw(b)); }
Expr operator!=(const Expr& a, const Expr& b) { return wrap(raw(a) != raw(b)); }
Expr operator<(const Expr& a, const Expr& b) { return wrap(raw(a) < raw(b)); }
Expr operator<=(const Expr& a, const Expr& b) { return wrap(raw(a) <= raw(b)); }
Expr operator>(const Expr& a, const Expr& b) { return wrap(raw(a) > raw(b)); }
Expr operator>=(const Expr& a, const Expr& b) { return wrap(raw(a) >= raw(b)); }
Expr operator&&(const Expr& a, const Expr& b) { return wrap(raw(a) && raw(b)); }
Expr operator||(const Expr& a, const Expr& b) { return wrap(raw(a) || raw(b)); }
Expr operator!(const Expr& a) { return wrap(!raw(a)); }
Expr ite(const Expr& c, const Expr& t, const Expr& e) { return wrap(z3::ite(raw(c), raw(t), raw(e))); }
Expr implies(const Expr& a, const Expr& b) { return wrap(z3::implies(raw(a), raw(b))); }

Expr bv_xor(const Expr& a, const Expr& b) { return wrap(raw(a) ^ raw(b)); }
Expr bv_and(const Expr& a, const Expr& b) { return wrap(raw(a) & raw(b)); }
Expr bv_lshr(const Expr& a, unsigned n) {
  return wrap(z3::lshr(raw(a), raw(a).ctx().bv_val(n, raw(a).get_sort().bv_size())));
}
Expr bv_shl(const Expr& a, unsigned n) {
  return wrap(z3::shl(raw(a), raw(a).ctx().bv_val(n, raw(a).get_sort().bv_size())));
}
Expr bv_ult(const Expr& a, const Expr& b) { return wrap(z3::ult(raw(a), raw(b))); }
Expr bv_ule(const Expr& a, const Expr& b) { return wrap(z3::ule(raw(a), raw(b))); }

namespace {
z3::expr num(const Expr& like, std::int64_t v) {
  const z3::expr& e = raw(like);
  return e.is_real() ? e.ctx().real_val(v) : e.ctx().int_val(v);
}
}  // namespace

Expr Expr::operator+(std::int64_t v) const { return wrap(raw(*this) + num(*this, v)); }
Expr Expr::operator-(std::int64_t v) const { return wrap(raw(*this) - num(*this, v)); }
Expr Expr::operator*(std::int64_t v) const { return wrap(raw(*this) * num(*this, v)); }
Expr Expr::operator==(std::int64_t v) const { return wrap(raw(*this) == num(*this, v)); }
Expr Expr::operator!=(std::int64_t v) const { return wrap(raw(*this) != num(*this, v)); }
Expr Expr::operator<(std::int64_t v) const { return wrap(raw(*this) < num(*this, v)); }
Expr Expr::operator<=(std::int64_t v) const { return wrap(raw(*this) <= num(*this, v)); }
Expr Expr::operator>(std::int64_t v) const { return wrap(raw(*this) > num(*this, v)); }
Expr Expr::operator>=(std::int64_t v) const { return wrap(raw(*this) >= num(*this, v)); }

Expr sum(const std::vector<Expr>& terms) {
  DG_INTERNAL_ASSERT(!terms.empty(), "smt::sum of no terms");
  z3::expr_vector v(raw(terms[0]).ctx());
  for (const auto& t : terms) v.push_back(raw(t));
  return wrap(z3::sum(v));
}

Expr all_of(const std::vector<Expr>& terms) {
  DG_INTERNAL_ASSERT(!terms.empty(), "smt::all_of of no terms");
  z3::expr_vector v(raw(terms[0]).ctx());
  for (const auto& t : terms) v.push_back(raw(t));
  return wrap(z3::mk_and(v));
}

Expr any_of(const std::vector<Expr>& terms) {
  DG_INTERNAL_ASSERT(!terms.empty(), "smt::any_of of no terms");
  z3::expr_vector v(raw(terms[0]).ctx());
  for (const auto& t : terms) v.push_back(raw(t));
  return wrap(z3::mk_or(v));
}

std::string z3_version() {
  return std::to_string(Z3_MAJOR_VERSION) + "." + std::to_string(Z3_MINOR_VERSION) + "." +
         std::to_string(Z3_BUILD_NUMBER);
}

const char* result_name(Result r) {
  switch (r) {
    case Result::Sat: return "sat";
    case Result::Unsat: return "unsat";
    case Result::Unknown: return "unknown";
  }
  return "unknown";
}

TextAnswer check_text(const std::string& name, const std::string& smtlib, std::uint64_t work_limit) {
  try {
    z3::context ctx;
    z3::solver solver(ctx);
    z3::params p(ctx);
    p.set("timeout", 600000u);
    if (work_limit > 0) p.set("rlimit", static_cast<unsigned>(std::min<std::uint64_t>(work_limit, 0xFFFFFFFFu)));
    solver.set(p);
    solver.from_string(smtlib.c_str());
    TextAnswer a;
    switch (solver.check()) {
      case z3::sat: a.result = Result::Sat; break;
      case z3::unsat: a.result = Result::Unsat; break;
      default: a.result = Result::Unknown; break;
    }
    const z3::stats st = solver.statistics();
    for (unsigned i = 0; i < st.size(); ++i)
      if (st.key(i) == "rlimit count")
        a.work = st.is_uint(i) ? st.uint_value(i) : static_cast<std::uint64_t>(st.double_value(i));
    return a;
  } catch (const z3::exception& e) {
    throw TextError{name + ": " + e.msg()};
  }
}

struct Solver::Impl {
  z3::context ctx;
  std::unique_ptr<z3::optimize> opt_;  // used while objectives are set
  z3::optimize& opt() { return *opt_; }
  z3::solver plain{ctx};     // the same assertions, for plain satisfiability
  int objective_scope = -1;  // push depth at which objectives were added; -1 = none
  int depth = 0;
  std::vector<std::pair<std::string, z3::expr>> tracked;  // name -> indicator literal
  std::map<std::string, size_t> index;
  std::vector<std::string> core;
  std::unique_ptr<z3::model> model;
};

Solver::Solver(std::string name, bool optimizing) : name_(std::move(name)), impl_(std::make_unique<Impl>()) {
  z3::params p(impl_->ctx);
  p.set("timeout", 60000u);  // a query is never allowed to hang the compiler
  if (optimizing) {
    impl_->opt_ = std::make_unique<z3::optimize>(impl_->ctx);
    impl_->opt_->set(p);
  }
  impl_->plain.set(p);
}

Solver::~Solver() = default;

Expr Solver::int_var(const std::string& n) { return wrap(impl_->ctx.int_const(n.c_str())); }
Expr Solver::int_val(std::int64_t v) { return wrap(impl_->ctx.int_val(v)); }
Expr Solver::bool_val(bool v) { return wrap(impl_->ctx.bool_val(v)); }
Expr Solver::bv_var(const std::string& n, unsigned bits) { return wrap(impl_->ctx.bv_const(n.c_str(), bits)); }
Expr Solver::bv_val(std::uint64_t v, unsigned bits) { return wrap(impl_->ctx.bv_val(static_cast<uint64_t>(v), bits)); }
Expr Solver::sum(const std::vector<Expr>& terms) { return terms.empty() ? int_val(0) : smt::sum(terms); }

void Solver::add(const Expr& e) {
  if (impl_->opt_) impl_->opt().add(raw(e));
  impl_->plain.add(raw(e));
}

void Solver::track(const Expr& e, const std::string& rule) {
  DG_INTERNAL_ASSERT(!impl_->index.count(rule), "rule tracked twice: " + rule);
  z3::expr lit = impl_->ctx.bool_const(("rule!" + rule).c_str());
  if (impl_->opt_) impl_->opt().add(z3::implies(lit, raw(e)));
  impl_->plain.add(z3::implies(lit, raw(e)));
  impl_->index[rule] = impl_->tracked.size();
  impl_->tracked.emplace_back(rule, lit);
}

void Solver::minimize(const Expr& e) {
  DG_INTERNAL_ASSERT(impl_->opt_ != nullptr, "minimize in a non-optimizing query " + name_);
  impl_->opt().minimize(raw(e));
  if (impl_->objective_scope < 0) impl_->objective_scope = impl_->depth;
}
void Solver::maximize(const Expr& e) {
  DG_INTERNAL_ASSERT(impl_->opt_ != nullptr, "maximize in a non-optimizing query " + name_);
  impl_->opt().maximize(raw(e));
  if (impl_->objective_scope < 0) impl_->objective_scope = impl_->depth;
}

Result Solver::check() { return check_without({}); }

void Solver::set_budget(double seconds, std::uint64_t work) {
  budget_ = seconds + seconds_;  // counted in seconds spent in checks
  budget_set_ = seconds;
  work_set_ = work;
  work_budget_ = work > 0 ? work_ + work : 0;
  budget_spent_ = false;
}

Result Solver::check_without(const std::vector<std::string>& relaxed) {
  auto t0 = std::chrono::steady_clock::now();
  if (budget_ > 0 || work_budget_ > 0) {
    const double left = budget_ > 0 ? budget_ - seconds_ : 60.0;
    const std::uint64_t work_left = work_budget_ > work_ ? work_budget_ - work_ : 0;
    if (left <= 0.001 || (work_budget_ > 0 && work_left == 0)) {
      budget_spent_ = true;
      spent_ = left <= 0.001 ? "time" : "work";
      impl_->core.clear();
      impl_->model.reset();
      return Result::Unknown;
    }
    z3::params p(impl_->ctx);
    // Without a work budget, no check runs past 60 s; with one, the work decides, and the wall
    // clock (what is left of it) is only the backstop.
    p.set("timeout", static_cast<unsigned>(work_budget_ > 0 ? left * 1000.0 : std::min(60000.0, left * 1000.0)));
    if (work_budget_ > 0) p.set("rlimit", static_cast<unsigned>(std::min<std::uint64_t>(work_left, 0xFFFFFFFFu)));
    if (impl_->opt_) impl_->opt().set(p);
    impl_->plain.set(p);
  }
  z3::expr_vector assumptions(impl_->ctx);
  for (const auto& [name, lit] : impl_->tracked)
    if (std::find(relaxed.begin(), relaxed.end(), name) == relaxed.end()) assumptions.push_back(lit);
  bool optimizing = impl_->objective_scope >= 0;
  z3::check_result r;
  if (optimizing) {
    // Z3's optimizer does not optimize reliably under assumptions: assert the rules in a scope.
    impl_->opt().push();
    for (unsigned i = 0; i < assumptions.size(); ++i) impl_->opt().add(assumptions[i]);
    r = impl_->opt().check();
  } else {
    r = impl_->plain.check(assumptions);
  }
  double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  seconds_ += dt;
  ++checks_;
  const std::uint64_t work_before = work_;
  {  // the context's resource count so far (one counter for the optimizer and the plain solver)
    const z3::stats st = optimizing ? impl_->opt().statistics() : impl_->plain.statistics();
    for (unsigned i = 0; i < st.size(); ++i)
      if (st.key(i) == "rlimit count")
        work_ = std::max<std::uint64_t>(
            work_, st.is_uint(i) ? st.uint_value(i) : static_cast<std::uint64_t>(st.double_value(i)));
  }
  if (r == z3::unknown && (budget_ > 0 || work_budget_ > 0)) {  // which budget stopped it, for the message
    if (work_budget_ > 0 && work_ >= work_budget_) spent_ = "work", budget_spent_ = true;
    if (budget_ > 0 && seconds_ >= budget_ - 0.001) spent_ = "time", budget_spent_ = true;
  }
  if (std::getenv("DG_DEBUG_SMT"))
    fprintf(stderr, "check %d %s %.1f ms %llu units\n", checks_,
            r == z3::sat     ? "sat"
            : r == z3::unsat ? "unsat"
                             : "unknown",
            dt * 1000, static_cast<unsigned long long>(work_ - work_before));
  impl_->core.clear();
  impl_->model.reset();
  if (r == z3::sat) {
    impl_->model = std::make_unique<z3::model>(optimizing ? impl_->opt().get_model() : impl_->plain.get_model());
    if (optimizing) impl_->opt().pop();
    return Result::Sat;
  }
  if (optimizing) {
    impl_->opt().pop();
    return r == z3::unsat ? Result::Unsat : Result::Unknown;  // no core: the rules were not assumptions
  }
  if (r == z3::unsat) {
    z3::expr_vector core = optimizing ? impl_->opt().unsat_core() : impl_->plain.unsat_core();
    std::vector<bool> in(impl_->tracked.size(), false);
    for (unsigned i = 0; i < core.size(); ++i) {
      std::string n = core[i].decl().name().str();
      if (n.rfind("rule!", 0) == 0) {
        auto it = impl_->index.find(n.substr(5));
        if (it != impl_->index.end()) in[it->second] = true;
      }
    }
    for (size_t i = 0; i < in.size(); ++i)
      if (in[i]) impl_->core.push_back(impl_->tracked[i].first);
    return Result::Unsat;
  }
  return Result::Unknown;
}

std::vector<std::string> Solver::unsat_core() const { return impl_->core; }

std::int64_t Solver::eval_int(const Expr& e) const {
  DG_INTERNAL_ASSERT(impl_->model != nullptr, "eval without a model in query " + name_);
  z3::expr v = impl_->model->eval(raw(e), true);
  std::int64_t out = 0;
  if (v.is_bv()) {
    std::uint64_t u = 0;
    DG_INTERNAL_ASSERT(v.is_numeral_u64(u), "model value is not a 64-bit bit-vector: " + v.to_string());
    return static_cast<std::int64_t>(u);
  }
  DG_INTERNAL_ASSERT(v.is_numeral_i64(out), "model value is not a 64-bit integer: " + v.to_string());
  return out;
}

std::string Solver::to_smt2() const { return impl_->plain.to_smt2(); }

void Solver::push() {
  if (impl_->opt_) impl_->opt().push();
  impl_->plain.push();
  ++impl_->depth;
}

void Solver::pop() {
  if (impl_->opt_) impl_->opt().pop();
  impl_->plain.pop();
  --impl_->depth;
  if (impl_->objective_scope > impl_->depth) impl_->objective_scope = -1;
}

std::string Solver::budget_text() const {
  std::string t;
  if (budget_set_ > 0) {
    char b[64];
    std::snprintf(b, sizeof b, "%g s", budget_set_);
    t = b;
  }
  if (work_set_ > 0) t += (t.empty() ? "" : " and ") + std::to_string(work_set_) + " units";
  return t.empty() ? "60 s" : t;
}

std::string Solver::reason_unknown() const {
  if (budget_spent_) return std::string("its ") + (spent_ != nullptr ? spent_ : "time") + " budget is spent";
  return impl_->objective_scope >= 0 ? Z3_optimize_get_reason_unknown(impl_->ctx, impl_->opt())
                                     : impl_->plain.reason_unknown();
}

}  // namespace dg::smt
