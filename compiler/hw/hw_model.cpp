#include "hw/hw_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <system_error>
#include <type_traits>

#include "hw/schema_check.h"
#include "support/error.h"
#include "support/files.h"
#include "support/strings.h"

namespace dg::hw {

const double* rate_for(const std::map<std::string, double>& rates, const std::string& type) {
  auto it = rates.find(type);
  if (it == rates.end() && (type == "u4" || type == "u8")) it = rates.find(type == "u4" ? "int4" : "int8");
  return it == rates.end() ? nullptr : &it->second;
}

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr std::string_view kNoteSuffix = "_source";
constexpr std::size_t kMaxSuggestInput = 64;  // no "did you mean" for longer words (edit distance)

std::string join_path(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

std::string index_path(const std::string& path, std::size_t i) { return fmt::format("{}[{}]", path, i); }

bool is_note_key(const std::string& k) {
  return k == "source" || (k.size() > kNoteSuffix.size() &&
                           k.compare(k.size() - kNoteSuffix.size(), kNoteSuffix.size(), kNoteSuffix) == 0);
}

// Errors of one model file: "<file>: <path>: <message>".
class Reporter {
 public:
  explicit Reporter(const std::string& file) : file_(file) {}
  [[noreturn]] void fail(const std::string& path, const std::string& msg) const {
    throw UserError(path.empty() ? fmt::format("{}: {}", file_, msg) : fmt::format("{}: {}: {}", file_, path, msg));
  }

 private:
  const std::string& file_;
};

std::string read_file(const std::string& path, const std::string& what_for) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw UserError(fmt::format("{}: {}", path, what_for));
  std::string text, why;
  if (!read_file_bounded(path, kMaxHwModelBytes, text, why)) throw UserError(fmt::format("{}: {}", path, why));
  return text;
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; users need only the rest.
std::string strip_exception_id(const std::string& what) {
  if (!what.empty() && what[0] == '[') {
    auto close = what.find("] ");
    if (close != std::string::npos) return what.substr(close + 2);
  }
  return what;
}

// First pass over JSON text: syntax errors and duplicate keys (nlohmann keeps the last of two
// equal keys silently). A SAX pass, because the DOM parser's callback mode is quadratic in the
// length of an array of objects.
class DuplicateKeyCheck : public json::json_sax_t {
 public:
  explicit DuplicateKeyCheck(const std::string& file) : file_(file) {}

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    frames_.push_back(Frame{});
    return true;
  }
  bool start_array(std::size_t) override {
    frames_.push_back(Frame{true});
    return true;
  }
  bool end_object() override { return end(); }
  bool end_array() override { return end(); }
  bool key(string_t& key) override {
    Frame& top = frames_.back();
    if (!top.keys.insert(key).second) {
      std::string where = path_of(frames_.size() - 1);
      std::string shown = key.size() <= 60 ? key : key.substr(0, 60) + "...";
      throw UserError(where.empty() ? fmt::format("{}: duplicate field '{}'", file_, shown)
                                    : fmt::format("{}: {}: duplicate field '{}'", file_, where, shown));
    }
    top.key = key;
    return true;
  }
  bool parse_error(std::size_t byte, const std::string&, const json::exception& e) override {
    std::string what = strip_exception_id(e.what());
    // Syntax errors carry "line L, column C" already; add the byte offset.
    error_ = what.rfind("parse error", 0) == 0 ? fmt::format("{} (byte {})", what, byte) : what;
    return false;
  }

  const std::string& error() const { return error_; }

 private:
  struct Frame {
    bool is_array = false;
    std::size_t index = 0;
    std::string key;
    std::set<std::string> keys;
  };
  bool value() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
    return true;
  }
  bool end() {
    frames_.pop_back();
    return value();
  }
  std::string path_of(std::size_t n) const {  // the path the first n frames lead to
    std::string p;
    for (std::size_t i = 0; i < n; ++i)
      p = frames_[i].is_array ? index_path(p, frames_[i].index) : join_path(p, frames_[i].key);
    return p;
  }

  const std::string& file_;
  std::vector<Frame> frames_;
  std::string error_;
};

json parse_json(const std::string& text, const std::string& file) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw UserError(fmt::format("{}: file is empty (expected a JSON object)", file));
  DuplicateKeyCheck check(file);
  if (!json::sax_parse(text, &check)) throw UserError(fmt::format("{}: invalid JSON: {}", file, check.error()));
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw UserError(fmt::format("{}: invalid JSON: {}", file, strip_exception_id(e.what())));
  }
}

// Source notes: "<field>_source" beside a field, or "source" in an object, kept by field path.
// Every JSON number must be covered by a note on itself or on an enclosing field.
class SourceCollector {
 public:
  SourceCollector(const Reporter& r, std::map<std::string, std::string>& out) : r_(r), out_(out) {}

  void visit(const json& v, const std::string& path, bool covered) {
    if (v.is_number() && !covered) {
      auto dot = path.find_last_of('.');
      std::string field = path.substr(dot == std::string::npos ? 0 : dot + 1);
      field = field.substr(0, field.find('['));
      r_.fail(path, fmt::format("no source note (add \"{}{}\" or a \"source\" string to the "
                                "enclosing object)",
                                field, kNoteSuffix));
    }
    // Array items share the array's note (gpu.mma_source covers every gpu.mma[i]).
    if (v.is_array())
      for (std::size_t i = 0; i < v.size(); ++i) visit(v[i], index_path(path, i), covered);
    if (v.is_object()) visit_object(v, path, covered);
  }

 private:
  void add(const std::string& path, const json& note, const std::string& note_path) {
    if (!note.is_string()) r_.fail(note_path, "a source note must be a string");
    if (!out_.emplace(path, note.get<std::string>()).second)
      r_.fail(note_path, fmt::format("second source note for '{}'", path.empty() ? "(top level)" : path));
  }

