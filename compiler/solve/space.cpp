#include "solve/space.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>

#include "plan/plan.h"
#include "support/error.h"

namespace dg::solve {

const char* smem_layout_name(std::int64_t v) {
  switch (v) {
    case kNone: return "none";
    case kPadded: return "padded";
    case kSwizzle32: return "swizzle_32b";
    case kSwizzle64: return "swizzle_64b";
    case kSwizzle128: return "swizzle_128b";
    case kBanked: return "banked";
    default: return "?";
  }
}

int Space::index_of(const std::string& name) const {
  for (size_t i = 0; i < vars.size(); ++i)
    if (vars[i].name == name) return static_cast<int>(i);
  return -1;
}

const Var& Space::var(const std::string& name) const {
  int i = index_of(name);
  DG_INTERNAL_ASSERT(i >= 0, "no schedule variable " + name);
  return vars[i];
}

std::int64_t Space::size() const {
  std::int64_t n = 1;
  for (const auto& v : vars) n *= static_cast<std::int64_t>(v.values.size());
  return n;
}

std::int64_t at(const Space& s, const Point& x, const std::string& name) { return x[s.index_of(name)]; }

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t scaled_log2(double v) { return static_cast<std::int64_t>(std::llround(std::log2(v) * kLogScale)); }

std::vector<std::int64_t> powers(std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> v;
  for (std::int64_t x = lo; x <= hi; x *= 2) v.push_back(x);
  return v;
}

/// A K split domain: `base`, with the split a spec forces ('split_k: N') added, in order.
std::vector<std::int64_t> with_user_split(const GemmProblem& p, std::vector<std::int64_t> base) {
  if (p.split_k.user && std::find(base.begin(), base.end(), p.split_k.value) == base.end()) {
    base.push_back(p.split_k.value);
    std::sort(base.begin(), base.end());
  }
  return base;
}

void cap(std::vector<std::int64_t>& v, int max_values) {
  if (max_values > 0 && static_cast<int>(v.size()) > max_values) v.resize(max_values);
}

const hw::MmaShape* pick_instr(const GemmProblem& p, hw::Family family) {
  std::string a = p.a.value.name;
  std::string b = p.weight_conversion.empty() ? p.b.value.name : p.weight_conversion;
  for (const auto& s : p.hw.gpu.mma)
    if (s.instr == hw::family_name(family) && s.a_type == a && s.b_type == b && s.acc_type == p.acc.value.name)
      return &s;
  return nullptr;
}

}  // namespace

/// The wgmma family (sm_90a): one or two warpgroups along M, each issuing m64nNk16 over its rows;
/// A and B are read by the tensor cores straight from 128-byte-swizzled shared memory, so a row of
/// a K tile is one 128-byte swizzle atom row (tile_k = 128 B of elements) and B's N-major tile is
/// stored as 64-element-wide slabs. One stage stays in flight under the running wgmma group, so
/// the pipeline needs at least three.
namespace {
Space make_wgmma_space(const GemmProblem& p, Space& s, int max_values) {
  const auto& g = p.hw.gpu;
  const hw::MmaShape* ins = pick_instr(p, hw::Family::Wgmma);
  DG_INTERNAL_ASSERT(ins != nullptr, "no wgmma shape for these precisions");
  s.family = hw::Family::Wgmma;
  s.im = ins->m;
  s.in = ins->n_step > 0 ? ins->n_step : ins->n;
  s.ik = ins->k;
  std::string peak_key = p.weight_conversion.empty() ? p.a.value.name : p.weight_conversion;
  const double* peak = hw::rate_for(g.peak_tflops, peak_key);
  if (peak == nullptr) peak = hw::rate_for(g.peak_tflops, p.a.value.name);
  DG_INTERNAL_ASSERT(peak != nullptr,
                     "the model check let a tensor-core input without a peak rate through: " + peak_key);
  s.peak_flops_per_ns_sm = *peak * 1e3 / g.sm_count;
  s.dram_bytes_per_ns_sm = g.dram_bandwidth_gbps / g.sm_count;
  s.l2_bytes_per_ns_sm = g.l2_bandwidth_gbps / g.sm_count;
  s.latency_ns = g.dram_latency_ns;
  const std::int64_t atom = 128;  // bytes per swizzle-atom row
  // 4-bit weights: converted by the TMA kernel's producer into K-major 16-bit stages.
  s.w4 = s.b_bits == 4 && !p.weight_conversion.empty();
  s.b_smem_bits = s.w4 ? 16 : s.b_bits;
  s.w4_group = s.w4 ? w4_group_size(p.scale_b.value.empty() ? "none" : p.scale_b.value, p.K.value) : 0;
  if (s.w4) s.w4_convert_per_ns_sm = kW4ConvertWeightsPerCycle * g.boost_clock_mhz / 1e3;
  // fp8's fine-grained scales: the TMA kernel scales each 128-k step (wgmma_tma.cpp); its tiles
  // hold one 128-column block of B's scales, or whole ones (64, 128, 256 columns).
  s.block_scaled = p.scale_b.value == "block_128";
  if (s.block_scaled) {
    const double* fp32 = hw::rate_for(g.peak_tflops, "fp32");
    DG_INTERNAL_ASSERT(fp32 != nullptr, "the model check let a GPU without an fp32 rate through");
    s.promote_per_ns_sm = *fp32 * 1e3 / 2 / g.sm_count;
  }
  const std::int64_t slab = atom * 8 / s.b_smem_bits;  // B elements per 128-byte slab row
  std::vector<std::int64_t> tm = {64, 128, 256}, tn;
  // N-major B comes in slabs of 128 bytes; a K-major B tile needs only tile_n a multiple of 64.
  std::int64_t tn_min = p.b_layout.value == Layout::RowMajor && !s.w4 ? slab : 64;
  for (std::int64_t v : powers(tn_min, ins->n)) tn.push_back(v);
  // Three slabs: a narrow N that is a multiple of 192 (576, 2112) fills every column of its
  // tiles, where 256 would leave a quarter-full last tile.
  if (192 % tn_min == 0 && 192 <= ins->n && !s.block_scaled)
    tn.insert(std::upper_bound(tn.begin(), tn.end(), 192), 192);
  std::vector<std::int64_t> tk = {atom * 8 / s.a_bits};
  // K splits: the TMA kernel reduces them (wgmma_tma.cpp); a forced split joins the domain.
  std::vector<std::int64_t> wm = {4, 8}, wn = {1}, stages = {3, 4, 5, 6}, split = with_user_split(p, {1, 2, 4, 8}),
                            raster = {1, 2, 4, 8, 16};
  std::vector<std::int64_t> occ;
  for (std::int64_t v : {1, 2}) occ.push_back(v);
  // The tensor-memory accelerator where the model has one: a producer warpgroup copies tiles for
  // the consumers (wgmma_tma.cpp); its own rules (solve.cpp) say when it can.
  std::vector<std::int64_t> loader = {kLoaderCpAsync};
  if (g.has_tma) loader.push_back(kLoaderTma);
  if (s.w4 || s.block_scaled) loader = {kLoaderTma};  // only the TMA kernel converts 4-bit weights, scales blocks
  for (auto* v : {&tm, &tn, &tk, &wm, &stages, &split, &raster, &occ}) cap(*v, max_values);
  s.vars = {
      {"tile_m", tm, fmt::format("multiples of the instruction's M ({}) per warpgroup", s.im)},
      {"tile_n", tn,
       fmt::format("powers of two from one {}-element slab up to the instruction's N ({}), and three slabs", slab,
                   ins->n)},
      {"tile_k", tk, "one 128-byte swizzle atom row of elements"},
      {"warp_m", wm, "warps along M: one or two warpgroups of 4 warps"},
      {"warp_n", wn, "a warpgroup spans the whole tile_n"},
      {"stages", stages, "pipeline depth; one stage stays under the running wgmma group"},
      {"loader", loader, "0 = cp.async by every thread, 1 = TMA by a producer warpgroup (mbarrier pipeline)"},
      {"split_k", split, "K split across blocks, reduced by each tile's last block (TMA loader only)"},
      {"raster_group", raster, "tile rows per rasterization group"},
      {"smem", {kSwizzle128}, "128-byte swizzle: the layout wgmma reads through its descriptors"},
      {"blocks_per_sm", occ, "resident blocks per SM the launch is sized for"},
      {"cluster_m", {1}, "clusters are not used yet"},
      {"cluster_n", {1}, "clusters are not used yet"},
  };
  return s;
}
}  // namespace

