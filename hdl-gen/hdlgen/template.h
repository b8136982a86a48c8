// Filling the Verilog templates of hdl-gen (internal): every @KEY@ is replaced by its value;
// Verilog's own braces and `@(posedge ...)` stay untouched; a placeholder left unfilled is a bug.
#pragma once

#include <map>
#include <regex>
#include <string>

#include "support/error.h"

namespace dg::hdlgen {

inline std::string subst(std::string text, const std::map<std::string, std::string>& values, bool complete = true) {
  for (const auto& [k, v] : values) {
    const std::string key = "@" + k + "@";
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + v.size()))
      text.replace(at, key.size(), v);
  }
  if (complete) {
    std::smatch m;
    DG_INTERNAL_ASSERT(!std::regex_search(text, m, std::regex("@[A-Z0-9_]+@")),
                       "hdlgen: template placeholder " + m.str() + " was left unfilled");
  }
  return text;
}

}  // namespace dg::hdlgen
