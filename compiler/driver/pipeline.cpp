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
#include "dgml/parser.h"
#include "sema/check.h"
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
bool stage_available(const std::string& s) { return s == "ast" || s == "problem"; }

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
  // Atomic: write a temporary file beside the target, then rename over it.
  std::string tmp = o.output + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f || !(f << text) || !f.flush()) {
      err << "deepgemm: error: cannot write '" << o.output << "': " << std::strerror(errno) << "\n";
      std::error_code ec;
      fs::remove(tmp, ec);
      return kExitUserError;
    }
  }
  std::error_code ec;
  fs::rename(tmp, o.output, ec);
  if (ec) {
    err << "deepgemm: error: cannot write '" << o.output << "': " << ec.message() << "\n";
    fs::remove(tmp, ec);
    return kExitUserError;
  }
  return 0;
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
  std::string emit = o.emit.empty() ? "problem" : o.emit;
  if (std::find(stages.begin(), stages.end(), emit) == stages.end()) {
    err << fmt::format("deepgemm: error: unknown stage '{}' for --emit; stages are {}\n", emit,
                       fmt::join(stages, ", "));
    return kExitUserError;
  }
  if (!stage_available(emit)) {
    err << fmt::format("deepgemm: error: --emit={} is not available in this version: the stages after 'problem' "
                       "are not implemented yet\n",
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

  std::ostringstream dump;
  dump << *problem;
  return write_output(o, dump.str(), out, err);
}

}  // namespace dg::driver
