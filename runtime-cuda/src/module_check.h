// Everything the CUDA runtime checks about a module before it touches the driver, so that a bad
// or foreign module is reported the same way on machines with and without a GPU.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <string_view>
#include <vector>

#include "deepgemm/launch_format.h"
#include "deepgemm/runtime.h"

namespace dg::rt {

/// What a GPU module holds for the runtime, copied out of the module image.
struct CheckedModule {
  std::string target_name;      // "hopper"
  ko::launch::Launch launch{};  // the validated LAUNCH record
  std::string ptx;              // PTX text; c_str() is the NUL-terminated image for the JIT
  std::vector<uint8_t> cubin;   // the CUBIN section, empty when the module has none
};

/// Validates `size` bytes at `data` as a GPU module: the container (dg::ko::parse), target kind
/// GPU, a LAUNCH record this runtime reads (unique, well-formed operand names), a PTX section of
/// NUL-free text, and, when present, a CUBIN section that is a self-contained ELF64 CUDA image (the
/// driver reads it without being told its size). `source` names the module in messages
/// ("'matmul.ko'"). On failure records the error (see last_error.h) and returns its status:
/// DGMM_ERROR_BAD_MODULE, DGMM_ERROR_ABI_MISMATCH or DGMM_ERROR_TARGET_MISMATCH.
dgmm_status check_module(const uint8_t* data, size_t size, std::string_view source, CheckedModule* out);

/// The key set by dgmm_trust_key (a thread's copy), or null: check_module then refuses modules
/// not signed by it with DGMM_ERROR_UNTRUSTED.
void set_trusted_key(const uint8_t* key);
const uint8_t* trusted_key();

}  // namespace dg::rt
