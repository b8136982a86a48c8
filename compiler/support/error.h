// Two error channels (STYLE.md): user mistakes become diagnostics (exit 1); compiler bugs are
// internal errors (exit 70, "please report"). Neither crashes the process.
#pragma once

#include <stdexcept>
#include <string>

namespace dg {

/// A mistake in the user's input that has no source location of its own (a bad hardware model
/// file, an unreadable path, a bad CLI argument). The message names what and where.
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& msg) : std::runtime_error(msg) {}
};

/// A broken invariant inside the compiler.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& msg) : std::logic_error(msg) {}
};

inline constexpr int kExitUserError = 1;
inline constexpr int kExitNoGpu = 2;
inline constexpr int kExitInternalError = 70;

[[noreturn]] void internal_error(const char* file, int line, const std::string& msg);

}  // namespace dg

#define DG_INTERNAL_ASSERT(cond, msg)                           \
  do {                                                          \
    if (!(cond)) ::dg::internal_error(__FILE__, __LINE__, msg); \
  } while (0)
