// deepgemm sim: co-simulates an NPU module. The module's Verilog is Verilated with the harness of
// sim/ and the freestanding runtime (runtime-baremetal/), which loads the module and programs the
// simulated NPU through its port layer; the harness's DRAM model serves the bursts and C is
// compared bit for bit with the reference GEMM. The Verilated simulator is built once per design
// and kept in the module cache.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace dg::driver {

struct SimOptions {
  std::string module;                     // the .ko
  std::int64_t m = 0;                     // run-time M (0: the plan's)
  std::int64_t n = 0;                     // run-time N (0: the plan's)
  std::int64_t k = 0;                     // run-time K (0: the plan's)
  std::uint32_t ld[3] = {};               // A's, B's and C's leading dimensions in elements (0: the plan's, packed)
  std::uint32_t batch = 0;                // matrices of the run, for a plan with a batch (0: the plan's batch)
  std::int64_t stride[3] = {-1, -1, -1};  // elements between a batch's matrices (-1: the plan's, packed)
  unsigned latency = 100;                 // DRAM read latency, cycles
  bool latency_given = false;             // else the model's dram_latency_cycles
  std::string hw_dir;                     // where the module's hardware model is found
  double stall = 0.0;                     // back-pressure probability per handshake and cycle
  std::uint64_t seed = 1;
  std::uint64_t max_cycles = 0;
  std::string trace;        // VCD file ("" none)
  std::string base;         // A's bus address, decimal or 0x hex ("" the harness's default)
  std::string trusted_key;  // a public key file: refuse modules not signed by it
  bool verbose = false;
  bool rebuild = false;  // rebuild the simulator even when cached
};

/// Returns the process exit code: 0 PASS, 1 FAIL or a user error.
int sim(const SimOptions& o, const char* argv0, std::ostream& out, std::ostream& err);

/// `deepgemm inspect --verilog DIR`: writes the Verilog files a module holds (the design that was
/// proved, and signed if the module is) into DIR, made if missing; each a regular file, by the
/// rules of every output. `image` is the module's bytes, read from `module`. Returns the exit code.
int extract_verilog(const std::vector<std::uint8_t>& image, const std::string& module, const std::string& dir,
                    std::ostream& out, std::ostream& err);

}  // namespace dg::driver
