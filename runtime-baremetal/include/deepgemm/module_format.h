// The DeepGEMM module (.ko) format: layout, CRC32, a validating reader and a buffer writer.
//
// One header, shared by the compiler's writer (compiler/module/writer.cpp) and every runtime. It is
// freestanding C++20: it needs only <stdint.h> and <stddef.h>, allocates nothing, throws nothing,
// calls no library function and reads every multi-byte field byte by byte (little-endian on disk),
// so it works on unaligned buffers and big-endian hosts. It compiles the same way hosted and
// freestanding; nothing in it depends on __STDC_HOSTED__. (Like any freestanding code, it may make
// the compiler emit calls to memcpy/memset, which GCC and clang require every environment to have.)
//
// Layout, ABI version 1. All integers are unsigned little-endian; offsets are from the first byte.
//
//   offset  size  header field (64 bytes)
//   ------  ----  --------------------------------------------------------------------------------
//        0     8  magic "DGMMKO\0\1"
//        8     4  ABI version (1)
//       12     4  header size (64)
//       16     4  module flags: bits 0-15 informational (readers ignore unknown ones), bits 16-31
//                 required features (a reader rejects any it does not know; none exist in ABI 1)
//       20     4  target kind: 1 = GPU, 2 = NPU
//       24    24  target name, printable ASCII (0x21-0x7e), NUL-padded, not empty ("hopper")
//       48     4  section count (at most 64)
//       52     4  section table offset (64: right after the header)
//       56     4  file size (multiple of 16)
//       60     4  header CRC32: over bytes 0-63 with this field read as zero, then over the
//                 whole section table
//
//   offset  size  section table entry (32 bytes each, one per section)
//   ------  ----  --------------------------------------------------------------------------------
//        0     4  section kind (see SectionKind; 0 is reserved)
//        4     4  section flags: bit 0 = optional (a reader that does not know the kind skips it);
//                 other bits reserved, must be zero
//        8     4  payload offset (multiple of 16)
//       12     4  payload size
//       16     4  CRC32 of the payload
//       20    12  section name, printable ASCII, NUL-padded (may be empty, may fill all 12 bytes)
//
// Canonical placement, so that every byte of a module is checked: the table follows the header;
// sections appear in the table in strictly increasing kind order (hence no duplicates); payloads
// follow the table in table order, each starting at the next multiple of 16 after the previous
// payload (or the table); the file ends at the next multiple of 16 after the last payload. Bytes
// between payloads and at the end (padding) must be zero. Header and table are covered by the
// header CRC, payloads by their own CRCs, padding by the zero rule: any single changed byte is
// rejected.
//
// Unknown section kinds are accepted only when the section has the optional flag; a reader that
// knows a kind ignores the flag. CRC32 is IEEE 802.3 (reflected, polynomial 0xEDB88320, initial
// value and final xor 0xFFFFFFFF): crc32("123456789") == 0xCBF43926.
//
// Reading: parse() validates everything (sizes, magic, ABI, bounds with overflow-safe arithmetic,
// placement, names, kinds, flags, every CRC) before it fills a ModuleView; the view then points
// into the caller's buffer, which must stay alive and unchanged while the view is used. On failure
// the view holds no module, the returned Status says what kind of problem it is, and view.error()
// says precisely where ("section 2 (ptx) extends past end of file: offset 4096 + size 9000 > file
// size 8192").
//
// Writing: write() lays out a module into a caller buffer from sections given in kind order;
// module_size() says how large that buffer must be.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace dg::ko {

// ---- Constants ---------------------------------------------------------------------------------

inline constexpr uint8_t kMagic[8] = {'D', 'G', 'M', 'M', 'K', 'O', 0, 1};
inline constexpr uint32_t kAbiVersion = 1;
inline constexpr uint32_t kHeaderSize = 64;
inline constexpr uint32_t kSectionEntrySize = 32;
inline constexpr uint32_t kMaxSections = 64;
inline constexpr uint32_t kPayloadAlign = 16;
inline constexpr uint32_t kTargetNameSize = 24;
inline constexpr uint32_t kSectionNameSize = 12;

/// Byte offsets of the header fields.
namespace header_field {
inline constexpr uint32_t kMagic = 0;
inline constexpr uint32_t kAbiVersion = 8;
inline constexpr uint32_t kHeaderSize = 12;
inline constexpr uint32_t kFlags = 16;
inline constexpr uint32_t kTargetKind = 20;
inline constexpr uint32_t kTargetName = 24;
inline constexpr uint32_t kSectionCount = 48;
inline constexpr uint32_t kTableOffset = 52;
inline constexpr uint32_t kFileSize = 56;
inline constexpr uint32_t kCrc = 60;
}  // namespace header_field