W4Schedule w4_schedule(std::int64_t M, std::int64_t N, std::int64_t K, const std::string& scale_b, std::int64_t sms,
                       std::int64_t lighter) {
  W4Schedule w;
  const std::int64_t group = scale_b.rfind("group_", 0) == 0 ? std::stoll(scale_b.substr(6)) : 0;
  w.group = group;
  const std::int64_t kb = ceil_div(K, 128), fm = std::min<std::int64_t>(2, ceil_div(M, 16));
  w.tile_m = 16 * fm;
  // Warps side by side along N share A's rows (one read from L2 a block): as many as still leave a
  // block for every SM, so that A is read ceil(N / (16·Wn)) times instead of N / 16. At M <= 16 a
  // grid of 15/16 of the SMs is enough: 16×4096×K ran 5-17% faster in 128 blocks of 32 columns
  // than in 256 of 16 (bench/RESULTS.md, 2026-12-05). At M <= 8 the operands are swapped and a
  // warp keeps its 16 columns.
  const std::int64_t grid_m = ceil_div(M, 16 * fm);
  const bool a_ahead = M <= 8;
  const std::int64_t fill = M <= 16 ? 15 : 16;  // sixteenths of the SMs the grid must reach
  auto shape = [&](std::int64_t wcols) {
    w.warp_n = 1;
    if (M > 8)
      for (std::int64_t wn : {8, 4, 2})
        if (16 * grid_m * ceil_div(N, wcols * wn) >= fill * sms) {
          w.warp_n = wn;
          break;
        }
    w.tile_n = wcols * w.warp_n;
    w.k_warps = std::min<std::int64_t>(std::max<std::int64_t>(1, 8 / w.warp_n), kb);
    // (Warps side by side along N keep their column offsets live across the loop: one block less
    // in flight, as with two m16 tiles, fits the registers. Groups of 32 hold twice the scales a
    // block; with 32 columns a warp they leave room for one.)
    const std::int64_t most = group == 32 && wcols == 32                            ? 1
                              : fm == 2 || w.warp_n > 1 || (a_ahead && group == 64) ? 2
                              : group == 32                                         ? 1
                                                                                    : 3;
    w.stages = 1 + std::max<std::int64_t>(1, std::min(most, ceil_div(kb, w.k_warps)));
  };
  // A warp's columns: 32 (four n8 tiles, twice the multiplies for each A fragment it loads) above
  // M = 16, where A's loads and the multiplies' chains bound the warp; 16 at M <= 16, where the
  // weights' stream does and the registers are the slots in flight.
  std::int64_t wcols = M > 16 ? 32 : 16;
  shape(wcols);
  // Each lighter step: one block fewer in flight, down to one; then 16 columns a warp.
  for (std::int64_t step = 0; step < lighter; ++step) {
    if (w.stages > 2) {
      --w.stages;
    } else if (wcols == 32) {
      wcols = 16;
      shape(wcols);
    } else {
      break;
    }
  }
  w.blocks_per_sm = fm == 1 ? 2 : 1;
  return w;
}

