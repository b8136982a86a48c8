// hdl-gen: the register block of a generated design for the people who integrate it, written from
// the one description (<deepgemm/npu_regs.h>) with the design's MMIO base and ID:
//   - a C header `<top>_regs.h`: base address, each register's offset and address, each field's
//     shift and mask, reset values, access, and the ERROR codes with their meaning (C99 and C++,
//     freestanding, no includes beyond <stdint.h>);
//   - `<top>_regs.svh`: the same as SystemVerilog macros, for testbenches (sim/icarus/tb_npu.sv);
//   - a SystemRDL 2.0 description `<top>.rdl`: one addrmap with a reg per register, its fields with
//     sw access and reset, and an enum for the ERROR codes;
//   - an IP-XACT (IEEE 1685-2014) component `<top>.xml`: the AXI4-Lite slave bus interface with its
//     port map, and the memory map it reaches (registers, fields, access, resets, the ERROR codes
//     as enumerated values).
#pragma once

#include <string>

#include "hdlgen/generate.h"

namespace dg::hdlgen {

/// `<top>_regs.h` for `d`. Deterministic.
std::string regs_c_header(const Design& d);

/// `<top>_regs.svh` for `d`: the same facts as `define macros for testbenches (DG_REG_<NAME> the
/// offset as a 12-bit literal, DG_<REG>_<FIELD>_LSB, DG_ERROR_<CODE>). Deterministic.
std::string regs_svh(const Design& d);

/// `<top>.rdl` for `d`. Deterministic.
std::string regs_systemrdl(const Design& d);

/// `<top>.xml` (IP-XACT 1685-2014) for `d`. Deterministic.
std::string regs_ipxact(const Design& d);

}  // namespace dg::hdlgen