/// Byte offsets of the fields of one section table entry.
namespace entry_field {
inline constexpr uint32_t kKind = 0;
inline constexpr uint32_t kFlags = 4;
inline constexpr uint32_t kOffset = 8;
inline constexpr uint32_t kSize = 12;
inline constexpr uint32_t kCrc = 16;
inline constexpr uint32_t kName = 20;
}  // namespace entry_field

enum class TargetKind : uint32_t { Gpu = 1, Npu = 2 };

enum class SectionKind : uint32_t {
  Plan = 1,         // the solved Plan, JSON text
  Proof = 2,        // proof / certificate summary, text or JSON
  Ptx = 3,          // PTX text
  Cubin = 4,        // cubin from ptxas, binary
  NpuRegmap = 5,    // NPU register table, binary: layout and reader in <deepgemm/npu_regmap.h>
  Verilog = 6,      // generated Verilog text
  Launch = 7,       // launch hints (grid, block, shared memory, bindings)
  Synth = 8,        // synthesis report text
  CachePolicy = 9,  // cache and carve-out policy
  Bitstream = 10,   // FPGA bitstream of the design on the model's board (iCE40: icepack's .bin), binary
  Signature = 11,   // Ed25519 signature over the other sections: layout in <deepgemm/module_signature.h>
};
inline constexpr uint32_t kMaxKnownSectionKind = 11;

/// Module flags, bits 16-31: features a reader must understand. ABI 1 defines none.
inline constexpr uint32_t kModuleFlagsRequiredMask = 0xFFFF0000u;
inline constexpr uint32_t kModuleFlagsKnownRequired = 0;

/// Section flag: a reader that does not know this section's kind may skip it.
inline constexpr uint32_t kSectionFlagOptional = 1u << 0;
inline constexpr uint32_t kSectionFlagsKnown = kSectionFlagOptional;

// ---- Status ------------------------------------------------------------------------------------

enum class Status : uint32_t {
  Ok = 0,
  NullArgument,             // a required pointer argument is null
  Truncated,                // fewer bytes than the header, or than the header's file size
  BadMagic,                 // not a DeepGEMM module
  UnsupportedAbi,           // ABI version other than kAbiVersion
  BadHeaderSize,            // header size field is not 64
  BadFileSize,              // file size field not a multiple of 16, or not where the layout ends
  TrailingData,             // more bytes than the header's file size (exact parse only)
  TooManySections,          // section count above kMaxSections
  BadSectionTableOffset,    // the table does not follow the header
  SectionTableOutOfBounds,  // the table extends past the end of the file
  HeaderChecksumMismatch,   // header CRC wrong: header or section table corrupt
  BadTargetKind,            // target kind is neither GPU nor NPU
  BadTargetName,            // target name empty, or not printable ASCII followed by NUL padding
  UnsupportedFlags,         // the module requires a feature this reader does not know
  BadSectionKind,           // section kind 0 (reserved)
  UnknownSectionKind,       // section kind unknown and not marked optional
  DuplicateSection,         // two sections of the same kind
  SectionOrder,             // section kinds not in increasing order
  BadSectionFlags,          // reserved section flag bits set
  BadSectionName,           // section name not printable ASCII followed by NUL padding
  SectionMisaligned,        // payload offset not a multiple of 16
  SectionOverlap,           // payload overlaps the section table or the previous payload
  SectionGap,               // payload does not start where the previous one (padded) ends
  SectionOutOfBounds,       // payload extends past the end of the file
  NonZeroPadding,           // a padding byte is not zero
  SectionChecksumMismatch,  // payload CRC wrong
  BufferTooSmall,           // write(): output buffer smaller than module_size()
  TooLarge,                 // write(): the module would not fit the 32-bit file size
};

/// A fixed English sentence for each status ("module is truncated"); view.error() is more precise.
constexpr const char* status_message(Status s) {
  switch (s) {
    case Status::Ok: return "ok";
    case Status::NullArgument: return "null argument";
    case Status::Truncated: return "module is truncated";
    case Status::BadMagic: return "not a DeepGEMM module (bad magic)";
    case Status::UnsupportedAbi: return "unsupported module ABI version";
    case Status::BadHeaderSize: return "bad header size";
    case Status::BadFileSize: return "bad file size in header";
    case Status::TrailingData: return "trailing bytes after the end of the module";
    case Status::TooManySections: return "too many sections";
    case Status::BadSectionTableOffset: return "section table does not follow the header";
    case Status::SectionTableOutOfBounds: return "section table extends past end of file";
    case Status::HeaderChecksumMismatch: return "header checksum mismatch";
    case Status::BadTargetKind: return "unknown target kind";
    case Status::BadTargetName: return "bad target name";
    case Status::UnsupportedFlags: return "module requires features this reader does not support";
    case Status::BadSectionKind: return "reserved section kind 0";
    case Status::UnknownSectionKind: return "unknown section kind";
    case Status::DuplicateSection: return "duplicate section";
    case Status::SectionOrder: return "sections out of order";
    case Status::BadSectionFlags: return "reserved section flags set";
    case Status::BadSectionName: return "bad section name";
    case Status::SectionMisaligned: return "section offset not aligned to 16 bytes";
    case Status::SectionOverlap: return "sections overlap";
    case Status::SectionGap: return "gap before section";
    case Status::SectionOutOfBounds: return "section extends past end of file";
    case Status::NonZeroPadding: return "non-zero padding byte";
    case Status::SectionChecksumMismatch: return "section checksum mismatch";
    case Status::BufferTooSmall: return "output buffer too small";
    case Status::TooLarge: return "module too large";
  }
  return "unknown status";
}

