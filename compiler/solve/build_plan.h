// Build the Plan from the solver's point: the schedule's values, the derived launch geometry and
// the index description verify proves coverage over; and the way back, a plan's schedule as the
// space's variable values (compile --from-plan, --exclude-plan).
#pragma once

#include <vector>

#include "plan/plan.h"
#include "solve/solve.h"
#include "solve/space.h"

namespace dg::solve {

/// The plan of point `x` of space `s`, with the rules it was chosen under.
Plan make_plan(const Space& s, const Point& x, const std::vector<Rule>& rules);

}  // namespace dg::solve
