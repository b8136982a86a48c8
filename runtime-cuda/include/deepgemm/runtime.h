/* The DeepGEMM runtime C API (SPEC.md section 4), hosted implementation for NVIDIA GPUs.
 *
 * A module (.ko) produced by `deepgemm compile` holds one GEMM kernel. The runtime loads it, binds
 * host (or device) buffers to the operands the module declares ("A", "B", "C"), and launches it:
 *
 *   dgmm_handle h = dgmm_load_kernel("matmul.ko");          // NULL on failure
 *   if (!h) fprintf(stderr, "%s\n", dgmm_last_error());
 *   void* A = dgmm_alloc_host(bytes);                        // page-locked
 *   dgmm_bind_input(h, "A", A); dgmm_bind_input(h, "B", B);
 *   dgmm_bind_output(h, "C", C);
 *   dgmm_launch(h);                                          // asynchronous
 *   dgmm_fence f = dgmm_sync(h);                             // non-blocking
 *   dgmm_wait(f);                                            // blocks, frees the fence
 *
 * Errors. Every function reports failure through its return value (a status, or NULL) and records
 * a precise English message and the status for the calling thread: dgmm_last_error() and
 * dgmm_last_error_code() describe the most recent failed call on this thread; calls that succeed
 * leave them unchanged. No function crashes on a NULL argument.
 *
 * Threads. The runtime is thread-safe in the usual sense: different handles may be used from
 * different threads at the same time; one handle must be used by one thread at a time.
 *
 * Memory. Device memory for each operand is allocated on the first dgmm_launch, sized from the
 * module's launch record, and freed with the handle. Host buffers bound to a handle must stay valid
 * until the work that reads or writes them has been waited for. Buffers from dgmm_alloc_host are
 * page-locked, which makes the copies faster and truly asynchronous; ordinary memory works too.
 *
 * This header is C99 and C++ compatible. The CUDA driver (libcuda.so.1) is loaded at run time; a
 * program linked with the runtime starts and reports DGMM_ERROR_NO_DEVICE cleanly on a machine
 * without an NVIDIA GPU or driver.
 */
#ifndef DEEPGEMM_RUNTIME_H
#define DEEPGEMM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include <deepgemm/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A loaded kernel: its module, device code, stream and operand bindings. */
typedef struct dgmm_kernel* dgmm_handle;
/** A point in a handle's stream, returned by dgmm_sync and consumed by dgmm_wait. */
typedef struct dgmm_fence_s* dgmm_fence;

/* dgmm_status: the codes shared by every runtime (deepgemm/status.h). */

/* ---- Modules --------------------------------------------------------------------------------- */

/** Loads the module at `path`, validates it, initializes the GPU and prepares the kernel.
 *  Returns NULL on failure (see dgmm_last_error). */
dgmm_handle dgmm_load_kernel(const char* path);

/** Same as dgmm_load_kernel for a module already in memory; the bytes are copied, so the caller
 *  may free them once this returns. */
dgmm_handle dgmm_load_kernel_from_memory(const void* data, size_t size);

/** Waits for the handle's outstanding work, then frees its device memory, stream and module.
 *  NULL is ignored. */
void dgmm_unload_kernel(dgmm_handle handle);

/* ---- Host memory ----------------------------------------------------------------------------- */

/** Page-locked host memory (cuMemAllocHost). NULL on failure, including bytes == 0. */
void* dgmm_alloc_host(size_t bytes);
/** Frees memory from dgmm_alloc_host. NULL is ignored. */
void dgmm_free_host(void* ptr);

/* ---- Binding and launching ------------------------------------------------------------------- */

/** Binds host memory holding input operand `name` (as many bytes as dgmm_operand_info says). */
dgmm_status dgmm_bind_input(dgmm_handle handle, const char* name, const void* host_ptr);
/** Binds host memory that receives output operand `name`. */
dgmm_status dgmm_bind_output(dgmm_handle handle, const char* name, void* host_ptr);

/** Plain int4 weights' orders for dgmm_pack_weights: two's-complement nibbles, two per byte, low
 *  nibble first; element (k, n) at k*N + n (K_BY_N) or n*K + k (N_BY_K). */
#define DGMM_WEIGHTS_K_BY_N 0
#define DGMM_WEIGHTS_N_BY_K 1

/** Packs plain int4 weights `plain` (K*N/2 bytes, rounded up, in `order`) into `packed`
 *  (`packed_bytes`, at least what dgmm_operand_info says operand `name` holds) in the layout the
 *  module's operand `name` (its B) reads, header included; host memory, nothing is enqueued. Bind
 *  the result with dgmm_bind_input (or copy it to a device buffer for dgmm_bind_device): both
 *  refuse weights packed for another layout, K or N with DGMM_ERROR_INVALID_ARGUMENT
 *  (dgmm_bind_device reads a device buffer's header back once per handle and buffer: rewrite a
 *  bound buffer with weights of this module only). */
dgmm_status dgmm_pack_weights(dgmm_handle handle, const char* name, const void* plain, int order, void* packed,
                              size_t packed_bytes);

