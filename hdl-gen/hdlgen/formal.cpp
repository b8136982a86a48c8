#include "hdlgen/formal.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "hdlgen/tool_run.h"

namespace dg::hdlgen {

bool FormalReport::all_proved() const {
  if (!error.empty() || modules.empty()) return false;
  for (const auto& m : modules)
    if (!m.result.all_proved()) return false;
  return true;
}

FormalReport prove(const Design& d, int max_k) {
  FormalReport r;
  if (find_yosys().empty()) {
    r.error = "yosys not found on PATH (toolchain/bootstrap.sh installs it)";
    return r;
  }
  Scratch s(d);
  r.modules.resize(d.formal_tops.size());
  // One module per thread (each check has its own Z3 context), as many at once as there are cores.
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < d.formal_tops.size(); i = next++) {
      const std::string& top = d.formal_tops[i];
      auto t0 = std::chrono::steady_clock::now();
      ModuleProof& mp = r.modules[i];
      mp.module = top;
      std::string chparam;
      if (auto it = d.formal_params.find(top); it != d.formal_params.end())
        for (const auto& [name, value] : it->second) {
          chparam += fmt::format("chparam -set {} {} {}\n", name, value, top);
          mp.params += fmt::format("{}{}={}", mp.params.empty() ? "" : ", ", name, value);
        }
      auto script = [&](const std::string& files) {
        return fmt::format("read_verilog -sv -formal -DFORMAL {}\n{}prep -flatten -top {}\n"
                           "async2sync\ndffunmap\nwrite_smt2 -wires {}.smt2\n",
                           files, chparam, top, top);
      };
      // One module per file: the module's own file is enough unless it instantiates others, and
      // Yosys reads one file in a fraction of the time it takes for all. Where that is refused
      // (a module it does not find), every file of the design. The hierarchy is flattened: the
      // assertions of instances are checked as the top's own.
      const bool own_file = std::any_of(d.files.begin(), d.files.end(),
                                        [&](const VerilogFile& f) { return f.name == top + ".v"; });
      std::string log;
      if ((!own_file || s.yosys(script(top + ".v"), log) != 0) && s.yosys(script(s.file_list()), log) != 0) {
        mp.result.error = "yosys could not prepare the module for proof";
        mp.log = log;
      } else {
        mp.result = smt::prove_by_induction(s.read(top + ".smt2"), top, max_k);
      }
      mp.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
  };
  unsigned n = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), d.formal_tops.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < n; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  return r;
}

std::string report_text(const FormalReport& r) {
  if (!r.error.empty()) return "formal: " + r.error + "\n";
  std::string out;
  for (const auto& m : r.modules) {
    out += fmt::format("{}{}: {} ({:.0f} ms)\n", m.module, m.params.empty() ? "" : " (" + m.params + ")",
                       m.result.all_proved() ? "all properties proved" : "NOT PROVED", m.ms);
    if (!m.result.error.empty()) out += "  " + m.result.error + "\n" + m.log;
    // Assertions proved together share one detail and one time: say it once for the module.
    bool joint = !m.result.properties.empty();
    for (const auto& p : m.result.properties)
      joint = joint && p.proved && p.detail == m.result.properties.front().detail &&
              p.detail.find("in one query per step") != std::string::npos;
    if (joint) {
      out += fmt::format("  {} ({:.1f} ms):\n", m.result.properties.front().detail, m.result.properties.front().ms);
      for (const auto& p : m.result.properties) out += fmt::format("  proved   {}\n", p.location);
      continue;
    }
    for (const auto& p : m.result.properties)
      out += fmt::format("  {:<7} {:>8.1f} ms  {}  {}\n", p.proved ? "proved" : "FAILED", p.ms, p.location, p.detail);
  }
  return out;
}

}  // namespace dg::hdlgen
