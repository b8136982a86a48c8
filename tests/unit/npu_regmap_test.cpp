// The NPU register table (<deepgemm/npu_regmap.h>, the npu_regmap section): the documented layout,
// writer and reader round trip, a precise status for each malformed field, rejection of every
// truncation, the writer in hdl-gen (hdlgen::register_table) and inspect's decoding.
#include <doctest/doctest.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <deepgemm/npu_regmap.h>

#include "hdlgen/regmap_binary.h"
#include "module/inspect.h"
#include "module/writer.h"
#include "support/error.h"

namespace ko = dg::ko;
namespace rm = dg::ko::regmap;

namespace {

constexpr uint32_t kR = rm::kAccessRead, kW = rm::kAccessWrite, kRW = kR | kW;

const std::vector<rm::RegisterSpec>& three_regs() {
  static const std::vector<rm::RegisterSpec> regs = {{"ID", 0x000, kR}, {"CTRL", 0x004, kW}, {"A_BASE", 0x014, kRW}};
  return regs;
}

std::vector<uint8_t> encode(const std::vector<rm::RegisterSpec>& regs, uint64_t base = 0x40000000u,
                            uint32_t id = 0x9b575bdbu, uint32_t addr_bits = 32) {
  std::vector<uint8_t> out(rm::table_size(static_cast<uint32_t>(regs.size())) + 8, 0xAA);
  size_t written = 0;
  ko::ErrorDetail err;
  const rm::Status st = rm::write(base, id, addr_bits, 16, regs.data(), static_cast<uint32_t>(regs.size()), out.data(),
                                  out.size(), &written, &err);
  REQUIRE_MESSAGE(st == rm::Status::Ok, err.text);
  out.resize(written);
  return out;
}

rm::Status status_of(const std::vector<uint8_t>& t) {
  rm::View v;
  return rm::parse(t.data(), t.size(), &v);
}

std::string error_of(const std::vector<uint8_t>& t) {
  rm::View v;
  rm::parse(t.data(), t.size(), &v);
  return v.error();
}

uint8_t* record(std::vector<uint8_t>& t, uint32_t i) { return t.data() + rm::kHeaderSize + i * rm::kRecordSize; }

// The same table as version 1 wrote it: the 32-byte header, no address width.
std::vector<uint8_t> as_version1(std::vector<uint8_t> t) {
  t.erase(t.begin() + 32, t.begin() + 40);
  ko::store_u32(&t[4], 1);
  ko::store_u32(&t[8], 32);
  return t;
}

}  // namespace

TEST_CASE("register table: the layout is the documented one") {
  const std::vector<uint8_t> t = encode(three_regs(), 0x123456789abcdef0ull, 0xcafef00du, 48);
  REQUIRE(t.size() == 40 + 3 * 24);
  CHECK(std::memcmp(t.data(), "DGRM", 4) == 0);
  CHECK(ko::load_u32(&t[4]) == 3);    // version
  CHECK(ko::load_u32(&t[8]) == 40);   // header size
  CHECK(ko::load_u32(&t[12]) == 24);  // record size
  CHECK(ko::load_u32(&t[16]) == 0x9abcdef0u);
  CHECK(ko::load_u32(&t[20]) == 0x12345678u);
  CHECK(ko::load_u32(&t[24]) == 3);  // count
  CHECK(ko::load_u32(&t[28]) == 0xcafef00du);
  CHECK(ko::load_u32(&t[32]) == 48);  // bus address bits
  CHECK(ko::load_u32(&t[36]) == 16);  // bus beat bytes
  const uint8_t* r = &t[40 + 2 * 24];
  CHECK(std::string(reinterpret_cast<const char*>(r)) == "A_BASE");
  for (int i = 6; i < 16; ++i) CHECK(r[i] == 0);
  CHECK(ko::load_u32(r + 16) == 0x14);
  CHECK(ko::load_u32(r + 20) == 3);
}

