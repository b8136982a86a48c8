#include "hdlgen/regmap_binary.h"

#include <string>

#include <deepgemm/npu_regmap.h>
#include <fmt/format.h>

#include "support/error.h"

namespace dg::hdlgen {

namespace rm = dg::ko::regmap;

std::uint32_t design_id(const Design& d) { return d.id; }

std::vector<std::uint8_t> register_table(const Design& d) {
  std::vector<rm::RegisterSpec> regs;
  for (const auto& r : d.registers) {
    const std::uint32_t access = r.access == "ro"   ? rm::kAccessRead
                                 : r.access == "wo" ? rm::kAccessWrite
                                 : r.access == "rw" ? rm::kAccessRead | rm::kAccessWrite
                                                    : 0;
    DG_INTERNAL_ASSERT(access != 0, "hdlgen: register " + r.name + " has access '" + r.access + "'");
    regs.push_back({r.name.c_str(), r.offset, access});
  }
  const auto count = static_cast<std::uint32_t>(regs.size());
  std::vector<std::uint8_t> out(rm::table_size(count));
  std::size_t written = 0;
  ko::ErrorDetail err;
  const rm::Status st =
      rm::write(d.mmio_base, design_id(d), static_cast<std::uint32_t>(d.addr_bits),
                static_cast<std::uint32_t>(d.beat_bytes), regs.data(), count, out.data(), out.size(), &written, &err);
  DG_INTERNAL_ASSERT(st == rm::Status::Ok, fmt::format("hdlgen: register table of {}: {}", d.top, err.text));
  out.resize(written);
  return out;
}

}  // namespace dg::hdlgen
