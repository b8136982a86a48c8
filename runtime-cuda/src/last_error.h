// The per-thread error state behind dgmm_last_error() and dgmm_last_error_code().
#pragma once

#include <string_view>

#include "deepgemm/runtime.h"

namespace dg::rt {

/// Records `status` and `message` as this thread's last error and returns `status`, so that a
/// failing path reads `return fail(DGMM_ERROR_IO, "...")`. Never throws: if the message cannot be
/// stored (no memory), a fixed message stands in for it.
dgmm_status fail(dgmm_status status, std::string_view message) noexcept;

}  // namespace dg::rt
