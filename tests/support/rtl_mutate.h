// Seeded bugs placed in generated Verilog by structure, not by its exact text: a continuous
// assignment by the signal it drives (its new right-hand side computed from the old one),
// anything else by its tokens, white space aside. Each must match exactly one place in the file,
// so a mutant never lands on a look-alike, and re-indenting or re-aligning the generated Verilog
// neither moves nor loses it. Used by the formal mutants (tests/formal) and, through the
// rtl_mutate tool, by the co-simulation mutants (tests/cosim).
#pragma once

#include <functional>
#include <string>

namespace dg::testing {

/// A regular expression matching `code` token by token, any white space between tokens (at least
/// some between two words).
std::string token_pattern(const std::string& code);

/// Replaces the one place of `text` where the code `from` stands (white space aside) by `to`.
/// Returns "" or why it could not (no match, or more than one).
std::string replace_code(std::string& text, const std::string& from, const std::string& to);

/// Gives the one continuous assignment to `lhs` in `text` the right-hand side `rhs(old one)`.
/// Returns "" or why it could not.
std::string reassign(std::string& text, const std::string& lhs,
                     const std::function<std::string(const std::string&)>& rhs);

}  // namespace dg::testing
