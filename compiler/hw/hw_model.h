// HwModel: the facts about one target that the compiler may use, loaded from
// hw-models/<name>.json and checked against hw-models/schema.json on load. Each field of a model
// file is declared once, in the field tables of hw_model.cpp, which drive the reader, to_json,
// operator<< and the schema (schema_text).
//
// Code never hard-codes a hardware number; it asks this structure. Every numeric field in the
// JSON carries a source note (datasheet, PTX ISA, measurement) in a sibling "<field>_source"
// string or in the object's "source" string; the loader keeps them in `sources` for reports.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json_fwd.hpp>

namespace dg::hw {

enum class TargetKind { Gpu, Npu };

/// The instruction family a kernel computes with: tensor-core mma.sync or wgmma, FMA on CUDA
/// cores (simt), or an NPU's PE array. Plans and specs name them "mma.sync", "wgmma", "simt",
/// "npu" (the tensor-core names are the `instr` of a model's mma shapes).
enum class Family { MmaSync, Wgmma, Simt, Npu };

/// "gpu" | "npu", as hardware models and plans write a target kind.
constexpr const char* target_kind_name(TargetKind k) { return k == TargetKind::Gpu ? "gpu" : "npu"; }
/// The kind a name stands for; none for any other string.
inline std::optional<TargetKind> target_kind_from_name(std::string_view s) {
  if (s == "gpu") return TargetKind::Gpu;
  if (s == "npu") return TargetKind::Npu;
  return std::nullopt;
}

/// "mma.sync" | "wgmma" | "simt" | "npu".
constexpr const char* family_name(Family f) {
  switch (f) {
    case Family::MmaSync: return "mma.sync";
    case Family::Wgmma: return "wgmma";
    case Family::Simt: return "simt";
    case Family::Npu: return "npu";
  }
  return "?";
}
/// The family a name stands for; none for any other string.
inline std::optional<Family> family_from_name(std::string_view s) {
  for (Family f : {Family::MmaSync, Family::Wgmma, Family::Simt, Family::Npu})
    if (s == family_name(f)) return f;
  return std::nullopt;
}

/// One tensor-core instruction shape, e.g. mma.sync m16n8k16 f16.f16 -> f32.
struct MmaShape {
  std::string instr;  // "mma.sync" or "wgmma"
  int m = 0, n = 0, k = 0;
  std::string a_type;  // precision names as in the .dgml language: fp16, bf16, int8, ...
  std::string b_type;
  std::string acc_type;         // fp32, fp16, int32
  int n_step = 0;               // > 0: n may be any multiple of n_step up to n (wgmma m64nNk*); 0: n fixed
  bool b_k_major_only = false;  // B must be K-major (column-major): the instruction cannot transpose it
};

/// A weight precision that the target cannot multiply natively but can unpack in registers
/// into `compute_type` before a tensor-core instruction (e.g. int4 weights on Hopper).
struct InRegisterConversion {
  std::string from;                        // weight precision, e.g. int4, int4_e2m1
  std::vector<std::string> compute_types;  // e.g. fp16, bf16
};

struct GpuModel {
  std::string arch;           // "sm_90a", "sm_80", "sm_70"
  int ptx_version_major = 0;  // PTX ISA version the backend emits
  int ptx_version_minor = 0;
  int sm_count = 0;
  double boost_clock_mhz = 0;
  int warp_size = 32;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_warps_per_sm = 0;
  int regs_per_sm = 0;  // 32-bit registers
  int max_regs_per_thread = 0;
  int smem_per_sm_bytes = 0;             // configurable shared memory per SM (max carve-out)
  int smem_per_block_bytes = 0;          // max dynamic shared memory per block (opt-in)
  int smem_per_block_default_bytes = 0;  // without the opt-in attribute (48 KB)
  std::vector<int> carveout_kb;          // shared-memory carve-out choices per SM
  int smem_banks = 32;
  int smem_bank_width_bytes = 4;
  int l1_bytes = 0;  // unified L1/shared per SM
  int l2_bytes = 0;
  int l2_line_bytes = 128;
  double dram_bandwidth_gbps = 0;
  double l2_bandwidth_gbps = 0;
  double dram_latency_ns = 0;  // global-memory load latency of an L2 miss, nanoseconds
  int dram_bytes_gib = 0;
  std::vector<MmaShape> mma;            // tensor-core shapes (mma.sync and, on Hopper, wgmma)
  std::vector<std::string> simt_types;  // precisions CUDA cores can FMA without tensor cores
  std::vector<InRegisterConversion> conversions;
  std::map<std::string, double> peak_tflops;  // dense, by precision ("fp16", "int8", ...)
  // Sustained mma.sync rate by precision where it is below peak_tflops (Hopper: peak is wgmma's).
  std::map<std::string, double> mma_sync_peak_tflops;
  bool has_cluster = false;  // thread-block clusters (Hopper)
  int max_cluster_size = 1;
  bool has_cp_async = false;  // cp.async (sm_80+)
  bool has_tma = false;       // cp.async.bulk.tensor (sm_90)
};

/// A precision's rate in `rates` (peak_tflops or mma_sync_peak_tflops): its own entry, or for an
/// unsigned integer type (u4, u8) its signed sibling's (int4, int8), which the tensor cores run at
/// the same rate. nullptr when the model has neither.
const double* rate_for(const std::map<std::string, double>& rates, const std::string& type);

/// Bits an NPU input element with `value_bits` bits of value occupies in NPU memory: 4-bit
/// elements are packed two per byte, other widths up to 16 bits take a 1- or 2-byte container,
/// wider ones their own width. Tiles, bursts, the scratchpad and the generated AGUs use it.
int npu_element_bits(int value_bits);

struct NpuModel {
  int pe_rows = 0, pe_cols = 0;
  std::vector<std::string> dataflows;    // "weight_stationary", "output_stationary"
  std::vector<std::string> input_types;  // native input precisions, e.g. int4, int8, int16
  int max_custom_width = 0;              // custom sN/uN inputs up to this many bits
  int acc_width = 0;                     // accumulator bits
  int spad_banks = 0;
  int spad_rows = 0;        // rows per bank
  int spad_width_bits = 0;  // bits per row
  // Where tile row r = q * spad_banks + j (j = r mod spad_banks) lies: bank j ("modulo"), or bank
  // j XOR (q mod spad_banks) ("xor"); at word row q either way (optional, "modulo").
  std::string spad_bank_map = "modulo";
  int acc_rows = 0;             // accumulator memory rows
  int acc_width_bits = 0;       // bits per accumulator row
  int bus_data_bits = 0;        // DRAM bus data width
  int bus_max_burst_beats = 0;  // max beats per burst (AXI: 256)
  int bus_boundary_bytes = 0;   // bursts never cross this boundary (AXI: 4096)
  int bus_addr_bits = 32;       // AXI4 address width of the DMA masters, 32..64 (optional, 32)
  int dram_latency_cycles = 0;  // typical read latency
  bool drain_shadow = true;     // each PE has a shadow register, so a drain overlaps compute
  bool ld_registers = true;     // LDA, LDB, LDC: run-time row strides (false: packed rows only)
  std::uint64_t mmio_base = 0;  // register-map base address
  double clock_mhz = 0;
  std::string board;  // FPGA prototype board in boards/ ("icebreaker"), "" for none
};

/// The request queue of one generated NPU DMA stream (A, B or C), whose requests are tile rows of
/// `row_beats` bus beats: entries enough to cover the model's DRAM latency with such requests (and
/// two more), a power of two from 4 to 32 (C: to 16). The generator sizes its queues by it and the
/// cost model and the cycle estimate count with it.
int npu_queue_entries(const NpuModel& n, std::int64_t row_beats, bool c_stream);

/// Why the generated NPU (hdl-gen) cannot be built for this model, naming the field and the fix;
/// "" when it can. The spec check refuses such a model before anything is planned; the generator
/// relies on it.
std::string npu_unbuildable(const NpuModel& n);

struct HwModel {
  std::string name;         // "hopper": the name a spec's `target` uses (file stem)
  std::string description;  // "NVIDIA H100/H200 (Hopper, sm_90a)"
  std::string file;         // path it was loaded from
  TargetKind kind = TargetKind::Gpu;
  GpuModel gpu;                                // valid when kind == Gpu
  NpuModel npu;                                // valid when kind == Npu
  std::map<std::string, std::string> sources;  // field path -> source note

