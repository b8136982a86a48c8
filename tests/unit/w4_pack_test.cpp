// The packed 4-bit weight layout (<deepgemm/w4_pack.h>): pack and unpack are inverse in both
// orders, and the packed bytes, read the way the kernel reads them (lane, word, register pairs of
// nibbles i and i + 4 after the k permutation), give back every weight: the reference below is
// written from the kernel's side (codegen/w4a16.cpp), not from the packer's locate().
#include <deepgemm/launch_format.h>
#include <deepgemm/w4_pack.h>
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace w4 = dg::ko::w4;

namespace {

std::vector<std::uint8_t> random_plain(std::uint64_t K, std::uint64_t N, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> v(w4::plain_bytes(K, N));
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  if ((K * N) % 2 == 1) v.back() &= 0x0f;  // the unused high nibble of an odd count is zero
  return v;
}

int plain_value(const std::vector<std::uint8_t>& p, std::uint64_t e) {
  const int u = (p[e / 2] >> ((e % 2) * 4)) & 15;
  return u >= 8 ? u - 16 : u;  // two's complement
}

/// B(k, n) as the kernel computes it: warp lane l = 4g + t loads 16 bytes of chunk (j, q); word w
/// holds column 8j + g; register i of the word is (nibble i, nibble i + 4) at k0 + 2i, k0 + 2i + 1
/// with k0 = 128q + 32w + 8t; each nibble u means u - 8 (1024 + u - 1032).
std::vector<int> kernel_view(const std::vector<std::uint8_t>& packed, std::uint64_t K, std::uint64_t N) {
  const std::uint64_t kb = w4::k_blocks(K);
  std::vector<int> b(kb * 128 * N, 99);
  const std::uint8_t* data = packed.data() + w4::kHeaderBytes;
  for (std::uint64_t j = 0; j < N / 8; ++j)
    for (std::uint64_t q = 0; q < kb; ++q)
      for (unsigned lane = 0; lane < 32; ++lane)
        for (unsigned w = 0; w < 4; ++w) {
          const std::uint8_t* p = data + (j * kb + q) * 512 + lane * 16 + w * 4;
          const std::uint32_t word = p[0] | p[1] << 8 | p[2] << 16 | std::uint32_t(p[3]) << 24;
          const unsigned g = lane / 4, t = lane % 4;
          const std::uint64_t k0 = 128 * q + 32 * w + 8 * t, n = 8 * j + g;
          for (unsigned i = 0; i < 4; ++i) {
            const std::uint32_t pair = (word >> (4 * i)) & 0x000f000fu;
            b[(k0 + 2 * i) * N + n] = int(pair & 15) - 8;
            b[(k0 + 2 * i + 1) * N + n] = int(pair >> 16) - 8;
          }
        }
  return b;
}

}  // namespace

TEST_CASE("pack then unpack gives the plain weights back, in both orders and both layouts") {
  for (auto [K, N] : {std::pair<std::uint64_t, std::uint64_t>{288, 200}, {4096, 16}, {32, 8}, {129, 24}}) {
    for (w4::Order order : {w4::Order::KByN, w4::Order::NByK})
      for (std::uint32_t layout : {w4::kLayoutN8K128, w4::kLayoutN8K128U4, w4::kLayoutN8K128F4}) {
        CAPTURE(K);
        CAPTURE(N);
        CAPTURE(layout);
        const auto plain = random_plain(K, N, static_cast<unsigned>(K * 7 + N));
        std::vector<std::uint8_t> packed(w4::packed_bytes(K, N));
        REQUIRE(packed.size() == 64 + (N / 8) * ((K + 127) / 128) * 512);
        REQUIRE(w4::pack(plain.data(), order, K, N, layout, packed.data(), packed.size()) == nullptr);
        std::vector<std::uint8_t> back(plain.size(), 0xff);
        REQUIRE(w4::unpack(packed.data(), packed.size(), layout, K, N, order, back.data()) == nullptr);
        CHECK(back == plain);
        // The other layout's header is refused.
        const std::uint32_t other = layout == w4::kLayoutN8K128 ? w4::kLayoutN8K128F4 : w4::kLayoutN8K128;
        CHECK(w4::unpack(packed.data(), packed.size(), other, K, N, order, back.data()) != nullptr);
      }
  }
}

