// The .dgml parser: recursive descent over the lexer's tokens, producing an ast::Spec.
//
//   spec       := item* EOF
//   item       := 'target' IDENT ';'  |  IDENT '{' block_item* '}'
//   block_item := IDENT ':' value ';'  |  expr ';'
//   value      := ['-'] (INT | DECIMAL) ['KB']  |  'true' | 'false'  |  IDENT
//   expr       := or;  or := and ('||' and)*;  and := eq ('&&' eq)*;
//   eq := rel (('=='|'!=') rel)*;  rel := add (('<'|'<='|'>'|'>=') add)*;
//   add := mul (('+'|'-') mul)*;  mul := unary (('*'|'/'|'%') unary)*;
//   unary := ('-'|'!') unary | primary;  primary := INT | DECIMAL | IDENT | '(' expr ')'
//
// Syntax errors are reported to the DiagEngine; the parser recovers at ';' or '}' so that one run
// reports several independent mistakes.
#pragma once

#include <string>

#include "dgml/ast.h"
#include "dgml/diag.h"

namespace dg::dgml {

ast::Spec parse(const std::string& file, const std::string& text, DiagEngine& diags);

}  // namespace dg::dgml
