#include "hw/schema_check.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string_view>
#include <vector>

#include "support/error.h"
#include "support/strings.h"

namespace dg::hw {
namespace {

using json = nlohmann::json;

constexpr int kMaxDepth = 64;                           // schema nesting, $ref chains included
constexpr std::size_t kMaxSuggestInput = 64;            // no "did you mean" for longer words (edit distance)
constexpr double kMaxExactDouble = 9007199254740992.0;  // 2^53

const std::set<std::string_view> kAnnotations = {"$schema", "$id",         "$defs",   "$comment",
                                                 "title",   "description", "default", "examples"};
const std::set<std::string_view> kKeywords = {"$ref",
                                              "type",
                                              "enum",
                                              "required",
                                              "properties",
                                              "patternProperties",
                                              "additionalProperties",
                                              "items",
                                              "minItems",
                                              "maxItems",
                                              "uniqueItems",
                                              "minimum",
                                              "maximum",
                                              "exclusiveMinimum",
                                              "exclusiveMaximum",
                                              "minLength",
                                              "maxLength",
                                              "pattern"};

// A JSON number compared exactly: integers as int64/uint64, everything else as double.
struct Num {
  enum Kind { Int, UInt, Dbl } kind = Int;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  double as_double() const { return kind == Int ? static_cast<double>(i) : kind == UInt ? static_cast<double>(u) : d; }
};

Num num_of(const json& j) {
  Num n;
  if (j.is_number_unsigned()) {
    n.kind = Num::UInt;
    n.u = j.get<std::uint64_t>();
  } else if (j.is_number_integer()) {
    n.kind = Num::Int;
    n.i = j.get<std::int64_t>();
  } else {
    n.kind = Num::Dbl;
    n.d = j.get<double>();
    // An integral double below 2^53 is an exact integer: compare it as one.
    if (std::isfinite(n.d) && std::floor(n.d) == n.d && std::fabs(n.d) < kMaxExactDouble) {
      n.kind = Num::Int;
      n.i = static_cast<std::int64_t>(n.d);
    }
  }
  return n;
}

int compare(const Num& a, const Num& b) {
  if (a.kind != Num::Dbl && b.kind != Num::Dbl) {
    bool a_neg = a.kind == Num::Int && a.i < 0;
    bool b_neg = b.kind == Num::Int && b.i < 0;
    if (a_neg != b_neg) return a_neg ? -1 : 1;
    if (a_neg) return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
    std::uint64_t au = a.kind == Num::Int ? static_cast<std::uint64_t>(a.i) : a.u;
    std::uint64_t bu = b.kind == Num::Int ? static_cast<std::uint64_t>(b.i) : b.u;
    return au < bu ? -1 : (au > bu ? 1 : 0);
  }
  double ad = a.as_double(), bd = b.as_double();
  return ad < bd ? -1 : (ad > bd ? 1 : 0);
}

bool is_integer(const json& j) {
  if (j.is_number_integer()) return true;
  if (!j.is_number_float()) return false;
  double d = j.get<double>();
  return std::isfinite(d) && std::floor(d) == d && std::fabs(d) < kMaxExactDouble;
}

bool has_type(const json& j, std::string_view t) {
  if (t == "integer") return is_integer(j);
  if (t == "number") return j.is_number();
  if (t == "string") return j.is_string();
  if (t == "boolean") return j.is_boolean();
  if (t == "object") return j.is_object();
  if (t == "array") return j.is_array();
  if (t == "null") return j.is_null();
  return false;
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// A string for a message: short, escaped, never invalid UTF-8.
std::string show_string(const std::string& s, std::size_t limit = 40) {
  if (s.size() <= limit) return dump(json(s));
  return dump(json(s.substr(0, limit))) + "...";
}

// A field name for a message: as written when it is short and plain, else escaped.
std::string show_key(const std::string& k) {
  bool plain = !k.empty() && k.size() <= 60;
  for (unsigned char c : k) plain = plain && c >= 0x20 && c < 0x7f && c != '\'';
  return plain ? "'" + k + "'" : show_string(k, 60);
}

std::string show_value(const json& v) {
  switch (v.type()) {
    case json::value_t::string: return show_string(v.get_ref<const std::string&>());
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return dump(v);
  }
}

std::size_t utf8_length(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string join_path(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

class Checker {
 public:
  Checker(const json& root, const std::string& file, const std::string& schema_file)
      : root_(root), file_(file), schema_file_(schema_file) {}

  void check(const json& s, const json& v, const std::string& path, int depth) {
    if (depth > kMaxDepth) bad_schema("nested too deeply (a $ref cycle?)");
    if (s.is_boolean()) {
      if (!s.get<bool>()) fail(path, "no value is allowed here");
      return;
    }
    if (!s.is_object()) bad_schema("a schema must be an object or a boolean");
    for (const auto& [kw, unused] : s.items()) {
      (void)unused;
      if (!kKeywords.count(kw) && !kAnnotations.count(kw))
        bad_schema(fmt::format("unsupported keyword '{}' (schema_check.h lists the subset)", kw));
    }
    if (auto it = s.find("$ref"); it != s.end()) check(resolve(*it), v, path, depth + 1);
    check_type(s, v, path);
    check_enum(s, v, path);
    if (v.is_number()) check_number(s, v, path);
    if (v.is_string()) check_string(s, v, path);
    if (v.is_array()) check_array(s, v, path, depth);
    if (v.is_object()) check_object(s, v, path, depth);
  }

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& msg) const {
    throw UserError(path.empty() ? fmt::format("{}: {}", file_, msg) : fmt::format("{}: {}: {}", file_, path, msg));
  }
  [[noreturn]] void bad_schema(const std::string& msg) const {
    throw UserError(fmt::format("{}: invalid schema: {} (while checking {})", schema_file_, msg, file_));
  }

  const json& resolve(const json& ref) const {
    static constexpr std::string_view kPrefix = "#/$defs/";
    if (!ref.is_string()) bad_schema("$ref must be a string");
    const auto& r = ref.get_ref<const std::string&>();
    if (r.compare(0, kPrefix.size(), kPrefix) != 0)
      bad_schema(fmt::format("only \"#/$defs/<name>\" references are supported, not {}", dump(ref)));
    auto defs = root_.find("$defs");
    if (defs == root_.end() || !defs->is_object()) bad_schema("$ref without $defs");
    auto it = defs->find(r.substr(kPrefix.size()));
    if (it == defs->end()) bad_schema(fmt::format("$ref {} names no definition", dump(ref)));
    return *it;
  }

  const json& number_kw(const json& s, const char* kw) const {
    const json& n = s.at(kw);
    if (!n.is_number()) bad_schema(fmt::format("'{}' must be a number", kw));
    return n;
  }
  std::size_t count_kw(const json& s, const char* kw) const {
    const json& n = s.at(kw);
    if (!n.is_number_unsigned() && !(n.is_number_integer() && n.get<std::int64_t>() >= 0))
      bad_schema(fmt::format("'{}' must be a non-negative integer", kw));
    return n.get<std::size_t>();
  }
  std::string_view string_kw(const json& s, const char* kw) const {
    const json& n = s.at(kw);
    if (!n.is_string()) bad_schema(fmt::format("'{}' must be a string", kw));
    return n.get_ref<const std::string&>();
  }

  // What a value must be, in words: "integer in [1, 1024]", "one of \"gpu\", \"npu\"".
  std::string expected(const json& s) const {
    if (auto e = s.find("enum"); e != s.end() && e->is_array()) {
      std::vector<std::string> vals;
      for (const auto& x : *e) vals.push_back(dump(x));
      return "one of " + join_words(vals, ", ");
    }
    std::vector<std::string> types;
    if (auto t = s.find("type"); t != s.end()) {
      if (t->is_string()) types.push_back(t->get<std::string>());
      if (t->is_array())
        for (const auto& x : *t)
          if (x.is_string()) types.push_back(x.get<std::string>());
    }
    std::string what = types.empty() ? "value" : join_words(types, " or ");

    auto num = [&](const char* kw) { return s.contains(kw) ? dump(number_kw(s, kw)) : ""; };
    std::string lo = num("minimum"), xlo = num("exclusiveMinimum");
    std::string hi = num("maximum"), xhi = num("exclusiveMaximum");
    bool has_lo = !lo.empty() || !xlo.empty(), has_hi = !hi.empty() || !xhi.empty();
    if (has_lo && has_hi) {
      what += fmt::format(" in {}{}, {}{}", lo.empty() ? "(" : "[", lo.empty() ? xlo : lo, hi.empty() ? xhi : hi,
                          hi.empty() ? ")" : "]");
    } else if (has_lo) {
      what += lo.empty() ? " > " + xlo : " >= " + lo;
    } else if (has_hi) {
      what += hi.empty() ? " < " + xhi : " <= " + hi;
    }

    std::vector<std::string> extra;
    if (s.contains("minLength") && count_kw(s, "minLength") == 1) extra.push_back("non-empty");
    if (s.contains("minLength") && count_kw(s, "minLength") > 1)
      extra.push_back(fmt::format("at least {} characters", count_kw(s, "minLength")));
    if (s.contains("maxLength")) extra.push_back(fmt::format("at most {} characters", count_kw(s, "maxLength")));
    if (s.contains("pattern")) extra.push_back(fmt::format("matching {}", string_kw(s, "pattern")));
    if (s.contains("minItems") && count_kw(s, "minItems") == 1) extra.push_back("non-empty");
    if (s.contains("minItems") && count_kw(s, "minItems") > 1)
      extra.push_back(fmt::format("at least {} items", count_kw(s, "minItems")));
    if (s.contains("maxItems")) extra.push_back(fmt::format("at most {} items", count_kw(s, "maxItems")));
    if (!extra.empty()) what += " (" + join_words(extra, ", ") + ")";
    return what;
  }

  [[noreturn]] void fail_expected(const json& s, const json& v, const std::string& path,
                                  const std::string& tail = "") const {
    fail(path, fmt::format("expected {}, got {}{}", expected(s), show_value(v), tail));
  }

  void check_type(const json& s, const json& v, const std::string& path) const {
    auto t = s.find("type");
    if (t == s.end()) return;
    bool ok = false;
    if (t->is_string()) {
      ok = has_type(v, t->get_ref<const std::string&>());
    } else if (t->is_array()) {
      for (const auto& x : *t) {
        if (!x.is_string()) bad_schema("'type' entries must be strings");
        ok = ok || has_type(v, x.get_ref<const std::string&>());
      }
    } else {
      bad_schema("'type' must be a string or an array");
    }
    if (!ok) fail_expected(s, v, path);
  }

  void check_enum(const json& s, const json& v, const std::string& path) const {
    auto e = s.find("enum");
    if (e == s.end()) return;
    if (!e->is_array()) bad_schema("'enum' must be an array");
    for (const auto& x : *e) {
      // Compare numbers by value (1 == 1.0), everything else structurally.
      if (x.is_number() && v.is_number() ? compare(num_of(x), num_of(v)) == 0 : x == v) return;
    }
    std::string hint;
    if (v.is_string()) {
      std::vector<std::string> names;
      for (const auto& x : *e)
        if (x.is_string()) names.push_back(x.get<std::string>());
      const auto& word = v.get_ref<const std::string&>();
      std::string best = word.size() <= kMaxSuggestInput ? did_you_mean(word, names) : "";
      if (!best.empty()) hint = fmt::format(" (did you mean \"{}\"?)", best);
    }
    fail_expected(s, v, path, hint);
  }

  void check_number(const json& s, const json& v, const std::string& path) const {
    Num n = num_of(v);
    auto below = [&](const char* kw, bool strict) {
      if (!s.contains(kw)) return false;
      int c = compare(n, num_of(number_kw(s, kw)));
      return strict ? c <= 0 : c < 0;
    };
    auto above = [&](const char* kw, bool strict) {
      if (!s.contains(kw)) return false;
      int c = compare(n, num_of(number_kw(s, kw)));
      return strict ? c >= 0 : c > 0;
    };
    if (below("minimum", false) || below("exclusiveMinimum", true) || above("maximum", false) ||
        above("exclusiveMaximum", true))
      fail_expected(s, v, path);
  }

  void check_string(const json& s, const json& v, const std::string& path) const {
    const auto& str = v.get_ref<const std::string&>();
    std::size_t len = utf8_length(str);
    if (s.contains("minLength") && len < count_kw(s, "minLength")) fail_expected(s, v, path);
    if (s.contains("maxLength") && len > count_kw(s, "maxLength")) fail_expected(s, v, path);
    if (s.contains("pattern") && !matches(string_kw(s, "pattern"), str)) fail_expected(s, v, path);
  }

  void check_array(const json& s, const json& v, const std::string& path, int depth) {
    if (s.contains("minItems") && v.size() < count_kw(s, "minItems")) fail_expected(s, v, path);
    if (s.contains("maxItems") && v.size() > count_kw(s, "maxItems")) fail_expected(s, v, path);
    if (auto items = s.find("items"); items != s.end()) {
      for (std::size_t i = 0; i < v.size(); ++i) check(*items, v[i], fmt::format("{}[{}]", path, i), depth + 1);
    }
    if (auto u = s.find("uniqueItems"); u != s.end()) {
      if (!u->is_boolean()) bad_schema("'uniqueItems' must be a boolean");
      if (u->get<bool>()) {
        std::map<json, std::size_t> seen;
        for (std::size_t i = 0; i < v.size(); ++i) {
          auto [it, fresh] = seen.emplace(v[i], i);
          if (!fresh)
            fail(fmt::format("{}[{}]", path, i),
                 fmt::format("{} repeats item [{}]; items must be unique", show_value(v[i]), it->second));
        }
      }
    }
  }

  void check_object(const json& s, const json& v, const std::string& path, int depth) {
    const json* props = nullptr;
    if (auto p = s.find("properties"); p != s.end()) {
      if (!p->is_object()) bad_schema("'properties' must be an object");
      props = &*p;
    }
    const json* patterns = nullptr;
    if (auto p = s.find("patternProperties"); p != s.end()) {
      if (!p->is_object()) bad_schema("'patternProperties' must be an object");
      patterns = &*p;
    }
    const json* additional = nullptr;
    if (auto a = s.find("additionalProperties"); a != s.end()) additional = &*a;

    // Unknown fields first: a misspelt field is better reported as such than as a missing one.
    for (const auto& [key, unused] : v.items()) {
      (void)unused;
      if (props && props->contains(key)) continue;
      if (patterns && !matching_patterns(*patterns, key).empty()) continue;
      if (additional && additional->is_boolean() && !additional->get<bool>()) {
        std::vector<std::string> names;
        if (props)
          for (const auto& [name, unused2] : props->items()) {
            (void)unused2;
            names.push_back(name);
          }
        std::string best = key.size() <= kMaxSuggestInput ? did_you_mean(key, names) : "";
        fail(path, fmt::format("unknown field {}{}", show_key(key),
                               best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best)));
      }
    }
    if (auto r = s.find("required"); r != s.end()) {
      if (!r->is_array()) bad_schema("'required' must be an array");
      for (const auto& name : *r) {
        if (!name.is_string()) bad_schema("'required' entries must be strings");
        if (!v.contains(name.get_ref<const std::string&>()))
          fail(path, fmt::format("missing required field '{}'", name.get<std::string>()));
      }
    }
    for (const auto& [key, value] : v.items()) {
      std::string sub = join_path(path, key);
      bool known = false;
      if (props) {
        if (auto p = props->find(key); p != props->end()) {
          check(*p, value, sub, depth + 1);
          known = true;
        }
      }
      if (patterns) {
        for (const json* ps : matching_patterns(*patterns, key)) {
          check(*ps, value, sub, depth + 1);
          known = true;
        }
      }
      if (!known && additional) check(*additional, value, sub, depth + 1);
    }
  }

  std::vector<const json*> matching_patterns(const json& patterns, const std::string& key) const {
    std::vector<const json*> out;
    for (const auto& [pattern, schema] : patterns.items())
      if (matches(pattern, key)) out.push_back(&schema);
    return out;
  }

  bool matches(std::string_view pattern, const std::string& s) const {
    if (s.size() > kMaxPatternInput) return false;
    const std::regex* re = compiled(pattern);
    try {
      return std::regex_search(s, *re);
    } catch (const std::regex_error&) {
      return false;  // too complex to match: treat as no match
    }
  }

  // Patterns compiled once per process (a schema has a handful; std::regex is slow to build).
  const std::regex* compiled(std::string_view pattern) const {
    static std::mutex mu;
    static std::map<std::string, std::unique_ptr<std::regex>, std::less<>> cache;
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(pattern);
    if (it == cache.end()) {
      try {
        auto re = std::make_unique<std::regex>(pattern.begin(), pattern.end(), std::regex::ECMAScript);
        it = cache.emplace(std::string(pattern), std::move(re)).first;
      } catch (const std::regex_error& e) {
        bad_schema(fmt::format("bad pattern \"{}\": {}", pattern, e.what()));
      }
    }
    return it->second.get();
  }

  const json& root_;
  const std::string& file_;
  const std::string& schema_file_;
};

}  // namespace

void check_schema(const json& schema, const json& doc, const std::string& file, const std::string& schema_file) {
  Checker(schema, file, schema_file).check(schema, doc, "", 0);
}

}  // namespace dg::hw
