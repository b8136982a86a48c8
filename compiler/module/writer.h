// module::write: packs the Plan and the artifacts compiled from it into the bytes of a .ko module.
//
// The layout, checksums and validation rules live in the freestanding header
// <deepgemm/module_format.h>, shared with every runtime; this is the hosted front of its writer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <deepgemm/module_format.h>

namespace dg::module {

/// One section: its kind (dg::ko::SectionKind, or an unknown kind with ko::kSectionFlagOptional),
/// a label of at most 12 printable ASCII characters (may be empty), and its payload.
struct Section {
  uint32_t kind = 0;
  std::string name;
  std::vector<uint8_t> bytes;
  uint32_t flags = 0;
};

/// What goes into a module. Section order does not matter: the module lists them by kind.
struct ModuleContents {
  ko::TargetKind target_kind = ko::TargetKind::Gpu;
  std::string target_name;  // "hopper", or an NPU model name; 1 to 24 printable ASCII characters
  uint32_t flags = 0;       // module flags (bits 16-31 are reserved for required features)
  std::vector<Section> sections;
};

/// A section of `kind` named after the kind ("plan", "ptx", ...) holding `text`.
Section text_section(ko::SectionKind kind, const std::string& text);

/// The module's bytes. Deterministic: equal contents give identical bytes. Contents the format
/// cannot hold (two sections of one kind, a name too long, more than 64 sections, over 4 GiB) are
/// compiler bugs and raise dg::InternalError naming the problem.
std::vector<uint8_t> write(const ModuleContents& contents);

}  // namespace dg::module
