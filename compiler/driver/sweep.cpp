#include "driver/sweep.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "support/error.h"
#include "support/files.h"
#include "support/strings.h"

namespace dg::driver {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kFormat = "deepgemm-sweep-1";

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Write `text` to `p` through a temporary name, so that a reader (a resumed sweep) sees the whole
/// file or none.
void write_atomic(const fs::path& p, const std::string& text) {
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
    o << text;
  }
  fs::rename(tmp, p);
}

int run_cmd(const std::string& cmd) {
  const int st = std::system(cmd.c_str());
  return st == -1 ? 127 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/// The first line of `text` that says "error", else its last non-empty line.
std::string error_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find("error:") != std::string::npos) return line;
    if (!line.empty()) last = line;
  }
  return last;
}

// The model fields a sweep may vary, and which of them the table records for every row.
const std::vector<std::string> kModelFields = {"pe_rows",
                                               "pe_cols",
                                               "spad_banks",
                                               "spad_rows",
                                               "spad_width_bits",
                                               "acc_rows",
                                               "acc_width_bits",
                                               "acc_width",
                                               "bus_data_bits",
                                               "bus_max_burst_beats",
                                               "bus_boundary_bytes",
                                               "dram_latency_cycles",
                                               "drain_shadow",
                                               "bus_addr_bits",
                                               "spad_bank_map"};

struct Variant {
  std::string id;   // "pe_rows=8,dram_latency_cycles=300" ("base" when nothing varies)
  std::string dir;  // folder name
  json model;       // the whole hardware model
};

struct Point {
  const Variant* variant = nullptr;
  fs::path spec;
  std::string spec_name;  // file stem
  fs::path dir;
};

struct Settings {
  int alternatives = 0;
  std::int64_t k = 0;
  double stall = 0;
  std::uint64_t seed = 1;
  std::int64_t latency = -1;      // -1: the model's
  std::vector<std::string> fpga;  // synthesize, mapping to these families (empty: no synthesis)
};

