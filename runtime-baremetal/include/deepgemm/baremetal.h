/* deepgemm/baremetal.h - the dgmm_* C API of the freestanding runtime (no OS, no heap).
 *
 * The same calls as the CUDA runtime (SPEC section 4), adapted to boards without an OS:
 *
 *   static unsigned char arena[DGMM_ARENA_BYTES] __attribute__((aligned(16)));
 *   dgmm_handle h = dgmm_load_image(module, module_size, arena, sizeof arena); // NULL on failure
 *   if (!h) puts(dgmm_last_error());
 *   dgmm_bind_input(h, "A", 0x80100000u);          // physical addresses
 *   dgmm_bind_input(h, "B", 0x80200000u);
 *   dgmm_bind_output(h, "C", 0x80300000u);
 *   dgmm_launch(h);
 *   dgmm_status s = dgmm_wait(dgmm_sync(h));
 *
 * The module stays in the caller's memory and must not change while the handle lives; every
 * byte of it is validated by dgmm_load_image (magic, ABI, target kind, section bounds, CRCs, then
 * the plan). All state of a handle lives in the caller's arena (dgmm_arena_size says how much is
 * needed); the runtime keeps one more static object, the last error. Single-threaded: boards call
 * the API from one context only.
 *
 * Element types. A and B are int4, int8, int16, int32, or a custom width sN / uN with
 * 2 <= N <= 16. In memory a custom-width element other than 4 bits occupies its container, 1 byte
 * when N <= 8, else 2 (little-endian), and its value is the low N bits of the container,
 * sign-extended (sN) or zero-extended (uN): the bits above are ignored. int8 and int16 are s8 and
 * s16. 4-bit elements (int4 and s4, signed; u4, unsigned) are packed two per byte along the
 * operand's leading dimension: the element of linear index idx = row * ld + col (row-major;
 * col * ld + row column-major) is in byte idx / 2 of the buffer, in its low nibble (bits 3:0) when
 * idx is even, its high nibble (bits 7:4) when odd, sign-extended (int4, s4) or zero-extended (u4).
 * Such an operand takes ceil(elements / 2) bytes, and its leading dimension must be even, so that
 * each row or column starts on a byte: an odd lda or ldb is refused at load
 * (DGMM_ERROR_UNSUPPORTED), and where the leading dimension is the run-time K (below), dgmm_set_k
 * refuses an odd K. dgmm_operand gives the container (element_bits: 4 for a packed nibble) and the
 * value (value_bits, is_signed). The accumulator is int32 or int64; C is int32 or int64, at least
 * as wide as the accumulator (C int32 with an int64 accumulator is rejected at load).
 *
 * Batches. A plan's "batch" B (1 when absent) multiplies B pairs of packed matrices: each operand
 * holds B matrices, matrix b starting b × (rows × ld) elements after the bound address (columns ×
 * ld for a column-major one), so that a batch is one taller matrix of B × rows rows;
 * dgmm_operand_info's bytes span all of them. dgmm_set_batch chooses how many of them (1 to B) a
 * launch multiplies, and dgmm_set_batch_stride another distance between an operand's matrices
 * (in elements; 0 for an input that is the same matrix throughout, such as shared weights). A launch on the NPU runs
 * all of them with one START when the design has the BATCH and stride registers and every matrix stride fits them (32
 * bits); else the runtime runs the design once per matrix, in order, each run started when the previous one is DONE.
 * dgmm_npu_cycles gives the CYCLES of all of them. The reference executor runs the matrices in the same order.
 *
 * K at run time. A plan may leave K to run time within [K_min, K_max] (plan fields "k_dynamic",
 * "K_min", "K_max"; "K" holds K_max). A handle starts at K = K_max; dgmm_set_k chooses the K of
 * the following launches. The operands follow the current K: A is M x K, B is K x N; the rows of
 * a row-major A (and the columns of a column-major B) are packed, so that their leading dimension
 * is the current K (the plan gives it as K_max), as the generated NPU reads them; the other
 * leading dimensions are the plan's. dgmm_problem and dgmm_operand_info report the current K and
 * the extents that follow from it; the buffer bound to an operand must hold the bytes reported for
 * the K of each launch. A fixed-K plan has K_min == K_max == K.
 *
 * M and N at run time. A plan may leave M to run time within [M_min, M_max] (plan fields
 * "m_dynamic", "M_min"; "M" holds M_max), and N within [N_min, N_max] ("n_dynamic", "N_min",
 * "n_align"; "N" holds N_max), as an NPU design's M and N registers take them. A handle starts at
 * the largest; dgmm_set_m and dgmm_set_n choose the M and N of the following launches. A is M x K,
 * B is K x N and C is M x N: the rows of a row-major B or C are packed, so that their leading
 * dimension is the current N (the plan gives it as N_max); the other leading dimensions are the
 * plan's (the columns of a column-major A or C keep the plan's stride) or dgmm_set_ld's.
 * dgmm_problem and dgmm_operand_info report the current M and N and the extents that follow from
 * them. A fixed plan has M_min == M_max == M and N_min == N_max == N.
 *
 * A column-major C. The NPU writes C by rows; a plan for a column-major C (with a column-major B,
 * and A either way) is the transpose's, C^T = B^T x A^T (plan field "operands_swapped": its "A"
 * is the spec's B, N x K row-major as that column-major B lies in memory; its "B" the spec's A, in
 * the other layout; its "M" and "N" the spec's N and M). The API speaks the spec's names throughout: "A" binds the
 * spec's A, dgmm_set_m sets the spec's M, dgmm_problem, dgmm_m_range, dgmm_n_range and
 * dgmm_operand_info report the spec's M, N, tiles and layouts, and errors name the spec's
 * operands. The NPU registers (M, N, LDA, LDB, ...) take the plan's: the runtime programs them.
 * With a run-time M, the columns of such a C are packed at the current M (they are the rows of
 * the plan's C^T at its N), as are the columns of a column-major A.
 *
 * Leading dimensions at run time. dgmm_set_ld(handle, "A", lda) (and "B", "C") makes an operand a
 * sub-matrix of a larger array: its rows (row-major) start ld elements apart, as BLAS's lda; 0
 * returns to the plan's (packed, for a K-range operand along K: the current K). The buffer then
 * spans (rows - 1) x ld + cols elements (dgmm_operand_info's bytes); the elements between rows are
 * neither read nor, for C, written. An ld set on a K-range operand along K stays fixed: dgmm_set_k
 * then refuses a K above it. On the NPU engine the design moves whole bus beats (whole bytes where
 * it moves byte rows), so ld x element_bits / 8 must be a multiple of the bus beat (of a byte; the
 * module's register table records which), and an operand must span at most 4 GiB; the NPU's LDA, LDB and LDC registers
 * take the leading dimensions in bytes (written at each launch).
 *
 * Execution engines. Each handle runs its launches on one of two engines, chosen explicitly with
 * dgmm_set_engine; a new handle uses the reference executor.
 *
 * DGMM_ENGINE_REFERENCE (default) runs the plan's tile loop nest (tile_m x tile_n blocks, K in
 * steps of tile_k) in software on the bound memory, and completes before dgmm_launch returns.
 * int32 accumulation is computed exactly and checked: an overflow is reported as
 * DGMM_ERROR_LAUNCH, never wrapped silently. Each operand may be row- or column-major with the
 * plan's leading dimension.
 *
 * DGMM_ENGINE_NPU programs the NPU generated for the plan, through the module's register table
 * (npu_regmap section, <deepgemm/npu_regmap.h>: registers by name, offsets from the table's MMIO
 * base) and port_mmio_write32/read32. Only modules compiled for an NPU with Verilog carry the
 * table; for any other, dgmm_set_engine(h, DGMM_ENGINE_NPU) is refused with DGMM_ERROR_UNSUPPORTED
 * (so is a table without the registers below, or an MMIO base the board cannot address). A launch
 * reads ID and compares it with the table's design ID (a mismatch is DGMM_ERROR_TARGET_MISMATCH:
 * the hardware was built from another plan; nothing is written), checks that STATUS is not BUSY,
 * writes A_BASE, B_BASE, C_BASE and A_BASE_HI, B_BASE_HI, C_BASE_HI (the low and high 32 bits of
 * the bound physical addresses), M, N (the plan's) and K (the current K), then CTRL = 1 (START),
 * and returns without waiting. Every operand must lie below 2^bits of the design's bus address
 * width (the table's; the model's npu.bus_addr_bits, 32 by default): an address that does not is
 * refused with DGMM_ERROR_INVALID_ARGUMENT by dgmm_bind_* on the NPU engine, by
 * dgmm_set_engine(h, DGMM_ENGINE_NPU) for an operand already bound, and by the launch (the extents
 * follow K). dgmm_wait polls STATUS
 * (port_wait_irq between polls) until DONE or ERROR; ERROR becomes DGMM_ERROR_LAUNCH with a
 * dgmm_last_error message naming the ERROR register's code (1 M, 2 N, 3 K outside its range, 4 base not beat-aligned, 5
 * row not whole beats, 6 to 8 bus errors, 9 base or extent beyond the bus's address width, 10 a leading dimension the
 * design cannot take, 11 BATCH outside 1 to the plan's batch; the full list is npu_regs.h's kErrorCodes).
 * dgmm_npu_cycles gives the CYCLES register of the last completed run. The data the NPU reads and writes is its own
 * business: the runtime touches no operand memory on this engine.
 *
 * dgmm_wait polls completion through the port layer (port.h) on either engine.
 */
