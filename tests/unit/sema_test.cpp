#include <doctest/doctest.h>

#include "dgml/parser.h"
#include "sema/check.h"

namespace {

struct Result {
  std::optional<dg::GemmProblem> problem;
  dg::DiagEngine diags;
};

Result check(const std::string& text) {
  Result r;
  auto spec = dg::dgml::parse("t.dgml", text, r.diags);
  if (!r.diags.has_errors())
    r.problem = dg::sema::check(spec, std::string(DEEPGEMM_SOURCE_DIR) + "/hw-models", r.diags);
  return r;
}

std::string spec(const std::string& target, const std::string& a, const std::string& b, const std::string& shape,
                 const std::string& extra = "") {
  return "target " + target + ";\nprecision { activation: " + a + "; weight: " + b + "; }\nshape { " + shape + " }\n" +
         extra;
}

}  // namespace

TEST_CASE("sema: defaults on a GPU") {
  auto r = check(spec("ampere", "bf16", "bf16", "M: 128; N: 256; K: 64;"));
  REQUIRE(r.problem);
  CHECK(r.problem->acc.value.name == "fp32");
  CHECK(r.problem->c.value.name == "fp32");  // output defaults to the accumulator
  CHECK(r.problem->use_hmma.value);          // tensor cores when they can
  CHECK(!r.problem->use_hmma.user);
  CHECK(r.problem->k_step == 16);
  CHECK(r.problem->batch.value == 1);
  CHECK(r.problem->a_layout.value == dg::Layout::RowMajor);
  CHECK(r.diags.diagnostics().empty());
}

TEST_CASE("sema: int8 steps K by 32; pad_k lifts the alignment rule") {
  auto bad = check(spec("ampere", "int8", "int8", "M: 128; N: 128; K: 80;", "layout { B: col_major; }"));
  CHECK(!bad.problem);
  auto ok = check(spec("ampere", "int8", "int8", "M: 128; N: 128; K: 80;",
                       "layout { B: col_major; }\nconstraints { pad_k: true; }"));
  REQUIRE(ok.problem);
  CHECK(ok.problem->k_step == 32);
  CHECK(ok.problem->acc.value.name == "int32");
}

TEST_CASE("sema: mixed-input weights are converted in registers on hopper") {
  auto r = check(spec("hopper", "fp16", "int4", "M: 16; N: 4096; K: 4096;"));
  REQUIRE(r.problem);
  CHECK(r.problem->weight_conversion == "fp16");
  bool noted = false;
  for (const auto& d : r.diags.diagnostics())
    noted |= d.severity == dg::Severity::Note && d.message.find("converted to fp16 in registers") != std::string::npos;
  CHECK(noted);
  // Volta has no such path.
  CHECK(!check(spec("volta", "fp16", "int4", "M: 16; N: 4096; K: 4096;")).problem);
}

TEST_CASE("sema: fp16_fma selects CUDA cores with fp16 accumulation") {
  auto r = check(spec("volta", "fp16", "fp16", "M: 64; N: 64; K: 10;", "constraints { fp16_fma: true; }"));
  REQUIRE(r.problem);
  CHECK(!r.problem->use_hmma.value);
  CHECK(r.problem->acc.value.name == "fp16");
  CHECK(r.problem->compute_paths == std::vector<dg::hw::Family>{dg::hw::Family::Simt});
}

TEST_CASE("sema: NPU targets take integers, custom widths and K ranges") {
  auto r = check(spec("npu16", "s10", "int8", "M: 100; N: 60; K_min: 16; K_max: 512;"));
  REQUIRE(r.problem);
  CHECK(r.problem->k_dynamic);
  CHECK(r.problem->K.value == 512);
  CHECK(r.problem->a.value.bits == 10);
  CHECK(r.problem->acc.value.bits == 32);
  auto custom = check(spec("npu16", "custom", "int8", "M: 4; N: 4; K: 4;", "constraints { custom_bitwidth: 12; }"));
  REQUIRE(custom.problem);
  CHECK(custom.problem->a.value.name == "s12");
}

TEST_CASE("sema: free constraints are kept with their locations") {
  auto r = check(spec("hopper", "fp16", "fp16", "M: 64; N: 64; K: 64;",
                      "constraints {\n  tile_m * tile_k <= 8192;\n  stages >= 3;\n}"));
  REQUIRE(r.problem);
  REQUIRE(r.problem->user_constraints.size() == 2);
  CHECK(r.problem->user_constraints[0].text == "tile_m * tile_k <= 8192");
  CHECK(r.problem->user_constraints[0].loc.line == 5);
  CHECK(r.problem->user_constraints[1].loc.col == 3);
}

TEST_CASE("sema: hardware limits produce warnings, not silent clamps") {
  auto r = check(spec("volta", "fp16", "fp16", "M: 64; N: 64; K: 64;", "constraints { sm_mem_limit: 500; }"));
  REQUIRE(r.problem);
  REQUIRE(!r.diags.diagnostics().empty());
  CHECK(r.diags.diagnostics()[0].severity == dg::Severity::Warning);
  CHECK(r.diags.diagnostics()[0].message.find("exceeds volta") != std::string::npos);
}
