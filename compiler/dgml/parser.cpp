#include "dgml/parser.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fmt/format.h>

#include "dgml/lexer.h"

namespace dg::dgml {

namespace {

// Every walk over an expression (sema's type check, the solver's encoding, printing) recurses on
// its tree: the parser bounds the tree's height, counting left-leaning chains such as
// `M + M + ... + M` as well as parentheses, and its size.
constexpr int kMaxExprDepth = 200;
constexpr int kMaxExprNodes = 2000;

class Parser {
 public:
  Parser(std::vector<Token> toks, const std::string& file, DiagEngine& diags) : toks_(std::move(toks)), diags_(diags) {
    spec_.file = file;
  }

  ast::Spec run() {
    while (!at(Tok::Eof)) {
      if (at(Tok::Error)) {
        ++pos_;
        continue;
      }
      if (at(Tok::Ident) && cur().text == "target") {
        parse_target();
      } else if (at(Tok::Ident) && peek(1).kind == Tok::LBrace) {
        parse_block();
      } else if (at(Tok::Ident)) {
        error_here(fmt::format("expected '{{' after block name '{}'", cur().text), peek(1));
        sync_top();
      } else {
        diags_.error(cur().loc, fmt::format("expected 'target' or a block name, found {}", describe(cur())));
        sync_top();
      }
    }
    return std::move(spec_);
  }

 private:
  const Token& cur() const { return toks_[pos_]; }
  const Token& peek(size_t n) const { return toks_[std::min(pos_ + n, toks_.size() - 1)]; }
  bool at(Tok k) const { return cur().kind == k; }
  const Token& take() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }

  static std::string describe(const Token& t) {
    if (t.kind == Tok::Eof) return "end of file";
    if (t.kind == Tok::Ident || t.kind == Tok::Int || t.kind == Tok::Decimal) return fmt::format("'{}'", t.text);
    return tok_name(t.kind);
  }

  // Where a missing token belongs: just after the previous token (same line), as compilers do.
  Loc after_prev() const {
    if (pos_ == 0) return cur().loc;
    const Token& p = toks_[pos_ - 1];
    Loc l = p.loc;
    l.col += static_cast<int>(p.text.size());
    return l;
  }

  void error_here(const std::string& msg, const Token& t) { diags_.error(t.loc, msg); }

  // Report a missing token after the previous one.
  bool expect_semi(const char* what) {
    if (at(Tok::Semi)) {
      take();
      return true;
    }
    diags_.error(after_prev(), fmt::format("expected ';' after {}", what));
    return false;
  }

  // Skip to the start of the next top-level item.
  void sync_top() {
    while (!at(Tok::Eof)) {
      if (at(Tok::Semi)) {
        take();
        return;
      }
      if (at(Tok::RBrace)) {
        take();
        return;
      }
      if (at(Tok::LBrace)) {  // skip a whole block
        int depth = 0;
        while (!at(Tok::Eof)) {
          if (at(Tok::LBrace)) ++depth;
          if (at(Tok::RBrace) && --depth == 0) {
            take();
            return;
          }
          take();
        }
        return;
      }
      take();
    }
  }

  // Inside a block: skip past the next ';' or stop before '}'.
  void sync_item() {
    while (!at(Tok::Eof) && !at(Tok::RBrace)) {
      if (at(Tok::Semi)) {
        take();
        return;
      }
      // A new `key:` on a later line starts the next item: the ';' was probably forgotten.
      if (at(Tok::Ident) && peek(1).kind == Tok::Colon && pos_ > 0 && cur().loc.line > toks_[pos_ - 1].loc.line) return;
      take();
    }
  }

  void parse_target() {
    Loc kw = take().loc;
    if (!at(Tok::Ident)) {
      std::string hint = at(Tok::Colon) ? " (write 'target hopper;')" : "";
      diags_.error(at(Tok::Colon) ? cur().loc : after_prev(),
                   fmt::format("expected a target name after 'target', found {}{}", describe(cur()), hint));
      sync_top();
      return;
    }
    const Token& name = take();
    if (!spec_.target.empty()) {
      diags_.error(kw, "duplicate 'target' declaration");
      diags_.note(spec_.target_kw_loc, fmt::format("'target {}' declared here", spec_.target));
    } else {
      spec_.target = name.text;
      spec_.target_loc = name.loc;
      spec_.target_kw_loc = kw;
    }
    if (!expect_semi("the target declaration")) sync_top();
  }

