#include "port_host.h"

namespace dg::bm::host_port {
namespace {
uint32_t g_regs[kRegisters];
uint32_t g_writes = 0;
uint32_t g_waits = 0;
uint64_t g_now = 0;
uint64_t g_step = 1;
Device* g_device = nullptr;
size_t slot(uintptr_t address) { return static_cast<size_t>(address / 4) % kRegisters; }
}  // namespace

void attach(Device* device) { g_device = device; }

void reset() {
  for (uint32_t& r : g_regs) r = 0;
  g_writes = g_waits = 0;
  g_now = 0;
  g_step = 1;
  g_device = nullptr;
}
uint32_t mmio_writes() { return g_writes; }
uint32_t wait_calls() { return g_waits; }
uint64_t ticks() { return g_now; }
void set_tick_step(uint64_t step) { g_step = step; }

}  // namespace dg::bm::host_port

using namespace dg::bm::host_port;

extern "C" {

void port_mmio_write32(uintptr_t address, uint32_t value) {
  ++g_writes;
  if (g_device != nullptr) {
    g_device->write32(address, value);
  } else {
    g_regs[slot(address)] = value;
  }
}
uint32_t port_mmio_read32(uintptr_t address) {
  return g_device != nullptr ? g_device->read32(address) : g_regs[slot(address)];
}
void port_wait_irq(uint64_t max_ticks) {
  ++g_waits;
  if (g_device != nullptr) g_device->wait_irq(max_ticks);
}
uint64_t port_now(void) { return g_now += g_step; }

}  // extern "C"
