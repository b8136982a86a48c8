#include "hdlgen/formal.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <map>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>
#include <sodium.h>

#include <filesystem>

#include "hdlgen/tool_run.h"
#include "smt/smt.h"
#include "support/files.h"

namespace dg::hdlgen {

namespace {

/// The assertion's own place in Yosys's location: in a flattened hierarchy the location lists the
/// instance's place, then the assertion's, "top.v:57.3-67.4|checker.v:337.22-338.34".
std::string innermost(const std::string& location) { return location.substr(location.rfind('|') + 1); }

/// The assertion's line in Yosys's location "file.v:L1.C1-L2.C2": L2, where the statement ends
/// (L1.C1 is where the statement before it ended). 0 when there is none.
int end_line(const std::string& location) {
  const std::string l = innermost(location);
  auto dash = l.rfind('-');
  return dash == std::string::npos ? 0 : std::atoi(l.c_str() + dash + 1);
}

std::string file_of(const std::string& location) {
  const std::string l = innermost(location);
  return l.substr(0, l.find(':'));
}

/// Each file of the design as lines, to quote assert statements from.
using Lines = std::map<std::string, std::vector<std::string>>;

Lines lines_of(const Design& d) {
  Lines out;
  for (const auto& f : d.files) {
    auto& v = out[f.name];
    std::size_t at = 0;
    while (at <= f.text.size()) {
      std::size_t nl = f.text.find('\n', at);
      if (nl == std::string::npos) nl = f.text.size();
      v.push_back(f.text.substr(at, nl - at));
      at = nl + 1;
    }
  }
  return out;
}

/// The assert statement at `location`, on one line, at most 100 characters ("" if none).
std::string statement_at(const Lines& files, const std::string& location) {
  const int end = end_line(location);
  auto it = files.find(file_of(location));
  if (it == files.end() || end < 1 || static_cast<int>(it->second.size()) < end) return "";
  const auto& lines = it->second;
  // Back from the last line to the one where the statement begins.
  int first = end;
  while (first > 1 && first > end - 4 && lines[first - 1].find("assert") == std::string::npos) --first;
  std::string text;
  for (int i = first; i <= end; ++i) {
    std::string l = lines[i - 1];
    if (auto c = l.find("//"); c != std::string::npos) l = l.substr(0, c);
    std::size_t a = l.find_first_not_of(" \t"), b = l.find_last_not_of(" \t");
    if (a == std::string::npos) continue;
    text += (text.empty() ? "" : " ") + l.substr(a, b - a + 1);
  }
  if (auto a = text.find("assert"); a != std::string::npos) text = text.substr(a);
  if (text.size() > 100) text = text.substr(0, 97) + "...";
  return text;
}

// ---- the files a module's proof reads ----

std::vector<const VerilogFile*> all_files(const Design& d) {
  std::vector<const VerilogFile*> out;
  for (const auto& f : d.files) out.push_back(&f);
  return out;
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

/// Whether `text` holds `word` as a whole identifier.
bool names(const std::string& text, const std::string& word) {
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool before = at > 0 && is_word_char(text[at - 1]);
    const bool after = at + word.size() < text.size() && is_word_char(text[at + word.size()]);
    if (!before && !after) return true;
  }
  return false;
}

/// The file that defines module `top` (`top`.v, one module per file) and every file defining a
/// module it names, transitively, in the design's order; empty when `top` has no file of its own.
/// Naming a module counts whether or not it is instantiated (a mention in a comment adds a file
/// Yosys reads needlessly, never one it misses).
std::vector<const VerilogFile*> needed_files(const Design& d, const std::string& top) {
  std::vector<std::string> module_of;  // per file: the module it defines (its name less ".v")
  std::size_t root = d.files.size();
  for (std::size_t i = 0; i < d.files.size(); ++i) {
    const std::string& n = d.files[i].name;
    module_of.push_back(n.size() > 2 && n.compare(n.size() - 2, 2, ".v") == 0 ? n.substr(0, n.size() - 2) : "");
    if (n == top + ".v") root = i;
  }
  if (root == d.files.size()) return {};
  std::vector<bool> in(d.files.size(), false);
  std::vector<std::size_t> todo = {root};
  in[root] = true;
  while (!todo.empty()) {
    const std::size_t f = todo.back();
    todo.pop_back();
    for (std::size_t g = 0; g < d.files.size(); ++g)
      if (!in[g] && !module_of[g].empty() && names(d.files[f].text, module_of[g])) {
        in[g] = true;
        todo.push_back(g);
      }
  }
  std::vector<const VerilogFile*> out;
  for (std::size_t i = 0; i < d.files.size(); ++i)
    if (in[i]) out.push_back(&d.files[i]);
  return out;
}

// ---- the proof cache (prove's cache_dir) ----

constexpr const char* kProofFormat = "deepgemm-proof-1";
constexpr std::uint64_t kMaxProofEntryBytes = 4u << 20;

/// BLAKE2b-256 (libsodium's crypto_generichash) of everything the prover's answer depends on, as
/// lowercase hex: the tools' versions, the proof's bounds, and Yosys's input (its script and the
/// text of every file it reads), from which its SMT-LIB2 output follows.
std::string proof_key(const std::string& tools, const std::string& script, const std::vector<const VerilogFile*>& files,
                      int max_k, std::uint64_t check_work, std::uint64_t budget_work) {
  crypto_generichash_state st;
  unsigned char out[32];
  crypto_generichash_init(&st, nullptr, 0, sizeof out);
  auto add = [&](const std::string& part) {
    const std::string len = fmt::format("{}:", part.size());  // length-prefixed: boundaries matter
    crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(len.data()), len.size());
    crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(part.data()), part.size());
  };
  add(kProofFormat);
  add(tools);
  add(fmt::format("{} {} {}", max_k, check_work, budget_work));
  add(script);
  for (const VerilogFile* f : files) {
    add(f->name);
    add(f->text);
  }
  crypto_generichash_final(&st, out, sizeof out);
  std::string hex;
  for (unsigned char c : out) hex += fmt::format("{:02x}", c);
  return hex;
}

