#include "formal/induction.h"

#include "formal/unroll.h"
#include "smt/smt.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <optional>
#include <sstream>

namespace dg::formal {

bool InductionResult::all_proved() const {
  if (!error.empty() || properties.empty()) return false;
  for (const auto& p : properties)
    if (!p.proved) return false;
  return true;
}

namespace {

struct Assertion {
  int id;
  std::string name, location;
};

/// The design's text as the checks use it where it is not unrolled (formal/unroll.h says why it
/// is unrolled where it can be). Yosys writes every cell, wire and predicate as a define-fun over
/// the state, which Z3 4.8 expands into a tree per use; as define-fun-rec the same definitions
/// are unfolded on demand, in seconds per check on the generated modules. The conjunction |M_a|
/// is dropped: each assertion is checked on its own.
std::string prepared(const std::string& smt2, const std::string& top) {
  std::string s = smt2;
  const std::string head = "(define-fun |" + top + "_a| ";
  if (std::size_t at = s.find(head); at != std::string::npos)
    if (std::size_t end = s.find("\n))\n", at); end != std::string::npos) s = s.substr(0, at) + s.substr(end + 4);
  const std::string from = "\n(define-fun |", to = "\n(define-fun-rec |";
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

/// "at reset", "1 step after reset", "3 steps after reset".
std::string after_reset(int step) {
  if (step == 0) return "at reset";
  return fmt::format("{} step{} after reset", step, step == 1 ? "" : "s");
}

std::vector<Assertion> assertions(const std::string& smt2) {
  std::vector<Assertion> out;
  std::istringstream in(smt2);
  std::string line;
  const std::string tag = "; yosys-smt2-assert ";
  while (std::getline(in, line)) {
    if (line.rfind(tag, 0) != 0) continue;
    std::istringstream f(line.substr(tag.size()));
    Assertion a;
    f >> a.id >> a.name;
    std::getline(f >> std::ws, a.location);
    out.push_back(a);
  }
  return out;
}

/// The queries, asked of the design unrolled into steps (formal/unroll.h) or, where Yosys wrote a
/// form the unrolling does not handle, of its functions as recursive definitions over declared
/// states s0, s1, ...
class Checker {
 public:
  Checker(const std::string& smt2, std::string top, std::uint64_t check_work, std::uint64_t budget_work)
      : top_(std::move(top)), check_work_(check_work), budget_work_(budget_work) {
    unrolled_ = UnrolledSystem::parse(smt2, top_, nullptr);
    if (!unrolled_) design_ = prepared(smt2, top_);
  }

  /// Is there a path s0 .. s_step (from the initial state when `base`, else from any state) on
  /// which every assertion holds before s_step and assertion `id` fails at s_step?
  smt::Result fails_at(int id, int step, bool base, const std::vector<Assertion>& all) {
    return check(step, base, all, fmt::format("(assert (not {}))\n", ref(fmt::format("{}_a {}", top_, id), {step})));
  }

  /// The same question for all assertions at once: does any of them fail at s_step?
  smt::Result any_fails_at(int step, bool base, const std::vector<Assertion>& all) {
    std::string goal = "(assert (or";
    for (const auto& a : all) goal += fmt::format(" (not {})", ref(fmt::format("{}_a {}", top_, a.id), {step}));
    return check(step, base, all, goal + "))\n");
  }

 private:
  /// Function `name` of the states at `steps`.
  std::string ref(const std::string& name, const std::vector<int>& steps) const {
    if (unrolled_) return UnrolledSystem::at(name, steps);
    std::string s = "(|" + name + "|";
    for (int st : steps) s += fmt::format(" s{}", st);
    return s + ")";
  }

  smt::Result check(int step, bool base, const std::vector<Assertion>& all, const std::string& goal) {
    std::string q = unrolled_ ? unrolled_->steps(step) : design_;
    for (int s = 0; s <= step; ++s) {
      if (!unrolled_) q += fmt::format("(declare-fun s{} () |{}_s|)\n", s, top_);
      q += fmt::format("(assert {})\n(assert {})\n", ref(top_ + "_u", {s}), ref(top_ + "_h", {s}));
      if (s > 0) q += fmt::format("(assert {})\n", ref(top_ + "_t", {s - 1, s}));
      if (base && s == 0) q += fmt::format("(assert {})\n(assert {})\n", ref(top_ + "_i", {0}), ref(top_ + "_is", {0}));
      if (!base || s > 0) q += fmt::format("(assert (not {}))\n", ref(top_ + "_is", {s}));
      if (s < step)
        for (const auto& a : all) q += fmt::format("(assert {})\n", ref(fmt::format("{}_a {}", top_, a.id), {s}));
    }
    q += goal;
    const std::uint64_t limit = std::min(check_work_, budget_work_ - std::min(spent_, budget_work_));
    smt::TextAnswer a = smt::check_text(fmt::format("induction.{}.step{}", top_, step), q, limit);
    spent_ += a.work;
    last_work_ = a.work;
    return a.result;
  }

 public:
  /// Has the module's budget been spent (no check may start)?
  bool spent() const { return spent_ >= budget_work_; }
  std::uint64_t last_work() const { return last_work_; }
  std::uint64_t total_work() const { return spent_; }

 private:
  std::string top_;
  std::uint64_t check_work_, budget_work_, spent_ = 0, last_work_ = 0;
  std::optional<UnrolledSystem> unrolled_;
  std::string design_;  // the recursive definitions, when not unrolled
};

}  // namespace

InductionResult prove_by_induction(const std::string& smt2, const std::string& top, int max_k, std::uint64_t check_work,
                                   std::uint64_t budget_work) {
  InductionResult r;
  std::vector<Assertion> all = assertions(smt2);
  if (smt2.find("; yosys-smt2-module " + top) == std::string::npos) {
    r.error = "no module '" + top + "' in the SMT-LIB text";
    return r;
  }
  if (all.empty()) {
    r.error = "module '" + top + "' has no assertions";
    return r;
  }
  Checker c(smt2, top, check_work, budget_work);
  // k-induction of the conjunction: for k = 1, 2, ..., every assertion holds in steps 0 .. k
  // after reset (a failure there is a real counterexample), and every assertion holds at step k
  // of any path on which all of them held in the k steps before. The same k serves all, since
  // each induction step assumes every assertion.
  try {
    for (const auto& a : all) r.properties.push_back({a.name, a.location, false, 0, "", 0});
    // First all assertions in one query per step: when none can fail in the base case nor in the
    // induction step, each is proved, and the module costs a few solver calls instead of a few
    // per assertion. Otherwise (or without an answer) each assertion is checked on its own.
    {
      auto t0 = std::chrono::steady_clock::now();
      for (int jk = 1; jk <= max_k; ++jk) {
        bool base_ok = true;
        for (int step = 0; step <= jk && base_ok; ++step)
          base_ok = c.any_fails_at(step, true, all) == smt::Result::Unsat;
        if (!base_ok) break;
        if (c.any_fails_at(jk, false, all) == smt::Result::Unsat) {
          const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          for (auto& p : r.properties) {
            p.proved = true;
            p.depth = jk;
            p.ms = ms;
            p.work = c.total_work();
            p.detail = fmt::format("k-induction, k = {} (all {} assertions of the module in one query per step)", jk,
                                   all.size());
          }
          return r;
        }
        if (c.spent()) break;
      }
    }
    std::vector<bool> failed(all.size(), false), inductive(all.size(), false), undecided(all.size(), false);
    int base_done = -1, k = 1;
    for (; k <= max_k; ++k) {
      for (int step = base_done + 1; step <= k; ++step)
        for (size_t i = 0; i < all.size(); ++i) {
          if (failed[i]) continue;
          auto t0 = std::chrono::steady_clock::now();
          if (c.spent()) {
            failed[i] = true;
            r.properties[i].detail = fmt::format("not checked: the proof's work budget ({}) was spent", budget_work);
            continue;
          }
          smt::Result b = c.fails_at(all[i].id, step, true, all);
          r.properties[i].ms +=
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          r.properties[i].work += c.last_work();
          if (b != smt::Result::Unsat) {
            failed[i] = true;
            r.properties[i].depth = step;
            r.properties[i].detail =
                b == smt::Result::Sat
                    ? "fails " + after_reset(step)
                    : fmt::format("no answer within the work limit ({}) at step {}", check_work, step);
          }
        }
      base_done = k;
      if (std::find(failed.begin(), failed.end(), true) != failed.end()) break;
      bool all_inductive = true;
      for (size_t i = 0; i < all.size(); ++i) {
        auto t0 = std::chrono::steady_clock::now();
        const bool ran = !c.spent();
        smt::Result ind = ran ? c.fails_at(all[i].id, k, false, all) : smt::Result::Unknown;
        inductive[i] = ind == smt::Result::Unsat;
        undecided[i] = ind == smt::Result::Unknown;
        r.properties[i].ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (ran) r.properties[i].work += c.last_work();
        all_inductive = all_inductive && inductive[i];
      }
      if (all_inductive) break;
    }
    const bool proved = k <= max_k && std::find(failed.begin(), failed.end(), true) == failed.end();
    for (size_t i = 0; i < all.size(); ++i) {
      auto& p = r.properties[i];
      if (failed[i]) continue;
      p.proved = proved;
      p.depth = std::min(k, max_k);
      if (proved)
        p.detail = fmt::format("k-induction, k = {}", k);
      else if (std::find(failed.begin(), failed.end(), true) != failed.end())
        p.detail = "not proved: another assertion fails";
      else
        p.detail = inductive[i] ? fmt::format("inductive only together with an unproved assertion (k = {})", max_k)
                   : undecided[i]
                       ? "holds " + after_reset(max_k) + "; the induction step got no answer within the work limit"
                       : fmt::format("holds {}, but is not {}-inductive", after_reset(max_k), max_k);
    }
  } catch (const smt::TextError& e) {
    r.error = "Z3 rejected the SMT-LIB text: " + e.message;
  }
  return r;
}

}  // namespace dg::formal