#ifndef DEEPGEMM_BAREMETAL_H
#define DEEPGEMM_BAREMETAL_H

#include <stddef.h>
#include <stdint.h>

#include <deepgemm/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A loaded module: its plan, bindings and state, stored in the caller's arena. */
typedef struct dgmm_kernel* dgmm_handle;

/** A point in a handle's work, returned by dgmm_sync (by value: no allocation) and consumed by
 *  dgmm_wait. A failed dgmm_sync returns a fence whose handle is NULL. */
typedef struct {
  dgmm_handle handle;
  uint32_t sequence;
} dgmm_fence;

/** Status codes; the first twelve have the same names and values as in the CUDA runtime. */
/* dgmm_status: the codes shared by every runtime (deepgemm/status.h). */

/** The engine a handle's launches run on (see "Execution engines" above). */
typedef enum {
  DGMM_ENGINE_REFERENCE = 0, /* the software reference executor (default) */
  DGMM_ENGINE_NPU = 1        /* the NPU, programmed through the module's register table */
} dgmm_engine;

/** Arena alignment the runtime needs (the arena pointer is aligned up if it is not). */
#define DGMM_ARENA_ALIGN 16u

/* ---- Modules --------------------------------------------------------------------------------- */

/** Validates the module image at `module` (`size` bytes) and its plan, and creates a handle in
 *  `arena`. Returns NULL on failure (see dgmm_last_error): DGMM_ERROR_BAD_MODULE,
 *  DGMM_ERROR_ABI_MISMATCH, DGMM_ERROR_TARGET_MISMATCH, DGMM_ERROR_UNSUPPORTED,
 *  DGMM_ERROR_OUT_OF_MEMORY or DGMM_ERROR_INVALID_ARGUMENT. */
