// What GCC and clang may emit calls to even in freestanding code: the four memory functions and,
// on 32-bit targets, 64-bit division. Linked only into bare-metal images (a hosted program takes
// them from its C library and compiler runtime); no compiler-rt is needed.
#include "freestanding.h"

extern "C" {

void* memcpy(void* dst, const void* src, size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  while (n-- != 0) *d++ = *s++;
  return dst;
}

void* memmove(void* dst, const void* src, size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (d < s) {
    while (n-- != 0) *d++ = *s++;
  } else {
    while (n != 0) {
      --n;
      d[n] = s[n];
    }
  }
  return dst;
}

void* memset(void* dst, int c, size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  while (n-- != 0) *d++ = static_cast<unsigned char>(c);
  return dst;
}

int memcmp(const void* a, const void* b, size_t n) {
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  for (; n != 0; --n, ++x, ++y) {
    if (*x != *y) return *x < *y ? -1 : 1;
  }
  return 0;
}

#if UINTPTR_MAX == 0xFFFFFFFFu
// Shift-and-subtract 64-bit division (libgcc / compiler-rt names). Division by zero returns all
// ones, like the RISC-V divu instruction.
static uint64_t udivmod64(uint64_t n, uint64_t d, uint64_t* rem) {
  if (d == 0) {
    *rem = n;
    return ~static_cast<uint64_t>(0);
  }
  uint64_t q = 0, r = 0;
  for (int i = 63; i >= 0; --i) {
    r = (r << 1) | ((n >> i) & 1u);
    if (r >= d) {
      r -= d;
      q |= static_cast<uint64_t>(1) << i;
    }
  }
  *rem = r;
  return q;
}

uint64_t __udivdi3(uint64_t n, uint64_t d) {
  uint64_t r;
  return udivmod64(n, d, &r);
}

uint64_t __umoddi3(uint64_t n, uint64_t d) {
  uint64_t r;
  udivmod64(n, d, &r);
  return r;
}

int64_t __divdi3(int64_t n, int64_t d) {
  const uint64_t un = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  const uint64_t ud = d < 0 ? 0 - static_cast<uint64_t>(d) : static_cast<uint64_t>(d);
  uint64_t r;
  const uint64_t q = udivmod64(un, ud, &r);
  return static_cast<int64_t>((n < 0) != (d < 0) ? 0 - q : q);
}

int64_t __moddi3(int64_t n, int64_t d) {
  const uint64_t un = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  const uint64_t ud = d < 0 ? 0 - static_cast<uint64_t>(d) : static_cast<uint64_t>(d);
  uint64_t r;
  udivmod64(un, ud, &r);
  return static_cast<int64_t>(n < 0 ? 0 - r : r);
}
#endif

}  // extern "C"
