// The register block of the generated NPU top: the one description of its registers, their bit
// fields, access, reset values and the ERROR register's codes.
//
// Everything that knows a register is generated from, or checked against, this table: the top's
// register decode (hdl-gen/hdlgen/top.cpp), the module's register table (npu_regmap section), the
// runtime's register lookup, STATUS bits and error strings (src/runtime.cpp), the Verilator
// harness (sim/cosim_main.cpp), the Icarus testbench's constants, and, per design, a C header with
// offsets, masks and error codes (`<top>_regs.h`) and a SystemRDL description (`<top>.rdl`) that
// `deepgemm compile --emit=verilog -o DIR` writes beside the Verilog. An operand's bus address is
// {X_BASE_HI, X_BASE} cut to the design's address width (the model's npu.bus_addr_bits).
//
// Freestanding C++20 like <deepgemm/module_format.h>: constexpr data only, no library calls.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace dg::npu_regs {

enum Access : uint8_t { kRO = 1, kWO = 2, kRW = 3 };  // bit 0 readable, bit 1 writable

struct Field {
  const char* name;
  uint8_t lsb;
  uint8_t width;
  const char* desc;
};

struct Register {
  const char* name;
  uint32_t offset;  // from the design's MMIO base; a multiple of 4 below 4096
  Access access;
  uint32_t reset;  // value after reset (ID: the design ID, BOUND: the plan's estimate)
  const char* desc;
  const Field* fields;  // from bit 0 up; a register without fields is one field of 32 bits
  uint8_t field_count;
  uint8_t feature = 0;  // 0: in every design; else only in designs with that operand (kFeature*)
};

// Registers that only some designs have: those of the fused epilogue's operands (a design whose
// plan has no such operand neither decodes nor lists them), and the leading dimensions (a model
// may leave them out: packed rows only).
inline constexpr uint8_t kFeatureBias = 1;   // the bias vector (op_type bias, bias_relu)
inline constexpr uint8_t kFeatureRq = 2;     // the requantization records (output int8, int16)
inline constexpr uint8_t kFeatureLd = 4;     // the leading dimensions (the model's npu.ld_registers)
inline constexpr uint8_t kFeatureBatch = 8;  // the batch loop (plans of batch > 1)

struct ErrorCode {
  uint32_t code;
  const char* name;
  const char* meaning;
};

inline constexpr uint32_t kPageBytes = 4096;  // the register block's address space

inline constexpr Field kCtrlFields[] = {
    {"START", 0, 1, "write 1 to start a run (refused while running, or with ERROR set by the start checks)"},
};
inline constexpr Field kStatusFields[] = {
    {"BUSY", 0, 1, "a run is in progress"},
    {"DONE", 1, 1, "the last run finished (also the interrupt line); cleared by the next START"},
    {"ERROR", 2, 1, "the last START was refused, or its run met a bus error: ERROR holds why"},
};
inline constexpr Field kErrorFields[] = {
    {"CODE", 0, 4, "why the last START was refused or its run failed (0: neither); see the error codes"},
};

