// The wall around Z3: the only header of the compiler that speaks to the solver, and the only
// folder that includes z3++.h. Expressions are opaque values; every query has a name; results are
// an enum; tracked assertions carry a rule name so that an UNSAT answer names the rules that
// conflict; a SAT answer yields a model to read values from.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dg::smt {

class Solver;
struct ExprAccess;

/// An integer, real or Boolean term. Cheap to copy.
class Expr {
 public:
  Expr();
  ~Expr();
  Expr(const Expr&);
  Expr& operator=(const Expr&);

  friend Expr operator+(const Expr& a, const Expr& b);
  friend Expr operator-(const Expr& a, const Expr& b);
  friend Expr operator*(const Expr& a, const Expr& b);
  friend Expr operator/(const Expr& a, const Expr& b);  // integer division (floor for positives)
  friend Expr operator%(const Expr& a, const Expr& b);
  friend Expr operator-(const Expr& a);
  friend Expr operator==(const Expr& a, const Expr& b);
  friend Expr operator!=(const Expr& a, const Expr& b);
  friend Expr operator<(const Expr& a, const Expr& b);
  friend Expr operator<=(const Expr& a, const Expr& b);
  friend Expr operator>(const Expr& a, const Expr& b);
  friend Expr operator>=(const Expr& a, const Expr& b);
  friend Expr operator&&(const Expr& a, const Expr& b);
  friend Expr operator||(const Expr& a, const Expr& b);
  friend Expr operator!(const Expr& a);
  friend Expr ite(const Expr& c, const Expr& t, const Expr& e);
  friend Expr implies(const Expr& a, const Expr& b);

  // Mixed with integer constants of the same context.
  Expr operator+(std::int64_t v) const;
  Expr operator-(std::int64_t v) const;
  Expr operator*(std::int64_t v) const;
  Expr operator==(std::int64_t v) const;
  Expr operator!=(std::int64_t v) const;
  Expr operator<(std::int64_t v) const;
  Expr operator<=(std::int64_t v) const;
  Expr operator>(std::int64_t v) const;
  Expr operator>=(std::int64_t v) const;

  bool valid() const { return impl_ != nullptr; }
  std::string str() const;  // SMT-LIB text, for dumps

  struct Impl;

 private:
  friend class Solver;
  friend struct ExprAccess;
  explicit Expr(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

Expr ite(const Expr& c, const Expr& t, const Expr& e);
Expr implies(const Expr& a, const Expr& b);
// Bit-vector terms (from Solver::bv_var / bv_val); +, -, * and == work on them as well.
Expr bv_xor(const Expr& a, const Expr& b);
Expr bv_and(const Expr& a, const Expr& b);
Expr bv_lshr(const Expr& a, unsigned n);
Expr bv_shl(const Expr& a, unsigned n);
Expr bv_ult(const Expr& a, const Expr& b);  // unsigned <
Expr bv_ule(const Expr& a, const Expr& b);  // unsigned <=

/// Sum of terms (0 for an empty list needs a solver: see Solver::sum).
Expr sum(const std::vector<Expr>& terms);
Expr all_of(const std::vector<Expr>& terms);
Expr any_of(const std::vector<Expr>& terms);

/// Z3's version, "4.8.12" (for --version).
std::string z3_version();

enum class Result { Sat, Unsat, Unknown };
const char* result_name(Result r);

/// SMT-LIB2 text the solver could not read (a parse or sort error): the text came from outside
/// the compiler (a tool's output), so this is reported, not asserted.
struct TextError {
  std::string message;
};

/// The answer to check_text, and the work Z3 spent on it (its resource count: internal steps,
/// the same on a loaded machine as on an idle one).
struct TextAnswer {
  Result result = Result::Unknown;
  std::uint64_t work = 0;
};

/// One named query given as SMT-LIB2 text (declarations, definitions and assertions, no
/// `check-sat`): is the conjunction of its assertions satisfiable? Unknown when `work_limit`
/// (Z3's resource limit, at most 2^32 - 1; 0 for none) is reached, so that the answer does not
/// depend on the machine's load; a wall-clock cap of 10 minutes only guards against a hang.
/// Throws TextError when Z3 does not accept the text. For checks of designs that other tools
/// write as SMT-LIB (the RTL prover, hdl-gen/formal/).
TextAnswer check_text(const std::string& name, const std::string& smtlib, std::uint64_t work_limit);

/// One named query context: a Z3 context with a solver, and an optimizer when `optimizing`
/// (minimize/maximize are allowed only then).
/// The wall clock's share of a work-bounded budget: a backstop far past what the work allows on
/// an idle machine, which only a machine many times slower would reach.
inline constexpr double kBackstopSeconds = 600;

class Solver {
 public:
  explicit Solver(std::string name, bool optimizing = false);
  ~Solver();
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  const std::string& name() const { return name_; }

  Expr int_var(const std::string& name);
  Expr int_val(std::int64_t v);
  Expr bool_val(bool v);
  Expr bv_var(const std::string& name, unsigned bits);
  Expr bv_val(std::uint64_t v, unsigned bits);
  Expr sum(const std::vector<Expr>& terms);

  /// A hard fact (definition or domain): never part of an explanation.
  void add(const Expr& e);
  /// A rule that may be blamed: when the query is UNSAT, unsat_core() names the tracked rules
  /// that conflict. Names must be unique within the solver.
  void track(const Expr& e, const std::string& rule);

  void minimize(const Expr& e);
  void maximize(const Expr& e);

  /// A budget for every check from now on, together: wall-clock seconds, and (work > 0) Z3's
  /// resource units ("rlimit"), which count the same on every machine however loaded it is. Each
  /// check may use what is left of both (at most 60 s where no work budget is set), and once either
  /// is spent a check answers Unknown without running.
  void set_budget(double seconds, std::uint64_t work = 0);

  /// Run the query (optionally only over a subset of tracked rules).
  Result check();
  /// Check with the tracked rules except those named in `relaxed`.
  Result check_without(const std::vector<std::string>& relaxed);

  std::vector<std::string> unsat_core() const;  // rule names, in tracking order
  std::int64_t eval_int(const Expr& e) const;   // model value (model completion on)

  void push();
  void pop();

  /// Seconds spent in check() so far, and number of checks.
  double seconds() const { return seconds_; }
  int checks() const { return checks_; }
  std::string reason_unknown() const;
  /// The budget as set_budget set it, for messages ("600 s and 50000000 units").
  std::string budget_text() const;
  /// The assertions as SMT-LIB2 text (for DEEPGEMM_DUMP_SMT and debugging).
  std::string to_smt2() const;

  struct Impl;

 private:
  std::string name_;
  std::unique_ptr<Impl> impl_;
  double seconds_ = 0;
  int checks_ = 0;
  double budget_ = 0;      // seconds; 0 = none (each check still stops after 60 s)
  double budget_set_ = 0;  // as set: seconds, units
  std::uint64_t work_set_ = 0;
  std::uint64_t work_ = 0;         // the context's resource units after the last check
  std::uint64_t work_budget_ = 0;  // the units at which checks stop; 0 = none
  const char* spent_ = nullptr;    // which budget a check found spent
  bool budget_spent_ = false;
};

}  // namespace dg::smt
