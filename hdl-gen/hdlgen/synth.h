// Synthesis figures of a generated design with Yosys: generic `synth` cell counts, and
// `synth_ice40` (iCE40 UP5K family) LUT4, flip-flop and block-RAM counts for FPGA prototypes.
//
// When the hardware model names a board (npu.board, one of boards/<board>/ embedded in the
// compiler), the design is also built for that board: Yosys synthesizes the board's top (its RTL
// wired to the generated NPU top) and nextpnr places and routes it on the board's device with a
// fixed seed; its JSON report gives the resources used against those available and the estimated
// fmax against the board clock. A board that cannot be built (tool missing, design too large,
// nextpnr failing) is a message in the report, never an exception.
#pragma once

#include <string>

#include "hdlgen/generate.h"
#include "hw/hw_model.h"

namespace dg::hdlgen {

/// Resources of one kind after place and route: used of available.
struct Resource {
  long used = 0, available = 0;
  double percent() const { return available > 0 ? 100.0 * used / available : 0; }
};

/// Place and route of the design on the model's FPGA prototype board.
struct BoardReport {
  std::string board;               // "icebreaker"; "" when the model names no board
  std::string device;              // "iCE40 UP5K (sg48)"
  std::string top;                 // the board's top module, "board_top"
  bool ran = false;                // nextpnr placed, routed and wrote its report
  std::string error;               // why not, when !ran
  long luts = 0, ffs = 0, carries = 0;  // synth_ice40 -top <board top>: the whole board design
  bool dsp_mapped = false;         // multipliers in the device's DSPs (synth_ice40 -dsp) ...
  long dsps_wanted = 0;            // ... unless the design has more of them than the device
  bool dsp_pairs = false;          // two 8x8 products per DSP (the MAC array's DG_ICE40_DSP path)
  bool packed = false;             // nextpnr packed the design: the resources below are known
  Resource logic_cells, brams, sprams, dsps, ios;  // nextpnr's utilization (after packing)
  double fmax_mhz = 0;             // estimated, on the board clock
  double target_mhz = 0;           // the board clock
  std::string bitstream;           // the board's bitstream (icepack), when it was placed and routed
  std::string bitstream_note;      // why there is none although it was (icepack missing or failed)
  bool meets_timing() const { return ran && fmax_mhz >= target_mhz; }
  std::string text() const;        // report lines, each ending in '\n'; "" without a board
  std::string summary() const;     // one line for --verbose; "" without a board
  std::string dsp_text() const;    // where the multipliers went
};

struct SynthReport {
  bool ran = false;
  std::string error;
  long cells = 0;                 // generic synth
  long luts = 0, ffs = 0, brams = 0, carries = 0;  // synth_ice40
  double ms = 0;
  BoardReport board;              // place and route on the model's board, if it names one
  std::string text() const;       // the module's Synth section and --verbose
};

/// The generic and iCE40 figures of `d` alone.
SynthReport synthesize(const Design& d);

/// The same, and the place-and-route report on the board `hw` names (npu.board), if any.
SynthReport synthesize(const Design& d, const hw::HwModel& hw);

/// Place and route `d` on `board` (a board of boards/ embedded in the compiler), for a bus of
/// `bus_bits` and the register base `mmio_base`. Never throws: failures are in `error`.
BoardReport place_and_route(const Design& d, const std::string& board, int bus_bits, std::uint64_t mmio_base);

}  // namespace dg::hdlgen
