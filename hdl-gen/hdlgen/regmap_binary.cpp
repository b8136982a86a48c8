#include "hdlgen/regmap_binary.h"

#include <string>

#include <deepgemm/npu_regmap.h>
#include <fmt/format.h>

#include "support/error.h"

namespace dg::hdlgen {

namespace rm = dg::ko::regmap;

std::uint32_t design_id(const Design& d) {
  static const std::string kKey = "localparam logic [31:0] Id = 32'h";
  for (const auto& f : d.files) {
    if (f.name != d.top + ".v") continue;
    const std::size_t at = f.text.find(kKey);
    DG_INTERNAL_ASSERT(at != std::string::npos, "hdlgen: the top " + d.top + " has no Id localparam");
    const std::string hex = f.text.substr(at + kKey.size(), 8);
    DG_INTERNAL_ASSERT(hex.size() == 8 && hex.find_first_not_of("0123456789abcdef") == std::string::npos,
                       "hdlgen: the Id localparam of " + d.top + " is not 8 hex digits");
    return static_cast<std::uint32_t>(std::stoul(hex, nullptr, 16));
  }
  DG_INTERNAL_ASSERT(false, "hdlgen: the design has no top file " + d.top + ".v");
  return 0;
}

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
      rm::write(d.mmio_base, design_id(d), regs.data(), count, out.data(), out.size(), &written, &err);
  DG_INTERNAL_ASSERT(st == rm::Status::Ok, fmt::format("hdlgen: register table of {}: {}", d.top, err.text));
  out.resize(written);
  return out;
}

}  // namespace dg::hdlgen
