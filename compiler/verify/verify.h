// Verify: prove, with Z3 over symbolic block, warp, fragment, element and K-loop indices, that a
// plan's index description (plan.index — the same one the backends emit) computes the GEMM it
// claims: every C element produced by exactly one tuple, the K loop covering [0, K) exactly once,
// every access in bounds or predicated into the zero-filled tail, no 32-bit index overflow, and
// conflict-free shared-memory reads for the chosen layout. Each check is named; a failed one
// carries a counterexample (the indices).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "plan/plan.h"

namespace dg::verify {

struct Check {
  std::string name;
  std::string statement;  // what was proved
  bool passed = false;
  std::string counterexample;  // when failed: "block_m=3, warp_m=1, ... -> row 400"
  double ms = 0;
};

struct Certificate {
  std::vector<Check> checks;
  double seconds = 0;
  bool all_passed() const;
};

Certificate verify(const Plan& plan);

/// --emit=proof text.
void dump(std::ostream& os, const Certificate& c);
std::string to_json_text(const Certificate& c);

}  // namespace dg::verify