/// "plan", "ptx", ...; nullptr for an unknown kind.
constexpr const char* section_kind_name(uint32_t kind) {
  switch (kind) {
    case 1: return "plan";
    case 2: return "proof";
    case 3: return "ptx";
    case 4: return "cubin";
    case 5: return "npu_regmap";
    case 6: return "verilog";
    case 7: return "launch";
    case 8: return "synth";
    case 9: return "cache_policy";
    case 10: return "bitstream";
    case 11: return "signature";
    default: return nullptr;
  }
}

/// "gpu", "npu"; nullptr for an unknown kind.
constexpr const char* target_kind_name(uint32_t kind) { return kind == 1 ? "gpu" : kind == 2 ? "npu" : nullptr; }

// ---- CRC32 (IEEE 802.3, reflected) -------------------------------------------------------------

namespace detail {
struct CrcNibbleTable {
  uint32_t v[16];
};
constexpr CrcNibbleTable make_crc_nibble_table() {
  CrcNibbleTable t{};
  for (uint32_t i = 0; i < 16; ++i) {
    uint32_t c = i;
    for (int b = 0; b < 4; ++b) c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : (c >> 1);
    t.v[i] = c;
  }
  return t;
}
inline constexpr CrcNibbleTable kCrcNibble = make_crc_nibble_table();
}  // namespace detail

inline constexpr uint32_t kCrc32Init = 0xFFFFFFFFu;

/// Feeds bytes into a running CRC register (start from kCrc32Init, finish with crc32_final).
constexpr uint32_t crc32_update(uint32_t state, const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    state ^= p[i];
    state = (state >> 4) ^ detail::kCrcNibble.v[state & 15u];
    state = (state >> 4) ^ detail::kCrcNibble.v[state & 15u];
  }
  return state;
}
constexpr uint32_t crc32_final(uint32_t state) { return state ^ 0xFFFFFFFFu; }
constexpr uint32_t crc32(const uint8_t* p, size_t n) { return crc32_final(crc32_update(kCrc32Init, p, n)); }

namespace detail {
inline constexpr uint8_t kCrcCheckInput[9] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
static_assert(crc32(kCrcCheckInput, 9) == 0xCBF43926u, "CRC32 check value");
}  // namespace detail

// ---- Byte access -------------------------------------------------------------------------------

constexpr uint32_t load_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}
constexpr void store_u32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
  p[2] = static_cast<uint8_t>(v >> 16);
  p[3] = static_cast<uint8_t>(v >> 24);
}
constexpr uint64_t align_up(uint64_t v) {
  return (v + (kPayloadAlign - 1)) & ~static_cast<uint64_t>(kPayloadAlign - 1);
}

/// The header CRC of a module whose header and section table (section count read from the header)
/// are in memory. The caller guarantees those bytes exist; parse() checks that before calling.
constexpr uint32_t compute_header_crc(const uint8_t* module) {
  const uint8_t zero[4] = {0, 0, 0, 0};
  uint32_t s = crc32_update(kCrc32Init, module, header_field::kCrc);
  s = crc32_update(s, zero, 4);
  const uint32_t count = load_u32(module + header_field::kSectionCount);
  return crc32_final(crc32_update(s, module + kHeaderSize, static_cast<size_t>(count) * kSectionEntrySize));
}

// ---- Error detail (freestanding formatting) ----------------------------------------------------

inline constexpr size_t kErrorDetailSize = 192;

/// A precise error message, always NUL-terminated; silently truncated when too long. str() and
/// chr() are kept out of line: inlined into every message chain they cost kilobytes of code on a
/// small target (rv32 -Os: a third of the bare-metal runtime).
struct ErrorDetail {
  char text[kErrorDetailSize] = {};
  size_t len = 0;