TEST_CASE("u4 weights (zero point 8) pack to the bytes of the same values as int4") {
  const std::uint64_t K = 160, N = 24;
  const auto u = random_plain(K, N, 99);  // unsigned nibbles u: values u - 8
  std::vector<std::uint8_t> s(u.size());
  for (std::size_t i = 0; i < u.size(); ++i) s[i] = static_cast<std::uint8_t>(u[i] ^ 0x88);  // (u - 8) & 15
  std::vector<std::uint8_t> pu(w4::packed_bytes(K, N)), ps(pu.size());
  REQUIRE(w4::pack(u.data(), w4::Order::KByN, K, N, w4::kLayoutN8K128U4, pu.data(), pu.size()) == nullptr);
  REQUIRE(w4::pack(s.data(), w4::Order::KByN, K, N, w4::kLayoutN8K128, ps.data(), ps.size()) == nullptr);
  CHECK(std::vector<std::uint8_t>(pu.begin() + w4::kHeaderBytes, pu.end()) ==
        std::vector<std::uint8_t>(ps.begin() + w4::kHeaderBytes, ps.end()));
  CHECK(pu[8] == w4::kLayoutN8K128U4);
  CHECK(w4::layout_name(w4::kLayoutN8K128U4) == std::string("n8k128u"));
  CHECK(w4::layout_name(w4::kLayoutN8K128F4) == std::string("n8k128f4"));
  CHECK(w4::layout_name(4) == nullptr);
}

TEST_CASE("the kernel's reading of the packed layout gives every weight, and zeros past K") {
  const std::uint64_t K = 288, N = 200;  // K not a multiple of 128: the last block is padded
  const auto plain = random_plain(K, N, 1234);
  std::vector<std::uint8_t> packed(w4::packed_bytes(K, N));
  REQUIRE(w4::pack(plain.data(), w4::Order::KByN, K, N, w4::kLayoutN8K128, packed.data(), packed.size()) == nullptr);
  const std::vector<int> b = kernel_view(packed, K, N);
  int mismatches = 0;
  for (std::uint64_t k = 0; k < w4::k_blocks(K) * 128; ++k)
    for (std::uint64_t n = 0; n < N; ++n) {
      const int want = k < K ? plain_value(plain, k * N + n) : 0;
      mismatches += b[k * N + n] != want;
    }
  CHECK(mismatches == 0);
  // N×K input of the transposed data packs to the same bytes.
  std::vector<std::uint8_t> nk(plain.size(), 0);
  for (std::uint64_t k = 0; k < K; ++k)
    for (std::uint64_t n = 0; n < N; ++n) {
      const std::uint64_t e = n * K + k;
      nk[e / 2] = static_cast<std::uint8_t>(nk[e / 2] | ((plain_value(plain, k * N + n) & 15) << ((e % 2) * 4)));
    }
  std::vector<std::uint8_t> packed2(packed.size());
  REQUIRE(w4::pack(nk.data(), w4::Order::NByK, K, N, w4::kLayoutN8K128, packed2.data(), packed2.size()) == nullptr);
  CHECK(packed2 == packed);
}

TEST_CASE("the header names layout, K and N; a mismatch is refused with the reason") {
  const std::uint64_t K = 256, N = 64;
  const auto plain = random_plain(K, N, 7);
  std::vector<std::uint8_t> packed(w4::packed_bytes(K, N));
  REQUIRE(w4::pack(plain.data(), w4::Order::KByN, K, N, w4::kLayoutN8K128, packed.data(), packed.size()) == nullptr);
  CHECK(w4::check_header(packed.data(), packed.size(), w4::kLayoutN8K128, K, N) == nullptr);
  CHECK(std::string(w4::check_header(packed.data(), packed.size(), w4::kLayoutN8K128U4, K, N)) ==
        "packed weights: packed for another layout than the module reads");
  CHECK(std::string(w4::check_header(packed.data(), packed.size(), w4::kLayoutN8K128, K, 72)) ==
        "packed weights: packed for another K×N than the module's");
  CHECK(std::string(w4::check_header(plain.data(), plain.size(), w4::kLayoutN8K128, K, N)).find("no DGW4 header") !=
        std::string::npos);
  CHECK(std::string(w4::check_header(packed.data(), 10, w4::kLayoutN8K128, K, N)) ==
        "packed weights: shorter than the 64-byte header");
  std::vector<std::uint8_t> back(plain.size());
  CHECK(w4::unpack(packed.data(), packed.size() - 1, w4::kLayoutN8K128, K, N, w4::Order::KByN, back.data()) != nullptr);
}