std::vector<hw::Family> families(const GemmProblem& p) {
  if (p.hw.is_npu()) return {hw::Family::Npu};
  if (!p.use_hmma.value) return {hw::Family::Simt};
  if (p.family.user) return {p.family.value};
  // fp8's fine-grained scales: the wgmma TMA kernel scales each 128-k step.
  if (p.scale_b.value == "block_128") return {hw::Family::Wgmma};
  // 4-bit weights converted in registers: the mma.sync family's weight-streaming kernel
  // (codegen/w4a16.cpp), whose plan says loader "registers".
  // From kW4WgmmaMinM rows on Hopper with the TMA, the wgmma family too: its TMA kernel's
  // producer converts them into the stages (codegen/wgmma_tma.cpp); the cost chooses.
  if (p.b.value.bits == 4 && !p.weight_conversion.empty()) {
    const hw::MmaShape* w = pick_instr(p, hw::Family::Wgmma);
    if (w && p.hw.gpu.has_tma && p.M.value >= kW4WgmmaMinM && p.batch.value == 1 && !p.k_dynamic && !p.m_dynamic &&
        !p.n_dynamic && !p.operands_swapped && p.a_layout.value == Layout::RowMajor &&
        p.c_layout.value == Layout::RowMajor)
      return {hw::Family::MmaSync, hw::Family::Wgmma};
    return {hw::Family::MmaSync};
  }
  std::vector<hw::Family> out;
  for (hw::Family f : {hw::Family::MmaSync, hw::Family::Wgmma}) {
    // An instruction that reads B K-major only (the model's b_k_major_only) cannot take a
    // row-major B.
    const hw::MmaShape* ins = pick_instr(p, f);
    if (ins && !(ins->b_k_major_only && p.b_layout.value == Layout::RowMajor)) out.push_back(f);
  }
  DG_INTERNAL_ASSERT(!out.empty(), "sema accepted a precision without a tensor-core shape");
  // The TMA loader (and the split-K reduction, which only its kernel generates) exists in the
  // wgmma family only: asked for, it is that family's question.
  if (((p.loader.user && p.loader.value == "tma") || (p.persistent.user && p.persistent.value) ||
       (p.split_k.user && p.split_k.value > 1)) &&
      std::find(out.begin(), out.end(), hw::Family::Wgmma) != out.end())
    return {hw::Family::Wgmma};
  return out;
}