dgmm_handle dgmm_load_image(const void* module, size_t size, void* arena, size_t arena_size);

/** Arena bytes dgmm_load_image needs for this module (including alignment slack), or 0 when the
 *  module is not loadable (see dgmm_last_error). */
size_t dgmm_arena_size(const void* module, size_t size);

/** Invalidates the handle; its arena may then be reused. NULL is ignored. */
void dgmm_unload(dgmm_handle handle);

/* ---- Binding and launching ------------------------------------------------------------------- */

/** Binds input operand `name` ("A" or "B") to the physical address of its data: 64 bits, as the
 *  NPU's bus may be wider than the CPU's pointers (the reference executor refuses at launch an
 *  operand its pointers cannot reach). The address must be non-zero and aligned to the element
 *  container (dgmm_operand.element_bits / 8 bytes; any address for 4-bit elements, which start at
 *  the low nibble of the first byte); on the NPU engine the operand must fit the design's bus
 *  address width. */
dgmm_status dgmm_bind_input(dgmm_handle handle, const char* name, uint64_t physical_address);
/** Binds output operand `name` ("C"). */
dgmm_status dgmm_bind_output(dgmm_handle handle, const char* name, uint64_t physical_address);

/** Chooses the engine of the following launches. DGMM_ERROR_UNSUPPORTED for DGMM_ENGINE_NPU when
 *  the module has no usable register table; DGMM_ERROR_INVALID_STATE while a launch runs;
 *  DGMM_ERROR_INVALID_ARGUMENT for an unknown engine. On failure the engine stays as it was. */
dgmm_status dgmm_set_engine(dgmm_handle handle, dgmm_engine engine);

/** Trust only modules signed by this Ed25519 public key (32 bytes; NULL trusts any module again):
 *  from then on dgmm_arena_size and dgmm_load_image refuse a module that is unsigned, signed by
 *  another key or altered after signing, with DGMM_ERROR_UNTRUSTED. The verifier is freestanding
 *  and heap-free (RFC 8032); a runtime built with DG_BM_SIGNATURES=0 leaves it out and answers
 *  DGMM_ERROR_UNSUPPORTED. */
dgmm_status dgmm_trust_key(const uint8_t* public_key);

