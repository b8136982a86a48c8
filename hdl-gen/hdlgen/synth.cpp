#include "hdlgen/synth.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <map>
#include <thread>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "hdlgen/board_files.h"
#include "hdlgen/tool_run.h"

namespace dg::hdlgen {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

long count(const std::string& log, const std::string& cell) {
  // The last `stat` table: "     SB_LUT4                       123"
  std::regex re("\\n\\s+" + cell + "\\s+(\\d+)");
  long v = 0;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), re); it != std::sregex_iterator(); ++it)
    v = std::stol((*it)[1]);
  return v;
}

long count_ffs(const std::string& log) {
  long n = 0;
  for (const char* ff : {"SB_DFF", "SB_DFFE", "SB_DFFR", "SB_DFFER", "SB_DFFS", "SB_DFFES", "SB_DFFSR", "SB_DFFESR",
                         "SB_DFFSS", "SB_DFFESS"})
    n += count(log, ff);
  return n;
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string find_tool(const std::string& name) {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      fs::path p = fs::path(dir) / name;
      if (!dir.empty() && ::access(p.c_str(), X_OK) == 0) return p.string();
    }
  }
  return "";
}

// The last lines of a tool's log that say why it stopped: its "ERROR:" lines, else its tail.
std::string why_failed(const std::string& log) {
  std::stringstream ss(log);
  std::string line, errors;
  std::vector<std::string> tail;
  while (std::getline(ss, line)) {
    if (line.rfind("ERROR:", 0) == 0) errors += line + "\n";
    tail.push_back(line);
    if (tail.size() > 8) tail.erase(tail.begin());
  }
  if (!errors.empty()) return errors;
  std::string out;
  for (const auto& l : tail) out += l + "\n";
  return out.empty() ? "(no log)\n" : out;
}

// What boards/<board>/board.json says, and the board's files.
struct Board {
  std::string name, family, device, package, top, pcf, npu_top_define, mmio_base_parameter;
  std::vector<std::string> rtl;
  double clock_mhz = 0;
  int bus_data_bits = 0;
  long dsp_cells = 0, bram_cells = 0, logic_cells = 0;
  std::vector<const BoardFile*> files;
};

// The board named `name`, or "" and `why`.
bool find_board(const std::string& name, Board& b, std::string& why) {
  std::vector<std::string> known;
  const BoardFile* desc = nullptr;
  for (const auto& f : board_files()) {
    if (f.name != "board.json") continue;
    known.push_back(f.board);
    if (f.board == name) desc = &f;
  }
  if (!desc) {
    why = fmt::format("board '{}' is not among the boards this compiler carries ({})", name,
                      known.empty() ? "none" : fmt::format("{}", fmt::join(known, ", ")));
    return false;
  }
  try {
    json j = json::parse(desc->text);
    b.name = name;
    b.family = j.at("family").get<std::string>();
    b.device = j.at("device").get<std::string>();
    b.package = j.at("package").get<std::string>();
    b.top = j.at("top").get<std::string>();
    b.rtl = j.at("files").get<std::vector<std::string>>();
    b.pcf = j.at("pcf").get<std::string>();
    b.clock_mhz = j.at("clock_mhz").get<double>();
    b.bus_data_bits = j.at("bus_data_bits").get<int>();
    b.dsp_cells = j.at("dsp_cells").get<long>();
    b.bram_cells = j.at("bram_cells").get<long>();
    b.logic_cells = j.at("logic_cells").get<long>();
    b.npu_top_define = j.at("npu_top_define").get<std::string>();
    b.mmio_base_parameter = j.at("mmio_base_parameter").get<std::string>();
  } catch (const json::exception& e) {
    why = fmt::format("boards/{}/board.json: {}", name, e.what());
    return false;
  }
  for (const auto& f : board_files())
    if (f.board == name) b.files.push_back(&f);
  auto has = [&](const std::string& file) {
    return std::any_of(b.files.begin(), b.files.end(), [&](const BoardFile* f) { return f->name == file; });
  };
  std::vector<std::string> need = b.rtl;
  need.push_back(b.pcf);
  for (const auto& file : need)
    if (!has(file)) {
      why = fmt::format("boards/{}/board.json names {}, which the board folder lacks", name, file);
      return false;
    }
  return true;
}

Resource resource(const json& util, const char* kind) {
  Resource r;
  if (auto it = util.find(kind); it != util.end() && it->is_object()) {
    r.used = it->value("used", 0L);
    r.available = it->value("available", 0L);
  }
  return r;
}

