#include "rtl_mutate.h"

#include <cctype>
#include <regex>
#include <string_view>
#include <vector>

namespace dg::testing {

std::string token_pattern(const std::string& code) {
  auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
  std::string re;
  bool prev_word = false;
  for (std::size_t i = 0; i < code.size();) {
    if (std::isspace(static_cast<unsigned char>(code[i]))) {
      ++i;
      continue;
    }
    const bool word = is_word(code[i]);
    std::size_t j = i + 1;
    while (word && j < code.size() && is_word(code[j])) ++j;
    if (!re.empty()) re += word && prev_word ? "\\s+" : "\\s*";
    for (char c : code.substr(i, j - i)) {
      if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) re += '\\';
      re += c;
    }
    prev_word = word;
    i = j;
  }
  return re;
}

namespace {

/// Replaces the one match of `re` in `text` by `to(match)`; "" or why not.
std::string replace_one(std::string& text, const std::string& re,
                        const std::function<std::string(const std::smatch&)>& to) {
  const std::regex pattern(re);
  std::vector<std::smatch> found(std::sregex_iterator(text.begin(), text.end(), pattern), std::sregex_iterator());
  if (found.size() != 1)
    return (found.empty() ? "no place matches /" : std::to_string(found.size()) + " places match /") + re + "/";
  const std::string replacement = to(found[0]);
  text.replace(static_cast<std::size_t>(found[0].position(0)), static_cast<std::size_t>(found[0].length(0)),
               replacement);
  return "";
}

}  // namespace

std::string replace_code(std::string& text, const std::string& from, const std::string& to) {
  if (from.find_first_not_of(" \t\n") == std::string::npos) return "the code to replace is empty";
  return replace_one(text, token_pattern(from), [&](const std::smatch&) { return to; });
}

std::string reassign(std::string& text, const std::string& lhs,
                     const std::function<std::string(const std::string&)>& rhs) {
  static const std::regex ident("[A-Za-z_][A-Za-z0-9_$]*");
  if (!std::regex_match(lhs, ident)) return "'" + lhs + "' is not a signal name";
  return replace_one(text, "\\bassign\\s+" + lhs + "\\s*=\\s*([^;]*?)\\s*;",
                     [&](const std::smatch& m) { return "assign " + lhs + " = " + rhs(m[1].str()) + ";"; });
}

}  // namespace dg::testing
