// Runs tests/error/*.dgml through the front end and compares the diagnostics, rendered in full
// (location, message, the source line and its caret, as the compiler prints them), with the
// matching .err file, exactly. DEEPGEMM_ERROR_SPEC=NAME.dgml runs that one file (CTest runs one
// test per file so); without it, every file. DEEPGEMM_UPDATE_GOLDEN=1 rewrites the .err files.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dgml/parser.h"
#include "sema/check.h"
#include "solve/solve.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string diagnose(const fs::path& spec_path) {
  std::string file = spec_path.filename().string();
  std::string text = slurp(spec_path);
  dg::DiagEngine diags;
  diags.add_source(file, text);
  dg::ast::Spec spec = dg::dgml::parse(file, text, diags);
  if (!diags.has_errors()) {
    auto problem = dg::sema::check(spec, std::string(DEEPGEMM_SOURCE_DIR) + "/hw-models", diags);
    // Specs that pass sema reach the solver: their diagnostics are the infeasibility explanation.
    if (problem) {
      dg::solve::Result r = dg::solve::solve(*problem);
      if (!r.plan) dg::solve::explain(r, *problem, diags);
    }
  }
  std::ostringstream out;
  diags.print(out);
  return out.str();
}

}  // namespace

TEST_CASE("every malformed spec gets its exact diagnostics") {
  fs::path dir = fs::path(DEEPGEMM_SOURCE_DIR) / "tests" / "error";
  bool update = std::getenv("DEEPGEMM_UPDATE_GOLDEN") != nullptr;
  std::vector<fs::path> specs;
  if (const char* one = std::getenv("DEEPGEMM_ERROR_SPEC")) {
    specs.push_back(dir / one);
    REQUIRE_MESSAGE(fs::exists(specs.back()), "no such spec: " << one);
  } else {
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".dgml") specs.push_back(e.path());
    std::sort(specs.begin(), specs.end());
    REQUIRE(specs.size() >= 25);
  }
  for (const auto& spec : specs) {
    CAPTURE(spec.filename().string());
    std::string got = diagnose(spec);
    fs::path expected_path = fs::path(spec).replace_extension(".err");
    if (update) {
      std::ofstream(expected_path, std::ios::binary) << got;
      continue;
    }
    REQUIRE_MESSAGE(fs::exists(expected_path), "missing " << expected_path.filename().string());
    // Every case here is malformed: it must report at least one error.
    CHECK(got.find(": error: ") != std::string::npos);
    CHECK(got == slurp(expected_path));
  }
}
