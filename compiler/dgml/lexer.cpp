#include "dgml/lexer.h"

#include <fmt/format.h>

namespace dg::dgml {

const char* tok_name(Tok t) {
  switch (t) {
    case Tok::Eof: return "end of file";
    case Tok::Ident: return "identifier";
    case Tok::Int: return "integer";
    case Tok::Decimal: return "number";
    case Tok::LBrace: return "'{'";
    case Tok::RBrace: return "'}'";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::Colon: return "':'";
    case Tok::Semi: return "';'";
    case Tok::Comma: return "','";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Star: return "'*'";
    case Tok::Slash: return "'/'";
    case Tok::Percent: return "'%'";
    case Tok::Lt: return "'<'";
    case Tok::Le: return "'<='";
    case Tok::Gt: return "'>'";
    case Tok::Ge: return "'>='";
    case Tok::EqEq: return "'=='";
    case Tok::NotEq: return "'!='";
    case Tok::AndAnd: return "'&&'";
    case Tok::OrOr: return "'||'";
    case Tok::Not: return "'!'";
    case Tok::Error: return "invalid token";
  }
  return "token";
}

namespace {

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

class Lexer {
 public:
  Lexer(const std::string& file, const std::string& text, DiagEngine& diags) : file_(file), s_(text), diags_(diags) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skip_space_and_comments();
      if (pos_ >= s_.size()) break;
      out.push_back(next());
    }
    out.push_back({Tok::Eof, "", here()});
    return out;
  }

 private:
  Loc here() const { return {file_, line_, col_}; }

  char peek(size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }

  void advance() {
    if (s_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  void skip_space_and_comments() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        advance();
      } else if (c == '/' && peek(1) == '/') {
        while (pos_ < s_.size() && s_[pos_] != '\n') advance();
      } else if (c == '/' && peek(1) == '*') {
        Loc start = here();
        advance();
        advance();
        bool closed = false;
        while (pos_ < s_.size()) {
          if (s_[pos_] == '*' && peek(1) == '/') {
            advance();
            advance();
            closed = true;
            break;
          }
          advance();
        }
        if (!closed) diags_.error(start, "unterminated comment: '/*' has no matching '*/'");
      } else {
        break;
      }
    }
  }

  // Length of a well-formed UTF-8 sequence at pos_, or 0. Returns the code point in `cp`.
  size_t utf8_seq(uint32_t& cp) const {
    auto b = [&](size_t i) { return static_cast<unsigned char>(peek(i)); };
    unsigned char c0 = b(0);
    size_t n = c0 >= 0xF0 && c0 <= 0xF4 ? 4 : c0 >= 0xE0 ? 3 : c0 >= 0xC2 && c0 <= 0xDF ? 2 : 0;
    if (n == 0 || pos_ + n > s_.size()) return 0;
    cp = c0 & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (size_t i = 1; i < n; ++i) {
      if ((b(i) & 0xC0) != 0x80) return 0;
      cp = (cp << 6) | (b(i) & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
      return 0;
    return n;
  }

  Token make(Tok k, size_t start, Loc loc) { return {k, s_.substr(start, pos_ - start), loc}; }

  Token next() {
    Loc loc = here();
    size_t start = pos_;
    char c = s_[pos_];
    if (is_ident_start(c)) {
      while (pos_ < s_.size() && is_ident_char(s_[pos_])) advance();
      return make(Tok::Ident, start, loc);
    }
    if (is_digit(c) || (c == '.' && is_digit(peek(1)))) return number(loc);
    auto two = [&](char second, Tok yes, Tok no) {
      advance();
      if (peek() == second) {
        advance();
        return make(yes, start, loc);
      }
      return make(no, start, loc);
    };
    switch (c) {
      case '{': advance(); return make(Tok::LBrace, start, loc);
      case '}': advance(); return make(Tok::RBrace, start, loc);
      case '(': advance(); return make(Tok::LParen, start, loc);
      case ')': advance(); return make(Tok::RParen, start, loc);
      case ':': advance(); return make(Tok::Colon, start, loc);
      case ';': advance(); return make(Tok::Semi, start, loc);
      case ',': advance(); return make(Tok::Comma, start, loc);
      case '+': advance(); return make(Tok::Plus, start, loc);
      case '-': advance(); return make(Tok::Minus, start, loc);
      case '*': advance(); return make(Tok::Star, start, loc);
      case '/': advance(); return make(Tok::Slash, start, loc);
      case '%': advance(); return make(Tok::Percent, start, loc);
      case '<': return two('=', Tok::Le, Tok::Lt);
      case '>': return two('=', Tok::Ge, Tok::Gt);
      case '!': return two('=', Tok::NotEq, Tok::Not);
      case '=':
        advance();
        if (peek() == '=') {
          advance();
          return make(Tok::EqEq, start, loc);
        }
        diags_.error(loc, "unexpected '='; use ':' to give a key its value, or '==' to compare");
        return make(Tok::Error, start, loc);
      case '&':
        advance();
        if (peek() == '&') {
          advance();
          return make(Tok::AndAnd, start, loc);
        }
        diags_.error(loc, "unexpected '&'; did you mean '&&'?");
        return make(Tok::Error, start, loc);
      case '|':
        advance();
        if (peek() == '|') {
          advance();
          return make(Tok::OrOr, start, loc);
        }
        diags_.error(loc, "unexpected '|'; did you mean '||'?");
        return make(Tok::Error, start, loc);
      default: break;
    }
    unsigned char uc = static_cast<unsigned char>(c);
    std::string what;
    if (uc >= 0x80) {
      uint32_t cp = 0;
      size_t n = utf8_seq(cp);
      if (n == 0) {
        what = fmt::format("invalid UTF-8 byte 0x{:02X}", uc);
        advance();
      } else {
        what = fmt::format("unexpected character U+{:04X} outside a comment", cp);
        for (size_t i = 0; i < n; ++i) advance();
      }
    } else {
      what = uc < 0x20 || uc == 0x7F ? fmt::format("unexpected control character 0x{:02X}", uc)
                                     : fmt::format("unexpected character '{}'", c);
      advance();
    }
    // A run of bytes that start no token is one error and one token, however long.
    size_t more = 0;
    while (pos_ < s_.size() && starts_nothing(s_[pos_])) {
      advance();
      ++more;
    }
    diags_.error(loc, more == 0 ? what : fmt::format("{}, and {} more bytes that start no token", what, more));
    return make(Tok::Error, start, loc);
  }

  static bool starts_nothing(char c) {
    if (is_ident_start(c) || is_digit(c)) return false;
    switch (c) {
      case ' ':
      case '\t':
      case '\n':
      case '\r':
      case '{':
      case '}':
      case '(':
      case ')':
      case ':':
      case ';':
      case ',':
      case '+':
      case '-':
      case '*':
      case '/':
      case '%':
      case '<':
      case '>':
      case '!':
      case '=':
      case '&':
      case '|':
      case '.': return false;
      default: return true;
    }
  }

  Token number(Loc loc) {
    size_t start = pos_;
    while (is_digit(peek())) advance();
    bool decimal = false;
    if (peek() == '.' && is_digit(peek(1))) {
      decimal = true;
      advance();
      while (is_digit(peek())) advance();
    } else if (peek() == '.') {
      advance();
      diags_.error(loc,
                   fmt::format("malformed number '{}': expected digits after '.'", s_.substr(start, pos_ - start)));
      return make(Tok::Error, start, loc);
    }
    if (peek() == 'e' || peek() == 'E') {
      size_t save_pos = pos_;
      int save_col = col_;
      advance();
      if (peek() == '+' || peek() == '-') advance();
      if (is_digit(peek())) {
        decimal = true;
        while (is_digit(peek())) advance();
      } else {
        pos_ = save_pos;  // not an exponent: "4096e" lexes as 4096 then identifier "e"
        col_ = save_col;
      }
    }
    return make(decimal ? Tok::Decimal : Tok::Int, start, loc);
  }

  const std::string& file_;
  const std::string& s_;
  DiagEngine& diags_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace

std::vector<Token> lex(const std::string& file, const std::string& text, DiagEngine& diags) {
  return Lexer(file, text, diags).run();
}

}  // namespace dg::dgml