  void visit_object(const json& obj, const std::string& path, bool covered) {
    if (auto s = obj.find("source"); s != obj.end()) {
      add(path, *s, join_path(path, "source"));
      covered = true;
    }
    std::vector<std::string> fields;
    for (const auto& [k, unused] : obj.items()) {
      (void)unused;
      if (!is_note_key(k)) fields.push_back(k);
    }
    for (const auto& [k, note] : obj.items()) {
      if (k == "source" || !is_note_key(k)) continue;
      std::string field = k.substr(0, k.size() - kNoteSuffix.size());
      if (std::find(fields.begin(), fields.end(), field) == fields.end()) {
        std::string best = field.size() <= kMaxSuggestInput ? did_you_mean(field, fields) : "";
        r_.fail(path, fmt::format("source note '{}' names no field of this object{}", k,
                                  best.empty() ? "" : fmt::format(" (did you mean '{}{}'?)", best, kNoteSuffix)));
      }
      add(join_path(path, field), note, join_path(path, k));
    }
    for (const auto& k : fields) {
      std::string sub = join_path(path, k);
      visit(obj.at(k), sub, covered || out_.count(sub) > 0);
    }
  }

  const Reporter& r_;
  std::map<std::string, std::string>& out_;
};

// ---- The field table ----------------------------------------------------------------------------
// Every field of a model file is declared once, in the tables below: its name, its JSON-Schema
// fragment (type, range, enumeration, pattern), whether it is required (an optional field has the
// struct's default and is written back only when it differs), its description, and the struct
// member it fills. The reader, to_json, operator<< and hw-models/schema.json (schema_text) all
// walk these tables. Source notes follow one rule in every object: a "source" string covers the
// object, a "<field>_source" string beside a field covers that field, and every number in the
// file is covered by one (SourceCollector).

enum class Presence { Required, Optional };

template <class S>
struct Field {
  std::string name;
  json schema;  // the field's JSON-Schema fragment, its description included
  Presence presence = Presence::Required;
  std::function<json(const S&)> get;  // the value as a model file writes it
  // Sets the field from a value the schema accepted, checking its type and range again so that a
  // lax schema.json yields an error rather than a wrong value.
  std::function<void(S&, const json&, const std::string& path, const Reporter&)> set;
  // operator<<'s lines for the field; unset: "  <name>: <value>".
  std::function<void(std::ostream&, const S&)> print;
};

template <class S>
using Table = std::vector<Field<S>>;

// JSON-Schema fragments of the kinds of field the models use.
json note_ref() { return {{"$ref", "#/$defs/note"}}; }
json precision_ref() { return {{"$ref", "#/$defs/precision"}}; }
json integer(std::int64_t lo, std::int64_t hi) { return {{"type", "integer"}, {"minimum", lo}, {"maximum", hi}}; }
// A bound as written: 1, not 1.0 (schema_check's messages show it).
json bound(double d) { return d == std::floor(d) ? json(static_cast<std::int64_t>(d)) : json(d); }
json number(double lo, double hi) { return {{"type", "number"}, {"minimum", bound(lo)}, {"maximum", bound(hi)}}; }
json count() { return integer(1, 1024); }
json bytes() { return integer(0, 1073741824); }
json rate() { return number(0.001, 1000000); }
json boolean() { return {{"type", "boolean"}}; }
json one_of(json values) { return {{"enum", std::move(values)}}; }
json text(int max_length, const char* pattern) {
  return {{"type", "string"}, {"maxLength", max_length}, {"pattern", pattern}};
}
json set_of(json items) {
  return {{"type", "array"}, {"minItems", 1}, {"uniqueItems", true}, {"items", std::move(items)}};
}

// An object whose fields are `props` (each optional), with source notes.
json object_of(json props, const json& required) {
  props["source"] = note_ref();
  json s = {{"type", "object"}};
  if (!required.empty()) s["required"] = required;
  s["properties"] = std::move(props);
  s["patternProperties"] = {{"^[a-z0-9_]+_source$", note_ref()}};
  s["additionalProperties"] = false;
  return s;
}

// Rates by precision (peak_tflops): each a rate, any of these keys.
json rates() {
  json props = json::object();
  for (const char* k : {"fp32", "tf32", "fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "int8", "int4"}) props[k] = rate();
  return object_of(props, json::array());
}

json described(json schema, const char* doc) {
  if (*doc) schema["description"] = doc;
  return schema;
}

std::int64_t checked_int(const json& v, const std::string& path, std::int64_t lo, std::int64_t hi, const Reporter& r) {
  std::int64_t x = 0;
  bool ok = false;
  if (v.is_number_unsigned()) {
    auto u = v.get<std::uint64_t>();
    ok = u <= static_cast<std::uint64_t>(INT64_MAX);
    x = static_cast<std::int64_t>(u);
  } else if (v.is_number_integer()) {
    x = v.get<std::int64_t>();
    ok = true;
  } else if (v.is_number_float()) {
    double d = v.get<double>();
    ok = std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9007199254740992.0;
    if (ok) x = static_cast<std::int64_t>(d);
  }
  if (!ok || x < lo || x > hi)
    r.fail(path, fmt::format("expected integer in [{}, {}], got {}", lo, hi,
                             v.is_number() ? v.dump() : std::string("a ") + v.type_name()));
  return x;
}

// A keyword of a schema fragment, or `fallback`.
const json& keyword(const json& schema, const char* kw, const json& fallback) {
  auto it = schema.find(kw);
  return it == schema.end() ? fallback : *it;
}

const json kIntMin = INT_MIN, kIntMax = INT_MAX;

template <class T>
inline constexpr bool kIsVector = false;
template <class T>
inline constexpr bool kIsVector<std::vector<T>> = true;

// `out` from `v`, checked against the type and range `schema` declares.
template <class T>
void decode(const json& v, const json& schema, const std::string& path, const Reporter& r, T& out) {
  static const json none = json::object();
  if constexpr (std::is_same_v<T, int>) {
    const json& lo = keyword(schema, "minimum", kIntMin);
    const json& hi = keyword(schema, "maximum", kIntMax);
    out = static_cast<int>(checked_int(v, path, lo.get<std::int64_t>(), hi.get<std::int64_t>(), r));
  } else if constexpr (std::is_same_v<T, double>) {
    if (!v.is_number()) r.fail(path, "expected number");
    out = v.get<double>();
    if (!std::isfinite(out) || out < 0) r.fail(path, "expected a finite number >= 0");
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) r.fail(path, "expected boolean");
    out = v.get<bool>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) r.fail(path, "expected string");
    out = v.get<std::string>();
  } else if constexpr (kIsVector<T>) {
    if (!v.is_array()) r.fail(path, "expected array");
    out.assign(v.size(), {});
    for (std::size_t i = 0; i < v.size(); ++i)
      decode(v[i], keyword(schema, "items", none), index_path(path, i), r, out[i]);
  } else {  // an object of numbers beside its source notes
    static_assert(std::is_same_v<T, std::map<std::string, double>>, "a field type decode does not read");
    if (!v.is_object()) r.fail(path, "expected object");
    out.clear();
    for (const auto& [k, x] : v.items())
      if (!is_note_key(k))
        decode(x, keyword(keyword(schema, "properties", none), k.c_str(), none), join_path(path, k), r, out[k]);
  }
}