/** Sets the K of the following launches (see "K at run time" above): DGMM_ERROR_INVALID_ARGUMENT,
 *  with a message naming the plan's range, when k is outside [K_min, K_max] (for a fixed-K plan
 *  only k == K is accepted), when k is odd and the rows of a 4-bit A or the columns of a 4-bit B
 *  are packed along K (see "Element types"), when k is above a leading dimension dgmm_set_ld set
 *  on an operand along K, or when an operand already bound would wrap around the address space at
 *  that K; DGMM_ERROR_INVALID_STATE while a launch runs. Bindings stay; on
 *  failure K stays as it was. */
dgmm_status dgmm_set_k(dgmm_handle handle, uint32_t k);

/** Sets the M of the following launches (see "M and N at run time" above):
 *  DGMM_ERROR_INVALID_ARGUMENT, with a message naming the plan's range, when m is outside
 *  [M_min, M_max] (for a fixed-M plan only m == M is accepted), not a multiple of the plan's
 *  m_align (the NPU's DMA moves a column-major A's columns of M elements in whole bus beats, or
 *  bytes), odd where a 4-bit column-major A's columns are packed, above a leading dimension
 *  dgmm_set_ld set on a column-major A, or when an operand already bound would wrap around the
 *  address space at that M; DGMM_ERROR_INVALID_STATE while a launch runs. (With a column-major C,
 *  dgmm_set_n refuses the same of a row-major B's rows of N.) Bindings stay; on failure M stays as
 *  it was. */
dgmm_status dgmm_set_m(dgmm_handle handle, uint32_t m);

/** Sets the N of the following launches (see "M and N at run time" above):
 *  DGMM_ERROR_INVALID_ARGUMENT, with a message naming the plan's range, when n is outside
 *  [N_min, N_max] (for a fixed-N plan only n == N is accepted), not a multiple of the plan's
 *  n_align (the NPU's DMA moves rows of N elements, C's and a row-major B's, in whole bus beats,
 *  or bytes), odd where a 4-bit B's rows are packed, above a leading dimension dgmm_set_ld set on
 *  a row-major B or C, or when an operand already bound would wrap around the address space at that N;
 *  DGMM_ERROR_INVALID_STATE while a launch runs. On failure N stays as it was. */
dgmm_status dgmm_set_n(dgmm_handle handle, uint32_t n);

/** Sets the leading dimension of operand `name` ("A", "B" or "C"), in elements, for the following
 *  launches (see "Leading dimensions at run time" above); 0 returns to the plan's.
 *  DGMM_ERROR_INVALID_ARGUMENT, with a message naming the operand and the rule, when ld is smaller
 *  than a row (or column) at the current K, odd for 4-bit elements, not a whole number of the NPU's
 *  bus beats or spanning more than 4 GiB (on the NPU engine; dgmm_set_engine checks them again
 *  when it chooses the NPU), when the module's NPU design has no leading-dimension registers and
 *  ld is not the packed one (NPU engine), or when the operand, already bound, would wrap around the
 *  address space or pass the NPU bus's reach; DGMM_ERROR_INVALID_STATE while a launch runs. On
 *  failure ld stays as it was. */
dgmm_status dgmm_set_ld(dgmm_handle handle, const char* name, uint32_t ld);

/** Sets how many matrices of the batch the following launches multiply: 1 to the plan's batch
 *  (see "Batches" above; a handle starts at the plan's). DGMM_ERROR_INVALID_ARGUMENT outside that
 *  range, or where an operand already bound would wrap around the address space or the output's
 *  matrices overlap (dgmm_set_batch_stride); DGMM_ERROR_INVALID_STATE while a launch runs. On
 *  failure the count stays as it was. */
dgmm_status dgmm_set_batch(dgmm_handle handle, uint32_t count);

/** dgmm_set_batch_stride's stride that returns an operand to the plan's packed matrices. */
#define DGMM_STRIDE_PACKED UINT64_MAX

/** Sets the distance, in elements, from one matrix of operand `name` ("A", "B" or "C") to the next
 *  in a batch, for the following launches (see "Batches" above): matrix b starts b x stride
 *  elements after the bound address. 0 gives every matrix of an input the same one (weights
 *  shared across the batch); DGMM_STRIDE_PACKED returns to the plan's matrices one after the
 *  other. DGMM_ERROR_INVALID_ARGUMENT, naming the operand and the rule, when the stride is odd for
 *  4-bit elements, 2^59 elements or more, below one matrix's extent for C (its matrices would
 *  overlap), not whole bus beats on the NPU engine (a launch on the NPU checks it again), or when the operand, already
 * bound, would wrap around the address space; DGMM_ERROR_INVALID_STATE while a launch runs. On failure the stride stays
 * as it was. */
