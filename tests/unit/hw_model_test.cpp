// Hardware models: the shipped files load with the expected facts, and every kind of broken file
// is a dg::UserError naming the file and the JSON path of the field.
#include "hw/hw_model.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/error.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace dg::hw;

namespace {

const std::string kModels = std::string(DEEPGEMM_SOURCE_DIR) + "/hw-models";

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json read_model(const std::string& name) { return json::parse(read_text(kModels + "/" + name + ".json")); }

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// A fresh directory under the system temp dir, removed at the end of the test.
struct TempDir {
  fs::path path;
  explicit TempDir(bool with_schema = true) {
    auto tick = std::chrono::steady_clock::now().time_since_epoch().count();
    path = fs::temp_directory_path() / ("deepgemm_hw_test_" + std::to_string(tick));
    fs::create_directories(path);
    if (with_schema) fs::copy_file(kModels + "/schema.json", path / "schema.json");
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const dg::UserError& e) {
    return e.what();
  }
  return "<no error>";
}

const MmaShape* find_mma(const GpuModel& g, const std::string& instr, const std::string& a, const std::string& b,
                         const std::string& acc) {
  for (const auto& s : g.mma)
    if (s.instr == instr && s.a_type == a && s.b_type == b && s.acc_type == acc) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("hopper model: H200 facts") {
  HwModel m = load(kModels + "/hopper.json");
  CHECK(m.name == "hopper");
  REQUIRE(m.is_gpu());
  const GpuModel& g = m.gpu;
  CHECK(g.arch == "sm_90a");
  CHECK(g.ptx_version_major == 8);
  CHECK(g.ptx_version_minor == 5);
  CHECK(g.sm_count == 132);
  CHECK(g.boost_clock_mhz == 1980);
  CHECK(g.smem_per_sm_bytes == 228 * 1024);
  CHECK(g.smem_per_block_bytes == 227 * 1024);
  CHECK(g.smem_per_block_default_bytes == 48 * 1024);
  CHECK(g.carveout_kb == std::vector<int>{0, 8, 16, 32, 64, 100, 132, 164, 196, 228});
  CHECK(g.regs_per_sm == 65536);
  CHECK(g.max_regs_per_thread == 255);
  CHECK(g.max_threads_per_sm == 2048);
  CHECK(g.max_threads_per_block == 1024);
  CHECK(g.max_blocks_per_sm == 32);
  CHECK(g.max_warps_per_sm == 64);
  CHECK(g.smem_banks == 32);
  CHECK(g.smem_bank_width_bytes == 4);
  CHECK(g.l1_bytes == 256 * 1024);
  CHECK(g.l2_bytes == 60 * 1024 * 1024);
  CHECK(g.l2_line_bytes == 128);
  CHECK(g.dram_bandwidth_gbps == 4800);
  CHECK(g.dram_bytes_gib == 140);
  CHECK(g.has_cluster);
  CHECK(g.max_cluster_size == 8);
  CHECK(g.has_cp_async);
  CHECK(g.has_tma);
  CHECK(g.peak_tflops.at("fp16") == 989);
  CHECK(g.peak_tflops.at("bf16") == 989);
  CHECK(g.peak_tflops.at("fp8_e4m3") == 1979);
  CHECK(g.peak_tflops.at("int8") == 1979);
  CHECK(g.peak_tflops.at("fp32") == 67);
  CHECK(g.simt_types == std::vector<std::string>{"fp32", "fp16"});

  const MmaShape* hmma = find_mma(g, "mma.sync", "fp16", "fp16", "fp32");
  REQUIRE(hmma);
  CHECK((hmma->m == 16 && hmma->n == 8 && hmma->k == 16 && hmma->n_step == 0));
  CHECK(find_mma(g, "mma.sync", "fp16", "fp16", "fp16"));
  CHECK(find_mma(g, "mma.sync", "bf16", "bf16", "fp32"));
  const MmaShape* imma = find_mma(g, "mma.sync", "int8", "int8", "int32");
  REQUIRE(imma);
  CHECK(imma->k == 32);
  // fp8 and 4-bit mma.sync are not Hopper tensor-core shapes (ptxas emulates them).
  for (const auto& s : g.mma) {
    if (s.instr != "mma.sync") continue;
    CHECK(s.a_type.rfind("fp8", 0) != 0);
    CHECK(s.a_type != "int4");
  }
  const MmaShape* wg = find_mma(g, "wgmma", "bf16", "bf16", "fp32");
  REQUIRE(wg);
  CHECK((wg->m == 64 && wg->n == 256 && wg->k == 16 && wg->n_step == 8));
  const MmaShape* qg = find_mma(g, "wgmma", "fp8_e4m3", "fp8_e4m3", "fp32");
  REQUIRE(qg);
  CHECK(qg->k == 32);
  CHECK(find_mma(g, "wgmma", "fp8_e5m2", "fp8_e5m2", "fp32"));
  const MmaShape* ig = find_mma(g, "wgmma", "int8", "int8", "int32");
  REQUIRE(ig);
  CHECK((ig->k == 32 && ig->n_step == 16));

  REQUIRE(g.conversions.size() == 3);
  CHECK(g.conversions[0].from == "int4");
  CHECK(g.conversions[1].from == "u4");
  CHECK(g.conversions[2].from == "int4_e2m1");
  CHECK(g.conversions[2].compute_types == std::vector<std::string>{"fp16", "bf16"});

  // Source notes: sibling notes by field path, object notes by object path, inherited below.
  CHECK(m.sources.at("gpu.sm_count").find("132") != std::string::npos);
  CHECK(m.sources.at("gpu.l2_bandwidth_gbps").find("estimate") != std::string::npos);
  CHECK(m.source_of("gpu.mma[5].n").find("wgmma") != std::string::npos);
  CHECK(m.source_of("gpu.peak_tflops.fp16").find("datasheet") != std::string::npos);
  CHECK(m.source_of("gpu.carveout_kb[3]") == m.sources.at("gpu.carveout_kb"));
  CHECK(m.source_of("description").empty());
}

TEST_CASE("ampere model: A100 facts") {
  HwModel m = load(kModels + "/ampere.json");
  const GpuModel& g = m.gpu;
  CHECK(g.arch == "sm_80");
  CHECK(g.ptx_version_major == 7);
  CHECK(g.ptx_version_minor == 0);
  CHECK(g.sm_count == 108);
  CHECK(g.boost_clock_mhz == 1410);
  CHECK(g.smem_per_sm_bytes == 164 * 1024);
  CHECK(g.smem_per_block_bytes == 163 * 1024);
  CHECK(g.carveout_kb.back() == 164);
  CHECK(g.l1_bytes == 192 * 1024);
  CHECK(g.l2_bytes == 40 * 1024 * 1024);
  CHECK(g.dram_bandwidth_gbps == 2039);
  CHECK(g.dram_bytes_gib == 80);
  CHECK(g.has_cp_async);
  CHECK_FALSE(g.has_tma);
  CHECK_FALSE(g.has_cluster);
  CHECK(g.max_cluster_size == 1);
  const MmaShape* s4 = find_mma(g, "mma.sync", "int4", "int4", "int32");
  REQUIRE(s4);
  CHECK((s4->m == 16 && s4->n == 8 && s4->k == 64));
  CHECK(find_mma(g, "mma.sync", "u4", "u4", "int32"));
  CHECK(find_mma(g, "mma.sync", "bf16", "bf16", "fp32"));
  CHECK_FALSE(find_mma(g, "wgmma", "fp16", "fp16", "fp32"));
  CHECK(g.peak_tflops.at("fp16") == 312);
  CHECK(g.peak_tflops.at("int4") == 1248);
  CHECK(g.peak_tflops.at("fp32") == 19.5);
}

TEST_CASE("volta model: V100 facts") {
  HwModel m = load(kModels + "/volta.json");
  const GpuModel& g = m.gpu;
  CHECK(g.arch == "sm_70");
  CHECK(g.ptx_version_major == 6);
  CHECK(g.ptx_version_minor == 4);
  CHECK(g.sm_count == 80);
  CHECK(g.smem_per_sm_bytes == 96 * 1024);
  CHECK(g.smem_per_block_bytes == 96 * 1024);
  CHECK(g.carveout_kb == std::vector<int>{0, 8, 16, 32, 64, 96});
  CHECK(g.l2_bytes == 6 * 1024 * 1024);
  CHECK(g.dram_bandwidth_gbps == 900);
  CHECK_FALSE(g.has_cp_async);
  CHECK_FALSE(g.has_tma);
  REQUIRE(g.mma.size() == 2);
  for (const auto& s : g.mma) {
    CHECK((s.m == 8 && s.n == 8 && s.k == 4));
    CHECK(s.a_type == "fp16");
    CHECK(s.b_type == "fp16");
  }
  CHECK(g.peak_tflops.at("fp16") == 125);
  CHECK(g.peak_tflops.at("fp32") == 15.7);
}

TEST_CASE("npu16 model: reference NPU") {
  HwModel m = load(kModels + "/npu16.json");
  REQUIRE(m.is_npu());
  const NpuModel& n = m.npu;
  CHECK(n.pe_rows == 16);
  CHECK(n.pe_cols == 16);
  CHECK(n.dataflows == std::vector<std::string>{"weight_stationary", "output_stationary"});
  CHECK(n.input_types == std::vector<std::string>{"int4", "int8", "int16"});
  CHECK(n.max_custom_width == 16);
  CHECK(n.acc_width == 32);
  CHECK(n.spad_banks * n.spad_rows * n.spad_width_bits / 8 == 256 * 1024);
  CHECK(n.acc_rows == 1024);
  CHECK(n.acc_width_bits == 16 * 32);
  CHECK(n.bus_data_bits == 128);
  CHECK(n.bus_max_burst_beats == 256);
  CHECK(n.bus_boundary_bytes == 4096);
  CHECK(n.dram_latency_cycles == 100);
  CHECK(n.mmio_base == 0x40000000u);
  CHECK(n.bus_addr_bits == 32);  // absent: the default
  CHECK(n.clock_mhz == 200);
  CHECK(m.source_of("npu.spad_rows").find("design parameter") != std::string::npos);
  CHECK(m.sources.at("npu.bus_boundary_bytes").find("AXI") != std::string::npos);
}

TEST_CASE("npu4 model: the board-sized NPU names its board") {
  HwModel m = load(kModels + "/npu4.json");
  REQUIRE(m.is_npu());
  const NpuModel& n = m.npu;
  CHECK(n.pe_rows == 2);
  CHECK(n.pe_cols == 4);
  CHECK(!n.drain_shadow);  // no shadow registers: the UP5K has too few logic cells
  CHECK(load(kModels + "/npu16.json").npu.drain_shadow);
  CHECK(n.spad_banks * n.spad_rows * n.spad_width_bits / 8 == 4 * 1024);
  CHECK(n.acc_rows * n.acc_width_bits / 8 == 4 * 1024);
  CHECK(n.bus_data_bits == 32);
  CHECK(n.clock_mhz == 12);
  CHECK(n.board == "icebreaker");
  CHECK(m.source_of("npu.board").find("boards/icebreaker/") != std::string::npos);
  CHECK(load(kModels + "/npu16.json").npu.board.empty());
  std::ostringstream os;
  os << m;
  CHECK(os.str().find("\n  board: icebreaker\n") != std::string::npos);
}

TEST_CASE("npu bus_addr_bits: read, written back, printed, and refused where it cannot be built") {
  TempDir dir;
  const fs::path file = dir.path / "npu16.json";
  json j = read_model("npu16");
  j["npu"]["bus_addr_bits"] = 40;
  j["npu"]["bus_addr_bits_source"] = "test: a 40-bit SoC bus";
  write_text(file, j.dump(2));
  HwModel m = load(file.string());
  CHECK(m.npu.bus_addr_bits == 40);
  CHECK(m.sources.at("npu.bus_addr_bits") == "test: a 40-bit SoC bus");
  const json out = to_json(m);
  CHECK(out["npu"]["bus_addr_bits"] == 40);
  CHECK(out["npu"]["bus_addr_bits_source"] == "test: a 40-bit SoC bus");
  CHECK(from_json(out, file.string()).npu.bus_addr_bits == 40);
  std::ostringstream os;
  os << m;
  CHECK(os.str().find("\n  bus_addr_bits: 40\n") != std::string::npos);
  CHECK(npu_unbuildable(m.npu).empty());
  // The default is not written back (a model without the field stays without it).
  CHECK(!to_json(load(kModels + "/npu16.json"))["npu"].contains("bus_addr_bits"));
  // Every width from 32 to 64 is built; a board's 32-bit memory and bridge take only 32.
  for (int bits : {32, 33, 48, 63, 64}) {
    m.npu.bus_addr_bits = bits;
    CHECK(npu_unbuildable(m.npu).empty());
  }
  HwModel board = load(kModels + "/npu4.json");
  CHECK(npu_unbuildable(board.npu).empty());
  board.npu.bus_addr_bits = 40;
  CHECK(npu_unbuildable(board.npu) ==
        "npu.bus_addr_bits is 40 and npu.board is \"icebreaker\", whose memory and bridge (boards/icebreaker/) decode "
        "32-bit bus addresses; set npu.bus_addr_bits to 32 or leave out npu.board");
  board.npu.board.clear();
  CHECK(npu_unbuildable(board.npu).empty());
  // Array sides of any size; banks, bank rows and the bus are powers of two.
  board.npu.pe_rows = 3;
  board.npu.pe_cols = 12;
  CHECK(npu_unbuildable(board.npu).empty());
  board.npu.spad_banks = 6;
  CHECK(npu_unbuildable(board.npu) ==
        "npu.spad_banks is 6: the generated banks, scratchpad words and bus adapters index with bit fields, so it "
        "must be a power of two (the nearest are 4 and 8)");
  board.npu.spad_banks = 4;
  // The weight-stationary engine alone needs a power-of-two pe_rows.
  board.npu.dataflows = {"weight_stationary"};
  CHECK(npu_unbuildable(board.npu) ==
        "npu.pe_rows is 3 and npu.dataflows lists only weight_stationary, whose engine reads a weight block's "
        "pe_rows k of an A row from one power-of-two scratchpad word: make npu.pe_rows a power of two (the "
        "nearest are 2 and 4) or add output_stationary to npu.dataflows");
  board.npu.pe_rows = 4;
  CHECK(npu_unbuildable(board.npu).empty());
  // The XOR bank mapping keeps a cycle's rows in one word row: the array's rows divide the banks.
  CHECK(board.npu.spad_bank_map == "modulo");
  board.npu.spad_bank_map = "xor";
  CHECK(npu_unbuildable(board.npu).empty());
  board.npu.dataflows = {"output_stationary"};
  board.npu.pe_rows = 3;
  CHECK(npu_unbuildable(board.npu) ==
        "npu.spad_bank_map is xor, which swizzles the banks within one word row, and npu.pe_rows (3) does not divide "
        "npu.spad_banks (4): the array's rows would span two word rows; set npu.spad_bank_map to modulo or "
        "npu.pe_rows to a divisor of 4");
}

TEST_CASE("npu.spad_bank_map: optional, modulo by default, xor read and written back") {
  const fs::path dir = fs::temp_directory_path() / "dg_hw_bank_map";
  fs::create_directories(dir);
  fs::copy_file(kModels + "/schema.json", dir / "schema.json", fs::copy_options::overwrite_existing);
  json j = json::parse(read_text(kModels + "/npu16.json"));
  j["name"] = "npu16x";
  CHECK(from_json(j, (dir / "npu16x.json").string()).npu.spad_bank_map == "modulo");
  CHECK(!to_json(from_json(j, (dir / "npu16x.json").string()))["npu"].contains("spad_bank_map"));
  j["npu"]["spad_bank_map"] = "xor";
  const HwModel m = from_json(j, (dir / "npu16x.json").string());
  CHECK(m.npu.spad_bank_map == "xor");
  CHECK(to_json(m)["npu"]["spad_bank_map"] == "xor");
  j["npu"]["spad_bank_map"] = "hash";
  CHECK_THROWS_WITH_AS(from_json(j, (dir / "npu16x.json").string()), doctest::Contains("npu.spad_bank_map"),
                       dg::UserError);
}

TEST_CASE("list_names, load_dir, load_named") {
  CHECK(list_names(kModels) == std::vector<std::string>{"ampere", "hopper", "npu16", "npu4", "volta"});
  std::vector<HwModel> all = load_dir(kModels);
  REQUIRE(all.size() == 5);
  CHECK(all[1].name == "hopper");
  CHECK(load_named(kModels, "volta").gpu.sm_count == 80);
  std::string e = error_of([] { load_named(kModels, "hoper"); });
  CHECK(e.find("no hardware model 'hoper'") != std::string::npos);
  CHECK(e.find("did you mean 'hopper'?") != std::string::npos);
  CHECK(error_of([] { list_names(kModels + "/nope"); }).find("no such hardware-model directory") != std::string::npos);
  CHECK(error_of([] { load(kModels + "/nope.json"); }).find("nope.json: no such hardware model file") !=
        std::string::npos);
}

TEST_CASE("to_json round trip and printing") {
  for (const auto& name : list_names(kModels)) {
    CAPTURE(name);
    HwModel m = load_named(kModels, name);
    json j = to_json(m);
    HwModel again = from_json(j, m.file);
    CHECK(to_json(again) == j);
    CHECK(again.sources == m.sources);
    std::ostringstream os;
    os << m;
    CHECK(os.str().find("hw model " + name) != std::string::npos);
  }
  std::ostringstream os;
  os << load_named(kModels, "hopper");
  // One line per field in the table's order, one per item of a list of objects.
  CHECK(os.str().find("\n  arch: sm_90a\n  ptx_version: 8.5\n  sm_count: 132\n  boost_clock_mhz: 1980\n") !=
        std::string::npos);
  CHECK(os.str().find("\n  carveout_kb: 0, 8, 16, 32, 64, 100, 132, 164, 196, 228\n") != std::string::npos);
  CHECK(os.str().find(": instr wgmma, m 64, n 256, n_step 8, k 16, a_type bf16, b_type bf16, acc_type fp32\n") !=
        std::string::npos);
  CHECK(os.str().find("\n  has_tma: true\n") != std::string::npos);
  std::ostringstream npu;
  npu << load_named(kModels, "npu16");
  CHECK(npu.str().find("\n  spad_banks: 16\n  spad_rows: 1024\n  spad_width_bits: 128\n") != std::string::npos);
  CHECK(npu.str().find("\n  mmio_base: 0x40000000\n") != std::string::npos);
}

namespace {

struct BrokenCase {
  const char* what;
  const char* model;                  // file stem the text is written as
  std::function<std::string()> text;  // file contents
  const char* expect;                 // substring of the error, after "<model>.json: "
};

std::string edited(const char* model, const std::function<void(json&)>& edit) {
  json j = read_model(model);
  edit(j);
  return j.dump(2);
}

}  // namespace

TEST_CASE("broken models: each a UserError naming file and field") {
  const std::vector<BrokenCase> cases = {
      {"wrong type", "hopper", [] { return edited("hopper", [](json& j) { j["gpu"]["sm_count"] = "many"; }); },
       "gpu.sm_count: expected integer in [1, 1024], got \"many\""},
      {"fraction for an integer", "hopper",
       [] { return edited("hopper", [](json& j) { j["gpu"]["sm_count"] = 132.5; }); },
       "gpu.sm_count: expected integer in [1, 1024], got 132.5"},
      {"wrong type deep", "hopper",
       [] { return edited("hopper", [](json& j) { j["gpu"]["mma"][2]["k"] = json::array(); }); },
       "gpu.mma[2].k: expected integer in [1, 1024], got an array"},
      {"missing field", "hopper", [] { return edited("hopper", [](json& j) { j["gpu"].erase("l2_bytes"); }); },
       "gpu: missing required field 'l2_bytes'"},
      {"unknown field with did-you-mean", "hopper",
       [] {
         return edited("hopper", [](json& j) {
           j["gpu"]["sm_cont"] = j["gpu"]["sm_count"];
           j["gpu"].erase("sm_count");
         });
       },
       "gpu: unknown field 'sm_cont' (did you mean 'sm_count'?)"},
      {"unknown top-level field", "hopper",
       [] { return edited("hopper", [](json& j) { j["gppu"] = json::object(); }); },
       "unknown field 'gppu' (did you mean 'gpu'?)"},
      {"out of range", "hopper",
       [] { return edited("hopper", [](json& j) { j["gpu"]["max_regs_per_thread"] = 5000; }); },
       "gpu.max_regs_per_thread: expected integer in [1, 1024], got 5000"},
      {"zero rate", "hopper", [] { return edited("hopper", [](json& j) { j["gpu"]["peak_tflops"]["fp16"] = 0; }); },
       "gpu.peak_tflops.fp16: expected number in [0.001, 1000000], got 0"},
      {"subnormal bandwidth", "hopper",
       [] { return edited("hopper", [](json& j) { j["gpu"]["dram_bandwidth_gbps"] = 1e-310; }); },
       "gpu.dram_bandwidth_gbps: expected number in [0.001, 1000000], got"},
      {"negative size", "hopper", [] { return edited("hopper", [](json& j) { j["gpu"]["l2_bytes"] = -1; }); },
       "gpu.l2_bytes: expected integer in [0, 1073741824], got -1"},
      {"name mismatch", "hopper", [] { return edited("hopper", [](json& j) { j["name"] = "ampere"; }); },
       "name: \"ampere\" does not match the file name (expected \"hopper\")"},
      {"kind without its section", "hopper", [] { return edited("hopper", [](json& j) { j["kind"] = "npu"; }); },
       "kind is \"npu\" but there is no \"npu\" section"},
      {"section of the other kind", "hopper",
       [] { return edited("hopper", [](json& j) { j["npu"] = read_model("npu16")["npu"]; }); },
       "npu: a \"npu\" section does not belong to a model of kind \"gpu\""},
      {"bad kind", "hopper", [] { return edited("hopper", [](json& j) { j["kind"] = "tpu"; }); },
       "kind: expected one of \"gpu\", \"npu\", got \"tpu\""},
      {"invalid JSON text", "hopper", [] { return std::string("{\"name\": \"hopper\",\n \"kind\" \"gpu\"}"); },
       "invalid JSON: parse error at line 2, column 13: syntax error while parsing object "
       "separator"},
      {"number too large for JSON", "hopper", [] { return std::string("{\"name\": 1e999}"); },
       "invalid JSON: number overflow"},
      {"non-object top level", "hopper", [] { return std::string("[1, 2, 3]"); }, "expected object, got an array"},
      {"empty file", "hopper", [] { return std::string("  \n"); }, "file is empty (expected a JSON object)"},
      {"duplicate field", "hopper",
       [] {
         std::string t = read_text(kModels + "/hopper.json");
         return t.replace(t.find("\"sm_count\": 132,"), 0, "\"sm_count\": 144,\n");
       },
       "gpu: duplicate field 'sm_count'"},
      {"bad mma precision name", "hopper",
       [] { return edited("hopper", [](json& j) { j["gpu"]["mma"][0]["a_type"] = "fp61"; }); },
       "gpu.mma[0].a_type: expected one of \"fp32\", \"fp16\", \"bf16\""},
      {"bad mma precision name: did you mean", "hopper",
       [] { return edited("hopper", [](json& j) { j["gpu"]["mma"][0]["a_type"] = "fp15"; }); },
       "got \"fp15\" (did you mean \"fp16\"?)"},
      {"bad instruction", "hopper",
       [] { return edited("hopper", [](json& j) { j["gpu"]["mma"][0]["instr"] = "hmma"; }); },
       "gpu.mma[0].instr: expected one of \"mma.sync\", \"wgmma\", got \"hmma\""},
      {"bad ptx version", "hopper", [] { return edited("hopper", [](json& j) { j["gpu"]["ptx_version"] = "8"; }); },
       "gpu.ptx_version: expected string (at most 8 characters, matching ^[0-9]{1,2}\\.[0-9]$), "
       "got \"8\""},
      {"repeated carve-out", "hopper", [] { return edited("hopper", [](json& j) { j["gpu"]["carveout_kb"][2] = 8; }); },
       "gpu.carveout_kb[2]: 8 repeats item [1]; items must be unique"},
      {"missing source note", "hopper",
       [] { return edited("hopper", [](json& j) { j["gpu"].erase("sm_count_source"); }); },
       "gpu.sm_count: no source note (add \"sm_count_source\""},
      {"source note for no field", "hopper",
       [] { return edited("hopper", [](json& j) { j["gpu"]["sm_cont_source"] = "typo"; }); },
       "gpu: source note 'sm_cont_source' names no field of this object (did you mean "
       "'sm_count_source'?)"},
      {"non-string source note", "hopper",
       [] { return edited("hopper", [](json& j) { j["gpu"]["sm_count_source"] = 5; }); },
       "gpu.sm_count_source: expected string (non-empty, at most 1000 characters), got 5"},
      {"block smem above SM smem", "hopper",
       [] { return edited("hopper", [](json& j) { j["gpu"]["smem_per_block_bytes"] = 300000; }); },
       "gpu.smem_per_block_bytes: 300000 (292.96875 KiB) is more than smem_per_sm_bytes 233472 "
       "(228 KiB)"},
      {"carve-outs disagree with smem", "hopper",
       [] { return edited("hopper", [](json& j) { j["gpu"]["carveout_kb"].erase(9); }); },
       "gpu.carveout_kb: the largest carve-out, 196 KiB, must equal smem_per_sm_bytes 233472 (228 "
       "KiB)"},
      {"conversion to a type no mma takes", "volta",
       [] {
         return edited("volta", [](json& j) {
           j["gpu"]["conversions"] = json::parse(R"([{"from": "int4", "compute_types": ["fp16", "bf16"]}])");
         });
       },
       "gpu.conversions[0].compute_types[1]: \"bf16\" is not an input type of any gpu.mma entry"},
      {"npu: bad register base", "npu16",
       [] { return edited("npu16", [](json& j) { j["npu"]["mmio_base"] = "40000000"; }); },
       "npu.mmio_base: expected string (at most 18 characters, matching ^0x[0-9A-Fa-f]{1,16}$), "
       "got \"40000000\""},
      {"npu: boundary not a power of two", "npu16",
       [] { return edited("npu16", [](json& j) { j["npu"]["bus_boundary_bytes"] = 4000; }); },
       "npu.bus_boundary_bytes: expected a power of two, got 4000"},
      {"npu: burst longer than the boundary", "npu16",
       [] { return edited("npu16", [](json& j) { j["npu"]["bus_data_bits"] = 256; }); },
       "npu.bus_max_burst_beats: a burst of 256 beats x 32 bytes = 8192 bytes cannot fit within "
       "the 4096-byte boundary"},
      {"npu: bus address width below 32", "npu16",
       [] {
         return edited("npu16", [](json& j) {
           j["npu"]["bus_addr_bits"] = 16;
           j["npu"]["bus_addr_bits_source"] = "test";
         });
       },
       "npu.bus_addr_bits: expected integer in [32, 64], got 16"},
      {"npu: bus address width above 64", "npu16",
       [] {
         return edited("npu16", [](json& j) {
           j["npu"]["bus_addr_bits"] = 100;
           j["npu"]["bus_addr_bits_source"] = "test";
         });
       },
       "npu.bus_addr_bits: expected integer in [32, 64], got 100"},
      {"npu: unknown board", "npu4", [] { return edited("npu4", [](json& j) { j["npu"]["board"] = "icebraker"; }); },
       "npu.board: expected one of \"icebreaker\", got \"icebraker\" (did you mean \"icebreaker\"?)"},
      {"npu: board not a string", "npu4", [] { return edited("npu4", [](json& j) { j["npu"]["board"] = 5; }); },
       "npu.board: expected one of \"icebreaker\", got 5"},
      {"npu: unknown dataflow", "npu16",
       [] { return edited("npu16", [](json& j) { j["npu"]["dataflows"][1] = "output_stationery"; }); },
       "npu.dataflows[1]: expected one of \"weight_stationary\", \"output_stationary\", "
       "\"input_stationary\", got \"output_stationery\" (did you mean \"output_stationary\"?)"},
  };
  TempDir dir;
  for (const BrokenCase& c : cases) {
    std::string what = c.what;
    CAPTURE(what);
    fs::path file = dir.path / (std::string(c.model) + ".json");
    write_text(file, c.text());
    std::string e = error_of([&] { load(file.string()); });
    CAPTURE(e);
    CHECK(e.rfind(file.string() + ": ", 0) == 0);
    CHECK(e.find(c.expect) != std::string::npos);
  }
}

// hw-models/schema.json is generated from the field table (hw_model.cpp) and checked in, so that
// editors and other tools can validate a model file; DEEPGEMM_UPDATE_GOLDEN=1 rewrites it.
TEST_CASE("hw-models/schema.json is the field table's schema") {
  const std::string path = kModels + "/schema.json";
  const char* update = std::getenv("DEEPGEMM_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") write_text(path, schema_text());
  CHECK_MESSAGE(read_text(path) == schema_text(),
                "hw-models/schema.json differs from the field table; run with DEEPGEMM_UPDATE_GOLDEN=1");
}

TEST_CASE("schema.json missing beside the model") {
  TempDir dir(false);
  fs::path file = dir.path / "hopper.json";
  fs::copy_file(kModels + "/hopper.json", file);
  std::string e = error_of([&] { load(file.string()); });
  CHECK(e.find((dir.path / "schema.json").string() + ": schema file not found") != std::string::npos);
  CHECK(e.find("hopper.json") != std::string::npos);
  json j = read_model("hopper");
  CHECK(error_of([&] { from_json(j, file.string()); }).find("schema file not found") != std::string::npos);
}

TEST_CASE("from_text and from_json with an explicit schema") {
  json schema = load_schema(kModels + "/schema.json");
  HwModel m = from_text(read_text(kModels + "/npu16.json"), "somewhere/npu16.json", schema);
  CHECK(m.npu.pe_rows == 16);
  CHECK(m.file == "somewhere/npu16.json");
  std::string e = error_of([&] { from_text("{\"name\": \"x\"", "x.json", schema); });
  CHECK(e.rfind("x.json: invalid JSON: ", 0) == 0);
  e = error_of([&] { from_json(json(42), "x.json", schema); });
  CHECK(e == "x.json: expected object, got 42");
  e = error_of([&] { from_json(json::object(), "x.json", schema); });
  CHECK(e == "x.json: missing required field 'name'");
  CHECK(error_of([] { load_schema("/nonexistent/schema.json"); }).find("schema file not found") != std::string::npos);
}
