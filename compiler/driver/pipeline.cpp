#include "driver/pipeline.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <optional>
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
#include "codegen/launch_record.h"
#include "codegen/ptx_backend.h"
#include "hdlgen/formal.h"
#include "hdlgen/generate.h"
#include "hdlgen/regmap_binary.h"
#include "hdlgen/regs_export.h"
#include "hdlgen/synth.h"
#include <deepgemm/launch_format.h>
#include "module/sign.h"
#include "module/writer.h"
#include "verify/verify.h"
#include "dgml/parser.h"
#include "plan/plan.h"
#include "sema/check.h"
#include "sema/dtype.h"
#include "solve/solve.h"
#include "support/error.h"
#include "support/files.h"

namespace dg::driver {

namespace fs = std::filesystem;

namespace {

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

int write_output(const CompileOptions& o, const std::string& text, std::ostream& out, std::ostream& err,
                 const std::vector<std::string>& inputs) {
  if (o.output.empty()) {
    out << text;
    return 0;
  }
  std::string why;
  if (!write_output_file(o.output, text, inputs, why)) {
    err << "deepgemm: error: cannot write '" << o.output << "': " << why << "\n";
    return kExitUserError;
  }
  return 0;
}

std::string module_path(const CompileOptions& o) {
  if (!o.output.empty()) return o.output;
  return fs::path(o.input).stem().string() + ".ko";
}

/// Identifies this very compiler binary (size and modification time of the executable), so that
/// a rebuilt compiler never reuses modules of an older build with the same version number.
std::string compiler_build_id() {
  std::error_code ec;
  fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (ec) return "unknown";
  auto size = fs::file_size(exe, ec);
  auto time = fs::last_write_time(exe, ec).time_since_epoch().count();
  return fmt::format("{}:{}", size, time);
}

std::string size_text(size_t bytes) {
  return bytes < 1024 ? fmt::format("{} B", bytes) : fmt::format("{:.1f}KB", bytes / 1024.0);
}

/// The design name: the spec's file stem, with anything but letters, digits and '_' made '_'.
std::string design_name(const std::string& input) {
  std::string n = fs::path(input).stem().string();
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) n = "d" + n;
  return n;
}

/// --emit=verilog: the files into the directory -o names, or all of them to stdout.
int write_verilog(const CompileOptions& o, const hdlgen::Design& d, std::ostream& out, std::ostream& err,
                  const std::vector<std::string>& inputs) {
  if (o.output.empty() || o.output == kStdoutPath) {
    out << hdlgen::bundle(d);
    return 0;
  }
  // The Verilog, and beside it the register block: a C header, testbench macros, SystemRDL and
  // IP-XACT.
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& f : d.files) files.emplace_back(f.name, f.text);
  files.emplace_back(d.top + "_regs.h", hdlgen::regs_c_header(d));
  files.emplace_back(d.top + "_regs.svh", hdlgen::regs_svh(d));
  files.emplace_back(d.top + ".rdl", hdlgen::regs_systemrdl(d));
  files.emplace_back(d.top + ".xml", hdlgen::regs_ipxact(d));
  if (std::string why; !write_output_files(o.output, files, inputs, why)) {
    err << fmt::format("deepgemm: error: {} (the Verilog)\n", why);
    return kExitUserError;
  }
  return 0;
}