  void clear() {
    len = 0;
    text[0] = '\0';
  }
  [[gnu::noinline]] ErrorDetail& str(const char* s) {
    if (s == nullptr) return *this;
    while (*s != '\0' && len + 1 < kErrorDetailSize) text[len++] = *s++;
    text[len] = '\0';
    return *this;
  }
  [[gnu::noinline]] ErrorDetail& chr(char c) {
    if (len + 1 < kErrorDetailSize) text[len++] = c;
    text[len] = '\0';
    return *this;
  }
  ErrorDetail& num(uint64_t v) {
    char digits[20];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0) chr(digits[--n]);
    return *this;
  }
  ErrorDetail& hex(uint32_t v, int width = 8) {
    str("0x");
    for (int i = width - 1; i >= 0; --i) chr("0123456789abcdef"[(v >> (4 * i)) & 15u]);
    return *this;
  }
  /// "section 2 (ptx)" or "section 2 (kind 77)".
  ErrorDetail& section(uint32_t index, uint32_t kind) {
    str("section ").num(index).str(" (");
    if (const char* name = section_kind_name(kind)) {
      str(name);
    } else {
      str("kind ").num(kind);
    }
    return chr(')');
  }
};

// ---- Reader ------------------------------------------------------------------------------------

/// A section's payload: a pointer into the module buffer and a size. `present` is false when the
/// module has no section of the requested kind.
struct Payload {
  const uint8_t* data = nullptr;
  uint32_t size = 0;
  bool present = false;
  explicit operator bool() const { return present; }
};

/// Everything about one section, decoded from its table entry.
struct SectionInfo {
  uint32_t index = 0;
  uint32_t kind = 0;
  uint32_t flags = 0;
  uint32_t offset = 0;
  uint32_t size = 0;
  uint32_t crc = 0;
  const uint8_t* data = nullptr;
  char name[kSectionNameSize + 1] = {};  // NUL-terminated copy
};

/// How parse() treats bytes after the header's file size.
enum class Extent {
  Exact,   // the buffer is exactly the module (a file): extra bytes are TrailingData
  Prefix,  // the module starts the buffer and may be followed by anything (a flash region)
};

/// A validated module. Filled by parse(); it points into the parsed buffer.
struct ModuleView {
  Status status = Status::NullArgument;  // Ok once parse() succeeded
  ErrorDetail detail;                    // why parse() failed, empty on success

  const uint8_t* data = nullptr;
  uint32_t file_size = 0;
  uint32_t abi_version = 0;
  uint32_t flags = 0;
  TargetKind target_kind = TargetKind::Gpu;
  char target_name[kTargetNameSize + 1] = {};  // NUL-terminated copy
  uint32_t section_count = 0;
  uint32_t header_crc = 0;

  bool ok() const { return status == Status::Ok; }

  /// The precise error message, or status_message(status) when there is no detail.
  const char* error() const { return detail.len != 0 ? detail.text : status_message(status); }

  /// Decodes table entry `index`; false when the view is not valid or index >= section_count.
  bool section(uint32_t index, SectionInfo* out) const {
    if (out == nullptr || status != Status::Ok || data == nullptr || index >= section_count) {
      return false;
    }
    const uint8_t* e = data + kHeaderSize + static_cast<size_t>(index) * kSectionEntrySize;
    SectionInfo s;
    s.index = index;
    s.kind = load_u32(e + entry_field::kKind);
    s.flags = load_u32(e + entry_field::kFlags);
    s.offset = load_u32(e + entry_field::kOffset);
    s.size = load_u32(e + entry_field::kSize);
    s.crc = load_u32(e + entry_field::kCrc);
    // Validated by parse(); checked again so that a view of a buffer modified after parsing still
    // never points outside it.
    if (static_cast<uint64_t>(s.offset) + s.size > file_size) return false;
    s.data = data + s.offset;
    for (uint32_t i = 0; i < kSectionNameSize; ++i) s.name[i] = static_cast<char>(e[entry_field::kName + i]);
    s.name[kSectionNameSize] = '\0';
    *out = s;
    return true;
  }

  /// The payload of the section of `kind`, if the module has one.
  Payload find(uint32_t kind) const {
    Payload p;
    for (uint32_t i = 0; i < section_count; ++i) {
      SectionInfo s;
      if (section(i, &s) && s.kind == kind) {
        p.data = s.data;
        p.size = s.size;
        p.present = true;
        break;
      }
    }
    return p;
  }
  Payload find(SectionKind kind) const { return find(static_cast<uint32_t>(kind)); }
};

