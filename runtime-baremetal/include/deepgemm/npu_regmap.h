// The NPU register table: the binary payload of a module's npu_regmap section (SectionKind::
// NpuRegmap), with a validating reader and a buffer writer.
//
// It tells a runtime where the registers of the generated NPU top are, by name, so that software
// never hard-codes offsets: the compiler writes it from the design (hdl-gen/hdlgen/
// regmap_binary.cpp), the freestanding runtime reads it to program the NPU, `deepgemm inspect`
// prints it. Freestanding C++20 like <deepgemm/module_format.h>: no allocation, no exceptions, no
// library calls, every field read byte by byte (little-endian), so unaligned buffers are fine.
//
// Layout, table version 3. All integers are unsigned little-endian.
//
//   offset  size  header (40 bytes)
//   ------  ----  --------------------------------------------------------------------------------
//        0     4  magic "DGRM"
//        4     4  table version (3)
//        8     4  header size (40)
//       12     4  record size (24)
//       16     8  MMIO base: physical address of the register block (register offsets are from it)
//       24     4  register count (1 to 256)
//       28     4  design ID: the value the design's ID register reads (a hash of its plan)
//       32     4  bus address bits: the width of the design's DMA addresses, 32 to 64 (an operand
//                 must lie below 2^bits)
//       36     4  bus beat bytes: the DMA moves whole beats of this many bytes, so that bases and
//                 leading dimensions are multiples of it (a power of two, 1 to 4096)
//
// A version 1 table (written before the address width was recorded) has the 32-byte header
// above without its last two fields; the reader takes it as a design with 32-bit addresses. A
// version 2 table has the 40-byte header with zero at byte 36 (reserved): its beat is not
// recorded (View::beat_bytes 0), and its design has no leading-dimension registers.
//
//   offset  size  record (24 bytes each, one per register, right after the header)
//   ------  ----  --------------------------------------------------------------------------------
//        0    16  name: 1 to 15 printable ASCII characters (0x21-0x7e), NUL-padded; byte 15 is
//                 always NUL, so the field is a C string
//       16     4  offset from the MMIO base: a multiple of 4, below 4096 (one 4 KB register page)
//       20     4  access: bit 0 readable, bit 1 writable (at least one set); other bits zero
//
// The payload is exactly header + count * record bytes. Names are unique (offsets need not be:
// a read-only and a write-only register may share one). Registers are 32 bits wide.
//
// Reading: parse() checks all of the above before it fills a View; the view points into the
// caller's buffer. Writing: write() encodes a list of registers with the same rules.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <deepgemm/module_format.h>