/// The solver gave up: a diagnostic that names the spec's free constraints, which alone can make
/// a query that hard.
int gave_up(const solve::GaveUp& e, const GemmProblem& p, const CompileOptions& o, const std::string& text,
            std::ostream& err) {
  DiagEngine d;
  d.add_source(o.input, text);
  d.error(Loc{o.input, 0, 0}, e.what());
  for (const auto& u : p.user_constraints)
    d.note(u.loc, fmt::format("the free constraint '{}' is part of every query; simplify or remove it", u.text));
  if (p.user_constraints.empty())
    d.note(Loc{o.input, 0, 0}, "the spec has no free constraints: please report this spec and its hardware model");
  d.print(err);
  return kExitUserError;
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

/// --bitstream: the module's FPGA bitstream section, written to `path`.
int write_bitstream(const CompileOptions& o, const std::vector<std::uint8_t>& module, std::ostream& err,
                    const std::vector<std::string>& inputs) {
  ko::ModuleView mv;
  if (ko::parse(module.data(), module.size(), &mv) != ko::Status::Ok) {
    err << fmt::format("deepgemm: error: the module is not valid: {}\n", mv.error());
    return kExitInternalError;
  }
  auto bits = mv.find(ko::SectionKind::Bitstream);
  if (!bits.present) {
    std::string reason = "its design was not placed and routed on the model's board";
    auto synth = mv.find(ko::SectionKind::Synth);
    if (synth.present) {
      const std::string report(reinterpret_cast<const char*>(synth.data), synth.size);
      for (const char* key : {"  bitstream: none: ", "place and route on "}) {
        const auto at = report.find(key);
        if (at == std::string::npos) continue;
        reason = report.substr(at + 2, report.find('\n', at) - at - 2);
        break;
      }
    }
    err << fmt::format("deepgemm: error: no bitstream for '{}': {}\n", o.input, reason);
    return kExitUserError;
  }
  std::string why;
  if (!write_output_file(o.bitstream, std::string(reinterpret_cast<const char*>(bits.data), bits.size), inputs, why)) {
    err << fmt::format("deepgemm: error: cannot write '{}': {}\n", o.bitstream, why);
    return kExitUserError;
  }
  if (o.verbose) err << fmt::format("[INFO] Bitstream written to {} ({} bytes)\n", o.bitstream, bits.size);
  return 0;
}

namespace {

/// What the stages of one compile share: each stage fills its part, the ones after it read it.
struct Run {
  Run(const CompileOptions& opts, std::ostream& o, std::ostream& e, std::string stop)
      : o(opts), out(o), err(e), emit(std::move(stop)), say(opts.verbose, e) {}
  const CompileOptions& o;
  std::ostream& out;
  std::ostream& err;
  const std::string emit;           // the stage after which to stop ("module": the whole pipeline)
  std::vector<std::string> inputs;  // never overwritten by an output: spec, signing key, model
  Narrator say;
  std::string text;  // the spec
  DiagEngine diags;
  ast::Spec spec;
  std::optional<GemmProblem> problem;
  ko::TargetKind target_kind = ko::TargetKind::Gpu;
  std::string key, cdir;  // the module cache
  bool use_cache = false;
  solve::Options sopts;
  solve::Result solved;
  verify::Certificate cert;
  std::optional<codegen::Artifacts> gpu;
  std::optional<hdlgen::Design> hdl;
  hdlgen::FormalReport formal;
  hdlgen::SynthReport synth;
};

/// A stage's verdict: nothing to go on, or the exit code to stop with.
using Verdict = std::optional<int>;

/// The spec's text, parsed.
Verdict parse_spec(Run& r) {
  r.diags.add_source(r.o.input, r.text);
  r.say.start();
  r.say.info(fmt::format("Parsing {}...", r.o.input));
  r.spec = dgml::parse(r.o.input, r.text, r.diags);
  r.say.info(fmt::format("Parsed {} blocks ({:.2f} ms)", r.spec.blocks.size(), r.say.ms()));
  if (r.diags.has_errors() || r.emit == "ast") {
    r.diags.print(r.err);
    if (r.diags.has_errors()) return kExitUserError;
  }
  return std::nullopt;
}

std::string dump_ast(const Run& r) {
  std::ostringstream dump;
  ast::dump(dump, r.spec);
  return dump.str();
}

/// The spec checked against its hardware model: the problem.
Verdict check_spec(Run& r) {
  r.say.start();
  r.say.info(fmt::format("Loading hardware model for {}...", r.spec.target.empty() ? "(none)" : r.spec.target));
  r.problem = sema::check(r.spec, r.o.hw_dir, r.diags);
  r.diags.print(r.err);
  if (!r.problem) return kExitUserError;
  r.inputs.push_back(r.problem->hw.file);
  r.target_kind = r.problem->hw.is_gpu() ? ko::TargetKind::Gpu : ko::TargetKind::Npu;
  r.say.info(fmt::format("Checked the spec against {} ({:.2f} ms)", r.problem->hw.name, r.say.ms()));
  return std::nullopt;
}

std::string dump_problem(const Run& r) {
  std::ostringstream dump;
  dump << *r.problem;
  return dump.str();
}

/// The module cache: a hit is the module, and skips the stages after.
Verdict look_up_cache(Run& r) {
  r.cdir = cache_dir();
  r.use_cache = r.emit == "module" && !r.cdir.empty() && r.o.from_plan.empty();
  if (!r.use_cache) return std::nullopt;
  std::string model_text, why;
  read_file_bounded(r.problem->hw.file, kMaxHwModelBytes, model_text, why);
  r.key = cache_key({DEEPGEMM_VERSION_STRING, compiler_build_id(), r.text, model_text,
                     r.o.synth ? fmt::format("synth {}", fmt::join(r.o.fpga, ",")) : ""});
  if (r.o.force_rebuild) return std::nullopt;
  auto hit = cache_lookup(r.cdir, r.key, r.target_kind, r.problem->hw.name, why);
  if (!hit) {
    if (why != "absent") r.say.info("Cache: " + why);
    return std::nullopt;
  }
  r.say.info(fmt::format("Cache hit ({}/{}.ko)", r.cdir, r.key));
  std::string path = module_path(r.o);
  if (!r.o.sign_key.empty()) *hit = module::sign_bytes(*hit, r.o.sign_key);
  if (!write_output_file(path, std::string(hit->begin(), hit->end()), r.inputs, why)) {
    r.err << fmt::format("deepgemm: error: cannot write '{}': {}\n", path, why);
    return kExitUserError;
  }
  if (r.o.verbose)
    r.err << fmt::format("[SUCCESS] Kernel compiled to {} (size: {}, cached)\n", path, size_text(hit->size()));
  return r.o.bitstream.empty() ? 0 : write_bitstream(r.o, *hit, r.err, r.inputs);
}

/// The schedule space and the solver's answer in it.
/// --from-plan: the saved plan, read and checked to be a plan of the spec; its schedule becomes the
/// solver's only candidate (each value a rule of its own, so a plan breaking a rule is explained).
/// A saved plan of the spec (--from-plan, --exclude-plan), read and checked; false (the error
/// written) when it is not one.
bool read_saved_plan(Run& r, const std::string& path, Plan& saved) {
  std::string text, why;
  if (!read_file_bounded(path, kMaxPlanBytes, text, why)) {
    r.err << fmt::format("deepgemm: error: cannot read '{}': {}\n", path, why);
    return false;
  }
  try {
    saved = plan_from_json(nlohmann::json::parse(text));
  } catch (const nlohmann::json::exception& e) {
    r.err << fmt::format("{}: error: not a plan (JSON): {}\n", path, e.what());
    return false;
  } catch (const UserError& e) {
    r.err << fmt::format("{}: error: not a plan: {}\n", path, e.what());
    return false;
  }
  if (std::string diff = solve::plan_mismatch(saved, *r.problem); !diff.empty()) {
    r.err << fmt::format("{}: error: not a plan of {}: {}\n", path, r.o.input, diff);
    return false;
  }
  return true;
}

Verdict hold_to_saved_plan(Run& r) {
  Plan saved;
  if (!read_saved_plan(r, r.o.from_plan, saved)) return kExitUserError;
  // The 4-bit weight kernel's schedule is not searched (read_saved_plan checked it is the one the
  // spec gets); any other plan's schedule becomes the solver's only candidate.
  if (saved.loader != "registers") r.sopts.fixed = solve::schedule_of(saved);
  r.sopts.fixed_from = fmt::format("the plan of {}", r.o.from_plan);
  r.sopts.family = saved.family;
  r.say.info(fmt::format("Holding the schedule to the plan of {} ({}×{}×{}, {})", r.o.from_plan, saved.tile_m,
                         saved.tile_n, saved.tile_k, saved.family));
  return std::nullopt;
}

Verdict solve_schedule(Run& r) {
  if (!r.o.from_plan.empty())
    if (Verdict v = hold_to_saved_plan(r)) return v;
  for (const std::string& path : r.o.exclude_plans) {
    Plan saved;
    if (!read_saved_plan(r, path, saved)) return kExitUserError;
    r.sopts.exclude_schedules.push_back({saved.family, solve::schedule_of(saved)});
  }
  r.say.start();
  r.say.info("Enumerating tile candidates (M×N×K) and solving the schedule constraints...");
  r.sopts.budget_s = r.o.solver_timeout_s;
  r.sopts.work = r.o.solver_work;
  try {
    r.solved = solve::solve(*r.problem, r.sopts);
  } catch (const solve::GaveUp& e) {
    return gave_up(e, *r.problem, r.o, r.text, r.err);
  }
  r.say.info(fmt::format("Space: {} schedule variables, {} points, {} rules", r.solved.space.vars.size(),
                         r.solved.space.size(), r.solved.rules.size()));
  return std::nullopt;
}

std::string dump_space(const Run& r) {
  std::ostringstream dump;
  solve::dump_space(dump, r.solved);
  return dump.str();
}

/// The plan the solver chose, or why there is none.
/// A plan whose kernel or design the backend cannot generate is refused as soon as it is chosen,
/// with the backend's reason: --emit=plan and --emit=proof exit 1 for it as a module would. (An
/// NPU design is generated here, milliseconds, and kept for generate_verilog.)
Verdict refuse_ungenerated(Run& r) {
  const Plan& plan = *r.solved.plan;
  if (r.problem->hw.is_gpu()) {
    const std::string why = codegen::unsupported_reason(plan, r.problem->hw);
    if (why.empty()) return std::nullopt;
    if (r.emit == "llvm" || r.emit == "ptx")
      r.err << fmt::format("{}: error: cannot emit {}: {}\n", r.o.input, r.emit, why);
    else
      r.err << fmt::format("{}: error: no PTX can be generated for this spec: {}\n", r.o.input, why);
    return kExitUserError;
  }
  if (!r.problem->hw.is_npu()) return std::nullopt;
  r.say.start();
  r.say.info("Generating Verilog (AGUs, DMA, scratchpad, MAC array engine, accumulators, MMIO registers, top)...");
  try {
    r.hdl = hdlgen::generate(plan, r.problem->hw, design_name(r.o.input));
  } catch (const UserError& e) {
    r.err << fmt::format("{}: error: {}: {}\n", r.o.input,
                         r.emit == "verilog" ? "cannot emit verilog" : "no Verilog can be generated for this spec",
                         e.what());
    return kExitUserError;
  }
  r.say.info(fmt::format("{}: {} files, {} modules with properties ({:.1f} ms)", r.hdl->top, r.hdl->files.size(),
                         r.hdl->formal_tops.size(), r.say.ms()));
  return std::nullopt;
}

Verdict choose_plan(Run& r) {
  if (!r.solved.plan && !r.sopts.exclude_schedules.empty()) {
    // Without the excluded plans, is there one? Then the exclusions left none (not a rule).
    solve::Options all = r.sopts;
    all.exclude_schedules.clear();
    if (solve::solve(*r.problem, all).plan) {
      r.err << fmt::format(
          "{}: error: every plan that satisfies the rules is one of the {} excluded by --exclude-plan\n", r.o.input,
          r.sopts.exclude_schedules.size());
      return kExitUserError;
    }
  }
  if (!r.solved.plan) {
    DiagEngine why;  // the sema notes were printed already
    why.add_source(r.o.input, r.text);
    solve::explain(r.solved, *r.problem, why);
    why.print(r.err);
    return kExitUserError;
  }
  const Plan& plan = *r.solved.plan;
  r.say.info(fmt::format("Found {} valid tile candidates (M×N×K); optimum {}×{}×{} ({} Z3 checks, {:.1f} ms)",
                         r.solved.feasible_tiles, plan.tile_m, plan.tile_n, plan.tile_k, r.solved.checks, r.say.ms()));
  if (r.solved.families.size() > 1) {
    std::vector<std::string> parts;
    for (const auto& f : r.solved.families)
      parts.push_back(f.predicted_us ? fmt::format("{} {:.2f} us", f.family, *f.predicted_us)
                                     : fmt::format("{} infeasible", f.family));
    r.say.info(fmt::format("Instruction families: {}; {} chosen", fmt::join(parts, ", "), plan.family));
  }
  r.say.info(fmt::format("Predicted {:.2f} us ({:.1f} TFLOP/s, {}-bound, l2_hit_rate={:.3f})", plan.predicted_us,
                         plan.predicted_tflops, plan.bound, plan.l2_hit_rate));
  for (const std::string& note : plan.notes) r.say.info("Plan note: " + note);
  return refuse_ungenerated(r);
}

std::string dump_chosen_plan(const Run& r) { return dump_plan(*r.solved.plan); }

/// The plan's properties proved (coverage, bounds, banks, overflow). --emit=proof writes the
/// certificate whatever it says, and exits 1 when a check failed.
Verdict prove_plan(Run& r) {
  r.say.start();
  r.say.info("Verifying formal correctness via SMT solver...");
  r.cert = verify::verify(*r.solved.plan);
  r.say.info(
      fmt::format("{} of {} checks proved ({:.1f} ms)",
                  std::count_if(r.cert.checks.begin(), r.cert.checks.end(), [](const auto& c) { return c.passed; }),
                  r.cert.checks.size(), r.say.ms()));
  if (r.emit == "proof") {
    std::ostringstream dump;
    verify::dump(dump, r.cert);
    int rc = write_output(r.o, dump.str(), r.out, r.err, r.inputs);
    return rc != 0 ? rc : r.cert.all_passed() ? 0 : kExitUserError;
  }
  if (!r.cert.all_passed()) {
    for (const auto& c : r.cert.checks)
      if (!c.passed)
        r.err << fmt::format("{}: error: verification failed: {}: {}\n  counterexample: {}\n", r.o.input, c.name,
                             c.statement, c.counterexample);
    return kExitUserError;
  }
  return std::nullopt;
}

/// Codegen's feedback to the solver: the plan's kernel does not fit the register file, so the
/// next-best plan of the same family is solved for and proved. False when there is none.
bool next_plan(Run& r) {
  // The 4-bit weight kernel's schedule is not searched: its next plan is the next lighter
  // schedule (solve::w4_schedule), if one is left; any other's, the next-best searched point.
  const Plan before = *r.solved.plan;
  const bool w4 = before.loader == "registers";
  if (w4) {
    if (r.sopts.w4_lighter >= solve::kW4MaxLighter) return false;
    ++r.sopts.w4_lighter;
  } else {
    r.sopts.exclude.push_back(r.solved.point);
  }
  r.sopts.family = r.solved.space.family;        // excluded points are points of this family's space
  r.solved = solve::solve(*r.problem, r.sopts);  // solve::GaveUp reaches the caller
  if (!r.solved.plan || (w4 && solve::schedule_of(*r.solved.plan) == solve::schedule_of(before))) return false;
  r.cert = verify::verify(*r.solved.plan);
  if (!r.cert.all_passed()) throw InternalError("the next-best plan failed verification");
  return true;
}

/// The GPU backend: LLVM IR → PTX → ptxas. A kernel that spills, or needs more registers than
/// its plan's occupancy allows, asks the solver for the next plan, a few times at most.
Verdict generate_ptx(Run& r) {
  const bool gpu_stage = r.emit == "llvm" || r.emit == "ptx";
  if (!r.problem->hw.is_gpu()) {
    if (gpu_stage) {
      r.err << fmt::format("{}: error: --emit={} applies to GPU targets; {} is an NPU\n", r.o.input, r.emit,
                           r.problem->hw.name);
      return kExitUserError;
    }
    return std::nullopt;
  }
  if (r.emit == "verilog") {
    r.err << fmt::format("{}: error: --emit=verilog applies to NPU targets; {} is a GPU\n", r.o.input,
                         r.problem->hw.name);
    return kExitUserError;
  }
  // (A plan whose kernel is not generated was refused when it was chosen: refuse_ungenerated.)
  for (int attempt = 0;; ++attempt) {
    const Plan& cand = *r.solved.plan;
    r.say.start();
    r.say.info(fmt::format("Generating PTX for candidate {}×{}×{} ({})...", cand.tile_m, cand.tile_n, cand.tile_k,
                           r.problem->hw.gpu.arch));
    codegen::Artifacts art = codegen::make_ptx_backend(r.problem->hw)->generate(cand);
    const auto& px = art.ptxas;
    if (px.ran && px.cubin.empty()) throw InternalError("ptxas rejected the generated PTX:\n" + px.log);
    r.say.info(px.ran ? fmt::format("ptxas: {} registers, {} B spill stores, {} B spill loads ({:.1f} ms)",
                                    px.registers, px.spill_stores, px.spill_loads, r.say.ms())
                      : px.not_run + ": the module carries PTX only (the driver JIT compiles it)");
    // The plan's occupancy must survive register allocation.
    bool over_budget = px.ran && static_cast<std::int64_t>(px.registers) * cand.threads * cand.blocks_per_sm >
                                     r.problem->hw.gpu.regs_per_sm;
    bool spills = px.ran && (px.spill_stores > 0 || px.spill_loads > 0);
    if ((spills || over_budget) && attempt < 3) {
      r.say.info(spills ? "The kernel spills registers: rejecting this plan and solving for the next best"
                        : fmt::format("The kernel's {} registers do not fit {} blocks of {} threads per SM: "
                                      "rejecting this plan and solving for the next best",
                                      px.registers, cand.blocks_per_sm, cand.threads));
      try {
        if (!next_plan(r)) throw UserError("no plan left whose kernel fits the register file without spilling");
      } catch (const solve::GaveUp& e) {
        return gave_up(e, *r.problem, r.o, r.text, r.err);
      }
      continue;
    }
    // ptxas reports lost performance (wgmma serialized, for one) as info lines: pass them on.
    for (std::size_t at = px.log.find("Potential Performance Loss"); at != std::string::npos;
         at = px.log.find("Potential Performance Loss", at + 1))
      r.err << fmt::format("{}: warning: ptxas: {}\n", r.o.input, px.log.substr(at, px.log.find('\n', at) - at));
    if (spills || over_budget)
      r.err << fmt::format(
          "{}: warning: the kernel {} and no better plan was found in {} tries\n", r.o.input,
          spills ? fmt::format("spills registers ({} B stores, {} B loads)", px.spill_stores, px.spill_loads)
                 : fmt::format("needs {} registers, more than its planned occupancy allows", px.registers),
          attempt + 1);
    r.gpu = std::move(art);
    return std::nullopt;
  }
}

std::string dump_llvm(const Run& r) { return r.gpu->llvm_ir; }
std::string dump_ptx(const Run& r) { return r.gpu->ptx; }

/// The NPU backend: Verilog from the plan, every property of it proved by k-induction. Hardware
/// whose properties are not all proved is neither emitted nor put in a module.
Verdict generate_verilog(Run& r) {
  if (!r.problem->hw.is_npu()) return std::nullopt;
  DG_INTERNAL_ASSERT(r.hdl.has_value(), "the NPU design was not generated with its plan");
  r.say.start();
  r.say.info("Proving the AGU and DMA properties by k-induction (Yosys -> SMT-LIB2 -> Z3)...");
  r.formal = hdlgen::prove(*r.hdl, 2, formal::kWorkPerModule, r.o.force_rebuild ? "" : proof_cache_dir());
  if (r.o.verbose) r.err << hdlgen::report_text(r.formal);
  if (!r.formal.all_proved()) {
    if (r.emit == "verilog")
      r.err << fmt::format("{}: error: the generated Verilog is not emitted: not every property was proved\n{}",
                           r.o.input, r.o.verbose ? "" : hdlgen::report_text(r.formal));
    else
      r.err << fmt::format("{}: error: no module written: not every property of the generated design was proved\n{}",
                           r.o.input, r.o.verbose ? "" : hdlgen::report_text(r.formal));
    return kExitUserError;
  }
  std::size_t props = 0;
  for (const auto& m : r.formal.modules) props += m.result.properties.size();
  r.say.info(fmt::format("{} properties of {} modules proved ({:.1f} ms)", props, r.formal.modules.size(), r.say.ms()));
  if (r.emit == "verilog") return write_verilog(r.o, *r.hdl, r.out, r.err, r.inputs);
  return std::nullopt;
}

/// --synth: the design through Yosys (and the model's board); minutes for a large array, so each
/// flow says when it ends, verbose or not.
Verdict synthesize_design(Run& r) {
  if (!r.hdl || !r.o.synth) return std::nullopt;
  r.say.start();
  r.err << fmt::format("synthesizing with Yosys: coarse, {} ...\n",
                       r.o.fpga.empty() ? std::string("no FPGA flow") : fmt::format("{}", fmt::join(r.o.fpga, ", ")));
  hdlgen::SynthOptions sopt;
  sopt.families = r.o.fpga;
  sopt.progress = [&](const std::string& line) { r.err << "  synthesis: " << line << "\n" << std::flush; };
  r.synth = hdlgen::synthesize(*r.hdl, r.problem->hw, sopt);
  r.say.info(r.synth.summary());
  if (!r.synth.board.board.empty()) r.say.info(r.synth.board.summary());
  return std::nullopt;
}

/// The module: plan, proof, and the backend's artifacts; cached unsigned, signed if asked.
Verdict write_module(Run& r) {
  const Plan& final_plan = *r.solved.plan;
  module::ModuleContents contents;
  contents.target_kind = r.target_kind;
  contents.target_name = r.problem->hw.name;
  contents.sections.push_back(module::text_section(ko::SectionKind::Plan, dump_plan(final_plan)));
  contents.sections.push_back(module::text_section(ko::SectionKind::Proof, verify::to_json_text(r.cert)));
  if (r.hdl) {
    contents.sections.push_back(
        {static_cast<std::uint32_t>(ko::SectionKind::NpuRegmap), "npu_regmap", hdlgen::register_table(*r.hdl), 0});
    contents.sections.push_back(module::text_section(ko::SectionKind::Verilog, hdlgen::bundle(*r.hdl)));
    contents.sections.push_back(module::text_section(
        ko::SectionKind::Synth, hdlgen::report_text(r.formal) +
                                    (r.o.synth ? r.synth.text() : "synthesis: not run (compile --synth runs it)\n")));
    if (!r.synth.board.bitstream.empty())
      contents.sections.push_back(
          {static_cast<std::uint32_t>(ko::SectionKind::Bitstream), "bitstream",
           std::vector<std::uint8_t>(r.synth.board.bitstream.begin(), r.synth.board.bitstream.end()),
           ko::kSectionFlagOptional});
  }
  if (r.gpu) {
    contents.sections.push_back(module::text_section(ko::SectionKind::Ptx, r.gpu->ptx));
    if (!r.gpu->ptxas.cubin.empty())
      contents.sections.push_back({static_cast<std::uint32_t>(ko::SectionKind::Cubin), "cubin", r.gpu->ptxas.cubin, 0});
    contents.sections.push_back({static_cast<std::uint32_t>(ko::SectionKind::Launch), "launch",
                                 codegen::launch_record(final_plan, r.gpu->launch), 0});
  }
  std::vector<std::uint8_t> bytes = module::write(contents);
  std::string why;
  if (r.use_cache && !cache_store(r.cdir, r.key, r.target_kind, r.problem->hw.name, bytes, why))
    r.say.info("Cache not written: " + why);
  if (!r.o.sign_key.empty()) {
    bytes = module::sign_bytes(bytes, r.o.sign_key);  // the cache holds the module unsigned
    r.say.info("Signed the module (Ed25519)");
  }
  std::string path = module_path(r.o);
  why.clear();
  if (!write_output_file(path, std::string(bytes.begin(), bytes.end()), r.inputs, why)) {
    r.err << fmt::format("deepgemm: error: cannot write '{}': {}\n", path, why);
    return kExitUserError;
  }
  if (r.o.verbose) {
    if (r.hdl)
      r.err << fmt::format("[SUCCESS] NPU design {} compiled to {} (size: {})\n", r.hdl->top, path,
                           size_text(bytes.size()));
    else
      r.err << fmt::format("[SUCCESS] Kernel compiled to {} (size: {})\n", path, size_text(bytes.size()));
  }
  return r.o.bitstream.empty() ? 0 : write_bitstream(r.o, bytes, r.err, r.inputs);
}

/// One stage of the pipeline: what it does, and the dump `--emit=NAME` writes after it.
struct Stage {
  const char* name;                 // for DEEPGEMM_TIME_PASSES, and its --emit name if it has one
  bool emits;                       // --emit=NAME stops after it
  Verdict (*run)(Run&);             // nullptr: the stage only dumps what an earlier one made
  std::string (*dump)(const Run&);  // nullptr: the stage writes its own output when it is the last
};

// The pipeline, in order; emit_stages() lists the names of those that emit.
constexpr Stage kStages[] = {
    {"ast", true, parse_spec, dump_ast},           {"problem", true, check_spec, dump_problem},
    {"cache", false, look_up_cache, nullptr},      {"space", true, solve_schedule, dump_space},
    {"plan", true, choose_plan, dump_chosen_plan}, {"proof", true, prove_plan, nullptr},
    {"llvm", true, generate_ptx, dump_llvm},       {"ptx", true, nullptr, dump_ptx},
    {"verilog", true, generate_verilog, nullptr},  {"synth", false, synthesize_design, nullptr},
    {"module", true, write_module, nullptr},
};

}  // namespace

const std::vector<std::string>& emit_stages() {
  static const std::vector<std::string> stages = [] {
    std::vector<std::string> v;
    for (const auto& s : kStages)
      if (s.emits) v.push_back(s.name);
    return v;
  }();
  return stages;
}

int compile(const CompileOptions& o, std::ostream& out, std::ostream& err) {
  const auto& stages = emit_stages();
  std::string emit = o.emit.empty() ? "module" : o.emit;
  if (std::find(stages.begin(), stages.end(), emit) == stages.end()) {
    err << fmt::format("deepgemm: error: unknown stage '{}' for --emit; stages are {}\n", emit,
                       fmt::join(stages, ", "));
    return kExitUserError;
  }
  Run r(o, out, err, emit);
  r.inputs = {o.input};
  if (!o.from_plan.empty()) r.inputs.push_back(o.from_plan);
  for (const auto& x : o.exclude_plans) r.inputs.push_back(x);
  if (!o.sign_key.empty()) {
    if (emit != "module") {
      err << "deepgemm: error: --sign applies to a module (no --emit)\n";
      return kExitUserError;
    }
    module::check_secret_key(o.sign_key);
    r.inputs.push_back(o.sign_key);
  }
  if (!o.bitstream.empty() && (!o.synth || emit != "module")) {
    err << "deepgemm: error: --bitstream needs --synth and a module (no --emit)\n";
    return kExitUserError;
  }
  std::string why;
  if (!read_file_bounded(o.input, kMaxSpecBytes, r.text, why)) {
    err << fmt::format("deepgemm: error: cannot read '{}': {}\n", o.input, why);
    return kExitUserError;
  }
  for (const std::string& target : {emit == "module" ? module_path(o) : o.output, o.bitstream})
    if (!target.empty() && is_one_of(target, r.inputs)) {
      err << fmt::format(
          "deepgemm: error: cannot write '{}': it is an input of this command (the spec, the "
          "signing key or the saved plan); choose another output path\n",
          target);
      return kExitUserError;
    }
  // Walk the stages; each may stop the run (an error, a cache hit, its own output), and the one
  // --emit names writes its dump. DEEPGEMM_TIME_PASSES=1 prints each stage's wall time.
  const bool time_passes = std::getenv("DEEPGEMM_TIME_PASSES") != nullptr;
  for (const Stage& st : kStages) {
    auto t0 = std::chrono::steady_clock::now();
    Verdict v = st.run ? st.run(r) : std::nullopt;
    if (time_passes && st.run)
      err << fmt::format("[TIME] {}: {:.2f} ms\n", st.name,
                         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (v) return *v;
    if (st.emits && emit == st.name) {
      DG_INTERNAL_ASSERT(st.dump != nullptr, fmt::format("stage {} ended without its output", st.name));
      return write_output(o, st.dump(r), out, err, r.inputs);
    }
  }
  throw InternalError("the pipeline ended without a module");
}

}  // namespace dg::driver