// nextpnr's --report JSON: "utilization": {KIND: {"used", "available"}}, "fmax": {CLOCK:
// {"achieved", "constraint"}} (MHz).
bool read_report(const std::string& text, BoardReport& r, std::string& why) {
  try {
    json j = json::parse(text);
    const json& util = j.at("utilization");
    r.logic_cells = resource(util, "ICESTORM_LC");
    r.brams = resource(util, "ICESTORM_RAM");
    r.sprams = resource(util, "ICESTORM_SPRAM");
    r.dsps = resource(util, "ICESTORM_DSP");
    r.ios = resource(util, "SB_IO");
    bool any = false;
    for (const auto& [clock, f] : j.at("fmax").items()) {
      (void)clock;
      double achieved = f.at("achieved").get<double>();
      r.fmax_mhz = any ? std::min(r.fmax_mhz, achieved) : achieved;
      any = true;
    }
    if (!any) {
      why = "nextpnr's report has no clock (is the board clock connected?)";
      return false;
    }
  } catch (const json::exception& e) {
    why = fmt::format("nextpnr's report is not as expected: {}", e.what());
    return false;
  }
  return true;
}

// nextpnr's log after packing, which it writes also when placement then fails:
//   "Info: \t         ICESTORM_LC:  6368/ 5280   120%"
bool read_packed(const std::string& log, BoardReport& r) {
  std::regex re("\\n[^\\n]*?([A-Z_0-9]+):\\s+(\\d+)/\\s*(\\d+)\\s+\\d+%");
  bool any = false;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), re); it != std::sregex_iterator(); ++it) {
    Resource x{std::stol((*it)[2]), std::stol((*it)[3])};
    const std::string kind = (*it)[1];
    if (kind == "ICESTORM_LC")
      r.logic_cells = x, any = true;
    else if (kind == "ICESTORM_RAM")
      r.brams = x;
    else if (kind == "ICESTORM_SPRAM")
      r.sprams = x;
    else if (kind == "ICESTORM_DSP")
      r.dsps = x;
    else if (kind == "SB_IO")
      r.ios = x;
  }
  return any;
}

std::string res_text(const Resource& r) { return fmt::format("{}/{} ({:.1f}%)", r.used, r.available, r.percent()); }

}  // namespace

std::string BoardReport::text() const {
  if (board.empty()) return "";
  if (!ran) {
    std::string t = fmt::format("place and route on {}: not done: {}\n", board, error);
    if (luts > 0)
      t += fmt::format("  yosys synth_ice40 -top {}: {} LUT4, {} flip-flops, {} carry cells; {}\n", top, luts, ffs,
                       carries, dsp_text());
    return t;
  }
  return fmt::format(
      "place and route on {} ({}, top {}; yosys synth_ice40 + nextpnr --seed 1): fits\n"
      "  yosys synth_ice40 -top {}: {} LUT4, {} flip-flops, {} carry cells; {}\n"
      "  nextpnr: logic cells {}, block RAMs {}, SPRAMs {}, DSPs {}, I/Os {}\n"
      "  estimated fmax {:.2f} MHz; board clock {:g} MHz: {}\n"
      "  bitstream: {}\n",
      board, device, top, top, luts, ffs, carries, dsp_text(), res_text(logic_cells), res_text(brams), res_text(sprams),
      res_text(dsps), res_text(ios), fmax_mhz, target_mhz, meets_timing() ? "met" : "NOT met",
      bitstream.empty() ? "none: " + bitstream_note
                        : fmt::format("{} bytes (icepack), in the module's bitstream section", bitstream.size()));
}

std::string BoardReport::dsp_text() const {
  if (dsps_wanted == 0) return "no multipliers for the DSPs";
  if (dsp_mapped && dsp_pairs)
    return fmt::format("{} multipliers in {} DSPs (two 8x8 per SB_MAC16)", 2 * dsps_wanted, dsps_wanted);
  if (dsp_mapped) return fmt::format("{} multipliers in DSPs", dsps_wanted);
  return fmt::format("multipliers in logic ({} would need DSPs, the device has fewer)", dsps_wanted);
}

std::string BoardReport::summary() const {
  if (board.empty()) return "";
  if (!ran) return fmt::format("Place and route on {} not done: {}", board, error);
  return fmt::format(
      "Place and route on {} ({}): {}/{} logic cells ({:.0f}%), {} LUT4, {} flip-flops, {}/{} block RAMs, {}/{} "
      "SPRAMs, {}/{} DSPs; fmax {:.1f} MHz (board clock {:g} MHz{})",
      board, device, logic_cells.used, logic_cells.available, logic_cells.percent(), luts, ffs, brams.used,
      brams.available, sprams.used, sprams.available, dsps.used, dsps.available, fmax_mhz, target_mhz,
      meets_timing() ? "" : ": NOT met");
}

// ---- coarse synthesis and the FPGA flows ----------------------------------------------------------