namespace detail {

/// Checks a NUL-padded name field: printable ASCII (0x21-0x7e), then only NUL bytes.
/// Returns -1 when valid, else the position of the first bad byte; *len gets the name's length.
constexpr int check_name(const uint8_t* p, uint32_t size, uint32_t* len) {
  uint32_t i = 0;
  while (i < size && p[i] >= 0x21 && p[i] <= 0x7e) ++i;
  *len = i;
  for (uint32_t j = i; j < size; ++j) {
    if (p[j] != 0) return static_cast<int>(j);
  }
  return -1;
}

inline Status fail(ModuleView* v, Status s) {
  v->status = s;
  v->data = nullptr;
  v->file_size = 0;
  v->section_count = 0;
  return s;
}

/// Checks that [from, to) is all zero; reports the first non-zero byte.
inline bool check_padding(const uint8_t* data, uint64_t from, uint64_t to, ModuleView* v, uint32_t before_index,
                          uint32_t before_kind) {
  for (uint64_t i = from; i < to; ++i) {
    if (data[i] != 0) {
      v->detail.str("padding byte at offset ").num(i).str(" ");
      if (before_kind != 0) {
        v->detail.str("(before ").section(before_index, before_kind).str(")");
      } else {
        v->detail.str("(after the last section)");
      }
      v->detail.str(" is ").hex(data[i], 2).str(", must be 0");
      return false;
    }
  }
  return true;
}

}  // namespace detail