TEST_CASE("register table: write then parse gives every register back") {
  const std::vector<uint8_t> t = encode(three_regs());
  rm::View v;
  REQUIRE(rm::parse(t.data(), t.size(), &v) == rm::Status::Ok);
  CHECK(v.ok());
  CHECK(v.data == t.data());
  CHECK(v.mmio_base == 0x40000000u);
  CHECK(v.design_id == 0x9b575bdbu);
  REQUIRE(v.count == 3);
  for (uint32_t i = 0; i < v.count; ++i) {
    rm::Register r;
    REQUIRE(v.at(i, &r));
    CHECK(std::string(r.name) == three_regs()[i].name);
    CHECK(r.offset == three_regs()[i].offset);
    CHECK(r.access == three_regs()[i].access);
  }
  rm::Register r;
  CHECK_FALSE(v.at(3, &r));
  REQUIRE(v.find("CTRL", &r));
  CHECK(r.offset == 4);
  CHECK(std::string(rm::access_name(r.access)) == "wo");
  CHECK(std::string(rm::access_name(kR)) == "ro");
  CHECK(std::string(rm::access_name(kRW)) == "rw");
  CHECK(std::string(rm::access_name(0)) == "--");
  CHECK_FALSE(v.find("CTR", &r));
  CHECK_FALSE(v.find("CTRLX", &r));
  CHECK_FALSE(v.find("", &r));
  CHECK_FALSE(v.find(nullptr, &r));
  CHECK_FALSE(v.find("ABCDEFGHIJKLMNOPQRSTUVWXYZ", &r));
  // A 15-character name fills the field but its last byte.
  const std::vector<uint8_t> longest = encode({{"ABCDEFGHIJKLMNO", 0xffc, kR}});
  rm::View lv;
  REQUIRE(rm::parse(longest.data(), longest.size(), &lv) == rm::Status::Ok);
  CHECK(lv.find("ABCDEFGHIJKLMNO", &r));
  CHECK(r.offset == 0xffc);
  // Writing is deterministic.
  CHECK(encode(three_regs()) == t);
  // A failed parse leaves an empty view.
  rm::View bad;
  CHECK(rm::parse(t.data(), 10, &bad) == rm::Status::Truncated);
  CHECK_FALSE(bad.ok());
  CHECK(bad.count == 0);
  CHECK_FALSE(bad.find("ID", &r));
}

TEST_CASE("register table: every truncation is rejected") {
  const std::vector<uint8_t> t = encode(three_regs());
  for (size_t n = 0; n < t.size(); ++n) {
    CAPTURE(n);
    CHECK(status_of(std::vector<uint8_t>(t.begin(), t.begin() + static_cast<long>(n))) == rm::Status::Truncated);
  }
  CHECK(error_of(std::vector<uint8_t>(t.begin(), t.begin() + 20)) ==
        "register table is truncated: 20 bytes, smaller than the 32-byte header");
  CHECK(error_of(std::vector<uint8_t>(t.begin(), t.end() - 1)) ==
        "register table is truncated: 3 registers need 112 bytes, only 111 are present");
  rm::View v;
  CHECK(rm::parse(nullptr, 0, &v) == rm::Status::Truncated);
  CHECK(rm::parse(nullptr, 40, &v) == rm::Status::NullArgument);
  CHECK(rm::parse(t.data(), t.size(), nullptr) == rm::Status::NullArgument);
}