namespace {

// Cell counts of one module from `stat -json` (num_cells_by_type); a key that names a module of
// the design is an instance of it.
using Counts = std::map<std::string, long>;

// Yosys 0.23's `stat -json` leaves a comma before the closing brace when no module is the top
// (and prints the hierarchy into the JSON when one is: the scripts unset the top attribute first).
json parse_stat(const std::string& text) {
  return json::parse(std::regex_replace(text, std::regex(",(\\s*)\\}\\s*$"), "$1}"));
}

std::map<std::string, Counts> read_stat(const std::string& text) {
  std::map<std::string, Counts> mods;
  json j = parse_stat(text);
  // A public name is "\\name" as a module and "name" as a cell type: both become "name".
  auto plain = [](const std::string& n) { return !n.empty() && n[0] == '\\' ? n.substr(1) : n; };
  for (const auto& [name, m] : j.at("modules").items()) {
    Counts& c = mods[plain(name)];
    if (auto it = m.find("num_cells_by_type"); it != m.end())
      for (const auto& [type, n] : it->items()) c[plain(type)] += n.get<long>();
  }
  return mods;
}

// How often each module is instantiated under `top` (the top once).
void count_instances(const std::map<std::string, Counts>& mods, const std::string& m, long times,
                     std::map<std::string, long>& out, int depth = 0) {
  if (depth > 64) return;  // the design's hierarchy is a few levels deep; this bounds a cycle
  out[m] += times;
  for (const auto& [type, n] : mods.at(m))
    if (mods.count(type)) count_instances(mods, type, times * n, out, depth + 1);
}

// Primitive cells of the whole design: each module's own cells times its instances.
Counts whole_design(const std::map<std::string, Counts>& mods, const std::string& top) {
  std::map<std::string, long> inst;
  count_instances(mods, top, 1, inst);
  Counts total;
  for (const auto& [m, times] : inst)
    for (const auto& [type, n] : mods.at(m))
      if (!mods.count(type)) total[type] += n * times;
  return total;
}

long sum_of(const Counts& c, std::initializer_list<const char*> types) {
  long n = 0;
  for (const char* t : types)
    if (auto it = c.find(t); it != c.end()) n += it->second;
  return n;
}

long with_prefix(const Counts& c, const std::string& prefix) {
  long n = 0;
  for (const auto& [type, k] : c)
    if (type.rfind(prefix, 0) == 0) n += k;
  return n;
}

// Flip-flop bits from `stat -width` names such as "$adffe_32".
long ff_bits_of(const Counts& c) {
  static const std::regex re("\\$(_)?[a-z]*dff[a-z]*_(\\d+)");
  long bits = 0;
  std::smatch m;
  for (const auto& [type, n] : c)
    if (std::regex_match(type, m, re)) bits += n * std::stol(m[2]);
  return bits;
}

// "$paramod$4b6a...\dg_fifo" -> "dg_fifo"; "\npu_gemm_x" -> "npu_gemm_x".
std::string short_name(const std::string& m) {
  std::string s = m;
  if (auto bs = s.rfind('\\'); bs != std::string::npos) s = s.substr(bs + 1);
  return s;
}

struct Memory {
  long count = 0, bits = 0;
  std::set<std::string> shapes;
};

// `dump t:$mem_v2`: "module NAME" then, per memory, "parameter \SIZE n" and "parameter \WIDTH w".
std::map<std::string, Memory> read_memories(const std::string& dump) {
  std::map<std::string, Memory> out;
  std::stringstream ss(dump);
  std::string line, mod;
  long size = -1;
  while (std::getline(ss, line)) {
    std::stringstream ls(line);
    std::string w0, w1, w2;
    ls >> w0 >> w1 >> w2;
    if (w0 == "module")
      mod = !w1.empty() && w1[0] == '\\' ? w1.substr(1) : w1, size = -1;
    else if (w0 == "cell")
      size = -1;
    else if (w0 == "parameter" && w1 == "\\SIZE")
      size = std::stol(w2);
    else if (w0 == "parameter" && w1 == "\\WIDTH" && size >= 0) {
      Memory& m = out[mod];
      m.count++;
      m.bits += size * std::stol(w2);
      m.shapes.insert(fmt::format("{} x {}", size, w2));
      size = -1;
    }
  }
  return out;
}

// The coarse breakdown: `synth -run :fine` (up to and including memory inference, no mapping).
void coarse(const Scratch& s, const Design& d, SynthReport& r) {
  std::string log;
  const std::string script = fmt::format(
      "read_verilog -sv {}\nsynth -top {} -run :fine\nopt -fast -full\nsetattr -mod -unset top\n"
      "tee -q -o coarse.json stat -width -json\n"
      "tee -q -o memories.txt dump t:$mem_v2\n",
      s.file_list(), d.top);
  if (s.yosys(script, log) != 0) {
    r.error = "yosys synth failed:\n" + why_failed(log);
    return;
  }
  try {
    auto mods = read_stat(s.read("coarse.json"));
    const std::string& top = d.top;
    if (!mods.count(top)) {
      r.error = fmt::format("yosys's statistics have no module {}", d.top);
      return;
    }
    auto mems = read_memories(s.read("memories.txt"));
    std::map<std::string, long> inst;
    count_instances(mods, top, 1, inst);
    // The top first, then by name; variants of one library module numbered in that order.
    std::vector<std::string> order;
    for (const auto& [m, n] : inst) order.push_back(m);
    std::sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
      if ((a == top) != (b == top)) return a == top;
      return short_name(a) != short_name(b) ? short_name(a) < short_name(b) : a < b;
    });
    std::map<std::string, int> seen;
    for (const auto& m : order) {
      ModuleStats ms;
      const std::string base = short_name(m);
      int k = ++seen[base];
      ms.name = k == 1 ? base : fmt::format("{}#{}", base, k);
      ms.instances = inst[m];
      for (const auto& [type, n] : mods.at(m))
        if (!mods.count(type)) ms.cells += n;
      ms.ff_bits = ff_bits_of(mods.at(m));
      if (auto it = mems.find(m); it != mems.end()) {
        ms.memories = it->second.count;
        ms.memory_bits = it->second.bits;
        if (it->second.shapes.size() == 1) ms.memory_shape = *it->second.shapes.begin();
      }
      r.cells += ms.cells * ms.instances;
      r.ff_bits += ms.ff_bits * ms.instances;
      r.memories += ms.memories * ms.instances;
      r.memory_bits += ms.memory_bits * ms.instances;
      r.modules.push_back(ms);
    }
  } catch (const std::exception& e) {
    r.error = fmt::format("yosys's statistics are not as expected: {}", e.what());
  }
}