/// Validates `size` bytes at `data` as a module and fills *out. Returns out->status. Nothing in the
/// buffer is trusted before it is checked; no byte outside [data, data + size) is read.
inline Status parse(const uint8_t* data, size_t size, ModuleView* out, Extent extent = Extent::Exact) {
  if (out == nullptr) return Status::NullArgument;
  *out = ModuleView{};
  ModuleView* v = out;
  ErrorDetail& d = v->detail;
  using detail::fail;

  if (data == nullptr && size != 0) {
    d.str("module data pointer is null but size is ").num(size);
    return fail(v, Status::NullArgument);
  }
  if (size < kHeaderSize) {
    d.str("module is truncated: ").num(size).str(" bytes, smaller than the ").num(kHeaderSize).str("-byte header");
    return fail(v, Status::Truncated);
  }
  for (uint32_t i = 0; i < 8; ++i) {
    if (data[header_field::kMagic + i] != kMagic[i]) {
      d.str("not a DeepGEMM module: bad magic at byte ").num(i).str(" (expected \"DGMMKO\\0\\1\")");
      return fail(v, Status::BadMagic);
    }
  }
  const uint32_t abi = load_u32(data + header_field::kAbiVersion);
  if (abi != kAbiVersion) {
    d.str("unsupported module ABI version ").num(abi).str(" (this reader supports version ").num(kAbiVersion).chr(')');
    return fail(v, Status::UnsupportedAbi);
  }
  const uint32_t header_size = load_u32(data + header_field::kHeaderSize);
  if (header_size != kHeaderSize) {
    d.str("bad header size ").num(header_size).str(" (ABI ").num(kAbiVersion).str(" uses ").num(kHeaderSize).chr(')');
    return fail(v, Status::BadHeaderSize);
  }
  const uint32_t file_size = load_u32(data + header_field::kFileSize);
  if (file_size < kHeaderSize || file_size % kPayloadAlign != 0) {
    d.str("bad file size ")
        .num(file_size)
        .str(" in header (must be at least ")
        .num(kHeaderSize)
        .str(" and a multiple of ")
        .num(kPayloadAlign)
        .chr(')');
    return fail(v, Status::BadFileSize);
  }
  if (file_size > size) {
    d.str("module is truncated: header gives file size ")
        .num(file_size)
        .str(" but only ")
        .num(size)
        .str(" bytes are present");
    return fail(v, Status::Truncated);
  }
  if (extent == Extent::Exact && file_size < size) {
    d.str("trailing data: file is ").num(size).str(" bytes but the module ends at ").num(file_size);
    return fail(v, Status::TrailingData);
  }
  const uint32_t count = load_u32(data + header_field::kSectionCount);
  if (count > kMaxSections) {
    d.str("section count ").num(count).str(" exceeds the limit of ").num(kMaxSections);
    return fail(v, Status::TooManySections);
  }
  const uint32_t table_offset = load_u32(data + header_field::kTableOffset);
  if (table_offset != kHeaderSize) {
    d.str("section table offset ")
        .num(table_offset)
        .str(", expected ")
        .num(kHeaderSize)
        .str(" (right after the header)");
    return fail(v, Status::BadSectionTableOffset);
  }
  const uint64_t table_end = static_cast<uint64_t>(kHeaderSize) + static_cast<uint64_t>(count) * kSectionEntrySize;
  if (table_end > file_size) {
    d.str("section table (")
        .num(count)
        .str(" entries) ends at ")
        .num(table_end)
        .str(", past file size ")
        .num(file_size);
    return fail(v, Status::SectionTableOutOfBounds);
  }
  const uint32_t stored_crc = load_u32(data + header_field::kCrc);
  const uint32_t computed_crc = compute_header_crc(data);
  if (stored_crc != computed_crc) {
    d.str("header checksum mismatch: stored ").hex(stored_crc).str(", computed ").hex(computed_crc);
    return fail(v, Status::HeaderChecksumMismatch);
  }

  const uint32_t target_kind = load_u32(data + header_field::kTargetKind);
  if (target_kind_name(target_kind) == nullptr) {
    d.str("unknown target kind ").num(target_kind).str(" (1 = gpu, 2 = npu)");
    return fail(v, Status::BadTargetKind);
  }
  uint32_t name_len = 0;
  const int bad_target = detail::check_name(data + header_field::kTargetName, kTargetNameSize, &name_len);
  if (bad_target >= 0 || name_len == 0) {
    if (bad_target >= 0) {
      d.str("bad target name: byte ")
          .num(static_cast<uint32_t>(bad_target))
          .str(" is ")
          .hex(data[header_field::kTargetName + bad_target], 2)
          .str(" (expected printable ASCII, then NUL padding)");
    } else {
      d.str("bad target name: empty");
    }
    return fail(v, Status::BadTargetName);
  }
  const uint32_t flags = load_u32(data + header_field::kFlags);
  const uint32_t unknown_required = flags & kModuleFlagsRequiredMask & ~kModuleFlagsKnownRequired;
  if (unknown_required != 0) {
    d.str("module requires features ").hex(unknown_required).str(" that this reader does not support");
    return fail(v, Status::UnsupportedFlags);
  }

  uint64_t prev_end = table_end;  // end of the previous payload (or of the table)
  uint32_t prev_kind = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* e = data + kHeaderSize + static_cast<size_t>(i) * kSectionEntrySize;
    const uint32_t kind = load_u32(e + entry_field::kKind);
    const uint32_t sflags = load_u32(e + entry_field::kFlags);
    const uint32_t offset = load_u32(e + entry_field::kOffset);
    const uint32_t ssize = load_u32(e + entry_field::kSize);
    const uint32_t scrc = load_u32(e + entry_field::kCrc);
    if (kind == 0) {
      d.str("section ").num(i).str(" has reserved kind 0");
      return fail(v, Status::BadSectionKind);
    }
    if (kind == prev_kind) {
      d.section(i, kind).str(" duplicates section ").num(i - 1).str(" (one section per kind)");
      return fail(v, Status::DuplicateSection);
    }
    if (kind < prev_kind) {
      d.section(i, kind)
          .str(" is out of order: section ")
          .num(i - 1)
          .str(" has kind ")
          .num(prev_kind)
          .str(" (kinds must increase)");
      return fail(v, Status::SectionOrder);
    }
    if ((sflags & ~kSectionFlagsKnown) != 0) {
      d.section(i, kind).str(" has reserved flag bits ").hex(sflags & ~kSectionFlagsKnown).str(" set");
      return fail(v, Status::BadSectionFlags);
    }
    if (kind > kMaxKnownSectionKind && (sflags & kSectionFlagOptional) == 0) {
      d.section(i, kind).str(" has a kind this reader does not know and is not marked optional");
      return fail(v, Status::UnknownSectionKind);
    }
    const int bad_name = detail::check_name(e + entry_field::kName, kSectionNameSize, &name_len);
    if (bad_name >= 0) {
      d.section(i, kind)
          .str(" has a bad name: byte ")
          .num(static_cast<uint32_t>(bad_name))
          .str(" is ")
          .hex(e[entry_field::kName + bad_name], 2)
          .str(" (expected printable ASCII, then NUL padding)");
      return fail(v, Status::BadSectionName);
    }
    if (offset % kPayloadAlign != 0) {
      d.section(i, kind).str(" offset ").num(offset).str(" is not a multiple of ").num(kPayloadAlign);
      return fail(v, Status::SectionMisaligned);
    }
    if (offset < prev_end) {
      d.section(i, kind).str(" at offset ").num(offset).str(" overlaps ");
      if (i == 0) {
        d.str("the section table, which ends at ");
      } else {
        d.section(i - 1, prev_kind).str(", which ends at ");
      }
      d.num(prev_end);
      return fail(v, Status::SectionOverlap);
    }
    const uint64_t expected = align_up(prev_end);
    if (offset != expected) {
      d.section(i, kind)
          .str(" starts at offset ")
          .num(offset)
          .str(", expected ")
          .num(expected)
          .str(" (payloads are packed in table order)");
      return fail(v, Status::SectionGap);
    }
    const uint64_t end = static_cast<uint64_t>(offset) + ssize;
    if (end > file_size) {
      d.section(i, kind)
          .str(" extends past end of file: offset ")
          .num(offset)
          .str(" + size ")
          .num(ssize)
          .str(" > file size ")
          .num(file_size);
      return fail(v, Status::SectionOutOfBounds);
    }
    if (!detail::check_padding(data, prev_end, offset, v, i, kind)) return fail(v, Status::NonZeroPadding);
    const uint32_t computed = crc32(data + offset, ssize);
    if (computed != scrc) {
      d.section(i, kind).str(" checksum mismatch: stored ").hex(scrc).str(", computed ").hex(computed);
      return fail(v, Status::SectionChecksumMismatch);
    }
    prev_end = end;
    prev_kind = kind;
  }
  if (align_up(prev_end) != file_size) {
    d.str("file size ")
        .num(file_size)
        .str(" does not match the end of the last section (")
        .num(prev_end)
        .str(", padded to ")
        .num(align_up(prev_end))
        .chr(')');
    return fail(v, Status::BadFileSize);
  }
  if (!detail::check_padding(data, prev_end, file_size, v, 0, 0)) return fail(v, Status::NonZeroPadding);

  v->status = Status::Ok;
  v->data = data;
  v->file_size = file_size;
  v->abi_version = abi;
  v->flags = flags;
  v->target_kind = static_cast<TargetKind>(target_kind);
  for (uint32_t i = 0; i < kTargetNameSize; ++i)
    v->target_name[i] = static_cast<char>(data[header_field::kTargetName + i]);
  v->target_name[kTargetNameSize] = '\0';
  v->section_count = count;
  v->header_crc = stored_crc;
  return Status::Ok;
}