TEST_CASE("register table: each bad field has its own status and message") {
  const std::vector<uint8_t> good = encode(three_regs());
  auto with = [&](auto edit) {
    std::vector<uint8_t> t = good;
    edit(t);
    return t;
  };
  auto t = with([](auto& t) { t[2] = 'X'; });
  CHECK(status_of(t) == rm::Status::BadMagic);
  CHECK(error_of(t) == "not a register table: bad magic at byte 2 (expected \"DGRM\")");
  t = with([](auto& t) { ko::store_u32(&t[4], 4); });
  CHECK(status_of(t) == rm::Status::UnsupportedVersion);
  CHECK(error_of(t) == "unsupported register table version 4 (this reader supports versions 1 to 3)");
  t = with([](auto& t) { ko::store_u32(&t[36], 24); });
  CHECK(status_of(t) == rm::Status::BadAddrBits);
  CHECK(error_of(t) == "bus beat bytes 24 is not a power of two from 1 to 4096");
  t = with([](auto& t) { ko::store_u32(&t[4], 2); });  // version 2: byte 36 is reserved
  CHECK(status_of(t) == rm::Status::BadAddrBits);
  CHECK(error_of(t) == "the reserved header field at byte 36 is not zero");
  t = with([](auto& t) { ko::store_u32(&t[8], 36); });
  CHECK(status_of(t) == rm::Status::BadHeaderSize);
  CHECK(error_of(t) == "bad register table header size 36 (expected 40)");
  t = with([](auto& t) { ko::store_u32(&t[4], 1); });  // a version 1 header is 32 bytes
  CHECK(status_of(t) == rm::Status::BadHeaderSize);
  CHECK(error_of(t) == "bad register table header size 40 (expected 32)");
  t = with([](auto& t) { ko::store_u32(&t[32], 31); });
  CHECK(status_of(t) == rm::Status::BadAddrBits);
  CHECK(error_of(t) == "bus address bits 31 is outside 32 to 64");
  t = with([](auto& t) { ko::store_u32(&t[32], 65); });
  CHECK(status_of(t) == rm::Status::BadAddrBits);
  t = with([](auto& t) { t[37] = 1; });  // a beat of 272 bytes
  CHECK(status_of(t) == rm::Status::BadAddrBits);
  CHECK(error_of(t) == "bus beat bytes 272 is not a power of two from 1 to 4096");
  t = with([](auto& t) { ko::store_u32(&t[12], 20); });
  CHECK(status_of(t) == rm::Status::BadRecordSize);
  t = with([](auto& t) { ko::store_u32(&t[24], 0); });
  CHECK(status_of(t) == rm::Status::BadCount);
  CHECK(error_of(t) == "register count 0 is outside 1 to 256");
  t = with([](auto& t) { ko::store_u32(&t[24], 257); });
  CHECK(status_of(t) == rm::Status::BadCount);
  t = with([](auto& t) { ko::store_u32(&t[24], 0xFFFFFFFFu); });
  CHECK(status_of(t) == rm::Status::BadCount);
  t = with([](auto& t) { ko::store_u32(&t[24], 2); });
  CHECK(status_of(t) == rm::Status::TrailingData);
  CHECK(error_of(t) == "trailing data: the register table is 112 bytes, 2 registers end at 88");
  t = with([](auto& t) { ko::store_u32(&t[24], 4); });
  CHECK(status_of(t) == rm::Status::Truncated);

  // Names.
  t = with([](auto& t) { std::memset(record(t, 1), 0, 16); });
  CHECK(status_of(t) == rm::Status::BadName);
  CHECK(error_of(t) == "register 1 has an empty name");
  t = with([](auto& t) { record(t, 1)[1] = ' '; });
  CHECK(status_of(t) == rm::Status::BadName);
  CHECK(error_of(t) ==
        "register 1 has a bad name: byte 1 is 0x20 (expected 1 to 15 printable ASCII characters, then NUL)");
  t = with([](auto& t) { record(t, 1)[10] = 'Z'; });  // "CTRL" then garbage after the NUL
  CHECK(status_of(t) == rm::Status::BadName);
  t = with([](auto& t) { std::memset(record(t, 0), 'A', 16); });  // no NUL in the field
  CHECK(status_of(t) == rm::Status::BadName);
  CHECK(error_of(t).find("byte 15 is 0x41") != std::string::npos);
  t = with([](auto& t) { record(t, 0)[0] = 0x80; });
  CHECK(status_of(t) == rm::Status::BadName);
  t = with([](auto& t) { std::memcpy(record(t, 2), "CTRL\0\0", 6); });
  CHECK(status_of(t) == rm::Status::DuplicateName);
  CHECK(error_of(t) == "register 2 (CTRL) has the same name as register 1");

  // Offsets and access.
  t = with([](auto& t) { ko::store_u32(record(t, 2) + 16, 0x15); });
  CHECK(status_of(t) == rm::Status::BadOffset);
  CHECK(error_of(t) == "register 2 (A_BASE) offset 0x00000015 is not a multiple of 4");
  t = with([](auto& t) { ko::store_u32(record(t, 2) + 16, 0x1000); });
  CHECK(status_of(t) == rm::Status::BadOffset);
  CHECK(error_of(t) == "register 2 (A_BASE) offset 0x00001000 is outside the 4 KB register page");
  t = with([](auto& t) { ko::store_u32(record(t, 2) + 16, 0xFFFFFFFCu); });
  CHECK(status_of(t) == rm::Status::BadOffset);
  t = with([](auto& t) { ko::store_u32(record(t, 0) + 20, 0); });
  CHECK(status_of(t) == rm::Status::BadAccess);
  CHECK(error_of(t) == "register 0 (ID) access 0x00000000 is neither read nor write");
  t = with([](auto& t) { ko::store_u32(record(t, 0) + 20, 5); });
  CHECK(status_of(t) == rm::Status::BadAccess);
  CHECK(error_of(t) == "register 0 (ID) access 0x00000005 sets reserved bits");

  // Shared offsets are allowed (a read-only and a write-only register at one address).
  CHECK(status_of(encode({{"STATUS", 8, kR}, {"CMD", 8, kW}})) == rm::Status::Ok);

  // Every status has its own sentence.
  for (uint32_t s = 0; s <= static_cast<uint32_t>(rm::Status::BadAddrBits); ++s)
    CHECK(std::string(rm::status_message(static_cast<rm::Status>(s))) != "unknown status");
}