inline constexpr Register kRegisters[] = {
    {"ID", 0x000, kRO, 0, "identifies the generated design (a hash of its plan)", nullptr, 0},
    {"CTRL", 0x004, kWO, 0, "control", kCtrlFields, 1},
    {"STATUS", 0x008, kRO, 0, "run state", kStatusFields, 3},
    {"ERROR", 0x00c, kRO, 0, "the start checks' verdict, or the run's bus error", kErrorFields, 1},
    {"CYCLES", 0x010, kRO, 0, "cycles of the last (or current) run", nullptr, 0},
    {"A_BASE", 0x014, kRW, 0, "byte address of A (M x K, row-major): its low 32 bits", nullptr, 0},
    {"B_BASE", 0x018, kRW, 0, "byte address of B (K x N, row-major): its low 32 bits", nullptr, 0},
    {"C_BASE", 0x01c, kRW, 0,
     "byte address of C (M x N, row-major; int32 or int64, the plan's output): its low 32 bits", nullptr, 0},
    {"M", 0x020, kRW, 0, "rows of A and C", nullptr, 0},
    {"N", 0x024, kRW, 0, "columns of B and C", nullptr, 0},
    {"K", 0x028, kRW, 0, "columns of A, rows of B", nullptr, 0},
    {"BOUND", 0x02c, kRO, 0, "the plan's estimate of a run's cycles at the largest K (not a proved bound)", nullptr, 0},
    {"A_BASE_HI", 0x030, kRW, 0,
     "byte address of A: its high 32 bits (bits above the bus's address width read as 0; a 1 written there fails START "
     "with BASE_RANGE)",
     nullptr, 0},
    {"B_BASE_HI", 0x034, kRW, 0,
     "byte address of B: its high 32 bits (bits above the bus's address width read as 0; a 1 written there fails START "
     "with BASE_RANGE)",
     nullptr, 0},
    {"C_BASE_HI", 0x038, kRW, 0,
     "byte address of C: its high 32 bits (bits above the bus's address width read as 0; a 1 written there fails START "
     "with BASE_RANGE)",
     nullptr, 0},
    {"BIAS_BASE", 0x03c, kRW, 0, "byte address of bias (N int32, one per column of C): its low 32 bits", nullptr, 0,
     kFeatureBias},
    {"BIAS_BASE_HI", 0x040, kRW, 0,
     "byte address of bias: its high 32 bits (bits above the bus's address width read as 0; a 1 written there fails "
     "START with BASE_RANGE)",
     nullptr, 0, kFeatureBias},
    {"RQ_BASE", 0x044, kRW, 0,
     "byte address of rq (N records of 8 bytes, one per column of C: int32 multiplier, shift in byte 4, int16 zero "
     "point in bytes 6-7): its low 32 bits",
     nullptr, 0, kFeatureRq},
    {"RQ_BASE_HI", 0x048, kRW, 0,
     "byte address of rq: its high 32 bits (bits above the bus's address width read as 0; a 1 written there fails "
     "START with BASE_RANGE)",
     nullptr, 0, kFeatureRq},
    {"LDA", 0x04c, kRW, 0,
     "A's leading dimension in bytes: from the start of a row of A to the next (0, the reset value: packed, K's "
     "bytes at the run's K); a whole number of bus beats (of bytes where the design moves byte rows), at least a row's "
     "bytes, else START fails with LD",
     nullptr, 0, kFeatureLd},
    {"LDB", 0x050, kRW, 0,
     "B's leading dimension in bytes: from the start of a row of B to the next (0, the reset value: packed, N's "
     "bytes); a whole number of bus beats (of bytes where the design moves byte rows), at least a row's bytes, else "
     "START fails with LD",
     nullptr, 0, kFeatureLd},
    {"LDC", 0x054, kRW, 0,
     "C's leading dimension in bytes: from the start of a row of C to the next (0, the reset value: packed, N's "
     "bytes); a whole number of bus beats (of bytes where the design moves byte rows), at least a row's bytes, else "
     "START fails with LD; the bytes between rows "
     "are not written",
     nullptr, 0, kFeatureLd},
    {"BATCH", 0x058, kRW, 1,
     "matrices one START computes, 1 (the reset value) to the plan's batch, else START fails with BATCH: matrix b "
     "of A, B and C at its base plus b times its stride; CYCLES counts them all, DONE rises after the last",
     nullptr, 0, kFeatureBatch},
    {"A_STRIDE", 0x05c, kRW, 0,
     "bytes from one matrix of A to the next in a batch; a whole number of bus beats, else START fails with "
     "BASE_ALIGN, and the last matrix must fit the bus's addresses, else BASE_RANGE",
     nullptr, 0, kFeatureBatch},
    {"B_STRIDE", 0x060, kRW, 0, "bytes from one matrix of B to the next in a batch (as A_STRIDE)", nullptr, 0,
     kFeatureBatch},
    {"C_STRIDE", 0x064, kRW, 0, "bytes from one matrix of C to the next in a batch (as A_STRIDE)", nullptr, 0,
     kFeatureBatch},
};
inline constexpr size_t kRegisterCount = sizeof(kRegisters) / sizeof(kRegisters[0]);

