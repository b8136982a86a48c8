// The .ko module format: writer and reader round trip, determinism, CRC32, rejection of every
// truncation and every single-byte change, precise statuses for each malformed field, inspect, and
// the fuzz seed corpus (regenerated with DEEPGEMM_UPDATE_GOLDEN=1).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <deepgemm/launch_format.h>
#include <deepgemm/npu_regmap.h>

#include "module/inspect.h"
#include "module/writer.h"
#include "support/error.h"

namespace ko = dg::ko;
using dg::module::ModuleContents;
using dg::module::Section;

namespace {

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

Section section(ko::SectionKind kind, const std::string& name, const std::string& text) {
  Section s;
  s.kind = static_cast<uint32_t>(kind);
  s.name = name;
  s.bytes = bytes_of(text);
  return s;
}

/// A GPU module with payload sizes that leave padding after every section; listed out of order.
ModuleContents gpu_contents() {
  ModuleContents c;
  c.target_kind = ko::TargetKind::Gpu;
  c.target_name = "hopper";
  c.flags = 0x3;
  c.sections.push_back(section(ko::SectionKind::Ptx, "ptx", ".version 8.5\n.target sm_90a\n.address_size 64\n"));
  c.sections.push_back(section(ko::SectionKind::Plan, "plan",
                               R"({"target":"hopper","tile_m":128,"tile_n":256,"tile_k":64,)"
                               R"("stages":4,"l2_hit_rate":0.892,"use_hmma":true,)"
                               R"("epilogue":null,"grid":[32,16,1],"smem":{"bytes":98304}})"));
  c.sections.push_back(section(ko::SectionKind::Proof, "proof", "coverage: proved\nbounds: proved"));
  Section cubin;
  cubin.kind = static_cast<uint32_t>(ko::SectionKind::Cubin);
  cubin.name = "sm_90a";
  cubin.bytes = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x33, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0x00, 0x10};
  c.sections.push_back(cubin);
  c.sections.push_back(section(ko::SectionKind::CachePolicy, "cache_policy", ""));
  return c;
}

/// An NPU module with binary register table and Verilog.
ModuleContents npu_contents() {
  ModuleContents c;
  c.target_kind = ko::TargetKind::Npu;
  c.target_name = "npu16";
  c.sections.push_back(section(ko::SectionKind::Plan, "plan", R"({"target":"npu16","tile_m":16})"));
  Section regmap;
  regmap.kind = static_cast<uint32_t>(ko::SectionKind::NpuRegmap);
  regmap.name = "regmap";
  const ko::regmap::RegisterSpec regs[] = {{"ID", 0x000, ko::regmap::kAccessRead},
                                           {"CTRL", 0x004, ko::regmap::kAccessWrite},
                                           {"STATUS", 0x008, ko::regmap::kAccessRead},
                                           {"A_BASE", 0x014, ko::regmap::kAccessRead | ko::regmap::kAccessWrite}};
  regmap.bytes.resize(ko::regmap::table_size(4));
  size_t written = 0;
  REQUIRE(ko::regmap::write(0x40000000u, 0x9b575bdbu, 32, 16, regs, 4, regmap.bytes.data(), regmap.bytes.size(),
                            &written) == ko::regmap::Status::Ok);
  c.sections.push_back(regmap);
  c.sections.push_back(section(ko::SectionKind::Verilog, "agu", "module agu(input logic clk_i);\nendmodule\n"));
  c.sections.push_back(section(ko::SectionKind::Synth, "yosys", "Number of cells: 1234\n"));
  return c;
}

ModuleContents empty_contents() {
  ModuleContents c;
  c.target_name = "volta";
  return c;
}

/// A launch record of a 64×64×64 GEMM on one block of 128 threads, packed operands.
std::vector<uint8_t> launch_record_64() {
  ko::launch::Launch l{};
  std::snprintf(l.kernel, sizeof l.kernel, "%s", "dg_gemm_test");
  l.grid[0] = l.grid[1] = l.grid[2] = 1;
  l.block[0] = 128;
  l.block[1] = l.block[2] = 1;
  l.compute_capability = 80;
  l.M = l.N = l.K = 64;
  l.batch = 1;
  l.K_min = 64;
  l.k_align = 1;
  l.operand_count = 3;
  const char* names[3] = {"A", "B", "C"};
  for (int i = 0; i < 3; ++i) {
    ko::launch::Operand& o = l.operands[i];
    std::snprintf(o.name, sizeof o.name, "%s", names[i]);
    o.role = i == 2 ? ko::launch::Role::Output : ko::launch::Role::Input;
    o.element_bits = 16;
    o.bytes = 64 * 64 * 2;
    o.row_major = true;
    o.ld = 64;
  }
  std::vector<uint8_t> out(ko::launch::size_for(l.operand_count));
  ko::launch::write(l, out.data());
  return out;
}

