// k-induction over a hardware design's SMT-LIB2 transition system, as Yosys writes it
// (`write_smt2`): the state sort |M_s|, the initial-state predicates |M_i| and |M_is|, the
// transition relation |M_t|, the assumptions |M_u|, the hierarchy |M_h|, and one predicate
// |M_a N| per assertion (announced by a `; yosys-smt2-assert N name location` comment).
// Unbounded proof: an assertion is proved when it holds in the first k steps from the initial
// state (base case) and whenever it held in k consecutive steps it holds in the next (induction
// step). The queries go to Z3 as SMT-LIB text through the wall of compiler/smt/ (smt::check_text);
// this folder never includes z3++.h.
#pragma once

#include <string>
#include <vector>

namespace dg::formal {

struct PropertyResult {
  std::string name;      // the assertion's cell name
  std::string location;  // source location, file:line.col-line.col
  bool proved = false;
  int depth = 0;       // k of the proof, or the failing step
  std::string detail;  // "k-induction, k = 2" or why it failed
  double ms = 0;
};

struct InductionResult {
  std::vector<PropertyResult> properties;
  std::string error;  // the SMT-LIB text could not be used ("" when it could)
  bool all_proved() const;
};

/// Prove every assertion of module `top` in `smt2`, trying k = 1 .. max_k. Each solver check is
/// given at most `check_ms` milliseconds; a check that runs out leaves its assertion unproved
/// (the result says so), and no check starts after `budget_ms` in all, so that a proof never
/// hangs a compile.
InductionResult prove_by_induction(const std::string& smt2, const std::string& top, int max_k = 2,
                                   unsigned check_ms = 30000, unsigned budget_ms = 60000);

}  // namespace dg::formal