struct Flow {
  const char* family;
  const char* name;     // for the report
  const char* command;  // the Yosys synthesis command, before -top
};

const Flow kFlows[] = {
    {"ice40", "iCE40", "synth_ice40 -dsp"},
    {"ecp5", "ECP5", "synth_ecp5"},
    {"xilinx", "Xilinx 7-series", "synth_xilinx -family xc7 -noiopad"},
    {"asic", "ASIC", "synth -flatten"},
};

const Flow& flow_of(const std::string& family) {
  for (const auto& f : kFlows)
    if (family == f.family) return f;
  return kFlows[0];
}

// The ASIC flow's memory macro: dg_ram_1r1w.v's DG_ASIC_MEMORIES instantiates it; a black box here.
const char* const kAsicRamStub =
    "(* blackbox *)\n"
    "module dg_asic_ram_1r1w #(parameter int Width = 8, parameter int Depth = 2) (\n"
    "  input logic clk_i, input logic we_i, input logic [$clog2(Depth)-1:0] waddr_i,\n"
    "  input logic [Width-1:0] wdata_i, input logic re_i, input logic [$clog2(Depth)-1:0] raddr_i,\n"
    "  output logic [Width-1:0] rdata_o);\n"
    "endmodule\n";

// `dump t:dg_asic_ram_1r1w`: "cell \dg_asic_ram_1r1w NAME", then "parameter signed \Depth n" and
// "parameter signed \Width w" (in either order).
std::vector<MemoryMacro> read_macros(const std::string& dump) {
  std::vector<MemoryMacro> out;
  std::stringstream ss(dump);
  std::string line;
  while (std::getline(ss, line)) {
    std::stringstream ls(line);
    std::vector<std::string> w;
    for (std::string x; ls >> x;) w.push_back(x);
    if (w.size() >= 3 && w[0] == "cell" && w[1] == "\\dg_asic_ram_1r1w") {
      MemoryMacro m;
      m.instance = !w[2].empty() && w[2][0] == '\\' ? w[2].substr(1) : w[2];
      out.push_back(m);
    } else if (!out.empty() && w.size() >= 3 && w[0] == "parameter") {
      const std::string& v = w.back();
      const std::string& name = w[w.size() - 2];
      if (name == "\\Depth") out.back().words = std::stol(v);
      if (name == "\\Width") out.back().width = std::stol(v);
    }
  }
  // In natural order: g_bank[2] before g_bank[10].
  auto natural_less = [](const std::string& a, const std::string& b) {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
      if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
        std::size_t ie = i, je = j;
        while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
        while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
        const std::string x = a.substr(i, ie - i), y = b.substr(j, je - j);
        if (x.size() != y.size()) return x.size() < y.size();  // (no leading zeros in instance indices)
        if (x != y) return x < y;
        i = ie, j = je;
      } else {
        if (a[i] != b[j]) return a[i] < b[j];
        ++i, ++j;
      }
    }
    return a.size() - i < b.size() - j;
  };
  std::sort(out.begin(), out.end(),
            [&](const MemoryMacro& a, const MemoryMacro& b) { return natural_less(a.instance, b.instance); });
  return out;
}