namespace dg::ko::regmap {

// ---- Constants ---------------------------------------------------------------------------------

inline constexpr uint8_t kMagic[4] = {'D', 'G', 'R', 'M'};
inline constexpr uint32_t kVersion = 3;
inline constexpr uint32_t kHeaderSize = 40;
inline constexpr uint32_t kHeaderSizeV1 = 32;  // version 1: no address width (32 bits)
inline constexpr uint32_t kMinAddrBits = 32;
inline constexpr uint32_t kMaxAddrBits = 64;
inline constexpr uint32_t kRecordSize = 24;
inline constexpr uint32_t kNameSize = 16;  // field size; names have at most kNameSize - 1 chars
inline constexpr uint32_t kMaxRegisters = 256;
inline constexpr uint32_t kWindow = 4096;  // offsets lie in [0, kWindow)

inline constexpr uint32_t kAccessRead = 1u << 0;
inline constexpr uint32_t kAccessWrite = 1u << 1;
inline constexpr uint32_t kAccessKnown = kAccessRead | kAccessWrite;

/// Byte offsets of the header fields.
namespace header_field {
inline constexpr uint32_t kMagic = 0;
inline constexpr uint32_t kVersion = 4;
inline constexpr uint32_t kHeaderSize = 8;
inline constexpr uint32_t kRecordSize = 12;
inline constexpr uint32_t kMmioBase = 16;
inline constexpr uint32_t kCount = 24;
inline constexpr uint32_t kDesignId = 28;
inline constexpr uint32_t kAddrBits = 32;
inline constexpr uint32_t kBeatBytes = 36;  // version 3 (reserved, zero, in version 2)
}  // namespace header_field

/// Byte offsets of the fields of one record.
namespace record_field {
inline constexpr uint32_t kName = 0;
inline constexpr uint32_t kOffset = 16;
inline constexpr uint32_t kAccess = 20;
}  // namespace record_field

// ---- Status ------------------------------------------------------------------------------------

enum class Status : uint32_t {
  Ok = 0,
  NullArgument,        // a required pointer is null
  Truncated,           // fewer bytes than the header, or than its register count needs
  BadMagic,            // not a register table
  UnsupportedVersion,  // table version other than 1 to kVersion
  BadHeaderSize,       // header size field is not 40 (version 1: 32)
  BadRecordSize,       // record size field is not 24
  BadCount,            // no registers, or more than kMaxRegisters
  TrailingData,        // more bytes than header + count * record
  BadName,             // empty, too long, not printable ASCII, or not NUL-padded
  DuplicateName,       // two registers with the same name
  BadOffset,           // offset not a multiple of 4, or not below 4096
  BadAccess,           // neither readable nor writable, or reserved access bits set
  BufferTooSmall,      // write(): output buffer too small
  BadAddrBits,         // bus address bits outside 32 to 64, or the beat field bad (version 3: not a power of
                       // two up to 4096; version 2: not zero)
};

/// A fixed English sentence for each status; View::error() is more precise.
constexpr const char* status_message(Status s) {
  switch (s) {
    case Status::Ok: return "ok";
    case Status::NullArgument: return "null argument";
    case Status::Truncated: return "register table is truncated";
    case Status::BadMagic: return "not a register table (bad magic)";
    case Status::UnsupportedVersion: return "unsupported register table version";
    case Status::BadHeaderSize: return "bad register table header size";
    case Status::BadRecordSize: return "bad register record size";
    case Status::BadCount: return "bad register count";
    case Status::TrailingData: return "trailing bytes after the register table";
    case Status::BadName: return "bad register name";
    case Status::DuplicateName: return "duplicate register name";
    case Status::BadOffset: return "bad register offset";
    case Status::BadAccess: return "bad register access flags";
    case Status::BufferTooSmall: return "output buffer too small";
    case Status::BadAddrBits: return "bad bus address width";
  }
  return "unknown status";
}

/// "ro", "wo", "rw" (or "--" for flags parse() would reject).
constexpr const char* access_name(uint32_t access) {
  return access == kAccessRead ? "ro" : access == kAccessWrite ? "wo" : access == kAccessKnown ? "rw" : "--";
}

constexpr uint64_t load_u64(const uint8_t* p) {
  return static_cast<uint64_t>(load_u32(p)) | (static_cast<uint64_t>(load_u32(p + 4)) << 32);
}
constexpr void store_u64(uint8_t* p, uint64_t v) {
  store_u32(p, static_cast<uint32_t>(v));
  store_u32(p + 4, static_cast<uint32_t>(v >> 32));
}

// ---- Reader ------------------------------------------------------------------------------------

/// Whether [address, address + bytes) lies inside an `addr_bits`-bit address space (32 to 64):
/// the bytes a bus of that width reaches. An empty range needs its address inside.
constexpr bool reaches(uint32_t addr_bits, uint64_t address, uint64_t bytes) {
  const uint64_t last = addr_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << addr_bits) - 1;
  return address <= last && (bytes == 0 || bytes - 1 <= last - address);
}

/// One register, decoded from its record.
struct Register {
  char name[kNameSize] = {};  // NUL-terminated
  uint32_t offset = 0;
  uint32_t access = 0;
};

/// A validated register table. Filled by parse(); it points into the parsed buffer.
struct View {
  Status status = Status::NullArgument;  // Ok once parse() succeeded
  ErrorDetail detail;                    // why parse() failed, empty on success

  const uint8_t* data = nullptr;
  uint64_t mmio_base = 0;
  uint32_t count = 0;
  uint32_t design_id = 0;
  uint32_t addr_bits = 0;    // the design's bus address width (32 for a version 1 table)
  uint32_t beat_bytes = 0;   // the design's bus beat in bytes (0: not recorded, a version 1 or 2 table)
  uint32_t header_size = 0;  // where the records begin

