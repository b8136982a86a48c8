// Explain an infeasible query: shrink the solver's unsat core to a minimal set of conflicting
// rules, and for a numeric bound among them the best value the rest of the spec allows.
#pragma once

#include "smt/smt.h"
#include "solve/query.h"
#include "solve/solve.h"

namespace dg::solve {

/// Fill r.conflict and r.hints after `z` answered UNSAT over the rules of `m`.
/// `q` reads a point of the space from a model of `z` (for the tile shapes the other rules allow).
void explain_conflict(Result& r, smt::Solver& z, const Model& m, Query& q, const GemmProblem& p);

}  // namespace dg::solve