// One flow: Yosys runs `script`, then `read` takes the figures from its outputs (returning why
// not, or throwing, when they are not as expected); the report says why not where either fails.
FpgaReport run_flow(const Scratch& s, const Flow& f, const std::string& script,
                    const std::function<std::string(FpgaReport&)>& read) {
  FpgaReport r;
  r.family = f.family;
  r.flow = f.command;
  auto t0 = std::chrono::steady_clock::now();
  std::string log;
  if (s.yosys(script, log) != 0) {
    r.error = fmt::format("yosys {} failed:\n{}", f.command, why_failed(log));
    while (!r.error.empty() && r.error.back() == '\n') r.error.pop_back();
    return r;
  }
  try {
    r.error = read(r);
    if (!r.error.empty()) return r;
  } catch (const std::exception& e) {
    r.error = fmt::format("yosys's statistics are not as expected: {}", e.what());
    return r;
  }
  r.ran = true;
  r.ms = since(t0);
  return r;
}

// Generic gates and memory macros: `synth -flatten` with every dg_ram_1r1w a dg_asic_ram_1r1w.
FpgaReport asic(const Scratch& s, const Design& d) {
  const Flow& f = flow_of("asic");
  const std::string script = fmt::format(
      "read_verilog -sv <<DGEOT\n{}DGEOT\nread_verilog -sv -DDG_ASIC_MEMORIES {}\n"
      "{} -top {}\nsetattr -mod -unset top\ntee -q -o asic.json stat -json -tech cmos\n"
      "tee -q -o macros.txt dump t:dg_asic_ram_1r1w\n",
      kAsicRamStub, s.file_list(), f.command, d.top);
  return run_flow(s, f, script, [&](FpgaReport& r) {
    const json j = parse_stat(s.read("asic.json"));
    const json& m = j.at("modules").at("\\" + d.top);
    for (const auto& [type, n] : m.at("num_cells_by_type").items()) {
      if (type == "dg_asic_ram_1r1w") continue;
      if (type.find("DFF") != std::string::npos || type.find("DLATCH") != std::string::npos)
        r.ffs += n.get<long>();
      else
        r.gates += n.get<long>();
    }
    // (Yosys 0.23 writes the estimate as a string.)
    if (auto it = m.find("estimated_num_transistors"); it != m.end())
      r.transistors = it->is_string() ? std::stol(it->get<std::string>()) : it->get<long>();
    r.macros = read_macros(s.read("macros.txt"));
    return std::string();
  });
}

FpgaReport fpga(const Scratch& s, const Design& d, const std::string& family) {
  if (family == "asic") return asic(s, d);
  const Flow& f = flow_of(family);
  const std::string out = fmt::format("{}.json", f.family);
  const std::string script =
      fmt::format("read_verilog -sv {}\n{} -top {}\nsetattr -mod -unset top\ntee -q -o {} stat -json\n", s.file_list(),
                  f.command, d.top, out);
  return run_flow(s, f, script, [&](FpgaReport& r) {
    auto mods = read_stat(s.read(out));
    const std::string& top = d.top;
    if (!mods.count(top)) return fmt::format("yosys's statistics have no module {}", d.top);
    Counts c = whole_design(mods, top);
    if (r.family == "ice40") {
      r.luts = sum_of(c, {"SB_LUT4"});
      r.ffs = with_prefix(c, "SB_DFF");
      r.carries = sum_of(c, {"SB_CARRY"});
      r.brams = sum_of(c, {"SB_RAM40_4K"});
      r.dsps = sum_of(c, {"SB_MAC16"});
    } else if (r.family == "ecp5") {
      r.luts = sum_of(c, {"LUT4"});
      r.ffs = sum_of(c, {"TRELLIS_FF"});
      r.carries = sum_of(c, {"CCU2C"});
      r.brams = sum_of(c, {"DP16KD"});
      r.lutrams = sum_of(c, {"TRELLIS_DPR16X4"});
      r.dsps = sum_of(c, {"MULT18X18D"});
    } else {
      r.luts = sum_of(c, {"LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6"});
      r.ffs = sum_of(c, {"FDRE", "FDSE", "FDCE", "FDPE"});
      r.carries = sum_of(c, {"CARRY4"});
      // A RAMB18E1 is half a RAMB36E1; counted in RAMB36E1 equivalents, rounded up.
      r.brams = sum_of(c, {"RAMB36E1"}) + (sum_of(c, {"RAMB18E1"}) + 1) / 2;
      r.lutrams = sum_of(c, {"RAM32M", "RAM64M", "RAM32X1D", "RAM64X1D", "RAM128X1D", "RAM256X1S", "RAM32X1S",
                             "RAM64X1S", "RAM128X1S"});
      r.dsps = sum_of(c, {"DSP48E1"});
    }
    return std::string();
  });
}

}  // namespace

const std::vector<std::string>& fpga_families() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> v;
    for (const auto& f : kFlows) v.push_back(f.family);
    return v;
  }();
  return all;
}

