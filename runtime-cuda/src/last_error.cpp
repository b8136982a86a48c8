#include "last_error.h"

#include <cstring>
#include <string>
#include <type_traits>

namespace dg::rt {
namespace {

thread_local std::string t_message;
thread_local const char* t_fixed = nullptr;  // stands in for t_message when storing it failed
thread_local dgmm_status t_status = DGMM_OK;

}  // namespace

dgmm_status fail(dgmm_status status, std::string_view message) noexcept {
  t_status = status;
  try {
    t_message.assign(message);
    t_fixed = nullptr;
  } catch (...) {
    t_fixed = "out of host memory while recording an error message";
  }
  return status;
}

}  // namespace dg::rt

extern "C" {

const char* dgmm_last_error(void) { return dg::rt::t_fixed != nullptr ? dg::rt::t_fixed : dg::rt::t_message.c_str(); }

dgmm_status dgmm_last_error_code(void) { return dg::rt::t_status; }

const char* dgmm_status_string(dgmm_status status) {
  // C callers may pass any int; read the bits without assuming the value is an enumerator.
  std::underlying_type_t<dgmm_status> raw;
  static_assert(sizeof(raw) == sizeof(status));
  std::memcpy(&raw, &status, sizeof(raw));
  return dgmm_status_name(static_cast<int>(raw));
}

}  // extern "C"
