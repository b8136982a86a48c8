// Solve: from a checked problem to the best plan that satisfies every rule, or an explanation of
// why none does. Rules are tracked Z3 assertions (hardware rules from the model, numeric rules,
// and every user declaration with its source location); Z3's optimizer minimizes the analytic
// cost model (space.h) and breaks ties deterministically.
#pragma once

#include "support/error.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "dgml/diag.h"
#include "plan/plan.h"
#include "sema/problem.h"
#include "smt/smt.h"
#include "solve/space.h"

namespace dg::solve {

/// One rule of the query: a name, what it says, and where it comes from.
struct Rule {
  std::string name;    // "hw.smem_per_block", "spec.sm_mem_limit"
  std::string text;    // human statement, e.g. "shared memory per block <= 96 KB"
  Loc loc;             // spec location for user rules; invalid for hardware rules
  std::string origin;  // "hardware", "numerics", "generator" (what a kernel family generates), "user"
  std::string decl;    // user rules: the declaration as written ("sm_mem_limit 96")
};

/// The schedule solver's default work budget per family, in Z3's resource units. On the 2-core
/// build host ordinary schedule queries spend 2.3 to 4.1 million a second, and the heaviest spec of
/// the tests takes about 6 million in all: 50 million leaves that room eight times over. A hard
/// nonlinear free constraint spends them ever slower (tests/error/slow/hard_query.dgml: 18.4 million
/// in 20 s, 50 million in 147 s; bench/RESULTS.md).
inline constexpr std::uint64_t kDefaultWork = 50'000'000;

struct Options {
  int max_values = 0;                // cap each variable's domain (tests)
  std::vector<Point> exclude;        // points a backend rejected: the next-best plan is wanted
  std::optional<hw::Family> family;  // solve this instruction family only (none: every one the problem allows)
  // The budget of one family's queries, together: Z3's resource units ("rlimit"), which give
  // the same answer on every machine however loaded it is, and wall-clock seconds as a backstop.
  std::uint64_t work = kDefaultWork;
  double budget_s = smt::kBackstopSeconds;
  /// A saved plan's schedule (compile --from-plan): each variable held to its value by a rule of
  /// its own ("plan.tile_m"), so that a plan breaking a rule is explained like an infeasible spec.
  std::vector<std::pair<std::string, std::int64_t>> fixed;
  std::string fixed_from;  // where the fixed values come from, for the rules' text
  /// Saved plans' schedules (compile --exclude-plan), each with its family: no point of those is a
  /// candidate, so the solver answers with the next-best plan.
  std::vector<std::pair<hw::Family, std::vector<std::pair<std::string, std::int64_t>>>> exclude_schedules;
  /// The 4-bit weight kernel (whose schedule is not searched) this many steps lighter than
  /// w4_schedule's first choice: codegen's answer when ptxas finds the kernel spills.
  std::int64_t w4_lighter = 0;
};

/// The solver ran out of its budget (or Z3 gave up) before it could answer: a user error, since
/// only what the spec asks (its free constraints) makes a query that hard.
class GaveUp : public UserError {
 public:
  explicit GaveUp(const std::string& why) : UserError(why) {}
};

struct Result {
  std::optional<Plan> plan;
  Space space;
  std::vector<Rule> rules;
  // Infeasible: the minimal conflicting rules, and hints ("highest achievable ...").
  std::vector<Rule> conflict;
  std::vector<std::string> hints;
  double seconds = 0;
  int checks = 0;
  std::int64_t feasible_tiles = 0;
  struct FamilyResult {
    hw::Family family = hw::Family::MmaSync;
    std::optional<double> predicted_us;  // none: no point of this family satisfies every rule
  };
  std::vector<FamilyResult> families;  // each family solved, in the order tried
  Point point;                         // the chosen point (when plan)
  std::int64_t cost = 0;               // its objective value
};

/// Build the space and the rules, and find the optimum. Where the problem allows several
/// instruction families (mma.sync and wgmma on Hopper), each is solved and the plan of lower
/// predicted cost wins (the earlier family on a tie); an infeasible problem is explained with the
/// first family's rules.
Result solve(const GemmProblem& p, const Options& opts = {});

/// Report an infeasible result as diagnostics ("No valid candidate found after pruning", then
/// each conflicting rule at its location, then hints).
void explain(const Result& r, const GemmProblem& p, DiagEngine& diags);

/// The schedule variables' values of a plan (smem and dataflow as their codes): what
/// Options::fixed takes to solve for exactly that plan.
std::vector<std::pair<std::string, std::int64_t>> schedule_of(const Plan& plan);

/// "" when `plan` is a plan of problem `p` (target, family, precisions, shape, epilogue); else
/// the first difference, naming the plan's field ("M is 1024 in the plan, 2048 in the spec").
std::string plan_mismatch(const Plan& plan, const GemmProblem& p);

/// --emit=space: variables, domains, rules.
void dump_space(std::ostream& os, const Result& r);

}  // namespace dg::solve
