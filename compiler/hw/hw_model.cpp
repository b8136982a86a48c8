#include "hw/hw_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <system_error>

#include "hw/schema_check.h"
#include "support/error.h"
#include "support/files.h"
#include "support/strings.h"

namespace dg::hw {
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

// Typed reads of fields the schema already checked. They check again, so that a lax schema
// yields an error rather than a wrong value.
class Reader {
 public:
  Reader(const Reporter& r, const json& obj, std::string path) : r_(r), obj_(obj), path_(std::move(path)) {}

  std::string at(const std::string& key) const { return join_path(path_, key); }
  bool has(const std::string& key) const { return obj_.contains(key); }
  const json& raw(const std::string& key) const {
    auto it = obj_.find(key);
    if (it == obj_.end()) r_.fail(path_, fmt::format("missing required field '{}'", key));
    return *it;
  }

  std::int64_t int64(const std::string& key, std::int64_t lo, std::int64_t hi) const {
    return checked_int(raw(key), at(key), lo, hi);
  }
  int integer(const std::string& key, int lo = 0, int hi = INT_MAX) const {
    return static_cast<int>(int64(key, lo, hi));
  }
  double number(const std::string& key) const {
    const json& v = raw(key);
    if (!v.is_number()) r_.fail(at(key), "expected number");
    double d = v.get<double>();
    if (!std::isfinite(d) || d < 0) r_.fail(at(key), "expected a finite number >= 0");
    return d;
  }
  bool boolean(const std::string& key) const {
    const json& v = raw(key);
    if (!v.is_boolean()) r_.fail(at(key), "expected boolean");
    return v.get<bool>();
  }
  std::string string(const std::string& key) const {
    const json& v = raw(key);
    if (!v.is_string()) r_.fail(at(key), "expected string");
    return v.get<std::string>();
  }
  std::vector<std::string> strings(const std::string& key) const {
    const json& v = raw(key);
    if (!v.is_array()) r_.fail(at(key), "expected array of strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) r_.fail(index_path(at(key), i), "expected string");
      out.push_back(v[i].get<std::string>());
    }
    return out;
  }
  std::vector<int> ints(const std::string& key, int lo, int hi) const {
    const json& v = raw(key);
    if (!v.is_array()) r_.fail(at(key), "expected array of integers");
    std::vector<int> out;
    for (std::size_t i = 0; i < v.size(); ++i)
      out.push_back(static_cast<int>(checked_int(v[i], index_path(at(key), i), lo, hi)));
    return out;
  }
  Reader object(const std::string& key) const {
    const json& v = raw(key);
    if (!v.is_object()) r_.fail(at(key), "expected object");
    return Reader(r_, v, at(key));
  }
  std::vector<Reader> objects(const std::string& key) const {
    const json& v = raw(key);
    if (!v.is_array()) r_.fail(at(key), "expected array of objects");
    std::vector<Reader> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_object()) r_.fail(index_path(at(key), i), "expected object");
      out.emplace_back(r_, v[i], index_path(at(key), i));
    }
    return out;
  }
  const json& json_obj() const { return obj_; }

 private:
  std::int64_t checked_int(const json& v, const std::string& path, std::int64_t lo, std::int64_t hi) const {
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
      r_.fail(path, fmt::format("expected integer in [{}, {}], got {}", lo, hi,
                                v.is_number() ? v.dump() : std::string("a ") + v.type_name()));
    return x;
  }

  const Reporter& r_;
  const json& obj_;
  std::string path_;
};