Space make_space(const GemmProblem& p, int max_values, std::optional<hw::Family> family_in) {
  Space s;
  s.problem = &p;
  s.M = p.M.value;
  s.N = p.N.value;
  s.K = p.K.value;
  s.batch = p.batch.value;
  s.a_bits = p.a.value.bits;
  s.b_bits = p.b.value.bits;
  s.b_smem_bits = s.b_bits;
  s.c_bits = p.c.value.bits;
  s.reads_c_in = p.beta.value != 0;
  {
    const std::vector<hw::Family> fams = families(p);
    s.wgmma_alternative = std::find(fams.begin(), fams.end(), hw::Family::Wgmma) != fams.end() && p.hw.is_gpu() &&
                          p.hw.gpu.has_tma && p.batch.value == 1;
  }
  s.acc_bits = p.acc.value.bits;
  s.compute_bits = std::max(s.a_bits, p.weight_conversion.empty() ? s.b_bits : 16);
  if (p.hw.is_npu()) {
    const auto& n = p.hw.npu;
    // In NPU memory an element occupies its container (4-bit ones packed two per byte): tiles,
    // bursts and the scratchpad are sized by it.
    s.a_bits = hw::npu_element_bits(s.a_bits);
    s.b_bits = hw::npu_element_bits(s.b_bits);
    s.b_smem_bits = s.b_bits;
    s.gpu = false;
    s.family = hw::Family::Npu;
    s.im = n.pe_rows;
    s.in = n.pe_cols;
    s.ik = 1;
    s.latency_ns = n.dram_latency_cycles;  // NPU costs are in cycles
    std::vector<std::int64_t> tm, tn, tk;
    for (std::int64_t v = n.pe_rows; v <= 256; v *= 2) tm.push_back(v);
    for (std::int64_t v = n.pe_cols; v <= 256; v *= 2) tn.push_back(v);
    tk = powers(16, 1024);
    cap(tm, max_values);
    cap(tn, max_values);
    cap(tk, max_values);
    // The dataflows the model lists, each a generated engine (hdl-gen: weight stationary,
    // output stationary; sema refuses any other): the cost chooses.
    // The spec's `dataflow`, when given, is the only one (sema checked that the model lists it).
    std::vector<std::int64_t> df;
    for (const char* name : {"weight_stationary", "output_stationary"})
      if (std::find(n.dataflows.begin(), n.dataflows.end(), name) != n.dataflows.end() &&
          (!p.dataflow.user || p.dataflow.value == name))
        df.push_back(name[0] == 'w' ? 0 : 1);
    DG_INTERNAL_ASSERT(!df.empty(), "sema let an NPU model without a generated dataflow through");
    s.vars = {{"tile_m", tm, fmt::format("multiples of the {}-row PE array", n.pe_rows)},
              {"tile_n", tn, fmt::format("multiples of the {}-column PE array", n.pe_cols)},
              {"tile_k", tk, "powers of two"},
              {"dataflow", df, "0 = weight stationary, 1 = output stationary"},
              {"stages", {2}, "double-buffered scratchpad"},
              {"smem", {kBanked}, "row r of a tile in bank r mod banks"}};
    return s;
  }

  const auto& g = p.hw.gpu;
  const hw::Family family = family_in ? *family_in : families(p).front();
  if (family == hw::Family::Wgmma) return make_wgmma_space(p, s, max_values);
  if (p.use_hmma.value) {
    const hw::MmaShape* ins = pick_instr(p, hw::Family::MmaSync);
    DG_INTERNAL_ASSERT(ins != nullptr, "sema accepted a precision without an mma.sync shape");
    s.family = hw::Family::MmaSync;
    s.im = ins->m;
    s.in = ins->n;
    s.ik = ins->k;
    if (ins->m == 8 && ins->n == 8 && ins->k == 4) {
      // Volta's m8n8k4 runs four independent 8×8 products, one per quad pair of the warp: the
      // generator arranges them 2×2, so a warp steps over 16×16 of C per instruction.
      s.instr_m = ins->m;
      s.instr_n = ins->n;
      s.im = 16;
      s.in = 16;
    }
    std::string peak_key = p.weight_conversion.empty() ? p.a.value.name : p.weight_conversion;
    // mma.sync's own sustained rate where the model gives one (Hopper), else the tensor peak.
    const double* peak = hw::rate_for(g.mma_sync_peak_tflops, peak_key);
    if (peak == nullptr) peak = hw::rate_for(g.peak_tflops, peak_key);
    if (peak == nullptr) peak = hw::rate_for(g.peak_tflops, p.a.value.name);
    DG_INTERNAL_ASSERT(peak != nullptr,
                       "the model check let a tensor-core input without a peak rate through: " + peak_key);
    s.peak_flops_per_ns_sm = *peak * 1e3 / g.sm_count;
  } else {
    s.family = hw::Family::Simt;
    s.im = 16;
    s.in = 8;
    s.ik = 1;
    const double* peak = hw::rate_for(g.peak_tflops, "fp32");
    DG_INTERNAL_ASSERT(peak != nullptr, "the model check let CUDA cores without an fp32 rate through");
    s.peak_flops_per_ns_sm = *peak * 1e3 / g.sm_count;
  }
  s.dram_bytes_per_ns_sm = g.dram_bandwidth_gbps / g.sm_count;
  s.l2_bytes_per_ns_sm = g.l2_bandwidth_gbps / g.sm_count;
  s.latency_ns = g.dram_latency_ns;

  std::vector<std::int64_t> tm, tn, tk;
  for (std::int64_t v : powers(16, 256))
    if (v % s.im == 0) tm.push_back(v);
  for (std::int64_t v : powers(16, 256))
    if (v % s.in == 0) tn.push_back(v);
  std::int64_t kmin = std::max<std::int64_t>(16, s.ik);
  for (std::int64_t v : powers(kmin, 128))
    if (v % s.ik == 0 && v % std::max(1, p.k_step) == 0) tk.push_back(v);
  std::vector<std::int64_t> wm = {1, 2, 4, 8}, wn = {1, 2, 4, 8};
  std::vector<std::int64_t> stages;
  for (std::int64_t v = 1; v <= (g.has_cp_async ? 6 : 2); ++v) stages.push_back(v);
  // split_k stays 1 on mma.sync (family.split_k says why; a forced split joins the domain for that
  // rule to refuse); the SIMT kernel splits K for few tiles over a long K, at a K fixed at compile
  // time.
  std::vector<std::int64_t> split =
      with_user_split(p, s.family == hw::Family::Simt && !p.k_dynamic ? std::vector<std::int64_t>{1, 2, 4, 8, 16, 32}
                                                                      : std::vector<std::int64_t>{1});
  std::vector<std::int64_t> raster = {1, 2, 4, 8, 16};
  std::vector<std::int64_t> layouts = {kNone, kPadded, kSwizzle32, kSwizzle64, kSwizzle128};
  std::vector<std::int64_t> occ;
  for (std::int64_t v : {1, 2, 3, 4, 6, 8})
    if (v <= g.max_blocks_per_sm) occ.push_back(v);
  for (auto* v : {&tm, &tn, &tk, &wm, &wn, &stages, &raster, &layouts, &occ}) cap(*v, max_values);
  s.vars = {
      {"tile_m", tm, fmt::format("powers of two, multiples of the instruction's M ({})", s.im)},
      {"tile_n", tn, fmt::format("powers of two, multiples of the instruction's N ({})", s.in)},
      {"tile_k", tk,
       fmt::format("powers of two, multiples of the K step ({})", std::max<std::int64_t>(p.k_step, s.ik))},
      {"warp_m", wm, "warps along M"},
      {"warp_n", wn, "warps along N"},
      {"stages", stages, g.has_cp_async ? "cp.async pipeline depth" : "register double buffering (no cp.async)"},
      {"split_k", split,
       s.family == hw::Family::Simt ? "K split across blocks, reduced by each tile's last block"
                                    : "K split across blocks (the reduction is generated for the wgmma TMA kernel "
                                      "and the SIMT kernel only)"},
      {"raster_group", raster, "tile rows per rasterization group"},
      {"smem", layouts, "shared-memory layout"},
      {"blocks_per_sm", occ, "resident blocks per SM the launch is sized for"},
      {"cluster_m", {1}, "the mma.sync family does not use clusters"},
      {"cluster_n", {1}, "the mma.sync family does not use clusters"},
  };
  return s;
}

