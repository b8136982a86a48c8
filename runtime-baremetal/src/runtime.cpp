// The dgmm_* API of the freestanding runtime: module validation, the handle state machine in the
// caller's arena, the two engines (the reference executor, and the NPU programmed through its
// register table and the port layer), and completion through the port layer.
#include "freestanding.h"

#include <deepgemm/baremetal.h>
#include <deepgemm/module_format.h>
#include <deepgemm/npu_regmap.h>
#include <deepgemm/npu_regs.h>
#include <deepgemm/port.h>
#if DG_BM_SIGNATURES
#include <deepgemm/module_signature.h>
#endif

#include "gemm.h"

namespace {

/// The registers of the generated NPU top the runtime uses, looked up by name in the table.
enum NpuReg : uint32_t {
  kId,
  kCtrl,
  kStatus,
  kError,
  kCycles,
  kABase,
  kBBase,
  kCBase,
  kM,
  kN,
  kK,
  kABaseHi,
  kBBaseHi,
  kCBaseHi,  // the bases' high halves: needed for a bus wider than 32 bits
  kNpuRegs
};
constexpr uint32_t kFirstHi = kABaseHi;

struct NpuRegInfo {
  const char* name;
  uint32_t access;  // what the runtime does with it (the table must allow at least that)
};
namespace regs = dg::npu_regs;
constexpr NpuRegInfo kNpuRegInfo[kNpuRegs] = {
    {regs::reg("ID").name, dg::ko::regmap::kAccessRead},
    {regs::reg("CTRL").name, dg::ko::regmap::kAccessWrite},
    {regs::reg("STATUS").name, dg::ko::regmap::kAccessRead},
    {regs::reg("ERROR").name, dg::ko::regmap::kAccessRead},
    {regs::reg("CYCLES").name, dg::ko::regmap::kAccessRead},
    {regs::reg("A_BASE").name, dg::ko::regmap::kAccessWrite},
    {regs::reg("B_BASE").name, dg::ko::regmap::kAccessWrite},
    {regs::reg("C_BASE").name, dg::ko::regmap::kAccessWrite},
    {regs::reg("M").name, dg::ko::regmap::kAccessWrite},
    {regs::reg("N").name, dg::ko::regmap::kAccessWrite},
    {regs::reg("K").name, dg::ko::regmap::kAccessWrite},
    {regs::reg("A_BASE_HI").name, dg::ko::regmap::kAccessWrite},
    {regs::reg("B_BASE_HI").name, dg::ko::regmap::kAccessWrite},
    {regs::reg("C_BASE_HI").name, dg::ko::regmap::kAccessWrite},
};

// The fused epilogue's operand registers (designs whose plan has the operand): low and high halves.
constexpr const char* kEpiRegName[dg::bm::kEpiOperands][2] = {
    {regs::reg("BIAS_BASE").name, regs::reg("BIAS_BASE_HI").name},
    {regs::reg("RQ_BASE").name, regs::reg("RQ_BASE_HI").name},
};

// The leading-dimension registers (in bytes), of A, B and C; designs before them have none.
constexpr const char* kLdRegName[dg::bm::kOperands] = {regs::reg("LDA").name, regs::reg("LDB").name,
                                                       regs::reg("LDC").name};

// The batch loop's registers (designs of plans with batch > 1): BATCH, then A's, B's and C's
// strides; designs before them run one matrix a START.
constexpr uint32_t kBatchRegs = 4;
constexpr const char* kBatchRegName[kBatchRegs] = {regs::reg("BATCH").name, regs::reg("A_STRIDE").name,
                                                   regs::reg("B_STRIDE").name, regs::reg("C_STRIDE").name};

constexpr uint32_t kCtrlStart = regs::mask("CTRL", "START");
constexpr uint32_t kStatusBusy = regs::mask("STATUS", "BUSY");
constexpr uint32_t kStatusDone = regs::mask("STATUS", "DONE");
constexpr uint32_t kStatusError = regs::mask("STATUS", "ERROR");
constexpr uint32_t kErrorCode = regs::mask("ERROR", "CODE");

}  // namespace

struct dgmm_kernel {
  uint32_t magic;
  uint32_t sequence;   // launches so far
  uint32_t completed;  // launches finished
  dgmm_status result;  // result of the most recent launch
  bool bound[dg::bm::kOperands];
  uint64_t addr[dg::bm::kOperands];      // physical addresses, as the bus sees them
  bool epi_bound[dg::bm::kEpiOperands];  // the fused epilogue's operands (bias, rq)
  uint64_t epi_addr[dg::bm::kEpiOperands];
  int64_t* acc;  // accumulator tile scratch, in the arena after this struct
  const uint8_t* module;
  size_t module_size;
  dg::bm::GemmPlan plan;
  // The NPU: the module's register table (validated at load; null when it has none), and, once
  // DGMM_ENGINE_NPU is chosen, the register addresses resolved from it.
  const uint8_t* regmap;
  uint32_t regmap_size;
  dgmm_engine engine;
  uint32_t design_id;
  uint32_t addr_bits;  // the design's bus address width (from the table)
  bool has_hi;         // the table has the *_BASE_HI registers (a version 1 table of a 32-bit design may not)
  uintptr_t reg[kNpuRegs];
  uintptr_t epi_reg[dg::bm::kEpiOperands][2];  // the epilogue operands' base registers (low, high)
  bool has_ld;                                 // the design has LDA, LDB, LDC and its table the bus beat
  uint32_t beat_bytes;                         // the design's bus beat (0: not recorded)
  uintptr_t ld_reg[dg::bm::kOperands];
  bool has_batch;                   // the design loops over a batch itself (BATCH and the strides)
  uintptr_t batch_reg[kBatchRegs];  // BATCH, A_STRIDE, B_STRIDE, C_STRIDE
  bool hw_batch;                    // the running launch's batch is the design's loop (one START)
  bool npu_running;                 // the most recent launch went to the NPU and has not been seen to end
  uint32_t npu_error;               // ERROR register of the most recent launch (0: none)
  bool cycles_valid;                // the most recent launch ran on the NPU and completed
  uint64_t cycles;                  // its CYCLES register (summed over the batch's runs)
  uint32_t batch_index;             // the batch's matrix the NPU runs now (a batch is one NPU run per matrix)
};