dgmm_status dgmm_set_batch_stride(dgmm_handle handle, const char* name, uint64_t stride);

/** The plan's M range (M_min == M_max == M for a fixed-M plan); either pointer may be NULL. */
dgmm_status dgmm_m_range(dgmm_handle handle, uint32_t* m_min, uint32_t* m_max);

/** The plan's N range (N_min == N_max == N for a fixed-N plan); either pointer may be NULL. */
dgmm_status dgmm_n_range(dgmm_handle handle, uint32_t* n_min, uint32_t* n_max);

/** The plan's K range (K_min == K_max == K for a fixed-K plan); either pointer may be NULL. */
dgmm_status dgmm_k_range(dgmm_handle handle, uint32_t* k_min, uint32_t* k_max);

/** Starts the GEMM. Every operand must be bound (else DGMM_ERROR_UNBOUND_OPERAND, naming it, and
 *  nothing runs). The reference executor completes before this returns; a failure while running
 *  is reported both here and by the dgmm_wait of the next fence. On the NPU engine it returns once
 *  START is written (a refusal by the NPU's checks is reported by dgmm_wait); an ID mismatch, a
 *  busy NPU or an operand above 4 GiB fails here, before any register is written. */
dgmm_status dgmm_launch(dgmm_handle handle);

/** A fence after the last launch. Non-blocking. DGMM_ERROR_INVALID_STATE before any launch. */
dgmm_fence dgmm_sync(dgmm_handle handle);
/** Waits (polling through the port layer) until the work before the fence is done; returns the
 *  result of that work. */
dgmm_status dgmm_wait(dgmm_fence fence);
/** dgmm_wait with a limit in port_now() ticks (0: none); DGMM_ERROR_TIMEOUT when it runs out (the
 *  launch keeps running: a later wait may still see it end). */
dgmm_status dgmm_wait_timeout(dgmm_fence fence, uint64_t timeout_ticks);

/** The NPU's CYCLES register at the end of the last launch, when it ran on the NPU and completed
 *  (else DGMM_ERROR_INVALID_STATE). */
dgmm_status dgmm_npu_cycles(dgmm_handle handle, uint64_t* cycles);

/* ---- Errors ---------------------------------------------------------------------------------- */

/** The message of the most recent failed call ("" if none). Never NULL. */
const char* dgmm_last_error(void);
/** The status of the most recent failed call (DGMM_OK if none). */
dgmm_status dgmm_last_error_code(void);
/** "DGMM_OK", "DGMM_ERROR_BAD_MODULE", ...; "DGMM_ERROR_UNKNOWN" for values outside the enum. */
const char* dgmm_status_string(dgmm_status status);

/* ---- Introspection --------------------------------------------------------------------------- */

/** One operand at the current K. */
typedef struct {
  uint32_t rows, cols;   /* A: M x K, B: K x N, C: M x N */
  uint32_t ld;           /* leading dimension in elements (the plan's, or dgmm_set_ld's) */
  uint32_t element_bits; /* the container in memory: 4 (a nibble, two per byte), 8, 16, 32 or 64 */
  uint32_t row_major;    /* 1 row-major, 0 column-major */
  uint32_t is_output;    /* 1 for C */
  size_t bytes;          /* bytes the bound memory must hold */
  uint32_t value_bits;   /* bits of the value: N of sN / uN, else element_bits */
  uint32_t is_signed;    /* 1 sign-extended (int*, sN), 0 zero-extended (uN) */
} dgmm_operand;

/** Describes operand `name` ("A", "B" or "C"; "bias" and "rq" where the plan's fused epilogue has
 *  them: 1 x N, bias one int32 per column (element_bits 32, signed), rq one 8-byte record per
 *  column (element_bits 64: the int32 multiplier, the shift in byte 4, the int16 zero point in
 *  bytes 6-7), bytes N x 4 and N x 8). */
dgmm_status dgmm_operand_info(dgmm_handle handle, const char* name, dgmm_operand* out);

/** The problem (K: the current K) and the tile shape of the plan; any output pointer may be NULL. */
dgmm_status dgmm_problem(dgmm_handle handle, uint32_t* m, uint32_t* n, uint32_t* k, uint32_t* tile_m, uint32_t* tile_n,
                         uint32_t* tile_k);

#ifdef __cplusplus
}
#endif

#endif /* DEEPGEMM_BAREMETAL_H */
