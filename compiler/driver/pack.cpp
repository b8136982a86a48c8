#include "driver/pack.h"

#include <deepgemm/launch_format.h>
#include <deepgemm/module_format.h>
#include <deepgemm/w4_pack.h>
#include <fmt/format.h>

#include <new>
#include <vector>

#include "support/error.h"
#include "support/files.h"

namespace dg::driver {

namespace {

constexpr std::uint64_t kMaxWeightBytes = 16ull << 30;  // plain or packed weights: 16 GiB

int fail(std::ostream& err, const std::string& msg) {
  err << "deepgemm pack: error: " << msg << "\n";
  return kExitUserError;
}

int pack_weights(const PackOptions& o, std::ostream& out, std::ostream& err) {
  if (o.order != "kn" && o.order != "nk")
    return fail(err, fmt::format("--order is kn (row-major K×N) or nk (row-major N×K), not '{}'", o.order));
  std::vector<std::uint8_t> mod;
  std::string why;
  if (!read_file_bounded(o.module, kMaxModuleBytes, mod, why))
    return fail(err, fmt::format("cannot read module '{}': {}", o.module, why));
  ko::ModuleView view;
  if (ko::parse(mod.data(), mod.size(), &view) != ko::Status::Ok)
    return fail(err, fmt::format("'{}' is not a valid module: {}", o.module, view.error()));
  const ko::Payload launch = view.find(ko::SectionKind::Launch);
  if (!launch) return fail(err, fmt::format("module '{}' holds no GPU kernel (no launch record)", o.module));
  ko::launch::Launch l{};
  if (const char* bad = ko::launch::parse(launch.data, launch.size, &l))
    return fail(err, fmt::format("module '{}': {}", o.module, bad));
  const ko::launch::Operand* b = nullptr;
  for (std::uint32_t i = 0; i < l.operand_count; ++i)
    if (l.operands[i].packing != 0) b = &l.operands[i];
  if (!b)
    return fail(err,
                fmt::format("module '{}' reads plain weights (its B is not packed): nothing to pack for it", o.module));
  std::vector<std::uint8_t> in;
  if (!read_file_bounded(o.input, kMaxWeightBytes, in, why))
    return fail(err, fmt::format("cannot read '{}': {}", o.input, why));
  const ko::w4::Order order = o.order == "kn" ? ko::w4::Order::KByN : ko::w4::Order::NByK;
  const std::uint64_t plain = ko::w4::plain_bytes(l.K, l.N), packed = ko::w4::packed_bytes(l.K, l.N);
  std::string bytes;
  if (!o.unpack) {
    if (in.size() != plain)
      return fail(err, fmt::format("'{}' has {} bytes; {}×{} 4-bit weights, two per byte, are {} bytes", o.input,
                                   in.size(), l.K, l.N, plain));
    bytes.resize(packed);
    if (const char* bad =
            ko::w4::pack(in.data(), order, l.K, l.N, b->packing, reinterpret_cast<std::uint8_t*>(bytes.data()), packed))
      return fail(err, bad);
  } else {
    if (const char* bad = ko::w4::check_header(in.data(), in.size(), b->packing, l.K, l.N))
      return fail(err, fmt::format("'{}': {}", o.input, bad));
    if (in.size() != packed)
      return fail(err, fmt::format("'{}' has {} bytes; packed {}×{} weights are {} bytes", o.input, in.size(), l.K, l.N,
                                   packed));
    bytes.resize(plain);
    if (const char* bad = ko::w4::unpack(in.data(), in.size(), b->packing, l.K, l.N, order,
                                         reinterpret_cast<std::uint8_t*>(bytes.data())))
      return fail(err, bad);
  }
  if (!write_output_file(o.output, bytes, {o.module, o.input}, why))
    return fail(err, fmt::format("cannot write '{}': {}", o.output, why));
  out << fmt::format("{} {}×{} {} weights ({}) {} layout {} → {} ({} bytes)\n", o.unpack ? "unpacked" : "packed", l.K,
                     l.N,
                     b->packing == ko::w4::kLayoutN8K128U4   ? "u4"
                     : b->packing == ko::w4::kLayoutN8K128F4 ? "E2M1"
                                                             : "int4",
                     o.order == "kn" ? "K×N" : "N×K", o.unpack ? "from" : "in", ko::w4::layout_name(b->packing),
                     o.output, bytes.size());
  return 0;
}

}  // namespace

int pack(const PackOptions& o, std::ostream& out, std::ostream& err) {
  try {
    return pack_weights(o, out, err);
  } catch (const std::bad_alloc&) {
    return fail(err, "out of memory for the weights (the packed and plain copies are held in memory)");
  }
}

}  // namespace dg::driver
