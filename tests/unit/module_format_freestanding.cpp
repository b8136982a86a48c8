// Compiled by module.cmake with -ffreestanding -fno-exceptions -fno-rtti -nostdinc++ (and, with
// clang, without system headers and for riscv32): the module format header and the NPU register
// table header must build with nothing but the compiler's own <stdint.h> and <stddef.h>. Never
// linked.
#include <deepgemm/module_format.h>
#include <deepgemm/npu_regmap.h>
#include <deepgemm/w4_pack.h>

#if __STDC_HOSTED__
#error "module_format_freestanding.cpp must be compiled with -ffreestanding"
#endif

extern "C" uint32_t dg_ko_freestanding_parse(const uint8_t* data, size_t size) {
  dg::ko::ModuleView view;
  if (dg::ko::parse(data, size, &view) != dg::ko::Status::Ok) return 0;
  uint32_t sum = 0;
  for (uint32_t i = 0; i < view.section_count; ++i) {
    dg::ko::SectionInfo s;
    if (!view.section(i, &s)) return 0;
    for (uint32_t j = 0; j < s.size; ++j) sum += s.data[j];
  }
  const dg::ko::Payload plan = view.find(dg::ko::SectionKind::Plan);
  return sum + (plan ? plan.size : 0u);
}

extern "C" size_t dg_ko_freestanding_write(uint8_t* buf, size_t cap) {
  static const uint8_t plan[] = {'{', '}'};
  dg::ko::SectionSpec sections[1];
  sections[0].kind = static_cast<uint32_t>(dg::ko::SectionKind::Plan);
  sections[0].name = "plan";
  sections[0].data = plan;
  sections[0].size = sizeof plan;
  dg::ko::ModuleSpec spec;
  spec.target_kind = dg::ko::TargetKind::Npu;
  spec.target_name = "npu";
  spec.sections = sections;
  spec.section_count = 1;
  size_t written = 0;
  return dg::ko::write(spec, buf, cap, &written) == dg::ko::Status::Ok ? written : 0;
}

extern "C" uint32_t dg_ko_freestanding_regmap(const uint8_t* data, size_t size) {
  dg::ko::regmap::View view;
  if (dg::ko::regmap::parse(data, size, &view) != dg::ko::regmap::Status::Ok) return 0;
  dg::ko::regmap::Register r;
  return view.find("CTRL", &r) ? r.offset + static_cast<uint32_t>(view.mmio_base) : 0u;
}

extern "C" size_t dg_ko_freestanding_regmap_write(uint8_t* buf, size_t cap) {
  const dg::ko::regmap::RegisterSpec regs[1] = {{"CTRL", 4, dg::ko::regmap::kAccessWrite}};
  size_t written = 0;
  return dg::ko::regmap::write(0x40000000u, 1, 32, 16, regs, 1, buf, cap, &written) == dg::ko::regmap::Status::Ok
             ? written
             : 0;
}
