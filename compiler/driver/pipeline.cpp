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

const std::vector<std::string>& emit_stages() {
  static const std::vector<std::string> stages = {"ast", "problem", "space", "plan", "proof",
                                                  "llvm", "ptx", "verilog", "module"};
  return stages;
}

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

std::vector<std::uint8_t> launch_record(const Plan& p, const codegen::LaunchInfo& li) {
  ko::launch::Launch l{};
  std::snprintf(l.kernel, sizeof l.kernel, "%s", li.kernel.c_str());
  for (int i = 0; i < 3; ++i) {
    l.grid[i] = li.grid[i];
    l.block[i] = li.block[i];
  }
  l.smem_bytes = li.smem_bytes;
  l.carveout_percent = 100;
  l.compute_capability = li.compute_capability;
  l.M = static_cast<std::uint64_t>(p.M);
  l.N = static_cast<std::uint64_t>(p.N);
  l.K = static_cast<std::uint64_t>(p.K);
  l.batch = static_cast<std::uint64_t>(p.batch);
  // A type's width has one source, sema/dtype.h; a plan holds only types sema parsed.
  auto bits = [](const std::string& t) {
    const std::optional<DType> d = parse_dtype(t);
    DG_INTERNAL_ASSERT(d.has_value(), "a plan type sema does not know: " + t);
    return static_cast<std::uint32_t>(d->bits);
  };
  auto op = [&](const char* name, ko::launch::Role role, std::uint64_t rows, std::uint64_t cols, const std::string& t,
                bool rm, std::int64_t ld) {
    ko::launch::Operand o{};
    std::snprintf(o.name, sizeof o.name, "%s", name);
    o.role = role;
    o.element_bits = bits(t);
    o.bytes = rows * cols * o.element_bits / 8;
    o.row_major = rm;
    o.ld = static_cast<std::uint64_t>(ld);
    return o;
  };
  l.operand_count = 3;
  l.operands[0] = op("A", ko::launch::Role::Input, l.M, l.K, p.a_type, p.index.a_row_major, p.index.lda);
  l.operands[1] = op("B", ko::launch::Role::Input, l.K, l.N, p.b_type, p.index.b_row_major, p.index.ldb);
  l.operands[2] = op("C", ko::launch::Role::Output, l.M, l.N, p.c_type, p.index.c_row_major, p.index.ldc);
  // A bias epilogue reads one value per column of C, in C's type: the fourth operand, bound by name.
  if (p.epilogue.rfind("bias", 0) == 0)
    l.operands[l.operand_count++] =
        op("bias", ko::launch::Role::Input, 1, l.N, p.c_type, true, static_cast<std::int64_t>(l.N));
  std::vector<std::uint8_t> bytes(ko::launch::size_for(l.operand_count));
  ko::launch::write(l, bytes.data());
  return bytes;
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
  if (o.output.empty()) {
    out << hdlgen::bundle(d);
    return 0;
  }
  std::error_code ec;
  fs::create_directories(o.output, ec);
  if (ec || !fs::is_directory(o.output)) {
    err << fmt::format("deepgemm: error: cannot make directory '{}' for the Verilog: {}\n", o.output,
                       ec ? ec.message() : "a file of that name exists");
    return kExitUserError;
  }
  // The Verilog, and beside it the register block: a C header, testbench macros and SystemRDL.
  std::vector<hdlgen::VerilogFile> files = d.files;
  files.push_back({d.top + "_regs.h", hdlgen::regs_c_header(d)});
  files.push_back({d.top + "_regs.svh", hdlgen::regs_svh(d)});
  files.push_back({d.top + ".rdl", hdlgen::regs_systemrdl(d)});
  for (const auto& f : files) {
    std::string why;
    if (!write_output_file((fs::path(o.output) / f.name).string(), f.text, inputs, why)) {
      err << fmt::format("deepgemm: error: cannot write '{}': {}\n", (fs::path(o.output) / f.name).string(), why);
      return kExitUserError;
    }
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

int compile(const CompileOptions& o, std::ostream& out, std::ostream& err) {
  // The run's inputs, never overwritten by an output: the spec, the signing key, later the model.
  std::vector<std::string> inputs = {o.input};
  const auto& stages = emit_stages();
  std::string emit = o.emit.empty() ? "module" : o.emit;
  if (std::find(stages.begin(), stages.end(), emit) == stages.end()) {
    err << fmt::format("deepgemm: error: unknown stage '{}' for --emit; stages are {}\n", emit,
                       fmt::join(stages, ", "));
    return kExitUserError;
  }
  if (!o.sign_key.empty()) {
    if (emit != "module") {
      err << "deepgemm: error: --sign applies to a module (no --emit)\n";
      return kExitUserError;
    }
    module::check_secret_key(o.sign_key);
    inputs.push_back(o.sign_key);
  }
  if (!o.bitstream.empty() && (!o.synth || emit != "module")) {
    err << "deepgemm: error: --bitstream needs --synth and a module (no --emit)\n";
    return kExitUserError;
  }
  Narrator say(o.verbose, err);
  std::string text, why;
  if (!read_file_bounded(o.input, kMaxSpecBytes, text, why)) {
    err << fmt::format("deepgemm: error: cannot read '{}': {}\n", o.input, why);
    return kExitUserError;
  }
  for (const std::string& target : {emit == "module" ? module_path(o) : o.output, o.bitstream})
    if (!target.empty() && is_one_of(target, inputs)) {
      err << fmt::format("deepgemm: error: cannot write '{}': it is an input of this command (the spec or the "
                         "signing key); choose another output path\n",
                         target);
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
    return write_output(o, dump.str(), out, err, inputs);
  }

  say.start();
  say.info(fmt::format("Loading hardware model for {}...", spec.target.empty() ? "(none)" : spec.target));
  std::optional<GemmProblem> problem = sema::check(spec, o.hw_dir, diags);
  diags.print(err);
  if (!problem) return kExitUserError;
  inputs.push_back(problem->hw.file);
  say.info(fmt::format("Checked the spec against {} ({:.2f} ms)", problem->hw.name, say.ms()));

  if (emit == "problem") {
    std::ostringstream dump;
    dump << *problem;
    return write_output(o, dump.str(), out, err, inputs);
  }

  // The module cache: a hit skips solving and proving.
  const ko::TargetKind target_kind = problem->hw.is_gpu() ? ko::TargetKind::Gpu : ko::TargetKind::Npu;
  std::string key, cdir = cache_dir();
  bool use_cache = emit == "module" && !cdir.empty();
  if (use_cache) {
    std::string model_text, why;
    read_file_bounded(problem->hw.file, kMaxHwModelBytes, model_text, why);
    key = cache_key({DEEPGEMM_VERSION_STRING, compiler_build_id(), text, model_text,
                     o.synth ? fmt::format("synth {}", fmt::join(o.fpga, ",")) : ""});
    if (!o.force_rebuild) {
      auto hit = cache_lookup(cdir, key, target_kind, problem->hw.name, why);
      if (hit) {
        say.info(fmt::format("Cache hit ({}/{}.ko)", cdir, key));
        std::string path = module_path(o);
        if (!o.sign_key.empty()) *hit = module::sign_bytes(*hit, o.sign_key);
        if (!write_output_file(path, std::string(hit->begin(), hit->end()), inputs, why)) {
          err << fmt::format("deepgemm: error: cannot write '{}': {}\n", path, why);
          return kExitUserError;
        }
        if (o.verbose) err << fmt::format("[SUCCESS] Kernel compiled to {} (size: {}, cached)\n", path, size_text(hit->size()));
        return o.bitstream.empty() ? 0 : write_bitstream(o, *hit, err, inputs);
      }
      if (why != "absent") say.info("Cache: " + why);
    }
  }

  say.start();
  say.info("Enumerating tile candidates (M×N×K) and solving the schedule constraints...");
  solve::Options sopts;
  sopts.budget_s = o.solver_timeout_s;
  solve::Result solved;
  try {
    solved = solve::solve(*problem, sopts);
  } catch (const solve::GaveUp& e) {
    return gave_up(e, *problem, o, text, err);
  }
  say.info(fmt::format("Space: {} schedule variables, {} points, {} rules", solved.space.vars.size(),
                       solved.space.size(), solved.rules.size()));
  if (emit == "space") {
    std::ostringstream dump;
    solve::dump_space(dump, solved);
    return write_output(o, dump.str(), out, err, inputs);
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
  if (solved.families.size() > 1) {
    std::vector<std::string> parts;
    for (const auto& f : solved.families)
      parts.push_back(f.predicted_us ? fmt::format("{} {:.2f} us", f.family, *f.predicted_us)
                                     : fmt::format("{} infeasible", f.family));
    say.info(fmt::format("Instruction families: {}; {} chosen", fmt::join(parts, ", "), plan.family));
  }
  say.info(fmt::format("Predicted {:.2f} us ({:.1f} TFLOP/s, {}-bound, l2_hit_rate={:.3f})", plan.predicted_us,
                       plan.predicted_tflops, plan.bound, plan.l2_hit_rate));
  if (emit == "plan") return write_output(o, dump_plan(plan), out, err, inputs);

  say.start();
  say.info("Verifying formal correctness via SMT solver...");
  verify::Certificate cert = verify::verify(plan);  // re-proved below if the plan changes
  say.info(fmt::format("{} of {} checks proved ({:.1f} ms)", std::count_if(cert.checks.begin(), cert.checks.end(),
                                                                             [](const auto& c) { return c.passed; }),
                       cert.checks.size(), say.ms()));
  if (emit == "proof") {
    std::ostringstream dump;
    verify::dump(dump, cert);
    int rc = write_output(o, dump.str(), out, err, inputs);
    return rc != 0 ? rc : cert.all_passed() ? 0 : kExitUserError;
  }
  if (!cert.all_passed()) {
    for (const auto& c : cert.checks)
      if (!c.passed)
        err << fmt::format("{}: error: verification failed: {}: {}\n  counterexample: {}\n", o.input, c.name,
                           c.statement, c.counterexample);
    return kExitUserError;
  }

  // The GPU backend: LLVM IR → PTX → ptxas. A kernel that spills is rejected and the next-best
  // plan is solved for, up to a few times.
  std::optional<codegen::Artifacts> gpu;
  std::string no_ptx;
  if (problem->hw.is_gpu()) {
    no_ptx = codegen::unsupported_reason(plan, problem->hw);
    if (no_ptx.empty()) {
      for (int attempt = 0;; ++attempt) {
        say.start();
        say.info(fmt::format("Generating PTX for candidate {}×{}×{} ({})...", solved.plan->tile_m, solved.plan->tile_n,
                             solved.plan->tile_k, problem->hw.gpu.arch));
        codegen::Artifacts art = codegen::make_ptx_backend(problem->hw)->generate(*solved.plan);
        const auto& px = art.ptxas;
        if (px.ran && px.cubin.empty()) throw InternalError("ptxas rejected the generated PTX:\n" + px.log);
        say.info(px.ran ? fmt::format("ptxas: {} registers, {} B spill stores, {} B spill loads ({:.1f} ms)",
                                      px.registers, px.spill_stores, px.spill_loads, say.ms())
                        : px.not_run + ": the module carries PTX only (the driver JIT compiles it)");
        // The plan's occupancy must survive register allocation.
        const Plan& cand = *solved.plan;
        bool over_budget = px.ran && static_cast<std::int64_t>(px.registers) * cand.threads * cand.blocks_per_sm >
                                         problem->hw.gpu.regs_per_sm;
        bool spills = px.ran && (px.spill_stores > 0 || px.spill_loads > 0);
        if ((spills || over_budget) && attempt < 3) {
          say.info(spills ? "The kernel spills registers: rejecting this plan and solving for the next best"
                          : fmt::format("The kernel's {} registers do not fit {} blocks of {} threads per SM: "
                                        "rejecting this plan and solving for the next best",
                                        px.registers, cand.blocks_per_sm, cand.threads));
          sopts.exclude.push_back(solved.point);
          sopts.family = solved.space.family;  // excluded points are points of this family's space
          try {
            solved = solve::solve(*problem, sopts);
          } catch (const solve::GaveUp& e) {
            return gave_up(e, *problem, o, text, err);
          }
          if (!solved.plan) throw UserError("no plan left whose kernel fits the register file without spilling");
          cert = verify::verify(*solved.plan);
          if (!cert.all_passed()) throw InternalError("the next-best plan failed verification");
          continue;
        }
        // ptxas reports lost performance (wgmma serialized, for one) as info lines: pass them on.
        for (std::size_t at = px.log.find("Potential Performance Loss"); at != std::string::npos;
             at = px.log.find("Potential Performance Loss", at + 1))
          err << fmt::format("{}: warning: ptxas: {}\n", o.input, px.log.substr(at, px.log.find('\n', at) - at));
        if (spills || over_budget)
          err << fmt::format("{}: warning: the kernel {} and no better plan was found in {} tries\n", o.input,
                             spills ? fmt::format("spills registers ({} B stores, {} B loads)", px.spill_stores,
                                                  px.spill_loads)
                                    : fmt::format("needs {} registers, more than its planned occupancy allows",
                                                  px.registers),
                             attempt + 1);
        gpu = std::move(art);
        break;
      }
    } else if (emit == "llvm" || emit == "ptx") {
      err << fmt::format("{}: error: cannot emit {}: {}\n", o.input, emit, no_ptx);
      return kExitUserError;
    } else {
      // A module without the kernel it was asked for is no module: the spec is refused.
      err << fmt::format("{}: error: no PTX can be generated for this spec: {}\n", o.input, no_ptx);
      return kExitUserError;
    }
  } else if (emit == "llvm" || emit == "ptx") {
    err << fmt::format("{}: error: --emit={} applies to GPU targets; {} is an NPU\n", o.input, emit, problem->hw.name);
    return kExitUserError;
  }
  if (emit == "verilog" && !problem->hw.is_npu()) {
    err << fmt::format("{}: error: --emit=verilog applies to NPU targets; {} is a GPU\n", o.input, problem->hw.name);
    return kExitUserError;
  }

  // The NPU backend: Verilog from the plan, its properties proved by k-induction, synthesized.
  std::optional<hdlgen::Design> hdl;
  hdlgen::FormalReport formal;
  hdlgen::SynthReport synth;
  if (problem->hw.is_npu()) {
    say.start();
    say.info("Generating Verilog (AGUs, DMA, scratchpad, MAC array engine, accumulators, MMIO registers, top)...");
    try {
      hdl = hdlgen::generate(*solved.plan, problem->hw, design_name(o.input));
    } catch (const UserError& e) {
      err << fmt::format("{}: error: {}: {}\n", o.input,
                         emit == "verilog" ? "cannot emit verilog" : "no Verilog can be generated for this spec", e.what());
      return kExitUserError;
    }
  }
  if (hdl) {
    say.info(fmt::format("{}: {} files, {} modules with properties ({:.1f} ms)", hdl->top, hdl->files.size(),
                         hdl->formal_tops.size(), say.ms()));
    say.start();
    say.info("Proving the AGU and DMA properties by k-induction (Yosys -> SMT-LIB2 -> Z3)...");
    formal = hdlgen::prove(*hdl);
    if (o.verbose) err << hdlgen::report_text(formal);
    if (!formal.all_proved()) {
      // Hardware whose properties are not all proved is not emitted.
      if (emit == "verilog") {
        err << fmt::format("{}: error: the generated Verilog is not emitted: not every property was proved\n{}", o.input,
                           o.verbose ? "" : hdlgen::report_text(formal));
        return kExitUserError;
      }
      err << fmt::format("{}: error: no module written: not every property of the generated design was proved\n{}",
                         o.input, o.verbose ? "" : hdlgen::report_text(formal));
      return kExitUserError;
    }
  }
  if (hdl) {
    std::size_t props = 0;
    for (const auto& m : formal.modules) props += m.result.properties.size();
    say.info(fmt::format("{} properties of {} modules proved ({:.1f} ms)", props, formal.modules.size(), say.ms()));
    if (emit == "verilog") return write_verilog(o, *hdl, out, err, inputs);
    if (o.synth) {
      say.start();
      // Minutes for a large array: each flow says when it ends, verbose or not.
      err << fmt::format("synthesizing with Yosys: coarse, {} ...\n",
                         o.fpga.empty() ? std::string("no FPGA flow") : fmt::format("{}", fmt::join(o.fpga, ", ")));
      hdlgen::SynthOptions sopt;
      sopt.families = o.fpga;
      sopt.progress = [&](const std::string& line) { err << "  synthesis: " << line << "\n" << std::flush; };
      synth = hdlgen::synthesize(*hdl, problem->hw, sopt);
      say.info(synth.summary());
      if (!synth.board.board.empty()) say.info(synth.board.summary());
    }
  }
  if (emit == "llvm") return write_output(o, gpu->llvm_ir, out, err, inputs);
  if (emit == "ptx") return write_output(o, gpu->ptx, out, err, inputs);
  const Plan& final_plan = *solved.plan;

  module::ModuleContents contents;
  contents.target_kind = target_kind;
  contents.target_name = problem->hw.name;
  contents.sections.push_back(module::text_section(ko::SectionKind::Plan, dump_plan(final_plan)));
  contents.sections.push_back(module::text_section(ko::SectionKind::Proof, verify::to_json_text(cert)));
  if (hdl) {
    contents.sections.push_back(
        {static_cast<std::uint32_t>(ko::SectionKind::NpuRegmap), "npu_regmap", hdlgen::register_table(*hdl), 0});
    contents.sections.push_back(module::text_section(ko::SectionKind::Verilog, hdlgen::bundle(*hdl)));
    contents.sections.push_back(module::text_section(
        ko::SectionKind::Synth,
        hdlgen::report_text(formal) + (o.synth ? synth.text() : "synthesis: not run (compile --synth runs it)\n")));
    if (!synth.board.bitstream.empty())
      contents.sections.push_back({static_cast<std::uint32_t>(ko::SectionKind::Bitstream), "bitstream",
                                   std::vector<std::uint8_t>(synth.board.bitstream.begin(), synth.board.bitstream.end()),
                                   ko::kSectionFlagOptional});
  }
  if (gpu) {
    contents.sections.push_back(module::text_section(ko::SectionKind::Ptx, gpu->ptx));
    if (!gpu->ptxas.cubin.empty())
      contents.sections.push_back({static_cast<std::uint32_t>(ko::SectionKind::Cubin), "cubin", gpu->ptxas.cubin, 0});
    contents.sections.push_back(
        {static_cast<std::uint32_t>(ko::SectionKind::Launch), "launch", launch_record(final_plan, gpu->launch), 0});
  }
  std::vector<std::uint8_t> bytes = module::write(contents);
  if (use_cache && !cache_store(cdir, key, target_kind, problem->hw.name, bytes, why)) say.info("Cache not written: " + why);
  if (!o.sign_key.empty()) {
    bytes = module::sign_bytes(bytes, o.sign_key);  // the cache holds the module unsigned
    say.info("Signed the module (Ed25519)");
  }
  std::string path = module_path(o);
  why.clear();
  if (!write_output_file(path, std::string(bytes.begin(), bytes.end()), inputs, why)) {
    err << fmt::format("deepgemm: error: cannot write '{}': {}\n", path, why);
    return kExitUserError;
  }
  if (o.verbose) {
    if (hdl)
      err << fmt::format("[SUCCESS] NPU design {} compiled to {} (size: {})\n", hdl->top, path, size_text(bytes.size()));
    else
      err << fmt::format("[SUCCESS] Kernel compiled to {} (size: {})\n", path, size_text(bytes.size()));
  }
  return o.bitstream.empty() ? 0 : write_bitstream(o, bytes, err, inputs);
}

}  // namespace dg::driver