// A field held in member `m` as it is in the file.
template <class S, class T>
Field<S> member(const char* name, T S::*m, json schema, const char* doc, Presence presence = Presence::Required) {
  Field<S> f{name, described(std::move(schema), doc), presence};
  f.get = [m](const S& s) { return json(s.*m); };
  f.set = [m, sch = f.schema](S& s, const json& v, const std::string& path, const Reporter& r) {
    decode(v, sch, path, r, s.*m);
  };
  return f;
}

// A string field that the struct holds in another form (a version, an address, an enumeration).
template <class S>
Field<S> converted(const char* name, json schema, const char* doc, std::function<json(const S&)> get,
                   std::function<void(S&, const std::string&, const std::string& path, const Reporter&)> parse) {
  Field<S> f{name, described(std::move(schema), doc), Presence::Required, std::move(get)};
  f.set = [parse = std::move(parse)](S& s, const json& v, const std::string& path, const Reporter& r) {
    std::string str;
    decode(v, json::object(), path, r, str);
    parse(s, str, path, r);
  };
  return f;
}

template <class T>
void read_into(const Table<T>& table, const json& obj, const std::string& path, const Reporter& r, T& out) {
  if (!obj.is_object()) r.fail(path, "expected object");
  for (const Field<T>& f : table) {
    if (auto it = obj.find(f.name); it != obj.end())
      f.set(out, *it, join_path(path, f.name), r);
    else if (f.presence == Presence::Required)
      r.fail(path, fmt::format("missing required field '{}'", f.name));
  }
}

template <class T>
json write_object(const Table<T>& table, const T& x) {
  static const T defaults{};
  json o = json::object();
  for (const Field<T>& f : table) {
    json v = f.get(x);
    if (f.presence == Presence::Optional && v == f.get(defaults)) continue;
    o[f.name] = std::move(v);
  }
  return o;
}

template <class T>
json object_schema(const Table<T>& table) {
  json props = json::object(), required = json::array();
  for (const Field<T>& f : table) {
    props[f.name] = f.schema;
    if (f.presence == Presence::Required) required.push_back(f.name);
  }
  return object_of(std::move(props), required);
}

// A value as operator<< shows it: strings bare, lists comma-separated, maps as "key value".
std::string shown(const json& v) {
  std::vector<std::string> parts;
  if (v.is_string()) return v.get<std::string>().empty() ? "(none)" : v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  if (v.is_array())
    for (const json& x : v) parts.push_back(shown(x));
  else if (v.is_object())
    for (const auto& [k, x] : v.items()) parts.push_back(k + " " + shown(x));
  else
    return v.dump();
  return parts.empty() ? "(none)" : fmt::format("{}", fmt::join(parts, ", "));
}

template <class T>
void print_fields(std::ostream& os, const Table<T>& table, const T& x) {
  for (const Field<T>& f : table) {
    if (f.print)
      f.print(os, x);
    else
      os << "  " << f.name << ": " << shown(f.get(x)) << "\n";
  }
}

// A list of objects, each read, written and printed by `table` (one line per item).
template <class S, class T>
Field<S> objects(const char* name, std::vector<T> S::*m, const Table<T>& table, const char* doc) {
  Field<S> f{name, described({{"type", "array"}, {"items", object_schema(table)}}, doc)};
  f.get = [m, &table](const S& s) {
    json a = json::array();
    for (const T& x : s.*m) a.push_back(write_object(table, x));
    return a;
  };
  f.set = [m, &table](S& s, const json& v, const std::string& path, const Reporter& r) {
    if (!v.is_array()) r.fail(path, "expected array of objects");
    (s.*m).assign(v.size(), T{});
    for (std::size_t i = 0; i < v.size(); ++i) read_into(table, v[i], index_path(path, i), r, (s.*m)[i]);
  };
  f.print = [m, &table, name](std::ostream& os, const S& s) {
    for (std::size_t i = 0; i < (s.*m).size(); ++i) {
      const json o = write_object(table, (s.*m)[i]);
      std::vector<std::string> parts;
      for (const Field<T>& g : table)
        if (o.contains(g.name)) parts.push_back(g.name + " " + shown(o.at(g.name)));
      os << fmt::format("  {}[{}]: {}\n", name, i, fmt::join(parts, ", "));
    }
  };
  return f;
}

// ---- The tables ---------------------------------------------------------------------------------

const json& precisions() {
  static const json p = {"fp32", "fp16", "bf16", "fp8_e4m3",  "fp8_e5m2", "int8",
                         "u8",   "int4", "u4",   "int4_e2m1", "int32"};
  return p;
}

const Table<MmaShape>& mma_fields() {
  using M = MmaShape;
  static const Table<M> t = {
      member("instr", &M::instr, one_of({"mma.sync", "wgmma"}),
             "The instruction: mma.sync (warp) or wgmma (warpgroup)."),
      member("m", &M::m, count(), ""),
      member("n", &M::n, count(), ""),
      member("n_step", &M::n_step, integer(1, 1024),
             "When present, n may be any multiple of n_step up to n (wgmma m64nNk*).", Presence::Optional),
      member("k", &M::k, count(), ""),
      member("a_type", &M::a_type, precision_ref(), ""),
      member("b_type", &M::b_type, precision_ref(), ""),
      member("acc_type", &M::acc_type, one_of({"fp32", "fp16", "int32"}), ""),
      member("b_k_major_only", &M::b_k_major_only, boolean(),
             "true: the instruction reads B K-major (column-major) only; it has no transpose for this element "
             "width. Absent: false.",
             Presence::Optional),
  };
  return t;
}

