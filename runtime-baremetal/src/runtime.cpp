// The dgmm_* API of the freestanding runtime: module validation, the handle state machine in the
// caller's arena, and completion through the port layer.
#include "freestanding.h"

#include <deepgemm/baremetal.h>
#include <deepgemm/module_format.h>
#include <deepgemm/port.h>

#include "gemm.h"

struct dgmm_kernel {
  uint32_t magic;
  uint32_t sequence;   // launches so far
  uint32_t completed;  // launches finished
  dgmm_status result;  // result of the most recent launch
  bool bound[dg::bm::kOperands];
  uintptr_t addr[dg::bm::kOperands];
  int64_t* acc;  // accumulator tile scratch, in the arena after this struct
  const uint8_t* module;
  size_t module_size;
  dg::bm::GemmPlan plan;
};

namespace {

using dg::ko::ErrorDetail;

constexpr uint32_t kMagic = 0x4B4D4744u;  // "DGMK"

// The only mutable state outside handles: the last error (zero-initialized, no constructor).
dgmm_status g_last_code = DGMM_OK;
ErrorDetail g_last_error;

dgmm_status fail(dgmm_status code, const ErrorDetail& detail) {
  g_last_code = code;
  g_last_error = detail;
  return code;
}
dgmm_status fail(dgmm_status code, const char* message) {
  ErrorDetail d;
  d.str(message);
  return fail(code, d);
}

uintptr_t align_up(uintptr_t v, uintptr_t a) { return (v + (a - 1)) & ~(a - 1); }

constexpr size_t kKernelBytes = (sizeof(dgmm_kernel) + 15u) & ~static_cast<size_t>(15u);

/// Validates module and plan; fills *plan.
dgmm_status validate(const void* module, size_t size, dg::bm::GemmPlan* plan) {
  if (module == nullptr || size == 0) return fail(DGMM_ERROR_INVALID_ARGUMENT, "null or empty module");
  const auto* bytes = static_cast<const uint8_t*>(module);
  dg::ko::ModuleView view;
  const dg::ko::Status st = dg::ko::parse(bytes, size, &view);
  if (st != dg::ko::Status::Ok) {
    ErrorDetail d;
    d.str("invalid module: ").str(view.error());
    const bool abi = st == dg::ko::Status::UnsupportedAbi || st == dg::ko::Status::UnsupportedFlags;
    return fail(abi ? DGMM_ERROR_ABI_MISMATCH : DGMM_ERROR_BAD_MODULE, d);
  }
  if (view.target_kind != dg::ko::TargetKind::Npu) {
    ErrorDetail d;
    d.str("module is for GPU target '").str(view.target_name);
    d.str("'; the bare-metal runtime runs NPU modules");
    return fail(DGMM_ERROR_TARGET_MISMATCH, d);
  }
  const dg::ko::Payload text = view.find(dg::ko::SectionKind::Plan);
  if (!text) return fail(DGMM_ERROR_BAD_MODULE, "invalid module: no plan section");
  ErrorDetail d;
  d.str("module plan: ");
  switch (dg::bm::read_plan(text.data, text.size, plan, &d)) {
    case dg::bm::PlanStatus::Ok:
      return DGMM_OK;
    case dg::bm::PlanStatus::Bad:
      return fail(DGMM_ERROR_BAD_MODULE, d);
    case dg::bm::PlanStatus::Unsupported:
      return fail(DGMM_ERROR_UNSUPPORTED, d);
    case dg::bm::PlanStatus::WrongTarget:
      return fail(DGMM_ERROR_TARGET_MISMATCH, d);
  }
  return fail(DGMM_ERROR_BAD_MODULE, d);
}

size_t arena_needed(const dg::bm::GemmPlan& plan) {
  // Worst-case alignment slack, the handle, the accumulator tile.
  const size_t fixed = (DGMM_ARENA_ALIGN - 1) + kKernelBytes;
  if (plan.acc_tile_bytes > static_cast<size_t>(-1) - fixed) return 0;
  return fixed + plan.acc_tile_bytes;
}

bool valid(dgmm_handle h) { return h != nullptr && h->magic == kMagic; }

dgmm_status bad_handle() { return fail(DGMM_ERROR_INVALID_STATE, "invalid or unloaded handle"); }

int operand_index(const char* name) {
  if (name == nullptr || name[0] == '\0' || name[1] != '\0') return -1;
  return name[0] == 'A' ? 0 : name[0] == 'B' ? 1 : name[0] == 'C' ? 2 : -1;
}

dgmm_status bind(dgmm_handle h, const char* name, uintptr_t address, bool output) {
  if (!valid(h)) return bad_handle();
  const int i = operand_index(name);
  ErrorDetail d;
  if (i < 0) {
    d.str("unknown operand '").str(name != nullptr ? name : "(null)").str("' (A, B or C)");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  if ((i == dg::bm::kC) != output) {
    d.str("operand '").str(name).str(output ? "' is an input; use dgmm_bind_input"
                                            : "' is an output; use dgmm_bind_output");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  if (h->completed != h->sequence) return fail(DGMM_ERROR_INVALID_STATE, "bind while a launch runs");
  const uint32_t align = dg::bm::bits(h->plan.op[i].type) / 8;
  if (address == 0 || address % align != 0) {
    d.str("operand '").str(name).str("': address ").hex(address);
    d.str(address == 0 ? " is null" : " is not aligned to its element size");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  if (address > static_cast<uintptr_t>(-1) - h->plan.op[i].bytes) {
    d.str("operand '").str(name).str("' would wrap around the address space");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  h->addr[i] = address;
  h->bound[i] = true;
  return DGMM_OK;
}

}  // namespace

extern "C" {

dgmm_handle dgmm_load_image(const void* module, size_t size, void* arena, size_t arena_size) {
  dg::bm::GemmPlan plan;
  if (validate(module, size, &plan) != DGMM_OK) return nullptr;
  if (arena == nullptr) {
    fail(DGMM_ERROR_INVALID_ARGUMENT, "null arena");
    return nullptr;
  }
  const size_t need = arena_needed(plan);
  if (need == 0 || arena_size < need) {
    ErrorDetail d;
    d.str("arena of ").num(arena_size).str(" bytes is too small: this module needs ").num(need);
    fail(DGMM_ERROR_OUT_OF_MEMORY, d);
    return nullptr;
  }
  const uintptr_t base = align_up(reinterpret_cast<uintptr_t>(arena), DGMM_ARENA_ALIGN);
  auto* h = reinterpret_cast<dgmm_kernel*>(base);
  *h = dgmm_kernel{};
  h->acc = reinterpret_cast<int64_t*>(base + kKernelBytes);
  h->module = static_cast<const uint8_t*>(module);
  h->module_size = size;
  h->plan = plan;
  h->result = DGMM_OK;
  h->magic = kMagic;
  return h;
}

size_t dgmm_arena_size(const void* module, size_t size) {
  dg::bm::GemmPlan plan;
  if (validate(module, size, &plan) != DGMM_OK) return 0;
  return arena_needed(plan);
}

void dgmm_unload(dgmm_handle handle) {
  if (valid(handle)) handle->magic = 0;
}

dgmm_status dgmm_bind_input(dgmm_handle handle, const char* name, uintptr_t physical_address) {
  return bind(handle, name, physical_address, false);
}

dgmm_status dgmm_bind_output(dgmm_handle handle, const char* name, uintptr_t physical_address) {
  return bind(handle, name, physical_address, true);
}

dgmm_status dgmm_launch(dgmm_handle h) {
  if (!valid(h)) return bad_handle();
  if (h->completed != h->sequence) return fail(DGMM_ERROR_INVALID_STATE, "launch while a launch runs");
  for (uint32_t i = 0; i < dg::bm::kOperands; ++i) {
    if (!h->bound[i]) {
      ErrorDetail d;
      d.str("operand '").chr(static_cast<char>('A' + i)).str("' is not bound");
      return fail(DGMM_ERROR_UNBOUND_OPERAND, d);
    }
  }
  ++h->sequence;
  ErrorDetail d;
  d.str("launch: ");
  const bool ok = dg::bm::execute(h->plan, h->addr, h->acc, &d);
  h->result = ok ? DGMM_OK : DGMM_ERROR_LAUNCH;
  h->completed = h->sequence;
  return ok ? DGMM_OK : fail(DGMM_ERROR_LAUNCH, d);
}

dgmm_fence dgmm_sync(dgmm_handle h) {
  dgmm_fence f{nullptr, 0};
  if (!valid(h)) {
    bad_handle();
    return f;
  }
  if (h->sequence == 0) {
    fail(DGMM_ERROR_INVALID_STATE, "dgmm_sync before any dgmm_launch");
    return f;
  }
  f.handle = h;
  f.sequence = h->sequence;
  return f;
}

dgmm_status dgmm_wait_timeout(dgmm_fence f, uint64_t timeout_ticks) {
  dgmm_kernel* h = f.handle;
  if (!valid(h)) return bad_handle();
  if (f.sequence == 0 || f.sequence > h->sequence) {
    return fail(DGMM_ERROR_INVALID_ARGUMENT, "fence does not belong to this handle's launches");
  }
  const uint64_t start = port_now();
  while (h->completed < f.sequence) {
    const uint64_t waited = port_now() - start;
    if (timeout_ticks != 0 && waited >= timeout_ticks) {
      return fail(DGMM_ERROR_TIMEOUT, "timed out waiting for the launch");
    }
    port_wait_irq(timeout_ticks != 0 ? timeout_ticks - waited : 0);
  }
  if (h->result != DGMM_OK && f.sequence == h->sequence) {
    return fail(h->result, "the launch before this fence failed");
  }
  return DGMM_OK;
}

dgmm_status dgmm_wait(dgmm_fence fence) { return dgmm_wait_timeout(fence, 0); }

const char* dgmm_last_error(void) { return g_last_error.text; }

dgmm_status dgmm_last_error_code(void) { return g_last_code; }

const char* dgmm_status_string(dgmm_status s) { return dgmm_status_name(static_cast<int>(s)); }

dgmm_status dgmm_operand_info(dgmm_handle h, const char* name, dgmm_operand* out) {
  if (!valid(h)) return bad_handle();
  const int i = operand_index(name);
  if (i < 0 || out == nullptr) return fail(DGMM_ERROR_INVALID_ARGUMENT, "unknown operand or null output");
  const dg::bm::OperandLayout& o = h->plan.op[i];
  out->rows = o.rows;
  out->cols = o.cols;
  out->ld = o.ld;
  out->element_bits = dg::bm::bits(o.type);
  out->row_major = o.row_major ? 1 : 0;
  out->is_output = i == dg::bm::kC ? 1 : 0;
  out->bytes = o.bytes;
  return DGMM_OK;
}

dgmm_status dgmm_problem(dgmm_handle h, uint32_t* m, uint32_t* n, uint32_t* k, uint32_t* tile_m,
                         uint32_t* tile_n, uint32_t* tile_k) {
  if (!valid(h)) return bad_handle();
  if (m != nullptr) *m = h->plan.M;
  if (n != nullptr) *n = h->plan.N;
  if (k != nullptr) *k = h->plan.K;
  if (tile_m != nullptr) *tile_m = h->plan.tile_m;
  if (tile_n != nullptr) *tile_n = h->plan.tile_n;
  if (tile_k != nullptr) *tile_k = h->plan.tile_k;
  return DGMM_OK;
}

}  // extern "C"
