// The reference of the NPU's fused epilogue (sim/elements.h, what co-simulation checks the RTL's
// dg_epilogue against), on values worked by hand: the bias saturates at the accumulator's width,
// ReLU clamps at zero, requantization rounds half up (ties toward +infinity) with an arithmetic
// shift and saturates after the zero point; the rq record's byte layout.
#include <doctest/doctest.h>

#include <cstdint>

#include "elements.h"

namespace {

using dg::sim::EpiColumn;
using dg::sim::Epilogue;
using dg::sim::epilogue_value;

EpiColumn col(std::int32_t bias, std::int32_t mult, unsigned shift, std::int16_t zp) {
  EpiColumn c;
  c.bias = bias;
  c.mult = mult;
  c.shift = shift;
  c.zp = zp;
  return c;
}

}  // namespace

TEST_CASE("bias saturates at the accumulator's width, then ReLU") {
  Epilogue e;
  e.bias = true;
  CHECK(epilogue_value(100, 32, e, col(-30, 0, 0, 0)) == 70);
  CHECK(epilogue_value(INT32_MAX - 5, 32, e, col(10, 0, 0, 0)) == INT32_MAX);
  CHECK(epilogue_value(INT32_MIN + 5, 32, e, col(-10, 0, 0, 0)) == INT32_MIN);
  // A 48-bit accumulator holds what an int32 would not.
  CHECK(epilogue_value(INT32_MAX, 48, e, col(10, 0, 0, 0)) == std::int64_t{INT32_MAX} + 10);
  CHECK(epilogue_value(INT64_MAX - 1, 64, e, col(5, 0, 0, 0)) == INT64_MAX);
  e.relu = true;
  CHECK(epilogue_value(5, 32, e, col(-6, 0, 0, 0)) == 0);
  CHECK(epilogue_value(5, 32, e, col(-5, 0, 0, 0)) == 0);
  CHECK(epilogue_value(5, 32, e, col(-4, 0, 0, 0)) == 1);
  e.bias = false;
  CHECK(epilogue_value(-7, 32, e, col(100, 0, 0, 0)) == 0);  // no bias: it is not added
}

TEST_CASE("requantization rounds half up and saturates after the zero point") {
  Epilogue e;
  e.requant = true;
  e.out_bits = 8;
  // 5 * 3 = 15; 15 / 4 = 3.75 -> 4; 14 / 4 = 3.5 -> 4 (a tie, up); 13 / 4 = 3.25 -> 3.
  CHECK(epilogue_value(5, 32, e, col(0, 3, 2, 0)) == 4);
  CHECK(epilogue_value(7, 32, e, col(0, 2, 2, 0)) == 4);
  CHECK(epilogue_value(13, 32, e, col(0, 1, 2, 0)) == 3);
  // Negative ties go toward +infinity: -14 / 4 = -3.5 -> -3; -15 / 4 = -3.75 -> -4.
  CHECK(epilogue_value(-14, 32, e, col(0, 1, 2, 0)) == -3);
  CHECK(epilogue_value(-15, 32, e, col(0, 1, 2, 0)) == -4);
  // Shift 0: the product itself; the zero point after rounding; saturation to int8.
  CHECK(epilogue_value(3, 32, e, col(0, 5, 0, 7)) == 22);
  CHECK(epilogue_value(120, 32, e, col(0, 1, 0, 10)) == 127);
  CHECK(epilogue_value(-120, 32, e, col(0, 1, 0, -10)) == -128);
  // A product past 64 bits (a 64-bit accumulator times a 32-bit multiplier) is exact.
  CHECK(epilogue_value(INT64_MAX, 64, e, col(0, INT32_MIN, 63, 0)) == -128);
  CHECK(epilogue_value(std::int64_t{1} << 40, 64, e, col(0, 1 << 20, 60, 0)) == 1);
  // int16.
  e.out_bits = 16;
  CHECK(epilogue_value(40000, 32, e, col(0, 1, 0, 0)) == 32767);
  CHECK(epilogue_value(-40000, 32, e, col(0, 1, 1, 0)) == -20000);
}

TEST_CASE("the whole chain: bias, ReLU, requantization") {
  Epilogue e;
  e.bias = e.relu = e.requant = true;
  e.out_bits = 8;
  // relu(-50 + 20) = 0 -> the zero point; relu(50 + 20) = 70 -> 70 * 3 / 8 = 26.25 -> 26, + 1.
  CHECK(epilogue_value(-50, 32, e, col(20, 3, 3, 5)) == 5);
  CHECK(epilogue_value(50, 32, e, col(20, 3, 3, 1)) == 27);
  // c_element_epi wraps the exact sum to the accumulator first: 2^32 + 9 is 9 in 32 bits.
  CHECK(dg::sim::c_element_epi((std::uint64_t{1} << 32) + 9, 32, 8, e, col(0, 1, 0, 0)) == 9);
  // Without requantization an int32 C of a 48-bit accumulator saturates.
  Epilogue b;
  b.bias = true;
  CHECK(dg::sim::c_element_epi(std::uint64_t{1} << 40, 48, 32, b, col(1, 0, 0, 0)) == INT32_MAX);
}

TEST_CASE("the rq record's bytes") {
  const std::uint8_t rec[8] = {0x78, 0x56, 0x34, 0x92, 0xc5, 0xff, 0xfe, 0xff};
  const EpiColumn c = dg::sim::rq_record(rec);
  CHECK(c.mult == static_cast<std::int32_t>(0x92345678u));
  CHECK(c.shift == 5u);  // the low 6 bits of byte 4
  CHECK(c.zp == -2);     // byte 5 is not read
  // The writer the co-simulation fills memory with is its inverse.
  std::uint8_t out[8];
  dg::sim::put_rq_record(c, out);
  const std::uint8_t want[8] = {0x78, 0x56, 0x34, 0x92, 0x05, 0x00, 0xfe, 0xff};
  for (int b = 0; b < 8; ++b) CHECK(out[b] == want[b]);
}
