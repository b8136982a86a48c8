// The packed 4-bit weight layout (<deepgemm/w4_pack.h>) on arbitrary bytes: check_header and
// unpack never read out of bounds, and for a K×N taken from the input, packing the remaining
// bytes as plain weights (in the order the input picks) and unpacking them gives them back.
#include <deepgemm/w4_pack.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace w4 = dg::ko::w4;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Arbitrary bytes as a packed buffer, against a few shapes.
  for (auto [K, N] : {std::pair<uint64_t, uint64_t>{128, 8}, {32, 16}, {288, 200}}) {
    (void)w4::check_header(data, size, w4::kLayoutN8K128, K, N);
    std::vector<uint8_t> plain(w4::plain_bytes(K, N));
    (void)w4::unpack(data, size, w4::kLayoutN8K128, K, N, w4::Order::KByN, plain.data());
  }
  if (size < 3) return 0;
  // A small K×N (K in [1, 300], N a multiple of 8 up to 64) and an order from the first bytes.
  const uint64_t K = 1 + data[0] % 300, N = 8 * (1 + data[1] % 8);
  const w4::Order order = data[2] & 1 ? w4::Order::NByK : w4::Order::KByN;
  std::vector<uint8_t> plain(w4::plain_bytes(K, N), 0);
  for (size_t i = 0; i < plain.size(); ++i) plain[i] = size > 3 ? data[3 + i % (size - 3)] : 0;
  if ((K * N) % 2 == 1) plain.back() &= 0x0f;
  std::vector<uint8_t> packed(w4::packed_bytes(K, N));
  if (w4::pack(plain.data(), order, K, N, w4::kLayoutN8K128, packed.data(), packed.size()) != nullptr) std::abort();
  std::vector<uint8_t> back(plain.size(), 0xff);
  if (w4::unpack(packed.data(), packed.size(), w4::kLayoutN8K128, K, N, order, back.data()) != nullptr) std::abort();
  if (back != plain) std::abort();
  return 0;
}
