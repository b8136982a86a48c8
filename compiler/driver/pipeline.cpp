#include "driver/pipeline.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dgml/diag.h"
#include "driver/cache.h"
#include "module/writer.h"
#include "verify/verify.h"
#include "dgml/parser.h"
#include "plan/plan.h"
#include "sema/check.h"
#include "solve/solve.h"
#include "support/error.h"

namespace dg::driver {

namespace fs = std::filesystem;

const std::vector<std::string>& emit_stages() {
  static const std::vector<std::string> stages = {"ast", "problem", "space", "plan", "proof",
                                                  "llvm", "ptx", "verilog", "module"};
  return stages;
}

namespace {

/// Stages that exist in this build; the rest are refused with a clear message.
bool stage_available(const std::string& s) {
  return s == "ast" || s == "problem" || s == "space" || s == "plan" || s == "proof" || s == "module";
}

class Narrator {
 public:
  Narrator(bool verbose, std::ostream& err) : verbose_(verbose || std::getenv("DEEPGEMM_TIME_PASSES")), err_(err) {}
  void info(const std::string& msg) {
    if (verbose_) err_ << "[INFO] " << msg << "\n";
  }
  void start() { t0_ = std::chrono::steady_clock::now(); }
  double ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
  }

 private:
  bool verbose_;
  std::ostream& err_;
  std::chrono::steady_clock::time_point t0_;
};

bool read_file(const std::string& path, std::string& text, std::string& why) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    why = "is a directory";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = std::strerror(errno);
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return true;
}

int write_output(const CompileOptions& o, const std::string& text, std::ostream& out, std::ostream& err) {
  if (o.output.empty()) {
    out << text;
    return 0;
  }
  std::string why;
  if (!write_file_atomic(o.output, text, why)) {
    err << "deepgemm: error: cannot write '" << o.output << "': " << why << "\n";
    return kExitUserError;
  }
  return 0;
}

std::string module_path(const CompileOptions& o) {
  if (!o.output.empty()) return o.output;
  return fs::path(o.input).stem().string() + ".ko";
}

std::string size_text(size_t bytes) {
  return bytes < 1024 ? fmt::format("{} B", bytes) : fmt::format("{:.1f}KB", bytes / 1024.0);
}

}  // namespace

std::string find_hw_dir(const std::string& flag_value, const char* argv0) {
  if (!flag_value.empty()) return flag_value;
  if (const char* env = std::getenv("DEEPGEMM_HW_MODELS"); env && *env) return env;
  std::error_code ec;
  fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (ec && argv0) exe = fs::absolute(argv0, ec);
  if (!exe.empty()) {
    fs::path installed = exe.parent_path().parent_path() / "share" / "deepgemm" / "hw-models";
    if (fs::is_directory(installed, ec)) return installed.string();
  }
#ifdef DEEPGEMM_SOURCE_HW_MODELS
  return DEEPGEMM_SOURCE_HW_MODELS;
#else
  return "hw-models";
#endif
}

