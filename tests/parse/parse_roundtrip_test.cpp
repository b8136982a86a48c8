#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "dgml/parser.h"
#include "sema/check.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string tree(const dg::ast::Spec& s) {
  std::ostringstream os;
  dg::ast::dump(os, s, /*with_locations=*/false);
  return os.str();
}

std::string source(const dg::ast::Spec& s) {
  std::ostringstream os;
  dg::ast::print_dgml(os, s);
  return os.str();
}

// parse → print → parse gives the same tree, and printing is a fixed point.
void check_roundtrip(const std::string& name, const std::string& text) {
  CAPTURE(name);
  dg::DiagEngine d1;
  dg::ast::Spec first = dg::dgml::parse(name, text, d1);
  std::ostringstream diags;
  d1.print(diags);
  REQUIRE_MESSAGE(!d1.has_errors(), diags.str());
  std::string printed = source(first);
  dg::DiagEngine d2;
  dg::ast::Spec second = dg::dgml::parse(name, printed, d2);
  REQUIRE(!d2.has_errors());
  CHECK(tree(first) == tree(second));
  CHECK(source(second) == printed);
  CHECK(!first.blocks.empty());
}

}  // namespace

TEST_CASE("every example parses, round-trips and passes sema") {
  int n = 0;
  for (const auto& e : fs::directory_iterator(fs::path(DEEPGEMM_SOURCE_DIR) / "examples")) {
    if (e.path().extension() != ".dgml") continue;
    std::string text = slurp(e.path());
    check_roundtrip(e.path().filename().string(), text);
    dg::DiagEngine d;
    auto spec = dg::dgml::parse(e.path().string(), text, d);
    auto problem = dg::sema::check(spec, std::string(DEEPGEMM_SOURCE_DIR) + "/hw-models", d);
    std::ostringstream os;
    d.print(os);
    CHECK_MESSAGE(problem.has_value(), e.path().filename().string() << ":\n" << os.str());
    ++n;
  }
  CHECK(n >= 4);
}

TEST_CASE("the SPEC.md section 1 example, as written") {
  const char* spec = R"(// matmul.dgml - 4096x4096x4096 FP16 GEMM for Hopper
target hopper;

precision {
    weight: fp16;
    activation: fp16;
    output: fp16;
}

shape {
    M: 4096;
    N: 4096;
    K: 4096;
}

constraints {
    // force Tensor Core HMMA instructions
    use_hmma: true;
    // max shared memory (KB)
    sm_mem_limit: 96;
    // require L2 cache hit rate >= 85%
    l2_hit_rate_min: 0.85;
}
)";
  check_roundtrip("matmul.dgml", spec);
  CHECK(slurp(fs::path(DEEPGEMM_SOURCE_DIR) / "examples" / "matmul.dgml") == spec);
  dg::DiagEngine d;
  auto ast = dg::dgml::parse("matmul.dgml", spec, d);
  auto p = dg::sema::check(ast, std::string(DEEPGEMM_SOURCE_DIR) + "/hw-models", d);
  REQUIRE(p);
  CHECK(p->hw.name == "hopper");
  CHECK(p->a.value.name == "fp16");
  CHECK(p->c.value.name == "fp16");
  CHECK(p->acc.value.name == "fp32");
  CHECK(p->M.value == 4096);
  CHECK(p->k_step == 16);
  CHECK(p->use_hmma.value);
  CHECK(p->sm_mem_limit_kb.value == doctest::Approx(96));
  CHECK(p->l2_hit_rate_min.value == doctest::Approx(0.85));
  // The fp16 output from fp32 accumulation is a note, not an error.
  REQUIRE(d.diagnostics().size() == 1);
  CHECK(d.diagnostics()[0].severity == dg::Severity::Note);
  CHECK(d.diagnostics()[0].loc.line == 7);
  CHECK(d.diagnostics()[0].message.find("cast_output: fp16") != std::string::npos);
}

TEST_CASE("language features round-trip") {
  check_roundtrip("comments", "/* block\n comment µ × 😀 */ target hopper; // trailing\nshape { M: 1; }\n");
  check_roundtrip("units", "target hopper;\nconstraints { sm_mem_limit: 96 KB; l2_hit_rate_min: 0.5; x: -3; }\n");
  check_roundtrip("unit attached", "target hopper;\nconstraints { sm_mem_limit: 96KB; }\n");
  check_roundtrip(
      "precedence",
      "target hopper;\nconstraints { tile_m * (tile_n + 8) <= 4096 && stages >= 2 || warps == 4; "
      "tile_m - (tile_n - tile_k) > 0; !(warps < 2); tile_m % 16 == 0 && tile_k / 2 != 3; -tile_m < 0; }\n");
  check_roundtrip("decimals", "target hopper;\nconstraints { a: 1.5e3; b: .25; c: 0.85; }\n");
}
