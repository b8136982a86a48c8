#include "hdlgen/synth.h"

#include <fmt/format.h>

#include <chrono>
#include <regex>

#include "hdlgen/tool_run.h"

namespace dg::hdlgen {

namespace {

long count(const std::string& log, const std::string& cell) {
  // The last `stat` table: "     SB_LUT4                       123"
  std::regex re("\\n\\s+" + cell + "\\s+(\\d+)");
  long v = 0;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), re); it != std::sregex_iterator(); ++it)
    v = std::stol((*it)[1]);
  return v;
}

}  // namespace

std::string SynthReport::text() const {
  if (!ran) return "synthesis: " + error + "\n";
  return fmt::format(
      "yosys synth: {} cells\nyosys synth_ice40 (iCE40 UP5K family): {} LUT4, {} flip-flops, {} carry cells, {} "
      "block RAMs\n",
      cells, luts, ffs, carries, brams);
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
  std::smatch m;
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
  for (const char* ff : {"SB_DFF", "SB_DFFE", "SB_DFFR", "SB_DFFER", "SB_DFFS", "SB_DFFES", "SB_DFFSR", "SB_DFFESR", "SB_DFFSS",
                         "SB_DFFESS"})
    r.ffs += count(log, ff);
  r.ran = true;
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace dg::hdlgen
