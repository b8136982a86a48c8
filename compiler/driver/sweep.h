// deepgemm sweep: design-space exploration of an NPU. A sweep file names specs, a base hardware
// model and the model fields to vary; every (model variant, spec) point is compiled, proved and
// co-simulated (and synthesized when asked), with the solver's plan and the next-best ones it
// ranks, and the results land in one table: predicted and simulated cycles, MAC utilization,
// proof time, FPGA figures. Points run in parallel and a rerun resumes where the last one stopped.
#pragma once

#include <ostream>
#include <string>

namespace dg::driver {

struct SweepOptions {
  std::string file;     // the sweep description (JSON)
  std::string out_dir;  // where points, the table and the plot go
  int jobs = 0;         // points run at once (0: one per core)
  std::string hw_dir;   // where the base model is found by name
  bool fresh = false;   // discard the results of an earlier run
  std::string version;  // the compiler's version: results of another version are not reused
};

/// Returns the process exit code: 0 when every point compiled and co-simulated bit-exactly, 1 when
/// one did not (the table says which) or the sweep file is wrong.
int sweep(const SweepOptions& o, std::ostream& out, std::ostream& err);

}  // namespace dg::driver
