// The bare-metal test firmware: loads an embedded NPU module through the runtime, checks its K
// range (set_k included) and operand A, that the register block's generated C header agrees with
// the module's register table and the runtime's register description, and that its NPU register
// table resolves (qemu has no NPU,
// so nothing is started on it), binds A, B and C, runs the GEMM with the reference executor and
// compares C with the golden computed on the host; then C again inside a wider array (dgmm_set_ld),
// its stride refused at the call where the NPU cannot take it.
// Prints DGMM-BAREMETAL-PASS and exits 0 through the test device, or prints why and exits non-zero.
#include <stddef.h>
#include <stdint.h>

#include <deepgemm/baremetal.h>
#include <deepgemm/module_format.h>
#include <deepgemm/npu_regmap.h>
#include <deepgemm/npu_regs.h>

#include "board.h"
#include "golden.h"
// The register block's C header, generated with the module's design (compile --emit=verilog):
// what firmware programs the NPU with.
#include "npu_gemm_gemm_int8_regs.h"

namespace {

alignas(16) unsigned char g_arena[16 * 1024];
alignas(16) unsigned char g_c[sizeof(golden_c)];
// C again, in a wider array: rows kLdc int32 apart (the last one ends the buffer).
constexpr uint32_t kLdc = GOLDEN_N + 4;
alignas(16) unsigned char g_c_wide[((GOLDEN_M - 1) * kLdc + GOLDEN_N) * 4];

int fail(const char* what) {
  board_puts("DGMM-BAREMETAL-FAIL: ");
  board_puts(what);
  board_puts(": ");
  board_puts(dgmm_last_error());
  board_puts("\n");
  return 1;
}

}  // namespace