  /// Whether the design's bus reaches [address, address + bytes) (see regmap::reaches).
  bool reaches(uint64_t address, uint64_t bytes) const { return regmap::reaches(addr_bits, address, bytes); }

  bool ok() const { return status == Status::Ok; }
  const char* error() const { return detail.len != 0 ? detail.text : status_message(status); }

  /// Decodes record `index`; false when the view is not valid or index >= count.
  bool at(uint32_t index, Register* out) const {
    if (out == nullptr || status != Status::Ok || data == nullptr || index >= count) return false;
    const uint8_t* r = data + header_size + static_cast<size_t>(index) * kRecordSize;
    for (uint32_t i = 0; i < kNameSize; ++i) out->name[i] = static_cast<char>(r[record_field::kName + i]);
    out->name[kNameSize - 1] = '\0';
    out->offset = load_u32(r + record_field::kOffset);
    out->access = load_u32(r + record_field::kAccess);
    return true;
  }

  /// The register called `name` (a NUL-terminated string); false when there is none.
  bool find(const char* name, Register* out) const {
    if (name == nullptr || status != Status::Ok || data == nullptr) return false;
    for (uint32_t i = 0; i < count; ++i) {
      const uint8_t* r = data + header_size + static_cast<size_t>(i) * kRecordSize;
      uint32_t j = 0;
      while (j < kNameSize && name[j] != '\0' && static_cast<uint8_t>(name[j]) == r[j]) ++j;
      if (j < kNameSize && name[j] == '\0' && r[j] == 0) return at(i, out);
    }
    return false;
  }
};

