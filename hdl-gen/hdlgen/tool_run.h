// Running Yosys on a design in a scratch directory (internal to hdl-gen).
#pragma once

#include <string>

#include "hdlgen/generate.h"

namespace dg::hdlgen {

/// Path of the yosys executable on PATH, or "".
std::string find_yosys();

/// A fresh scratch directory holding every file of `d`; removed by the destructor.
class Scratch {
 public:
  explicit Scratch(const Design& d);
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  const std::string& dir() const { return dir_; }
  std::string file_list() const;  // the design's files, space separated, quoted
  /// Run yosys on `script` (written to the directory); returns its exit code, `log` its output.
  int yosys(const std::string& script, std::string& log) const;
  std::string read(const std::string& name) const;

 private:
  std::string dir_;
  std::vector<std::string> files_;
};

}  // namespace dg::hdlgen
