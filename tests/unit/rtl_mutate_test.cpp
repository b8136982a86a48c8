// tests/support/rtl_mutate.h: seeded bugs land on the one place they name, whatever the white
// space, or are refused.
#include <doctest/doctest.h>

#include <string>

#include "rtl_mutate.h"

using dg::testing::reassign;
using dg::testing::replace_code;

TEST_CASE("rtl_mutate: code is matched token by token, white space aside") {
  std::string v = "  if (take >  (LenW+1)'(to_edge))\n    take = (LenW+1)'(to_edge);\n";
  CHECK(replace_code(v, "if (take > (LenW+1)'(to_edge)) take = (LenW+1)'(to_edge);", "") == "");
  CHECK(v == "  \n");
  // Two words stay two words: "logicx" is not "logic x".
  std::string w = "logicx y;\n";
  CHECK(replace_code(w, "logic x", "z") != "");
  CHECK(w == "logicx y;\n");
}

TEST_CASE("rtl_mutate: a continuous assignment is found by the signal it drives") {
  std::string v = "assign ld_bytes   =  ld_q;\nassign ld_bytes_hi = ld_q + 1;\n";
  CHECK(reassign(v, "ld_bytes", [](const std::string& old) { return old + " + 32'd1"; }) == "");
  CHECK(v == "assign ld_bytes = ld_q + 32'd1;\nassign ld_bytes_hi = ld_q + 1;\n");
  CHECK(reassign(v, "ld_bytes;", [](const std::string& old) { return old; }) != "");
}

TEST_CASE("rtl_mutate: none or several places is an error, and the text is kept") {
  const std::string orig = "assign a = b;\nassign c = b && d;\nassign e = b && d;\n";
  std::string v = orig;
  CHECK(replace_code(v, "b && d", "b").find("2 places") != std::string::npos);
  CHECK(replace_code(v, "b || d", "b").find("no place") != std::string::npos);
  CHECK(reassign(v, "f", [](const std::string&) { return "1'b0"; }).find("no place") != std::string::npos);
  CHECK(replace_code(v, "  ", "x") != "");
  CHECK(v == orig);
}
