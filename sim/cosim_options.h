// The co-simulation harness's inputs: its options and command line (sim/cosim_main.cpp's header
// comment gives each option), and the module's plan as the harness reads it. No Verilator here.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "elements.h"

namespace dg::sim {

enum class Inject { None, ReadError, WriteError, NoRlast };
struct Options {
  unsigned latency = 100;
  std::uint64_t boundary = 4096;  // bytes a burst must not cross (the model's bus_boundary_bytes)
  unsigned max_burst = 256;       // beats per burst at most (the model's bus_max_burst_beats)
  double stall = 0.0;
  std::uint64_t seed = 1, max_cycles = 0;
  std::string trace;
  bool quiet = false;
  Inject inject = Inject::None;
  std::uint64_t base = 0;  // A's address (0: the default for the bus's width)
  bool base_given = false;
  unsigned addr_bits = 0;  // the bus's address width (0: the module's, else 32)
  std::string expect_error;
};

/// What the command line gives: the simulation's options and the problem (with --module, the
/// module's path; else M, N, K, the element formats and the widths).
struct Args {
  Options o;
  std::string module_path;
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t ld[3] = {0, 0, 0};         // A's, B's, C's leading dimensions in elements (0: packed)
  std::int64_t batch = -1;                // --batch: the BATCH register the harness writes, or with --module
                                          // the runtime's dgmm_set_batch (-1: not given)
  std::int64_t stride[3] = {-1, -1, -1};  // --stride-a/b/c: elements between a batch's matrices (-1: packed)
  int acc_bits = 32, c_bits = 32;         // the accumulator's and C's widths (--module: the plan's)
  Format fa, fb;
  bool have_a = false, have_b = false;
  bool b_col = false;  // --b-layout col: B is column-major (N rows of K elements; --module: the plan's)
  bool a_col = false;  // --a-layout col: A is column-major (K rows of M elements; --module: the plan's)
};

/// The usage text after `why`, on stderr; returns 2 (a bad argument's exit code).
inline int usage(const std::string& why) {
  std::fprintf(stderr,
               "cosim: %s\n"
               "usage: cosim --module FILE.ko [--m M] [--n N] [--k K] [options]\n"
               "       cosim --m M --n N --k K --a-type sN|uN --b-type sN|uN [options]\n"
               "options: --latency CYCLES --boundary BYTES --max-burst BEATS --stall P --seed S --max-cycles N\n"
               "         --inject read-error|write-error|no-rlast --trace FILE.vcd --quiet\n"
               "         --base ADDR --addr-bits N --expect-error NAME --lda LD --ldb LD --ldc LD --batch B\n"
               "         --stride-a S --stride-b S --stride-c S (elements between a batch's matrices; 0: one shared)\n"
               "         --a-layout row|col --b-layout row|col\n",
               why.c_str());
  return 2;
}

/// A module the harness cannot run, or one the runtime refuses: the reason, without the usage
/// text (the command line was fine); exit status 1.
inline int refuse(const std::string& why) {
  std::fprintf(stderr, "cosim: error: %s\n", why.c_str());
  return 1;
}

/// Parses the command line into `args`: -1 to go on, else the exit code (0 after --help, 2 after a
/// bad argument, its reason printed).
inline int parse_args(int argc, char** argv, Args& args) {
  Options& o = args.o;
  std::string& module_path = args.module_path;
  std::int64_t &m = args.m, &n = args.n, &k = args.k;
  std::int64_t* ld = args.ld;
  int &acc_bits = args.acc_bits, &c_bits = args.c_bits;
  Format &fa = args.fa, &fb = args.fb;
  bool &have_a = args.have_a, &have_b = args.have_b;
  for (int i = 1; i < argc; ++i) {
    std::string key = argv[i];
    if (key == "--quiet") {
      o.quiet = true;
      continue;
    }
    if (key == "--help" || key == "-h") {
      usage("co-simulation of a generated NPU");
      return 0;
    }
    if (i + 1 >= argc) return usage("missing value after " + key);
    std::string v = argv[++i];
    char* end = nullptr;
    if (key == "--module")
      module_path = v;
    else if (key == "--m")
      m = std::strtoll(v.c_str(), &end, 10);
    else if (key == "--n")
      n = std::strtoll(v.c_str(), &end, 10);
    else if (key == "--k")
      k = std::strtoll(v.c_str(), &end, 10);
    else if (key == "--lda" || key == "--ldb" || key == "--ldc")
      ld[key[4] - 'a'] = std::strtoll(v.c_str(), &end, 10);
    else if (key == "--stride-a" || key == "--stride-b" || key == "--stride-c") {
      const std::int64_t st = std::strtoll(v.c_str(), &end, 10);
      if (st < 0 || st > 0x7fffffff) return usage(key + " must be 0 to 2^31 - 1");
      args.stride[key[9] - 'a'] = st;
    } else if (key == "--latency")
      o.latency = static_cast<unsigned>(std::strtoul(v.c_str(), &end, 10));
    else if (key == "--boundary")
      o.boundary = std::strtoull(v.c_str(), &end, 10);
    else if (key == "--max-burst")
      o.max_burst = static_cast<unsigned>(std::strtoul(v.c_str(), &end, 10));
    else if (key == "--stall")
      o.stall = std::strtod(v.c_str(), &end);
    else if (key == "--seed")
      o.seed = std::strtoull(v.c_str(), &end, 10);
    else if (key == "--max-cycles")
      o.max_cycles = std::strtoull(v.c_str(), &end, 10);
    else if (key == "--trace")
      o.trace = v;
    else if (key == "--base") {
      o.base = std::strtoull(v.c_str(), &end, 0);
      o.base_given = true;
    } else if (key == "--addr-bits")
      o.addr_bits = static_cast<unsigned>(std::strtoul(v.c_str(), &end, 10));
    else if (key == "--expect-error")
      o.expect_error = v;
    else if (key == "--a-layout") {
      if (v != "row" && v != "col") return usage("bad --a-layout " + v + " (row or col)");
      args.a_col = v == "col";
    } else if (key == "--b-layout") {
      if (v != "row" && v != "col") return usage("bad --b-layout " + v + " (row or col)");
      args.b_col = v == "col";
    } else if (key == "--batch")
      args.batch = std::strtoll(v.c_str(), &end, 10);
    else if (key == "--acc-bits")
      acc_bits = static_cast<int>(std::strtol(v.c_str(), &end, 10));
    else if (key == "--c-bits")
      c_bits = static_cast<int>(std::strtol(v.c_str(), &end, 10));
    else if (key == "--inject") {
      if (v == "read-error")
        o.inject = Inject::ReadError;
      else if (v == "write-error")
        o.inject = Inject::WriteError;
      else if (v == "no-rlast")
        o.inject = Inject::NoRlast;
      else
        return usage("bad --inject " + v + " (read-error, write-error or no-rlast)");
    } else if (key == "--a-type") {
      if (!parse_format(v, fa)) return usage("bad --a-type " + v + " (sN or uN, 2 <= N <= 16)");
      have_a = true;
    } else if (key == "--b-type") {
      if (!parse_format(v, fb)) return usage("bad --b-type " + v + " (sN or uN, 2 <= N <= 16)");
      have_b = true;
    } else {
      return usage("unknown option " + key);
    }
    if (end != nullptr && *end != '\0') return usage("bad number for " + key + ": " + v);
  }
  if (o.stall < 0 || o.stall > 0.9) return usage("--stall must be in [0, 0.9]");
  return -1;
}

/// A string member of the plan's JSON text ("a_type": "s10"), or "" when absent.
inline std::string plan_string(const std::string& plan, const std::string& key) {
  auto at = plan.find("\"" + key + "\"");
  if (at == std::string::npos) return "";
  at = plan.find('"', plan.find(':', at) + 1);
  auto end = plan.find('"', at + 1);
  return at == std::string::npos || end == std::string::npos ? "" : plan.substr(at + 1, end - at - 1);
}

}  // namespace dg::sim