  bool is_gpu() const { return kind == TargetKind::Gpu; }
  bool is_npu() const { return kind == TargetKind::Npu; }

  /// The source note that covers `path` ("gpu.sm_count", "gpu.mma[3].k"): the note kept for the
  /// path itself or, failing that, for the nearest enclosing field; "" when there is none.
  std::string source_of(const std::string& path) const;
};

/// Load and validate one model. Throws dg::UserError whose message names the file and the field
/// ("hw-models/hopper.json: gpu.sm_count: expected integer in [1, 1024], got \"many\"").
HwModel load(const std::string& path);

/// Validate already-parsed JSON (used by load and by tests/fuzzing); `file` is for messages and
/// the name check (its stem must equal "name"). The schema is `<dir of file>/schema.json`.
HwModel from_json(const nlohmann::json& j, const std::string& file);

/// The same, against an already-loaded schema (see load_schema).
HwModel from_json(const nlohmann::json& j, const std::string& file, const nlohmann::json& schema);

/// Parse `text` as the contents of `file` (invalid JSON, an empty text and a duplicate key are
/// errors naming the file), then validate it against `schema`.
HwModel from_text(const std::string& text, const std::string& file, const nlohmann::json& schema);

/// Read and parse a schema file (hw-models/schema.json). Throws UserError if it is missing or is
/// not a JSON object.
nlohmann::json load_schema(const std::string& path);

/// All models in a directory (every *.json except schema.json), sorted by name.
/// A bad file is an error (UserError), not skipped.
std::vector<HwModel> load_dir(const std::string& dir);

/// The model named `name` in `dir` (dir/name.json). Throws UserError if absent or invalid.
HwModel load_named(const std::string& dir, const std::string& name);

/// Names of the models in `dir` (file stems), sorted, without loading them.
std::vector<std::string> list_names(const std::string& dir);

/// Human-readable summary: the header, then one line per field of the model's section in the
/// order the field table declares them ("  sm_count: 132"), one line per item of a list of objects
/// ("  mma[5]: instr wgmma, m 64, ...").
std::ostream& operator<<(std::ostream& os, const HwModel& m);

/// The model as a model file writes it (optional fields at their defaults left out, source notes
/// where the loader finds them); from_json reads it back to an equal model.
nlohmann::json to_json(const HwModel& m);

/// hw-models/schema.json as the field table generates it (2-space indented, a final newline). The
/// checked-in file is this text; a unit test compares them.
std::string schema_text();

}  // namespace dg::hw

// fmt prints a family or a target kind by its name ("{}" -> "mma.sync", "gpu").
template <>
struct fmt::formatter<dg::hw::Family> : fmt::formatter<std::string_view> {
  auto format(dg::hw::Family f, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(dg::hw::family_name(f), ctx);
  }
};
template <>
struct fmt::formatter<dg::hw::TargetKind> : fmt::formatter<std::string_view> {
  auto format(dg::hw::TargetKind k, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(dg::hw::target_kind_name(k), ctx);
  }
};