  void parse_block() {
    ast::Block block;
    block.name = cur().text;
    block.loc = take().loc;
    take();  // '{'
    while (!at(Tok::RBrace) && !at(Tok::Eof)) {
      if (at(Tok::Error)) {
        take();
        continue;
      }
      if (at(Tok::Semi)) {  // stray ';' is harmless
        take();
        continue;
      }
      if (at(Tok::Ident) && peek(1).kind == Tok::Colon) {
        parse_entry(block);
      } else if (at(Tok::Ident) && peek(1).kind == Tok::LBrace) {
        diags_.error(cur().loc, fmt::format("block '{}' cannot be nested inside block '{}'; close '{}' with '}}' first",
                                            cur().text, block.name, block.name));
        take();  // the name; now skip the nested block, braces balanced, and go on with this one
        int depth = 0;
        while (!at(Tok::Eof)) {
          if (at(Tok::LBrace)) ++depth;
          if (at(Tok::RBrace) && --depth == 0) {
            take();
            break;
          }
          take();
        }
        continue;
      } else {
        ast::ExprPtr e = parse_expr(0);
        if (e && at(Tok::Error)) {
          sync_item();  // the lexer already said what is wrong here
        } else if (e) {
          if (expect_semi("the constraint")) {
            ast::Item item;
            item.is_expr = true;
            item.expr = std::move(e);
            block.items.push_back(std::move(item));
          } else {
            sync_item();
          }
        } else {
          sync_item();
        }
      }
    }
    if (at(Tok::Eof)) {
      diags_.error(cur().loc, fmt::format("expected '}}' to close block '{}'", block.name));
      diags_.note(block.loc, fmt::format("block '{}' opened here", block.name));
    } else {
      take();  // '}'
    }
    spec_.blocks.push_back(std::move(block));
  }

  void parse_entry(ast::Block& block) {
    ast::Item item;
    item.entry.key = cur().text;
    item.entry.loc = take().loc;
    take();  // ':'
    if (!parse_value(item.entry.value)) {
      sync_item();
      return;
    }
    if (!at(Tok::Semi)) {
      if (at(Tok::RBrace) || at(Tok::Eof) || cur().loc.line > toks_[pos_ - 1].loc.line) {
        diags_.error(after_prev(), fmt::format("expected ';' after the value of '{}'", item.entry.key));
      } else {
        diags_.error(cur().loc,
                     fmt::format("expected ';' after the value of '{}', found {}", item.entry.key, describe(cur())));
        sync_item();
        block.items.push_back(std::move(item));
        return;
      }
    } else {
      take();
    }
    block.items.push_back(std::move(item));
  }

  bool parse_value(ast::Value& v) {
    v.loc = cur().loc;
    bool neg = false;
    if (at(Tok::Minus)) {
      neg = true;
      take();
    }
    if (at(Tok::Int) || at(Tok::Decimal)) {
      const Token& t = take();
      v.text = (neg ? "-" : "") + t.text;
      if (t.kind == Tok::Int) {
        v.kind = ast::Value::Kind::Int;
        auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v.int_value);
        if (r.ec != std::errc()) {
          v.overflow = true;
          v.int_value = 0;
        }
        if (neg) v.int_value = -v.int_value;
        v.dec_value = std::strtod(v.text.c_str(), nullptr);
      } else {
        v.kind = ast::Value::Kind::Decimal;
        v.dec_value = std::strtod(v.text.c_str(), nullptr);
      }
      if (at(Tok::Ident) && (cur().text == "KB" || cur().text == "kb" || cur().text == "KiB")) {
        v.unit = "KB";
        take();
      } else if (at(Tok::Ident) && cur().loc.line == t.loc.line) {
        diags_.error(cur().loc, fmt::format("unknown unit '{}' (the only unit is KB)", cur().text));
        take();
      }
      return true;
    }
    if (neg) {
      diags_.error(cur().loc, fmt::format("expected a number after '-', found {}", describe(cur())));
      return false;
    }
    if (at(Tok::Ident)) {
      const Token& t = take();
      v.text = t.text;
      if (t.text == "true" || t.text == "false") {
        v.kind = ast::Value::Kind::Bool;
        v.bool_value = t.text == "true";
      } else {
        v.kind = ast::Value::Kind::Ident;
      }
      return true;
    }
    if (at(Tok::Semi) || at(Tok::RBrace)) {
      diags_.error(cur().loc, "expected a value before " + describe(cur()));
      return false;
    }
    diags_.error(cur().loc, fmt::format("expected a value (number, true/false or a name), found {}", describe(cur())));
    return false;
  }

  // ---- expressions ----------------------------------------------------------------------------

