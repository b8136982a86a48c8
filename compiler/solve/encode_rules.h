// Encode the rules: the hardware model's limits, numerics (overflow, exactness) and every user
// declaration with its location, as tracked assertions of the query, and the cost model's terms
// as its objective (space.h has the cost's formula).
#pragma once

#include "smt/smt.h"
#include "solve/query.h"
#include "solve/space.h"

namespace dg::solve {

/// Fill `m` with the rules of space `s` (tracked in `z`, so an UNSAT answer names them) and the
/// objective terms, over the index variables of `q`.
void encode_rules(const Space& s, smt::Solver& z, Query& q, Model& m);

}  // namespace dg::solve
