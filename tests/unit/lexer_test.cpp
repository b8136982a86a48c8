#include <doctest/doctest.h>

#include "dgml/lexer.h"

using dg::dgml::Tok;

namespace {
std::vector<dg::dgml::Token> lex(const std::string& s, dg::DiagEngine& d) { return dg::dgml::lex("t.dgml", s, d); }
}  // namespace

TEST_CASE("lexer: tokens, kinds and locations") {
  dg::DiagEngine d;
  auto t = lex("target hopper;\n  M: 4096; x <= 0.85 && y != 2", d);
  REQUIRE(!d.has_errors());
  std::vector<Tok> kinds;
  for (const auto& tok : t) kinds.push_back(tok.kind);
  CHECK(kinds == std::vector<Tok>{Tok::Ident, Tok::Ident, Tok::Semi, Tok::Ident, Tok::Colon, Tok::Int, Tok::Semi,
                                  Tok::Ident, Tok::Le, Tok::Decimal, Tok::AndAnd, Tok::Ident, Tok::NotEq, Tok::Int,
                                  Tok::Eof});
  CHECK(t[3].text == "M");
  CHECK(t[3].loc.line == 2);
  CHECK(t[3].loc.col == 3);
  CHECK(t[9].text == "0.85");
}

TEST_CASE("lexer: comments may hold UTF-8 and are skipped") {
  dg::DiagEngine d;
  auto t = lex("// ×µ😀\n/* multi\nline ß */ a", d);
  REQUIRE(!d.has_errors());
  REQUIRE(t.size() == 2);
  CHECK(t[0].text == "a");
  CHECK(t[0].loc.line == 3);
  CHECK(t[0].loc.col == 12);  // columns count bytes: "ß" is two
}

TEST_CASE("lexer: numbers with units and exponents") {
  dg::DiagEngine d;
  auto t = lex("96KB 1e3 2.5E-2 7e", d);
  REQUIRE(!d.has_errors());
  CHECK(t[0].kind == Tok::Int);
  CHECK(t[1].kind == Tok::Ident);
  CHECK(t[1].text == "KB");
  CHECK(t[2].kind == Tok::Decimal);
  CHECK(t[3].kind == Tok::Decimal);
  CHECK(t[4].kind == Tok::Int);  // "7e": no exponent digits, so 7 then identifier e
  CHECK(t[5].text == "e");
}

TEST_CASE("lexer: errors carry locations") {
  dg::DiagEngine d;
  lex("a\n  $ \xff \xc3\xa9 = & |", d);
  const auto& ds = d.diagnostics();
  REQUIRE(ds.size() == 6);
  CHECK(ds[0].message == "unexpected character '$'");
  CHECK(ds[0].loc.line == 2);
  CHECK(ds[0].loc.col == 3);
  CHECK(ds[1].message == "invalid UTF-8 byte 0xFF");
  CHECK(ds[2].message == "unexpected character U+00E9 outside a comment");
  CHECK(ds[3].message.find("unexpected '='") == 0);
  CHECK(ds[4].message.find("'&&'") != std::string::npos);
  CHECK(ds[5].message.find("'||'") != std::string::npos);
}

TEST_CASE("lexer: unterminated block comment") {
  dg::DiagEngine d;
  lex("a /* never closed", d);
  REQUIRE(d.error_count() == 1);
  CHECK(d.diagnostics()[0].loc.col == 3);
}