namespace detail {

inline Status fail(View* v, Status s) {
  v->status = s;
  v->data = nullptr;
  v->count = 0;
  v->mmio_base = 0;
  v->design_id = 0;
  v->addr_bits = 0;
  v->beat_bytes = 0;
  v->header_size = 0;
  return s;
}

/// Checks a name field: 1 to kNameSize - 1 printable ASCII characters, then NUL bytes to the end
/// of the field. Returns -1 when valid, else the position of the first bad byte (kNameSize when
/// the name is empty).
constexpr int check_name(const uint8_t* p) {
  uint32_t i = 0;
  while (i < kNameSize - 1 && p[i] >= 0x21 && p[i] <= 0x7e) ++i;
  if (i == 0) return p[0] == 0 ? static_cast<int>(kNameSize) : 0;
  for (uint32_t j = i; j < kNameSize; ++j) {
    if (p[j] != 0) return static_cast<int>(j);
  }
  return -1;
}

constexpr bool same_name(const uint8_t* a, const uint8_t* b) {
  for (uint32_t i = 0; i < kNameSize; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace detail

/// Validates `size` bytes at `data` as a register table and fills *out. Returns out->status.
/// No byte outside [data, data + size) is read.
inline Status parse(const uint8_t* data, size_t size, View* out) {
  if (out == nullptr) return Status::NullArgument;
  *out = View{};
  View* v = out;
  ErrorDetail& d = v->detail;
  using detail::fail;

  if (data == nullptr && size != 0) {
    d.str("register table data pointer is null but size is ").num(size);
    return fail(v, Status::NullArgument);
  }
  if (size < kHeaderSizeV1) {
    d.str("register table is truncated: ").num(size).str(" bytes, smaller than the ");
    d.num(kHeaderSizeV1).str("-byte header");
    return fail(v, Status::Truncated);
  }
  for (uint32_t i = 0; i < 4; ++i) {
    if (data[header_field::kMagic + i] != kMagic[i]) {
      d.str("not a register table: bad magic at byte ").num(i).str(" (expected \"DGRM\")");
      return fail(v, Status::BadMagic);
    }
  }
  const uint32_t version = load_u32(data + header_field::kVersion);
  if (version < 1 || version > kVersion) {
    d.str("unsupported register table version ").num(version);
    d.str(" (this reader supports versions 1 to ").num(kVersion).chr(')');
    return fail(v, Status::UnsupportedVersion);
  }
  const uint32_t want_header = version == 1 ? kHeaderSizeV1 : kHeaderSize;
  const uint32_t header_size = load_u32(data + header_field::kHeaderSize);
  if (header_size != want_header) {
    d.str("bad register table header size ").num(header_size).str(" (expected ").num(want_header).chr(')');
    return fail(v, Status::BadHeaderSize);
  }
  if (size < header_size) {
    d.str("register table is truncated: ").num(size).str(" bytes, smaller than the ");
    d.num(header_size).str("-byte header");
    return fail(v, Status::Truncated);
  }
  uint32_t addr_bits = 32, beat_bytes = 0;
  if (version != 1) {
    addr_bits = load_u32(data + header_field::kAddrBits);
    if (addr_bits < kMinAddrBits || addr_bits > kMaxAddrBits) {
      d.str("bus address bits ").num(addr_bits).str(" is outside ").num(kMinAddrBits).str(" to ").num(kMaxAddrBits);
      return fail(v, Status::BadAddrBits);
    }
    beat_bytes = load_u32(data + header_field::kBeatBytes);
    if (version == 2 && beat_bytes != 0) {
      d.str("the reserved header field at byte ").num(header_field::kBeatBytes).str(" is not zero");
      return fail(v, Status::BadAddrBits);
    }
    if (version != 2 && (beat_bytes == 0 || beat_bytes > 4096 || (beat_bytes & (beat_bytes - 1)) != 0)) {
      d.str("bus beat bytes ").num(beat_bytes).str(" is not a power of two from 1 to 4096");
      return fail(v, Status::BadAddrBits);
    }
  }
  const uint32_t record_size = load_u32(data + header_field::kRecordSize);
  if (record_size != kRecordSize) {
    d.str("bad register record size ").num(record_size).str(" (expected ").num(kRecordSize).chr(')');
    return fail(v, Status::BadRecordSize);
  }
  const uint32_t count = load_u32(data + header_field::kCount);
  if (count == 0 || count > kMaxRegisters) {
    d.str("register count ").num(count).str(" is outside 1 to ").num(kMaxRegisters);
    return fail(v, Status::BadCount);
  }
  const uint64_t need = static_cast<uint64_t>(header_size) + static_cast<uint64_t>(count) * kRecordSize;
  if (size < need) {
    d.str("register table is truncated: ").num(count).str(" registers need ").num(need);
    d.str(" bytes, only ").num(size).str(" are present");
    return fail(v, Status::Truncated);
  }
  if (size > need) {
    d.str("trailing data: the register table is ").num(size).str(" bytes, ").num(count);
    d.str(" registers end at ").num(need);
    return fail(v, Status::TrailingData);
  }
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* r = data + header_size + static_cast<size_t>(i) * kRecordSize;
    const int bad = detail::check_name(r + record_field::kName);
    if (bad >= 0) {
      d.str("register ").num(i);
      if (bad == static_cast<int>(kNameSize)) {
        d.str(" has an empty name");
      } else {
        d.str(" has a bad name: byte ").num(static_cast<uint32_t>(bad)).str(" is ").hex(r[bad], 2);
        d.str(" (expected 1 to ").num(kNameSize - 1).str(" printable ASCII characters, then NUL)");
      }
      return fail(v, Status::BadName);
    }
    for (uint32_t j = 0; j < i; ++j) {
      const uint8_t* q = data + header_size + static_cast<size_t>(j) * kRecordSize;
      if (detail::same_name(q, r)) {
        d.str("register ").num(i).str(" (").str(reinterpret_cast<const char*>(r));
        d.str(") has the same name as register ").num(j);
        return fail(v, Status::DuplicateName);
      }
    }
    const uint32_t offset = load_u32(r + record_field::kOffset);
    if (offset % 4 != 0 || offset >= kWindow) {
      d.str("register ").num(i).str(" (").str(reinterpret_cast<const char*>(r)).str(") offset ");
      d.hex(offset).str(offset % 4 != 0 ? " is not a multiple of 4" : " is outside the 4 KB register page");
      return fail(v, Status::BadOffset);
    }
    const uint32_t access = load_u32(r + record_field::kAccess);
    if ((access & ~kAccessKnown) != 0 || (access & kAccessKnown) == 0) {
      d.str("register ").num(i).str(" (").str(reinterpret_cast<const char*>(r)).str(") access ");
      d.hex(access).str((access & ~kAccessKnown) != 0 ? " sets reserved bits" : " is neither read nor write");
      return fail(v, Status::BadAccess);
    }
  }
  v->status = Status::Ok;
  v->data = data;
  v->mmio_base = load_u64(data + header_field::kMmioBase);
  v->count = count;
  v->design_id = load_u32(data + header_field::kDesignId);
  v->addr_bits = addr_bits;
  v->beat_bytes = beat_bytes;
  v->header_size = header_size;
  return Status::Ok;
}

// ---- Writer ------------------------------------------------------------------------------------

/// One register to write: `name` NUL-terminated (1 to 15 printable ASCII characters).
struct RegisterSpec {
  const char* name = nullptr;
  uint32_t offset = 0;
  uint32_t access = 0;
};

/// Bytes a table of `count` registers occupies (as written: the current version).
constexpr size_t table_size(uint32_t count) { return kHeaderSize + static_cast<size_t>(count) * kRecordSize; }

/// Encodes a table (the current version; `addr_bits`: the design's bus address width, 32 to 64;
/// `beat_bytes`: its bus beat, a power of two up to 4096) into buf[0, cap) and stores its size in *written; checks the
/// registers with the reader's rules first (problems reported in *err, optional). The same input always gives the same
/// bytes.
inline Status write(uint64_t mmio_base, uint32_t design_id, uint32_t addr_bits, uint32_t beat_bytes,
                    const RegisterSpec* regs, uint32_t count, uint8_t* buf, size_t cap, size_t* written,
                    ErrorDetail* err = nullptr) {
  ErrorDetail scratch;
  ErrorDetail& d = err != nullptr ? *err : scratch;
  d.clear();
  if (written != nullptr) *written = 0;
  if (buf == nullptr || written == nullptr || (count != 0 && regs == nullptr)) {
    d.str("write: null buffer, size or register pointer");
    return Status::NullArgument;
  }
  if (count == 0 || count > kMaxRegisters) {
    d.str("register count ").num(count).str(" is outside 1 to ").num(kMaxRegisters);
    return Status::BadCount;
  }
  if (addr_bits < kMinAddrBits || addr_bits > kMaxAddrBits) {
    d.str("bus address bits ").num(addr_bits).str(" is outside ").num(kMinAddrBits).str(" to ").num(kMaxAddrBits);
    return Status::BadAddrBits;
  }
  const size_t total = table_size(count);
  if (cap < total) {
    d.str("output buffer holds ").num(cap).str(" bytes, the table needs ").num(total);
    return Status::BufferTooSmall;
  }
  for (size_t i = 0; i < total; ++i) buf[i] = 0;
  for (uint32_t i = 0; i < 4; ++i) buf[header_field::kMagic + i] = kMagic[i];
  store_u32(buf + header_field::kVersion, kVersion);
  store_u32(buf + header_field::kHeaderSize, kHeaderSize);
  store_u32(buf + header_field::kRecordSize, kRecordSize);
  store_u64(buf + header_field::kMmioBase, mmio_base);
  store_u32(buf + header_field::kCount, count);
  store_u32(buf + header_field::kDesignId, design_id);
  store_u32(buf + header_field::kAddrBits, addr_bits);
  store_u32(buf + header_field::kBeatBytes, beat_bytes);
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t* r = buf + kHeaderSize + static_cast<size_t>(i) * kRecordSize;
    const char* name = regs[i].name;
    for (uint32_t j = 0; name != nullptr && name[j] != '\0'; ++j) {
      if (j == kNameSize - 1) {
        d.str("register ").num(i).str(" name is longer than ").num(kNameSize - 1).str(" characters");
        return Status::BadName;
      }
      r[record_field::kName + j] = static_cast<uint8_t>(name[j]);
    }
    store_u32(r + record_field::kOffset, regs[i].offset);
    store_u32(r + record_field::kAccess, regs[i].access);
  }
  // The reader's checks on the encoded bytes: the writer never emits a table the reader refuses.
  View check;
  const Status st = parse(buf, total, &check);
  if (st != Status::Ok) {
    d.str(check.error());
    return st;
  }
  *written = total;
  return Status::Ok;
}

}  // namespace dg::ko::regmap
