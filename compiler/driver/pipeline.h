// The compile pipeline, top to bottom: parse → check → (solve → verify → backends → module).
// Each stage may be the last one (--emit=STAGE), whose dump is written to the output.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "solve/solve.h"

namespace dg::driver {

struct CompileOptions {
  std::string input;
  std::string output;  // "" = stdout for dumps
  std::string emit;    // "" = the default (the whole pipeline)
  std::string hw_dir;
  bool verbose = false;
  bool force_rebuild = false;
  double solver_timeout_s = smt::kBackstopSeconds;  // the schedule solver's wall-clock backstop
  std::uint64_t solver_work = solve::kDefaultWork;  // its budget in Z3's resource units
  bool synth = false;     // NPU: synthesize the design (Yosys; the board's place and route) into the module
  std::string bitstream;  // with synth: also write the module's FPGA bitstream to this file
  std::vector<std::string> fpga = {"ice40", "ecp5", "xilinx"};  // with synth: the FPGA flows to run
  std::string sign_key;                                         // a secret key file: sign the module
  std::string from_plan;  // a saved plan (--emit=plan): its schedule, checked against every rule, is the one used
  std::vector<std::string> exclude_plans;  // saved plans whose schedules are not candidates: the next-best plan
};

/// Stage names accepted by --emit, in pipeline order.
const std::vector<std::string>& emit_stages();

/// Run the pipeline; returns the process exit code (0, 1 for user errors).
int compile(const CompileOptions& opts, std::ostream& out, std::ostream& err);

/// Where the hardware models are: --hw-models, $DEEPGEMM_HW_MODELS, <exe>/../share/deepgemm/hw-models,
/// then the source tree the compiler was built from.
std::string find_hw_dir(const std::string& flag_value, const char* argv0);

}  // namespace dg::driver