TEST_CASE("register table: the writer refuses what the reader would") {
  std::vector<uint8_t> buf(1024);
  size_t written = 7;
  ko::ErrorDetail err;
  auto write = [&](const std::vector<rm::RegisterSpec>& regs, size_t cap = 1024) {
    return rm::write(0, 0, 32, 16, regs.data(), static_cast<uint32_t>(regs.size()), buf.data(), cap, &written, &err);
  };
  CHECK(write({{"ABCDEFGHIJKLMNOP", 0, kR}}) == rm::Status::BadName);
  CHECK(std::string(err.text) == "register 0 name is longer than 15 characters");
  CHECK(written == 0);
  CHECK(write({{"", 0, kR}}) == rm::Status::BadName);
  CHECK(write({{"A B", 0, kR}}) == rm::Status::BadName);
  CHECK(write({{"ID", 0, kR}, {"ID", 4, kR}}) == rm::Status::DuplicateName);
  CHECK(write({{"ID", 2, kR}}) == rm::Status::BadOffset);
  CHECK(write({{"ID", 4096, kR}}) == rm::Status::BadOffset);
  CHECK(write({{"ID", 0, 0}}) == rm::Status::BadAccess);
  CHECK(write({}) == rm::Status::BadCount);
  CHECK(write(three_regs(), 111) == rm::Status::BufferTooSmall);
  CHECK(std::string(err.text) == "output buffer holds 111 bytes, the table needs 112");
  CHECK(write(three_regs(), 112) == rm::Status::Ok);
  CHECK(written == 112);
  for (uint32_t bits : {0u, 31u, 65u}) {
    CHECK(rm::write(0, 0, bits, 16, three_regs().data(), 3, buf.data(), buf.size(), &written, &err) ==
          rm::Status::BadAddrBits);
    CHECK(written == 0);
  }
  CHECK(rm::write(0, 0, 64, 16, three_regs().data(), 3, buf.data(), buf.size(), &written) == rm::Status::Ok);
  CHECK(rm::write(0, 0, 32, 16, nullptr, 1, buf.data(), buf.size(), &written) == rm::Status::NullArgument);
  CHECK(rm::write(0, 0, 32, 16, three_regs().data(), 3, nullptr, 0, &written) == rm::Status::NullArgument);
}

TEST_CASE("register table: a version 2 table reads as a design whose bus beat is not recorded") {
  std::vector<uint8_t> t = encode(three_regs(), 0x40000000u, 0x9b575bdbu, 48);
  ko::store_u32(&t[4], 2);
  ko::store_u32(&t[36], 0);
  rm::View v;
  REQUIRE(rm::parse(t.data(), t.size(), &v) == rm::Status::Ok);
  CHECK(v.addr_bits == 48);
  CHECK(v.beat_bytes == 0);
  REQUIRE(rm::parse(encode(three_regs(), 0x40000000u, 0x9b575bdbu, 48).data(), t.size(), &v) == rm::Status::Ok);
  CHECK(v.beat_bytes == 16);
}

TEST_CASE("register table: a version 1 table reads as a design with 32-bit bus addresses") {
  const std::vector<uint8_t> t = as_version1(encode(three_regs(), 0x40000000u, 0x9b575bdbu, 48));
  REQUIRE(t.size() == 32 + 3 * 24);
  rm::View v;
  REQUIRE(rm::parse(t.data(), t.size(), &v) == rm::Status::Ok);
  CHECK(v.addr_bits == 32);
  CHECK(v.design_id == 0x9b575bdbu);
  rm::Register r;
  REQUIRE(v.find("A_BASE", &r));
  CHECK(r.offset == 0x14);
  for (size_t n = 0; n < t.size(); ++n)
    CHECK(status_of(std::vector<uint8_t>(t.begin(), t.begin() + static_cast<long>(n))) == rm::Status::Truncated);
}