// ---- Writer ------------------------------------------------------------------------------------

/// One section to write. `name` is NUL-terminated (up to 12 printable ASCII characters) or null
/// for an empty name; `data` may be null when `size` is 0.
struct SectionSpec {
  uint32_t kind = 0;
  uint32_t flags = 0;
  const char* name = nullptr;
  const uint8_t* data = nullptr;
  uint32_t size = 0;
};

/// What write() needs besides the sections.
struct ModuleSpec {
  TargetKind target_kind = TargetKind::Gpu;
  const char* target_name = nullptr;  // NUL-terminated, 1 to 24 printable ASCII characters
  uint32_t flags = 0;
  const SectionSpec* sections = nullptr;  // in strictly increasing kind order
  uint32_t section_count = 0;
};

/// Bytes the module will occupy, or 0 when it would exceed the 32-bit file size (or count is out of
/// range).
constexpr uint64_t module_size(const SectionSpec* sections, uint32_t count) {
  if (count > kMaxSections || (count != 0 && sections == nullptr)) return 0;
  uint64_t end = static_cast<uint64_t>(kHeaderSize) + static_cast<uint64_t>(count) * kSectionEntrySize;
  for (uint32_t i = 0; i < count; ++i) end = align_up(end) + sections[i].size;
  end = align_up(end);
  return end > 0xFFFFFFFFull ? 0 : end;
}

namespace detail {
/// True when `name` (NUL-terminated, or null for "") fits a `size`-byte name field: printable ASCII
/// only, at most `size` characters, and not empty unless `allow_empty`.
constexpr bool name_fits(const char* name, uint32_t size, bool allow_empty) {
  uint32_t n = 0;
  if (name != nullptr) {
    for (; name[n] != '\0'; ++n) {
      const uint8_t c = static_cast<uint8_t>(name[n]);
      if (n == size || c < 0x21 || c > 0x7e) return false;
    }
  }
  return allow_empty || n != 0;
}
/// Copies a name accepted by name_fits() into its NUL-padded field.
constexpr void put_name(uint8_t* field, uint32_t size, const char* name) {
  uint32_t n = 0;
  if (name != nullptr) {
    for (; name[n] != '\0'; ++n) field[n] = static_cast<uint8_t>(name[n]);
  }
  for (; n < size; ++n) field[n] = 0;
}
}  // namespace detail

