// qemu-virt-rv32 board support: UART output and exit through the sifive test device.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** ns16550 UART at 0x10000000. */
void board_putc(char c);
void board_puts(const char* s);
void board_put_u32(uint32_t v);

/** Ends the run: 0 passes (qemu exits 0), anything else fails (qemu exits with that code). */
__attribute__((noreturn)) void board_exit(int code);

/** Called by start.S on any trap: prints the cause and fails the run. */
__attribute__((noreturn)) void board_trap(uint32_t mcause, uint32_t mepc);

#ifdef __cplusplus
}
#endif