/// One plan of one point, compiled and co-simulated: its row of the table.
json run_plan(const Point& pt, const Settings& set, const std::string& exe, const fs::path& models, int rank) {
  json row;
  row["variant"] = pt.variant->id;
  row["spec"] = pt.spec_name;
  row["rank"] = rank;
  const fs::path plan = pt.dir / fmt::format("plan_{}.json", rank);
  std::string cmd =
      fmt::format("{} --hw-models {} compile {} --emit=plan -o {}", shell_quote(exe), shell_quote(models.string()),
                  shell_quote(pt.spec.string()), shell_quote(plan.string()));
  for (int j = 0; j < rank; ++j)
    cmd += " --exclude-plan " + shell_quote((pt.dir / fmt::format("plan_{}.json", j)).string());
  const fs::path plan_log = pt.dir / fmt::format("plan_{}.log", rank);
  int rc = run_cmd(cmd + " 2> " + shell_quote(plan_log.string()));
  if (rc != 0) {
    row["status"] = rank == 0 ? (rc == 1 ? "refused" : "error") : "none";
    row["message"] = error_line(slurp(plan_log));
    return row;
  }
  const json pl = json::parse(slurp(plan), nullptr, false);
  if (pl.is_discarded() || !pl.contains("npu_layout")) {
    row["status"] = "error";
    row["message"] = "the plan is not an NPU plan";
    return row;
  }
  for (const char* f : {"M", "N", "a_type", "b_type", "c_type", "tile_m", "tile_n", "tile_k", "dataflow"})
    row[f] = pl.at(f);
  const std::int64_t kmax =
      pl.at("k_dynamic").get<bool>() ? pl.at("K_max").get<std::int64_t>() : pl.at("K").get<std::int64_t>();
  row["K"] = set.k > 0 ? set.k : kmax;
  // A batch runs the design once per matrix: the simulated figure sums the runs, and so does the
  // prediction (the plan's estimate is one run's).
  const std::int64_t batch = pl.value("batch", std::int64_t{1});
  row["batch"] = batch;
  row["predicted_cycles"] = pl.at("npu_layout").at("cycles").get<std::int64_t>() * batch;

  const fs::path ko = pt.dir / fmt::format("module_{}.ko", rank);
  const fs::path clog = pt.dir / fmt::format("compile_{}.log", rank);
  cmd = fmt::format("{} --hw-models {} compile {} --from-plan {} --verbose -o {}", shell_quote(exe),
                    shell_quote(models.string()), shell_quote(pt.spec.string()), shell_quote(plan.string()),
                    shell_quote(ko.string()));
  if (!set.fpga.empty()) cmd += fmt::format(" --synth --fpga {}", fmt::join(set.fpga, ","));
  rc = run_cmd(cmd + " 2> " + shell_quote(clog.string()) + " > /dev/null");
  const std::string log = slurp(clog);
  if (rc != 0) {
    row["status"] = rc == 1 ? "refused" : "error";
    row["message"] = error_line(log);
    return row;
  }
  std::smatch m;
  static const std::regex proved(R"(properties of \d+ modules proved \(([0-9.]+) ms\))");
  if (std::regex_search(log, m, proved)) row["proof_ms"] = std::stod(m[1]);
  if (!set.fpga.empty()) {
    // The verbose log's line per flow: "iCE40: 3575 LUTs, 1789 flip-flops, 24 block RAMs, 8 DSPs".
    static const std::regex fig(
        R"((iCE40|ECP5|Xilinx 7-series): (\d+) LUTs, (\d+) flip-flops, (\d+) block RAMs, (\d+) DSPs)");
    for (auto it = std::sregex_iterator(log.begin(), log.end(), fig); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1];
      const std::string flow = name == "iCE40" ? "ice40" : name == "ECP5" ? "ecp5" : "xilinx";
      row["fpga_" + flow] = {{"luts", std::stoll((*it)[2])},
                             {"ffs", std::stoll((*it)[3])},
                             {"brams", std::stoll((*it)[4])},
                             {"dsps", std::stoll((*it)[5])}};
    }
    // "ASIC: 51234 gates, 1789 flip-flops, 10 memory macros of 36864 bits".
    static const std::regex asic(R"(ASIC: (\d+) gates, (\d+) flip-flops, (\d+) memory macros of (\d+) bits)");
    if (std::regex_search(log, m, asic))
      row["fpga_asic"] = {{"gates", std::stoll(m[1])},
                          {"ffs", std::stoll(m[2])},
                          {"macros", std::stoll(m[3])},
                          {"macro_bits", std::stoll(m[4])}};
  }

  const fs::path sim_out = pt.dir / fmt::format("sim_{}.txt", rank);
  cmd = fmt::format("{} --hw-models {} sim {} --seed {}", shell_quote(exe), shell_quote(models.string()),
                    shell_quote(ko.string()), set.seed);
  if (set.k > 0) cmd += fmt::format(" --k {}", set.k);
  if (set.stall > 0) cmd += fmt::format(" --stall {}", set.stall);
  if (set.latency >= 0) cmd += fmt::format(" --latency {}", set.latency);
  rc = run_cmd(cmd + " > " + shell_quote(sim_out.string()) + " 2>&1");
  const std::string sim = slurp(sim_out);
  static const std::regex cycles(R"(cycles +(\d+) \((CYCLES register|the runs' CYCLES registers summed))");
  static const std::regex util(R"(: ([0-9.]+)% utilization)");
  if (std::regex_search(sim, m, cycles)) row["simulated_cycles"] = std::stoll(m[1]);
  if (std::regex_search(sim, m, util)) row["mac_utilization_pct"] = std::stod(m[1]);
  const bool pass = rc == 0 && sim.find("\nPASS:") != std::string::npos;
  row["status"] = pass ? "PASS" : "FAIL";
  if (!pass) row["message"] = error_line(sim);
  if (row.contains("simulated_cycles")) {
    const double p = row["predicted_cycles"].get<double>(), s = row["simulated_cycles"].get<double>();
    row["error_pct"] = std::round(1000.0 * (p - s) / s) / 10.0;
  }
  return row;
}