bool is_pow2(std::int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

void read_ptx_version(const Reader& g, const Reporter& r, GpuModel& gpu) {
  std::string v = g.string("ptx_version");
  auto dot = v.find('.');
  auto parse = [&](std::string_view s, int& out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size() && !s.empty();
  };
  if (dot == std::string::npos || !parse(std::string_view(v).substr(0, dot), gpu.ptx_version_major) ||
      !parse(std::string_view(v).substr(dot + 1), gpu.ptx_version_minor))
    r.fail(g.at("ptx_version"), fmt::format("expected \"major.minor\", got \"{}\"", v));
}

GpuModel read_gpu(const Reader& g, const Reporter& r) {
  GpuModel gpu;
  gpu.arch = g.string("arch");
  read_ptx_version(g, r, gpu);
  gpu.sm_count = g.integer("sm_count", 1);
  gpu.boost_clock_mhz = g.number("boost_clock_mhz");
  gpu.warp_size = g.integer("warp_size", 1);
  gpu.max_threads_per_block = g.integer("max_threads_per_block", 1);
  gpu.max_threads_per_sm = g.integer("max_threads_per_sm", 1);
  gpu.max_blocks_per_sm = g.integer("max_blocks_per_sm", 1);
  gpu.max_warps_per_sm = g.integer("max_warps_per_sm", 1);
  gpu.regs_per_sm = g.integer("regs_per_sm", 1);
  gpu.max_regs_per_thread = g.integer("max_regs_per_thread", 1);
  gpu.smem_per_sm_bytes = g.integer("smem_per_sm_bytes");
  gpu.smem_per_block_bytes = g.integer("smem_per_block_bytes");
  gpu.smem_per_block_default_bytes = g.integer("smem_per_block_default_bytes");
  gpu.carveout_kb = g.ints("carveout_kb", 0, INT_MAX / 1024);
  gpu.smem_banks = g.integer("smem_banks", 1);
  gpu.smem_bank_width_bytes = g.integer("smem_bank_width_bytes", 1);
  gpu.l1_bytes = g.integer("l1_bytes");
  gpu.l2_bytes = g.integer("l2_bytes");
  gpu.l2_line_bytes = g.integer("l2_line_bytes", 1);
  gpu.dram_bandwidth_gbps = g.number("dram_bandwidth_gbps");
  gpu.l2_bandwidth_gbps = g.number("l2_bandwidth_gbps");
  gpu.dram_latency_ns = g.number("dram_latency_ns");
  gpu.dram_bytes_gib = g.integer("dram_bytes_gib", 1);
  for (const Reader& e : g.objects("mma")) {
    MmaShape s;
    s.instr = e.string("instr");
    s.m = e.integer("m", 1);
    s.n = e.integer("n", 1);
    s.k = e.integer("k", 1);
    s.n_step = e.has("n_step") ? e.integer("n_step", 1) : 0;
    s.a_type = e.string("a_type");
    s.b_type = e.string("b_type");
    s.acc_type = e.string("acc_type");
    s.b_k_major_only = e.has("b_k_major_only") && e.boolean("b_k_major_only");
    gpu.mma.push_back(s);
  }
  gpu.simt_types = g.strings("simt_types");
  for (const Reader& e : g.objects("conversions"))
    gpu.conversions.push_back({e.string("from"), e.strings("compute_types")});
  Reader peak = g.object("peak_tflops");
  for (const auto& [k, unused] : peak.json_obj().items()) {
    (void)unused;
    if (!is_note_key(k)) gpu.peak_tflops[k] = peak.number(k);
  }
  if (g.has("mma_sync_peak_tflops")) {
    Reader ms = g.object("mma_sync_peak_tflops");
    for (const auto& [k, unused] : ms.json_obj().items()) {
      (void)unused;
      if (!is_note_key(k)) gpu.mma_sync_peak_tflops[k] = ms.number(k);
    }
  }
  gpu.has_cluster = g.boolean("has_cluster");
  gpu.max_cluster_size = g.integer("max_cluster_size", 1);
  gpu.has_cp_async = g.boolean("has_cp_async");
  gpu.has_tma = g.boolean("has_tma");
  return gpu;
}

// Facts that relate fields to each other; the schema checks each field alone.
void check_gpu(const GpuModel& g, const Reader& rd, const Reporter& r) {
  auto kib = [](int bytes) { return fmt::format("{} ({} KiB)", bytes, bytes / 1024.0); };
  if (g.smem_per_block_default_bytes > g.smem_per_block_bytes)
    r.fail(rd.at("smem_per_block_default_bytes"),
           fmt::format("{} is more than smem_per_block_bytes {}", kib(g.smem_per_block_default_bytes),
                       kib(g.smem_per_block_bytes)));
  if (g.smem_per_block_bytes > g.smem_per_sm_bytes)
    r.fail(rd.at("smem_per_block_bytes"),
           fmt::format("{} is more than smem_per_sm_bytes {}", kib(g.smem_per_block_bytes), kib(g.smem_per_sm_bytes)));
  if (g.smem_per_sm_bytes > g.l1_bytes)
    r.fail(rd.at("smem_per_sm_bytes"),
           fmt::format("{} is more than l1_bytes {}", kib(g.smem_per_sm_bytes), kib(g.l1_bytes)));
  for (std::size_t i = 1; i < g.carveout_kb.size(); ++i)
    if (g.carveout_kb[i] <= g.carveout_kb[i - 1])
      r.fail(index_path(rd.at("carveout_kb"), i),
             fmt::format("carve-out choices must be ascending ({} after {})", g.carveout_kb[i], g.carveout_kb[i - 1]));
  if (!g.carveout_kb.empty() && static_cast<std::int64_t>(g.carveout_kb.back()) * 1024 != g.smem_per_sm_bytes)
    r.fail(rd.at("carveout_kb"), fmt::format("the largest carve-out, {} KiB, must equal smem_per_sm_bytes {}",
                                             g.carveout_kb.back(), kib(g.smem_per_sm_bytes)));
  if (g.max_threads_per_block > g.max_threads_per_sm)
    r.fail(rd.at("max_threads_per_block"),
           fmt::format("{} is more than max_threads_per_sm {}", g.max_threads_per_block, g.max_threads_per_sm));
  if (static_cast<std::int64_t>(g.max_warps_per_sm) * g.warp_size != g.max_threads_per_sm)
    r.fail(rd.at("max_warps_per_sm"), fmt::format("{} warps of {} threads is not max_threads_per_sm {}",
                                                  g.max_warps_per_sm, g.warp_size, g.max_threads_per_sm));
  if (!g.has_cluster && g.max_cluster_size != 1)
    r.fail(rd.at("max_cluster_size"), fmt::format("must be 1 when has_cluster is false, got {}", g.max_cluster_size));

  std::set<std::string> inputs;
  for (std::size_t i = 0; i < g.mma.size(); ++i) {
    const MmaShape& s = g.mma[i];
    std::string at = index_path(rd.at("mma"), i);
    for (const auto& [field, type] : {std::pair{"a_type", s.a_type}, std::pair{"b_type", s.b_type}})
      if (type == "fp32" || type == "int32")
        r.fail(join_path(at, field), fmt::format("\"{}\" is not a tensor-core input type", type));
    if (s.n_step > 0 && s.n % s.n_step != 0)
      r.fail(join_path(at, "n_step"), fmt::format("n = {} is not a multiple of n_step = {}", s.n, s.n_step));
    inputs.insert(s.a_type);
    inputs.insert(s.b_type);
  }
  for (std::size_t i = 0; i < g.conversions.size(); ++i) {
    const auto& c = g.conversions[i];
    for (std::size_t j = 0; j < c.compute_types.size(); ++j)
      if (!inputs.count(c.compute_types[j]))
        r.fail(index_path(join_path(index_path(rd.at("conversions"), i), "compute_types"), j),
               fmt::format("\"{}\" is not an input type of any {} entry", c.compute_types[j], rd.at("mma")));
  }
}

NpuModel read_npu(const Reader& n, const Reporter& r) {
  NpuModel npu;
  npu.pe_rows = n.integer("pe_rows", 1);
  npu.pe_cols = n.integer("pe_cols", 1);
  npu.dataflows = n.strings("dataflows");
  npu.input_types = n.strings("input_types");
  npu.max_custom_width = n.integer("max_custom_width", 1);
  npu.acc_width = n.integer("acc_width", 1);
  npu.spad_banks = n.integer("spad_banks", 1);
  npu.spad_rows = n.integer("spad_rows", 1);
  npu.spad_width_bits = n.integer("spad_width_bits", 1);
  npu.acc_rows = n.integer("acc_rows", 1);
  npu.acc_width_bits = n.integer("acc_width_bits", 1);
  npu.bus_data_bits = n.integer("bus_data_bits", 8);
  npu.bus_max_burst_beats = n.integer("bus_max_burst_beats", 1);
  npu.bus_boundary_bytes = n.integer("bus_boundary_bytes", 1);
  if (n.has("bus_addr_bits")) npu.bus_addr_bits = n.integer("bus_addr_bits", 32, 64);
  npu.dram_latency_cycles = n.integer("dram_latency_cycles");
  if (n.has("drain_shadow")) npu.drain_shadow = n.boolean("drain_shadow");
  std::string base = n.string("mmio_base");
  bool hex = base.size() > 2 && base.size() <= 18 && base[0] == '0' && (base[1] == 'x' || base[1] == 'X');
  if (hex) {
    auto [p, ec] = std::from_chars(base.data() + 2, base.data() + base.size(), npu.mmio_base, 16);
    hex = ec == std::errc() && p == base.data() + base.size();
  }
  if (!hex) r.fail(n.at("mmio_base"), fmt::format("expected a hexadecimal address \"0x...\", got \"{}\"", base));
  npu.clock_mhz = n.number("clock_mhz");
  if (npu.clock_mhz <= 0) r.fail(n.at("clock_mhz"), "expected a number > 0");
  if (n.has("board")) {
    npu.board = n.string("board");
    if (npu.board.empty()) r.fail(n.at("board"), "expected a board name");
  }
  return npu;
}

void check_npu(const NpuModel& n, const Reader& rd, const Reporter& r) {
  if (n.acc_width_bits % n.acc_width != 0)
    r.fail(rd.at("acc_width_bits"),
           fmt::format("{} bits is not a whole number of {}-bit accumulators", n.acc_width_bits, n.acc_width));
  if (n.spad_width_bits % 8 != 0)
    r.fail(rd.at("spad_width_bits"), fmt::format("{} is not a whole number of bytes", n.spad_width_bits));
  if (n.bus_data_bits % 8 != 0 || !is_pow2(n.bus_data_bits))
    r.fail(rd.at("bus_data_bits"), fmt::format("expected a power of two of at least 8, got {}", n.bus_data_bits));
  if (!is_pow2(n.bus_boundary_bytes))
    r.fail(rd.at("bus_boundary_bytes"), fmt::format("expected a power of two, got {}", n.bus_boundary_bytes));
  std::int64_t burst = static_cast<std::int64_t>(n.bus_max_burst_beats) * (n.bus_data_bits / 8);
  if (burst > n.bus_boundary_bytes)
    r.fail(rd.at("bus_max_burst_beats"),
           fmt::format("a burst of {} beats x {} bytes = {} bytes cannot fit within the {}-byte "
                       "boundary",
                       n.bus_max_burst_beats, n.bus_data_bits / 8, burst, n.bus_boundary_bytes));
  if (n.mmio_base % 4 != 0) r.fail(rd.at("mmio_base"), fmt::format("0x{:X} is not 4-byte aligned", n.mmio_base));
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
    Reader top(r, j, "");
    HwModel m;
    m.file = file;
    m.name = top.string("name");
    m.description = top.string("description");
    std::string stem = fs::path(file).stem().string();
    if (!stem.empty() && m.name != stem)
      r.fail("name", fmt::format("\"{}\" does not match the file name (expected \"{}\")", m.name, stem));
    std::string kind = top.string("kind");
    if (kind != "gpu" && kind != "npu") r.fail("kind", fmt::format("expected \"gpu\" or \"npu\", got \"{}\"", kind));
    std::string other = kind == "gpu" ? "npu" : "gpu";
    if (!top.has(kind)) r.fail("", fmt::format("kind is \"{}\" but there is no \"{}\" section", kind, kind));
    if (top.has(other))
      r.fail(other, fmt::format("a \"{}\" section does not belong to a model of kind \"{}\"", other, kind));
    SourceCollector(r, m.sources).visit(j, "", false);
    m.kind = kind == "gpu" ? TargetKind::Gpu : TargetKind::Npu;
    Reader section = top.object(kind);
    if (m.is_gpu()) {
      m.gpu = read_gpu(section, r);
      check_gpu(m.gpu, section, r);
    } else {
      m.npu = read_npu(section, r);
      check_npu(m.npu, section, r);
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
  json j = json::object();
  j["name"] = m.name;
  j["description"] = m.description;
  j["kind"] = m.is_gpu() ? "gpu" : "npu";
  if (m.is_gpu()) {
    const GpuModel& g = m.gpu;
    json s = json::object();
    s["arch"] = g.arch;
    s["ptx_version"] = fmt::format("{}.{}", g.ptx_version_major, g.ptx_version_minor);
    s["sm_count"] = g.sm_count;
    s["boost_clock_mhz"] = g.boost_clock_mhz;
    s["warp_size"] = g.warp_size;
    s["max_threads_per_block"] = g.max_threads_per_block;
    s["max_threads_per_sm"] = g.max_threads_per_sm;
    s["max_blocks_per_sm"] = g.max_blocks_per_sm;
    s["max_warps_per_sm"] = g.max_warps_per_sm;
    s["regs_per_sm"] = g.regs_per_sm;
    s["max_regs_per_thread"] = g.max_regs_per_thread;
    s["smem_per_sm_bytes"] = g.smem_per_sm_bytes;
    s["smem_per_block_bytes"] = g.smem_per_block_bytes;
    s["smem_per_block_default_bytes"] = g.smem_per_block_default_bytes;
    s["carveout_kb"] = g.carveout_kb;
    s["smem_banks"] = g.smem_banks;
    s["smem_bank_width_bytes"] = g.smem_bank_width_bytes;
    s["l1_bytes"] = g.l1_bytes;
    s["l2_bytes"] = g.l2_bytes;
    s["l2_line_bytes"] = g.l2_line_bytes;
    s["dram_bandwidth_gbps"] = g.dram_bandwidth_gbps;
    s["l2_bandwidth_gbps"] = g.l2_bandwidth_gbps;
    s["dram_latency_ns"] = g.dram_latency_ns;
    s["dram_bytes_gib"] = g.dram_bytes_gib;
    json mma = json::array();
    for (const MmaShape& x : g.mma) {
      json e = {{"instr", x.instr},      {"m", x.m}, {"n", x.n}, {"k", x.k}, {"a_type", x.a_type}, {"b_type", x.b_type},
                {"acc_type", x.acc_type}};
      if (x.n_step > 0) e["n_step"] = x.n_step;
      if (x.b_k_major_only) e["b_k_major_only"] = true;
      mma.push_back(e);
    }
    s["mma"] = mma;
    s["simt_types"] = g.simt_types;
    json conv = json::array();
    for (const auto& c : g.conversions) conv.push_back({{"from", c.from}, {"compute_types", c.compute_types}});
    s["conversions"] = conv;
    s["peak_tflops"] = json::object();
    for (const auto& [k, v] : g.peak_tflops) s["peak_tflops"][k] = v;
    if (!g.mma_sync_peak_tflops.empty()) {
      s["mma_sync_peak_tflops"] = json::object();
      for (const auto& [k, v] : g.mma_sync_peak_tflops) s["mma_sync_peak_tflops"][k] = v;
    }
    s["has_cluster"] = g.has_cluster;
    s["max_cluster_size"] = g.max_cluster_size;
    s["has_cp_async"] = g.has_cp_async;
    s["has_tma"] = g.has_tma;
    j["gpu"] = s;
  } else {
    const NpuModel& n = m.npu;
    j["npu"] = {
        {"pe_rows", n.pe_rows},
        {"pe_cols", n.pe_cols},
        {"dataflows", n.dataflows},
        {"input_types", n.input_types},
        {"max_custom_width", n.max_custom_width},
        {"acc_width", n.acc_width},
        {"spad_banks", n.spad_banks},
        {"spad_rows", n.spad_rows},
        {"spad_width_bits", n.spad_width_bits},
        {"acc_rows", n.acc_rows},
        {"acc_width_bits", n.acc_width_bits},
        {"bus_data_bits", n.bus_data_bits},
        {"bus_max_burst_beats", n.bus_max_burst_beats},
        {"bus_boundary_bytes", n.bus_boundary_bytes},
        {"dram_latency_cycles", n.dram_latency_cycles},
        {"mmio_base", fmt::format("0x{:08X}", n.mmio_base)},
        {"clock_mhz", n.clock_mhz},
    };
    if (!n.drain_shadow) j["npu"]["drain_shadow"] = false;
    if (n.bus_addr_bits != 32) j["npu"]["bus_addr_bits"] = n.bus_addr_bits;
    if (!n.board.empty()) j["npu"]["board"] = n.board;
  }
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
  os << "hw model " << m.name << " (" << (m.is_gpu() ? "gpu" : "npu") << "): " << m.description << "\n";
  if (!m.file.empty()) os << "  file: " << m.file << "\n";
  if (m.is_gpu()) {
    const GpuModel& g = m.gpu;
    os << fmt::format("  arch: {} (PTX ISA {}.{})\n", g.arch, g.ptx_version_major, g.ptx_version_minor)
       << fmt::format("  sm_count: {} at {} MHz\n", g.sm_count, g.boost_clock_mhz)
       << fmt::format("  threads: {} per block, {} per SM, warp {}\n", g.max_threads_per_block, g.max_threads_per_sm,
                      g.warp_size)
       << fmt::format("  resident per SM: {} blocks, {} warps\n", g.max_blocks_per_sm, g.max_warps_per_sm)
       << fmt::format("  registers: {} per SM, {} per thread\n", g.regs_per_sm, g.max_regs_per_thread)
       << fmt::format("  shared memory: {} B per SM, {} B per block (opt-in), {} B default\n", g.smem_per_sm_bytes,
                      g.smem_per_block_bytes, g.smem_per_block_default_bytes)
       << fmt::format("  carve-outs (KiB): {}\n", fmt::join(g.carveout_kb, ", "))
       << fmt::format("  banks: {} x {} B\n", g.smem_banks, g.smem_bank_width_bytes)
       << fmt::format("  L1+shared: {} B per SM; L2: {} B, {} B lines\n", g.l1_bytes, g.l2_bytes, g.l2_line_bytes)
       << fmt::format("  DRAM: {} GiB, {} GB/s, {} ns latency; L2: {} GB/s\n", g.dram_bytes_gib, g.dram_bandwidth_gbps,
                      g.dram_latency_ns, g.l2_bandwidth_gbps);
    for (const MmaShape& s : g.mma)
      os << fmt::format("  mma: {} m{}n{}{}k{} {} x {} -> {}{}\n", s.instr, s.m, s.n,
                        s.n_step > 0 ? fmt::format("(step {})", s.n_step) : "", s.k, s.a_type, s.b_type, s.acc_type,
                        s.b_k_major_only ? " (B K-major only)" : "");
    os << fmt::format("  simt: {}\n", fmt::join(g.simt_types, ", "));
    for (const auto& c : g.conversions)
      os << fmt::format("  convert in registers: {} -> {}\n", c.from, fmt::join(c.compute_types, ", "));
    for (const auto& [k, v] : g.peak_tflops) os << fmt::format("  peak {}: {} T/s\n", k, v);
    os << fmt::format("  clusters: {} (max {}); cp.async: {}; TMA: {}\n", g.has_cluster ? "yes" : "no",
                      g.max_cluster_size, g.has_cp_async ? "yes" : "no", g.has_tma ? "yes" : "no");
  } else {
    const NpuModel& n = m.npu;
    std::int64_t spad = static_cast<std::int64_t>(n.spad_banks) * n.spad_rows * n.spad_width_bits / 8;
    std::int64_t acc = static_cast<std::int64_t>(n.acc_rows) * n.acc_width_bits / 8;
    os << fmt::format("  PE array: {} x {}; dataflows: {}\n", n.pe_rows, n.pe_cols, fmt::join(n.dataflows, ", "))
       << fmt::format("  inputs: {}; custom widths up to {} bits; accumulators {} bits\n",
                      fmt::join(n.input_types, ", "), n.max_custom_width, n.acc_width)
       << fmt::format("  scratchpad: {} banks x {} rows x {} bits = {} B\n", n.spad_banks, n.spad_rows,
                      n.spad_width_bits, spad)
       << fmt::format("  accumulator memory: {} rows x {} bits = {} B\n", n.acc_rows, n.acc_width_bits, acc)
       << fmt::format(
              "  bus: {} bits, {}-bit addresses, bursts up to {} beats, {}-byte boundary; DRAM latency {} "
              "cycles\n",
              n.bus_data_bits, n.bus_addr_bits, n.bus_max_burst_beats, n.bus_boundary_bytes, n.dram_latency_cycles)
       << fmt::format("  MMIO base: 0x{:08X}; clock: {} MHz\n", n.mmio_base, n.clock_mhz);
    if (!n.board.empty()) os << fmt::format("  board: {} (boards/{}/)\n", n.board, n.board);
  }
  return os;
}

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
  if (n.spad_width_bits != n.bus_data_bits)
    return fmt::format(
        "npu.spad_width_bits is {} and npu.bus_data_bits {}: the generated scratchpad word is one bus "
        "beat; make them equal",
        n.spad_width_bits, n.bus_data_bits);
  for (const auto& [field, v] : {std::pair<const char*, std::int64_t>{"pe_rows", n.pe_rows},
                                 {"pe_cols", n.pe_cols},
                                 {"spad_banks", n.spad_banks},
                                 {"spad_rows", n.spad_rows},
                                 {"bus_data_bits", n.bus_data_bits}})
    if (v <= 0 || (v & (v - 1)) != 0) {
      int lg = 0;
      while ((std::int64_t{1} << (lg + 1)) <= v) ++lg;
      return fmt::format(
          "npu.{} is {}: the generated AGUs, banks and bus adapters index with shifts, so it must be a "
          "power of two (the nearest are {} and {})",
          field, v, std::int64_t{1} << lg, std::int64_t{1} << (lg + 1));
    }
  // The generated engines are weight stationary (dg_engine_ws) and output stationary (dg_engine);
  // the solver chooses among those the model lists. Any other dataflow is refused, never planned
  // as one of them.
  for (const std::string& df : n.dataflows)
    if (df != "weight_stationary" && df != "output_stationary")
      return fmt::format(
          "npu.dataflows lists \"{}\": the generated compute engines are weight_stationary and "
          "output_stationary; list only those in npu.dataflows",
          df);
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
