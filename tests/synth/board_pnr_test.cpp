// Place and route on boards/icebreaker through hdlgen::place_and_route, with stand-in NPU tops
// (tests/synth/npu_*.v, the ports of a generated top): the report's fields, determinism, and
// each way it can fail as a message rather than an exception.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "hdlgen/board_files.h"
#include "hdlgen/synth.h"

using namespace dg::hdlgen;

namespace {

Design standin(const std::string& module) {
  std::ifstream in(std::string(DEEPGEMM_SOURCE_DIR) + "/tests/synth/" + module + ".v");
  std::stringstream ss;
  ss << in.rdbuf();
  Design d;
  d.top = module;
  d.files.push_back({module + ".v", ss.str()});
  return d;
}

}  // namespace

TEST_CASE("the icebreaker board is embedded: description, RTL, pins") {
  std::vector<std::string> names;
  for (const auto& f : board_files())
    if (f.board == "icebreaker") names.push_back(f.name);
  CHECK(names == std::vector<std::string>{"board.json", "board_bridge.v", "board_mem.v", "board_top.v", "board_uart.v",
                                          "icebreaker.pcf"});
}

TEST_CASE("a stand-in NPU placed and routed on the icebreaker") {
  BoardReport r = place_and_route(standin("npu_standin"), "icebreaker", 32, 0x40000000);
  CAPTURE(r.error);
  REQUIRE(r.ran);
  CHECK(r.device == "iCE40 UP5K (sg48)");
  CHECK(r.top == "board_top");
  CHECK(r.logic_cells.available == 5280);
  CHECK(r.logic_cells.used > 500);
  CHECK(r.logic_cells.used < r.logic_cells.available);
  CHECK(r.sprams.used == 4);
  CHECK(r.sprams.available == 4);
  CHECK(r.brams.available == 30);
  CHECK(r.dsps.available == 8);
  CHECK(r.ios.used == 6);
  CHECK(r.luts > 0);
  CHECK(r.ffs > 0);
  CHECK(r.dsp_mapped);
  CHECK(r.dsps_wanted == 0);
  CHECK(r.target_mhz == 12);
  CHECK(r.fmax_mhz > 20);  // measured 22.86 MHz (Yosys 0.23, nextpnr-ice40 0.4, Debian 12)
  CHECK(r.meets_timing());
  std::string t = r.text();
  MESSAGE(t);
  CHECK(t.find("place and route on icebreaker (iCE40 UP5K (sg48), top board_top") == 0);
  CHECK(t.find("SPRAMs 4/4 (100.0%)") != std::string::npos);
  CHECK(t.find("board clock 12 MHz: met") != std::string::npos);
  CHECK(r.summary().find("Place and route on icebreaker (iCE40 UP5K (sg48)): ") == 0);
  // The bitstream (icepack, which the bootstrap installs): an iCE40 image, its sync word
  // 0x7EAA997E after the comment header, about 104 KB for the UP5K.
  CAPTURE(r.bitstream_note);
  REQUIRE(!r.bitstream.empty());
  CHECK(r.bitstream.size() > 100000);
  CHECK(r.bitstream.size() < 110000);
  CHECK(r.bitstream.find(std::string("\x7e\xaa\x99\x7e", 4)) < 64);
  CHECK(t.find(fmt::format("  bitstream: {} bytes (icepack)", r.bitstream.size())) != std::string::npos);
  // The same design gives the same figures (nextpnr --seed 1).
  BoardReport again = place_and_route(standin("npu_standin"), "icebreaker", 32, 0x40000000);
  CHECK(again.text() == t);
}

TEST_CASE("place and route failures are messages") {
  BoardReport r = place_and_route(standin("npu_standin"), "icebraker", 32, 0x40000000);
  CHECK(!r.ran);
  CHECK(r.error == "board 'icebraker' is not among the boards this compiler carries (icebreaker)");
  CHECK(r.text() == "place and route on icebraker: not done: " + r.error + "\n");

  r = place_and_route(standin("npu_standin"), "icebreaker", 128, 0x40000000);
  CHECK(!r.ran);
  CHECK(r.error == "the board's memory is 32 bits wide, the model's bus 128 bits");

  Design broken = standin("npu_standin");
  broken.top = "npu_missing";
  r = place_and_route(broken, "icebreaker", 32, 0x40000000);
  CHECK(!r.ran);
  CHECK(r.error.find("yosys synth_ice40 of the board top failed:") == 0);

  r = place_and_route(standin("npu_too_big"), "icebreaker", 32, 0x40000000);
  CAPTURE(r.error);
  CHECK(!r.ran);
  CHECK(r.error.find("nextpnr-ice40 failed (exit ") == 0);
  CHECK(r.error.find("the design does not fit the iCE40 UP5K (sg48): block RAMs 32/30 (106.7%)") != std::string::npos);
  CHECK(r.error.find("ERROR: Unable to place cell") != std::string::npos);
  CHECK(r.packed);
  CHECK(r.brams.used == 32);
  CHECK(r.logic_cells.available == 5280);
  CHECK(r.text().find("place and route on icebreaker: not done: nextpnr-ice40 failed") == 0);
}
