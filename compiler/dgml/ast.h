// The .dgml abstract syntax tree: what the user wrote, with a location on every node, before any
// meaning is given to it (sema/ does that). Blocks keep their items in source order so that the
// tree prints back to equivalent source (print_dgml) and round-trips.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "dgml/diag.h"

namespace dg::ast {

/// A free constraint expression over schedule variables: `tile_m * tile_k <= 8192`.
struct Expr {
  enum class Kind { Int, Decimal, Bool, Var, Unary, Binary };
  Kind kind = Kind::Int;
  Loc loc;
  std::int64_t int_value = 0;
  double dec_value = 0;
  bool bool_value = false;
  std::string text;                // Var name, literal text, or operator ("+", "<=", "&&", "-", "!")
  std::unique_ptr<Expr> lhs, rhs;  // Unary uses lhs only
  int height = 1;                  // levels of the tree below and including this node
  int nodes = 1;                   // nodes of the tree rooted here
};
using ExprPtr = std::unique_ptr<Expr>;

/// The right-hand side of `key: value;`.
struct Value {
  enum class Kind { Int, Decimal, Bool, Ident };
  Kind kind = Kind::Int;
  Loc loc;
  std::string text;  // as written, sign included ("-4", "0.85", "true", "fp16")
  std::int64_t int_value = 0;
  double dec_value = 0;  // also set for Int
  bool bool_value = false;
  std::string unit;       // "KB" or ""
  bool overflow = false;  // integer literal did not fit in 64 bits
};

struct Entry {
  std::string key;
  Loc loc;  // of the key
  Value value;
};

/// One item of a block: a `key: value;` entry or (in `constraints`) a free expression.
struct Item {
  bool is_expr = false;
  Entry entry;
  ExprPtr expr;
};

struct Block {
  std::string name;
  Loc loc;
  std::vector<Item> items;
};

struct Spec {
  std::string file;
  std::string target;  // "" when the spec has no target declaration
  Loc target_loc;
  Loc target_kw_loc;
  std::vector<Block> blocks;
};

const char* value_kind_name(Value::Kind k);

/// --emit=ast: an indented tree with locations.
void dump(std::ostream& os, const Spec& spec, bool with_locations = true);

/// Print the spec back as canonical .dgml source.
void print_dgml(std::ostream& os, const Spec& spec);

/// A deep copy.
ExprPtr clone(const Expr& e);

/// An expression as source text, fully parenthesized where precedence needs it.
std::string expr_to_string(const Expr& e);

}  // namespace dg::ast