/// Lays out a module into buf[0, cap) and stores its size in *written. Validates the spec with the
/// reader's rules (names, kinds in increasing order, flags) and reports problems in *err
/// (optional). Output depends only on the spec: the same spec always gives the same bytes.
inline Status write(const ModuleSpec& spec, uint8_t* buf, size_t cap, size_t* written, ErrorDetail* err = nullptr) {
  ErrorDetail scratch;
  ErrorDetail& d = err != nullptr ? *err : scratch;
  d.clear();
  if (written != nullptr) *written = 0;
  if (buf == nullptr || written == nullptr || (spec.section_count != 0 && spec.sections == nullptr)) {
    d.str("write: null buffer, size or section pointer");
    return Status::NullArgument;
  }
  if (spec.section_count > kMaxSections) {
    d.str("section count ").num(spec.section_count).str(" exceeds the limit of ").num(kMaxSections);
    return Status::TooManySections;
  }
  if (target_kind_name(static_cast<uint32_t>(spec.target_kind)) == nullptr) {
    d.str("unknown target kind ").num(static_cast<uint32_t>(spec.target_kind)).str(" (1 = gpu, 2 = npu)");
    return Status::BadTargetKind;
  }
  if (!detail::name_fits(spec.target_name, kTargetNameSize, false)) {
    d.str("bad target name: must be 1 to ").num(kTargetNameSize).str(" printable ASCII characters");
    return Status::BadTargetName;
  }
  if ((spec.flags & kModuleFlagsRequiredMask & ~kModuleFlagsKnownRequired) != 0) {
    d.str("module flags ")
        .hex(spec.flags)
        .str(" set required-feature bits that ABI ")
        .num(kAbiVersion)
        .str(" does not define");
    return Status::UnsupportedFlags;
  }
  uint32_t prev_kind = 0;
  for (uint32_t i = 0; i < spec.section_count; ++i) {
    const SectionSpec& s = spec.sections[i];
    if (s.kind == 0) {
      d.str("section ").num(i).str(" has reserved kind 0");
      return Status::BadSectionKind;
    }
    if (s.kind == prev_kind) {
      d.section(i, s.kind).str(" duplicates section ").num(i - 1).str(" (one section per kind)");
      return Status::DuplicateSection;
    }
    if (s.kind < prev_kind) {
      d.section(i, s.kind).str(" is out of order (kinds must increase)");
      return Status::SectionOrder;
    }
    if ((s.flags & ~kSectionFlagsKnown) != 0) {
      d.section(i, s.kind).str(" has reserved flag bits ").hex(s.flags & ~kSectionFlagsKnown).str(" set");
      return Status::BadSectionFlags;
    }
    if (s.kind > kMaxKnownSectionKind && (s.flags & kSectionFlagOptional) == 0) {
      d.section(i, s.kind).str(" has an unknown kind and is not marked optional");
      return Status::UnknownSectionKind;
    }
    if (!detail::name_fits(s.name, kSectionNameSize, true)) {
      d.section(i, s.kind)
          .str(" has a bad name: must be at most ")
          .num(kSectionNameSize)
          .str(" printable ASCII characters");
      return Status::BadSectionName;
    }
    if (s.size != 0 && s.data == nullptr) {
      d.section(i, s.kind).str(" has size ").num(s.size).str(" but no data");
      return Status::NullArgument;
    }
    prev_kind = s.kind;
  }
  const uint64_t total = module_size(spec.sections, spec.section_count);
  if (total == 0) {
    d.str("module would exceed the 32-bit file size limit");
    return Status::TooLarge;
  }
  if (total > cap) {
    d.str("output buffer holds ").num(cap).str(" bytes, the module needs ").num(total);
    return Status::BufferTooSmall;
  }

  for (uint64_t i = 0; i < total; ++i) buf[i] = 0;
  for (uint32_t i = 0; i < 8; ++i) buf[header_field::kMagic + i] = kMagic[i];
  store_u32(buf + header_field::kAbiVersion, kAbiVersion);
  store_u32(buf + header_field::kHeaderSize, kHeaderSize);
  store_u32(buf + header_field::kFlags, spec.flags);
  store_u32(buf + header_field::kTargetKind, static_cast<uint32_t>(spec.target_kind));
  detail::put_name(buf + header_field::kTargetName, kTargetNameSize, spec.target_name);
  store_u32(buf + header_field::kSectionCount, spec.section_count);
  store_u32(buf + header_field::kTableOffset, kHeaderSize);
  store_u32(buf + header_field::kFileSize, static_cast<uint32_t>(total));

  uint64_t pos = static_cast<uint64_t>(kHeaderSize) + static_cast<uint64_t>(spec.section_count) * kSectionEntrySize;
  for (uint32_t i = 0; i < spec.section_count; ++i) {
    const SectionSpec& s = spec.sections[i];
    uint8_t* e = buf + kHeaderSize + static_cast<size_t>(i) * kSectionEntrySize;
    pos = align_up(pos);
    store_u32(e + entry_field::kKind, s.kind);
    store_u32(e + entry_field::kFlags, s.flags);
    store_u32(e + entry_field::kOffset, static_cast<uint32_t>(pos));
    store_u32(e + entry_field::kSize, s.size);
    store_u32(e + entry_field::kCrc, crc32(s.data, s.size));
    detail::put_name(e + entry_field::kName, kSectionNameSize, s.name);
    for (uint32_t j = 0; j < s.size; ++j) buf[pos + j] = s.data[j];
    pos += s.size;
  }
  store_u32(buf + header_field::kCrc, compute_header_crc(buf));
  *written = static_cast<size_t>(total);
  return Status::Ok;
}

}  // namespace dg::ko
