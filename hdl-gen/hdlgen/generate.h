// hdl-gen: the NPU backend's Verilog, fed by the Plan alone (and the hardware model it names).
//
// For a plan it emits one address-generation unit (AGU) per stream — A and B tile reads, C tile
// writes — that walks the plan's tile loop nest (block_m, block_n, k_tile, tile row) and issues
// one request per tile row: the row's DRAM byte address and its length in bus beats; and the top
// npu_gemm_<name>: MMIO registers (base addresses, M, N, K, start, status, error, cycle counter)
// and the fixed library of hdl-gen/rtl/ instantiated with the plan's parameters — per stream a
// burst splitter (beat-aligned, at most the bus's maximum burst, never across its boundary), the
// scratchpad fill of A and B and its bank write arbiter, the compute engine with its MAC array,
// two accumulator buffers and the C write-out. Every AGU carries, under `ifdef FORMAL`, the
// properties the backend proves by k-induction: the loop nest stays inside the matrix and on tile
// boundaries, each request is the plan's index map (row, first column, length in bus beats),
// every request stays inside its operand's buffer, and the requests enumerate the loop nest
// exactly once, for a fixed K and for a run-time one (the cycle bound of a run is not proved). Output is deterministic:
// the same plan gives byte-identical files.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hw/hw_model.h"
#include "plan/plan.h"

namespace dg::hdlgen {

struct VerilogFile {
  std::string name;  // file name, e.g. npu_gemm_npu_int8.v
  std::string text;
};

/// One MMIO register of the generated top, as the runtimes program it.
struct Register {
  std::string name;
  std::uint32_t offset = 0;  // from the model's mmio_base
  std::string access;        // "rw", "ro", "wo"
  std::string meaning;
};

struct Design {
  std::string top;                       // npu_gemm_<name>: the core behind AXI4
  std::string core;                      // npu_gemm_<name>_core, what a board with its own memory holds ("": the top)
  std::vector<VerilogFile> files;        // generated modules, then the library modules they use
  std::vector<std::string> formal_tops;  // modules carrying properties, each proved on its own
  /// Parameters a library module is proved with: those the top instantiates it with (every
  /// instance of it in the top has the same ones), so the proof is about the hardware emitted.
  std::map<std::string, std::vector<std::pair<std::string, std::int64_t>>> formal_params;
  /// What a module's proof leaves out at these parameters, for the report ("" for nothing).
  std::map<std::string, std::string> formal_notes;
  std::vector<Register> registers;
  std::uint64_t mmio_base = 0;
  int addr_bits = 32;            // the DMA masters' AXI4 address width (the model's bus_addr_bits)
  int beat_bytes = 16;           // the bus beat in bytes (the model's bus_data_bits / 8)
  std::uint32_t id = 0;          // the ID register's value: identifies the design (a hash of its plan)
  std::int64_t cycle_bound = 0;  // the plan's estimate of a run's address-stream cycles
};

/// The design for an NPU plan; `name` (letters, digits, '_') becomes part of module names.
/// Throws dg::UserError when the plan cannot be built in hardware (the message says why).
Design generate(const Plan& plan, const hw::HwModel& hw, const std::string& name);

/// All files of the design concatenated, each under a `// ---- file: NAME` line (the module's
/// Verilog section and --emit=verilog to stdout).
std::string bundle(const Design& d);

}  // namespace dg::hdlgen