const Table<InRegisterConversion>& conversion_fields() {
  using C = InRegisterConversion;
  static const Table<C> t = {
      member("from", &C::from, precision_ref(), "The weight precision the target cannot multiply natively."),
      member("compute_types", &C::compute_types, set_of(precision_ref()),
             "Precisions it is unpacked to in registers before a tensor-core instruction."),
  };
  return t;
}

const Table<GpuModel>& gpu_fields() {
  using G = GpuModel;
  static const Table<G> t = {
      member("arch", &G::arch, text(16, "^sm_[0-9]{2,3}a?$"), "The SM architecture code is generated for."),
      converted<G>(
          "ptx_version", text(8, "^[0-9]{1,2}\\.[0-9]$"), "PTX ISA version the backend emits, \"major.minor\".",
          [](const G& g) { return json(fmt::format("{}.{}", g.ptx_version_major, g.ptx_version_minor)); },
          [](G& g, const std::string& v, const std::string& path, const Reporter& r) {
            auto dot = v.find('.');
            auto parse = [](std::string_view s, int& out) {
              auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
              return ec == std::errc() && p == s.data() + s.size() && !s.empty();
            };
            if (dot == std::string::npos || !parse(std::string_view(v).substr(0, dot), g.ptx_version_major) ||
                !parse(std::string_view(v).substr(dot + 1), g.ptx_version_minor))
              r.fail(path, fmt::format("expected \"major.minor\", got \"{}\"", v));
          }),
      member("sm_count", &G::sm_count, count(), ""),
      member("boost_clock_mhz", &G::boost_clock_mhz, number(1, 10000), ""),
      member("warp_size", &G::warp_size, integer(1, 64), ""),
      member("max_threads_per_block", &G::max_threads_per_block, integer(1, 4096), ""),
      member("max_threads_per_sm", &G::max_threads_per_sm, integer(1, 65536), ""),
      member("max_blocks_per_sm", &G::max_blocks_per_sm, count(), ""),
      member("max_warps_per_sm", &G::max_warps_per_sm, count(), ""),
      member("regs_per_sm", &G::regs_per_sm, integer(1, 16777216), "32-bit registers per SM."),
      member("max_regs_per_thread", &G::max_regs_per_thread, count(), ""),
      member("smem_per_sm_bytes", &G::smem_per_sm_bytes, bytes(),
             "Configurable shared memory per SM (the largest carve-out)."),
      member("smem_per_block_bytes", &G::smem_per_block_bytes, bytes(),
             "Dynamic shared memory per block with the opt-in attribute."),
      member("smem_per_block_default_bytes", &G::smem_per_block_default_bytes, bytes(),
             "Shared memory per block without the opt-in attribute."),
      member("carveout_kb", &G::carveout_kb, set_of(integer(0, 1048576)),
             "Shared-memory carve-out choices per SM, KiB, ascending."),
      member("smem_banks", &G::smem_banks, integer(1, 128), ""),
      member("smem_bank_width_bytes", &G::smem_bank_width_bytes, integer(1, 64), ""),
      member("l1_bytes", &G::l1_bytes, bytes(), "Unified L1 and shared memory per SM."),
      member("l2_bytes", &G::l2_bytes, bytes(), ""),
      member("l2_line_bytes", &G::l2_line_bytes, integer(1, 4096), ""),
      member("dram_bandwidth_gbps", &G::dram_bandwidth_gbps, rate(), ""),
      member("l2_bandwidth_gbps", &G::l2_bandwidth_gbps, rate(), ""),
      member("dram_latency_ns", &G::dram_latency_ns, rate(), "Global-memory load latency of an L2 miss, nanoseconds."),
      member("dram_bytes_gib", &G::dram_bytes_gib, integer(1, 1048576), ""),
      objects("mma", &G::mma, mma_fields(), "Tensor-core instruction shapes (mma.sync and, on Hopper, wgmma)."),
      member("simt_types", &G::simt_types, set_of(precision_ref()),
             "Precisions the CUDA cores multiply without tensor cores."),
      objects("conversions", &G::conversions, conversion_fields(),
              "Weight precisions unpacked in registers before a tensor-core instruction."),
      member("peak_tflops", &G::peak_tflops, rates(), "Dense peak by precision, TFLOP/s (TOP/s for integers)."),
      member("mma_sync_peak_tflops", &G::mma_sync_peak_tflops, rates(),
             "Optional: the sustained mma.sync rate by precision where it is below peak_tflops (on Hopper the "
             "peak is wgmma's).",
             Presence::Optional),
      member("has_cluster", &G::has_cluster, boolean(), "Thread-block clusters (Hopper)."),
      member("max_cluster_size", &G::max_cluster_size, integer(1, 64), ""),
      member("has_cp_async", &G::has_cp_async, boolean(), "cp.async (sm_80 and later)."),
      member("has_tma", &G::has_tma, boolean(), "cp.async.bulk.tensor (sm_90)."),
  };
  return t;
}