/// An unknown kind marked optional, after a launch section.
ModuleContents optional_contents() {
  ModuleContents c;
  c.target_name = "ampere";
  Section launch = section(ko::SectionKind::Launch, "launch", "");
  launch.bytes = launch_record_64();
  c.sections.push_back(launch);
  Section future = section(ko::SectionKind::Plan, "future", "x");
  future.kind = 200;
  future.flags = ko::kSectionFlagOptional;
  c.sections.push_back(future);
  return c;
}

ko::Status parse(const std::vector<uint8_t>& m, ko::ModuleView* v, ko::Extent extent = ko::Extent::Exact) {
  return ko::parse(m.data(), m.size(), v, extent);
}

ko::Status status_of(const std::vector<uint8_t>& m) {
  ko::ModuleView v;
  return parse(m, &v);
}

std::string error_of(const std::vector<uint8_t>& m) {
  ko::ModuleView v;
  parse(m, &v);
  return v.error();
}

/// Recomputes the header CRC after a test changed the header or table on purpose.
void reseal(std::vector<uint8_t>& m) {
  ko::store_u32(m.data() + ko::header_field::kCrc, ko::compute_header_crc(m.data()));
}

uint8_t* entry(std::vector<uint8_t>& m, uint32_t index) {
  return m.data() + ko::kHeaderSize + index * ko::kSectionEntrySize;
}

uint32_t entry_u32(const std::vector<uint8_t>& m, uint32_t index, uint32_t field) {
  return ko::load_u32(m.data() + ko::kHeaderSize + index * ko::kSectionEntrySize + field);
}

std::string payload_string(const ko::Payload& p) { return std::string(reinterpret_cast<const char*>(p.data), p.size); }

}  // namespace

