#include <doctest/doctest.h>

#include <sstream>

#include "dgml/parser.h"

namespace {
dg::ast::Spec parse(const std::string& s, dg::DiagEngine& d) { return dg::dgml::parse("t.dgml", s, d); }
}  // namespace

TEST_CASE("parser: blocks, entries and values") {
  dg::DiagEngine d;
  auto s =
      parse("target hopper;\nshape { M: 4096; }\nconstraints { sm_mem_limit: 96 KB; flag: true; r: 0.5; n: -2; }", d);
  REQUIRE(!d.has_errors());
  CHECK(s.target == "hopper");
  CHECK(s.target_loc.col == 8);
  REQUIRE(s.blocks.size() == 2);
  const auto& c = s.blocks[1];
  CHECK(c.name == "constraints");
  REQUIRE(c.items.size() == 4);
  CHECK(c.items[0].entry.value.int_value == 96);
  CHECK(c.items[0].entry.value.unit == "KB");
  CHECK(c.items[1].entry.value.kind == dg::ast::Value::Kind::Bool);
  CHECK(c.items[1].entry.value.bool_value);
  CHECK(c.items[2].entry.value.dec_value == doctest::Approx(0.5));
  CHECK(c.items[3].entry.value.int_value == -2);
}

TEST_CASE("parser: expression precedence and associativity") {
  dg::DiagEngine d;
  auto s = parse("constraints { a + b * c <= d - e - f || !g && h; }", d);
  REQUIRE(!d.has_errors());
  const auto& e = *s.blocks[0].items[0].expr;
  CHECK(e.text == "||");
  CHECK(e.lhs->text == "<=");
  CHECK(e.lhs->lhs->text == "+");
  CHECK(e.lhs->lhs->rhs->text == "*");
  CHECK(e.lhs->rhs->text == "-");
  CHECK(e.lhs->rhs->lhs->text == "-");  // (d - e) - f
  CHECK(e.rhs->text == "&&");
  CHECK(e.rhs->lhs->text == "!");
  CHECK(dg::ast::expr_to_string(e) == "a + b * c <= d - e - f || !g && h");
}

TEST_CASE("parser: parentheses survive printing when needed") {
  dg::DiagEngine d;
  auto s = parse("constraints { a - (b - c) >= (a + b) * c; }", d);
  REQUIRE(!d.has_errors());
  CHECK(dg::ast::expr_to_string(*s.blocks[0].items[0].expr) == "a - (b - c) >= (a + b) * c");
}

TEST_CASE("parser: recovers and reports several errors") {
  dg::DiagEngine d;
  parse("target hopper;\nshape {\n  M: ;\n  N: 4096\n  K: 4096;\n}\nconstraints { x: 1 2; }\n", d);
  REQUIRE(d.error_count() == 3);
  const auto& ds = d.diagnostics();
  CHECK(ds[0].loc.line == 3);
  CHECK(ds[0].message == "expected a value before ';'");
  CHECK(ds[1].loc.line == 4);
  CHECK(ds[1].loc.col == 10);
  CHECK(ds[1].message == "expected ';' after the value of 'N'");
  CHECK(ds[2].loc.line == 7);
}

TEST_CASE("parser: deep nesting is an error, not a stack overflow") {
  dg::DiagEngine d;
  std::string s = "constraints { " + std::string(100000, '(') + "a" + " <= 1; }";
  parse(s, d);
  CHECK(d.has_errors());
  CHECK(d.diagnostics()[0].message.find("nested too deeply") != std::string::npos);
}

TEST_CASE("parser: huge integer in an expression") {
  dg::DiagEngine d;
  parse("constraints { tile_m <= 123456789012345678901234567890; }", d);
  REQUIRE(d.error_count() == 1);
  CHECK(d.diagnostics()[0].message.find("too large") != std::string::npos);
}

TEST_CASE("diagnostics print the source line and a caret") {
  dg::DiagEngine d;
  std::string text = "target hopper;\nshape {\n\tM: @;\n}\n";
  d.add_source("t.dgml", text);
  parse(text, d);
  std::ostringstream os;
  d.print(os);
  CHECK(os.str().find("t.dgml:3:5: error: unexpected character '@'\n\tM: @;\n\t   ^\n") == 0);
}
