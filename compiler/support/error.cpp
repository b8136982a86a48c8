#include "support/error.h"

#include <string>

namespace dg {

void internal_error(const char* file, int line, const std::string& msg) {
  throw InternalError(std::string(file) + ":" + std::to_string(line) + ": " + msg);
}

}  // namespace dg