namespace {

using dg::ko::ErrorDetail;

constexpr uint32_t kMagic = 0x4B4D4744u;  // "DGMK"

// The only mutable state outside handles: the last error (zero-initialized, no constructor).
dgmm_status g_last_code = DGMM_OK;
// The key set by dgmm_trust_key; modules must be signed by it while g_trusted is set.
uint8_t g_trusted_key[32] = {};
bool g_trusted = false;
ErrorDetail g_last_error;

dgmm_status fail(dgmm_status code, const ErrorDetail& detail) {
  g_last_code = code;
  g_last_error = detail;
  return code;
}
[[gnu::noinline]] dgmm_status fail(dgmm_status code, const char* message) {
  ErrorDetail d;
  d.str(message);
  return fail(code, d);
}

uintptr_t align_up(uintptr_t v, uintptr_t a) { return (v + (a - 1)) & ~(a - 1); }

constexpr size_t kKernelBytes = (sizeof(dgmm_kernel) + 15u) & ~static_cast<size_t>(15u);

/// What validate() finds in a module.
struct Loaded {
  dg::bm::GemmPlan plan;
  dg::ko::Payload regmap;  // the NPU register table, validated (absent when the module has none)
};

/// Validates module, register table and plan; fills *out.
dgmm_status validate(const void* module, size_t size, Loaded* out) {
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
#if DG_BM_SIGNATURES
  if (g_trusted) {
    const dg::ko::sig::Check c = dg::ko::sig::check(view, g_trusted_key);
    if (c != dg::ko::sig::Check::Valid) {
      ErrorDetail d;
      d.str("untrusted module: ").str(dg::ko::sig::check_message(c));
      return fail(DGMM_ERROR_UNTRUSTED, d);
    }
  }
#endif
  if (view.target_kind != dg::ko::TargetKind::Npu) {
    ErrorDetail d;
    d.str("module is for GPU target '").str(view.target_name);
    d.str("'; the bare-metal runtime runs NPU modules");
    return fail(DGMM_ERROR_TARGET_MISMATCH, d);
  }
  const dg::ko::Payload text = view.find(dg::ko::SectionKind::Plan);
  if (!text) return fail(DGMM_ERROR_BAD_MODULE, "invalid module: no plan section");
  out->regmap = view.find(dg::ko::SectionKind::NpuRegmap);
  if (out->regmap) {
    dg::ko::regmap::View table;
    if (dg::ko::regmap::parse(out->regmap.data, out->regmap.size, &table) != dg::ko::regmap::Status::Ok) {
      ErrorDetail d;
      d.str("invalid module: npu_regmap section: ").str(table.error());
      return fail(DGMM_ERROR_BAD_MODULE, d);
    }
  }
  ErrorDetail d;
  d.str("module plan: ");
  switch (dg::bm::read_plan(text.data, text.size, &out->plan, &d)) {
    case dg::bm::PlanStatus::Ok: return DGMM_OK;
    case dg::bm::PlanStatus::Bad: return fail(DGMM_ERROR_BAD_MODULE, d);
    case dg::bm::PlanStatus::Unsupported: return fail(DGMM_ERROR_UNSUPPORTED, d);
    case dg::bm::PlanStatus::WrongTarget: return fail(DGMM_ERROR_TARGET_MISMATCH, d);
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

// ---- The NPU ------------------------------------------------------------------------------------

uint32_t npu_read(const dgmm_kernel* h, NpuReg r) { return port_mmio_read32(h->reg[r]); }
void npu_write(const dgmm_kernel* h, NpuReg r, uint32_t v) { port_mmio_write32(h->reg[r], v); }

/// What each value of the ERROR register means (the generated top's start checks).
const char* npu_error_meaning(uint32_t code) {
  const char* m = dg::npu_regs::error_meaning(code);
  return m != nullptr ? m : "unknown error code";
}

constexpr uint32_t kErrorBitWithoutCode = 0xFFFFFFFFu;

ErrorDetail& npu_error_text(ErrorDetail& d, uint32_t code) {
  if (code == kErrorBitWithoutCode) return d.str("the NPU's STATUS reports ERROR but its ERROR register reads 0");
  return d.str("the NPU reported ERROR ").num(code).str(" (").str(npu_error_meaning(code)).chr(')');
}

/// Resolves the registers the runtime needs from the module's table into the handle.
dgmm_status npu_resolve(dgmm_kernel* h) {
  if (h->regmap == nullptr) {
    return fail(DGMM_ERROR_UNSUPPORTED, "the module has no NPU register table (npu_regmap section)");
  }
  dg::ko::regmap::View table;
  if (dg::ko::regmap::parse(h->regmap, h->regmap_size, &table) != dg::ko::regmap::Status::Ok) {
    return fail(DGMM_ERROR_BAD_MODULE, "invalid module: npu_regmap section changed after load");
  }
  ErrorDetail d;
  if (table.mmio_base > static_cast<uint64_t>(static_cast<uintptr_t>(-1)) - dg::ko::regmap::kWindow) {
    d.str("the NPU's MMIO base ").hex(static_cast<uint32_t>(table.mmio_base >> 32));
    d.str(":").hex(static_cast<uint32_t>(table.mmio_base)).str(" is not addressable on this board");
    return fail(DGMM_ERROR_UNSUPPORTED, d);
  }
  h->has_hi = true;
  for (uint32_t i = 0; i < kNpuRegs; ++i) {
    dg::ko::regmap::Register r;
    const NpuRegInfo& want = kNpuRegInfo[i];
    const bool found = table.find(want.name, &r) && (r.access & want.access) == want.access;
    if (!found && i >= kFirstHi && table.addr_bits == 32) {
      // A 32-bit design without the high halves (a version 1 table): only the low ones are written.
      h->has_hi = false;
      h->reg[i] = 0;
      continue;
    }
    if (!found) {
      d.str("the NPU register table has no ");
      d.str(want.access == dg::ko::regmap::kAccessRead ? "readable" : "writable").str(" register ").str(want.name);
      return fail(DGMM_ERROR_UNSUPPORTED, d);
    }
    h->reg[i] = static_cast<uintptr_t>(table.mmio_base) + r.offset;
  }
  if (!h->has_hi) {
    for (uint32_t i = kFirstHi; i < kNpuRegs; ++i) h->reg[i] = 0;
  }
  for (uint32_t i = 0; i < dg::bm::kEpiOperands; ++i) {
    h->epi_reg[i][0] = h->epi_reg[i][1] = 0;
    if (!dg::bm::epi_needed(h->plan, i)) continue;
    for (uint32_t half = 0; half < 2; ++half) {
      dg::ko::regmap::Register r;
      if (!table.find(kEpiRegName[i][half], &r) || (r.access & dg::ko::regmap::kAccessWrite) == 0) {
        d.str("the NPU register table has no writable register ").str(kEpiRegName[i][half]);
        d.str(", which the plan's operand '").str(dg::bm::epi_name(i)).str("' needs");
        return fail(DGMM_ERROR_UNSUPPORTED, d);
      }
      h->epi_reg[i][half] = static_cast<uintptr_t>(table.mmio_base) + r.offset;
    }
  }
  h->beat_bytes = table.beat_bytes;
  h->has_ld = table.beat_bytes != 0;
  for (uint32_t i = 0; i < dg::bm::kOperands; ++i) {
    dg::ko::regmap::Register r;
    h->ld_reg[i] = 0;
    if (table.find(kLdRegName[i], &r) && (r.access & dg::ko::regmap::kAccessWrite) != 0)
      h->ld_reg[i] = static_cast<uintptr_t>(table.mmio_base) + r.offset;
    else
      h->has_ld = false;
  }
  h->has_batch = true;
  for (uint32_t i = 0; i < kBatchRegs; ++i) {
    dg::ko::regmap::Register r;
    h->batch_reg[i] = 0;
    if (table.find(kBatchRegName[i], &r) && (r.access & dg::ko::regmap::kAccessWrite) != 0)
      h->batch_reg[i] = static_cast<uintptr_t>(table.mmio_base) + r.offset;
    else
      h->has_batch = false;
  }
  h->design_id = table.design_id;
  h->addr_bits = table.addr_bits;
  return DGMM_OK;
}

/// DGMM_OK when the NPU design can read (or write) operand i at its leading dimension: a whole
/// number of bus beats, the operand within 4 GiB (its AGU's 32-bit offsets), and, for a design
/// without the leading-dimension registers, packed; else the refusal, naming the operand.
dgmm_status npu_check_ld(const dgmm_kernel* h, uint32_t i) {
  const dg::bm::OperandLayout& o = h->plan.op[i];
  const uint32_t bits = dg::bm::bits(o.type), inner = o.row_major ? o.cols : o.rows;
  const uint64_t ld_bits = uint64_t{o.ld} * bits;
  ErrorDetail d;
  d.str("operand '").chr(dg::bm::user_name(h->plan, i)).str("': leading dimension ").num(o.ld);
  if (!h->has_ld) {
    if (o.ld == inner) return DGMM_OK;
    d.str(": the module's NPU design has no leading-dimension registers (LDA, LDB, LDC: its model's npu.ld_registers ");
    d.str("is false), it reads packed ").str(dg::bm::user_row_major(h->plan, i) ? "rows" : "columns");
    d.str(" of ").num(inner).str(" elements");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  // A packed operand's rows are whole beats where its row is (the plan's k_align, and the START
  // check ROW_BEATS, govern that); a padded one's leading dimension must be whole beats itself,
  // or whole bytes in a design that realigns rows (byte rows).
  const uint64_t beat_bits = h->plan.byte_rows ? 8 : uint64_t{h->beat_bytes} * 8;
  if (o.ld != inner && ld_bits % beat_bits != 0) {
    uint64_t a = beat_bits, b = bits;  // elements per beat multiple: beat_bits / gcd(beat_bits, bits)
    while (b != 0) {
      const uint64_t t = a % b;
      a = b;
      b = t;
    }
    if (h->plan.byte_rows)
      d.str(" does not end its rows on a byte boundary: make it a multiple of ");
    else
      d.str(" is not a whole number of the NPU's ").num(h->beat_bytes).str("-byte bus beats: make it a multiple of ");
    d.num(beat_bits / a);
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  const uint64_t span = o.matrix_bytes;  // one run's (one matrix's); size_t: 32 bits on some boards
  if (ld_bits / 8 > 0xFFFFFFFFull || span > 0x100000000ull) {
    d.str(" makes it span more than 4 GiB, which the NPU's AGUs address with 32-bit offsets");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  return DGMM_OK;
}

/// DGMM_OK when a batch's matrices of operand i start whole bus beats apart (the START check
/// BASE_ALIGN), as its current M, N, K and leading dimension make them; checked at launch, since
/// those may change after the bind.
dgmm_status npu_check_batch_stride(const dgmm_kernel* h, uint32_t i) {
  const dg::bm::OperandLayout& o = h->plan.op[i];
  if (h->plan.batch <= 1 || h->beat_bytes == 0 || o.batch_stride % h->beat_bytes == 0) return DGMM_OK;
  ErrorDetail d;
  d.str("operand '").chr(dg::bm::user_name(h->plan, i)).str("': a batch's matrices are ").num(o.batch_stride);
  d.str(" bytes apart, not whole ").num(h->beat_bytes).str("-byte bus beats");
  d.str(o.stride_set ? ": set a stride that makes them so (dgmm_set_batch_stride)"
        : h->has_ld  ? ": set a leading dimension that makes them so (dgmm_set_ld)"
                     : ": choose M, N and K that make them so");
  return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
}

/// DGMM_OK unless the batch's matrices of C overlap (a stride set by dgmm_set_batch_stride below
/// one matrix's extent at the current M, N and leading dimension: a later matrix would overwrite
/// an earlier one's results), or, on the NPU engine, a batch stride is not whole bus beats.
dgmm_status check_batch(const dgmm_kernel* h, uint32_t i) {
  const dg::bm::OperandLayout& o = h->plan.op[i];
  if (i == dg::bm::kC && h->plan.batch > 1 && o.stride_set) {
    const uint32_t inner = o.row_major ? o.cols : o.rows, outer = o.row_major ? o.rows : o.cols;
    const uint64_t elems = uint64_t{outer - 1} * o.ld + inner;
    if (o.stride < elems) {
      ErrorDetail d;
      d.str("operand '").chr(dg::bm::user_name(h->plan, i)).str("': a batch's matrices are ");
      d.num(o.stride).str(" elements apart, fewer than one matrix's ");
      d.num(elems).str(": the output's matrices would overlap");
      return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
    }
  }
  return h->engine == DGMM_ENGINE_NPU ? npu_check_batch_stride(h, i) : DGMM_OK;
}

/// Whether the design's bus reaches [address, address + bytes).
bool npu_reaches(const dgmm_kernel* h, uint64_t address, uint64_t bytes) {
  return dg::ko::regmap::reaches(h->addr_bits, address, bytes);
}

/// DGMM_OK when the NPU's bus reaches operand i at `address` (its current extent), else the
/// refusal, naming the operand, its address and the bus's width.
dgmm_status npu_check_reach(const dgmm_kernel* h, uint32_t i, uint64_t address) {
  if (npu_reaches(h, address, h->plan.op[i].bytes)) return DGMM_OK;
  ErrorDetail d;
  d.str("operand '").chr(dg::bm::user_name(h->plan, i)).str("' at ");
  d.hex(static_cast<uint32_t>(address >> 32)).str(":").hex(static_cast<uint32_t>(address));
  d.str(" does not fit the NPU's ").num(h->addr_bits).str("-bit bus addresses");
  return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
}

/// Programs the NPU for the bound operands and starts it; nothing is written unless every check
/// passes.
/// Writes A's, B's and C's base registers for the batch's matrix h->batch_index (matrix b of an
/// operand at b × its batch stride: each run of the NPU computes one matrix of the batch).
void npu_write_bases(dgmm_kernel* h) {
  for (uint32_t i = 0; i < dg::bm::kOperands; ++i) {
    const uint64_t at = h->addr[i] + uint64_t{h->batch_index} * h->plan.op[i].batch_stride;
    npu_write(h, static_cast<NpuReg>(kABase + i), static_cast<uint32_t>(at));
    if (h->has_hi) npu_write(h, static_cast<NpuReg>(kABaseHi + i), static_cast<uint32_t>(at >> 32));
  }
}

dgmm_status npu_start(dgmm_kernel* h) {
  ErrorDetail d;
  for (uint32_t i = 0; i < dg::bm::kOperands; ++i) {
    // Checked at bind too; K (and with it the extents) may have changed since.
    if (const dgmm_status s = npu_check_reach(h, i, h->addr[i]); s != DGMM_OK) return s;
    if (const dgmm_status s = npu_check_ld(h, i); s != DGMM_OK) return s;
    if (const dgmm_status s = npu_check_batch_stride(h, i); s != DGMM_OK) return s;
  }
  const uint32_t id = npu_read(h, kId);
  if (id != h->design_id) {
    d.str("the NPU's ID register reads ").hex(id).str(", the module's design is ").hex(h->design_id);
    d.str(" (the hardware was built from another plan)");
    return fail(DGMM_ERROR_TARGET_MISMATCH, d);
  }
  const uint32_t status = npu_read(h, kStatus);
  if ((status & kStatusBusy) != 0) {
    d.str("the NPU is busy (STATUS ").hex(status).str("): another run has not finished");
    return fail(DGMM_ERROR_INVALID_STATE, d);
  }
  h->batch_index = 0;
  npu_write_bases(h);
  // A batch the design loops over itself when it has the registers and every stride fits them
  // (else, and in designs without them, one START a matrix, the bases rewritten in between).
  h->hw_batch = h->has_batch && h->plan.batch > 1;
  for (uint32_t i = 0; i < dg::bm::kOperands; ++i)
    if (h->plan.op[i].batch_stride > 0xFFFFFFFFull) h->hw_batch = false;
  if (h->has_batch && h->plan.batch_max > 1) {  // (BATCH 1 after a launch of more: dgmm_set_batch)
    port_mmio_write32(h->batch_reg[0], h->hw_batch ? h->plan.batch : 1u);
    for (uint32_t i = 0; i < dg::bm::kOperands; ++i)
      port_mmio_write32(h->batch_reg[1 + i], h->hw_batch ? static_cast<uint32_t>(h->plan.op[i].batch_stride) : 0u);
  }
  for (uint32_t i = 0; i < dg::bm::kEpiOperands; ++i) {
    if (!dg::bm::epi_needed(h->plan, i)) continue;
    port_mmio_write32(h->epi_reg[i][0], static_cast<uint32_t>(h->epi_addr[i]));
    port_mmio_write32(h->epi_reg[i][1], static_cast<uint32_t>(h->epi_addr[i] >> 32));
  }
  if (h->has_ld) {
    for (uint32_t i = 0; i < dg::bm::kOperands; ++i) {
      const dg::bm::OperandLayout& o = h->plan.op[i];
      port_mmio_write32(h->ld_reg[i], static_cast<uint32_t>(uint64_t{o.ld} * dg::bm::bits(o.type) / 8));
    }
  }
  npu_write(h, kM, h->plan.M);
  npu_write(h, kN, h->plan.N);
  npu_write(h, kK, h->plan.K);
  npu_write(h, kCtrl, kCtrlStart);
  return DGMM_OK;
}

/// Reads STATUS once when an NPU launch is outstanding, and records its end (DONE or ERROR).
void npu_poll(dgmm_kernel* h) {
  if (!h->npu_running) return;
  const uint32_t status = npu_read(h, kStatus);
  if ((status & kStatusError) != 0 && (status & kStatusBusy) == 0) {
    // Checked first: a refused START sets ERROR and leaves DONE as the previous run left it; a
    // bus error sets ERROR during the run, which still runs to its end.
    const uint32_t code = (npu_read(h, kError) & kErrorCode) >> dg::npu_regs::field("ERROR", "CODE").lsb;
    h->npu_error = code != 0 ? code : kErrorBitWithoutCode;
    h->result = DGMM_ERROR_LAUNCH;
  } else if ((status & kStatusDone) != 0 && (status & kStatusBusy) == 0) {
    h->cycles += npu_read(h, kCycles);
    if (!h->hw_batch && h->batch_index + 1 < h->plan.batch) {
      // The next matrix of the batch: the same problem and strides, the bases one matrix on.
      ++h->batch_index;
      npu_write_bases(h);
      npu_write(h, kCtrl, kCtrlStart);
      return;
    }
    h->cycles_valid = true;
    h->result = DGMM_OK;
  } else {
    return;
  }
  h->npu_running = false;
  h->completed = h->sequence;
}

/// DGMM_OK when no launch of the handle is outstanding (polling the NPU once), else
/// DGMM_ERROR_INVALID_STATE: "<what> while a launch runs".
[[gnu::noinline]] dgmm_status idle(dgmm_kernel* h, const char* what) {
  npu_poll(h);
  if (h->completed == h->sequence) return DGMM_OK;
  ErrorDetail d;
  d.str(what).str(" while a launch runs");
  return fail(DGMM_ERROR_INVALID_STATE, d);
}

dgmm_status bad_handle() { return fail(DGMM_ERROR_INVALID_STATE, "invalid or unloaded handle"); }

bool str_same(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

/// The plan's operand the user names "A", "B" or "C" (dg::bm::plan_operand), or -1.
int operand_index(const dg::bm::GemmPlan& p, const char* name) {
  if (name == nullptr || name[0] == '\0' || name[1] != '\0') return -1;
  if (name[0] != 'A' && name[0] != 'B' && name[0] != 'C') return -1;
  return static_cast<int>(dg::bm::plan_operand(p, static_cast<uint32_t>(name[0] - 'A')));
}

bool wraps(uint64_t address, uint64_t bytes) { return address > ~uint64_t{0} - bytes; }

dgmm_status wrap_error(const dgmm_kernel* h, int i) {
  ErrorDetail d;
  d.str("operand '")
      .chr(dg::bm::user_name(h->plan, static_cast<uint32_t>(i)))
      .str("' would wrap around the address space");
  return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
}

/// The refusal of a run-time dimension (name 'M', 'N' or 'K') outside the plan's [lo, hi].
dgmm_status outside_range(char name, uint32_t v, uint32_t lo, uint32_t hi) {
  ErrorDetail d;
  d.chr(name).chr(' ').num(v);
  if (lo == hi)
    d.str(" is not the plan's ").chr(name).chr(' ').num(hi).str(" (the plan has no ").chr(name).str(" range)");
  else
    d.str(" is outside the plan's ").chr(name).str(" range [").num(lo).str(", ").num(hi).chr(']');
  return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
}

/// After M, N or K changed: no operand already bound may wrap around the address space, and on
/// the NPU engine each leading dimension must still be one its design takes; the first refusal,
/// after `undo` put the old value back, or DGMM_OK.
template <class Undo>
dgmm_status recheck_operands(const dgmm_kernel* h, Undo undo) {
  for (int i = 0; i < static_cast<int>(dg::bm::kOperands); ++i) {
    dgmm_status s = DGMM_OK;
    if (h->bound[i] && wraps(h->addr[i], h->plan.op[i].bytes))
      s = wrap_error(h, i);
    else if (h->engine == DGMM_ENGINE_NPU)
      s = npu_check_ld(h, static_cast<uint32_t>(i));
    if (s == DGMM_OK) s = check_batch(h, static_cast<uint32_t>(i));
    if (s != DGMM_OK) {
      undo();
      return s;
    }
  }
  return DGMM_OK;
}

/// Refuses the fused epilogue's operand i where the plan lacks it, naming what has it.
dgmm_status epi_missing(uint32_t i) {
  ErrorDetail d;
  d.str("the module's plan has no operand '").str(dg::bm::epi_name(i));
  d.str(i == dg::bm::kBias ? "' (op_type bias or bias_relu has it)" : "' (an int8 or int16 output has it)");
  return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
}

/// Binds the fused epilogue's operand i (bias or rq), an input of the plans that have it.
dgmm_status bind_epi(dgmm_handle h, uint32_t i, uint64_t address, bool output) {
  ErrorDetail d;
  const char* name = dg::bm::epi_name(i);
  if (!dg::bm::epi_needed(h->plan, i)) return epi_missing(i);
  if (output) {
    d.str("operand '").str(name).str("' is an input; use dgmm_bind_input");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  if (const dgmm_status s = idle(h, "bind"); s != DGMM_OK) return s;
  if (address == 0 || address % 4 != 0) {
    d.str("operand '").str(name).str(address == 0 ? "': address is null" : "': address is not aligned to 4 bytes");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  const uint64_t bytes = dg::bm::epi_bytes(h->plan, i);
  if (wraps(address, bytes) || (h->engine == DGMM_ENGINE_NPU && !npu_reaches(h, address, bytes))) {
    d.str("operand '").str(name).str("' at ");
    d.hex(static_cast<uint32_t>(address >> 32)).str(":").hex(static_cast<uint32_t>(address));
    d.str(" does not fit the address space of the NPU's bus");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  h->epi_addr[i] = address;
  h->epi_bound[i] = true;
  return DGMM_OK;
}

dgmm_status bind(dgmm_handle h, const char* name, uint64_t address, bool output) {
  if (!valid(h)) return bad_handle();
  for (uint32_t e = 0; name != nullptr && e < dg::bm::kEpiOperands; ++e)
    if (str_same(name, dg::bm::epi_name(e))) return bind_epi(h, e, address, output);
  const int i = operand_index(h->plan, name);
  ErrorDetail d;
  if (i < 0) {
    d.str("unknown operand '").str(name != nullptr ? name : "(null)").str("' (A, B, C, bias or rq)");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  if ((i == dg::bm::kC) != output) {
    d.str("operand '")
        .str(name)
        .str(output ? "' is an input; use dgmm_bind_input" : "' is an output; use dgmm_bind_output");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  if (const dgmm_status s = idle(h, "bind"); s != DGMM_OK) return s;
  const uint32_t align = (dg::bm::bits(h->plan.op[i].type) + 7) / 8;  // 4-bit elements: a byte
  if (address == 0 || address % align != 0) {
    d.str("operand '").str(name).str("': address ");
    if ((address >> 32) != 0) d.hex(static_cast<uint32_t>(address >> 32)).str(":");
    d.hex(static_cast<uint32_t>(address));
    d.str(address == 0 ? " is null" : " is not aligned to its element size");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  if (wraps(address, h->plan.op[i].bytes)) return wrap_error(h, i);
  if (h->engine == DGMM_ENGINE_NPU) {
    if (const dgmm_status s = npu_check_reach(h, static_cast<uint32_t>(i), address); s != DGMM_OK) return s;
  }
  h->addr[i] = address;
  h->bound[i] = true;
  return DGMM_OK;
}

/// Operand i's lines under a new M or N (`name` = `value`): with 4-bit elements packed along that
/// dimension (`packed_along`, the leading dimension not set), each line must start on a byte, so
/// the value is even; where the lines run along it (`ld_along`) a leading dimension set by
/// dgmm_set_ld bounds it. DGMM_OK, or the refusal, its text after `d`'s "NAME VALUE".
dgmm_status check_lines(dgmm_handle h, uint32_t i, uint32_t value, char name, bool packed_along, bool ld_along,
                        ErrorDetail& d) {
  const dg::bm::OperandLayout& o = h->plan.op[i];
  const char* lines = dg::bm::user_row_major(h->plan, i) ? "rows" : "columns";
  if (packed_along && !o.ld_set && (value & 1) != 0 && o.type == dg::bm::DType::Int4) {
    d.str(" is odd: operand '").chr(dg::bm::user_name(h->plan, i));
    d.str("' has 4-bit elements packed two per byte along ").chr(name).str(", and each of its ").str(lines);
    d.str(" must start on a byte");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  if (o.ld_set && ld_along && value > o.ld) {
    d.str(" is above operand '").chr(dg::bm::user_name(h->plan, i));
    d.str("''s leading dimension ").num(o.ld).str(" (set by dgmm_set_ld): its ").str(lines).str(" would overlap");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  return DGMM_OK;
}

/// The plan's M (the user's `name`: N when the plan swapped its operands) set to m.
dgmm_status set_plan_m(dgmm_handle h, uint32_t m, char name) {
  if (const dgmm_status s = idle(h, name == 'M' ? "M change" : "N change"); s != DGMM_OK) return s;
  if (m < h->plan.M_min || m > h->plan.M_max) return outside_range(name, m, h->plan.M_min, h->plan.M_max);
  // A column-major A's columns are M elements (the user's row-major B's rows of N when swapped).
  const dg::bm::OperandLayout& a = h->plan.op[dg::bm::kA];
  const char* lines = dg::bm::user_row_major(h->plan, dg::bm::kA) ? "rows" : "columns";
  ErrorDetail d;
  d.chr(name).chr(' ').num(m);
  if (m % h->plan.m_align != 0) {
    d.str(" is not a multiple of ").num(h->plan.m_align).str(": the plan's DMA moves operand '");
    d.chr(dg::bm::user_name(h->plan, dg::bm::kA)).str("''s ").str(lines).str(" of ").chr(name);
    d.str(" elements in whole ").str(h->plan.byte_rows ? "bytes" : "bus beats");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  if (const dgmm_status s = check_lines(h, dg::bm::kA, m, name, a.ld_is_m, !a.row_major, d); s != DGMM_OK) return s;
  const uint32_t old_m = h->plan.M;
  dg::bm::set_m(&h->plan, m);
  return recheck_operands(h, [&] { dg::bm::set_m(&h->plan, old_m); });
}

/// The plan's N (the user's `name`: M when the plan swapped its operands) set to n.
dgmm_status set_plan_n(dgmm_handle h, uint32_t n, char name) {
  if (const dgmm_status s = idle(h, name == 'M' ? "M change" : "N change"); s != DGMM_OK) return s;
  if (n < h->plan.N_min || n > h->plan.N_max) return outside_range(name, n, h->plan.N_min, h->plan.N_max);
  const uint32_t align = h->plan.n_align;
  ErrorDetail d;
  d.chr(name).chr(' ').num(n);
  if (n % align != 0) {
    d.str(" is not a multiple of ").num(align);
    d.str(h->plan.swapped ? ": the plan's DMA moves columns of M elements (C's) in whole "
                          : ": the plan's DMA moves rows of N elements (C's, and a row-major B's) in whole ");
    d.str(h->plan.byte_rows ? "bytes" : "bus beats");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  for (uint32_t i = dg::bm::kB; i < dg::bm::kOperands; ++i) {
    const dg::bm::OperandLayout& o = h->plan.op[i];
    if (const dgmm_status s = check_lines(h, i, n, name, o.ld_is_n, o.row_major, d); s != DGMM_OK) return s;
  }
  const uint32_t old_n = h->plan.N;
  dg::bm::set_n(&h->plan, n);
  return recheck_operands(h, [&] { dg::bm::set_n(&h->plan, old_n); });
}

}  // namespace

extern "C" {

dgmm_handle dgmm_load_image(const void* module, size_t size, void* arena, size_t arena_size) {
  Loaded loaded;
  if (validate(module, size, &loaded) != DGMM_OK) return nullptr;
  const dg::bm::GemmPlan& plan = loaded.plan;
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
  h->regmap = loaded.regmap ? loaded.regmap.data : nullptr;
  h->regmap_size = loaded.regmap.size;
  h->engine = DGMM_ENGINE_REFERENCE;
  h->magic = kMagic;
  return h;
}

size_t dgmm_arena_size(const void* module, size_t size) {
  Loaded loaded;
  if (validate(module, size, &loaded) != DGMM_OK) return 0;
  return arena_needed(loaded.plan);
}

void dgmm_unload(dgmm_handle handle) {
  if (valid(handle)) handle->magic = 0;
}

dgmm_status dgmm_bind_input(dgmm_handle handle, const char* name, uint64_t physical_address) {
  return bind(handle, name, physical_address, false);
}

dgmm_status dgmm_bind_output(dgmm_handle handle, const char* name, uint64_t physical_address) {
  return bind(handle, name, physical_address, true);
}

dgmm_status dgmm_set_engine(dgmm_handle h, dgmm_engine engine) {
  if (!valid(h)) return bad_handle();
  if (const dgmm_status s = idle(h, "engine change"); s != DGMM_OK) return s;
  if (engine == DGMM_ENGINE_NPU) {
    const dgmm_status s = npu_resolve(h);
    if (s != DGMM_OK) return s;
    // Operands bound for the reference executor must be reachable on the NPU's bus too, and
    // their leading dimensions ones the design takes.
    for (uint32_t i = 0; i < dg::bm::kOperands; ++i) {
      if (const dgmm_status r = npu_check_ld(h, i); r != DGMM_OK) return r;
      if (!h->bound[i]) continue;
      if (const dgmm_status r = npu_check_reach(h, i, h->addr[i]); r != DGMM_OK) return r;
    }
  } else if (engine != DGMM_ENGINE_REFERENCE) {
    ErrorDetail d;
    d.str("unknown engine ").num(static_cast<uint32_t>(engine));
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  h->engine = engine;
  return DGMM_OK;
}

dgmm_status dgmm_set_k(dgmm_handle h, uint32_t k) {
  if (!valid(h)) return bad_handle();
  if (const dgmm_status s = idle(h, "K change"); s != DGMM_OK) return s;
  const uint32_t lo = h->plan.K_min, hi = h->plan.K_max;
  // A 4-bit operand whose leading dimension is K: its rows (A) or columns (B) start on a byte only
  // for an even K.
  uint32_t odd = dg::bm::kOperands;
  for (uint32_t i = dg::bm::kC; i-- > 0;) {  // A named first when both are
    const dg::bm::OperandLayout& o = h->plan.op[i];
    if ((k & 1) != 0 && o.ld_is_k && o.type == dg::bm::DType::Int4) odd = i;
  }
  const bool outside = k < lo || k > hi;
  const uint32_t align = h->plan.k_align;
  for (uint32_t i = 0; !outside && i < dg::bm::kC; ++i) {
    const dg::bm::OperandLayout& o = h->plan.op[i];
    if (o.ld_is_k && o.ld_set && k > o.ld) {
      ErrorDetail d;
      d.str("K ").num(k).str(" is above operand '").chr(dg::bm::user_name(h->plan, i));
      d.str("''s leading dimension ").num(o.ld).str(" (set by dgmm_set_ld): its ");
      d.str(dg::bm::user_row_major(h->plan, i) ? "rows" : "columns").str(" would overlap");
      return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
    }
  }
  if (outside) return outside_range('K', k, lo, hi);
  if (odd != dg::bm::kOperands || k % align != 0) {
    ErrorDetail d;
    d.str("K ").num(k);
    if (k % align != 0) {
      d.str(" is not a multiple of ")
          .num(align)
          .str(": the plan's DMA moves rows of K elements (A's, and a column-major B's) in whole ")
          .str(h->plan.byte_rows ? "bytes" : "bus beats");
    } else {
      d.str(" is odd: operand '").chr(dg::bm::user_name(h->plan, odd));
      d.str("' has 4-bit elements packed two per byte along K, and each of its ")
          .str(dg::bm::user_row_major(h->plan, odd) ? "rows" : "columns")
          .str(" must start on a byte");
    }
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  const uint32_t old_k = h->plan.K;
  dg::bm::set_k(&h->plan, k);
  return recheck_operands(h, [&] { dg::bm::set_k(&h->plan, old_k); });
}

dgmm_status dgmm_set_m(dgmm_handle h, uint32_t m) {
  if (!valid(h)) return bad_handle();
  return h->plan.swapped ? set_plan_n(h, m, 'M') : set_plan_m(h, m, 'M');
}

dgmm_status dgmm_set_n(dgmm_handle h, uint32_t n) {
  if (!valid(h)) return bad_handle();
  return h->plan.swapped ? set_plan_m(h, n, 'N') : set_plan_n(h, n, 'N');
}

dgmm_status dgmm_set_ld(dgmm_handle h, const char* name, uint32_t ld) {
  if (!valid(h)) return bad_handle();
  ErrorDetail d;
  for (uint32_t e = 0; name != nullptr && e < dg::bm::kEpiOperands; ++e) {
    if (!str_same(name, dg::bm::epi_name(e))) continue;
    d.str("operand '").str(name).str("' is one vector: it has no leading dimension");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  const int i = operand_index(h->plan, name);
  if (i < 0) {
    d.str("unknown operand '").str(name != nullptr ? name : "(null)").str("' (A, B or C)");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  if (const dgmm_status s = idle(h, "leading dimension change"); s != DGMM_OK) return s;
  dg::bm::OperandLayout& o = h->plan.op[i];
  const dg::bm::OperandLayout saved = o;
  const uint32_t inner = o.row_major ? o.cols : o.rows;
  d.str("operand '").str(name).str("': leading dimension ").num(ld);
  if (ld != 0 && ld < inner) {
    d.str(" is smaller than its ")
        .str(dg::bm::user_row_major(h->plan, static_cast<uint32_t>(i)) ? "rows' " : "columns' ");
    d.num(inner).str(" elements");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  if (ld != 0 && o.type == dg::bm::DType::Int4 && (ld & 1) != 0) {
    d.str(" is odd: 4-bit elements are packed two per byte, and each row or column must start on a byte");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  o.ld_set = ld != 0;
  o.ld = ld != 0 ? ld : o.ld_is_k ? h->plan.K : o.ld_is_n ? h->plan.N : o.ld_is_m ? h->plan.M : o.plan_ld;
  dg::bm::set_k(&h->plan, h->plan.K);  // the extents at the new leading dimension
  dgmm_status s = DGMM_OK;
  if (h->bound[i] && wraps(h->addr[i], o.bytes))
    s = wrap_error(h, i);
  else if (h->engine == DGMM_ENGINE_NPU)
    s = npu_check_ld(h, static_cast<uint32_t>(i));
  if (s == DGMM_OK && h->engine == DGMM_ENGINE_NPU && h->bound[i])
    s = npu_check_reach(h, static_cast<uint32_t>(i), h->addr[i]);
  if (s == DGMM_OK) s = check_batch(h, static_cast<uint32_t>(i));
  if (s != DGMM_OK) {
    o = saved;
    dg::bm::set_k(&h->plan, h->plan.K);
  }
  return s;
}

dgmm_status dgmm_set_batch(dgmm_handle h, uint32_t count) {
  if (!valid(h)) return bad_handle();
  if (const dgmm_status s = idle(h, "batch change"); s != DGMM_OK) return s;
  if (count < 1 || count > h->plan.batch_max) {
    ErrorDetail d;
    d.str("batch ").num(count).str(" is outside the plan's 1 to ").num(h->plan.batch_max);
    d.str(h->plan.batch_max == 1 ? " (the spec's shape has no batch)" : "");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  const uint32_t old = h->plan.batch;
  auto undo = [&] {
    h->plan.batch = old;
    dg::bm::set_k(&h->plan, h->plan.K);
  };
  h->plan.batch = count;
  if (dg::bm::set_k(&h->plan, h->plan.K) != dg::bm::kOperands) {  // the operands' extents over the new count
    undo();
    ErrorDetail d;
    d.str("batch ").num(count).str(": the batch's extent would pass the address space");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  return recheck_operands(h, undo);
}

dgmm_status dgmm_set_batch_stride(dgmm_handle h, const char* name, uint64_t stride) {
  if (!valid(h)) return bad_handle();
  ErrorDetail d;
  const int i = operand_index(h->plan, name);
  if (i < 0) {
    d.str("unknown operand '").str(name != nullptr ? name : "(null)").str("' (A, B or C)");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  if (const dgmm_status s = idle(h, "batch stride change"); s != DGMM_OK) return s;
  dg::bm::OperandLayout& o = h->plan.op[i];
  d.str("operand '").str(name).str("': batch stride ");
  if (stride != DGMM_STRIDE_PACKED) {
    if ((stride >> 59) != 0) {
      d.str("of 2^59 elements or more is beyond any memory");
      return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
    }
    if (o.type == dg::bm::DType::Int4 && (stride & 1) != 0) {
      d.num(stride);
      d.str(" is odd: 4-bit elements are packed two per byte, and each matrix must start on a byte");
      return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
    }
  }
  const dg::bm::OperandLayout saved = o;
  o.stride_set = stride != DGMM_STRIDE_PACKED;
  o.stride = o.stride_set ? stride : 0;
  auto undo = [&] {
    o = saved;
    dg::bm::set_k(&h->plan, h->plan.K);
  };
  if (dg::bm::set_k(&h->plan, h->plan.K) != dg::bm::kOperands) {
    undo();
    d.num(stride).str(": the batch's extent would pass the address space");
    return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
  }
  return recheck_operands(h, undo);
}

dgmm_status dgmm_launch(dgmm_handle h) {
  if (!valid(h)) return bad_handle();
  if (const dgmm_status s = idle(h, "launch"); s != DGMM_OK) return s;
  for (uint32_t i = 0; i < dg::bm::kOperands; ++i) {
    if (!h->bound[i]) {
      ErrorDetail d;
      d.str("operand '").chr(dg::bm::user_name(h->plan, i)).str("' is not bound");
      return fail(DGMM_ERROR_UNBOUND_OPERAND, d);
    }
  }
  for (uint32_t i = 0; i < dg::bm::kEpiOperands; ++i) {
    if (dg::bm::epi_needed(h->plan, i) && !h->epi_bound[i]) {
      ErrorDetail d;
      d.str("operand '").str(dg::bm::epi_name(i)).str("' is not bound");
      return fail(DGMM_ERROR_UNBOUND_OPERAND, d);
    }
  }
  const bool epilogue = h->plan.epi_bias || h->plan.epi_relu || h->plan.epi_rq;
  if (epilogue && h->engine == DGMM_ENGINE_REFERENCE) {
    return fail(DGMM_ERROR_UNSUPPORTED,
                "the reference executor does not apply the plan's fused epilogue (bias, relu, requantization); "
                "launch on the NPU (dgmm_set_engine DGMM_ENGINE_NPU)");
  }
  // The reference executor reads and writes the operands through this CPU's pointers.
  uintptr_t ptr[dg::bm::kOperands];
  for (uint32_t i = 0; i < dg::bm::kOperands; ++i) {
    if (h->engine == DGMM_ENGINE_REFERENCE &&
        h->addr[i] > static_cast<uint64_t>(static_cast<uintptr_t>(-1)) - h->plan.op[i].bytes) {
      ErrorDetail d;
      d.str("operand '").chr(dg::bm::user_name(h->plan, i)).str("' at ");
      d.hex(static_cast<uint32_t>(h->addr[i] >> 32)).str(":").hex(static_cast<uint32_t>(h->addr[i]));
      d.str(" is beyond this CPU's pointers, which the reference executor reads it through");
      return fail(DGMM_ERROR_INVALID_ARGUMENT, d);
    }
    ptr[i] = static_cast<uintptr_t>(h->addr[i]);
  }
  if (h->engine == DGMM_ENGINE_NPU) {
    const dgmm_status s = npu_start(h);
    if (s != DGMM_OK) return s;  // nothing started: the previous fence stays the last one
  }
  ++h->sequence;
  h->npu_error = 0;
  h->cycles_valid = false;
  h->cycles = 0;
  if (h->engine == DGMM_ENGINE_NPU) {
    h->npu_running = true;
    return DGMM_OK;
  }
  ErrorDetail d;
  d.str("launch: ");
  bool ok = true;
  for (uint32_t b = 0; ok && b < h->plan.batch; ++b) {
    uintptr_t at[dg::bm::kOperands];
    for (uint32_t i = 0; i < dg::bm::kOperands; ++i)
      at[i] = ptr[i] + static_cast<uintptr_t>(uint64_t{b} * h->plan.op[i].batch_stride);
    ok = dg::bm::execute(h->plan, at, h->acc, &d);
  }
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
  for (;;) {
    npu_poll(h);
    if (h->completed >= f.sequence) break;
    const uint64_t waited = port_now() - start;
    if (timeout_ticks != 0 && waited >= timeout_ticks) {
      ErrorDetail d;
      d.str("timed out after ").num(waited).str(" ticks waiting for the launch");
      if (h->npu_running) d.str(" (NPU STATUS ").hex(npu_read(h, kStatus)).chr(')');
      return fail(DGMM_ERROR_TIMEOUT, d);
    }
    port_wait_irq(timeout_ticks != 0 ? timeout_ticks - waited : 0);
  }
  if (h->result != DGMM_OK && f.sequence == h->sequence) {
    ErrorDetail d;
    if (h->npu_error != 0) return fail(h->result, npu_error_text(d, h->npu_error));
    return fail(h->result, "the launch before this fence failed");
  }
  return DGMM_OK;
}

dgmm_status dgmm_wait(dgmm_fence fence) { return dgmm_wait_timeout(fence, 0); }

dgmm_status dgmm_npu_cycles(dgmm_handle h, uint64_t* cycles) {
  if (!valid(h)) return bad_handle();
  if (cycles == nullptr) return fail(DGMM_ERROR_INVALID_ARGUMENT, "null cycles pointer");
  npu_poll(h);
  if (!h->cycles_valid) {
    return fail(DGMM_ERROR_INVALID_STATE,
                "no completed NPU run: the last launch did not run on the NPU, "
                "has not finished or failed");
  }
  *cycles = h->cycles;
  return DGMM_OK;
}

const char* dgmm_last_error(void) { return g_last_error.text; }

dgmm_status dgmm_last_error_code(void) { return g_last_code; }

const char* dgmm_status_string(dgmm_status s) { return dgmm_status_name(static_cast<int>(s)); }

dgmm_status dgmm_trust_key(const uint8_t* public_key) {
#if DG_BM_SIGNATURES
  if (public_key == nullptr) {
    g_trusted = false;
    return DGMM_OK;
  }
  for (int i = 0; i < 32; ++i) g_trusted_key[i] = public_key[i];
  g_trusted = true;
  return DGMM_OK;
#else
  (void)public_key;
  (void)g_trusted_key;
  (void)g_trusted;
  return fail(DGMM_ERROR_UNSUPPORTED, "this runtime was built without signature checks (DG_BM_SIGNATURES=0)");
#endif
}

dgmm_status dgmm_operand_info(dgmm_handle h, const char* name, dgmm_operand* out) {
  if (!valid(h)) return bad_handle();
  // The fused epilogue's operands: one value (bias: int32) or one 8-byte record (rq) per column.
  for (uint32_t e = 0; e < dg::bm::kEpiOperands; ++e) {
    if (name == nullptr || out == nullptr || !str_same(name, dg::bm::epi_name(e))) continue;
    if (!dg::bm::epi_needed(h->plan, e)) return epi_missing(e);
    const uint32_t bits = e == dg::bm::kBias ? 32 : 64;
    out->rows = 1;
    out->cols = h->plan.N;
    out->ld = h->plan.N;
    out->element_bits = bits;
    out->value_bits = bits;
    out->is_signed = e == dg::bm::kBias ? 1 : 0;
    out->row_major = 1;
    out->is_output = 0;
    out->bytes = static_cast<size_t>(dg::bm::epi_bytes(h->plan, e));
    return DGMM_OK;
  }
  const int i = operand_index(h->plan, name);
  if (i < 0 || out == nullptr) return fail(DGMM_ERROR_INVALID_ARGUMENT, "unknown operand or null output");
  const dg::bm::OperandLayout& o = h->plan.op[i];
  // The user's operand: the transpose of the plan's where the plan swapped its operands.
  const bool t = h->plan.swapped;
  out->rows = t ? o.cols : o.rows;
  out->cols = t ? o.rows : o.cols;
  out->ld = o.ld;
  out->element_bits = dg::bm::bits(o.type);
  out->value_bits = o.value_bits;
  out->is_signed = o.is_signed ? 1 : 0;
  out->row_major = dg::bm::user_row_major(h->plan, static_cast<uint32_t>(i)) ? 1 : 0;
  out->is_output = i == dg::bm::kC ? 1 : 0;
  out->bytes = o.bytes;
  return DGMM_OK;
}

dgmm_status dgmm_problem(dgmm_handle h, uint32_t* m, uint32_t* n, uint32_t* k, uint32_t* tile_m, uint32_t* tile_n,
                         uint32_t* tile_k) {
  if (!valid(h)) return bad_handle();
  const bool t = h->plan.swapped;  // the plan's M and N are the user's N and M
  if (m != nullptr) *m = t ? h->plan.N : h->plan.M;
  if (n != nullptr) *n = t ? h->plan.M : h->plan.N;
  if (k != nullptr) *k = h->plan.K;
  if (tile_m != nullptr) *tile_m = t ? h->plan.tile_n : h->plan.tile_m;
  if (tile_n != nullptr) *tile_n = t ? h->plan.tile_m : h->plan.tile_n;
  if (tile_k != nullptr) *tile_k = h->plan.tile_k;
  return DGMM_OK;
}

dgmm_status dgmm_m_range(dgmm_handle h, uint32_t* m_min, uint32_t* m_max) {
  if (!valid(h)) return bad_handle();
  if (m_min != nullptr) *m_min = h->plan.swapped ? h->plan.N_min : h->plan.M_min;
  if (m_max != nullptr) *m_max = h->plan.swapped ? h->plan.N_max : h->plan.M_max;
  return DGMM_OK;
}

dgmm_status dgmm_n_range(dgmm_handle h, uint32_t* n_min, uint32_t* n_max) {
  if (!valid(h)) return bad_handle();
  if (n_min != nullptr) *n_min = h->plan.swapped ? h->plan.M_min : h->plan.N_min;
  if (n_max != nullptr) *n_max = h->plan.swapped ? h->plan.M_max : h->plan.N_max;
  return DGMM_OK;
}

dgmm_status dgmm_k_range(dgmm_handle h, uint32_t* k_min, uint32_t* k_max) {
  if (!valid(h)) return bad_handle();
  if (k_min != nullptr) *k_min = h->plan.K_min;
  if (k_max != nullptr) *k_max = h->plan.K_max;
  return DGMM_OK;
}

}  // extern "C"