std::string FpgaReport::text() const {
  const Flow& f = flow_of(family);
  if (!ran) return fmt::format("  {} ({}): not done: {}\n", f.name, flow, error);
  if (family == "asic") {
    // The macros by shape, in order of first instance, then each instance.
    std::vector<std::pair<std::pair<long, long>, long>> shapes;
    long bits = 0;
    for (const auto& m : macros) {
      bits += m.words * m.width;
      auto it = std::find_if(shapes.begin(), shapes.end(),
                             [&](const auto& x) { return x.first == std::make_pair(m.words, m.width); });
      if (it == shapes.end())
        shapes.push_back({{m.words, m.width}, 1});
      else
        ++it->second;
    }
    std::string t = fmt::format(
        "  {} ({}; generic gates, memories as dg_asic_ram_1r1w macros): {} gates, {} flip-flops, about {} "
        "transistors (Yosys's CMOS estimate, macros excluded); {} memory macros of {} bits{}",
        f.name, flow, gates, ffs, transistors, macros.size(), bits, shapes.empty() ? "" : ":");
    for (std::size_t i = 0; i < shapes.size(); ++i)
      t += fmt::format("{} {} x {} words x {} bits", i ? "," : "", shapes[i].second, shapes[i].first.first,
                       shapes[i].first.second);
    t += fmt::format("; {:.1f} s\n", ms / 1000);
    for (const auto& m : macros) t += fmt::format("    macro {}: {} words x {} bits\n", m.instance, m.words, m.width);
    return t;
  }
  const char* bram = family == "ice40" ? "SB_RAM40_4K" : family == "ecp5" ? "DP16KD" : "RAMB36E1";
  const char* dsp = family == "ice40" ? "SB_MAC16" : family == "ecp5" ? "MULT18X18D" : "DSP48E1";
  std::string t = fmt::format("  {} ({}): {} LUTs, {} flip-flops, {} carry cells, {} block RAMs ({}), {} DSPs ({})",
                              f.name, flow, luts, ffs, carries, brams, bram, dsps, dsp);
  if (lutrams > 0) t += fmt::format(", {} LUT RAMs", lutrams);
  return t + fmt::format("; {:.1f} s\n", ms / 1000);
}

const FpgaReport* SynthReport::family(const std::string& f) const {
  for (const auto& x : fpga)
    if (x.family == f) return &x;
  return nullptr;
}

std::string SynthReport::text() const {
  if (!ran) return "synthesis: " + error + "\n" + board.text();
  std::string t = fmt::format(
      "synthesis (Yosys; memories kept as memories; {:.1f} s):\n"
      "  coarse (synth -run :fine): {} cells, {} flip-flop bits, {} memories of {} bits\n",
      ms / 1000, cells, ff_bits, memories, memory_bits);
  std::size_t w = 6;
  for (const auto& m : modules) w = std::max(w, m.name.size());
  t += fmt::format("    {:<{}}  {:>9}  {:>7}  {:>9}  {:>8}  {:>11}  {}\n", "module", w, "instances", "cells", "ff bits",
                   "memories", "memory bits", "words x bits");
  for (const auto& m : modules) {
    std::string row = fmt::format("    {:<{}}  {:>9}  {:>7}  {:>9}  {:>8}  {:>11}  {}", m.name, w, m.instances, m.cells,
                                  m.ff_bits, m.memories, m.memory_bits, m.memory_shape);
    while (!row.empty() && row.back() == ' ') row.pop_back();
    t += row + "\n";
  }
  for (const auto& f : fpga) t += f.text();
  return t + board.text();
}

std::string SynthReport::summary() const {
  if (!ran) return "Synthesis not run: " + error;
  std::string t =
      fmt::format("Synthesis: {} coarse cells, {} flip-flop bits, {} memory bits", cells, ff_bits, memory_bits);
  for (const auto& f : fpga)
    if (f.ran && f.family == "asic")
      t += fmt::format("; ASIC: {} gates, {} memory macros", f.gates, f.macros.size());
    else if (f.ran)
      t += fmt::format("; {}: {} LUTs, {} block RAMs, {} DSPs", flow_of(f.family).name, f.luts, f.brams, f.dsps);
  return t + fmt::format(" ({:.1f} s)", ms / 1000);
}

