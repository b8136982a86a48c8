// The .dgml lexer: turns a source buffer into tokens with locations. Comments (`//`, `/* */`) may
// hold any UTF-8; outside comments only ASCII is meaningful, and anything else is diagnosed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dgml/diag.h"

namespace dg::dgml {

enum class Tok {
  Eof,
  Ident,
  Int,      // 4096
  Decimal,  // 0.85
  LBrace,
  RBrace,
  LParen,
  RParen,
  Colon,
  Semi,
  Comma,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Lt,
  Le,
  Gt,
  Ge,
  EqEq,
  NotEq,
  AndAnd,
  OrOr,
  Not,
  Error,  // already diagnosed; the parser skips it
};

const char* tok_name(Tok t);

struct Token {
  Tok kind = Tok::Eof;
  std::string text;  // exactly as written
  Loc loc;
};

/// Tokenize `text`; lexical errors go to `diags` (and become Tok::Error tokens). The result
/// always ends with one Tok::Eof.
std::vector<Token> lex(const std::string& file, const std::string& text, DiagEngine& diags);

}  // namespace dg::dgml
