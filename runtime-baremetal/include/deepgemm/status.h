/* Status codes of the dgmm_* API, shared by every runtime (CUDA hosted, bare-metal boards) so
 * that a code means the same everywhere. Freestanding C99 / C++: no library needed. */
#ifndef DEEPGEMM_STATUS_H
#define DEEPGEMM_STATUS_H

typedef enum {
  DGMM_OK = 0,
  DGMM_ERROR_INVALID_ARGUMENT = 1, /* NULL or out-of-range argument, unknown operand name, wrong role */
  DGMM_ERROR_INVALID_STATE = 2,    /* the call does not fit the handle's state, or a bad handle */
  DGMM_ERROR_IO = 3,               /* the module file cannot be read (hosted runtimes) */
  DGMM_ERROR_BAD_MODULE = 4,       /* not a valid module: format, checksums, missing sections, plan */
  DGMM_ERROR_ABI_MISMATCH = 5,     /* a module (or launch record) version this runtime cannot read */
  DGMM_ERROR_TARGET_MISMATCH = 6,  /* a module for another target (NPU vs GPU, newer GPU, limits) */
  DGMM_ERROR_NO_DEVICE = 7,        /* no CUDA driver or no NVIDIA GPU */
  DGMM_ERROR_UNBOUND_OPERAND = 8,  /* launching with a declared operand not bound */
  DGMM_ERROR_OUT_OF_MEMORY = 9,    /* device, page-locked or host allocation failed; arena too small */
  DGMM_ERROR_LAUNCH = 10,          /* the kernel failed to launch or failed while running */
  DGMM_ERROR_DRIVER = 11,          /* any other CUDA driver failure (message has the driver's words) */
  DGMM_ERROR_UNSUPPORTED = 12,     /* a valid plan this runtime cannot execute (bare metal) */
  DGMM_ERROR_TIMEOUT = 13,         /* a bounded wait ran out of time (bare metal) */
  DGMM_ERROR_UNTRUSTED = 14        /* a trusted key is set and the module is unsigned, signed by
                                      another key, or altered after signing */
} dgmm_status;

/* The enumerator's name, or "DGMM_ERROR_UNKNOWN" for any other value. */
static inline const char* dgmm_status_name(int status) {
  static const char* const names[] = {"DGMM_OK",
                                      "DGMM_ERROR_INVALID_ARGUMENT",
                                      "DGMM_ERROR_INVALID_STATE",
                                      "DGMM_ERROR_IO",
                                      "DGMM_ERROR_BAD_MODULE",
                                      "DGMM_ERROR_ABI_MISMATCH",
                                      "DGMM_ERROR_TARGET_MISMATCH",
                                      "DGMM_ERROR_NO_DEVICE",
                                      "DGMM_ERROR_UNBOUND_OPERAND",
                                      "DGMM_ERROR_OUT_OF_MEMORY",
                                      "DGMM_ERROR_LAUNCH",
                                      "DGMM_ERROR_DRIVER",
                                      "DGMM_ERROR_UNSUPPORTED",
                                      "DGMM_ERROR_TIMEOUT",
                                      "DGMM_ERROR_UNTRUSTED"};
  return status >= 0 && status < (int)(sizeof names / sizeof names[0]) ? names[status] : "DGMM_ERROR_UNKNOWN";
}

#endif /* DEEPGEMM_STATUS_H */
