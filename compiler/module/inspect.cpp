#include "module/inspect.h"

#include <string_view>

#include <deepgemm/launch_format.h>
#include <deepgemm/module_format.h>
#include <deepgemm/module_signature.h>
#include <deepgemm/npu_regmap.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace dg::module {
namespace {

constexpr size_t kMaxValueChars = 60;

std::string kind_label(uint32_t kind) {
  const char* name = ko::section_kind_name(kind);
  return name != nullptr ? std::string(name) : fmt::format("kind {}", kind);
}

/// A scalar as JSON text, shortened; an object or array by its size.
std::string summarize(const nlohmann::ordered_json& v) {
  if (v.is_object()) return fmt::format("{{{} key{}}}", v.size(), v.size() == 1 ? "" : "s");
  if (v.is_array()) return fmt::format("[{} item{}]", v.size(), v.size() == 1 ? "" : "s");
  std::string s = v.dump(-1, ' ', true, nlohmann::ordered_json::error_handler_t::replace);
  if (s.size() > kMaxValueChars) s = s.substr(0, kMaxValueChars - 3) + "...";
  return s;
}

/// Prints the plan summary; false (and a message in *why) when the plan is not JSON.
bool print_plan(const ko::Payload& plan, std::ostream& out, std::string* why) {
  const auto* begin = reinterpret_cast<const char*>(plan.data);
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(std::string_view(begin, plan.size));
  } catch (const nlohmann::json::exception& e) {
    *why = fmt::format("plan section is not valid JSON: {}", e.what());
    return false;
  }
  out << "plan:\n";
  if (!j.is_object()) {
    out << "  (not an object) " << summarize(j) << "\n";
    return true;
  }
  for (const auto& [key, value] : j.items()) {
    std::string k = nlohmann::ordered_json(key).dump(-1, ' ', true, nlohmann::ordered_json::error_handler_t::replace);
    out << fmt::format("  {}: {}\n", k.substr(1, k.size() - 2), summarize(value));
  }
  return true;
}

/// Prints the NPU register table, one line per register; false (and *why) when it is invalid.
bool print_regmap(const ko::Payload& table, std::ostream& out, std::string* why) {
  ko::regmap::View v;
  if (ko::regmap::parse(table.data, table.size, &v) != ko::regmap::Status::Ok) {
    *why = fmt::format("npu_regmap section: {}", v.error());
    return false;
  }
  out << fmt::format("registers: {} (base {:#010x}, design id {:#010x}, {}-bit bus addresses)\n", v.count, v.mmio_base,
                     v.design_id, v.addr_bits);
  for (uint32_t i = 0; i < v.count; ++i) {
    ko::regmap::Register r;
    if (!v.at(i, &r)) break;
    out << fmt::format("  {:#05x}  {:<15} {}\n", r.offset, r.name, ko::regmap::access_name(r.access));
  }
  return true;
}

}  // namespace

