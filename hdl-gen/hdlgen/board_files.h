// The FPGA prototype boards of boards/<board>/ (each folder with a board.json): their description,
// RTL and pin file, embedded in the compiler at build time for synthesis's place and route.
#pragma once

#include <string>
#include <vector>

namespace dg::hdlgen {

struct BoardFile {
  std::string board;  // icebreaker
  std::string name;   // board.json, board_top.v, icebreaker.pcf
  std::string text;
};

const std::vector<BoardFile>& board_files();

}  // namespace dg::hdlgen
