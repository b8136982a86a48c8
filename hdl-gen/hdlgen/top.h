// The generated top's text and register map (internal to hdl-gen).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hdlgen/generate.h"

namespace dg::hdlgen {

struct TopStream {
  std::string id;      // a, b, c
  int beats_bits = 1;  // width of the AGU's request length
  int row_bits = 1;    // width of the AGU's tile-row output
};

struct TopParams {
  std::string top, header;
  std::vector<TopStream> streams;
  std::vector<Register> registers;
  std::uint32_t id = 0;
  std::int64_t cycle_bound = 0;
  int dw = 16;
  std::int64_t m_max = 0, n_max = 0, k_min = 0, k_max = 0;
  std::int64_t beat_bytes = 16, max_burst = 256;
  int lg_elem[3] = {0, 0, 2};  // log2 bytes per element of A, B, C
};

std::string top_module(const TopParams& tp);
std::vector<Register> top_registers();

}  // namespace dg::hdlgen
