// The fixed RTL library of hdl-gen/rtl/, embedded in the compiler at build time.
#pragma once

#include <string>
#include <vector>

namespace dg::hdlgen {

struct LibraryFile {
  std::string name;    // dg_burst_split.v
  std::string module;  // dg_burst_split
  std::string text;
  bool has_properties;  // carries `ifdef FORMAL assertions
};

const std::vector<LibraryFile>& rtl_library();

}  // namespace dg::hdlgen