TEST_CASE("crc32 matches the IEEE 802.3 check values") {
  static constexpr uint8_t kCheck[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  static_assert(ko::crc32(kCheck, sizeof kCheck) == 0xCBF43926u);
  CHECK(ko::crc32(kCheck, sizeof kCheck) == 0xCBF43926u);
  CHECK(ko::crc32(nullptr, 0) == 0u);
  const std::vector<uint8_t> a = bytes_of("a");
  CHECK(ko::crc32(a.data(), a.size()) == 0xE8B7BE43u);
  const std::vector<uint8_t> fox = bytes_of("The quick brown fox jumps over the lazy dog");
  CHECK(ko::crc32(fox.data(), fox.size()) == 0x414FA339u);
  std::vector<uint8_t> zeros(32, 0);
  CHECK(ko::crc32(zeros.data(), zeros.size()) == 0x190A55ADu);
  // Incremental updates give the same value as one pass.
  uint32_t s = ko::kCrc32Init;
  s = ko::crc32_update(s, fox.data(), 10);
  s = ko::crc32_update(s, fox.data() + 10, fox.size() - 10);
  CHECK(ko::crc32_final(s) == 0x414FA339u);
}

TEST_CASE("write then parse gives every section back exactly") {
  for (const ModuleContents& c : {gpu_contents(), npu_contents(), empty_contents(), optional_contents()}) {
    CAPTURE(c.target_name);
    const std::vector<uint8_t> m = dg::module::write(c);
    ko::ModuleView v;
    REQUIRE(parse(m, &v) == ko::Status::Ok);
    CHECK(v.ok());
    CHECK(v.data == m.data());
    CHECK(v.file_size == m.size());
    CHECK(m.size() % 16 == 0);
    CHECK(v.abi_version == ko::kAbiVersion);
    CHECK(v.flags == c.flags);
    CHECK(v.target_kind == c.target_kind);
    CHECK(std::string(v.target_name) == c.target_name);
    CHECK(v.section_count == c.sections.size());
    for (const Section& s : c.sections) {
      CAPTURE(s.kind);
      const ko::Payload p = v.find(s.kind);
      REQUIRE(p.present);
      CHECK(std::vector<uint8_t>(p.data, p.data + p.size) == s.bytes);
    }
    uint32_t prev_kind = 0;
    for (uint32_t i = 0; i < v.section_count; ++i) {
      ko::SectionInfo info;
      REQUIRE(v.section(i, &info));
      CHECK(info.kind > prev_kind);
      CHECK(info.offset % ko::kPayloadAlign == 0);
      CHECK(info.data == m.data() + info.offset);
      CHECK(info.crc == ko::crc32(info.data, info.size));
      const auto it =
          std::find_if(c.sections.begin(), c.sections.end(), [&](const Section& s) { return s.kind == info.kind; });
      REQUIRE(it != c.sections.end());
      CHECK(std::string(info.name) == it->name);
      CHECK(info.flags == it->flags);
      prev_kind = info.kind;
    }
    ko::SectionInfo none;
    CHECK_FALSE(v.section(v.section_count, &none));
  }
}

TEST_CASE("find reports absent sections and zero-size sections apart") {
  const std::vector<uint8_t> m = dg::module::write(gpu_contents());
  ko::ModuleView v;
  REQUIRE(parse(m, &v) == ko::Status::Ok);
  CHECK_FALSE(v.find(ko::SectionKind::Verilog).present);
  CHECK_FALSE(v.find(ko::SectionKind::Verilog));
  const ko::Payload cache = v.find(ko::SectionKind::CachePolicy);
  CHECK(cache.present);
  CHECK(cache.size == 0);
  CHECK(payload_string(v.find(ko::SectionKind::Proof)) == "coverage: proved\nbounds: proved");
  // A view that failed to parse holds nothing.
  ko::ModuleView bad;
  std::vector<uint8_t> t(m.begin(), m.end() - 16);
  CHECK(parse(t, &bad) == ko::Status::Truncated);
  CHECK_FALSE(bad.ok());
  CHECK(bad.section_count == 0);
  CHECK_FALSE(bad.find(ko::SectionKind::Plan));
}

TEST_CASE("the layout is the documented one") {
  const std::vector<uint8_t> m = dg::module::write(empty_contents());
  REQUIRE(m.size() == 64);
  CHECK(std::memcmp(m.data(), "DGMMKO\0\1", 8) == 0);
  CHECK(ko::load_u32(&m[8]) == 1);    // ABI
  CHECK(ko::load_u32(&m[12]) == 64);  // header size
  CHECK(ko::load_u32(&m[20]) == 1);   // GPU
  CHECK(std::string(reinterpret_cast<const char*>(&m[24])) == "volta");
  CHECK(ko::load_u32(&m[48]) == 0);   // sections
  CHECK(ko::load_u32(&m[52]) == 64);  // table offset
  CHECK(ko::load_u32(&m[56]) == 64);  // file size
  std::vector<uint8_t> zeroed = m;
  ko::store_u32(&zeroed[60], 0);
  CHECK(ko::load_u32(&m[60]) == ko::crc32(zeroed.data(), 64));

  const std::vector<uint8_t> g = dg::module::write(gpu_contents());
  // Table right after the header, first payload right after the table, all packed by 16.
  CHECK(entry_u32(g, 0, ko::entry_field::kKind) == 1);
  CHECK(entry_u32(g, 0, ko::entry_field::kOffset) == 64 + 5 * 32);
  uint64_t end = 64 + 5 * 32;
  for (uint32_t i = 0; i < 5; ++i) {
    CHECK(entry_u32(g, i, ko::entry_field::kOffset) == ko::align_up(end));
    end = entry_u32(g, i, ko::entry_field::kOffset) + entry_u32(g, i, ko::entry_field::kSize);
  }
  CHECK(g.size() == ko::align_up(end));
}

TEST_CASE("writing is deterministic and independent of section order") {
  const ModuleContents c = gpu_contents();
  const std::vector<uint8_t> a = dg::module::write(c);
  CHECK(dg::module::write(c) == a);
  ModuleContents reversed = c;
  std::reverse(reversed.sections.begin(), reversed.sections.end());
  CHECK(dg::module::write(reversed) == a);
  ModuleContents changed = c;
  changed.sections[0].bytes.back() ^= 1;
  CHECK(dg::module::write(changed) != a);
}

TEST_CASE("the freestanding writer agrees with the hosted one") {
  const ModuleContents c = npu_contents();
  const std::vector<uint8_t> hosted = dg::module::write(c);
  std::vector<ko::SectionSpec> specs;
  std::vector<Section> sorted = c.sections;
  std::sort(sorted.begin(), sorted.end(), [](const Section& a, const Section& b) { return a.kind < b.kind; });
  for (const Section& s : sorted) {
    specs.push_back({s.kind, s.flags, s.name.c_str(), s.bytes.data(), static_cast<uint32_t>(s.bytes.size())});
  }
  ko::ModuleSpec spec;
  spec.target_kind = c.target_kind;
  spec.target_name = c.target_name.c_str();
  spec.sections = specs.data();
  spec.section_count = static_cast<uint32_t>(specs.size());
  REQUIRE(ko::module_size(specs.data(), spec.section_count) == hosted.size());

  std::vector<uint8_t> buf(hosted.size(), 0xAA);
  size_t written = 0;
  ko::ErrorDetail err;
  CHECK(ko::write(spec, buf.data(), buf.size() - 1, &written, &err) == ko::Status::BufferTooSmall);
  CHECK(written == 0);
  CHECK(std::string(err.text) == "output buffer holds " + std::to_string(hosted.size() - 1) +
                                     " bytes, the module needs " + std::to_string(hosted.size()));
  REQUIRE(ko::write(spec, buf.data(), buf.size(), &written, &err) == ko::Status::Ok);
  CHECK(written == hosted.size());
  CHECK(buf == hosted);

  std::swap(specs[0], specs[1]);
  CHECK(ko::write(spec, buf.data(), buf.size(), &written, &err) == ko::Status::SectionOrder);
  CHECK(ko::write(spec, nullptr, 0, &written, &err) == ko::Status::NullArgument);
}

TEST_CASE("the writer refuses contents the format cannot hold") {
  ModuleContents dup = gpu_contents();
  dup.sections.push_back(section(ko::SectionKind::Ptx, "ptx2", "x"));
  CHECK_THROWS_WITH_AS(dg::module::write(dup), doctest::Contains("duplicates section"), dg::InternalError);

  ModuleContents long_name = gpu_contents();
  long_name.sections[0].name = "thirteen_char";
  CHECK_THROWS_WITH_AS(dg::module::write(long_name), doctest::Contains("bad name"), dg::InternalError);

  ModuleContents space = gpu_contents();
  space.sections[0].name = "a b";
  CHECK_THROWS_AS(dg::module::write(space), dg::InternalError);

  ModuleContents twelve = gpu_contents();
  twelve.sections[0].name = "twelve_chars";  // exactly fills the field: allowed
  CHECK_NOTHROW(dg::module::write(twelve));

  ModuleContents no_target = gpu_contents();
  no_target.target_name = "";
  CHECK_THROWS_WITH_AS(dg::module::write(no_target), doctest::Contains("bad target name"), dg::InternalError);
  ModuleContents long_target = gpu_contents();
  long_target.target_name = std::string(25, 'x');
  CHECK_THROWS_AS(dg::module::write(long_target), dg::InternalError);
  long_target.target_name = std::string(24, 'x');
  CHECK_NOTHROW(dg::module::write(long_target));

  ModuleContents unknown = gpu_contents();
  unknown.sections.push_back(section(ko::SectionKind::Plan, "new", "x"));
  unknown.sections.back().kind = 77;
  CHECK_THROWS_WITH_AS(dg::module::write(unknown), doctest::Contains("not marked optional"), dg::InternalError);

  ModuleContents required = gpu_contents();
  required.flags = 0x10000;
  CHECK_THROWS_AS(dg::module::write(required), dg::InternalError);

  ModuleContents many = empty_contents();
  for (uint32_t k = 1; k <= 65; ++k) {
    Section s;
    s.kind = k;
    s.flags = ko::kSectionFlagOptional;
    many.sections.push_back(s);
  }
  CHECK_THROWS_WITH_AS(dg::module::write(many), doctest::Contains("at most 64"), dg::InternalError);
  many.sections.pop_back();
  CHECK_NOTHROW(dg::module::write(many));
}

TEST_CASE("every truncation is rejected as truncated") {
  for (const ModuleContents& c : {gpu_contents(), npu_contents(), empty_contents()}) {
    const std::vector<uint8_t> m = dg::module::write(c);
    for (size_t len = 0; len < m.size(); ++len) {
      CAPTURE(len);
      ko::ModuleView v;
      CHECK(ko::parse(m.data(), len, &v) == ko::Status::Truncated);
      CHECK_FALSE(v.ok());
    }
  }
  const std::vector<uint8_t> m = dg::module::write(gpu_contents());
  CHECK(error_of(std::vector<uint8_t>(m.begin(), m.begin() + 10)) ==
        "module is truncated: 10 bytes, smaller than the 64-byte header");
  CHECK(error_of(std::vector<uint8_t>(m.begin(), m.end() - 1)) ==
        "module is truncated: header gives file size " + std::to_string(m.size()) + " but only " +
            std::to_string(m.size() - 1) + " bytes are present");
}

TEST_CASE("every single-byte change is rejected") {
  for (const ModuleContents& c : {gpu_contents(), npu_contents(), empty_contents(), optional_contents()}) {
    const std::vector<uint8_t> m = dg::module::write(c);
    CAPTURE(c.target_name);
    size_t checked = 0;
    for (size_t i = 0; i < m.size(); ++i) {
      for (int mask : {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xff, 0x5a}) {
        std::vector<uint8_t> bad = m;
        bad[i] ^= static_cast<uint8_t>(mask);
        ko::ModuleView v;
        const ko::Status st = parse(bad, &v);
        if (st == ko::Status::Ok) FAIL_CHECK("byte " << i << " ^ " << mask << " accepted");
        if (v.detail.len == 0) FAIL_CHECK("no detail for byte " << i);
        ++checked;
      }
    }
    CHECK(checked == m.size() * 10);
  }
}

TEST_CASE("trailing bytes: rejected for a file, allowed for a prefix") {
  const std::vector<uint8_t> m = dg::module::write(npu_contents());
  std::vector<uint8_t> longer = m;
  longer.resize(m.size() + 100, 0xEE);
  ko::ModuleView v;
  CHECK(parse(longer, &v) == ko::Status::TrailingData);
  CHECK(std::string(v.error()) == "trailing data: file is " + std::to_string(longer.size()) +
                                      " bytes but the module ends at " + std::to_string(m.size()));
  REQUIRE(parse(longer, &v, ko::Extent::Prefix) == ko::Status::Ok);
  CHECK(v.file_size == m.size());
  CHECK(payload_string(v.find(ko::SectionKind::Synth)) == "Number of cells: 1234\n");
}

TEST_CASE("header fields: each bad value has its own status and message") {
  const std::vector<uint8_t> good = dg::module::write(gpu_contents());
  const std::string file_size = std::to_string(good.size());

  SUBCASE("null arguments") {
    ko::ModuleView v;
    CHECK(ko::parse(nullptr, 100, &v) == ko::Status::NullArgument);
    CHECK(ko::parse(good.data(), good.size(), nullptr) == ko::Status::NullArgument);
  }
  SUBCASE("magic") {
    for (size_t i = 0; i < 8; ++i) {
      std::vector<uint8_t> m = good;
      m[i] ^= 0x20;
      CHECK(status_of(m) == ko::Status::BadMagic);
      CHECK(error_of(m) ==
            "not a DeepGEMM module: bad magic at byte " + std::to_string(i) + " (expected \"DGMMKO\\0\\1\")");
    }
    std::vector<uint8_t> elf = good;
    std::memcpy(elf.data(),
                "\x7f"
                "ELF",
                4);
    CHECK(status_of(elf) == ko::Status::BadMagic);
  }
  SUBCASE("ABI version") {
    std::vector<uint8_t> m = good;
    ko::store_u32(&m[8], 2);
    CHECK(status_of(m) == ko::Status::UnsupportedAbi);
    CHECK(error_of(m) == "unsupported module ABI version 2 (this reader supports version 1)");
    ko::store_u32(&m[8], 0);
    CHECK(status_of(m) == ko::Status::UnsupportedAbi);
  }
  SUBCASE("header size") {
    std::vector<uint8_t> m = good;
    ko::store_u32(&m[12], 80);
    CHECK(status_of(m) == ko::Status::BadHeaderSize);
    CHECK(error_of(m) == "bad header size 80 (ABI 1 uses 64)");
  }
  SUBCASE("file size") {
    std::vector<uint8_t> m = good;
    ko::store_u32(&m[56], static_cast<uint32_t>(good.size()) - 1);
    CHECK(status_of(m) == ko::Status::BadFileSize);
    ko::store_u32(&m[56], 32);
    CHECK(status_of(m) == ko::Status::BadFileSize);
    ko::store_u32(&m[56], 0xFFFFFFF0u);
    CHECK(status_of(m) == ko::Status::Truncated);
    // A larger, consistent-looking file whose size does not match the sections.
    m = good;
    m.resize(good.size() + 16, 0);
    ko::store_u32(&m[56], static_cast<uint32_t>(m.size()));
    reseal(m);
    CHECK(status_of(m) == ko::Status::BadFileSize);
    CHECK(error_of(m).find("does not match the end of the last section") != std::string::npos);
  }
  SUBCASE("section count and table") {
    std::vector<uint8_t> m = good;
    ko::store_u32(&m[48], 65);
    CHECK(status_of(m) == ko::Status::TooManySections);
    CHECK(error_of(m) == "section count 65 exceeds the limit of 64");
    ko::store_u32(&m[48], 0xFFFFFFFFu);
    CHECK(status_of(m) == ko::Status::TooManySections);
    m = good;
    ko::store_u32(&m[52], 96);
    CHECK(status_of(m) == ko::Status::BadSectionTableOffset);
    // 64 entries do not fit a small module.
    m = dg::module::write(empty_contents());
    ko::store_u32(&m[48], 64);
    CHECK(status_of(m) == ko::Status::SectionTableOutOfBounds);
    CHECK(error_of(m) == "section table (64 entries) ends at 2112, past file size 64");
  }
  SUBCASE("header checksum") {
    std::vector<uint8_t> m = good;
    m[30] ^= 1;  // inside the target name
    CHECK(status_of(m) == ko::Status::HeaderChecksumMismatch);
    CHECK(error_of(m).rfind("header checksum mismatch: stored 0x", 0) == 0);
    m = good;
    entry(m, 1)[ko::entry_field::kSize] ^= 1;  // the table is covered too
    CHECK(status_of(m) == ko::Status::HeaderChecksumMismatch);
  }
  SUBCASE("target") {
    std::vector<uint8_t> m = good;
    ko::store_u32(&m[20], 3);
    reseal(m);
    CHECK(status_of(m) == ko::Status::BadTargetKind);
    CHECK(error_of(m) == "unknown target kind 3 (1 = gpu, 2 = npu)");
    m = good;
    m[24 + 2] = ' ';
    reseal(m);
    CHECK(status_of(m) == ko::Status::BadTargetName);
    CHECK(error_of(m) == "bad target name: byte 2 is 0x20 (expected printable ASCII, then NUL padding)");
    m = good;
    m[24 + 10] = 'x';  // after the NUL
    reseal(m);
    CHECK(status_of(m) == ko::Status::BadTargetName);
    m = good;
    std::fill(m.begin() + 24, m.begin() + 48, 0);
    reseal(m);
    CHECK(status_of(m) == ko::Status::BadTargetName);
    CHECK(error_of(m) == "bad target name: empty");
  }
  SUBCASE("flags") {
    std::vector<uint8_t> m = good;
    ko::store_u32(&m[16], 0x00020003u);
    reseal(m);
    CHECK(status_of(m) == ko::Status::UnsupportedFlags);
    CHECK(error_of(m) == "module requires features 0x00020000 that this reader does not support");
    ko::store_u32(&m[16], 0x0000FFFFu);  // informational bits are free
    reseal(m);
    CHECK(status_of(m) == ko::Status::Ok);
  }
}

TEST_CASE("section table entries: each bad value has its own status and message") {
  // gpu_contents sorted: 0 plan, 1 proof, 2 ptx, 3 cubin, 4 cache_policy.
  const std::vector<uint8_t> good = dg::module::write(gpu_contents());
  const uint32_t fsize = static_cast<uint32_t>(good.size());
  const uint32_t ptx_offset = entry_u32(good, 2, ko::entry_field::kOffset);
  const auto set = [](std::vector<uint8_t>& m, uint32_t index, uint32_t field, uint32_t value) {
    ko::store_u32(entry(m, index) + field, value);
    reseal(m);
  };

  SUBCASE("kinds") {
    std::vector<uint8_t> m = good;
    set(m, 0, ko::entry_field::kKind, 0);
    CHECK(status_of(m) == ko::Status::BadSectionKind);
    CHECK(error_of(m) == "section 0 has reserved kind 0");
    m = good;
    set(m, 2, ko::entry_field::kKind, 2);
    CHECK(status_of(m) == ko::Status::DuplicateSection);
    CHECK(error_of(m) == "section 2 (proof) duplicates section 1 (one section per kind)");
    m = good;
    set(m, 2, ko::entry_field::kKind, 1);
    CHECK(status_of(m) == ko::Status::SectionOrder);
    CHECK(error_of(m) == "section 2 (plan) is out of order: section 1 has kind 2 (kinds must increase)");
    m = good;
    set(m, 4, ko::entry_field::kKind, 77);
    CHECK(status_of(m) == ko::Status::UnknownSectionKind);
    CHECK(error_of(m) == "section 4 (kind 77) has a kind this reader does not know and is not marked optional");
    set(m, 4, ko::entry_field::kFlags, ko::kSectionFlagOptional);
    CHECK(status_of(m) == ko::Status::Ok);
  }
  SUBCASE("flags") {
    std::vector<uint8_t> m = good;
    set(m, 1, ko::entry_field::kFlags, 0x80000001u);
    CHECK(status_of(m) == ko::Status::BadSectionFlags);
    CHECK(error_of(m) == "section 1 (proof) has reserved flag bits 0x80000000 set");
    m = good;
    set(m, 1, ko::entry_field::kFlags, ko::kSectionFlagOptional);  // allowed on known kinds
    CHECK(status_of(m) == ko::Status::Ok);
  }
  SUBCASE("names") {
    std::vector<uint8_t> m = good;
    entry(m, 3)[ko::entry_field::kName + 1] = 0x7f;
    reseal(m);
    CHECK(status_of(m) == ko::Status::BadSectionName);
    CHECK(error_of(m) ==
          "section 3 (cubin) has a bad name: byte 1 is 0x7f (expected printable ASCII, then NUL "
          "padding)");
  }
  SUBCASE("placement") {
    std::vector<uint8_t> m = good;
    set(m, 2, ko::entry_field::kOffset, ptx_offset + 4);
    CHECK(status_of(m) == ko::Status::SectionMisaligned);
    CHECK(error_of(m) == "section 2 (ptx) offset " + std::to_string(ptx_offset + 4) + " is not a multiple of 16");
    m = good;
    set(m, 0, ko::entry_field::kOffset, 128);
    CHECK(status_of(m) == ko::Status::SectionOverlap);
    CHECK(error_of(m) == "section 0 (plan) at offset 128 overlaps the section table, which ends at 224");
    m = good;
    set(m, 2, ko::entry_field::kOffset, ptx_offset - 16);
    CHECK(status_of(m) == ko::Status::SectionOverlap);
    CHECK(error_of(m).find("overlaps section 1 (proof), which ends at") != std::string::npos);
    m = good;
    set(m, 2, ko::entry_field::kOffset, ptx_offset + 16);
    CHECK(status_of(m) == ko::Status::SectionGap);
    CHECK(error_of(m) == "section 2 (ptx) starts at offset " + std::to_string(ptx_offset + 16) + ", expected " +
                             std::to_string(ptx_offset) + " (payloads are packed in table order)");
  }
  SUBCASE("bounds, with sizes that overflow 32 bits") {
    std::vector<uint8_t> m = good;
    set(m, 2, ko::entry_field::kSize, 9000);
    CHECK(status_of(m) == ko::Status::SectionOutOfBounds);
    CHECK(error_of(m) == "section 2 (ptx) extends past end of file: offset " + std::to_string(ptx_offset) +
                             " + size 9000 > file size " + std::to_string(fsize));
    set(m, 2, ko::entry_field::kSize, 0xFFFFFFFFu);
    CHECK(status_of(m) == ko::Status::SectionOutOfBounds);
    m = good;
    set(m, 4, ko::entry_field::kOffset, 0xFFFFFFF0u);
    CHECK(status_of(m) == ko::Status::SectionGap);
  }
  SUBCASE("payload checksums and padding") {
    std::vector<uint8_t> m = good;
    m[ptx_offset] ^= 0x01;
    CHECK(status_of(m) == ko::Status::SectionChecksumMismatch);
    CHECK(error_of(m).rfind("section 2 (ptx) checksum mismatch: stored 0x", 0) == 0);
    m = good;
    // Padding before the ptx payload (the proof payload is 31 bytes, so a byte of padding follows).
    const uint32_t proof_end =
        entry_u32(good, 1, ko::entry_field::kOffset) + entry_u32(good, 1, ko::entry_field::kSize);
    REQUIRE(proof_end < ptx_offset);
    m[proof_end] = 0x5a;
    CHECK(status_of(m) == ko::Status::NonZeroPadding);
    CHECK(error_of(m) ==
          "padding byte at offset " + std::to_string(proof_end) + " (before section 2 (ptx)) is 0x5a, must be 0");
    m = dg::module::write(npu_contents());
    REQUIRE(entry_u32(m, 3, ko::entry_field::kOffset) + entry_u32(m, 3, ko::entry_field::kSize) < m.size());
    m.back() = 1;  // padding after the last (synth) payload
    CHECK(status_of(m) == ko::Status::NonZeroPadding);
    CHECK(error_of(m).find("(after the last section)") != std::string::npos);
  }
}

TEST_CASE("every status has its own message") {
  std::set<std::string> seen;
  for (uint32_t s = 0; s <= static_cast<uint32_t>(ko::Status::TooLarge); ++s) {
    const std::string msg = ko::status_message(static_cast<ko::Status>(s));
    CHECK_FALSE(msg.empty());
    CHECK(msg != "unknown status");
    CHECK(seen.insert(msg).second);
  }
  CHECK(std::string(ko::status_message(static_cast<ko::Status>(1000))) == "unknown status");
}

TEST_CASE("inspect prints what a good module holds") {
  const std::vector<uint8_t> m = dg::module::write(gpu_contents());
  ko::ModuleView v;
  REQUIRE(parse(m, &v) == ko::Status::Ok);
  std::ostringstream out, err;
  REQUIRE(dg::module::inspect(m, "matmul.ko", out, err) == 0);
  CHECK(err.str().empty());
  const std::string text = out.str();
  CAPTURE(text);
  CHECK(text.rfind("file:     matmul.ko\n", 0) == 0);
  CHECK(text.find("size:     " + std::to_string(m.size()) + " bytes\n") != std::string::npos);
  CHECK(text.find("abi:      1\n") != std::string::npos);
  CHECK(text.find("target:   hopper (gpu)\n") != std::string::npos);
  CHECK(text.find("flags:    0x00000003\n") != std::string::npos);
  CHECK(text.find("sections: 5\n") != std::string::npos);
  for (uint32_t i = 0; i < v.section_count; ++i) {
    ko::SectionInfo s;
    REQUIRE(v.section(i, &s));
    char crc[16];
    std::snprintf(crc, sizeof crc, "0x%08x OK", s.crc);
    const std::string row_start = "   " + std::to_string(i) + "  " + ko::section_kind_name(s.kind);
    const size_t at = text.find(row_start);
    REQUIRE(at != std::string::npos);
    const std::string row = text.substr(at, text.find('\n', at) - at);
    CHECK(row.find(s.name) != std::string::npos);
    CHECK(row.find(" " + std::to_string(s.offset) + " ") != std::string::npos);
    CHECK(row.find(crc) != std::string::npos);
  }
  CHECK(text.find("plan:\n"
                  "  target: \"hopper\"\n"
                  "  tile_m: 128\n"
                  "  tile_n: 256\n"
                  "  tile_k: 64\n"
                  "  stages: 4\n"
                  "  l2_hit_rate: 0.892\n"
                  "  use_hmma: true\n"
                  "  epilogue: null\n"
                  "  grid: [3 items]\n"
                  "  smem: {1 key}\n") != std::string::npos);
}

TEST_CASE("inspect shows optional sections of unknown kinds") {
  const std::vector<uint8_t> m = dg::module::write(optional_contents());
  std::ostringstream out, err;
  REQUIRE(dg::module::inspect(m, "opt.ko", out, err) == 0);
  CHECK(out.str().find("kind 200      future") != std::string::npos);
  CHECK(out.str().find("OK (optional)\n") != std::string::npos);
  CHECK(out.str().find("plan:") == std::string::npos);
  // The launch record: its kernel and operands in parameter order.
  CHECK(out.str().find("launch: kernel dg_gemm_test, grid 1x1x1, block 128x1x1, 0 B shared memory, sm_80\n") !=
        std::string::npos);
  CHECK(out.str().find("  2   C     output   16  row-major           64       8192\n") != std::string::npos);
}

TEST_CASE("inspect refuses a launch record it cannot read") {
  ModuleContents c = optional_contents();
  c.sections[0].bytes = bytes_of(R"({"grid":[8,8,1],"block":[128,1,1]})");
  const std::vector<uint8_t> m = dg::module::write(c);
  std::ostringstream out, err;
  CHECK(dg::module::inspect(m, "bad.ko", out, err) == 1);
  CHECK(err.str().find("bad.ko: error: launch record:") != std::string::npos);
}

TEST_CASE("inspect reports a bad module precisely") {
  const std::vector<uint8_t> good = dg::module::write(gpu_contents());
  std::ostringstream out, err;
  std::vector<uint8_t> m(good.begin(), good.end() - 16);
  CHECK(dg::module::inspect(m, "bad.ko", out, err) == 1);
  CHECK(out.str().empty());
  CHECK(err.str() == "bad.ko: error: module is truncated: header gives file size " + std::to_string(good.size()) +
                         " but only " + std::to_string(good.size() - 16) + " bytes are present\n");

  std::ostringstream out2, err2;
  CHECK(dg::module::inspect({}, "empty.ko", out2, err2) == 1);
  CHECK(err2.str() == "empty.ko: error: module is truncated: 0 bytes, smaller than the 64-byte header\n");

  std::ostringstream out3, err3;
  std::vector<uint8_t> flipped = good;
  flipped[entry_u32(good, 3, ko::entry_field::kOffset)] ^= 0x80;
  CHECK(dg::module::inspect(flipped, "flip.ko", out3, err3) == 1);
  CHECK(err3.str().rfind("flip.ko: error: section 3 (cubin) checksum mismatch: stored 0x", 0) == 0);
}

TEST_CASE("inspect reports a plan that is not JSON instead of crashing") {
  for (const std::string& plan :
       {std::string("{\"tile_m\": 12"), std::string("\xff\xfe"), std::string(""), std::string("[1,2")}) {
    ModuleContents c = gpu_contents();
    for (Section& s : c.sections) {
      if (s.kind == static_cast<uint32_t>(ko::SectionKind::Plan)) s.bytes = bytes_of(plan);
    }
    std::ostringstream out, err;
    CHECK(dg::module::inspect(dg::module::write(c), "p.ko", out, err) == 1);
    CHECK(err.str().rfind("p.ko: error: plan section is not valid JSON: ", 0) == 0);
    CHECK(out.str().find("sections: 5\n") != std::string::npos);
  }
  ModuleContents c = gpu_contents();
  for (Section& s : c.sections) {
    if (s.kind == static_cast<uint32_t>(ko::SectionKind::Plan)) {
      s.bytes = bytes_of("[1, 2, 3]");
    }
  }
  std::ostringstream out, err;
  CHECK(dg::module::inspect(dg::module::write(c), "a.ko", out, err) == 0);
  CHECK(out.str().find("plan:\n  (not an object) [3 items]\n") != std::string::npos);
}

// The fuzz target's seed corpus doubles as a golden test of the on-disk format: the writer must
// keep producing exactly these bytes. DEEPGEMM_UPDATE_GOLDEN=1 rewrites them.
TEST_CASE("fuzz seed corpus is current") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(DEEPGEMM_SOURCE_DIR) / "tests/fuzz/corpus/module_reader";
  struct Seed {
    std::string file;
    std::vector<uint8_t> bytes;
    ko::Status status;
  };
  const std::vector<uint8_t> gpu = dg::module::write(gpu_contents());
  const std::vector<uint8_t> npu = dg::module::write(npu_contents());
  const std::vector<Seed> seeds = {
      {"gpu_hopper.ko", gpu, ko::Status::Ok},
      {"npu16.ko", npu, ko::Status::Ok},
      {"empty_volta.ko", dg::module::write(empty_contents()), ko::Status::Ok},
      {"optional_kind.ko", dg::module::write(optional_contents()), ko::Status::Ok},
      {"truncated_header.ko", std::vector<uint8_t>(gpu.begin(), gpu.begin() + 40), ko::Status::Truncated},
      {"truncated_payload.ko", std::vector<uint8_t>(npu.begin(), npu.end() - 24), ko::Status::Truncated},
      // A bare register table: the fuzz target also reads every input as one.
      {"npu_regmap.bin", npu_contents().sections[1].bytes, ko::Status::BadMagic},
  };
  const char* update = std::getenv("DEEPGEMM_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    fs::create_directories(dir);
    for (const Seed& s : seeds) {
      std::ofstream f(dir / s.file, std::ios::binary);
      f.write(reinterpret_cast<const char*>(s.bytes.data()), static_cast<std::streamsize>(s.bytes.size()));
      REQUIRE(f.good());
    }
  }
  for (const Seed& s : seeds) {
    CAPTURE(s.file);
    std::ifstream f(dir / s.file, std::ios::binary);
    REQUIRE_MESSAGE(f.good(), "missing seed; run with DEEPGEMM_UPDATE_GOLDEN=1");
    const std::vector<uint8_t> on_disk{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
    CHECK(on_disk == s.bytes);
    CHECK(status_of(on_disk) == s.status);
  }
}