// The ERROR register's codes: the start checks' in the order they are tested, then the run's bus
// errors; BASE_RANGE and LD, start checks added later, are tested after ROW_BEATS (LD before
// BASE_RANGE, whose operand extents follow the leading dimensions), and BATCH right after K.
inline constexpr ErrorCode kErrorCodes[] = {
    {0, "NONE", "no error"},
    {1, "M", "M is outside the plan's range"},
    {2, "N", "N is outside the plan's range"},
    {3, "K", "K is outside the plan's range"},
    {4, "BASE_ALIGN", "an operand base address is not aligned to a bus beat"},
    {5, "ROW_BEATS", "an operand row is not a whole number of bus beats (of bytes where the design moves byte rows)"},
    {6, "BUS_READ", "a read of A or B had an error response (RRESP SLVERR or DECERR); the run went on, C is not valid"},
    {7, "BUS_WRITE", "a write of C had an error response (BRESP SLVERR or DECERR); C is not valid"},
    {8, "BUS_PROTOCOL",
     "the bus broke the AXI4 protocol (RLAST not on a burst's last beat, another ID, or a response with nothing "
     "outstanding); C is not valid"},
    {9, "BASE_RANGE", "an operand's base or extent does not fit the bus's address width"},
    {10, "LD",
     "a leading dimension (LDA, LDB, LDC) is not a whole number of bus beats, is smaller than its row's bytes, or "
     "makes its operand span more than 4 GiB"},
    {11, "BATCH", "BATCH is 0 or above the plan's batch"},
};
inline constexpr size_t kErrorCodeCount = sizeof(kErrorCodes) / sizeof(kErrorCodes[0]);

// Lookups by name, evaluated while compiling: a name the table does not hold indexes past its
// end, which is a compile error.
constexpr bool same(const char* a, const char* b) {
  for (; *a != 0 && *a == *b; ++a, ++b) {
  }
  return *a == *b;
}

consteval size_t reg_index(const char* name) {
  size_t i = 0;
  while (i < kRegisterCount && !same(kRegisters[i].name, name)) ++i;
  return i;
}

consteval const Register& reg(const char* name) { return kRegisters[reg_index(name)]; }

consteval const Field& field(const char* reg_name, const char* name) {
  const Register& r = reg(reg_name);
  uint8_t i = 0;
  while (i < r.field_count && !same(r.fields[i].name, name)) ++i;
  return r.fields[i < r.field_count ? i : kRegisterCount + 256];
}

constexpr uint32_t field_mask(const Field& f) {
  return (f.width >= 32 ? 0xFFFFFFFFu : ((1u << f.width) - 1u)) << f.lsb;
}

consteval uint32_t mask(const char* reg_name, const char* name) { return field_mask(field(reg_name, name)); }

consteval uint32_t error_code(const char* name) {
  size_t i = 0;
  while (i < kErrorCodeCount && !same(kErrorCodes[i].name, name)) ++i;
  return kErrorCodes[i].code;
}

/// The meaning of an ERROR code, or nullptr for a code the table does not hold.
constexpr const char* error_meaning(uint32_t code) {
  for (const auto& e : kErrorCodes)
    if (e.code == code) return e.meaning;
  return nullptr;
}

// The table's own rules, checked where it is compiled.
constexpr bool well_formed() {
  for (size_t i = 0; i < kRegisterCount; ++i) {
    const Register& r = kRegisters[i];
    if (r.offset % 4 != 0 || r.offset >= kPageBytes) return false;
    for (size_t j = 0; j < i; ++j)
      if (same(kRegisters[j].name, r.name) || kRegisters[j].offset == r.offset) return false;
    uint32_t used = 0;
    for (uint8_t k = 0; k < r.field_count; ++k) {
      const Field& f = r.fields[k];
      if (f.width == 0 || f.lsb + f.width > 32) return false;
      uint32_t m = field_mask(f);
      if ((used & m) != 0) return false;
      used |= m;
    }
  }
  for (size_t i = 0; i < kErrorCodeCount; ++i)
    if (kErrorCodes[i].code != i) return false;
  return true;
}
static_assert(well_formed(), "the NPU register description breaks its own rules");
static_assert(kErrorCodeCount - 1 <= mask("ERROR", "CODE"), "the ERROR field cannot hold every code");

}  // namespace dg::npu_regs
