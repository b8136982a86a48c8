// qemu-virt-rv32: UART (ns16550 at 0x10000000), test device (0x100000), CLINT mtime (0x200bff8,
// 10 MHz), and the runtime's port layer on top of them.
#include "board.h"

#include <deepgemm/port.h>

namespace {

constexpr uintptr_t kUart = 0x10000000u;
constexpr uintptr_t kUartThr = kUart + 0;
constexpr uintptr_t kUartLsr = kUart + 5;
constexpr uint8_t kLsrThrEmpty = 0x20;
constexpr uintptr_t kTestDevice = 0x100000u;
constexpr uint32_t kTestPass = 0x5555;
constexpr uint32_t kTestFail = 0x3333;
constexpr uintptr_t kMtime = 0x0200BFF8u;

volatile uint8_t* reg8(uintptr_t a) { return reinterpret_cast<volatile uint8_t*>(a); }
volatile uint32_t* reg32(uintptr_t a) { return reinterpret_cast<volatile uint32_t*>(a); }

}  // namespace

extern "C" {

void board_putc(char c) {
  while ((*reg8(kUartLsr) & kLsrThrEmpty) == 0) {
  }
  *reg8(kUartThr) = static_cast<uint8_t>(c);
}

void board_puts(const char* s) {
  for (; *s != '\0'; ++s) {
    if (*s == '\n') board_putc('\r');
    board_putc(*s);
  }
}

void board_put_u32(uint32_t v) {
  char digits[10];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) board_putc(digits[--n]);
}

void board_exit(int code) {
  const uint32_t c = static_cast<uint32_t>(code) & 0xFFFFu;
  *reg32(kTestDevice) = c == 0 ? kTestPass : (c << 16) | kTestFail;
  for (;;) {
    __asm__ volatile("wfi");
  }
}

void board_trap(uint32_t mcause, uint32_t mepc) {
  board_puts("\ntrap: mcause ");
  board_put_u32(mcause);
  board_puts(" mepc ");
  board_put_u32(mepc);
  board_puts("\n");
  board_exit(3);
}

// ---- Port layer ----------------------------------------------------------------------------------

void port_mmio_write32(uintptr_t address, uint32_t value) { *reg32(address) = value; }

uint32_t port_mmio_read32(uintptr_t address) { return *reg32(address); }

// The virt machine has no NPU interrupt line: callers poll.
void port_wait_irq(uint64_t) {}

uint64_t port_now(void) {
  uint32_t hi, lo;
  do {
    hi = *reg32(kMtime + 4);
    lo = *reg32(kMtime);
  } while (hi != *reg32(kMtime + 4));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

}  // extern "C"
