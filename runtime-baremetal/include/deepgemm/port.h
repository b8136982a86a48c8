/* deepgemm/port.h - the port layer under the freestanding runtime: everything it needs from a
 * board. One implementation per board (boards/<board>/), one for host tests
 * (runtime-baremetal/port/host/); the runtime core calls nothing else outside itself. */
#ifndef DEEPGEMM_PORT_H
#define DEEPGEMM_PORT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** 32-bit MMIO store and load (volatile, in program order). */
void port_mmio_write32(uintptr_t address, uint32_t value);
uint32_t port_mmio_read32(uintptr_t address);

/** Waits for the accelerator's interrupt, or for at most `max_ticks` port_now() ticks; may return
 *  early (callers re-check their condition). Boards without the interrupt wired return at once. */
void port_wait_irq(uint64_t max_ticks);

/** A monotonic tick counter (the board says its frequency; qemu virt: 10 MHz). */
uint64_t port_now(void);

#ifdef __cplusplus
}
#endif

#endif /* DEEPGEMM_PORT_H */
