// Semantic checks: give an ast::Spec its meaning against a hardware model, or say precisely what
// is wrong. Types and ranges of every key, unknown and duplicate keys, the rules of SPEC.md §1
// (conflicting compute units, K alignment vs pad_k, the fp16-output note, precision combinations
// the target cannot do), the target resolved against hw-models/.
#pragma once

#include <optional>
#include <string>

#include "dgml/ast.h"
#include "dgml/diag.h"
#include "sema/problem.h"

namespace dg::sema {

/// Check `spec` with the models in `hw_dir`. Returns the problem when no error was reported.
std::optional<GemmProblem> check(const ast::Spec& spec, const std::string& hw_dir, DiagEngine& diags);

}  // namespace dg::sema