/// A point, run in a child process: each of its plans not done yet (a resumed sweep keeps the
/// finished ones), then its rows. Exit status 0.
void run_point(const Point& pt, const Settings& set, const std::string& exe, const fs::path& models) {
  for (int rank = 0; rank <= set.alternatives; ++rank) {
    const fs::path res = pt.dir / fmt::format("result_{}.json", rank);
    json row;
    if (fs::exists(res)) row = json::parse(slurp(res), nullptr, false);
    // A plan that ended in an error (a crash, a tool that could not run) is tried again.
    if (!fs::exists(res) || row.is_discarded() || row.value("status", "") == "error") {
      row = run_plan(pt, set, exe, models, rank);
      write_atomic(res, row.dump(1) + "\n");
    }
    if (row.is_discarded() || row.value("status", "") != "PASS") break;  // no next plan, or this one broke
  }
}

std::string csv_cell(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : c == '\n' ? std::string(" ") : std::string(1, c);
    return q + "\"";
  }
  if (v.is_number_float()) return fmt::format("{:g}", v.get<double>());
  return v.dump();
}

/// Predicted against simulated cycles, log-log, with the y = x line and a ±10% band.
std::string svg_plot(const std::vector<json>& rows) {
  std::vector<std::pair<double, double>> chosen, alt;
  double lo = 1e300, hi = 0;
  for (const json& r : rows) {
    if (!r.contains("simulated_cycles") || !r.contains("predicted_cycles")) continue;
    const double p = r["predicted_cycles"].get<double>(), s = r["simulated_cycles"].get<double>();
    if (p <= 0 || s <= 0) continue;
    (r["rank"].get<int>() == 0 ? chosen : alt).push_back({p, s});
    lo = std::min({lo, p, s});
    hi = std::max({hi, p, s});
  }
  const int W = 640, H = 520, L = 80, R = 20, T = 40, B = 60;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">Cycle estimate against co-simulation</text>\n",
      W, H, W / 2);
  if (chosen.empty() && alt.empty()) return svg + "<text x=\"80\" y=\"100\">no co-simulated point</text>\n</svg>\n";
  const double l0 = std::floor(std::log10(lo / 1.2)), l1 = std::ceil(std::log10(hi * 1.2));
  auto X = [&](double v) { return L + (std::log10(v) - l0) / (l1 - l0) * (W - L - R); };
  auto Y = [&](double v) { return H - B - (std::log10(v) - l0) / (l1 - l0) * (H - T - B); };
  svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", L, T,
                     W - L - R, H - T - B);
  for (double e = l0; e <= l1; e += 1) {
    const double v = std::pow(10.0, e);
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">1e{4}</text>\n",
        X(v), T, H - B, H - B + 16, static_cast<int>(e));
    svg += fmt::format(
        "<line x1=\"{1}\" y1=\"{0:.1f}\" x2=\"{2}\" y2=\"{0:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{3}\" y=\"{0:.1f}\" text-anchor=\"end\" dy=\"4\">1e{4}</text>\n",
        Y(v), L, W - R, L - 6, static_cast<int>(e));
  }
  const double a = std::pow(10.0, l0), b = std::pow(10.0, l1);
  svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"black\"/>\n", X(a), Y(a),
                     X(b), Y(b));
  for (double f : {1.1, 1 / 1.1})
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"gray\" stroke-dasharray=\"4 3\"/>\n",
        X(a), Y(a * f), X(b / 1.1), Y(b / 1.1 * f));
  for (const auto& [p, s] : alt)
    svg +=
        fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"none\" stroke=\"#d62728\"/>\n", X(p), Y(s));
  for (const auto& [p, s] : chosen)
    svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"#1f77b4\"/>\n", X(p), Y(s));
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">predicted cycles (the plan's estimate)</text>\n"
      "<text transform=\"translate(18,{}) rotate(-90)\" text-anchor=\"middle\">simulated cycles</text>\n"
      "<circle cx=\"{}\" cy=\"52\" r=\"3.5\" fill=\"#1f77b4\"/><text x=\"{}\" y=\"56\">the solver's plan</text>\n"
      "<circle cx=\"{}\" cy=\"70\" r=\"3.5\" fill=\"none\" stroke=\"#d62728\"/><text x=\"{}\" y=\"74\">next-best "
      "plans</text>\n<text x=\"{}\" y=\"92\" fill=\"gray\">dashed: ±10%</text>\n</svg>\n",
      (L + W - R) / 2, H - 20, (T + H - B) / 2, L + 16, L + 26, L + 16, L + 26, L + 10);
  return svg;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string safe_name(const std::string& s) {
  std::string o;
  for (char c : s) o += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  return o;
}