TEST_CASE("the packer refuses what the layout cannot hold") {
  std::vector<std::uint8_t> src(64, 0), dst(4096, 0);
  CHECK(w4::packed_bytes(32, 12) == 0);  // N not a multiple of 8
  CHECK(std::string(w4::pack(src.data(), w4::Order::KByN, 32, 12, w4::kLayoutN8K128, dst.data(), dst.size())) ==
        "pack: N must be a multiple of 8 and K, N in [1, 2^31)");
  CHECK(std::string(w4::pack(src.data(), w4::Order::KByN, 32, 8, w4::kLayoutN8K128, dst.data(), 100)) ==
        "pack: destination smaller than the packed size");
  CHECK(std::string(w4::pack(src.data(), w4::Order::KByN, 32, 8, 9, dst.data(), dst.size())) ==
        "pack: unknown layout id");
  CHECK(w4::layout_name(w4::kLayoutN8K128) == std::string("n8k128"));
  CHECK(w4::layout_name(0) == nullptr);
}

TEST_CASE("the launch record carries B's packed layout and refuses it elsewhere") {
  namespace L = dg::ko::launch;
  L::Launch l{};
  std::snprintf(l.kernel, sizeof l.kernel, "k");
  l.grid[0] = l.grid[1] = l.grid[2] = 1;
  l.block[0] = l.block[1] = l.block[2] = 1;
  l.M = 16;
  l.N = 64;
  l.K = l.K_min = 256;
  l.batch = 1;
  l.k_align = 1;
  l.operand_count = 3;
  auto set = [&](int i, const char* name, L::Role role, std::uint32_t bits, std::uint64_t bytes, std::uint64_t ld) {
    std::snprintf(l.operands[i].name, sizeof l.operands[i].name, "%s", name);
    l.operands[i].role = role;
    l.operands[i].element_bits = bits;
    l.operands[i].bytes = bytes;
    l.operands[i].row_major = true;
    l.operands[i].ld = ld;
  };
  set(0, "A", L::Role::Input, 16, 16 * 256 * 2, 256);
  set(1, "B", L::Role::Input, 4, w4::packed_bytes(256, 64), 64);
  set(2, "C", L::Role::Output, 16, 16 * 64 * 2, 64);
  l.operands[1].packing = w4::kLayoutN8K128;
  std::vector<std::uint8_t> bytes(L::size_for(3));
  L::write(l, bytes.data());
  L::Launch back{};
  REQUIRE(L::parse(bytes.data(), bytes.size(), &back) == nullptr);
  CHECK(back.operands[1].packing == w4::kLayoutN8K128);
  CHECK(back.operands[0].packing == 0);
  // A packed layout on A, an unknown id, or a buffer smaller than the layout: refused.
  l.operands[1].packing = 0;
  l.operands[0].packing = w4::kLayoutN8K128;
  L::write(l, bytes.data());
  CHECK(L::parse(bytes.data(), bytes.size(), &back) != nullptr);
  l.operands[0].packing = 0;
  l.operands[1].packing = 7;
  L::write(l, bytes.data());
  CHECK(L::parse(bytes.data(), bytes.size(), &back) != nullptr);
  l.operands[1].packing = w4::kLayoutN8K128;
  l.operands[1].bytes = w4::packed_bytes(256, 64) - 1;
  L::write(l, bytes.data());
  CHECK(std::string(L::parse(bytes.data(), bytes.size(), &back)) ==
        "launch record: packed weights smaller than their layout");
}