// ---- GPU derived quantities ------------------------------------------------------------------

std::int64_t stage_bytes(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk) {
  return (tm * tk * s.a_bits + tk * tn * s.b_smem_bits) / 8;
}

std::int64_t dram_stage_bytes(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk) {
  return (tm * tk * s.a_bits + tk * tn * s.b_bits) / 8;
}

void smem_tile_shape(const Space& s, bool a, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t& rows,
                     std::int64_t& row_bytes) {
  const GemmProblem& p = *s.problem;
  if (a) {
    bool rm = p.a_layout.value == Layout::RowMajor;
    rows = rm ? tm : tk;
    row_bytes = (rm ? tk : tm) * s.a_bits / 8;
  } else {
    bool rm = p.b_layout.value == Layout::RowMajor && !s.w4;  // 4-bit weights: a K-major stage
    rows = rm ? tk : tn;
    row_bytes = (rm ? tn : tk) * s.b_smem_bits / 8;
  }
  // wgmma reads 128-byte swizzle atoms: a wider row is stored as 128-byte slabs, one after the
  // other (slab-major), each holding every row of the tile.
  if (s.family == hw::Family::Wgmma && row_bytes > 128) {
    rows *= row_bytes / 128;
    row_bytes = 128;
  }
}

std::int64_t pad_bytes(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t layout) {
  if (layout != kPadded) return 0;
  std::int64_t ra, ba, rb, bb;
  smem_tile_shape(s, true, tm, tn, tk, ra, ba);
  smem_tile_shape(s, false, tm, tn, tk, rb, bb);
  return 16 * (ra + rb);
}

std::int64_t smem_bytes(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t stages,
                        std::int64_t layout) {
  return stages * (stage_bytes(s, tm, tn, tk) + pad_bytes(s, tm, tn, tk, layout)) + staging_bytes(s, tn);
}

std::int64_t staging_bytes(const Space& s, std::int64_t tn) { return s.w4 ? w4_staging_bytes(tn, s.w4_group) : 0; }

std::int64_t threads(std::int64_t wm, std::int64_t wn) { return 32 * wm * wn; }

namespace {
std::int64_t lda_of(const Space& s) { return s.problem->a_layout.value == Layout::RowMajor ? s.K : s.M; }
std::int64_t ldb_of(const Space& s) { return s.problem->b_layout.value == Layout::RowMajor ? s.N : s.K; }
}  // namespace

bool tma_strides_aligned(const Space& s) {
  // 4-bit weights are staged by cp.async from their packed layout, not mapped.
  return (lda_of(s) * s.a_bits) % 128 == 0 && (s.w4 || (ldb_of(s) * s.b_bits) % 128 == 0);
}

std::string tma_strides_rule(const Space& s) {
  return fmt::format(
      "the TMA loader needs A's and B's row strides to be multiples of 16 bytes (A: {} × {} bits, "
      "B: {} × {} bits)",
      lda_of(s), s.a_bits, ldb_of(s), s.b_bits);
}

std::string tma_refusal(const Space& s) {
  if (!tma_strides_aligned(s)) return tma_strides_rule(s) + " [hw.tma_strides]";
  if (s.batch != 1) return std::string(kTmaBatchRule) + " [hw.tma_batch]";
  return "";
}

bool rows_by_element(const Space& s, bool a) {
  // Without cp.async (Volta's m8n8k4) every tile travels through registers anyway, counted in
  // regs_per_thread's staging.
  if (!s.gpu || !s.problem->hw.gpu.has_cp_async) return false;
  if (!a && s.w4) return false;  // 4-bit weights: whole 512-byte blocks (the packed layout)
  return a ? (lda_of(s) * s.a_bits) % 128 != 0 : (ldb_of(s) * s.b_bits) % 128 != 0;
}

std::int64_t element_load_registers(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t wm,
                                    std::int64_t wn, std::int64_t stages) {
  const bool a = rows_by_element(s, true), b = rows_by_element(s, false);
  if (!a && !b) return 0;
  const std::int64_t elems = (a ? tm * tk : 0) + (b ? tk * tn : 0);
  // Two registers per element: its value and its address (ptxas put a 32×16×128 tile of a bf16 A and
  // B with 4 warps at 128 registers with 2 stages, 230 with 3, 255 and a spill with 4).
  return std::max<std::int64_t>(1, stages - 1) * 2 * ceil_div(elems, threads(wm, wn)) + 16;
}

std::int64_t block_threads(std::int64_t wm, std::int64_t wn, std::int64_t loader) {
  return threads(wm, wn) + (loader == kLoaderTma ? 128 : 0);
}

std::int64_t block_registers(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t wm,
                             std::int64_t wn, std::int64_t loader) {
  const std::int64_t r = regs_per_thread(s, tm, tn, tk, wm, wn);
  // A TMA producer warpgroup gives its registers back (setmaxnreg) down to kProducerRegisters.
  return r * threads(wm, wn) + (loader == kLoaderTma ? 128 * (s.w4 ? kW4ProducerRegisters : kProducerRegisters) : 0);
}

