// Fuzz the front end through the solver: specs that parse and pass sema are solved on a small
// budget (2 s), and a plan, if one is found, is printed. Invariants: no crash, no hang, no leak;
// the only exceptions are user errors (the solver's GaveUp among them), never an internal error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "dgml/parser.h"
#include "plan/plan.h"
#include "sema/check.h"
#include "solve/solve.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;  // specs are small; long inputs only slow the search down
  std::string text(reinterpret_cast<const char*>(data), size);
  dg::DiagEngine diags;
  diags.add_source("f.dgml", text);
  dg::ast::Spec spec = dg::dgml::parse("f.dgml", text, diags);
  if (diags.has_errors()) return 0;
  auto problem = dg::sema::check(spec, DEEPGEMM_SOURCE_DIR "/hw-models", diags);
  if (!problem) return 0;
  dg::solve::Options opts;
  opts.budget_s = 2;
  opts.max_values = 4;  // small domains: each input solves in well under a second
  try {
    dg::solve::Result r = dg::solve::solve(*problem, opts);
    std::ostringstream sink;
    if (r.plan) {
      sink << dg::dump_plan(*r.plan);
    } else {
      dg::solve::explain(r, *problem, diags);
      diags.print(sink);
    }
  } catch (const dg::UserError&) {
    // the solver gave up within its budget, or the spec asks for something no plan has
  }
  return 0;
}
