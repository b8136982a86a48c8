#include "module/writer.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "support/error.h"

namespace dg::module {

Section text_section(ko::SectionKind kind, const std::string& text) {
  Section s;
  s.kind = static_cast<uint32_t>(kind);
  s.name = ko::section_kind_name(s.kind);
  s.bytes.assign(text.begin(), text.end());
  return s;
}

std::vector<uint8_t> write(const ModuleContents& contents) {
  std::vector<const Section*> order;
  order.reserve(contents.sections.size());
  for (const Section& s : contents.sections) order.push_back(&s);
  // By kind; equal kinds are rejected below, so their relative order does not matter.
  std::sort(order.begin(), order.end(), [](const Section* a, const Section* b) { return a->kind < b->kind; });

  DG_INTERNAL_ASSERT(
      order.size() <= ko::kMaxSections,
      fmt::format("module has {} sections, the format holds at most {}", order.size(), ko::kMaxSections));
  std::vector<ko::SectionSpec> specs;
  specs.reserve(order.size());
  for (const Section* s : order) {
    DG_INTERNAL_ASSERT(s->bytes.size() <= std::numeric_limits<uint32_t>::max(),
                       fmt::format("section '{}' is {} bytes, over the 4 GiB limit", s->name, s->bytes.size()));
    // A NUL inside a name would cut it short silently in the C-string spec.
    DG_INTERNAL_ASSERT(s->name.find('\0') == std::string::npos,
                       fmt::format("section name of kind {} contains a NUL byte", s->kind));
    ko::SectionSpec spec;
    spec.kind = s->kind;
    spec.flags = s->flags;
    spec.name = s->name.c_str();
    spec.data = s->bytes.data();
    spec.size = static_cast<uint32_t>(s->bytes.size());
    specs.push_back(spec);
  }
  DG_INTERNAL_ASSERT(contents.target_name.find('\0') == std::string::npos, "module target name contains a NUL byte");

  ko::ModuleSpec spec;
  spec.target_kind = contents.target_kind;
  spec.target_name = contents.target_name.c_str();
  spec.flags = contents.flags;
  spec.sections = specs.data();
  spec.section_count = static_cast<uint32_t>(specs.size());

  const uint64_t size = ko::module_size(specs.data(), spec.section_count);
  DG_INTERNAL_ASSERT(size != 0, "module would exceed the 4 GiB file size limit");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  size_t written = 0;
  ko::ErrorDetail detail;
  const ko::Status st = ko::write(spec, bytes.data(), bytes.size(), &written, &detail);
  DG_INTERNAL_ASSERT(st == ko::Status::Ok, fmt::format("cannot write module: {}", detail.text));
  DG_INTERNAL_ASSERT(written == bytes.size(), "module writer size mismatch");

  // The reader is the definition of a valid module: check what was written against it.
  ko::ModuleView view;
  DG_INTERNAL_ASSERT(ko::parse(bytes.data(), bytes.size(), &view) == ko::Status::Ok,
                     fmt::format("written module does not parse: {}", view.error()));
  return bytes;
}

}  // namespace dg::module