extern "C" int main() {
  board_puts("deepgemm bare-metal test: seed ");
  board_put_u32(GOLDEN_SEED);
  board_puts(", module ");
  board_put_u32(sizeof(golden_module));
  board_puts(" bytes\n");

  // The module is signed: under another key it is refused (the Ed25519 verifier runs here, on the
  // board), under its signer's key it loads.
  unsigned char other_key[32];
  for (size_t i = 0; i < sizeof other_key; ++i) other_key[i] = golden_public_key[i];
  other_key[7] ^= 0x10;
  if (dgmm_trust_key(other_key) != DGMM_OK) return fail("trust key");
  if (dgmm_load_image(golden_module, sizeof(golden_module), g_arena, sizeof(g_arena)) != nullptr ||
      dgmm_last_error_code() != DGMM_ERROR_UNTRUSTED)
    return fail("a module signed by another key was not refused");
  if (dgmm_trust_key(golden_public_key) != DGMM_OK) return fail("trust key");
  board_puts("signature: refused under another key, verified under its signer's\n");
  dgmm_handle h = dgmm_load_image(golden_module, sizeof(golden_module), g_arena, sizeof(g_arena));
  if (h == nullptr) return fail("load");
  uint32_t m, n, k, tm, tn, tk;
  dgmm_problem(h, &m, &n, &k, &tm, &tn, &tk);
  board_puts("M ");
  board_put_u32(m);
  board_puts(" N ");
  board_put_u32(n);
  board_puts(" K ");
  board_put_u32(k);
  board_puts(", tile ");
  board_put_u32(tm);
  board_puts("x");
  board_put_u32(tn);
  board_puts("x");
  board_put_u32(tk);
  board_puts("\n");
  if (m != GOLDEN_M || n != GOLDEN_N || k != GOLDEN_K) return fail("shape");
  // A fixed-K plan: its range is K alone, and the K of a launch can only be that.
  uint32_t k_min = 0, k_max = 0;
  if (dgmm_k_range(h, &k_min, &k_max) != DGMM_OK || k_min != k || k_max != k) return fail("K range");
  if (dgmm_set_k(h, k + 1) != DGMM_ERROR_INVALID_ARGUMENT) return fail("K outside the range");
  if (dgmm_set_k(h, k) != DGMM_OK) return fail("set K");
  dgmm_operand a;
  if (dgmm_operand_info(h, "A", &a) != DGMM_OK || a.cols != k || a.element_bits != 8 || a.value_bits != 8 ||
      a.is_signed != 1) {
    return fail("operand A");
  }
  // The generated C header and the module's register table describe one register block: the
  // same base, design ID and offset for every register the header names.
  {
    dg::ko::ModuleView mv;
    if (dg::ko::parse(golden_module, sizeof(golden_module), &mv) != dg::ko::Status::Ok) return fail("module view");
    const auto regs = mv.find(dg::ko::SectionKind::NpuRegmap);
    dg::ko::regmap::View rv;
    if (!regs.present || dg::ko::regmap::parse(regs.data, regs.size, &rv) != dg::ko::regmap::Status::Ok)
      return fail("register table");
    if (rv.mmio_base != NPU_GEMM_GEMM_INT8_BASE || rv.design_id != NPU_GEMM_GEMM_INT8_ID_VALUE ||
        rv.addr_bits != NPU_GEMM_GEMM_INT8_BUS_ADDR_BITS)
      return fail("the C header's base, ID or bus width differs from the module's register table");
    struct Named {
      const char* name;
      uint32_t offset;
    };
    const Named header[] = {{"ID", NPU_GEMM_GEMM_INT8_ID_OFFSET},
                            {"CTRL", NPU_GEMM_GEMM_INT8_CTRL_OFFSET},
                            {"STATUS", NPU_GEMM_GEMM_INT8_STATUS_OFFSET},
                            {"ERROR", NPU_GEMM_GEMM_INT8_ERROR_OFFSET},
                            {"CYCLES", NPU_GEMM_GEMM_INT8_CYCLES_OFFSET},
                            {"A_BASE", NPU_GEMM_GEMM_INT8_A_BASE_OFFSET},
                            {"B_BASE", NPU_GEMM_GEMM_INT8_B_BASE_OFFSET},
                            {"C_BASE", NPU_GEMM_GEMM_INT8_C_BASE_OFFSET},
                            {"M", NPU_GEMM_GEMM_INT8_M_OFFSET},
                            {"N", NPU_GEMM_GEMM_INT8_N_OFFSET},
                            {"K", NPU_GEMM_GEMM_INT8_K_OFFSET},
                            {"BOUND", NPU_GEMM_GEMM_INT8_BOUND_OFFSET},
                            {"A_BASE_HI", NPU_GEMM_GEMM_INT8_A_BASE_HI_OFFSET},
                            {"B_BASE_HI", NPU_GEMM_GEMM_INT8_B_BASE_HI_OFFSET},
                            {"C_BASE_HI", NPU_GEMM_GEMM_INT8_C_BASE_HI_OFFSET},
                            {"LDA", NPU_GEMM_GEMM_INT8_LDA_OFFSET},
                            {"LDB", NPU_GEMM_GEMM_INT8_LDB_OFFSET},
                            {"LDC", NPU_GEMM_GEMM_INT8_LDC_OFFSET}};
    for (const Named& r : header) {
      dg::ko::regmap::Register got;
      if (!rv.find(r.name, &got) || got.offset != r.offset) {
        board_puts("register ");
        board_puts(r.name);
        board_puts(": ");
        return fail("the C header's offset differs from the module's register table");
      }
    }
    if (rv.count != sizeof(header) / sizeof(header[0]))
      return fail("the C header and the module's register table name different registers");
    // The fields firmware polls and writes: the bits the runtime uses (<deepgemm/npu_regs.h>).
    if (NPU_GEMM_GEMM_INT8_CTRL_START_MASK != dg::npu_regs::mask("CTRL", "START") ||
        NPU_GEMM_GEMM_INT8_STATUS_BUSY_MASK != dg::npu_regs::mask("STATUS", "BUSY") ||
        NPU_GEMM_GEMM_INT8_STATUS_DONE_MASK != dg::npu_regs::mask("STATUS", "DONE") ||
        NPU_GEMM_GEMM_INT8_STATUS_ERROR_MASK != dg::npu_regs::mask("STATUS", "ERROR") ||
        NPU_GEMM_GEMM_INT8_ERROR_CODE_MASK != dg::npu_regs::mask("ERROR", "CODE"))
      return fail("the C header's fields differ from the runtime's register description");
    board_puts("register header: ");
    board_put_u32(rv.count);
    board_puts(" registers at the module's offsets\n");
  }
  // The module carries the generated NPU's register table: the NPU engine can be chosen. The
  // reference executor (the default) runs the GEMM here.
  if (dgmm_set_engine(h, DGMM_ENGINE_NPU) != DGMM_OK) return fail("NPU register table");
  if (dgmm_set_engine(h, DGMM_ENGINE_REFERENCE) != DGMM_OK) return fail("reference engine");
  board_puts("NPU register table: resolved\n");

  if (dgmm_launch(h) != DGMM_ERROR_UNBOUND_OPERAND) return fail("launch without bindings");
  if (dgmm_bind_input(h, "A", reinterpret_cast<uintptr_t>(golden_a)) != DGMM_OK) return fail("bind A");
  if (dgmm_bind_input(h, "B", reinterpret_cast<uintptr_t>(golden_b)) != DGMM_OK) return fail("bind B");
  // A physical address above this CPU's 32-bit pointers binds (the API takes 64 bits, as an NPU's
  // bus may be wider), but the reference executor, which reads through pointers, refuses it.
  if (dgmm_bind_output(h, "C", 0x100000000ull) != DGMM_OK) return fail("bind C above 4 GiB");
  if (dgmm_launch(h) != DGMM_ERROR_INVALID_ARGUMENT) return fail("launch with C beyond the CPU's pointers");
  board_puts("C above 4 GiB: refused by the reference executor\n");
  if (dgmm_bind_output(h, "C", reinterpret_cast<uintptr_t>(g_c)) != DGMM_OK) return fail("bind C");
  for (size_t i = 0; i < sizeof(g_c); ++i) g_c[i] = 0xA5;
  if (dgmm_launch(h) != DGMM_OK) return fail("launch");
  if (dgmm_wait(dgmm_sync(h)) != DGMM_OK) return fail("wait");

  size_t mismatches = 0;
  for (size_t i = 0; i < sizeof(g_c); ++i) mismatches += g_c[i] != golden_c[i];
  if (mismatches != 0) {
    board_puts("mismatching bytes: ");
    board_put_u32(static_cast<uint32_t>(mismatches));
    board_puts("\n");
    return fail("compare");
  }

  // C as a sub-matrix of a wider array: its rows kLdc int32 apart (dgmm_set_ld), the bytes between
  // them untouched. On the NPU engine the runtime refuses at the call a stride that is not whole
  // 16-byte bus beats (the module's register table records the beat).
  if (dgmm_set_engine(h, DGMM_ENGINE_NPU) != DGMM_OK) return fail("NPU engine");
  if (dgmm_set_ld(h, "C", GOLDEN_N + 1) != DGMM_ERROR_INVALID_ARGUMENT) return fail("C stride off the bus beat");
  if (dgmm_set_ld(h, "C", kLdc) != DGMM_OK) return fail("C stride");
  if (dgmm_set_engine(h, DGMM_ENGINE_REFERENCE) != DGMM_OK) return fail("reference engine");
  dgmm_operand c;
  if (dgmm_operand_info(h, "C", &c) != DGMM_OK || c.ld != kLdc || c.bytes != sizeof(g_c_wide))
    return fail("C stride info");
  if (dgmm_bind_output(h, "C", reinterpret_cast<uintptr_t>(g_c_wide)) != DGMM_OK) return fail("bind wide C");
  for (size_t i = 0; i < sizeof(g_c_wide); ++i) g_c_wide[i] = 0xA5;
  if (dgmm_launch(h) != DGMM_OK || dgmm_wait(dgmm_sync(h)) != DGMM_OK) return fail("launch with C's stride");
  const size_t row = GOLDEN_N * 4, pitch = kLdc * 4;
  for (size_t i = 0; i < sizeof(g_c_wide); ++i) {
    const size_t r = i / pitch, at = i % pitch;
    mismatches += at < row ? g_c_wide[i] != golden_c[r * row + at] : g_c_wide[i] != 0xA5;
  }
  if (mismatches != 0) return fail("compare with C's stride");
  board_puts("C with a leading dimension of ");
  board_put_u32(kLdc);
  board_puts(": equal, the bytes between rows untouched\n");
  dgmm_unload(h);
  board_puts("DGMM-BAREMETAL-PASS\n");
  return 0;
}
