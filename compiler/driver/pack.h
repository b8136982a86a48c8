// `deepgemm pack`: plain int4 weights (K×N or N×K, two per byte) into the packed layout a module
// reads (<deepgemm/w4_pack.h>), or back with --unpack. The module's launch record names the
// layout, K and N.
#pragma once

#include <ostream>
#include <string>

namespace dg::driver {

struct PackOptions {
  std::string module;  // the .ko whose B operand is packed
  std::string input, output;
  std::string order = "kn";  // "kn": row-major K×N; "nk": row-major N×K
  bool unpack = false;
};

/// Exit status: 0 written, 1 a user error (reported on `err`).
int pack(const PackOptions& o, std::ostream& out, std::ostream& err);

}  // namespace dg::driver