std::string proof_path(const std::string& dir, const std::string& key) {
  return (std::filesystem::path(dir) / (key + ".json")).string();
}

/// The stored result for `key`, if there is a usable one: a complete proof under this key.
std::optional<formal::InductionResult> load_proof(const std::string& dir, const std::string& key) {
  std::string text, why;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(proof_path(dir, key), ec)) return std::nullopt;
  if (!read_file_bounded(proof_path(dir, key), kMaxProofEntryBytes, text, why)) return std::nullopt;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (j.at("format").get<std::string>() != kProofFormat || j.at("key").get<std::string>() != key) return std::nullopt;
    formal::InductionResult r;
    for (const auto& p : j.at("properties")) {
      formal::PropertyResult pr;
      pr.name = p.at("name").get<std::string>();
      pr.location = p.at("location").get<std::string>();
      pr.proved = p.at("proved").get<bool>();
      pr.depth = p.at("depth").get<int>();
      pr.detail = p.at("detail").get<std::string>();
      pr.ms = p.at("ms").get<double>();
      pr.work = p.at("work").get<std::uint64_t>();
      r.properties.push_back(std::move(pr));
    }
    if (!r.all_proved()) return std::nullopt;
    return r;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

/// Store a complete proof under `key` (a failure to store costs only the reuse).
void store_proof(const std::string& dir, const std::string& key, const formal::InductionResult& r) {
  if (!r.all_proved()) return;
  nlohmann::json props = nlohmann::json::array();
  for (const auto& p : r.properties)
    props.push_back({{"name", p.name},
                     {"location", p.location},
                     {"proved", p.proved},
                     {"depth", p.depth},
                     {"detail", p.detail},
                     {"ms", p.ms},
                     {"work", p.work}});
  const nlohmann::json j = {{"format", kProofFormat}, {"key", key}, {"properties", props}};
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string why;
  if (!ec) write_output_file(proof_path(dir, key), j.dump(1) + "\n", {}, why);
}

}  // namespace

bool FormalReport::all_proved() const {
  if (!error.empty() || modules.empty()) return false;
  for (const auto& m : modules)
    if (!m.result.all_proved()) return false;
  return true;
}

