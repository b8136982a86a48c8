// k-induction over a hardware design's SMT-LIB2 transition system, as Yosys writes it
// (`write_smt2`): the state sort |M_s|, the initial-state predicates |M_i| and |M_is|, the
// transition relation |M_t|, the assumptions |M_u|, the hierarchy |M_h|, and one predicate
// |M_a N| per assertion (announced by a `; yosys-smt2-assert N name location` comment).
// Unbounded proof: an assertion is proved when it holds in the first k steps from the initial
// state (base case) and whenever it held in k consecutive steps it holds in the next (induction
// step). The queries go to Z3 as SMT-LIB text through the wall of compiler/smt/ (smt::check_text);
// this folder never includes z3++.h.
#pragma once

#include <cstdint>
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
  std::uint64_t work = 0;  // solver work spent on it (a joint query's, for each it covered)
};

struct InductionResult {
  std::vector<PropertyResult> properties;
  std::string error;  // the SMT-LIB text could not be used ("" when it could)
  bool all_proved() const;
};

/// Solver work (Z3's resource count, smt::TextAnswer::work): the proof's bounds are counted in
/// it, not in time, so that a design proves or not alike on an idle and on a loaded machine. The
/// RTL proofs spend about 2 million a second on one core of the build host (the AXI4 write
/// master's proof for examples/npu_int8.dgml, 10.0 million in 4.6 s: bench/RESULTS.md, "RTL
/// proofs bounded by solver work"), so a check may take about a minute and a module two.
inline constexpr std::uint64_t kWorkPerCheck = 100'000'000;   // one solver check
inline constexpr std::uint64_t kWorkPerModule = 200'000'000;  // all checks of one module

/// Prove every assertion of module `top` in `smt2`, trying k = 1 .. max_k. Each solver check may
/// spend at most `check_work`; a check that runs out leaves its assertion unproved (the result
/// says so), and no check starts once `budget_work` is spent in all, so that a proof never hangs
/// a compile.
InductionResult prove_by_induction(const std::string& smt2, const std::string& top, int max_k = 2,
                                   std::uint64_t check_work = kWorkPerCheck,
                                   std::uint64_t budget_work = kWorkPerModule);

}  // namespace dg::formal
