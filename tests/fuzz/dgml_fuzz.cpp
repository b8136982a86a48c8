// Fuzz the whole front end: lexer, parser, printer and sema against the shipped hardware models.
// Invariants: no crash, no hang, no leak; a spec that parses prints back to source that parses to
// the same tree; sema never throws.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "dgml/parser.h"
#include "sema/check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  dg::DiagEngine diags;
  diags.add_source("f.dgml", text);
  dg::ast::Spec spec = dg::dgml::parse("f.dgml", text, diags);
  std::ostringstream sink;
  diags.print(sink);
  if (diags.has_errors()) return 0;

  std::ostringstream printed, tree1, tree2;
  dg::ast::print_dgml(printed, spec);
  dg::ast::dump(tree1, spec, false);
  dg::DiagEngine d2;
  dg::ast::Spec again = dg::dgml::parse("f.dgml", printed.str(), d2);
  dg::ast::dump(tree2, again, false);
  if (d2.has_errors() || tree1.str() != tree2.str()) std::abort();  // printer/parser disagree

  auto problem = dg::sema::check(spec, DEEPGEMM_SOURCE_DIR "/hw-models", diags);
  if (problem) {
    std::ostringstream os;
    os << *problem;
  }
  diags.print(sink);
  return 0;
}
