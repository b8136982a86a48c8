// deepgemm: the command-line driver. Parses arguments (CLI11) and hands over to the pipeline.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>

#include "driver/detect_gpu.h"
#include "driver/pack.h"
#include "driver/pipeline.h"
#include "driver/sim.h"
#include "driver/sweep.h"
#include "hw/hw_model.h"
#include "module/inspect.h"
#include "module/sign.h"
#include "smt/smt.h"
#include "support/error.h"
#include "support/files.h"

namespace {

std::string version_line() {
  return fmt::format(
      "deepgemm v{} (Z3 {}; backends: nvptx via LLVM 19 (sm_70: mma.m8n8k4; sm_80: mma.sync, simt, 4-bit "
      "weight streaming; sm_90a: wgmma (TMA or cp.async loads), mma.sync, simt, 4-bit weight streaming), npu: "
      "Verilog with output- and weight-stationary engines (Yosys, Verilator))",
      DEEPGEMM_VERSION, dg::smt::z3_version());
}

/// A CLI check for a number in [lo, hi]; NaN and infinities fail it (CLI::Range lets NaN through).
CLI::Validator number_in(double lo, double hi, const std::string& what) {
  return CLI::Validator(
      [=](std::string& v) {
        char* end = nullptr;
        const double x = std::strtod(v.c_str(), &end);
        return end != v.c_str() && *end == '\0' && x >= lo && x <= hi
                   ? std::string()
                   : fmt::format("{} must be a number from {:g} to {:g}, not '{}'", what, lo, hi, v);
      },
      fmt::format("NUMBER in [{:g}, {:g}]", lo, hi));
}

/// A CLI check for a whole number in [lo, hi], written in decimal digits only.
CLI::Validator whole_number_in(std::uint64_t lo, std::uint64_t hi, const std::string& what) {
  return CLI::Validator(
      [=](std::string& v) {
        const bool digits = !v.empty() && v.size() <= 19 && v.find_first_not_of("0123456789") == std::string::npos;
        const std::uint64_t x = digits ? std::stoull(v) : 0;
        return digits && x >= lo && x <= hi
                   ? std::string()
                   : fmt::format("{} must be a whole number from {} to {}, not '{}'", what, lo, hi, v);
      },
      fmt::format("INTEGER in [{}, {}]", lo, hi));
}

int run(int argc, char** argv) {
  CLI::App app{
      "DeepGEMM: a GEMM compiler driven by declared constraints.\n"
      "Write a .dgml spec (target, precisions, shape, limits); deepgemm finds the best schedule\n"
      "that meets every limit, proves it, and emits a module.",
      "deepgemm"};
  app.footer(
      "Examples:\n  deepgemm compile examples/matmul.dgml --emit=problem\n"
      "  deepgemm compile examples/npu_int8.dgml -o npu.ko && deepgemm sim npu.ko\n"
      "  deepgemm sweep bench/npu/sweep.json -o sweep-out\n  deepgemm --list-targets");
  bool version = false, list_targets = false, detect = false;
  std::string hw_flag;
  app.add_flag("--version", version, "Print the version and exit");
  app.add_flag("--list-targets", list_targets, "List the targets described in hw-models/, one per line");
  app.add_flag("--detect-gpu", detect, "Describe the NVIDIA GPU of this machine (exit 2 when there is none)");
  app.add_option("--hw-models", hw_flag, "Directory of hardware models (default: installed or source hw-models/)")
      ->check(CLI::ExistingDirectory);

  dg::driver::CompileOptions copts;
  CLI::App* compile = app.add_subcommand("compile", "Compile a .dgml spec");
  compile->add_option("FILE", copts.input, "The .dgml spec")->required();
  compile->add_option(
      "-o,--output", copts.output,
      "Output file ('-': standard output); if omitted, a stage's dump goes to stdout and the module to SPEC.ko");
  std::string stages_help =
      "Stop after STAGE and write its dump: " + fmt::format("{}", fmt::join(dg::driver::emit_stages(), ", "));
  compile->add_option("--emit", copts.emit, stages_help);
  compile->add_flag("-v,--verbose", copts.verbose, "Narrate each stage with counts and times (on stderr)");
  compile->add_flag("--force-rebuild", copts.force_rebuild, "Ignore the module cache");
  compile
      ->add_option("--solver-work", copts.solver_work,
                   fmt::format("The schedule solver's budget for each instruction family's queries, in Z3's resource "
                               "units (default {}: seconds for an ordinary spec, about 2.5 min of a hard nonlinear "
                               "free constraint on one core): the same spec gets the same answer, or the same error "
                               "naming its free constraints, on every machine however loaded",
                               dg::solve::kDefaultWork))
      ->check(whole_number_in(1000, 4'000'000'000, "the solver's work budget in units"));
  compile
      ->add_option("--solver-timeout", copts.solver_timeout_s,
                   fmt::format("Wall-clock seconds the schedule solver may spend on each family's queries besides its "
                               "work budget (default {:g}); a spec it cannot answer in time is an error that names "
                               "its free constraints",
                               dg::smt::kBackstopSeconds))
      ->check(number_in(0.001, 3600.0, "the solver's budget in seconds"));
  compile->add_flag("--synth", copts.synth,
                    "NPU targets: also synthesize the generated design with Yosys (and place and route it for the "
                    "model's board) and store the report in the module: a per-module breakdown with memories kept "
                    "as memories, and the figures of each FPGA flow of --fpga; minutes for a large PE array");
  CLI::Option* fpga_opt =
      compile
          ->add_option("--fpga", copts.fpga,
                       "With --synth: the flows to map the design to, comma-separated, of the FPGA families ice40, "
                       "ecp5, xilinx (default: these three) and asic (generic gates, each memory a black-box "
                       "dg_asic_ram_1r1w macro, listed by instance); 'none' for the coarse breakdown only; they run "
                       "in parallel")
          ->delimiter(',')
          ->check(CLI::IsMember({"ice40", "ecp5", "xilinx", "asic", "none"}));
  compile->add_option("--sign", copts.sign_key,
                      "Sign the module with this secret key (from 'deepgemm keygen'): an Ed25519 signature over its "
                      "contents that runtimes given the public key check");
  compile->add_option("--from-plan", copts.from_plan,
                      "Use the schedule of this saved plan (the JSON of --emit=plan, possibly edited) instead of the "
                      "solver's choice: it must be a plan of the spec (target, family, precisions, shape), and every "
                      "rule the solver applies is checked against it; a plan that breaks one is explained like an "
                      "infeasible spec");
  compile->add_option("--exclude-plan", copts.exclude_plans,
                      "Not the schedule of this saved plan (repeatable): the solver answers with the best plan other "
                      "than these, to rank the alternatives ('deepgemm sweep' co-simulates them)");
  compile->add_option("--bitstream", copts.bitstream,
                      "With --synth, for a model that names an FPGA board: also write the board's bitstream "
                      "(icepack .bin, kept in the module too) to this file");

  dg::driver::SimOptions sopts;
  CLI::App* simc = app.add_subcommand(
      "sim",
      "Co-simulate an NPU module: its Verilog (Verilator), programmed by the freestanding runtime, against "
      "the reference GEMM on random inputs; ends with PASS or FAIL");
  simc->add_option("FILE", sopts.module, "The .ko module of an NPU spec")->required();
  simc->add_option("--m", sopts.m, "M of the run, for a spec with M_min/M_max (default: the plan's M, the largest)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{0x7fffffff}));
  simc->add_option("--n", sopts.n, "N of the run, for a spec with N_min/N_max (default: the plan's N, the largest)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{0x7fffffff}));
  simc->add_option("--k", sopts.k, "K of the run, for a spec with K_min/K_max (default: the plan's K)")
      ->check(CLI::Validator(
          [](std::string& v) {
            return v.find_first_not_of("0123456789") == std::string::npos &&
                           v.find_first_not_of('0') != std::string::npos
                       ? std::string()
                       : "K must be a positive integer, not '" + v + "'";
          },
          "K>0"));
  for (int i = 0; i < 3; ++i)
    simc->add_option(fmt::format("--ld{}", "abc"[i]), sopts.ld[i],
                     fmt::format("{}'s leading dimension in elements: its rows (its columns, when the spec stores it "
                                 "column-major) start that far apart, inside a larger buffer whose bytes between "
                                 "them {} (default: packed; dgmm_set_ld)",
                                 "ABC"[i], i == 2 ? "must stay untouched" : "are not read"))
        ->check(CLI::Range(1u, 0x7fffffffu));
  simc->add_option("--batch", sopts.batch,
                   "Matrices of the run, 1 to the plan's batch (default: the plan's batch; dgmm_set_batch)")
      ->check(CLI::Range(1u, 0xffffffffu));
  for (int i = 0; i < 3; ++i)
    simc->add_option(
            fmt::format("--stride-{}", "abc"[i]), sopts.stride[i],
            fmt::format("Elements from one matrix of {} to the next in a batch{} (default: one after the "
                        "other; dgmm_set_batch_stride)",
                        "ABC"[i], i == 2 ? ", at least one matrix" : ": 0 shares one matrix, else at least one"))
        ->check(CLI::Range(std::int64_t{0}, std::int64_t{0x7fffffff}));
  CLI::Option* latency_opt = simc->add_option("--latency", sopts.latency,
                                              "DRAM read latency in cycles (default: the model's dram_latency_cycles)")
                                 ->check(CLI::Range(0u, 100000u));
  simc->add_option("--stall", sopts.stall,
                   "Back-pressure: the probability that the DRAM model holds back a handshake "
                   "in a cycle (default 0)")
      ->check(number_in(0.0, 0.9, "the back-pressure probability"));
  simc->add_option("--seed", sopts.seed, "Seed of the random A and B (default 1)");
  simc->add_option("--max-cycles", sopts.max_cycles, "Give up after this many cycles (default: from the problem size)");
  simc->add_option("--trace", sopts.trace, "Write a VCD waveform to this file (builds a tracing simulator)");
  simc->add_option("--base", sopts.base,
                   "A's bus address (decimal or 0x hex); B lies 256 MiB above it, C 512 MiB (default 0x10000000 on a "
                   "32-bit bus, 2^(bits-1) + 0x10000000 on a wider one)")
      ->check(CLI::Validator(
          [](std::string& v) {
            const bool hex = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
            const std::string digits = hex ? v.substr(2) : v;
            const char* allowed = hex ? "0123456789abcdefABCDEF" : "0123456789";
            if (digits.empty() || digits.find_first_not_of(allowed) != std::string::npos ||
                digits.size() > (hex ? 16u : 20u) || (!hex && digits.size() == 20 && digits > "18446744073709551615"))
              return "an address is a decimal or 0x-hex number below 2^64, not '" + v + "'";
            return std::string();
          },
          "ADDR"));
  simc->add_option("--trusted-key", sopts.trusted_key,
                   "A public key (.pub): refuse a module that is not signed by it, or altered after signing");
  simc->add_flag("-v,--verbose", sopts.verbose, "Say where the simulator is built or found");
  simc->add_flag("--rebuild", sopts.rebuild, "Rebuild the simulator even when one is cached");

  dg::driver::SweepOptions wopts;
  CLI::App* sweepc = app.add_subcommand(
      "sweep",
      "Explore an NPU's design space: compile, prove and co-simulate every (model variant, spec) point of a "
      "sweep file, with the solver's plan and the next-best ones, in parallel; writes one table (CSV, JSON) of "
      "predicted and simulated cycles, MAC use and proof time, and a plot; a rerun resumes");
  sweepc->add_option("FILE", wopts.file, "The sweep file (JSON, format deepgemm-sweep-1; README: 'deepgemm sweep')")
      ->required();
  sweepc->add_option("-o,--output", wopts.out_dir, "Folder for the points, sweep.csv, sweep.json and sweep.svg")
      ->required();
  sweepc->add_option("-j,--jobs", wopts.jobs, "Points run at once (default: one per core)")->check(CLI::Range(1, 256));
  sweepc->add_flag("--fresh", wopts.fresh,
                   "Discard the results of an earlier run in the folder (by default a rerun "
                   "keeps every finished point of the same model, spec, settings and version)");

  std::string inspect_file, inspect_key, inspect_verilog;
  CLI::App* inspect = app.add_subcommand("inspect",
                                         "Show what a module holds: target, plan, sections, ABI, checksums, "
                                         "signature");
  inspect->add_option("FILE", inspect_file, "The .ko module")->required();
  inspect->add_option("--trusted-key", inspect_key,
                      "A public key (.pub from keygen): exit 1 unless the module is signed by it and unaltered");
  inspect->add_option("--verilog", inspect_verilog,
                      "Also write the module's Verilog files (its NPU design as proved, and as signed) into this "
                      "folder, made if missing");

  dg::driver::PackOptions popts;
  CLI::App* packc = app.add_subcommand(
      "pack",
      "Pack plain int4 weights (two per byte, low nibble first) into the layout a module reads (its B "
      "operand), or back with --unpack; the output is a new or regular file, never an input");
  packc->add_option("--module", popts.module, "The .ko module whose weights these are")->required();
  packc->add_option("-i,--input", popts.input, "Plain int4 weights (or, with --unpack, packed ones)")->required();
  packc->add_option("-o,--output", popts.output, "Where to write the packed (or plain) weights")->required();
  packc->add_option("--order", popts.order, "Plain weights' order: kn (row-major K×N, default) or nk (row-major N×K)");
  packc->add_flag("--unpack", popts.unpack, "Read packed weights and write them plain");

  std::string key_file;
  CLI::App* keygen = app.add_subcommand(
      "keygen",
      "Make an Ed25519 key pair for signing modules: the secret key in FILE (mode 0600), the public key in "
      "FILE.pub; an existing file is never replaced");
  keygen->add_option("FILE", key_file, "Where to write the secret key")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : dg::kExitUserError;
  }

  std::string hw_dir = dg::driver::find_hw_dir(hw_flag, argv[0]);
  if (version) {
    std::cout << version_line() << "\n";
    return 0;
  }
  if (list_targets) {
    for (const auto& m : dg::hw::load_dir(hw_dir))
      std::cout << fmt::format("{:<10} {:<4} {}\n", m.name, m.is_gpu() ? "gpu" : "npu", m.description);
    return 0;
  }
  if (detect) return dg::driver::detect_gpu(std::cout, std::cerr);
  if (simc->parsed()) {
    sopts.latency_given = latency_opt->count() > 0;
    sopts.hw_dir = hw_dir;
    return dg::driver::sim(sopts, argv[0], std::cout, std::cerr);
  }
  if (sweepc->parsed()) {
    wopts.hw_dir = hw_dir;
    wopts.version = DEEPGEMM_VERSION;
    return dg::driver::sweep(wopts, std::cout, std::cerr);
  }
  if (inspect->parsed()) {
    std::vector<std::uint8_t> bytes;
    std::string why;
    if (!dg::read_file_bounded(inspect_file, dg::kMaxModuleBytes, bytes, why)) {
      std::cerr << "deepgemm: error: cannot read '" << inspect_file << "': " << why << "\n";
      return dg::kExitUserError;
    }
    std::optional<dg::module::PublicKey> trusted;
    if (!inspect_key.empty()) trusted = dg::module::read_public_key(inspect_key);
    const int rc = dg::module::inspect(bytes, inspect_file, std::cout, std::cerr, trusted ? trusted->data() : nullptr);
    if (rc != 0 || inspect_verilog.empty()) return rc;
    return dg::driver::extract_verilog(bytes, inspect_file, inspect_verilog, std::cout, std::cerr);
  }
  if (packc->parsed()) return dg::driver::pack(popts, std::cout, std::cerr);
  if (keygen->parsed()) {
    const dg::module::PublicKey pk = dg::module::keygen(key_file);
    std::cout << fmt::format("secret key: {} (keep it private)\npublic key: {}.pub ({})\n", key_file, key_file,
                             dg::module::hex(pk));
    return 0;
  }
  if (compile->parsed()) {
    copts.hw_dir = hw_dir;
    if (fpga_opt->count() > 0 && !copts.synth) {
      std::cerr << "deepgemm: error: --fpga needs --synth\n";
      return dg::kExitUserError;
    }
    if (std::find(copts.fpga.begin(), copts.fpga.end(), "none") != copts.fpga.end()) {
      if (copts.fpga.size() > 1) {
        std::cerr << "deepgemm: error: --fpga: 'none' cannot be combined with a family\n";
        return dg::kExitUserError;
      }
      copts.fpga.clear();
    }
    return dg::driver::compile(copts, std::cout, std::cerr);
  }
  std::cout << app.help();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const dg::UserError& e) {
    std::cerr << "deepgemm: error: " << e.what() << "\n";
    return dg::kExitUserError;
  } catch (const std::exception& e) {
    std::cerr << "deepgemm: internal error: " << e.what()
              << "\nThis is a bug in deepgemm; please report it with the spec that triggered it.\n";
    return dg::kExitInternalError;
  }
}
