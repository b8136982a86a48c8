// The host port: a mock board for unit tests. MMIO goes to a small register file (addresses are
// taken modulo its size), time is a counter that advances on every port_now() call, and
// port_wait_irq only counts calls. Single-threaded, like the runtime.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <deepgemm/port.h>

namespace dg::bm::host_port {

inline constexpr size_t kRegisters = 1024;

void reset();
uint32_t mmio_writes();
uint32_t wait_calls();
uint64_t ticks();
/// Each port_now() call advances time by `step` ticks (default 1).
void set_tick_step(uint64_t step);

}  // namespace dg::bm::host_port