FormalReport prove(const Design& d, int max_k, std::uint64_t budget_work, const std::string& cache_dir) {
  FormalReport r;
  if (find_yosys().empty()) {
    r.error = "yosys not found on PATH (toolchain/bootstrap.sh installs it)";
    return r;
  }
  if (!cache_dir.empty() && sodium_init() < 0) r.error = "libsodium could not be initialized (the proof cache's hash)";
  if (!r.error.empty()) return r;
  Scratch s(d);
  const Lines lines = lines_of(d);
  // The proof cache's key names the tools: Yosys's banner line and Z3's version.
  std::string tools;
  if (!cache_dir.empty()) {
    std::string banner;
    s.yosys("", banner);
    const auto at = banner.find("Yosys ");
    tools = (at == std::string::npos ? std::string("yosys ?") : banner.substr(at, banner.find('\n', at) - at)) +
            " / z3 " + smt::z3_version();
  }
  r.modules.resize(d.formal_tops.size());
  // One module per thread (each check has its own Z3 context), as many at once as there are cores.
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < d.formal_tops.size(); i = next++) {
      const std::string& top = d.formal_tops[i];
      auto t0 = std::chrono::steady_clock::now();
      ModuleProof& mp = r.modules[i];
      mp.module = top;
      if (auto it = d.formal_notes.find(top); it != d.formal_notes.end()) mp.note = it->second;
      std::string chparam;
      if (auto it = d.formal_params.find(top); it != d.formal_params.end())
        for (const auto& [name, value] : it->second) {
          chparam += fmt::format("chparam -set {} {} {}\n", name, value, top);
          mp.params += fmt::format("{}{}={}", mp.params.empty() ? "" : ", ", name, value);
        }
      auto script = [&](const std::string& files) {
        // (A top with set parameters that instantiates others comes out of prep as a derived
        // module, $paramod/...: renamed back, so that the proof finds it by its name.)
        return fmt::format(
            "read_verilog -sv -formal -DFORMAL {}\n{}prep -flatten -top {}\nrename -top {}\n"
            "async2sync\ndffunmap\nwrite_smt2 -wires {}.smt2\n",
            files, chparam, top, top, top);
      };
      // Yosys reads the files the module needs: its own, and those of the modules it names,
      // transitively (needed_files; a fraction of the time all take, and the same input whatever
      // else the design holds). Where that is refused (a module it does not find), every file of
      // the design. The hierarchy is flattened: the assertions of instances are checked as the
      // top's own.
      const std::vector<const VerilogFile*> need = needed_files(d, top), all = all_files(d);
      std::string need_list;
      for (const VerilogFile* f : need) need_list += (need_list.empty() ? "" : " ") + f->name;
      // The cache's keys of the two ways Yosys reads the module.
      std::string need_key, all_key;
      if (!cache_dir.empty()) {
        if (!need.empty()) need_key = proof_key(tools, script(need_list), need, max_k, budget_work / 2, budget_work);
        all_key = proof_key(tools, script(s.file_list()), all, max_k, budget_work / 2, budget_work);
      }
      std::optional<formal::InductionResult> hit;
      if (!need_key.empty()) hit = load_proof(cache_dir, need_key);
      if (!hit && !all_key.empty()) hit = load_proof(cache_dir, all_key);
      std::string log;
      if (hit) {
        mp.result = std::move(*hit);
        mp.reused = true;
      } else if (!need.empty() && s.yosys(script(need_list), log) == 0) {
        mp.result = formal::prove_by_induction(s.read(top + ".smt2"), top, max_k, budget_work / 2, budget_work);
        if (!need_key.empty()) store_proof(cache_dir, need_key, mp.result);
      } else if (s.yosys(script(s.file_list()), log) == 0) {
        mp.result = formal::prove_by_induction(s.read(top + ".smt2"), top, max_k, budget_work / 2, budget_work);
        if (!all_key.empty()) store_proof(cache_dir, all_key, mp.result);
      } else {
        mp.result.error = "yosys could not prepare the module for proof";
        mp.log = log;
      }
      for (const auto& p : mp.result.properties) mp.statements.push_back(statement_at(lines, p.location));
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
    // Solver work: a joint query's figure is each property's; else the properties' sum.
    std::uint64_t work = 0;
    for (const auto& p : m.result.properties)
      work = p.detail.find("in one query per step") != std::string::npos ? p.work : work + p.work;
    if (m.reused) {
      // The proof found earlier for the same SMT-LIB2 input: its own time and work.
      double proved_ms = 0;
      for (const auto& p : m.result.properties)
        proved_ms = p.detail.find("in one query per step") != std::string::npos ? p.ms : proved_ms + p.ms;
      out += fmt::format(
          "{}{}: all properties proved (reused from the proof cache: the same Verilog, parameters and tools; proved in "
          "{:.0f} ms "
          "of solving, solver work {:.1f} M; {:.0f} ms now)\n",
          m.module, m.params.empty() ? "" : " (" + m.params + ")", proved_ms, work / 1e6, m.ms);
    } else {
      out += fmt::format("{}{}: {} ({:.0f} ms, solver work {:.1f} M)\n", m.module,
                         m.params.empty() ? "" : " (" + m.params + ")",
                         m.result.all_proved() ? "all properties proved" : "NOT PROVED", m.ms, work / 1e6);
    }
    if (!m.note.empty()) out += "  note: " + m.note + "\n";
    if (!m.result.error.empty()) out += "  " + m.result.error + "\n" + m.log;
    // Assertions proved together share one detail and one time: say it once for the module.
    bool joint = !m.result.properties.empty();
    for (const auto& p : m.result.properties)
      joint = joint && p.proved && p.detail == m.result.properties.front().detail &&
              p.detail.find("in one query per step") != std::string::npos;
    auto where = [&](std::size_t i) {
      const auto& p = m.result.properties[i];
      const int line = end_line(p.location);
      std::string w = line ? fmt::format("{}:{}", file_of(p.location), line) : p.location;
      if (i < m.statements.size() && !m.statements[i].empty()) w += "  " + m.statements[i];
      return w;
    };
    if (joint) {
      out += fmt::format("  {} ({:.1f} ms):\n", m.result.properties.front().detail, m.result.properties.front().ms);
      for (std::size_t i = 0; i < m.result.properties.size(); ++i) out += fmt::format("  proved    {}\n", where(i));
      continue;
    }
    // FAILED: the assertion fails, or is not inductive, by itself; unproved: only for another's sake.
    for (std::size_t i = 0; i < m.result.properties.size(); ++i) {
      const auto& p = m.result.properties[i];
      const bool others = p.detail.find("another assertion") != std::string::npos ||
                          p.detail.find("an unproved assertion") != std::string::npos;
      const char* verdict = p.proved ? "proved" : others ? "unproved" : "FAILED";
      out += fmt::format("  {:<8} {:>8.1f} ms  {}\n", verdict, p.ms, where(i));
      out += fmt::format("{:24}{}\n", "", p.detail);
    }
  }
  return out;
}

}  // namespace dg::hdlgen