/** Chooses the K of the next launches for a module compiled with a K range (K_min/K_max in the
 *  spec): k must lie in the range and be a multiple of the module's K alignment (else
 *  DGMM_ERROR_INVALID_ARGUMENT, with the range or the alignment in the message). A handle starts
 *  at the range's largest K. A and B then hold M×k and k×N elements, packed at k where their rows
 *  run along K (dgmm_operand_info says how many bytes); device buffers are sized for the largest
 *  K, so k may change between launches without rebinding. For a fixed-K module only its K is
 *  accepted. */
dgmm_status dgmm_set_k(dgmm_handle handle, uint32_t k);

/** Enqueues, on the handle's stream: copies of the host-bound inputs to the device, the kernel,
 *  and copies of the host-bound outputs back. Returns at once; every declared operand must be
 *  bound (else DGMM_ERROR_UNBOUND_OPERAND, naming it, and nothing is enqueued). */
dgmm_status dgmm_launch(dgmm_handle handle);

/** Records the current end of the handle's stream. Non-blocking; NULL on failure. */
dgmm_fence dgmm_sync(dgmm_handle handle);
/** Blocks until the work before the fence has finished, then frees the fence (also on failure).
 *  A kernel or copy that failed while running is reported here as DGMM_ERROR_LAUNCH. */
dgmm_status dgmm_wait(dgmm_fence fence);

/* ---- Errors ---------------------------------------------------------------------------------- */

/** The message of the most recent failed call on this thread ("" if none). The pointer stays
 *  valid until the next failing call on this thread. Never NULL. */
const char* dgmm_last_error(void);
/** The status of the most recent failed call on this thread (DGMM_OK if none). */
dgmm_status dgmm_last_error_code(void);
/** "DGMM_OK", "DGMM_ERROR_IO", ...; "DGMM_ERROR_UNKNOWN" for values outside the enum. */
const char* dgmm_status_string(dgmm_status status);

/** Trust only modules signed by this Ed25519 public key (32 bytes, as in the .pub file of
 *  `deepgemm keygen`; NULL trusts any module again). From then on dgmm_load_kernel and
 *  dgmm_load_kernel_image refuse, with DGMM_ERROR_UNTRUSTED, a module that is unsigned, signed by
 *  another key or altered after signing. Process-wide. */
dgmm_status dgmm_trust_key(const unsigned char* public_key);

/* ---- Introspection, for tests and benchmarks ------------------------------------------------- */

/** Size in bytes and element width in bits of operand `name`; either output pointer may be NULL. */
dgmm_status dgmm_operand_info(dgmm_handle handle, const char* name, size_t* bytes, int* element_bits);

/** Bytes of the global workspace the kernel needs besides its operands (0 for most; a split-K
 *  kernel keeps per-tile counters and partial sums there). */
dgmm_status dgmm_workspace_bytes(dgmm_handle handle, size_t* bytes);

/** One line saying what was loaded: kernel, code path (cubin or PTX JIT), device, launch shape.
 *  Valid while the handle lives; "" for NULL. */
const char* dgmm_kernel_description(dgmm_handle handle);

/* ---- Device-side access, for benchmarks ------------------------------------------------------ */

/** Uses the caller's device buffer (a CUdeviceptr in the runtime's CUDA context, i.e. the device's
 *  primary context, which the CUDA runtime API shares) for operand `name`, input or output. The
 *  buffer must hold at least the operand's bytes and start on a 16-byte boundary (else
 *  DGMM_ERROR_INVALID_ARGUMENT); dgmm_launch copies nothing for this operand. */
dgmm_status dgmm_bind_device(dgmm_handle handle, const char* name, unsigned long long device_ptr);

/** Uses the caller's device buffer as the kernel's workspace (dgmm_workspace_bytes bytes, 16-byte
 *  aligned) instead of the one the runtime allocates and zeroes at the first launch. The caller
 *  zeroes it before the first launch on it (e.g. cuMemsetD8); kernels leave it so, so launches in
 *  one stream may share it, but launches that may run at the same time (other streams, other
 *  handles) need one each. 0 gives the workspace back to the runtime. A kernel without a
 *  workspace refuses it with DGMM_ERROR_INVALID_ARGUMENT. */
dgmm_status dgmm_bind_workspace(dgmm_handle handle, unsigned long long device_ptr);

/** Enqueues only the kernel, no copies. Each operand must be bound with dgmm_bind_device, or be
 *  resident: bound to host memory and already copied by an earlier dgmm_launch. */
dgmm_status dgmm_launch_kernel_only(dgmm_handle handle);

/** The handle's CUDA stream (a CUstream, usable as a cudaStream_t), for timing with CUDA events.
 *  It is an ordinary (blocking) stream: its work waits for earlier work on the legacy default
 *  stream, such as a plain cudaMemcpy into a buffer later bound with dgmm_bind_device. NULL for a
 *  NULL handle. */
void* dgmm_stream(dgmm_handle handle);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DEEPGEMM_RUNTIME_H */
