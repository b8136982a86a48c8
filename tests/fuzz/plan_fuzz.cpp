// Fuzz compile --from-plan's path: a saved plan (JSON) is read, checked to be a plan of a fixed
// spec (examples/matmul.dgml, or the NPU example when the input says "npu"), and solved with its
// schedule held by the plan's rules; an infeasible one is explained. Invariants: no crash, no hang,
// no leak; the only exceptions are user errors and JSON errors, never an internal error.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "dgml/parser.h"
#include "plan/plan.h"
#include "sema/check.h"
#include "solve/solve.h"
#include "support/error.h"

namespace {

std::optional<dg::GemmProblem> problem_of(const char* example, dg::DiagEngine& diags) {
  std::ifstream in(std::string(DEEPGEMM_SOURCE_DIR "/examples/") + example);
  std::stringstream ss;
  ss << in.rdbuf();
  diags.add_source(example, ss.str());
  dg::ast::Spec spec = dg::dgml::parse(example, ss.str(), diags);
  return dg::sema::check(spec, DEEPGEMM_SOURCE_DIR "/hw-models", diags);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  static dg::DiagEngine gpu_diags, npu_diags;
  static const std::optional<dg::GemmProblem> gpu = problem_of("matmul.dgml", gpu_diags);
  static const std::optional<dg::GemmProblem> npu = problem_of("npu_int8.dgml", npu_diags);
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const dg::Plan plan = dg::plan_from_json(nlohmann::json::parse(text));
    const dg::GemmProblem& p = text.find("npu") != std::string::npos ? *npu : *gpu;
    if (!dg::solve::plan_mismatch(plan, p).empty()) return 0;
    dg::solve::Options opts;
    opts.budget_s = 2;
    opts.fixed = dg::solve::schedule_of(plan);
    opts.fixed_from = "the plan";
    opts.family = plan.family;
    dg::solve::Result r = dg::solve::solve(p, opts);
    std::ostringstream sink;
    if (r.plan) {
      sink << dg::dump_plan(*r.plan);
    } else {
      dg::DiagEngine why;
      dg::solve::explain(r, p, why);
      why.print(sink);
    }
  } catch (const nlohmann::json::exception&) {
  } catch (const dg::UserError&) {
  }
  return 0;
}
