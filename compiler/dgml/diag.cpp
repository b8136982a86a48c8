#include "dgml/diag.h"

#include <fmt/format.h>

#include <algorithm>

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
    const std::string& full = it->second[d.loc.line - 1];
    // A long line is quoted around the column only: at most kQuoteWidth bytes, "..." at a cut.
    const std::size_t col = static_cast<std::size_t>(std::max(d.loc.col, 1)) - 1;
    std::size_t from = 0, to = full.size();
    if (full.size() > kQuoteWidth) {
      from = col > kQuoteWidth / 2 ? std::min(col - kQuoteWidth / 2, full.size() - kQuoteWidth) : 0;
      to = from + kQuoteWidth;
    }
    const std::string lead = from > 0 ? "..." : "";
    os << lead << full.substr(from, to - from) << (to < full.size() ? "..." : "") << "\n";
    // The caret keeps tabs so that it lines up under the column in a terminal.
    std::string pad(lead.size(), ' ');
    for (std::size_t i = from; i < col && i < to; ++i) pad += full[i] == '\t' ? '\t' : ' ';
    os << pad << "^\n";
  }
}

}  // namespace dg