SynthReport synthesize(const Design& d, const SynthOptions& opts) {
  SynthReport r;
  auto t0 = std::chrono::steady_clock::now();
  if (find_yosys().empty()) {
    r.error = "yosys not found on PATH";
    return r;
  }
  for (const auto& f : opts.families)
    if (std::find(fpga_families().begin(), fpga_families().end(), f) == fpga_families().end()) {
      r.error = fmt::format("unknown synthesis flow '{}' (known: {})", f, fmt::join(fpga_families(), ", "));
      return r;
    }
  Scratch s(d);
  // Each family's flow and the coarse run in parallel, as many at once as there are cores; the
  // coarse run, the shortest, last (jobs 0 .. F-1 are the families, job F the coarse run).
  const std::size_t jobs = 1 + opts.families.size();
  const std::size_t coarse_job = opts.families.size();
  r.fpga.resize(opts.families.size());
  std::vector<std::string> done(jobs);
  std::vector<char> finished(jobs, 0);
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next++) < jobs;) {
      std::string line;
      if (i == coarse_job) {
        auto tc = std::chrono::steady_clock::now();
        coarse(s, d, r);
        line = r.error.empty() ? fmt::format("coarse synthesis: {} cells, {} flip-flop bits, {} memories ({:.1f} s)",
                                             r.cells, r.ff_bits, r.memories, since(tc) / 1000)
                               : "coarse synthesis failed: " + r.error;
      } else {
        r.fpga[i] = fpga(s, d, opts.families[i]);
        const FpgaReport& f = r.fpga[i];
        long macro_bits = 0;
        for (const auto& m : f.macros) macro_bits += m.words * m.width;
        line = !f.ran ? fmt::format("{}: not done: {}", flow_of(f.family).name, f.error)
               : f.family == "asic"
                   ? fmt::format("ASIC: {} gates, {} flip-flops, {} memory macros of {} bits ({:.1f} s)", f.gates,
                                 f.ffs, f.macros.size(), macro_bits, f.ms / 1000)
                   : fmt::format("{}: {} LUTs, {} flip-flops, {} block RAMs, {} DSPs ({:.1f} s)",
                                 flow_of(f.family).name, f.luts, f.ffs, f.brams, f.dsps, f.ms / 1000);
      }
      std::lock_guard<std::mutex> lock(mu);
      done[i] = line;
      finished[i] = 1;
      cv.notify_all();
    }
  };
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < std::min<std::size_t>(cores, jobs); ++t) pool.emplace_back(worker);
  // Progress from this thread, in completion order.
  {
    std::unique_lock<std::mutex> lock(mu);
    std::vector<char> told(jobs, 0);
    for (std::size_t reported = 0; reported < jobs;) {
      cv.wait(lock, [&] {
        for (std::size_t i = 0; i < jobs; ++i)
          if (finished[i] && !told[i]) return true;
        return false;
      });
      for (std::size_t i = 0; i < jobs; ++i)
        if (finished[i] && !told[i]) {
          told[i] = 1;
          ++reported;
          if (opts.progress) {
            lock.unlock();
            opts.progress(done[i]);
            lock.lock();
          }
        }
    }
  }
  for (auto& t : pool) t.join();
  if (!r.error.empty()) return r;
  r.ran = true;
  r.ms = since(t0);
  return r;
}

SynthReport synthesize(const Design& d, const hw::HwModel& hw, const SynthOptions& opts) {
  SynthReport r = synthesize(d, opts);
  if (hw.is_npu() && !hw.npu.board.empty()) {
    auto t0 = std::chrono::steady_clock::now();
    Board b;
    std::string why;
    const FpgaReport* ice40 = r.family("ice40");
    if (find_board(hw.npu.board, b, why) && b.family == "ice40" && ice40 && ice40->ran && ice40->brams > b.bram_cells) {
      // The design alone needs more block RAM than the device has: placing it would only fail.
      r.board.board = hw.npu.board;
      r.board.top = b.top;
      r.board.device = fmt::format("iCE40 {} ({})", b.device == "up5k" ? "UP5K" : b.device, b.package);
      r.board.target_mhz = b.clock_mhz;
      r.board.error = fmt::format("does not fit {}: the design alone needs {} of its {} block RAMs (iCE40 mapping)",
                                  hw.npu.board, ice40->brams, b.bram_cells);
    } else {
      r.board = place_and_route(d, hw.npu.board, hw.npu.bus_data_bits, hw.npu.mmio_base);
    }
    r.ms += since(t0);
  }
  return r;
}

