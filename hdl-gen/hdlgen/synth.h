// Synthesis figures of a generated design with Yosys: a per-module breakdown after coarse
// synthesis (word-level cells, flip-flop bits, memories kept as memories: the scratchpad banks and
// accumulator buffers are block RAM, never flattened into flip-flops), and the design mapped to
// FPGA families (iCE40 `synth_ice40 -dsp`, ECP5 `synth_ecp5`, Xilinx 7-series `synth_xilinx`):
// LUTs, flip-flops, block RAMs, DSPs. The flows run in parallel, one Yosys process each.
//
// When the hardware model names a board (npu.board, one of boards/<board>/ embedded in the
// compiler), the design is also built for that board: Yosys synthesizes the board's top (its RTL
// wired to the generated NPU top) and nextpnr places and routes it on the board's device with a
// fixed seed; its JSON report gives the resources used against those available and the estimated
// fmax against the board clock. A board that cannot be built (tool missing, design too large,
// nextpnr failing) is a message in the report, never an exception.
#pragma once

#include <functional>
#include <string>
#include <vector>

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
  std::string board;                               // "icebreaker"; "" when the model names no board
  std::string device;                              // "iCE40 UP5K (sg48)"
  std::string top;                                 // the board's top module, "board_top"
  bool ran = false;                                // nextpnr placed, routed and wrote its report
  std::string error;                               // why not, when !ran
  long luts = 0, ffs = 0, carries = 0;             // synth_ice40 -top <board top>: the whole board design
  bool dsp_mapped = false;                         // multipliers in the device's DSPs (synth_ice40 -dsp) ...
  long dsps_wanted = 0;                            // ... unless the design has more of them than the device
  bool dsp_pairs = false;                          // two 8x8 products per DSP (the MAC array's DG_ICE40_DSP path)
  bool packed = false;                             // nextpnr packed the design: the resources below are known
  Resource logic_cells, brams, sprams, dsps, ios;  // nextpnr's utilization (after packing)
  double fmax_mhz = 0;                             // estimated, on the board clock
  double target_mhz = 0;                           // the board clock
  std::string bitstream;                           // the board's bitstream (icepack), when it was placed and routed
  std::string bitstream_note;                      // why there is none although it was (icepack missing or failed)
  bool meets_timing() const { return ran && fmax_mhz >= target_mhz; }
  std::string text() const;      // report lines, each ending in '\n'; "" without a board
  std::string summary() const;   // one line for --verbose; "" without a board
  std::string dsp_text() const;  // where the multipliers went
};

/// One module of the design after Yosys's coarse synthesis (`synth -run :fine`: word-level cells,
/// memories kept as memories), its own contents and how often the design instantiates it.
struct ModuleStats {
  std::string name;          // the library or generated module, "dg_engine"; variants "dg_fifo#2"
  long instances = 0;        // in the whole design
  long cells = 0;            // its own word-level cells, submodule instances excluded
  long ff_bits = 0;          // its own flip-flop bits
  long memories = 0;         // its own memories ...
  long memory_bits = 0;      // ... and their bits (words x width)
  std::string memory_shape;  // "1024 x 128" when it holds one kind of memory
};

/// One memory left to the ASIC flow's macros: an instance of dg_asic_ram_1r1w.
struct MemoryMacro {
  std::string instance;  // its path in the flattened design, "u_core.g_bank[0].u_bank.u_macro"
  long words = 0, width = 0;
};

/// The design alone mapped to one FPGA family (the whole hierarchy, from Yosys's `stat`), or, as
/// the family "asic", to Yosys's generic gates with every scratchpad bank and accumulator buffer a
/// black-box memory macro (dg_ram_1r1w.v's DG_ASIC_MEMORIES).
struct FpgaReport {
  std::string family;  // "ice40", "ecp5", "xilinx", "asic"
  std::string flow;    // the Yosys command, "synth_ice40 -dsp"
  bool ran = false;
  std::string error;  // why not, when !ran
  long luts = 0, ffs = 0, carries = 0;
  long gates = 0, transistors = 0;  // asic: combinational gates, and Yosys's CMOS transistor estimate
  std::vector<MemoryMacro> macros;  // asic: the memory macros, by instance path
  long brams = 0;                   // block RAMs of the family's primitive (SB_RAM40_4K, DP16KD, RAMB36E1 + RAMB18E1/2)
  long lutrams = 0;                 // memories in LUTs (ECP5 TRELLIS_DPR16X4, Xilinx RAM32M/RAM64M/...)
  long dsps = 0;                    // multipliers in DSP blocks (SB_MAC16, MULT18X18D, DSP48E1)
  double ms = 0;
  std::string text() const;  // one report line, ending in '\n'
};

/// The flows `--fpga` may name, in report order: the FPGA families and "asic".
const std::vector<std::string>& fpga_families();

struct SynthOptions {
  std::vector<std::string> families = {"ice40", "ecp5", "xilinx"};  // flows to run (may be empty)
  /// Called from the calling thread as each flow ends, with a line such as "ECP5: ... (123.4 s)".
  std::function<void(const std::string&)> progress;
};

struct SynthReport {
  bool ran = false;
  std::string error;
  long cells = 0, ff_bits = 0, memories = 0, memory_bits = 0;  // coarse, whole design
  std::vector<ModuleStats> modules;                            // coarse, per module (the top first)
  std::vector<FpgaReport> fpga;                                // in the order asked for
  double ms = 0;                                               // wall time of everything (the flows run in parallel)
  BoardReport board;                                           // place and route on the model's board, if it names one
  const FpgaReport* family(const std::string& f) const;
  std::string text() const;     // the module's Synth section and --verbose
  std::string summary() const;  // one line for the progress output
};

/// The coarse figures and the FPGA flows of `d` alone.
SynthReport synthesize(const Design& d, const SynthOptions& opts = {});

/// The same, and the place-and-route report on the board `hw` names (npu.board), if any. A design
/// whose iCE40 mapping already needs more block RAMs than the board has is not placed: the
/// board report says it does not fit and by how much.
SynthReport synthesize(const Design& d, const hw::HwModel& hw, const SynthOptions& opts = {});

/// Place and route `d` on `board` (a board of boards/ embedded in the compiler), for a bus of
/// `bus_bits` and the register base `mmio_base`. Never throws: failures are in `error`.
BoardReport place_and_route(const Design& d, const std::string& board, int bus_bits, std::uint64_t mmio_base);

}  // namespace dg::hdlgen