std::int64_t regs_per_thread(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t wm,
                             std::int64_t wn) {
  if (s.family == hw::Family::Wgmma) {
    // A warpgroup's accumulators are spread over its 128 threads; operands stay in shared memory.
    std::int64_t groups = std::max<std::int64_t>(1, wm * wn / 4);
    // 64: descriptors, addresses, loads, the epilogue's predicates (ptxas spilled 112 to 240
    // bytes with 192 accumulators a thread: 256×192 in two warpgroups, 128×192 in one).
    // Fine-grained fp8 scales: a second set for each 128-k step's partial sums, and the step's scales.
    const std::int64_t sets = s.block_scaled ? 2 : 1;
    return sets * ceil_div(tm / groups * tn * s.acc_bits, 128 * 32) + 64 + (s.block_scaled ? 8 : 0);
  }
  std::int64_t wtm = std::max<std::int64_t>(1, tm / wm), wtn = std::max<std::int64_t>(1, tn / wn);
  std::int64_t acc = ceil_div(wtm * wtn * s.acc_bits, 32 * 32);
  std::int64_t kstep = s.family == hw::Family::Simt ? 1 : s.ik;
  std::int64_t frag =
      2 * (ceil_div(wtm * kstep * s.compute_bits, 32 * 32) + ceil_div(wtn * kstep * s.compute_bits, 32 * 32));
  // Without cp.async the next K tile travels through registers: its share of the tile per thread,
  // and the global addresses and predicates of its loads (48 more: ptxas for sm_75, the oldest
  // target CUDA 13 assembles, put the Volta example's kernel at 255 registers where this estimate
  // said 214 without them).
  std::int64_t staging = s.problem->hw.is_gpu() && !s.problem->hw.gpu.has_cp_async && s.family != hw::Family::Simt
                             ? ceil_div(stage_bytes(s, tm, tn, tk), threads(wm, wn) * 4) + 48
                             : 0;
  return acc + frag + staging + 32;  // 32: addresses, loop counters, predicates
}

std::int64_t smem_offset(std::int64_t row, std::int64_t chunk, std::int64_t row_bytes, std::int64_t layout) {
  std::int64_t pitch = row_bytes + (layout == kPadded ? 16 : 0);
  std::int64_t off = row * pitch + chunk * 16;
  int b = layout == kSwizzle32 ? 1 : layout == kSwizzle64 ? 2 : layout == kSwizzle128 ? 3 : 0;
  if (b > 0) off ^= ((off >> 7) & ((1 << b) - 1)) << 4;
  return off;
}

std::int64_t bank_conflict_milli(const Space& s, std::int64_t rows, std::int64_t row_bytes, std::int64_t layout) {
  if (row_bytes < 16 || row_bytes % 16 != 0) return 1000;  // 16-byte accesses need 16-byte rows
  const auto& g = s.problem->hw.gpu;
  const std::int64_t bank_bytes = g.smem_bank_width_bytes;
  const std::int64_t banks = g.smem_banks;
  const std::int64_t chunks = row_bytes / 16;
  rows = std::min<std::int64_t>(rows, 64);
  std::int64_t wavefronts = 0, ideal = 0;
  // One phase = 8 lanes × 16 bytes = one ideal wavefront over all banks (32 × 4 B).
  auto phase = [&](const std::vector<std::int64_t>& offs) {
    // Wavefronts = the most distinct 4-byte-bank rows any bank must serve.
    std::vector<std::set<std::int64_t>> per_bank(banks);
    for (std::int64_t o : offs)
      for (std::int64_t w = 0; w < 16 / bank_bytes; ++w) {
        std::int64_t word = o / bank_bytes + w;
        per_bank[word % banks].insert(word / banks);
      }
    std::int64_t need = 1;
    for (const auto& b : per_bank) need = std::max<std::int64_t>(need, static_cast<std::int64_t>(b.size()));
    wavefronts += need;
    ideal += 1;
  };
  // Stores: consecutive lanes write consecutive 16-byte chunks, row after row (cp.async).
  std::int64_t total_chunks = rows * chunks;
  for (std::int64_t q0 = 0; q0 < total_chunks; q0 += 8) {
    std::vector<std::int64_t> offs;
    for (std::int64_t t = 0; t < 8 && q0 + t < total_chunks; ++t)
      offs.push_back(smem_offset((q0 + t) / chunks, (q0 + t) % chunks, row_bytes, layout));
    phase(offs);
  }
  // Loads: 8 consecutive rows at one 16-byte chunk (ldmatrix and its transpose).
  for (std::int64_t r0 = 0; r0 + 8 <= rows; r0 += 8)
    for (std::int64_t c = 0; c < chunks; ++c) {
      std::vector<std::int64_t> offs;
      for (std::int64_t t = 0; t < 8; ++t) offs.push_back(smem_offset(r0 + t, c, row_bytes, layout));
      phase(offs);
    }
  return wavefronts == 0 ? 0 : (1000 * (wavefronts - ideal) + wavefronts / 2) / wavefronts;
}

std::int64_t l2_hit_milli(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t raster, std::int64_t occ) {
  const auto& g = s.problem->hw.gpu;
  const double ab = s.a_bits / 8.0, bb = s.b_bits / 8.0;
  const std::int64_t tiles_m = ceil_div(s.M, tm), tiles_n = ceil_div(s.N, tn);
  const std::int64_t tiles = tiles_m * tiles_n * s.batch;
  // Whole problem: every byte of A and B fetched from DRAM once.
  const double requested = static_cast<double>(tiles) * (tm * ab + tn * bb);
  const double unique_all = static_cast<double>(s.batch) * (s.M * ab + s.N * bb);
  const double h_ideal = std::max(0.0, 1.0 - unique_all / requested);
  const double footprint = static_cast<double>(s.batch) * s.K * (s.M * ab + s.N * bb);
  double h = h_ideal;
  if (footprint > g.l2_bytes / 2.0) {
    // Only the blocks in flight share data: a wave covers `rows` tile rows × `cols` tile columns.
    const std::int64_t wave = std::min<std::int64_t>(tiles, g.sm_count * occ);
    const std::int64_t rows = std::min({raster, tiles_m, wave});
    const std::int64_t cols = std::min(ceil_div(wave, rows), tiles_n);
    const double unique = rows * tm * ab + cols * tn * bb;
    const double req = wave * (tm * ab + tn * bb);
    h = std::min(h_ideal, std::max(0.0, 1.0 - unique / req));
  }
  return static_cast<std::int64_t>(std::floor(h * 1000));
}