int run_sweep(const SweepOptions& o, std::ostream& out, std::ostream& err) {
  auto fail = [&](const std::string& why) {
    err << fmt::format("{}: error: {}\n", o.file, why);
    return kExitUserError;
  };
  std::string text, why;
  if (!read_file_bounded(o.file, kMaxSpecBytes, text, why)) return fail(fmt::format("cannot read it: {}", why));
  const json sw = json::parse(text, nullptr, false);
  if (sw.is_discarded() || !sw.is_object()) return fail("not a JSON object");
  if (sw.value("format", std::string()) != kFormat)
    return fail(fmt::format("missing or unknown 'format' (expected \"{}\")", kFormat));
  for (const auto& [key, v] : sw.items())
    if (key != "format" && key != "specs" && key != "model" && key != "vary" && key != "alternatives" && key != "k" &&
        key != "stall" && key != "seed" && key != "latency" && key != "synth" && key != "variants")
      return fail(
          fmt::format("unknown field '{}' (fields: specs, model, variants, vary, alternatives, k, stall, seed, "
                      "latency, synth)",
                      key));
  const fs::path base_dir = fs::absolute(o.file).parent_path();

  // The specs, relative to the sweep file.
  if (!sw.contains("specs") || !sw["specs"].is_array() || sw["specs"].empty())
    return fail("'specs' must be a non-empty array of .dgml paths (relative to the sweep file)");
  std::vector<fs::path> specs;
  for (const auto& s : sw["specs"]) {
    if (!s.is_string()) return fail("'specs' holds a value that is not a path");
    fs::path p = base_dir / s.get<std::string>();
    std::string spec_text;
    if (!read_file_bounded(p.string(), kMaxSpecBytes, spec_text, why))
      return fail(fmt::format("specs: cannot read '{}': {}", p.string(), why));
    specs.push_back(fs::canonical(p));
  }
  // The base model: a name in the hardware-model folder, or a .json path relative to the file.
  if (!sw.contains("model") || !sw["model"].is_string())
    return fail("'model' must name the base hardware model (\"npu16\") or give its .json path");
  const std::string mname = sw["model"].get<std::string>();
  const fs::path mpath =
      mname.size() > 5 && mname.ends_with(".json") ? base_dir / mname : fs::path(o.hw_dir) / (mname + ".json");
  std::string mtext;
  if (!read_file_bounded(mpath.string(), kMaxHwModelBytes, mtext, why))
    return fail(fmt::format("model: cannot read '{}': {}", mpath.string(), why));
  const json base = json::parse(mtext, nullptr, false);
  if (base.is_discarded() || !base.is_object() || !base.contains("npu") || !base["npu"].is_object())
    return fail(fmt::format("model: '{}' is not an NPU hardware model", mpath.string()));

  Settings set;
  auto get_int = [&](const char* key, std::int64_t lo, std::int64_t hi, std::int64_t& v) -> bool {
    if (!sw.contains(key)) return true;
    if (!sw[key].is_number_integer() || sw[key].get<std::int64_t>() < lo || sw[key].get<std::int64_t>() > hi)
      return false;
    v = sw[key].get<std::int64_t>();
    return true;
  };
  std::int64_t alts = 0, seed = 1;
  if (!get_int("alternatives", 0, 16, alts)) return fail("'alternatives' must be an integer from 0 to 16");
  set.alternatives = static_cast<int>(alts);
  if (!get_int("k", 1, std::int64_t{1} << 30, set.k)) return fail("'k' must be a positive integer");
  if (!get_int("seed", 0, std::int64_t{1} << 62, seed)) return fail("'seed' must be a non-negative integer");
  set.seed = static_cast<std::uint64_t>(seed);
  if (!get_int("latency", 0, 100000, set.latency)) return fail("'latency' must be an integer from 0 to 100000");
  if (sw.contains("stall")) {
    if (!sw["stall"].is_number() || sw["stall"].get<double>() < 0 || sw["stall"].get<double>() > 0.9)
      return fail("'stall' must be a number from 0 to 0.9");
    set.stall = sw["stall"].get<double>();
  }
  if (sw.contains("synth")) {
    const json& s = sw["synth"];
    if (s.is_boolean()) {
      if (s.get<bool>()) set.fpga = {"ice40"};
    } else if (s.is_array()) {
      for (const auto& f : s) {
        if (!f.is_string() || (f != "ice40" && f != "ecp5" && f != "xilinx" && f != "asic"))
          return fail("'synth' lists synthesis flows of ice40, ecp5, xilinx and asic");
        set.fpga.push_back(f.get<std::string>());
      }
    } else {
      return fail("'synth' is true, false or a list of synthesis flows (ice40, ecp5, xilinx, asic)");
    }
  }

  // The variants: the cross product of the varied fields, in the order the file gives them.
  auto field_ok = [&](const std::string& field, const json& v) -> std::string {
    if (std::find(kModelFields.begin(), kModelFields.end(), field) == kModelFields.end())
      return fmt::format("'{}' is not an npu field a sweep varies ({})", field, fmt::join(kModelFields, ", "));
    if (field == "spad_bank_map") {
      if (!v.is_string()) return "'spad_bank_map' takes string values (\"modulo\", \"xor\")";
      return "";
    }
    if (!(v.is_number_integer() || (field == "drain_shadow" && v.is_boolean())))
      return fmt::format("'{}' takes {} values", field, field == "drain_shadow" ? "true/false" : "integer");
    return "";
  };
  std::vector<std::pair<std::string, std::vector<json>>> vary;
  if (sw.contains("vary")) {
    if (!sw["vary"].is_object()) return fail("'vary' must map npu fields to lists of values");
    for (const auto& [field, vals] : sw["vary"].items()) {
      if (!vals.is_array() || vals.empty())
        return fail(fmt::format("vary: '{}' needs a non-empty list of values", field));
      for (const auto& v : vals)
        if (std::string bad = field_ok(field, v); !bad.empty()) return fail("vary: " + bad);
      vary.push_back({field, std::vector<json>(vals.begin(), vals.end())});
    }
  }
  // Named variants of the base model (several fields changed together), then the cross product.
  std::vector<Variant> variants;
  if (sw.contains("variants")) {
    if (!sw["variants"].is_array() || sw["variants"].empty())
      return fail("'variants' must be a non-empty list of {\"name\": ..., npu field: value, ...} objects");
    for (const auto& v : sw["variants"]) {
      if (!v.is_object() || !v.contains("name") || !v["name"].is_string())
        return fail("variants: each variant is an object with a \"name\" and the npu fields it sets");
      Variant n{v["name"].get<std::string>(), "", base};
      for (const auto& [field, val] : v.items()) {
        if (field == "name") continue;
        if (std::string bad = field_ok(field, val); !bad.empty()) return fail("variants: " + bad);
        n.model["npu"][field] = val;
        n.model["npu"][field + "_source"] = "deepgemm sweep: variant '" + n.id + "' of " + mname;
      }
      variants.push_back(std::move(n));
    }
  } else {
    variants.push_back(Variant{"base", "base", base});
  }
  for (const auto& [field, vals] : vary) {
    std::vector<Variant> next;
    for (const Variant& v : variants)
      for (const json& val : vals) {
        Variant n = v;
        n.model["npu"][field] = val;
        n.model["npu"][field + "_source"] = "deepgemm sweep: a variant of " + mname;
        const std::string item = fmt::format("{}={}", field, val.dump());
        n.id = v.id == "base" ? item : v.id + "," + item;
        next.push_back(std::move(n));
      }
    variants = std::move(next);
  }
  for (Variant& v : variants) v.dir = safe_name(v.id);
  if (variants.size() * specs.size() > 10000) return fail("more than 10000 points: narrow 'vary' or 'specs'");

  // The output folder: points/<variant>/<spec>/ with each plan's files, models/<variant>/.
  std::error_code ec;
  if (o.out_dir == kStdoutPath) return fail("-o -: a sweep writes a folder (points, sweep.csv, ...), not one stream");
  const fs::path outd = fs::absolute(o.out_dir);
  if (fs::exists(outd, ec) && !fs::is_directory(outd, ec))
    return fail(fmt::format("-o {}: not a directory", o.out_dir));
  fs::create_directories(outd / "points", ec);
  if (ec) return fail(fmt::format("-o {}: cannot create it: {}", o.out_dir, ec.message()));
  std::error_code ec2;
  const std::string exe = fs::canonical("/proc/self/exe", ec2).string();
  if (ec2) return fail("cannot find the deepgemm executable");
  std::vector<Point> points;
  const std::string settings =
      json{{"alternatives", set.alternatives}, {"k", set.k},      {"stall", set.stall}, {"seed", set.seed},
           {"latency", set.latency},           {"fpga", set.fpga}}
          .dump();
  for (const Variant& v : variants) {
    const fs::path mdir = outd / "models" / v.dir;
    fs::create_directories(mdir);
    const std::string model_text = v.model.dump(2) + "\n";
    const fs::path mfile = mdir / (v.model.value("name", mname) + ".json");
    // The schema the loader checks a model against sits beside it.
    const fs::path schema = fs::path(o.hw_dir) / "schema.json";
    if (fs::exists(schema) && (!fs::exists(mdir / "schema.json") || slurp(mdir / "schema.json") != slurp(schema)))
      write_atomic(mdir / "schema.json", slurp(schema));
    if (!fs::exists(mfile) || slurp(mfile) != model_text) write_atomic(mfile, model_text);
    for (const fs::path& s : specs) {
      Point pt{&v, s, s.stem().string(), outd / "points" / v.dir / safe_name(s.stem().string())};
      // A point's results stay valid while its model, spec, settings and compiler are the same.
      const std::string key = fmt::format("{:016x}\n", fnv1a(model_text + slurp(s) + settings + o.version));
      if (fs::exists(pt.dir / "key") && (o.fresh || slurp(pt.dir / "key") != key)) fs::remove_all(pt.dir);
      fs::create_directories(pt.dir);
      if (!fs::exists(pt.dir / "key")) write_atomic(pt.dir / "key", key);
      points.push_back(pt);
    }
  }

  // Run the points not finished yet, `jobs` at a time, each in a child process.
  const int jobs = o.jobs > 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  auto done = [&](const Point& pt) {
    for (int r = 0; r <= set.alternatives; ++r) {
      const fs::path res = pt.dir / fmt::format("result_{}.json", r);
      if (!fs::exists(res)) return false;
      const json row = json::parse(slurp(res), nullptr, false);
      if (row.is_discarded() || row.value("status", "") == "error") return false;
      if (row.value("status", "") != "PASS") return true;
    }
    return true;
  };
  std::vector<size_t> todo;
  for (size_t i = 0; i < points.size(); ++i)
    if (!done(points[i])) todo.push_back(i);
  err << fmt::format(
      "deepgemm sweep: {} points ({} model variants × {} specs), {} plans each; {} to run, {} at a time\n",
      points.size(), variants.size(), specs.size(), set.alternatives + 1, todo.size(), jobs);
  std::map<pid_t, size_t> running;
  size_t next = 0, finished = points.size() - todo.size();
  out.flush();
  err.flush();
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && static_cast<int>(running.size()) < jobs) {
      const Point& pt = points[todo[next]];
      const pid_t pid = ::fork();
      if (pid < 0) return fail("cannot start a point (fork failed)");
      if (pid == 0) {
        try {
          run_point(pt, set, exe, outd / "models" / pt.variant->dir);
        } catch (...) {
          ::_exit(70);
        }
        ::_exit(0);
      }
      running[pid] = todo[next++];
    }
    int st = 0;
    const pid_t pid = ::waitpid(-1, &st, 0);
    if (pid < 0) break;
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const Point& pt = points[it->second];
    running.erase(it);
    ++finished;
    const json r0 = json::parse(slurp(pt.dir / "result_0.json"), nullptr, false);
    std::string what = r0.is_discarded() ? "no result" : r0.value("status", "?");
    if (!r0.is_discarded() && r0.contains("simulated_cycles"))
      what = fmt::format("{}×{}×{}: {} cycles simulated, {} predicted ({:+.1f}%), {}", r0["tile_m"].get<int>(),
                         r0["tile_n"].get<int>(), r0["tile_k"].get<int>(), r0["simulated_cycles"].get<std::int64_t>(),
                         r0["predicted_cycles"].get<std::int64_t>(), r0.value("error_pct", 0.0),
                         r0["status"].get<std::string>());
    else if (!r0.is_discarded() && r0.contains("message"))
      what += ": " + r0["message"].get<std::string>();
    err << fmt::format("[{}/{}] {} / {}: {}\n", finished, points.size(), pt.variant->id, pt.spec_name, what);
    err.flush();
  }

  // The table, in point order.
  std::vector<json> rows;
  for (const Point& pt : points)
    for (int r = 0; r <= set.alternatives; ++r) {
      const fs::path res = pt.dir / fmt::format("result_{}.json", r);
      if (!fs::exists(res)) break;
      json row = json::parse(slurp(res), nullptr, false);
      if (row.is_discarded()) break;
      if (row.value("status", "") == "none") break;
      for (const auto& f : kModelFields)
        if (pt.variant->model["npu"].contains(f)) row[f] = pt.variant->model["npu"][f];
      rows.push_back(row);
      if (row.value("status", "") != "PASS") break;
    }
  std::vector<std::string> cols = {"variant",
                                   "spec",
                                   "rank",
                                   "status",
                                   "M",
                                   "N",
                                   "K",
                                   "batch",
                                   "a_type",
                                   "b_type",
                                   "c_type",
                                   "tile_m",
                                   "tile_n",
                                   "tile_k",
                                   "dataflow",
                                   "predicted_cycles",
                                   "simulated_cycles",
                                   "error_pct",
                                   "mac_utilization_pct",
                                   "proof_ms"};
  for (const auto& f : set.fpga)
    for (const char* k : f == "asic" ? std::initializer_list<const char*>{"gates", "ffs", "macros", "macro_bits"}
                                     : std::initializer_list<const char*>{"luts", "ffs", "brams", "dsps"})
      cols.push_back(fmt::format("{}_{}", f, k));
  for (const auto& f : kModelFields) cols.push_back(f);
  cols.push_back("message");
  std::string csv = fmt::format("{}\n", fmt::join(cols, ","));
  for (const json& r : rows) {
    std::vector<std::string> cells;
    for (const auto& c : cols) {
      json v;
      if (const auto us = c.find('_');
          us != std::string::npos && std::find(set.fpga.begin(), set.fpga.end(), c.substr(0, us)) != set.fpga.end()) {
        const std::string flow = "fpga_" + c.substr(0, us);
        if (r.contains(flow)) v = r[flow].value(c.substr(us + 1), json());
      } else if (r.contains(c)) {
        v = r[c];
      }
      cells.push_back(csv_cell(v));
    }
    csv += fmt::format("{}\n", fmt::join(cells, ","));
  }
  std::vector<std::string> inputs = {o.file};
  for (const auto& s : specs) inputs.push_back(s.string());
  for (const auto& [name, body] : std::vector<std::pair<std::string, std::string>>{
           {"sweep.csv", csv}, {"sweep.json", json(rows).dump(1) + "\n"}, {"sweep.svg", svg_plot(rows)}})
    if (!write_output_file((outd / name).string(), body, inputs, why))
      return fail(fmt::format("-o: {}: {}", name, why));

  // The summary: each point's plan against its fastest co-simulated alternative, and the
  // estimate's error over every co-simulated plan.
  out << "| variant | spec | plan | predicted | simulated | error | MAC use | fastest co-simulated | plan vs fastest "
         "|\n"
      << "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: |\n";
  std::vector<double> errs, errs0, gaps;
  bool all_pass = true;
  for (size_t i = 0; i < rows.size();) {
    size_t j = i + 1;
    while (j < rows.size() && rows[j]["rank"].get<int>() > 0) ++j;
    const json& r0 = rows[i];
    const std::string st = r0.value("status", "");
    if (st == "FAIL" || st == "error") all_pass = false;
    if (st != "PASS") {
      out << fmt::format("| {} | {} | {}: {} | | | | | | |\n", r0["variant"].get<std::string>(),
                         r0["spec"].get<std::string>(), st, r0.value("message", ""));
      i = j;
      continue;
    }
    const json* best = &r0;
    for (size_t k = i; k < j; ++k) {
      if (rows[k].value("status", "") == "FAIL") all_pass = false;
      if (rows[k].contains("error_pct")) errs.push_back(std::abs(rows[k]["error_pct"].get<double>()));
      if (rows[k].contains("simulated_cycles") &&
          rows[k]["simulated_cycles"].get<std::int64_t>() < (*best)["simulated_cycles"].get<std::int64_t>())
        best = &rows[k];
    }
    errs0.push_back(std::abs(r0.value("error_pct", 0.0)));
    const double gap = 100.0 * (r0["simulated_cycles"].get<double>() / (*best)["simulated_cycles"].get<double>() - 1.0);
    gaps.push_back(gap);
    out << fmt::format(
        "| {} | {} | {}×{}×{} | {} | {} | {:+.1f}% | {:.1f}% | {} | {:+.1f}% |\n", r0["variant"].get<std::string>(),
        r0["spec"].get<std::string>(), r0["tile_m"].get<int>(), r0["tile_n"].get<int>(), r0["tile_k"].get<int>(),
        r0["predicted_cycles"].get<std::int64_t>(), r0["simulated_cycles"].get<std::int64_t>(),
        r0.value("error_pct", 0.0), r0.value("mac_utilization_pct", 0.0),
        best == &r0 ? std::string("the plan")
                    : fmt::format("{}×{}×{}: {}", (*best)["tile_m"].get<int>(), (*best)["tile_n"].get<int>(),
                                  (*best)["tile_k"].get<int>(), (*best)["simulated_cycles"].get<std::int64_t>()),
        gap);
    i = j;
  }
  if (!errs.empty())
    out << fmt::format(
        "\nestimate against co-simulation: {} plan{}, |error| median {:.1f}%, max {:.1f}% (the solver's plans: {}, "
        "median {:.1f}%, max {:.1f}%)\n",
        errs.size(), errs.size() == 1 ? "" : "s", median(errs), *std::max_element(errs.begin(), errs.end()),
        errs0.size(), median(errs0), errs0.empty() ? 0.0 : *std::max_element(errs0.begin(), errs0.end()));
  if (!gaps.empty())
    out << fmt::format(
        "the solver's plan against the fastest of its {} co-simulated: {:+.1f}% at worst, {} of {} points "
        "within 5%\n",
        set.alternatives + 1, *std::max_element(gaps.begin(), gaps.end()),
        std::count_if(gaps.begin(), gaps.end(), [](double g) { return g <= 5.0; }), gaps.size());
  out << fmt::format("table: {}, {}; plot: {}\n", (outd / "sweep.csv").string(), (outd / "sweep.json").string(),
                     (outd / "sweep.svg").string());
  // A sweep whose every point was refused has measured nothing: that is not a result.
  if (gaps.empty()) {
    err << fmt::format("{}: error: no point could be built and co-simulated (the table says why for each)\n", o.file);
    return kExitUserError;
  }
  return all_pass ? 0 : kExitUserError;
}

}  // namespace

int sweep(const SweepOptions& o, std::ostream& out, std::ostream& err) {
  // The output folder and the results in it are the user's: a folder that cannot be written, or a
  // result file damaged by hand, is an error of the run, not of deepgemm.
  try {
    return run_sweep(o, out, err);
  } catch (const fs::filesystem_error& e) {
    err << fmt::format("{}: error: {}\n", o.file, e.what());
  } catch (const json::exception& e) {
    err << fmt::format("{}: error: a result in {} is damaged ({}); rerun with --fresh\n", o.file, o.out_dir, e.what());
  }
  return kExitUserError;
}

}  // namespace dg::driver