int inspect(const std::vector<uint8_t>& bytes, const std::string& file, std::ostream& out, std::ostream& err,
            const uint8_t* trusted_key) {
  ko::ModuleView view;
  if (ko::parse(bytes.data(), bytes.size(), &view) != ko::Status::Ok) {
    err << file << ": error: " << view.error() << "\n";
    return 1;
  }
  out << fmt::format("file:     {}\n", file);
  out << fmt::format("size:     {} bytes\n", view.file_size);
  out << fmt::format("abi:      {}\n", view.abi_version);
  out << fmt::format("target:   {} ({})\n", view.target_name,
                     ko::target_kind_name(static_cast<uint32_t>(view.target_kind)));
  out << fmt::format("flags:    {:#010x}\n", view.flags);
  out << fmt::format("checksum: header {:#010x} OK\n", view.header_crc);
  out << fmt::format("sections: {}\n", view.section_count);
  if (view.section_count != 0) {
    out << fmt::format("  {:>2}  {:<14}{:<14}{:>10}{:>10}  {}\n", "#", "kind", "name", "offset", "size", "crc32");
  }
  for (uint32_t i = 0; i < view.section_count; ++i) {
    ko::SectionInfo s;
    if (!view.section(i, &s)) break;
    out << fmt::format("  {:>2}  {:<14}{:<14}{:>10}{:>10}  {:#010x} OK{}\n", i, kind_label(s.kind), s.name, s.offset,
                       s.size, s.crc, (s.flags & ko::kSectionFlagOptional) != 0 ? " (optional)" : "");
  }
  // The signature: who signed, and whether it verifies (against the trusted key, if given).
  ko::sig::Signature sig{};
  const ko::sig::Check present = ko::sig::read(view, &sig);
  const ko::sig::Check verdict = ko::sig::check(view, trusted_key);
  if (present == ko::sig::Check::Valid) {
    std::string key;
    for (uint8_t b : sig.public_key) key += fmt::format("{:02x}", b);
    out << fmt::format("signature: Ed25519 by {}: {}\n", key,
                       verdict == ko::sig::Check::Valid
                           ? (trusted_key != nullptr ? "valid, the trusted key" : "valid (no trusted key given)")
                           : ko::sig::check_message(verdict));
  } else {
    out << fmt::format("signature: {}\n", ko::sig::check_message(present));
  }
  // A GPU kernel's launch record: the operands the runtime binds by name, in parameter order.
  if (const ko::Payload launch = view.find(ko::SectionKind::Launch)) {
    ko::launch::Launch l{};
    if (const char* why = ko::launch::parse(launch.data, launch.size, &l)) {
      err << file << ": error: " << why << "\n";
      return 1;
    }
    out << fmt::format("launch: kernel {}, grid {}x{}x{}, block {}x{}x{}, {} B shared memory, sm_{}\n", l.kernel,
                       l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], l.smem_bytes,
                       l.compute_capability);
    out << fmt::format("  M {}, N {}, K {}, batch {}\n", l.M, l.N,
                       l.K_min == l.K ? std::to_string(l.K)
                                      : fmt::format("{}..{} at run time (a multiple of {})", l.K_min, l.K, l.k_align),
                       l.batch);
    if (l.workspace_bytes != 0)
      out << fmt::format("  workspace {} bytes (the runtime allocates and zeroes it, or dgmm_bind_workspace)\n",
                         l.workspace_bytes);
    out << fmt::format("  {:<3} {:<5} {:<6} {:>4} {:>10} {:>12} {:>10}\n", "#", "name", "role", "bits", "layout", "ld",
                       "bytes");
    for (uint32_t i = 0; i < l.operand_count; ++i) {
      const ko::launch::Operand& o = l.operands[i];
      out << fmt::format("  {:<3} {:<5} {:<6} {:>4} {:>10} {:>12} {:>10}{}\n", i, o.name,
                         o.role == ko::launch::Role::Output ? "output" : "input", o.element_bits,
                         o.packing != 0 ? ko::w4::layout_name(o.packing)
                         : o.row_major  ? "row-major"
                                        : "col-major",
                         o.ld_is_k ? "K" : std::to_string(o.ld), o.bytes,
                         o.box_inner != 0 ? fmt::format("  tensor map {}x{}", o.box_inner, o.box_outer) : "");
    }
  }
  if (const ko::Payload table = view.find(ko::SectionKind::NpuRegmap)) {
    std::string why;
    if (!print_regmap(table, out, &why)) {
      err << file << ": error: " << why << "\n";
      return 1;
    }
  }
  if (const ko::Payload plan = view.find(ko::SectionKind::Plan)) {
    std::string why;
    if (!print_plan(plan, out, &why)) {
      err << file << ": error: " << why << "\n";
      return 1;
    }
  }
  if (verdict != ko::sig::Check::Valid && (trusted_key != nullptr || verdict != ko::sig::Check::Unsigned)) {
    err << file << ": error: " << ko::sig::check_message(verdict) << "\n";
    return 1;
  }
  return 0;
}

}  // namespace dg::module