  static int binary_prec(Tok k) {
    switch (k) {
      case Tok::OrOr: return 1;
      case Tok::AndAnd: return 2;
      case Tok::EqEq:
      case Tok::NotEq: return 3;
      case Tok::Lt:
      case Tok::Le:
      case Tok::Gt:
      case Tok::Ge: return 4;
      case Tok::Plus:
      case Tok::Minus: return 5;
      case Tok::Star:
      case Tok::Slash:
      case Tok::Percent: return 6;
      default: return 0;
    }
  }

  // Precedence climbing; all binary operators are left-associative.
  ast::ExprPtr parse_expr(int depth) { return parse_binary(1, depth); }

  ast::ExprPtr parse_binary(int min_prec, int depth) {
    ast::ExprPtr lhs = parse_unary(depth);
    if (!lhs) return nullptr;
    for (;;) {
      int p = binary_prec(cur().kind);
      if (p == 0 || p < min_prec) return lhs;
      const Token& op = take();
      ast::ExprPtr rhs = parse_binary(p + 1, depth + 1);
      if (!rhs) return nullptr;
      auto e = std::make_unique<ast::Expr>();
      e->kind = ast::Expr::Kind::Binary;
      e->text = op.text;
      e->loc = lhs->loc;
      e->height = 1 + std::max(lhs->height, rhs->height);
      e->nodes = 1 + lhs->nodes + rhs->nodes;
      e->lhs = std::move(lhs);
      e->rhs = std::move(rhs);
      if (!within_limits(*e, op.loc)) return nullptr;
      lhs = std::move(e);
    }
  }

  bool within_limits(const ast::Expr& e, const Loc& at) {
    if (e.height > kMaxExprDepth) {
      diags_.error(at, fmt::format("expression nested too deeply (more than {} levels)", kMaxExprDepth));
      return false;
    }
    if (e.nodes > kMaxExprNodes) {
      diags_.error(at, fmt::format("expression too large (more than {} operands and operators); split it into "
                                   "several constraints",
                                   kMaxExprNodes));
      return false;
    }
    return true;
  }

  ast::ExprPtr parse_unary(int depth) {
    if (depth > kMaxExprDepth) {
      diags_.error(cur().loc, fmt::format("expression nested too deeply (more than {} levels)", kMaxExprDepth));
      return nullptr;
    }
    if (at(Tok::Minus) || at(Tok::Not)) {
      const Token& op = take();
      ast::ExprPtr operand = parse_unary(depth + 1);
      if (!operand) return nullptr;
      auto e = std::make_unique<ast::Expr>();
      e->kind = ast::Expr::Kind::Unary;
      e->text = op.text;
      e->loc = op.loc;
      e->height = 1 + operand->height;
      e->nodes = 1 + operand->nodes;
      e->lhs = std::move(operand);
      if (!within_limits(*e, op.loc)) return nullptr;
      return e;
    }
    return parse_primary(depth);
  }

  ast::ExprPtr parse_primary(int depth) {
    auto e = std::make_unique<ast::Expr>();
    e->loc = cur().loc;
    if (at(Tok::Int)) {
      const Token& t = take();
      e->kind = ast::Expr::Kind::Int;
      e->text = t.text;
      auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), e->int_value);
      if (r.ec != std::errc()) {
        diags_.error(t.loc, fmt::format("integer {} is too large", t.text));
        return nullptr;
      }
      return e;
    }
    if (at(Tok::Decimal)) {
      const Token& t = take();
      e->kind = ast::Expr::Kind::Decimal;
      e->text = t.text;
      e->dec_value = std::strtod(t.text.c_str(), nullptr);
      return e;
    }
    if (at(Tok::Ident)) {
      const Token& t = take();
      e->text = t.text;
      if (t.text == "true" || t.text == "false") {
        e->kind = ast::Expr::Kind::Bool;
        e->bool_value = t.text == "true";
      } else {
        e->kind = ast::Expr::Kind::Var;
      }
      return e;
    }
    if (at(Tok::LParen)) {
      Loc open = take().loc;
      ast::ExprPtr inner = parse_binary(1, depth + 1);
      if (!inner) return nullptr;
      if (!at(Tok::RParen)) {
        diags_.error(cur().loc, fmt::format("expected ')' to close '(', found {}", describe(cur())));
        diags_.note(open, "'(' opened here");
        return nullptr;
      }
      take();
      return inner;
    }
    diags_.error(cur().loc, fmt::format("expected an expression, found {}", describe(cur())));
    return nullptr;
  }

  std::vector<Token> toks_;
  size_t pos_ = 0;
  DiagEngine& diags_;
  ast::Spec spec_;
};

}  // namespace

ast::Spec parse(const std::string& file, const std::string& text, DiagEngine& diags) {
  return Parser(lex(file, text, diags), file, diags).run();
}

}  // namespace dg::dgml