BoardReport place_and_route(const Design& d, const std::string& name, int bus_bits, std::uint64_t mmio_base) {
  BoardReport r;
  r.board = name;
  Board b;
  if (!find_board(name, b, r.error)) return r;
  r.top = b.top;
  r.target_mhz = b.clock_mhz;
  r.device = fmt::format("{} {} ({})", b.family == "ice40" ? "iCE40" : b.family, b.device == "up5k" ? "UP5K" : b.device,
                         b.package);
  if (b.family != "ice40") {
    r.error =
        fmt::format("boards/{}: family '{}' has no place-and-route flow here (nextpnr-ice40 only)", name, b.family);
    return r;
  }
  if (bus_bits != b.bus_data_bits) {
    r.error = fmt::format("the board's memory is {} bits wide, the model's bus {} bits", b.bus_data_bits, bus_bits);
    return r;
  }
  if (mmio_base > 0xffffffffull) {
    r.error = fmt::format("mmio_base 0x{:X} does not fit the board's 32-bit addresses", mmio_base);
    return r;
  }
  if (find_yosys().empty()) {
    r.error = "yosys not found on PATH";
    return r;
  }
  const std::string nextpnr = find_tool("nextpnr-ice40");
  if (nextpnr.empty()) {
    r.error = "nextpnr-ice40 not found on PATH (Debian package nextpnr-ice40)";
    return r;
  }

  Scratch s(d);
  std::string board_list;
  for (const BoardFile* f : b.files) std::ofstream(fs::path(s.dir()) / f->name) << f->text;
  for (const auto& f : b.rtl) board_list += " " + f;

  // Synthesis of the board top with the design's core under it (the board's memory and host
  // bridge speak the core's bus channels and register port, not AXI4); the top's register base
  // from the model.
  // Multipliers go to the DSPs: first two PEs per SB_MAC16 in its dual 8x8 mode (the MAC array's
  // DG_ICE40_DSP path, inputs of at most 8 bits), else one per DSP (synth_ice40 -dsp), unless the
  // design needs more DSPs than the device has; then they stay in logic.
  std::string log;
  auto synth = [&](bool pairs, bool dsp) {
    return s.yosys(fmt::format("read_verilog -sv -D{}={}{} {}{}\nchparam -set {} {} {}\nsynth_ice40 {}-top {} -json "
                               "board.json\nstat\n",
                               b.npu_top_define, d.core.empty() ? d.top : d.core, pairs ? " -DDG_ICE40_DSP" : "",
                               s.file_list(), board_list, b.mmio_base_parameter, mmio_base, b.top, dsp ? "-dsp " : "",
                               b.top),
                   log) == 0;
  };
  bool ok = synth(true, false);
  r.dsp_mapped = true;
  r.dsp_pairs = true;
  if (ok) {
    r.dsps_wanted = count(log, "SB_MAC16");
    if (r.dsps_wanted == 0 || r.dsps_wanted > b.dsp_cells) {
      // No pairs (wider inputs): one multiplier per DSP, or logic.
      r.dsp_pairs = false;
      ok = synth(false, true);
      if (ok) {
        r.dsps_wanted = count(log, "SB_MAC16");
        if (r.dsps_wanted > b.dsp_cells) {
          r.dsp_mapped = false;
          ok = synth(false, false);
        }
      }
    }
  }
  if (!ok) {
    r.error = "yosys synth_ice40 of the board top failed:\n" + why_failed(log);
    while (!r.error.empty() && r.error.back() == '\n') r.error.pop_back();
    return r;
  }
  r.luts = count(log, "SB_LUT4");
  r.carries = count(log, "SB_CARRY");
  r.ffs = count_ffs(log);

  // Place and route, deterministic (fixed seed); timing below the board clock is reported, not fatal.
  const std::string cmd = fmt::format(
      "cd '{}' && '{}' --{} --package {} --pcf {} --json board.json --report report.json --asc board.asc --seed 1 "
      "--freq {:g} --timing-allow-fail -q -l pnr.log > /dev/null 2>&1",
      s.dir(), nextpnr, b.device, b.package, b.pcf, b.clock_mhz);
  int rc = std::system(cmd.c_str());
  int code = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
  if (code != 0) {
    const std::string pnr_log = s.read("pnr.log");
    r.packed = read_packed(pnr_log, r);
    std::string over;
    const std::pair<const char*, const Resource*> kinds[] = {{"logic cells", &r.logic_cells},
                                                             {"block RAMs", &r.brams},
                                                             {"SPRAMs", &r.sprams},
                                                             {"DSPs", &r.dsps},
                                                             {"I/Os", &r.ios}};
    for (const auto& [what, x] : kinds)
      if (x->used > x->available) over += fmt::format("{}{} {}", over.empty() ? "" : ", ", what, res_text(*x));
    r.error = fmt::format("nextpnr-ice40 failed (exit {}){}:\n{}", code,
                          over.empty() ? "" : fmt::format("; the design does not fit the {}: {}", r.device, over),
                          why_failed(pnr_log));
    while (!r.error.empty() && r.error.back() == '\n') r.error.pop_back();
    return r;
  }
  if (!read_report(s.read("report.json"), r, r.error)) return r;
  r.ran = true;
  // The bitstream, for programming the board (iceprog, or the board's USB loader).
  const std::string icepack = find_tool("icepack");
  if (icepack.empty()) {
    r.bitstream_note = "icepack not found on PATH (Debian package fpga-icestorm)";
    return r;
  }
  const std::string pack = fmt::format("cd '{}' && '{}' board.asc board.bin > icepack.log 2>&1", s.dir(), icepack);
  rc = std::system(pack.c_str());
  code = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
  if (code != 0) {
    r.bitstream_note = fmt::format("icepack failed (exit {}): {}", code, why_failed(s.read("icepack.log")));
    while (!r.bitstream_note.empty() && r.bitstream_note.back() == '\n') r.bitstream_note.pop_back();
    return r;
  }
  r.bitstream = s.read("board.bin");
  if (r.bitstream.empty()) r.bitstream_note = "icepack wrote no bitstream";
  return r;
}

}  // namespace dg::hdlgen