const Table<NpuModel>& npu_fields() {
  using N = NpuModel;
  static const Table<N> t = {
      member("pe_rows", &N::pe_rows, integer(1, 256), ""),
      member("pe_cols", &N::pe_cols, integer(1, 256), ""),
      member("dataflows", &N::dataflows, set_of(one_of({"weight_stationary", "output_stationary", "input_stationary"})),
             ""),
      member("input_types", &N::input_types, set_of(one_of({"int4", "int8", "int16", "u4", "u8", "u16"})),
             "Native input precisions."),
      member("max_custom_width", &N::max_custom_width, integer(1, 32), "Custom sN/uN inputs up to this many bits."),
      member("acc_width", &N::acc_width, integer(8, 64), "Accumulator bits."),
      member("spad_banks", &N::spad_banks, integer(1, 256), ""),
      member("spad_rows", &N::spad_rows, integer(1, 1048576), "Rows per scratchpad bank."),
      member("spad_width_bits", &N::spad_width_bits, integer(8, 4096), "Bits per scratchpad row."),
      member("spad_bank_map", &N::spad_bank_map, one_of({"modulo", "xor"}),
             "Optional, \"modulo\" by default: the scratchpad bank of tile row r = q * spad_banks + j (j = r mod "
             "spad_banks, q = r / spad_banks, its word row): \"modulo\" puts it in bank j, \"xor\" in bank j XOR (q "
             "mod spad_banks). Every reader and writer of the scratchpad uses the one mapping (hdl-gen's "
             "dg_bank_map).",
             Presence::Optional),
      member("acc_rows", &N::acc_rows, integer(1, 1048576), "Accumulator-memory rows."),
      member("acc_width_bits", &N::acc_width_bits, integer(8, 8192), "Bits per accumulator-memory row."),
      member("bus_data_bits", &N::bus_data_bits, one_of({8, 16, 32, 64, 128, 256, 512, 1024}), "DRAM bus data width."),
      member("bus_max_burst_beats", &N::bus_max_burst_beats, integer(1, 256), "Most beats in one burst (AXI: 256)."),
      member("bus_boundary_bytes", &N::bus_boundary_bytes, integer(1, 1048576),
             "Bursts never cross this boundary (AXI: 4096)."),
      member("bus_addr_bits", &N::bus_addr_bits, integer(32, 64),
             "Optional, 32 by default: the width of the AXI4 addresses of the DMA masters. The operands' bases are "
             "programmed as two 32-bit registers each (A_BASE and A_BASE_HI, ...); bits above this width must be "
             "zero.",
             Presence::Optional),
      member("dram_latency_cycles", &N::dram_latency_cycles, integer(0, 1000000), "Typical read latency."),
      member("drain_shadow", &N::drain_shadow, boolean(),
             "Optional, true by default: each PE has a shadow register that takes its sum at the end of a "
             "sub-block, so the drain into the accumulators overlaps the next sub-block's products. Without it the "
             "array waits while it drains (fewer registers).",
             Presence::Optional),
      member("ld_registers", &N::ld_registers, boolean(),
             "Optional, true by default: the design has the leading-dimension registers LDA, LDB and LDC, so that "
             "A, B and C may be sub-matrices of larger row-major arrays (row strides set at run time, dgmm_set_ld). "
             "Each AGU then multiplies its row by a run-time stride; false reads and writes packed rows only, with "
             "the strides constant (for the smallest FPGAs).",
             Presence::Optional),
      converted<N>(
          "mmio_base", text(18, "^0x[0-9A-Fa-f]{1,16}$"), "Register-map base address, hexadecimal.",
          [](const N& n) { return json(fmt::format("0x{:08X}", n.mmio_base)); },
          [](N& n, const std::string& base, const std::string& path, const Reporter& r) {
            bool hex = base.size() > 2 && base.size() <= 18 && base[0] == '0' && (base[1] == 'x' || base[1] == 'X');
            if (hex) {
              auto [p, ec] = std::from_chars(base.data() + 2, base.data() + base.size(), n.mmio_base, 16);
              hex = ec == std::errc() && p == base.data() + base.size();
            }
            if (!hex) r.fail(path, fmt::format("expected a hexadecimal address \"0x...\", got \"{}\"", base));
          }),
      member("clock_mhz", &N::clock_mhz, number(1, 10000), ""),
      member("board", &N::board, one_of({"icebreaker"}),
             "Optional: the FPGA prototype board in boards/ that synthesis places and routes the design on "
             "(nextpnr). One of the boards the compiler carries.",
             Presence::Optional),
  };
  return t;
}

const Table<HwModel>& top_fields() {
  using H = HwModel;
  static const Table<H> t = {
      member("name", &H::name, text(64, "^[a-z][a-z0-9_]*$"), "The name a spec's `target` uses; equals the file stem."),
      member("description", &H::description, {{"type", "string"}, {"minLength", 1}, {"maxLength", 200}}, ""),
      converted<H>(
          "kind", one_of({"gpu", "npu"}), "", [](const H& m) { return json(target_kind_name(m.kind)); },
          [](H& m, const std::string& v, const std::string& path, const Reporter& r) {
            auto kind = target_kind_from_name(v);
            if (!kind) r.fail(path, fmt::format("expected \"gpu\" or \"npu\", got \"{}\"", v));
            m.kind = *kind;
          }),
  };
  return t;
}

// hw-models/schema.json: the tables as a JSON Schema (the subset schema_check.h implements).
json schema_document() {
  json doc = {
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"$id", "https://deepgemm.dev/hw-models/schema.json"},
      {"title", "DeepGEMM hardware model"},
      {"description",
       "One target (GPU or NPU) as data. Every numeric field carries a source note: a sibling string "
       "'<field>_source' or a 'source' string in an enclosing object. Generated from the field tables of "
       "compiler/hw/hw_model.cpp (DEEPGEMM_UPDATE_GOLDEN=1 ctest -R unit.hw rewrites it); edit the "
       "tables, not this file. It uses the subset of JSON Schema 2020-12 that compiler/hw/schema_check.h "
       "implements."},
  };
  doc.update(object_schema(top_fields()));
  doc["properties"]["gpu"] = object_schema(gpu_fields());
  doc["properties"]["npu"] = object_schema(npu_fields());
  doc["$defs"] = {{"note", {{"type", "string"}, {"minLength", 1}, {"maxLength", 1000}}},
                  {"precision", one_of(precisions())}};
  return doc;
}

