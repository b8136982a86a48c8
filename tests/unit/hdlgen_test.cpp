// The NPU generator on its own (no proofs, no simulation): deterministic output, the datapath's
// parameters taken from the plan and the model, and refusals with their reasons for plans the
// generated hardware cannot run.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "dgml/parser.h"
#include "hdlgen/generate.h"
#include "sema/check.h"
#include "solve/solve.h"
#include "support/error.h"

namespace {

using namespace dg;

struct Solved {
  std::optional<GemmProblem> problem;
  std::optional<Plan> plan;
};

Solved solve_spec(const std::string& text) {
  DiagEngine d;
  auto spec = dgml::parse("t.dgml", text, d);
  Solved s;
  s.problem = sema::check(spec, std::string(DEEPGEMM_SOURCE_DIR) + "/hw-models", d);
  REQUIRE(s.problem);
  auto r = solve::solve(*s.problem);
  REQUIRE(r.plan);
  s.plan = *r.plan;
  return s;
}

std::string refusal(const std::string& text) {
  Solved s = solve_spec(text);
  try {
    hdlgen::generate(*s.plan, s.problem->hw, "t");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

const char* kTiny = R"(target npu16;
precision { activation: int8; weight: int8; output: int32; }
shape { M: 20; N: 48; K: 128; }
constraints { tile_m == 16; tile_n == 32; tile_k == 64; dataflow: output_stationary; }
)";

}  // namespace

TEST_CASE("hdlgen: the same plan gives byte-identical files") {
  Solved s = solve_spec(kTiny);
  hdlgen::Design a = hdlgen::generate(*s.plan, s.problem->hw, "tiny");
  hdlgen::Design b = hdlgen::generate(*s.plan, s.problem->hw, "tiny");
  CHECK(hdlgen::bundle(a) == hdlgen::bundle(b));
  CHECK(a.top == "npu_gemm_tiny");
  CHECK(a.core == "npu_gemm_tiny_core");
  // The AXI4 top, the core, three AGUs, eighteen library modules (with the bank mapping, the AXI4
  // masters, the register slave, the protocol checker, the proofs' tops and the engine's
  // environment).
  CHECK(a.files.size() == 23);
}

TEST_CASE("hdlgen: the top instantiates the library with the plan's and the model's geometry") {
  Solved s = solve_spec(kTiny);
  hdlgen::Design d = hdlgen::generate(*s.plan, s.problem->hw, "tiny");
  const std::string& top = d.files.at(1).text;  // the core
  CHECK(d.files.at(1).name == "npu_gemm_tiny_core.v");
  CHECK(top.find(".Rows(16), .Cols(16)") != std::string::npos);                // npu16's PE array
  CHECK(top.find(".TileM(16), .TileN(32), .TileK(64)") != std::string::npos);  // the plan's tiles
  CHECK(top.find(".G(16)") != std::string::npos);                              // 16 int8 per 128-bit word
  CHECK(top.find("localparam int Banks = 16") != std::string::npos);
  CHECK(d.cycle_bound > 0);
  // The AXI4 top: one master per stream with its ID, the register slave, the checkers for
  // co-simulation only.
  const std::string& axi = d.files.front().text;
  CHECK(d.files.front().name == "npu_gemm_tiny.v");
  CHECK(axi.find("dg_axi_rd #(.AddrW(AddrW), .IdW(IdW), .Id(2'd0)") != std::string::npos);
  CHECK(axi.find("dg_axi_rd #(.AddrW(AddrW), .IdW(IdW), .Id(2'd1)") != std::string::npos);
  CHECK(axi.find("dg_axi_wr #(.AddrW(AddrW), .IdW(IdW), .Id(2'd2)") != std::string::npos);
  CHECK(axi.find("dg_axil_regs u_regs") != std::string::npos);
  CHECK(axi.find("`ifdef DG_AXI4_CHECK") < axi.find("dg_axi4_check #"));
}

TEST_CASE("hdlgen: a weight-stationary plan gets the weight-stationary engine, and only it") {
  Solved s = solve_spec(R"(target npu16;
precision { activation: int8; weight: int8; output: int32; }
shape { M: 20; N: 48; K: 128; }
constraints { tile_m == 16; tile_n == 32; tile_k == 64; dataflow: weight_stationary; }
)");
  CHECK(s.plan->dataflow == "weight_stationary");
  hdlgen::Design d = hdlgen::generate(*s.plan, s.problem->hw, "ws");
  const std::string& top = d.files.at(1).text;  // the core
  CHECK(top.find("dg_engine_ws #(") != std::string::npos);
  CHECK(top.find("dg_engine #(") == std::string::npos);
  CHECK(top.find(".TileM(16), .TileN(32), .TileK(64)") != std::string::npos);
  CHECK(top.find(".G(") == std::string::npos);
  bool ws_engine = false, ws_array = false, os_files = false;
  for (const auto& f : d.files) {
    ws_engine = ws_engine || f.name == "dg_engine_ws.v";
    ws_array = ws_array || f.name == "dg_ws_array.v";
    os_files = os_files || f.name == "dg_engine.v" || f.name == "dg_mac_array.v";
  }
  CHECK(ws_engine);
  CHECK(ws_array);
  CHECK(!os_files);
  // The BOUND register holds the plan's (weight-stationary) estimate.
  REQUIRE(s.plan->npu_layout.has_value());
  CHECK(d.cycle_bound == s.plan->npu_layout->cycles);
  // The same spec without the pin: npu16 offers both, and the estimate chooses.
  Solved free = solve_spec(R"(target npu16;
precision { activation: int8; weight: int8; output: int32; }
shape { M: 20; N: 48; K: 128; }
constraints { tile_m == 16; tile_n == 32; tile_k == 64; }
)");
  Solved os = solve_spec(kTiny);
  REQUIRE(os.plan->npu_layout.has_value());
  CHECK(free.plan->npu_layout->cycles == std::min(os.plan->npu_layout->cycles, s.plan->npu_layout->cycles));
}

TEST_CASE("hdlgen: rows that are not whole bus beats get the byte-row realigners") {
  auto has = [](const hdlgen::Design& d, const std::string& name) {
    for (const auto& f : d.files)
      if (f.name == name) return true;
    return false;
  };
  // B and C rows of 20 elements (20 and 80 bytes) are not whole 16-byte bus beats: the layout
  // says byte rows, the AGUs request bytes, the read streams realign, C is strobed.
  Solved s = solve_spec(R"(target npu16;
precision { activation: int8; weight: int8; output: int32; }
shape { M: 37; N: 20; K: 64; }
)");
  REQUIRE(s.plan->npu_layout.has_value());
  CHECK(s.plan->npu_layout->byte_rows);
  hdlgen::Design d = hdlgen::generate(*s.plan, s.problem->hw, "br");
  CHECK(has(d, "dg_rd_align.v"));
  CHECK(has(d, "dg_wr_align.v"));
  const std::string& core = d.files.at(1).text;
  CHECK(core.find("dg_rd_align #(") != std::string::npos);
  CHECK(core.find(".Align(1'b1)") != std::string::npos);
  CHECK(core.find("output logic [15:0] c_w_strb_o") != std::string::npos);
  // The burst splitter gets the beat-aligned address of the row's first beat.
  CHECK(core.find(".req_addr_i   ({b_req_addr[31:4], 4'd0})") != std::string::npos);
  auto agu_b =
      std::find_if(d.files.begin(), d.files.end(), [](const auto& f) { return f.name == "npu_gemm_br_agu_b.v"; });
  REQUIRE(agu_b != d.files.end());
  CHECK(agu_b->text.find("output logic [5:0] req_bytes_o") != std::string::npos);  // 32 bytes
  // Packed 4-bit rows: N = 16 int4 elements are 8 bytes, half a beat: byte rows too.
  Solved h = solve_spec(R"(target npu16;
precision { activation: int8; weight: int4; output: int32; }
shape { M: 32; N: 16; K: 64; }
)");
  CHECK(h.plan->npu_layout->byte_rows);
  // Whole beats everywhere: no realigners, the AGUs request beats.
  Solved w = solve_spec(kTiny);
  CHECK(!w.plan->npu_layout->byte_rows);
  hdlgen::Design dw = hdlgen::generate(*w.plan, w.problem->hw, "tiny");
  CHECK(!has(dw, "dg_rd_align.v"));
  CHECK(!has(dw, "dg_wr_align.v"));
  CHECK(dw.files.at(1).text.find("req_beats_o") != std::string::npos);
}

TEST_CASE("hdlgen: plans the hardware cannot run are refused with the reason") {
  // An odd-width row: 4-bit elements, N = 33 (16.5 bytes) ends inside a byte.
  std::string why = refusal(R"(target npu16;
precision { activation: int4; weight: int4; output: int32; }
shape { M: 32; N: 33; K: 64; }
)");
  CHECK(why.find("rows of B (N = 33 elements of 4 bits) end inside a byte") != std::string::npos);
  CHECK(why.find("make N a multiple of 2") != std::string::npos);
}

TEST_CASE("hdlgen: packed 4-bit inputs take nibble lanes") {
  Solved s = solve_spec(R"(target npu16;
precision { activation: int4; weight: u4; output: int32; }
shape { M: 40; N: 64; K: 96; }
constraints { tile_m == 32; tile_n == 32; tile_k == 64; dataflow: output_stationary; }
)");
  hdlgen::Design d = hdlgen::generate(*s.plan, s.problem->hw, "i4");
  const std::string& top = d.files.at(1).text;  // the core
  CHECK(top.find(".EABits(4), .EBBits(4), .AW(4), .BW(4), .ASigned(1'b1), .BSigned(1'b0)") != std::string::npos);
  CHECK(top.find(".AWords(2), .BWords(1)") != std::string::npos);  // 64 and 32 nibbles per 128-bit word
  CHECK(top.find(".G(16)") != std::string::npos);                  // k per group: the 16 banks
  // A's row of K = 96 nibbles is 48 bytes: the packed stride (LDA's reset value, 0, stands for it),
  // which the AGU takes as its run-time stride; column offsets are halved.
  const hdlgen::VerilogFile* agu_a = nullptr;
  for (const auto& f : d.files)
    if (f.name == "npu_gemm_i4_agu_a.v") agu_a = &f;
  REQUIRE(agu_a != nullptr);
  CHECK(top.find("assign a_row = (32'(k_q) << 2) >> 3;") != std::string::npos);
  CHECK(top.find("assign a_ld = lda_q != 32'd0 ? lda_q : a_row;") != std::string::npos);
  CHECK(agu_a->text.find("assign ld_bytes = ld_q;") != std::string::npos);
  CHECK(agu_a->text.find("localparam int LgBits = 2;") != std::string::npos);
  CHECK(agu_a->text.find("((32'(k0_q) << LgBits) >> 3)") != std::string::npos);
}

TEST_CASE("hdlgen: the report is told what a proof leaves out at the model's parameters") {
  Solved s = solve_spec(kTiny);
  hdlgen::Design d = hdlgen::generate(*s.plan, s.problem->hw, "tiny");
  CHECK(d.formal_notes.count("dg_burst_split") == 0);  // 256 beats: the burst count is asserted
  hw::HwModel hw = s.problem->hw;
  hw.npu.bus_max_burst_beats = 96;
  hdlgen::Design d96 = hdlgen::generate(*s.plan, hw, "tiny");
  REQUIRE(d96.formal_notes.count("dg_burst_split") == 1);
  CHECK(d96.formal_notes["dg_burst_split"].find("96 beats, is not a power of two") != std::string::npos);
}
