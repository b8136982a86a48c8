// Fuzz the freestanding runtime's plan reader and executor: the input is a plan's JSON text,
// wrapped into a valid NPU module (so the CRCs pass), then loaded, given a run-time K from its
// range (chosen from the input's bytes), bound and, for small problems, run, then run again at
// the smallest K. Invariants: no crash, no out-of-bounds access, no hang; every failure is a
// status; K outside the range is refused, K inside it accepted (an odd K refused exactly when a
// 4-bit operand is packed along K), and the operands follow it.
#include <deepgemm/baremetal.h>
#include <deepgemm/module_format.h>

#include <cstdint>
#include <cstring>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return 0;
  namespace ko = dg::ko;
  ko::SectionSpec sec;
  sec.kind = static_cast<uint32_t>(ko::SectionKind::Plan);
  sec.name = "plan";
  sec.data = data;
  sec.size = static_cast<uint32_t>(size);
  ko::ModuleSpec spec;
  spec.target_kind = ko::TargetKind::Npu;
  spec.target_name = "npu16";
  spec.sections = &sec;
  spec.section_count = 1;
  std::vector<uint8_t> module(ko::module_size(&sec, 1));
  size_t written = 0;
  if (ko::write(spec, module.data(), module.size(), &written) != ko::Status::Ok) return 0;
  size_t need = dgmm_arena_size(module.data(), written);
  if (need == 0 || need > (1u << 24)) return 0;
  std::vector<uint8_t> arena(need + 64);
  void* aligned = arena.data() + ((64 - reinterpret_cast<uintptr_t>(arena.data()) % 64) % 64);
  dgmm_handle h = dgmm_load_image(module.data(), written, aligned, need);
  if (!h) {
    (void)dgmm_last_error();
    return 0;
  }
  // A run-time K from the plan's range; one past either end is refused.
  uint32_t k_min = 0, k_max = 0;
  if (dgmm_k_range(h, &k_min, &k_max) != DGMM_OK || k_min == 0 || k_min > k_max) __builtin_trap();
  if (dgmm_set_k(h, k_min - 1) != DGMM_ERROR_INVALID_ARGUMENT) __builtin_trap();
  if (k_max != 0xFFFFFFFFu && dgmm_set_k(h, k_max + 1) != DGMM_ERROR_INVALID_ARGUMENT) __builtin_trap();
  // The rows of a row-major 4-bit A, or the columns of a column-major 4-bit B, of a K range are
  // packed along K: an odd K is refused. K_max is their leading dimension, even (else the load
  // fails), so the next K up from an odd one is in the range.
  dgmm_operand a{}, b{};
  if (dgmm_operand_info(h, "A", &a) != DGMM_OK || dgmm_operand_info(h, "B", &b) != DGMM_OK) __builtin_trap();
  const bool even_k = k_min < k_max && ((a.element_bits == 4 && a.row_major) || (b.element_bits == 4 && !b.row_major));
  if (even_k && k_max % 2 != 0) __builtin_trap();
  auto set_k = [&](uint32_t k) {
    const bool refused = even_k && k % 2 != 0;
    if (dgmm_set_k(h, k) != (refused ? DGMM_ERROR_INVALID_ARGUMENT : DGMM_OK)) __builtin_trap();
    if (refused && dgmm_set_k(h, ++k) != DGMM_OK) __builtin_trap();
    return k;
  };
  uint32_t hash = 2166136261u;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 16777619u;
  const uint32_t k_set = set_k(k_min + hash % (k_max - k_min + 1));

  // Bind buffers of exactly the size the runtime asks for, and run small problems.
  std::vector<std::vector<uint64_t>> bufs;
  size_t total = 0;
  bool ok = true;
  for (const char* name : {"A", "B", "C"}) {
    dgmm_operand op{};
    if (dgmm_operand_info(h, name, &op) != DGMM_OK) {
      ok = false;
      break;
    }
    const uint32_t op_k = name[0] == 'A' ? op.cols : name[0] == 'B' ? op.rows : k_set;
    if (op_k != k_set || op.value_bits < 2 || op.value_bits > op.element_bits || op.is_signed > 1) __builtin_trap();
    if (op.element_bits == 4 && (op.is_output || op.value_bits != 4 || op.ld % 2 != 0)) __builtin_trap();
    total += op.bytes;
    if (total > (8u << 20)) {
      ok = false;
      break;
    }
    bufs.emplace_back((op.bytes + 7) / 8 + 1, 0x0101010101010101ull);
    auto addr = reinterpret_cast<uintptr_t>(bufs.back().data());
    if ((op.is_output ? dgmm_bind_output(h, name, addr) : dgmm_bind_input(h, name, addr)) != DGMM_OK) ok = false;
  }
  uint32_t m = 0, n = 0, k = 0;
  if (ok && dgmm_problem(h, &m, &n, &k, nullptr, nullptr, nullptr) == DGMM_OK && uint64_t(m) * n * k <= (1u << 20)) {
    if (k != k_set) __builtin_trap();
    if (dgmm_launch(h) == DGMM_OK) (void)dgmm_wait(dgmm_sync(h));
    // A smaller K needs less of every buffer: the bindings stay valid.
    set_k(k_min);
    if (dgmm_launch(h) == DGMM_OK) (void)dgmm_wait(dgmm_sync(h));
  }
  dgmm_unload(h);
  return 0;
}