int compile(const CompileOptions& o, std::ostream& out, std::ostream& err) {
  const auto& stages = emit_stages();
  std::string emit = o.emit.empty() ? "module" : o.emit;
  if (std::find(stages.begin(), stages.end(), emit) == stages.end()) {
    err << fmt::format("deepgemm: error: unknown stage '{}' for --emit; stages are {}\n", emit,
                       fmt::join(stages, ", "));
    return kExitUserError;
  }
  if (!stage_available(emit)) {
    err << fmt::format("deepgemm: error: --emit={} is not available in this version: the backend stages "
                       "(the GPU and NPU backends) are not implemented yet\n",
                       emit);
    return kExitUserError;
  }

  Narrator say(o.verbose, err);
  std::string text, why;
  if (!read_file(o.input, text, why)) {
    err << fmt::format("deepgemm: error: cannot read '{}': {}\n", o.input, why);
    return kExitUserError;
  }
  DiagEngine diags;
  diags.add_source(o.input, text);

  say.start();
  say.info(fmt::format("Parsing {}...", o.input));
  ast::Spec spec = dgml::parse(o.input, text, diags);
  say.info(fmt::format("Parsed {} blocks ({:.2f} ms)", spec.blocks.size(), say.ms()));
  if (diags.has_errors() || emit == "ast") {
    diags.print(err);
    if (diags.has_errors()) return kExitUserError;
    std::ostringstream dump;
    ast::dump(dump, spec);
    return write_output(o, dump.str(), out, err);
  }

  say.start();
  say.info(fmt::format("Loading hardware model for {}...", spec.target.empty() ? "(none)" : spec.target));
  std::optional<GemmProblem> problem = sema::check(spec, o.hw_dir, diags);
  diags.print(err);
  if (!problem) return kExitUserError;
  say.info(fmt::format("Checked the spec against {} ({:.2f} ms)", problem->hw.name, say.ms()));

  if (emit == "problem") {
    std::ostringstream dump;
    dump << *problem;
    return write_output(o, dump.str(), out, err);
  }

  // The module cache: a hit skips solving and proving.
  std::string key, cdir = cache_dir();
  bool use_cache = emit == "module" && !cdir.empty();
  if (use_cache) {
    std::string model_text, why;
    read_file(problem->hw.file, model_text, why);
    key = cache_key({DEEPGEMM_VERSION_STRING, text, model_text});
    if (!o.force_rebuild) {
      auto hit = cache_lookup(cdir, key, why);
      if (hit) {
        say.info(fmt::format("Cache hit ({}/{}.ko)", cdir, key));
        std::string path = module_path(o);
        if (!write_file_atomic(path, std::string(hit->begin(), hit->end()), why)) {
          err << fmt::format("deepgemm: error: cannot write '{}': {}\n", path, why);
          return kExitUserError;
        }
        if (o.verbose) err << fmt::format("[SUCCESS] Kernel compiled to {} (size: {}, cached)\n", path, size_text(hit->size()));
        return 0;
      }
      if (why != "absent") say.info("Cache: " + why);
    }
  }

  say.start();
  say.info("Enumerating tile candidates (M×N×K) and solving the schedule constraints...");
  solve::Result solved = solve::solve(*problem);
  say.info(fmt::format("Space: {} schedule variables, {} points, {} rules", solved.space.vars.size(),
                       solved.space.size(), solved.rules.size()));
  if (emit == "space") {
    std::ostringstream dump;
    solve::dump_space(dump, solved);
    return write_output(o, dump.str(), out, err);
  }
  if (!solved.plan) {
    DiagEngine why;  // the sema notes above were printed already
    why.add_source(o.input, text);
    solve::explain(solved, *problem, why);
    why.print(err);
    return kExitUserError;
  }
  const Plan& plan = *solved.plan;
  say.info(fmt::format("Found {} valid tile candidates (M×N×K); optimum {}×{}×{} ({} Z3 checks, {:.1f} ms)",
                       solved.feasible_tiles, plan.tile_m, plan.tile_n, plan.tile_k, solved.checks, say.ms()));
  say.info(fmt::format("Predicted {:.2f} us ({:.1f} TFLOP/s, {}-bound, l2_hit_rate={:.3f})", plan.predicted_us,
                       plan.predicted_tflops, plan.bound, plan.l2_hit_rate));
  if (emit == "plan") return write_output(o, dump_plan(plan), out, err);

  say.start();
  say.info("Verifying formal correctness via SMT solver...");
  verify::Certificate cert = verify::verify(plan);
  say.info(fmt::format("{} of {} checks proved ({:.1f} ms)", std::count_if(cert.checks.begin(), cert.checks.end(),
                                                                             [](const auto& c) { return c.passed; }),
                       cert.checks.size(), say.ms()));
  if (emit == "proof") {
    std::ostringstream dump;
    verify::dump(dump, cert);
    int rc = write_output(o, dump.str(), out, err);
    return rc != 0 ? rc : cert.all_passed() ? 0 : kExitUserError;
  }
  if (!cert.all_passed()) {
    for (const auto& c : cert.checks)
      if (!c.passed)
        err << fmt::format("{}: error: verification failed: {}: {}\n  counterexample: {}\n", o.input, c.name,
                           c.statement, c.counterexample);
    return kExitUserError;
  }

  module::ModuleContents contents;
  contents.target_kind = problem->hw.is_gpu() ? ko::TargetKind::Gpu : ko::TargetKind::Npu;
  contents.target_name = problem->hw.name;
  contents.sections.push_back(module::text_section(ko::SectionKind::Plan, dump_plan(plan)));
  contents.sections.push_back(module::text_section(ko::SectionKind::Proof, verify::to_json_text(cert)));
  std::vector<std::uint8_t> bytes = module::write(contents);
  std::string path = module_path(o);
  why.clear();
  if (!write_file_atomic(path, std::string(bytes.begin(), bytes.end()), why)) {
    err << fmt::format("deepgemm: error: cannot write '{}': {}\n", path, why);
    return kExitUserError;
  }
  if (use_cache && !cache_store(cdir, key, bytes, why)) say.info("Cache not written: " + why);
  if (o.verbose) err << fmt::format("[SUCCESS] Kernel compiled to {} (size: {})\n", path, size_text(bytes.size()));
  return 0;
}

}  // namespace dg::driver
