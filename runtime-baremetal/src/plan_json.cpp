#include "plan_json.h"

namespace dg::bm::json {
namespace {

constexpr int kMaxDepth = 64;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t skip_space(Span s, size_t i) {
  while (i < s.n && is_space(s.p[i])) ++i;
  return i;
}

/// s.p[i] is '"'. Returns the index one past the closing quote, or 0 when unterminated.
size_t skip_string(Span s, size_t i) {
  for (++i; i < s.n; ++i) {
    const char c = s.p[i];
    if (c == '"') return i + 1;
    if (c == '\\') {
      if (++i >= s.n) return 0;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      return 0;
    }
  }
  return 0;
}

/// Skips one value starting at s.p[i] (no leading space). Returns one past its end, or 0.
size_t skip_value(Span s, size_t i) {
  if (i >= s.n) return 0;
  const char c = s.p[i];
  if (c == '"') return skip_string(s, i);
  if (c == '{' || c == '[') {
    // Containers: track depth only; strings are skipped so that brackets inside them do not count.
    // Structure inside is checked loosely (balanced brackets, terminated strings, allowed
    // characters); that is enough to find where the value ends.
    char stack[kMaxDepth];
    int depth = 0;
    while (i < s.n) {
      const char d = s.p[i];
      if (d == '"') {
        i = skip_string(s, i);
        if (i == 0) return 0;
        continue;
      }
      if (d == '{' || d == '[') {
        if (depth == kMaxDepth) return 0;
        stack[depth++] = d == '{' ? '}' : ']';
      } else if (d == '}' || d == ']') {
        if (depth == 0 || stack[depth - 1] != d) return 0;
        if (--depth == 0) return i + 1;
      } else if (!(is_space(d) || d == ',' || d == ':' || d == '-' || d == '+' || d == '.' || (d >= '0' && d <= '9') ||
                   (d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z'))) {
        return 0;
      }
      ++i;
    }
    return 0;
  }
  // Scalar: number or literal; ends at a delimiter.
  size_t j = i;
  while (j < s.n) {
    const char d = s.p[j];
    if (d == ',' || d == '}' || d == ']' || is_space(d)) break;
    if (!(d == '-' || d == '+' || d == '.' || (d >= '0' && d <= '9') || (d >= 'a' && d <= 'z') ||
          (d >= 'A' && d <= 'Z'))) {
      return 0;
    }
    ++j;
  }
  return j == i ? 0 : j;
}

bool key_equals(Span s, size_t begin, size_t end, const char* key) {
  // begin/end delimit the key text between the quotes.
  size_t k = 0;
  for (size_t i = begin; i < end; ++i, ++k) {
    if (key[k] == '\0' || s.p[i] != key[k]) return false;
  }
  return key[k] == '\0';
}

}  // namespace

Result find(Span obj, const char* key, Span* value) {
  if (obj.p == nullptr || key == nullptr || value == nullptr) return Result::Malformed;
  size_t i = skip_space(obj, 0);
  if (i >= obj.n || obj.p[i] != '{') return Result::WrongType;
  i = skip_space(obj, i + 1);
  if (i < obj.n && obj.p[i] == '}') return Result::Missing;
  bool found = false;
  while (i < obj.n) {
    if (obj.p[i] != '"') return Result::Malformed;
    const size_t key_end = skip_string(obj, i);
    if (key_end == 0) return Result::Malformed;
    const size_t key_begin = i + 1;
    i = skip_space(obj, key_end);
    if (i >= obj.n || obj.p[i] != ':') return Result::Malformed;
    i = skip_space(obj, i + 1);
    const size_t end = skip_value(obj, i);
    if (end == 0) return Result::Malformed;
    if (key_equals(obj, key_begin, key_end - 1, key)) {
      // A second member of the same name would let two readers see two values: refused.
      if (found) return Result::Duplicate;
      found = true;
      value->p = obj.p + i;
      value->n = end - i;
    }
    i = skip_space(obj, end);
    if (i >= obj.n) return Result::Malformed;
    if (obj.p[i] == '}') return found ? Result::Ok : Result::Missing;
    if (obj.p[i] != ',') return Result::Malformed;
    i = skip_space(obj, i + 1);
  }
  return Result::Malformed;
}

namespace {

size_t digits(Span s, size_t i) {
  size_t j = i;
  while (j < s.n && s.p[j] >= '0' && s.p[j] <= '9') ++j;
  return j;
}

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/// A string per RFC 8259 starting at s.p[i] == '"'; one past its end, or 0.
size_t strict_string(Span s, size_t i) {
  for (++i; i < s.n; ++i) {
    const unsigned char c = static_cast<unsigned char>(s.p[i]);
    if (c == '"') return i + 1;
    if (c < 0x20) return 0;
    if (c != '\\') continue;
    if (++i >= s.n) return 0;
    const char e = s.p[i];
    if (e == 'u') {
      if (i + 4 >= s.n || !is_hex(s.p[i + 1]) || !is_hex(s.p[i + 2]) || !is_hex(s.p[i + 3]) || !is_hex(s.p[i + 4]))
        return 0;
      i += 4;
    } else if (!(e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't')) {
      return 0;
    }
  }
  return 0;
}

/// A number per RFC 8259 at s.p[i]; one past its end, or 0.
size_t strict_number(Span s, size_t i) {
  if (i < s.n && s.p[i] == '-') ++i;
  if (i >= s.n) return 0;
  if (s.p[i] == '0') {
    ++i;
  } else {
    const size_t j = digits(s, i);
    if (j == i) return 0;
    i = j;
  }
  if (i < s.n && s.p[i] == '.') {
    const size_t j = digits(s, i + 1);
    if (j == i + 1) return 0;
    i = j;
  }
  if (i < s.n && (s.p[i] == 'e' || s.p[i] == 'E')) {
    ++i;
    if (i < s.n && (s.p[i] == '+' || s.p[i] == '-')) ++i;
    const size_t j = digits(s, i);
    if (j == i) return 0;
    i = j;
  }
  return i;
}

size_t literal(Span s, size_t i, const char* word) {
  for (; *word != '\0'; ++word, ++i)
    if (i >= s.n || s.p[i] != *word) return 0;
  return i;
}

}  // namespace

Result validate(Span text, size_t* error_at) {
  size_t dummy = 0;
  if (error_at == nullptr) error_at = &dummy;
  if (text.p == nullptr) return Result::Malformed;
  // Iterative: a stack of open containers ('{' or '['), at most kMaxDepth deep.
  char stack[kMaxDepth];
  int depth = 0;
  size_t i = skip_space(text, 0);
  if (i >= text.n || text.p[i] != '{') {
    *error_at = i;
    return Result::WrongType;
  }
  // Each step reads one value at i, then what follows it in its container.
  for (;;) {
    i = skip_space(text, i);
    if (i >= text.n) break;
    const char c = text.p[i];
    size_t end = 0;
    if (c == '{' || c == '[') {
      if (depth == kMaxDepth) break;
      stack[depth++] = c;
      i = skip_space(text, i + 1);
      if (i < text.n && text.p[i] == (c == '{' ? '}' : ']')) {
        --depth;
        end = i + 1;
      } else if (c == '{') {
        // The first member's key and ':'.
        if (i >= text.n || text.p[i] != '"' || (end = strict_string(text, i)) == 0) break;
        i = skip_space(text, end);
        if (i >= text.n || text.p[i] != ':') break;
        ++i;
        continue;
      } else {
        continue;
      }
    } else if (c == '"') {
      end = strict_string(text, i);
    } else if (c == 't') {
      end = literal(text, i, "true");
    } else if (c == 'f') {
      end = literal(text, i, "false");
    } else if (c == 'n') {
      end = literal(text, i, "null");
    } else {
      end = strict_number(text, i);
    }
    if (end == 0) break;
    // After a value: ',' and the next member (or element), or the container's close.
    i = skip_space(text, end);
    bool next = false;
    while (depth > 0 && i < text.n) {
      const char open = stack[depth - 1];
      if (text.p[i] == ',') {
        i = skip_space(text, i + 1);
        if (open == '{') {
          if (i >= text.n || text.p[i] != '"' || (end = strict_string(text, i)) == 0) break;
          i = skip_space(text, end);
          if (i >= text.n || text.p[i] != ':') break;
          ++i;
        }
        next = true;
        break;
      }
      if (text.p[i] != (open == '{' ? '}' : ']')) break;
      --depth;
      i = skip_space(text, i + 1);
    }
    if (next) continue;
    if (depth == 0) {
      if (i == text.n) return Result::Ok;
      *error_at = i;  // trailing bytes after the object
      return Result::Malformed;
    }
    break;
  }
  *error_at = i;
  return Result::Malformed;
}

Result to_int(Span v, int64_t lo, int64_t hi, int64_t* out) {
  if (v.p == nullptr || v.n == 0 || out == nullptr) return Result::Malformed;
  size_t i = 0;
  const bool neg = v.p[0] == '-';
  if (neg) ++i;
  if (i >= v.n) return Result::WrongType;
  uint64_t mag = 0;
  for (; i < v.n; ++i) {
    const char c = v.p[i];
    if (c < '0' || c > '9') return Result::WrongType;
    if (mag > (0x7FFFFFFFFFFFFFFFull - static_cast<uint64_t>(c - '0')) / 10) {
      return Result::OutOfRange;
    }
    mag = mag * 10 + static_cast<uint64_t>(c - '0');
  }
  const int64_t x = neg ? -static_cast<int64_t>(mag) : static_cast<int64_t>(mag);
  if (x < lo || x > hi) return Result::OutOfRange;
  *out = x;
  return Result::Ok;
}

Result to_bool(Span v, bool* out) {
  if (v.p == nullptr || out == nullptr) return Result::Malformed;
  if (v.n == 4 && v.p[0] == 't' && v.p[1] == 'r' && v.p[2] == 'u' && v.p[3] == 'e') {
    *out = true;
    return Result::Ok;
  }
  if (v.n == 5 && v.p[0] == 'f' && v.p[1] == 'a' && v.p[2] == 'l' && v.p[3] == 's' && v.p[4] == 'e') {
    *out = false;
    return Result::Ok;
  }
  return Result::WrongType;
}

Result to_str(Span v, char* out, size_t cap) {
  if (v.p == nullptr || out == nullptr || cap == 0) return Result::Malformed;
  if (v.n < 2 || v.p[0] != '"' || v.p[v.n - 1] != '"') return Result::WrongType;
  const size_t len = v.n - 2;
  if (len + 1 > cap) return Result::TooLong;
  for (size_t i = 0; i < len; ++i) {
    const char c = v.p[1 + i];
    if (c == '\\') return Result::Malformed;  // escapes are never needed for the fields read
    out[i] = c;
  }
  out[len] = '\0';
  return Result::Ok;
}

const char* describe(Result r) {
  switch (r) {
    case Result::Ok: return "ok";
    case Result::Missing: return "missing";
    case Result::Malformed: return "malformed JSON";
    case Result::WrongType: return "wrong type";
    case Result::OutOfRange: return "out of range";
    case Result::TooLong: return "too long";
    case Result::Duplicate: return "given twice";
  }
  return "unknown";
}

}  // namespace dg::bm::json
