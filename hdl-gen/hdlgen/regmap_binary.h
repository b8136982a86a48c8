// hdl-gen: the register table of a generated design in the binary format the runtimes read
// (<deepgemm/npu_regmap.h>; the module's npu_regmap section).
#pragma once

#include <cstdint>
#include <vector>

#include "hdlgen/generate.h"

namespace dg::hdlgen {

/// The value the design's ID register reads, taken from the `Id` localparam of its top.
/// A design without one is a generator bug (dg::InternalError).
std::uint32_t design_id(const Design& d);

/// The table's bytes: the design's MMIO base, its ID and one record per register (name, offset,
/// access) in the design's order. Deterministic. A register the format cannot hold (name longer
/// than 15 characters, offset outside the 4 KB page or not 4-aligned, an access other than "ro",
/// "wo", "rw", a repeated name) is a generator bug (dg::InternalError).
std::vector<std::uint8_t> register_table(const Design& d);

}  // namespace dg::hdlgen