bool is_pow2(std::int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

// Facts that relate fields to each other; the schema checks each field alone.
void check_gpu(const GpuModel& g, const Reporter& r) {
  auto at = [](const char* field) { return join_path("gpu", field); };
  auto kib = [](int bytes) { return fmt::format("{} ({} KiB)", bytes, bytes / 1024.0); };
  if (g.smem_per_block_default_bytes > g.smem_per_block_bytes)
    r.fail(at("smem_per_block_default_bytes"),
           fmt::format("{} is more than smem_per_block_bytes {}", kib(g.smem_per_block_default_bytes),
                       kib(g.smem_per_block_bytes)));
  if (g.smem_per_block_bytes > g.smem_per_sm_bytes)
    r.fail(at("smem_per_block_bytes"),
           fmt::format("{} is more than smem_per_sm_bytes {}", kib(g.smem_per_block_bytes), kib(g.smem_per_sm_bytes)));
  if (g.smem_per_sm_bytes > g.l1_bytes)
    r.fail(at("smem_per_sm_bytes"),
           fmt::format("{} is more than l1_bytes {}", kib(g.smem_per_sm_bytes), kib(g.l1_bytes)));
  for (std::size_t i = 1; i < g.carveout_kb.size(); ++i)
    if (g.carveout_kb[i] <= g.carveout_kb[i - 1])
      r.fail(index_path(at("carveout_kb"), i),
             fmt::format("carve-out choices must be ascending ({} after {})", g.carveout_kb[i], g.carveout_kb[i - 1]));
  if (!g.carveout_kb.empty() && static_cast<std::int64_t>(g.carveout_kb.back()) * 1024 != g.smem_per_sm_bytes)
    r.fail(at("carveout_kb"), fmt::format("the largest carve-out, {} KiB, must equal smem_per_sm_bytes {}",
                                          g.carveout_kb.back(), kib(g.smem_per_sm_bytes)));
  if (g.max_threads_per_block > g.max_threads_per_sm)
    r.fail(at("max_threads_per_block"),
           fmt::format("{} is more than max_threads_per_sm {}", g.max_threads_per_block, g.max_threads_per_sm));
  if (static_cast<std::int64_t>(g.max_warps_per_sm) * g.warp_size != g.max_threads_per_sm)
    r.fail(at("max_warps_per_sm"), fmt::format("{} warps of {} threads is not max_threads_per_sm {}",
                                               g.max_warps_per_sm, g.warp_size, g.max_threads_per_sm));
  if (!g.has_cluster && g.max_cluster_size != 1)
    r.fail(at("max_cluster_size"), fmt::format("must be 1 when has_cluster is false, got {}", g.max_cluster_size));

  std::set<std::string> inputs;
  for (std::size_t i = 0; i < g.mma.size(); ++i) {
    const MmaShape& s = g.mma[i];
    const std::string item = index_path(at("mma"), i);
    // The cost model times every instruction by its input type's peak rate.
    if (rate_for(g.peak_tflops, s.a_type) == nullptr)
      r.fail(join_path(item, "a_type"), fmt::format("\"{}\" has no rate in {}: add \"{}\": <dense TFLOP/s or TOP/s>",
                                                    s.a_type, at("peak_tflops"), s.a_type));
    for (const auto& [field, type] : {std::pair{"a_type", s.a_type}, std::pair{"b_type", s.b_type}})
      if (type == "fp32" || type == "int32")
        r.fail(join_path(item, field), fmt::format("\"{}\" is not a tensor-core input type", type));
    if (s.n_step > 0 && s.n % s.n_step != 0)
      r.fail(join_path(item, "n_step"), fmt::format("n = {} is not a multiple of n_step = {}", s.n, s.n_step));
    inputs.insert(s.a_type);
    inputs.insert(s.b_type);
  }
  if (!g.simt_types.empty() && rate_for(g.peak_tflops, "fp32") == nullptr)
    r.fail(at("peak_tflops"),
           fmt::format("the CUDA cores' {} need an \"fp32\" rate (their FMA peak)", at("simt_types")));
  for (std::size_t i = 0; i < g.conversions.size(); ++i) {
    const auto& c = g.conversions[i];
    for (std::size_t j = 0; j < c.compute_types.size(); ++j)
      if (!inputs.count(c.compute_types[j]))
        r.fail(index_path(join_path(index_path(at("conversions"), i), "compute_types"), j),
               fmt::format("\"{}\" is not an input type of any {} entry", c.compute_types[j], at("mma")));
  }
}

void check_npu(const NpuModel& n, const Reporter& r) {
  auto at = [](const char* field) { return join_path("npu", field); };
  if (n.clock_mhz <= 0) r.fail(at("clock_mhz"), "expected a number > 0");
  if (n.acc_width_bits % n.acc_width != 0)
    r.fail(at("acc_width_bits"),
           fmt::format("{} bits is not a whole number of {}-bit accumulators", n.acc_width_bits, n.acc_width));
  if (n.spad_width_bits % 8 != 0)
    r.fail(at("spad_width_bits"), fmt::format("{} is not a whole number of bytes", n.spad_width_bits));
  if (n.bus_data_bits % 8 != 0 || !is_pow2(n.bus_data_bits))
    r.fail(at("bus_data_bits"), fmt::format("expected a power of two of at least 8, got {}", n.bus_data_bits));
  if (!is_pow2(n.bus_boundary_bytes))
    r.fail(at("bus_boundary_bytes"), fmt::format("expected a power of two, got {}", n.bus_boundary_bytes));
  std::int64_t burst = static_cast<std::int64_t>(n.bus_max_burst_beats) * (n.bus_data_bits / 8);
  if (burst > n.bus_boundary_bytes)
    r.fail(at("bus_max_burst_beats"),
           fmt::format("a burst of {} beats x {} bytes = {} bytes cannot fit within the {}-byte "
                       "boundary",
                       n.bus_max_burst_beats, n.bus_data_bits / 8, burst, n.bus_boundary_bytes));
  if (n.mmio_base % 4 != 0) r.fail(at("mmio_base"), fmt::format("0x{:X} is not 4-byte aligned", n.mmio_base));
}

fs::path schema_beside(const std::string& model_file) {
  fs::path dir = fs::path(model_file).parent_path();
  return dir.empty() ? fs::path("schema.json") : dir / "schema.json";
}

json load_schema_for(const std::string& model_file) {
  std::string path = schema_beside(model_file).string();
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw UserError(
        fmt::format("{}: schema file not found; it must sit beside {} (hw-models/"
                    "schema.json)",
                    path, model_file));
  return load_schema(path);
}

// Path components of "gpu.mma[3].k": "gpu", "mma", 3, "k" (index components as strings "[3]").
std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : path) {
    if (c == '.' || c == '[') {
      if (!cur.empty()) out.push_back(cur);
      cur = c == '[' ? "[" : "";
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

json* node_at(json& root, const std::vector<std::string>& parts, std::size_t n) {
  json* cur = &root;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& p = parts[i];
    if (p.size() > 2 && p.front() == '[' && p.back() == ']') {
      std::size_t idx = 0;
      auto [ptr, ec] = std::from_chars(p.data() + 1, p.data() + p.size() - 1, idx);
      if (ec != std::errc() || ptr != p.data() + p.size() - 1 || !cur->is_array() || idx >= cur->size()) return nullptr;
      cur = &(*cur)[idx];
    } else {
      if (!cur->is_object() || !cur->contains(p)) return nullptr;
      cur = &(*cur)[p];
    }
  }
  return cur;
}

}  // namespace

