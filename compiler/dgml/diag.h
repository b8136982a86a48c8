// Diagnostics for user input: `file:line:col: error|warning|note: message`, then the source line
// and a caret under the column. Several diagnostics per run; the driver exits 1 when any error
// was reported. Compiler bugs do not come through here (support/error.h).
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace dg {

/// A position in a source file; line and col are 1-based, col counts bytes.
struct Loc {
  std::string file;
  int line = 0;
  int col = 0;

  bool valid() const { return line > 0; }
  std::string str() const;  // "file:line:col"
};

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  Loc loc;
  std::string message;
};

class DiagEngine {
 public:
  /// Register a file's text so diagnostics can quote its lines.
  void add_source(const std::string& file, std::string text);

  void error(const Loc& loc, std::string msg) { report(Severity::Error, loc, std::move(msg)); }
  void warning(const Loc& loc, std::string msg) { report(Severity::Warning, loc, std::move(msg)); }
  void note(const Loc& loc, std::string msg) { report(Severity::Note, loc, std::move(msg)); }
  void report(Severity sev, const Loc& loc, std::string msg);

  int error_count() const { return errors_; }
  bool has_errors() const { return errors_ > 0; }
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }

  /// Print every diagnostic with its source line and caret.
  void print(std::ostream& os) const;
  /// Only the first lines (`file:line:col: severity: message`), one per diagnostic.
  void print_brief(std::ostream& os) const;

  /// Stop collecting after this many errors (a flood helps nobody).
  static constexpr int kMaxErrors = 20;
  /// A quoted source line longer than this is cut around the column.
  static constexpr std::size_t kQuoteWidth = 160;

 private:
  std::map<std::string, std::vector<std::string>> lines_;
  std::vector<Diagnostic> diags_;
  int errors_ = 0;
};

const char* severity_name(Severity s);

}  // namespace dg