// ---- cost --------------------------------------------------------------------------------------

std::int64_t CostTerms::total() const { return waves + iters + epilogue + loader + std::max({math, mem, latency}); }

const char* CostTerms::bound() const {
  std::int64_t m = std::max({math, mem, latency});
  return m == math ? "compute" : m == mem ? "memory" : "latency";
}

std::int64_t log_waves(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t split, std::int64_t occ) {
  std::int64_t units = s.gpu ? s.problem->hw.gpu.sm_count * occ : 1;
  std::int64_t tiles = ceil_div(s.M, tm) * ceil_div(s.N, tn) * split * s.batch;
  return scaled_log2(static_cast<double>(ceil_div(tiles, units)));
}

std::int64_t log_iters(const Space& s, std::int64_t tk, std::int64_t split, std::int64_t stages) {
  // The pipeline runs k_iters + stages - 1 steps. With a single buffer, loads and math cannot
  // overlap: each step then costs up to the sum of the two, bounded here by twice the larger.
  std::int64_t k_iters = ceil_div(s.K, tk * split);
  double serial = stages == 1 ? 2.0 : 1.0;
  return scaled_log2(serial * static_cast<double>(k_iters + stages - 1));
}

std::int64_t log_epilogue(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t split) {
  // The epilogue writes the C tile (reads C_in's with beta, and, with split_k, reads and writes
  // fp32/int32 partials);
  // measured in main-loop iterations' worth of operand traffic.
  // Split K: each block writes its partial tile, and the tile's last block (the one on the
  // critical path) reads the other split_k - 1 back before the one epilogue: split_k partial
  // tiles of traffic on that block.
  // beta ≠ 0: the C_in tile is read as well.
  double c_bytes = (s.reads_c_in ? 2.0 : 1.0) * tm * tn * s.c_bits / 8.0;
  if (split > 1) c_bytes += static_cast<double>(split) * tm * tn * s.acc_bits / 8.0;
  double per_iter = static_cast<double>(dram_stage_bytes(s, tm, tn, tk));
  double k_iters = static_cast<double>(ceil_div(s.K, tk * split));
  return scaled_log2(1.0 + c_bytes / per_iter / k_iters);
}

namespace {
double warp_efficiency(const Space& s, std::int64_t wtm, std::int64_t wtn) {
  // Instruction-level parallelism of one warp's tile: a 64×64 warp tile keeps the tensor pipe busy
  // between fragment loads; smaller ones expose load latency (see cost_model.md). For wgmma the
  // instruction's N (the whole tile_n) sets the shared-memory operand bytes per flop, which go
  // as (64 + N) / N for m64nNk16: relative to N = 256, sqrt(1.25·N / (64 + N)).
  double area = static_cast<double>(wtm * wtn);
  if (s.family == hw::Family::Wgmma)
    return std::sqrt(1.25 * static_cast<double>(wtn) / (64.0 + static_cast<double>(wtn)));
  double eff = std::min(1.0, std::pow(area / 4096.0, 0.25));
  if (s.family == hw::Family::Simt) eff = std::min(1.0, std::pow(area / 2048.0, 0.25));
  return eff;
}
}  // namespace

std::int64_t log_math_tile(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk) {
  double ns = 2.0 * tm * tn * tk / s.peak_flops_per_ns_sm;
  // 4-bit weights on wgmma: the producer's conversion of the step's B tile runs beside the
  // multiplies (kW4ConvertWeightsPerCycle); the slower of the two sets the step.
  if (s.w4_convert_per_ns_sm > 0) ns = std::max(ns, static_cast<double>(tn * tk) / s.w4_convert_per_ns_sm);
  // Fine-grained fp8 scales: after each 128-k step's multiplies retire, one fused multiply-add per
  // accumulator on the CUDA cores adds the scaled partial sums, counted after the multiplies.
  if (s.block_scaled)
    ns += static_cast<double>(tm * tn) * static_cast<double>(ceil_div(tk, kScaleBlock)) / s.promote_per_ns_sm;
  return scaled_log2(ns);
}

std::int64_t log_math_warps(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t wm, std::int64_t wn) {
  std::int64_t wtm = std::max<std::int64_t>(1, tm / wm), wtn = std::max<std::int64_t>(1, tn / wn);
  return -scaled_log2(warp_efficiency(s, wtm, wtn));
}

std::int64_t log_math_occ(const Space& s, std::int64_t wm, std::int64_t wn, std::int64_t occ) {
  // occ blocks share the SM's math; fewer than 4 resident warps leave sub-partitions idle.
  double warps = static_cast<double>(wm * wn * occ);
  double busy = std::min(1.0, warps / 4.0);
  (void)s;
  return scaled_log2(static_cast<double>(occ) / busy);
}

std::int64_t log_mem_tile(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk) {
  return scaled_log2(static_cast<double>(dram_stage_bytes(s, tm, tn, tk)));
}

std::int64_t log_mem_rate(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t raster, std::int64_t occ) {
  double h = l2_hit_milli(s, tm, tn, raster, occ) / 1000.0;
  double ns_per_byte = (1.0 - h) / s.dram_bytes_per_ns_sm + h / s.l2_bytes_per_ns_sm;
  return scaled_log2(occ * ns_per_byte);
}