TEST_CASE("register table: which addresses the design's bus reaches") {
  rm::View v;
  std::vector<uint8_t> t = encode(three_regs(), 0, 0, 40);
  REQUIRE(rm::parse(t.data(), t.size(), &v) == rm::Status::Ok);
  CHECK(v.addr_bits == 40);
  CHECK(v.reaches(0xFF00000000ull, 0x100000000ull));  // ends at 2^40 exactly
  CHECK_FALSE(v.reaches(0xFF00000000ull, 0x100000001ull));
  CHECK_FALSE(v.reaches(0x10000000000ull, 0));
  t = encode(three_regs(), 0, 0, 64);
  REQUIRE(rm::parse(t.data(), t.size(), &v) == rm::Status::Ok);
  CHECK(v.reaches(0xFFFFFFFFFFFFF000ull, 0x1000));
  CHECK_FALSE(v.reaches(0xFFFFFFFFFFFFF000ull, 0x1001));
}

TEST_CASE("hdlgen::register_table encodes a design's registers, base and ID") {
  dg::hdlgen::Design d;
  d.top = "npu_gemm_t";
  d.mmio_base = 0x40000000u;
  d.id = 0x1234abcdu;
  d.addr_bits = 40;
  d.registers = {
      {"ID", 0x000, "ro", "identifies the design"}, {"CTRL", 0x004, "wo", "start"}, {"M", 0x020, "rw", "rows"}};
  CHECK(dg::hdlgen::design_id(d) == 0x1234abcdu);
  const std::vector<uint8_t> t = dg::hdlgen::register_table(d);
  rm::View v;
  REQUIRE(rm::parse(t.data(), t.size(), &v) == rm::Status::Ok);
  CHECK(v.mmio_base == 0x40000000u);
  CHECK(v.design_id == 0x1234abcdu);
  CHECK(v.addr_bits == 40);
  REQUIRE(v.count == 3);
  rm::Register r;
  REQUIRE(v.at(2, &r));
  CHECK(std::string(r.name) == "M");
  CHECK(r.offset == 0x20);
  CHECK(r.access == kRW);
  CHECK(dg::hdlgen::register_table(d) == t);

  dg::hdlgen::Design bad = d;
  bad.registers[1].access = "w";
  CHECK_THROWS_WITH_AS(dg::hdlgen::register_table(bad), doctest::Contains("register CTRL has access 'w'"),
                       dg::InternalError);
  bad = d;
  bad.registers[2].offset = 0x1000;
  CHECK_THROWS_WITH_AS(dg::hdlgen::register_table(bad), doctest::Contains("outside the 4 KB register page"),
                       dg::InternalError);
  bad = d;
  bad.registers.push_back({"ID", 0x30, "ro", "again"});
  CHECK_THROWS_WITH_AS(dg::hdlgen::register_table(bad), doctest::Contains("same name"), dg::InternalError);
}

TEST_CASE("inspect decodes the register table and rejects a bad one") {
  dg::module::ModuleContents c;
  c.target_kind = ko::TargetKind::Npu;
  c.target_name = "npu16";
  c.sections.push_back(dg::module::text_section(ko::SectionKind::Plan, R"({"tile_m":16})"));
  dg::module::Section regmap;
  regmap.kind = static_cast<uint32_t>(ko::SectionKind::NpuRegmap);
  regmap.name = "npu_regmap";
  regmap.bytes = encode(three_regs());
  c.sections.push_back(regmap);
  std::ostringstream out, err;
  REQUIRE(dg::module::inspect(dg::module::write(c), "npu.ko", out, err) == 0);
  CHECK(err.str().empty());
  CHECK(out.str().find("registers: 3 (base 0x40000000, design id 0x9b575bdb, 32-bit bus addresses)\n"
                       "  0x000  ID              ro\n"
                       "  0x004  CTRL            wo\n"
                       "  0x014  A_BASE          rw\n"
                       "plan:\n") != std::string::npos);

  c.sections.back().bytes.back() ^= 0x80;  // A_BASE's access gets a reserved bit
  std::ostringstream out2, err2;
  CHECK(dg::module::inspect(dg::module::write(c), "bad.ko", out2, err2) == 1);
  CHECK(err2.str() == "bad.ko: error: npu_regmap section: register 2 (A_BASE) access 0x80000003 sets reserved bits\n");
}
