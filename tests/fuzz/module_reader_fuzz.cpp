// Fuzzes the module reader and the NPU register table reader. Each input is parsed twice as a
// module: as given, and "resealed" (header and section CRCs recomputed wherever they lie inside the
// buffer) so that mutations get past the checksums and reach the checks behind them. When parsing
// succeeds, every byte of every section is read, so ASan flags any view that points outside the
// input; the view's invariants are checked. The register table reader gets each input as a bare
// table, with a repaired header (so that mutations reach the records), and every npu_regmap
// section of a valid module, each in an exact-size buffer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <deepgemm/module_format.h>
#include <deepgemm/npu_regmap.h>

namespace ko = dg::ko;
namespace rm = dg::ko::regmap;

namespace {

void require(bool cond) {
  if (!cond) std::abort();
}

/// Reads everything a valid view exposes; aborts on a broken invariant.
uint32_t touch(const ko::ModuleView& v, const uint8_t* data, size_t size) {
  require(v.ok() && v.data == data && v.file_size <= size && v.abi_version == ko::kAbiVersion);
  require(v.section_count <= ko::kMaxSections);
  require(ko::target_kind_name(static_cast<uint32_t>(v.target_kind)) != nullptr);
  require(v.target_name[0] != '\0');
  uint32_t sum = 0;
  uint32_t prev_kind = 0;
  uint64_t prev_end = ko::kHeaderSize + static_cast<uint64_t>(v.section_count) * ko::kSectionEntrySize;
  for (uint32_t i = 0; i < v.section_count; ++i) {
    ko::SectionInfo s;
    require(v.section(i, &s));
    require(s.kind > prev_kind && s.offset >= prev_end && s.offset % ko::kPayloadAlign == 0);
    require(s.data == data + s.offset && static_cast<uint64_t>(s.offset) + s.size <= v.file_size);
    for (uint32_t j = 0; j < s.size; ++j) sum += s.data[j];
    require(ko::crc32(s.data, s.size) == s.crc);
    const ko::Payload p = v.find(s.kind);
    require(p.present && p.data == s.data && p.size == s.size);
    prev_kind = s.kind;
    prev_end = static_cast<uint64_t>(s.offset) + s.size;
  }
  ko::SectionInfo none;
  require(!v.section(v.section_count, &none));
  return sum;
}

/// Parses a register table from an exact-size copy; on success reads every record and checks the
/// reader's promises (NUL-terminated unique names, aligned in-page offsets, known access bits, an
/// address width of 32 to 64 bits).
void check_regmap(const uint8_t* data, size_t size) {
  std::vector<uint8_t> copy(data, data + size);
  rm::View v;
  const rm::Status st = rm::parse(copy.data(), copy.size(), &v);
  require(st == v.status);
  if (st != rm::Status::Ok) {
    require(v.detail.len > 0 && v.detail.len < ko::kErrorDetailSize && v.count == 0);
    rm::Register none;
    require(!v.at(0, &none) && !v.find("ID", &none));
    return;
  }
  require(v.count >= 1 && v.count <= rm::kMaxRegisters);
  require(v.header_size == rm::kHeaderSize || v.header_size == rm::kHeaderSizeV1);
  require(v.header_size + static_cast<size_t>(v.count) * rm::kRecordSize == size);
  require(v.addr_bits >= rm::kMinAddrBits && v.addr_bits <= rm::kMaxAddrBits);
  for (uint32_t i = 0; i < v.count; ++i) {
    rm::Register r;
    require(v.at(i, &r));
    const size_t len = std::strlen(r.name);
    require(len >= 1 && len < rm::kNameSize);
    require(r.offset % 4 == 0 && r.offset < rm::kWindow);
    require((r.access & ~rm::kAccessKnown) == 0 && (r.access & rm::kAccessKnown) != 0);
    rm::Register found;
    require(v.find(r.name, &found) && found.offset == r.offset && found.access == r.access);
  }
  rm::Register none;
  require(!v.at(v.count, &none));
}

/// The input as a register table, and again with a valid header for the records that follow it.
void fuzz_regmap(const uint8_t* data, size_t size) {
  check_regmap(data, size);
  if (size < rm::kHeaderSize) return;
  std::vector<uint8_t> t(data, data + size);
  std::memcpy(t.data(), rm::kMagic, 4);
  ko::store_u32(t.data() + rm::header_field::kVersion, rm::kVersion);
  ko::store_u32(t.data() + rm::header_field::kHeaderSize, rm::kHeaderSize);
  ko::store_u32(t.data() + rm::header_field::kRecordSize, rm::kRecordSize);
  const size_t records = (size - rm::kHeaderSize) / rm::kRecordSize;
  const uint32_t count = static_cast<uint32_t>(records > rm::kMaxRegisters ? rm::kMaxRegisters : records);
  ko::store_u32(t.data() + rm::header_field::kCount, count);
  // An address width of 32 to 64 bits from the input's byte there, a beat of 1 to 4096 bytes.
  ko::store_u32(t.data() + rm::header_field::kAddrBits, rm::kMinAddrBits + t[rm::header_field::kAddrBits] % 33);
  ko::store_u32(t.data() + rm::header_field::kBeatBytes, 1u << (t[rm::header_field::kBeatBytes] % 13));
  t.resize(rm::table_size(count));
  check_regmap(t.data(), t.size());
}

void check(const uint8_t* data, size_t size) {
  for (ko::Extent extent : {ko::Extent::Exact, ko::Extent::Prefix}) {
    ko::ModuleView v;
    const ko::Status st = ko::parse(data, size, &v, extent);
    require(st == v.status);
    if (st == ko::Status::Ok) {
      volatile uint32_t sink = touch(v, data, size);
      (void)sink;
      const ko::Payload table = v.find(ko::SectionKind::NpuRegmap);
      if (table) check_regmap(table.data, table.size);
    } else {
      require(v.detail.len > 0 && v.detail.len < ko::kErrorDetailSize);
      require(v.detail.text[v.detail.len] == '\0');
      require(v.section_count == 0 && !v.find(ko::SectionKind::Plan));
    }
  }
}

/// Recomputes the CRCs of whatever header, table entries and payloads lie inside the buffer.
void reseal(std::vector<uint8_t>& m) {
  if (m.size() < ko::kHeaderSize) return;
  const uint32_t count = ko::load_u32(m.data() + ko::header_field::kSectionCount);
  if (count > ko::kMaxSections) return;
  const uint64_t table_end = ko::kHeaderSize + static_cast<uint64_t>(count) * ko::kSectionEntrySize;
  if (table_end > m.size()) return;
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t* e = m.data() + ko::kHeaderSize + i * ko::kSectionEntrySize;
    const uint64_t off = ko::load_u32(e + ko::entry_field::kOffset);
    const uint64_t len = ko::load_u32(e + ko::entry_field::kSize);
    if (off + len <= m.size()) ko::store_u32(e + ko::entry_field::kCrc, ko::crc32(m.data() + off, len));
  }
  ko::store_u32(m.data() + ko::header_field::kCrc, ko::compute_header_crc(m.data()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exact-size heap copy, so that ASan sees any read past the end.
  std::vector<uint8_t> copy(data, data + size);
  check(copy.data(), copy.size());
  reseal(copy);
  check(copy.data(), copy.size());
  fuzz_regmap(data, size);
  return 0;
}