std::string HwModel::source_of(const std::string& path) const {
  std::string p = path;
  for (;;) {
    if (auto it = sources.find(p); it != sources.end()) return it->second;
    if (p.empty()) return "";
    auto cut = p.find_last_of(".[");
    p = cut == std::string::npos ? std::string() : p.substr(0, cut);
  }
}

json load_schema(const std::string& path) {
  std::string text = read_file(path, "schema file not found");
  json schema = parse_json(text, path);
  if (!schema.is_object()) throw UserError(fmt::format("{}: a schema must be a JSON object", path));
  return schema;
}

HwModel from_json(const json& j, const std::string& file, const json& schema) {
  Reporter r(file);
  try {
    check_schema(schema, j, file, "schema.json");
    HwModel m;
    read_into(top_fields(), j, "", r, m);
    m.file = file;
    std::string stem = fs::path(file).stem().string();
    if (!stem.empty() && m.name != stem)
      r.fail("name", fmt::format("\"{}\" does not match the file name (expected \"{}\")", m.name, stem));
    const std::string kind = target_kind_name(m.kind), other = m.is_gpu() ? "npu" : "gpu";
    if (!j.contains(kind)) r.fail("", fmt::format("kind is \"{}\" but there is no \"{}\" section", kind, kind));
    if (j.contains(other))
      r.fail(other, fmt::format("a \"{}\" section does not belong to a model of kind \"{}\"", other, kind));
    SourceCollector(r, m.sources).visit(j, "", false);
    if (m.is_gpu()) {
      read_into(gpu_fields(), j.at(kind), kind, r, m.gpu);
      check_gpu(m.gpu, r);
    } else {
      read_into(npu_fields(), j.at(kind), kind, r, m.npu);
      check_npu(m.npu, r);
    }
    return m;
  } catch (const json::exception& e) {
    throw UserError(fmt::format("{}: {}", file, strip_exception_id(e.what())));
  }
}

HwModel from_json(const json& j, const std::string& file) { return from_json(j, file, load_schema_for(file)); }

HwModel from_text(const std::string& text, const std::string& file, const json& schema) {
  return from_json(parse_json(text, file), file, schema);
}

HwModel load(const std::string& path) {
  std::string text = read_file(path, "no such hardware model file");
  json schema = load_schema_for(path);
  return from_text(text, path, schema);
}

std::vector<std::string> list_names(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UserError(fmt::format("{}: no such hardware-model directory", dir));
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    std::error_code ec2;
    if (p.extension() == ".json" && p.filename() != "schema.json" && it->is_regular_file(ec2))
      names.push_back(p.stem().string());
  }
  if (ec) throw UserError(fmt::format("{}: cannot list: {}", dir, ec.message()));
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<HwModel> load_dir(const std::string& dir) {
  std::vector<HwModel> out;
  std::vector<std::string> names = list_names(dir);
  if (names.empty()) return out;
  json schema = load_schema_for((fs::path(dir) / (names.front() + ".json")).string());
  for (const auto& name : names) {
    std::string path = (fs::path(dir) / (name + ".json")).string();
    out.push_back(from_text(read_file(path, "no such hardware model file"), path, schema));
  }
  return out;
}

HwModel load_named(const std::string& dir, const std::string& name) {
  std::vector<std::string> names = list_names(dir);
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string best = name.size() <= kMaxSuggestInput ? did_you_mean(name, names) : "";
    throw UserError(fmt::format("no hardware model '{}' in {} (known: {}){}", name, dir,
                                names.empty() ? "none" : join_words(names),
                                best.empty() ? "" : fmt::format("; did you mean '{}'?", best)));
  }
  return load((fs::path(dir) / (name + ".json")).string());
}

json to_json(const HwModel& m) {
  json j = write_object(top_fields(), m);
  j[target_kind_name(m.kind)] = m.is_gpu() ? write_object(gpu_fields(), m.gpu) : write_object(npu_fields(), m.npu);
  // Each note goes back where the loader finds it again: "source" inside an object, else
  // "<field>_source" beside the field.
  for (const auto& [path, note] : m.sources) {
    std::vector<std::string> parts = split_path(path);
    json* node = node_at(j, parts, parts.size());
    if (node && node->is_object()) {
      (*node)["source"] = note;
      continue;
    }
    if (!node || parts.empty() || parts.back().front() == '[') continue;
    json* parent = node_at(j, parts, parts.size() - 1);
    if (parent && parent->is_object()) (*parent)[parts.back() + std::string(kNoteSuffix)] = note;
  }
  return j;
}

std::ostream& operator<<(std::ostream& os, const HwModel& m) {
  os << fmt::format("hw model {} ({}): {}\n", m.name, m.kind, m.description);
  if (!m.file.empty()) os << "  file: " << m.file << "\n";
  if (m.is_gpu())
    print_fields(os, gpu_fields(), m.gpu);
  else
    print_fields(os, npu_fields(), m.npu);
  return os;
}

std::string schema_text() { return schema_document().dump(2) + "\n"; }

