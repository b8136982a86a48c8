// Small string helpers shared by the front end and the hardware-model loader.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dg {

/// Levenshtein distance between two ASCII strings.
int edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word` when it is close enough to be a likely typo, else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

/// `s` as one word of a POSIX shell command: in single quotes, each ' written as '\''.
std::string shell_quote(std::string_view s);

/// "a, b and c"
std::string join_words(const std::vector<std::string>& words, std::string_view last_sep = " and ");

}  // namespace dg
