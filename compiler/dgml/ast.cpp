#include "dgml/ast.h"

#include <fmt/format.h>

namespace dg::ast {

const char* value_kind_name(Value::Kind k) {
  switch (k) {
    case Value::Kind::Int: return "integer";
    case Value::Kind::Decimal: return "number";
    case Value::Kind::Bool: return "boolean";
    case Value::Kind::Ident: return "identifier";
  }
  return "value";
}

namespace {

int precedence(const std::string& op) {
  if (op == "||") return 1;
  if (op == "&&") return 2;
  if (op == "==" || op == "!=") return 3;
  if (op == "<" || op == "<=" || op == ">" || op == ">=") return 4;
  if (op == "+" || op == "-") return 5;
  return 6;  // * / %
}

void expr_to(std::string& out, const Expr& e, int parent_prec, bool right_side) {
  switch (e.kind) {
    case Expr::Kind::Int:
    case Expr::Kind::Decimal:
    case Expr::Kind::Bool:
    case Expr::Kind::Var: out += e.text; return;
    case Expr::Kind::Unary:
      out += e.text;
      expr_to(out, *e.lhs, 7, false);
      return;
    case Expr::Kind::Binary: {
      int p = precedence(e.text);
      // Left-associative: a right operand of equal precedence needs parentheses.
      bool paren = p < parent_prec || (right_side && p == parent_prec);
      if (paren) out += "(";
      expr_to(out, *e.lhs, p, false);
      out += " " + e.text + " ";
      expr_to(out, *e.rhs, p, true);
      if (paren) out += ")";
      return;
    }
  }
}

void dump_expr(std::ostream& os, const Expr& e, int indent, bool locs) {
  std::string pad(indent * 2, ' ');
  std::string at = locs ? fmt::format(" @{}:{}", e.loc.line, e.loc.col) : "";
  switch (e.kind) {
    case Expr::Kind::Int: os << pad << "Int " << e.int_value << at << "\n"; return;
    case Expr::Kind::Decimal: os << pad << "Decimal " << e.text << at << "\n"; return;
    case Expr::Kind::Bool: os << pad << "Bool " << e.text << at << "\n"; return;
    case Expr::Kind::Var: os << pad << "Var " << e.text << at << "\n"; return;
    case Expr::Kind::Unary:
      os << pad << "Unary " << e.text << at << "\n";
      dump_expr(os, *e.lhs, indent + 1, locs);
      return;
    case Expr::Kind::Binary:
      os << pad << "Binary " << e.text << at << "\n";
      dump_expr(os, *e.lhs, indent + 1, locs);
      dump_expr(os, *e.rhs, indent + 1, locs);
      return;
  }
}

}  // namespace

ExprPtr clone(const Expr& e) {
  auto c = std::make_unique<Expr>();
  c->kind = e.kind;
  c->loc = e.loc;
  c->int_value = e.int_value;
  c->dec_value = e.dec_value;
  c->bool_value = e.bool_value;
  c->text = e.text;
  c->height = e.height;
  c->nodes = e.nodes;
  if (e.lhs) c->lhs = clone(*e.lhs);
  if (e.rhs) c->rhs = clone(*e.rhs);
  return c;
}

std::string expr_to_string(const Expr& e) {
  std::string out;
  expr_to(out, e, 0, false);
  return out;
}

void dump(std::ostream& os, const Spec& spec, bool locs) {
  auto at = [&](const Loc& l) { return locs ? fmt::format(" @{}:{}", l.line, l.col) : std::string(); };
  os << "Spec " << spec.file << "\n";
  if (!spec.target.empty()) os << "  Target " << spec.target << at(spec.target_loc) << "\n";
  for (const auto& b : spec.blocks) {
    os << "  Block " << b.name << at(b.loc) << "\n";
    for (const auto& it : b.items) {
      if (it.is_expr) {
        os << "    Constraint " << expr_to_string(*it.expr) << at(it.expr->loc) << "\n";
        dump_expr(os, *it.expr, 3, locs);
      } else {
        const Value& v = it.entry.value;
        os << "    Entry " << it.entry.key << at(it.entry.loc) << " = " << value_kind_name(v.kind) << " " << v.text
           << (v.unit.empty() ? "" : " " + v.unit) << at(v.loc) << "\n";
      }
    }
  }
}

void print_dgml(std::ostream& os, const Spec& spec) {
  if (!spec.target.empty()) os << "target " << spec.target << ";\n";
  for (const auto& b : spec.blocks) {
    os << "\n" << b.name << " {\n";
    for (const auto& it : b.items) {
      if (it.is_expr) {
        os << "    " << expr_to_string(*it.expr) << ";\n";
      } else {
        os << "    " << it.entry.key << ": " << it.entry.value.text
           << (it.entry.value.unit.empty() ? "" : " " + it.entry.value.unit) << ";\n";
      }
    }
    os << "}\n";
  }
}

}  // namespace dg::ast
