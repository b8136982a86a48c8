// Synthesis figures of a generated design with Yosys: generic `synth` cell counts, and
// `synth_ice40` (iCE40 UP5K family) LUT4, flip-flop and block-RAM counts for FPGA prototypes.
#pragma once

#include <string>

#include "hdlgen/generate.h"

namespace dg::hdlgen {

struct SynthReport {
  bool ran = false;
  std::string error;
  long cells = 0;                 // generic synth
  long luts = 0, ffs = 0, brams = 0, carries = 0;  // synth_ice40
  double ms = 0;
  std::string text() const;       // the module's Synth section and --verbose
};

SynthReport synthesize(const Design& d);

}  // namespace dg::hdlgen
