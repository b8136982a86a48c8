// The host port: a mock board for unit tests. MMIO goes to a small register file (addresses are
// taken modulo its size), or to a device model a test attaches; time is a counter that advances on
// every port_now() call, and port_wait_irq counts calls (and lets an attached device advance).
// Single-threaded, like the runtime.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <deepgemm/port.h>

namespace dg::bm::host_port {

inline constexpr size_t kRegisters = 1024;

/// A device behind the port's MMIO, for tests (an emulated NPU register block).
class Device {
 public:
  virtual ~Device() = default;
  virtual uint32_t read32(uintptr_t address) = 0;
  virtual void write32(uintptr_t address, uint32_t value) = 0;
  /// Called by every port_wait_irq.
  virtual void wait_irq(uint64_t max_ticks) { (void)max_ticks; }
};

/// Routes all MMIO to `device` (nullptr: back to the register file). reset() detaches it.
void attach(Device* device);

void reset();
uint32_t mmio_writes();
uint32_t wait_calls();
uint64_t ticks();
/// Each port_now() call advances time by `step` ticks (default 1).
void set_tick_step(uint64_t step);

}  // namespace dg::bm::host_port
