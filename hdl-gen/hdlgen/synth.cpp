#include "hdlgen/synth.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
  for (const char* ff : {"SB_DFF", "SB_DFFE", "SB_DFFR", "SB_DFFER", "SB_DFFS", "SB_DFFES", "SB_DFFSR", "SB_DFFESR", "SB_DFFSS",
                         "SB_DFFESS"})
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
  long dsp_cells = 0;
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
    if (kind == "ICESTORM_LC") r.logic_cells = x, any = true;
    else if (kind == "ICESTORM_RAM") r.brams = x;
    else if (kind == "ICESTORM_SPRAM") r.sprams = x;
    else if (kind == "ICESTORM_DSP") r.dsps = x;
    else if (kind == "SB_IO") r.ios = x;
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
      board, device, top, top, luts, ffs, carries, dsp_text(), res_text(logic_cells), res_text(brams),
      res_text(sprams), res_text(dsps), res_text(ios), fmax_mhz, target_mhz, meets_timing() ? "met" : "NOT met",
      bitstream.empty() ? "none: " + bitstream_note
                        : fmt::format("{} bytes (icepack), in the module's bitstream section", bitstream.size()));
}

std::string BoardReport::dsp_text() const {
  if (dsps_wanted == 0) return "no multipliers for the DSPs";
  if (dsp_mapped && dsp_pairs) return fmt::format("{} multipliers in {} DSPs (two 8x8 per SB_MAC16)", 2 * dsps_wanted, dsps_wanted);
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

std::string SynthReport::text() const {
  if (!ran) return "synthesis: " + error + "\n" + board.text();
  return fmt::format(
             "yosys synth: {} cells\nyosys synth_ice40 (iCE40 UP5K family): {} LUT4, {} flip-flops, {} carry cells, {} "
             "block RAMs\n",
             cells, luts, ffs, carries, brams) +
         board.text();
}

SynthReport synthesize(const Design& d) {
  SynthReport r;
  auto t0 = std::chrono::steady_clock::now();
  if (find_yosys().empty()) {
    r.error = "yosys not found on PATH";
    return r;
  }
  Scratch s(d);
  std::string log;
  const std::string read = fmt::format("read_verilog -sv {}\n", s.file_list());
  if (s.yosys(read + fmt::format("synth -top {}\nstat\n", d.top), log) != 0) {
    r.error = "yosys synth failed:\n" + log;
    return r;
  }
  std::regex cells("Number of cells:\\s+(\\d+)");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), cells); it != std::sregex_iterator(); ++it)
    r.cells = std::stol((*it)[1]);
  if (s.yosys(read + fmt::format("synth_ice40 -top {}\nstat\n", d.top), log) != 0) {
    r.error = "yosys synth_ice40 failed:\n" + log;
    return r;
  }
  r.luts = count(log, "SB_LUT4");
  r.carries = count(log, "SB_CARRY");
  r.brams = count(log, "SB_RAM40_4K");
  r.ffs = count_ffs(log);
  r.ran = true;
  r.ms = since(t0);
  return r;
}

SynthReport synthesize(const Design& d, const hw::HwModel& hw) {
  SynthReport r = synthesize(d);
  if (hw.is_npu() && !hw.npu.board.empty()) {
    auto t0 = std::chrono::steady_clock::now();
    r.board = place_and_route(d, hw.npu.board, hw.npu.bus_data_bits, hw.npu.mmio_base);
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
    r.error = fmt::format("boards/{}: family '{}' has no place-and-route flow here (nextpnr-ice40 only)", name, b.family);
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

  // Synthesis of the board top with the design under it; the top's register base from the model.
  // Multipliers go to the DSPs: first two PEs per SB_MAC16 in its dual 8x8 mode (the MAC array's
  // DG_ICE40_DSP path, inputs of at most 8 bits), else one per DSP (synth_ice40 -dsp), unless the
  // design needs more DSPs than the device has; then they stay in logic.
  std::string log;
  auto synth = [&](bool pairs, bool dsp) {
    return s.yosys(fmt::format("read_verilog -sv -D{}={}{} {}{}\nchparam -set {} {} {}\nsynth_ice40 {}-top {} -json "
                               "board.json\nstat\n",
                               b.npu_top_define, d.top, pairs ? " -DDG_ICE40_DSP" : "", s.file_list(), board_list,
                               b.mmio_base_parameter, mmio_base, b.top, dsp ? "-dsp " : "", b.top),
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
    const std::pair<const char*, const Resource*> kinds[] = {
        {"logic cells", &r.logic_cells}, {"block RAMs", &r.brams}, {"SPRAMs", &r.sprams}, {"DSPs", &r.dsps}, {"I/Os", &r.ios}};
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
