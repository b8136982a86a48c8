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
 * Execution engine. A module carries the solved plan; this runtime executes it with the reference
 * executor, which runs the plan's tile loop nest (tile_m x tile_n blocks, K in steps of tile_k) in
 * software on the bound memory. Supported element types: A and B int8, int16 or int32; accumulator
 * int32 or int64 (int32 accumulation is computed exactly and checked: an overflow is reported as
 * DGMM_ERROR_LAUNCH, never wrapped silently); C int32 or int64 (at least as wide as needed to hold
 * the accumulator: C int32 with an int64 accumulator is rejected at load). Each operand may be row-
 * or column-major with the plan's leading dimension. batch must be 1. Modules that carry an NPU
 * register table are executed in software as well; programming the NPU through the port layer is
 * not implemented yet. dgmm_wait polls completion through the port layer (port.h).
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

/** Binds input operand `name` ("A" or "B") to the physical address of its data. The address must
 *  be non-zero and aligned to the element size. */
dgmm_status dgmm_bind_input(dgmm_handle handle, const char* name, uintptr_t physical_address);
/** Binds output operand `name` ("C"). */
dgmm_status dgmm_bind_output(dgmm_handle handle, const char* name, uintptr_t physical_address);

/** Starts the GEMM. Every operand must be bound (else DGMM_ERROR_UNBOUND_OPERAND, naming it, and
 *  nothing runs). The reference executor completes before this returns; a failure while running
 *  is reported both here and by the dgmm_wait of the next fence. */
dgmm_status dgmm_launch(dgmm_handle handle);

/** A fence after the last launch. Non-blocking. DGMM_ERROR_INVALID_STATE before any launch. */
dgmm_fence dgmm_sync(dgmm_handle handle);
/** Waits (polling through the port layer) until the work before the fence is done; returns the
 *  result of that work. */
dgmm_status dgmm_wait(dgmm_fence fence);
/** dgmm_wait with a limit in port_now() ticks; DGMM_ERROR_TIMEOUT when it runs out. */
dgmm_status dgmm_wait_timeout(dgmm_fence fence, uint64_t timeout_ticks);

/* ---- Errors ---------------------------------------------------------------------------------- */

/** The message of the most recent failed call ("" if none). Never NULL. */
const char* dgmm_last_error(void);
/** The status of the most recent failed call (DGMM_OK if none). */
dgmm_status dgmm_last_error_code(void);
/** "DGMM_OK", "DGMM_ERROR_BAD_MODULE", ...; "DGMM_ERROR_UNKNOWN" for values outside the enum. */
const char* dgmm_status_string(dgmm_status status);

/* ---- Introspection --------------------------------------------------------------------------- */

/** What the plan says about one operand. */
typedef struct {
  uint32_t rows, cols;     /* A: M x K, B: K x N, C: M x N */
  uint32_t ld;             /* leading dimension in elements */
  uint32_t element_bits;   /* 8, 16, 32 or 64 */
  uint32_t row_major;      /* 1 row-major, 0 column-major */
  uint32_t is_output;      /* 1 for C */
  size_t bytes;            /* bytes the bound memory must hold */
} dgmm_operand;

/** Describes operand `name` ("A", "B" or "C"). */
dgmm_status dgmm_operand_info(dgmm_handle handle, const char* name, dgmm_operand* out);

/** The problem and the tile shape of the plan; any output pointer may be NULL. */
dgmm_status dgmm_problem(dgmm_handle handle, uint32_t* m, uint32_t* n, uint32_t* k,
                         uint32_t* tile_m, uint32_t* tile_n, uint32_t* tile_k);

#ifdef __cplusplus
}
#endif

#endif /* DEEPGEMM_BAREMETAL_H */