int npu_queue_entries(const NpuModel& n, std::int64_t row_beats, bool c_stream) {
  const std::int64_t beats = std::max<std::int64_t>(1, row_beats);
  const std::int64_t in_flight = (n.dram_latency_cycles + beats - 1) / beats + 2;
  int lg = 0;
  while ((std::int64_t{1} << lg) < in_flight) ++lg;
  return 1 << std::clamp(lg, 2, c_stream ? 4 : 5);
}

std::string npu_unbuildable(const NpuModel& n) {
  const std::int64_t beat = n.bus_data_bits / 8;
  if (n.acc_width != 32 && n.acc_width != 48 && n.acc_width != 64)
    return fmt::format(
        "npu.acc_width is {}: the generated accumulators are 32, 48 or 64 bits; set npu.acc_width to one "
        "of them",
        n.acc_width);
  // The masters are AXI4: no burst may cross 4 KB or exceed 256 beats, and a beat is at most
  // 128 bytes.
  if (n.bus_boundary_bytes > 4096 || n.bus_max_burst_beats > 256 || beat > 128)
    return fmt::format(
        "the generated DMA masters are AXI4, whose bursts stay inside 4 KB and 256 beats of at most "
        "128 bytes; the model has npu.bus_boundary_bytes {}, npu.bus_max_burst_beats {} and "
        "npu.bus_data_bits {}: set them to at most 4096, 256 and 1024",
        n.bus_boundary_bytes, n.bus_max_burst_beats, n.bus_data_bits);
  // A scratchpad word other than the bus beat: the DMA regroups each row's bytes, from an offset
  // inside a beat of at least two bytes.
  if (n.spad_width_bits != n.bus_data_bits && n.bus_data_bits < 16)
    return fmt::format(
        "npu.bus_data_bits is {} and npu.spad_width_bits {}: the generated DMA regroups a bus of at least 16 bits "
        "into scratchpad words; widen npu.bus_data_bits or make it the scratchpad word",
        n.bus_data_bits, n.spad_width_bits);
  // The array's sides may be any size (tiles are whole multiples of them, stepped by additions and
  // multiplications by constants); the scratchpad's banks and rows and the bus are indexed by bits.
  auto pow2_below = [](std::int64_t v) {
    int lg = 0;
    while ((std::int64_t{1} << (lg + 1)) <= v) ++lg;
    return std::int64_t{1} << lg;
  };
  for (const auto& [field, v] : {std::pair<const char*, std::int64_t>{"spad_banks", n.spad_banks},
                                 {"spad_rows", n.spad_rows},
                                 {"spad_width_bits", n.spad_width_bits},
                                 {"bus_data_bits", n.bus_data_bits}})
    if (v <= 0 || (v & (v - 1)) != 0)
      return fmt::format(
          "npu.{} is {}: the generated banks, scratchpad words and bus adapters index with bit fields, so it "
          "must be a power of two (the nearest are {} and {})",
          field, v, pow2_below(v), 2 * pow2_below(v));
  // The generated engines are weight stationary (dg_engine_ws) and output stationary (dg_engine);
  // the solver chooses among those the model lists. Any other dataflow is refused, never planned
  // as one of them.
  for (const std::string& df : n.dataflows)
    if (df != "weight_stationary" && df != "output_stationary")
      return fmt::format(
          "npu.dataflows lists \"{}\": the generated compute engines are weight_stationary and "
          "output_stationary; list only those in npu.dataflows",
          df);
  // The weight-stationary engine reads a weight block's pe_rows k of an A row from one scratchpad
  // word, at a lane that must not straddle two words: pe_rows × the element's bits divides the
  // (power-of-two) word, so pe_rows is a power of two there.
  if ((n.pe_rows & (n.pe_rows - 1)) != 0 &&
      std::find(n.dataflows.begin(), n.dataflows.end(), "output_stationary") == n.dataflows.end())
    return fmt::format(
        "npu.pe_rows is {} and npu.dataflows lists only weight_stationary, whose engine reads a weight block's "
        "pe_rows k of an A row from one power-of-two scratchpad word: make npu.pe_rows a power of two (the "
        "nearest are {} and {}) or add output_stationary to npu.dataflows",
        n.pe_rows, pow2_below(n.pe_rows), 2 * pow2_below(n.pe_rows));
  // The XOR mapping swizzles the banks of one word row: the array's rows, read in one cycle, must
  // lie in one (the modulo mapping lets them wrap to the next).
  if (n.spad_bank_map == "xor" && n.pe_rows <= n.spad_banks && n.spad_banks % n.pe_rows != 0)
    return fmt::format(
        "npu.spad_bank_map is xor, which swizzles the banks within one word row, and npu.pe_rows ({}) does not "
        "divide npu.spad_banks ({}): the array's rows would span two word rows; set npu.spad_bank_map to modulo or "
        "npu.pe_rows to a divisor of {}",
        n.pe_rows, n.spad_banks, n.spad_banks);
  if (n.pe_rows > n.spad_banks)
    return fmt::format(
        "npu.pe_rows ({}) is more than npu.spad_banks ({}): the array reads one tile row per bank each "
        "cycle; give the scratchpad at least {} banks",
        n.pe_rows, n.spad_banks, n.pe_rows);
  if (n.bus_addr_bits < 32 || n.bus_addr_bits > 64)
    return fmt::format(
        "npu.bus_addr_bits is {}: the generated masters take the operands' bases from two 32-bit "
        "registers each and address at least 32 bits; set npu.bus_addr_bits to 32 to 64",
        n.bus_addr_bits);
  // A board wires the core to its own memory and bridge, which decode 32-bit addresses.
  if (!n.board.empty() && n.bus_addr_bits != 32)
    return fmt::format(
        "npu.bus_addr_bits is {} and npu.board is \"{}\", whose memory and bridge (boards/{}/) decode "
        "32-bit bus addresses; set npu.bus_addr_bits to 32 or leave out npu.board",
        n.bus_addr_bits, n.board, n.board);
  return "";
}

int npu_element_bits(int value_bits) {
  return value_bits == 4 ? 4 : value_bits <= 8 ? 8 : value_bits <= 16 ? 16 : value_bits;
}

}  // namespace dg::hw