std::int64_t log_latency(const Space& s, std::int64_t stages) {
  // With `stages` buffers, stages-1 loads are in flight while one is consumed: each step waits at
  // least latency / (stages - 1). With one buffer every step waits the full latency. wgmma keeps
  // one more stage busy under its running group: stages - 2 loads in flight.
  std::int64_t ahead = s.family == hw::Family::Wgmma ? stages - 2 : stages - 1;
  double exposed = ahead > 0 ? s.latency_ns / static_cast<double>(ahead) : s.latency_ns;
  return scaled_log2(exposed);
}

std::int64_t log_loader(const Space& s, std::int64_t loader) {
  // The wgmma family with cp.async loads in every thread (a block barrier per K tile, the loads'
  // waits in the computing warps) ran 1.01-1.44x slower than the same tiles with the TMA loader,
  // geometric mean 1.077 over 12 shapes (bf16 M = 128 to 8192, fp8 4096^3 and 8192^3; H200,
  // bench/RESULTS.md, "Hopper: a TMA loader"). Both loaders' other terms are the same model.
  // The mma.sync family (cp.async in the computing warps, a block barrier per K tile) where the
  // wgmma family's 64-row tiles with the TMA loader can take the problem too (unbatched, strides
  // TMA maps): at M = 64 on fp16 it ran 1.44-1.54x slower against the model than wgmma with the
  // TMA loader (geometric mean 1.50 over 3 shapes, N = 7168-24576, K = 1536-4096; H200,
  // bench/RESULTS.md, "M = 64 on wgmma", run 29). Applied from M = 64 on 16-bit inputs, the
  // measured regime, to every mma.sync point alike, so that it moves the choice between the
  // families and not the one among mma.sync tiles.
  if (s.family == hw::Family::MmaSync && s.wgmma_alternative && s.M >= 64 && s.a_bits == 16 && tma_strides_aligned(s))
    return scaled_log2(1.5);
  if (s.family != hw::Family::Wgmma || loader == kLoaderTma) return 0;
  return scaled_log2(1.077);
}

// ---- NPU ----------------------------------------------------------------------------------------

std::int64_t npu_spad_bytes(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk) {
  return 2 * ((tm * tk * s.a_bits + tk * tn * s.b_bits + 7) / 8);  // double-buffered
}

std::int64_t npu_acc_bytes(const Space& s, std::int64_t tm, std::int64_t tn) {
  return 2 * tm * tn * s.acc_bits / 8;  // double-buffered: the engine fills one C tile while the DMA writes the other
}

hw::NpuLayout npu_layout_of(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t df) {
  hw::NpuTiling t;
  t.M = s.M;
  t.N = s.N;
  t.K = s.K;
  t.tile_m = tm;
  t.tile_n = tn;
  t.tile_k = tk;
  t.a_bits = s.a_bits;
  t.b_bits = s.b_bits;
  t.c_bits = s.c_bits;
  t.output_stationary = df == 1;
  t.b_col_major = s.problem->b_layout.value == Layout::ColMajor;
  t.a_col_major = s.problem->a_layout.value == Layout::ColMajor;
  const auto& epi = s.problem->epilogue;
  t.epi_bytes = hw::npu_epilogue_bytes(s.N, epi.user && !epi.value.empty() ? epi.value.front() : "none", s.c_bits);
  return hw::npu_layout(s.problem->hw.npu, t);
}

std::int64_t npu_log_cycles(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t df) {
  return scaled_log2(static_cast<double>(std::max<std::int64_t>(1, npu_layout_of(s, tm, tn, tk, df).cycles)));
}

CostTerms cost_terms(const Space& s, const Point& x) {
  CostTerms t;
  auto v = [&](const char* n) { return at(s, x, n); };
  if (!s.gpu) {
    // One figure: the layout's cycle estimate, which the generator's BOUND register and the
    // co-simulation report show too. Its larger part names the bound.
    const hw::NpuLayout l = npu_layout_of(s, v("tile_m"), v("tile_n"), v("tile_k"), v("dataflow"));
    const std::int64_t total = scaled_log2(static_cast<double>(std::max<std::int64_t>(1, l.cycles)));
    const bool compute = l.compute_cycles >= l.dma_cycles;
    t.math = compute ? total : scaled_log2(static_cast<double>(std::max<std::int64_t>(1, l.compute_cycles)));
    t.mem = compute ? scaled_log2(static_cast<double>(std::max<std::int64_t>(1, l.dma_cycles))) : total;
    t.latency = 0;
    return t;
  }
  std::int64_t tm = v("tile_m"), tn = v("tile_n"), tk = v("tile_k"), wm = v("warp_m"), wn = v("warp_n");
  std::int64_t stages = v("stages"), split = v("split_k"), raster = v("raster_group"), occ = v("blocks_per_sm");
  t.waves = log_waves(s, tm, tn, split, occ);
  t.iters = log_iters(s, tk, split, stages);
  t.epilogue = log_epilogue(s, tm, tn, tk, split);
  t.math = log_math_tile(s, tm, tn, tk) + log_math_warps(s, tm, tn, wm, wn) + log_math_occ(s, wm, wn, occ);
  t.mem = log_mem_tile(s, tm, tn, tk) + log_mem_rate(s, tm, tn, raster, occ);
  t.latency = log_latency(s, stages);
  t.loader = log_loader(s, s.index_of("loader") >= 0 ? v("loader") : kLoaderCpAsync);
  return t;
}

}  // namespace dg::solve
