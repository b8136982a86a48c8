#include "dgml/diag.h"

#include <fmt/format.h>

namespace dg {

std::string Loc::str() const {
  if (!valid()) return file;
  return fmt::format("{}:{}:{}", file, line, col);
}

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

void DiagEngine::add_source(const std::string& file, std::string text) {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      lines.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  lines.push_back(cur);
  lines_[file] = std::move(lines);
}

void DiagEngine::report(Severity sev, const Loc& loc, std::string msg) {
  if (errors_ >= kMaxErrors) return;
  if (sev == Severity::Error) ++errors_;
  diags_.push_back({sev, loc, std::move(msg)});
  if (errors_ == kMaxErrors)
    diags_.push_back({Severity::Note, loc, fmt::format("too many errors ({}); stopping", kMaxErrors)});
}

void DiagEngine::print_brief(std::ostream& os) const {
  for (const auto& d : diags_) os << d.loc.str() << ": " << severity_name(d.severity) << ": " << d.message << "\n";
}

void DiagEngine::print(std::ostream& os) const {
  for (const auto& d : diags_) {
    os << d.loc.str() << ": " << severity_name(d.severity) << ": " << d.message << "\n";
    auto it = lines_.find(d.loc.file);
    if (!d.loc.valid() || it == lines_.end() || d.loc.line > static_cast<int>(it->second.size())) continue;
    const std::string& line = it->second[d.loc.line - 1];
    os << line << "\n";
    // The caret keeps tabs so that it lines up under the column in a terminal.
    std::string pad;
    for (int i = 0; i + 1 < d.loc.col && i < static_cast<int>(line.size()); ++i) pad += line[i] == '\t' ? '\t' : ' ';
    os << pad << "^\n";
  }
}

}  // namespace dg
