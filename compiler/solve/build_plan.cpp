#include "solve/build_plan.h"

#include <algorithm>
#include <numeric>
#include <cmath>
#include <fmt/format.h>

#include "solve/query.h"
#include "support/error.h"

namespace dg::solve {

namespace {

IndexDesc make_index(const Space& s, const Plan& pl) {
  IndexDesc d;
  const GemmProblem& p = *s.problem;
  std::int64_t tm = pl.tile_m, tn = pl.tile_n, tk = pl.tile_k;
  std::int64_t grid_m = ceil_div(s.M, tm), grid_n = ceil_div(s.N, tn);
  std::int64_t k_tiles = ceil_div(s.K, tk);
  std::int64_t kps = ceil_div(k_tiles, pl.split_k);  // K tiles per split
  if (s.gpu && s.family == hw::Family::Wgmma) {
    // Warpgroup g owns rows [g·gtm, (g+1)·gtm) of the tile, in m64 fragments; inside one, warp w
    // owns 16 rows (the m64nNk16 accumulator layout); every warpgroup spans the whole tile_n.
    std::int64_t groups = pl.warp_m / 4, gtm = tm / groups;
    d.out_vars = {{"block_m", grid_m}, {"group_m", groups}, {"frag_m", gtm / s.im}, {"warp_m", 4},
                  {"elem_m", 16},      {"block_n", grid_n}, {"frag_n", tn / 8},     {"elem_n", 8}};
    d.c_row = {{{"block_m", tm}, {"group_m", gtm}, {"frag_m", s.im}, {"warp_m", 16}, {"elem_m", 1}}, 0};
    d.c_col = {{{"block_n", tn}, {"frag_n", 8}, {"elem_n", 1}}, 0};
    d.inverse = {{"block_m", "row", tm, 0},    {"group_m", "row", gtm, groups}, {"frag_m", "row", s.im, gtm / s.im},
                 {"warp_m", "row", 16, 4},     {"elem_m", "row", 1, 16},        {"block_n", "col", tn, 0},
                 {"frag_n", "col", 8, tn / 8}, {"elem_n", "col", 1, 8}};
  } else if (s.gpu) {
    std::int64_t wtm = tm / pl.warp_m, wtn = tn / pl.warp_n;
    d.out_vars = {{"block_m", grid_m}, {"warp_m", pl.warp_m}, {"frag_m", wtm / s.im}, {"elem_m", s.im},
                  {"block_n", grid_n}, {"warp_n", pl.warp_n}, {"frag_n", wtn / s.in}, {"elem_n", s.in}};
    d.c_row = {{{"block_m", tm}, {"warp_m", wtm}, {"frag_m", s.im}, {"elem_m", 1}}, 0};
    d.c_col = {{{"block_n", tn}, {"warp_n", wtn}, {"frag_n", s.in}, {"elem_n", 1}}, 0};
    d.inverse = {{"block_m", "row", tm, 0},           {"warp_m", "row", wtm, pl.warp_m},
                 {"frag_m", "row", s.im, wtm / s.im}, {"elem_m", "row", 1, s.im},
                 {"block_n", "col", tn, 0},           {"warp_n", "col", wtn, pl.warp_n},
                 {"frag_n", "col", s.in, wtn / s.in}, {"elem_n", "col", 1, s.in}};
  } else {
    std::int64_t r = p.hw.npu.pe_rows, c = p.hw.npu.pe_cols;
    d.out_vars = {{"block_m", grid_m}, {"pass_m", tm / r}, {"pe_row", r},
                  {"block_n", grid_n}, {"pass_n", tn / c}, {"pe_col", c}};
    d.c_row = {{{"block_m", tm}, {"pass_m", r}, {"pe_row", 1}}, 0};
    d.c_col = {{{"block_n", tn}, {"pass_n", c}, {"pe_col", 1}}, 0};
    d.inverse = {{"block_m", "row", tm, 0}, {"pass_m", "row", r, tm / r}, {"pe_row", "row", 1, r},
                 {"block_n", "col", tn, 0}, {"pass_n", "col", c, tn / c}, {"pe_col", "col", 1, c}};
  }
  d.k_vars = {{"split", pl.split_k}, {"k_tile", kps}, {"k_elem", tk}};
  d.k_index = {{{"split", kps * tk}, {"k_tile", tk}, {"k_elem", 1}}, 0};
  d.inverse.push_back({"split", "k", kps * tk, 0});
  d.inverse.push_back({"k_tile", "k", tk, kps});
  d.inverse.push_back({"k_elem", "k", 1, tk});
  if (pl.k_warps > 1) {
    // The 4-bit weight kernel: warp w of a block takes the K tiles w, w + k_warps, ...
    const std::int64_t W = pl.k_warps, steps = ceil_div(k_tiles, W);
    d.k_vars = {{"k_warp", W}, {"k_step", steps}, {"k_elem", tk}};
    d.k_index = {{{"k_warp", tk}, {"k_step", W * tk}, {"k_elem", 1}}, 0};
    d.inverse.resize(d.inverse.size() - 3);
    d.inverse.push_back({"k_warp", "k", tk, W});
    d.inverse.push_back({"k_step", "k", W * tk, 0});
    d.inverse.push_back({"k_elem", "k", 1, tk});
  }
  d.a_row_major = p.a_layout.value == Layout::RowMajor;
  d.b_row_major = p.b_layout.value == Layout::RowMajor;
  d.c_row_major = p.c_layout.value == Layout::RowMajor;
  d.lda = d.a_row_major ? s.K : s.M;
  d.ldb = d.b_row_major ? s.N : s.K;
  d.ldc = d.c_row_major ? s.N : s.M;
  if (s.gpu && pl.loader != "registers") {  // the 4-bit weight kernel stages no tiles
    smem_tile_shape(s, true, tm, tn, tk, d.a_smem_rows, d.a_smem_row_bytes);
    smem_tile_shape(s, false, tm, tn, tk, d.b_smem_rows, d.b_smem_row_bytes);
    std::int64_t lay = 0;
    for (std::int64_t v = kNone; v <= kSwizzle128; ++v)
      if (pl.smem_layout == smem_layout_name(v)) lay = v;
    d.smem_row_pad_bytes = lay == kPadded ? 16 : 0;
    d.swizzle_bits = lay == kSwizzle32 ? 1 : lay == kSwizzle64 ? 2 : lay == kSwizzle128 ? 3 : 0;
  }
  return d;
}

}  // namespace

Plan make_plan(const Space& s, const Point& x, const std::vector<Rule>& rules) {
  const GemmProblem& p = *s.problem;
  auto v = [&](const char* n) { return s.index_of(n) >= 0 ? at(s, x, n) : 1; };
  Plan pl;
  pl.target = p.hw.name;
  pl.target_kind = s.gpu ? hw::TargetKind::Gpu : hw::TargetKind::Npu;
  pl.family = s.family;
  pl.a_type = p.a.value.name;
  pl.b_type = p.b.value.name;
  pl.c_type = p.c.value.name;
  pl.acc_type = p.acc.value.name;
  pl.weight_conversion = p.weight_conversion;
  pl.M = s.M;
  pl.N = s.N;
  pl.K = s.K;
  pl.K_min = p.K_min.value;
  pl.K_max = p.K_max.value;
  pl.batch = s.batch;
  pl.k_dynamic = p.k_dynamic;
  pl.m_dynamic = p.m_dynamic;
  pl.M_min = p.M_min.value;
  pl.n_dynamic = p.n_dynamic;
  pl.operands_swapped = p.operands_swapped;
  pl.N_min = p.N_min.value;
  pl.pad_k = p.pad_k.value;
  if (p.epilogue.user) pl.epilogue = p.epilogue.value.front();
  pl.alpha = p.alpha.value;
  pl.beta = p.beta.value;
  pl.scale_a = p.scale_a.value.empty() ? "none" : p.scale_a.value;
  pl.scale_b = p.scale_b.value.empty() ? "none" : p.scale_b.value;
  pl.tile_m = v("tile_m");
  pl.tile_n = v("tile_n");
  pl.tile_k = v("tile_k");
  pl.instr_m = s.instr_m > 0 ? s.instr_m : s.im;
  pl.instr_n = s.instr_n > 0 ? s.instr_n : s.in;
  pl.instr_k = s.ik;
  pl.grid_m = ceil_div(s.M, pl.tile_m);
  pl.grid_n = ceil_div(s.N, pl.tile_n);
  pl.stages = v("stages");
  pl.smem_layout = smem_layout_name(v("smem"));
  CostTerms ct = cost_terms(s, x);
  double ns = std::exp2(static_cast<double>(ct.total()) / kLogScale);
  pl.bound = ct.bound();
  if (s.gpu) {
    pl.warp_m = v("warp_m");
    pl.warp_n = v("warp_n");
    pl.split_k = v("split_k");
    pl.raster_group = v("raster_group");
    pl.blocks_per_sm = v("blocks_per_sm");
    pl.cluster_m = v("cluster_m");
    pl.cluster_n = v("cluster_n");
    pl.loader = s.index_of("loader") >= 0 && at(s, x, "loader") == kLoaderTma ? "tma" : "cp.async";
    pl.threads = block_threads(pl.warp_m, pl.warp_n, pl.loader == "tma" ? kLoaderTma : kLoaderCpAsync);
    // The TMA kernel's persistent tile loop: one block per resident slot, each taking several
    // tiles, where the tiles outnumber the slots; one block per tile where they fit in one wave
    // (there the loop only costs: 3% at 128 × 14336 × 4096 on the H200, while multi-wave shapes
    // gained 0-4.5%; bench/RESULTS.md, "Hopper: a TMA loader"). 'persistent: true' or 'false' in
    // the spec decides instead.
    // A split K takes one block per (tile, split): no tile loop (family.split_k_persistent).
    if (pl.loader == "tma" && pl.split_k == 1) {
      const std::int64_t tiles = ceil_div(s.M, pl.tile_m) * ceil_div(s.N, pl.tile_n);
      const std::int64_t slots = std::max<std::int64_t>(1, p.hw.gpu.sm_count) * pl.blocks_per_sm;
      const bool persistent = p.persistent.user ? p.persistent.value : tiles > slots;
      if (persistent) pl.persistent_blocks = std::min(tiles, slots);
    }
    // Where the TMA loader's rules leave only cp.async, the plan says which one (--verbose, plan).
    if (pl.family == hw::Family::Wgmma && pl.loader == "cp.async" && p.hw.gpu.has_tma && !p.loader.user)
      if (std::string why = tma_refusal(s); !why.empty()) pl.notes.push_back("tiles are loaded by cp.async: " + why);
    pl.smem_bytes = smem_bytes(s, pl.tile_m, pl.tile_n, pl.tile_k, pl.stages, v("smem")) +
                    (pl.loader == "tma" ? kTmaBarrierBytes * pl.stages : 0);
    pl.regs_per_thread = regs_per_thread(s, pl.tile_m, pl.tile_n, pl.tile_k, pl.warp_m, pl.warp_n) +
                         element_load_registers(s, pl.tile_m, pl.tile_n, pl.tile_k, pl.warp_m, pl.warp_n, pl.stages);
    // C through the tensor-memory accelerator (wgmma_tma.cpp): each consumer warpgroup writes a
    // 128-byte-wide column slab of its rows into one of two shared-memory buffers, and the copy
    // engine stores it while the warpgroup goes on (the next slab, the next tile's wgmma). With a
    // split K, the tile's last block stores the sum so. For the TMA kernel, one packed row-major C
    // of 16- or 32-bit elements whose rows are whole 16-byte chunks, where the two buffers still
    // fit beside the stages.
    if (pl.family == hw::Family::Wgmma && pl.loader == "tma" && s.batch == 1 && p.c_layout.value == Layout::RowMajor &&
        (s.c_bits == 16 || s.c_bits == 32) && (s.N * s.c_bits / 8) % 16 == 0) {
      const std::int64_t staged = pl.smem_bytes + c_store_bytes(pl.tile_m);
      const auto& g = p.hw.gpu;
      if (staged <= g.smem_per_block_bytes && pl.blocks_per_sm * (staged + 1024) <= g.smem_per_sm_bytes) {
        pl.c_store = "tma";
        pl.smem_bytes = staged;
      }
    }
    for (bool a : {true, false})
      if (rows_by_element(s, a))
        pl.notes.push_back(fmt::format(
            "{}'s rows ({} elements of {} bits) are not whole 16-byte chunks: its tiles are "
            "loaded element by element",
            a ? "A" : "B",
            a ? (p.a_layout.value == Layout::RowMajor ? s.K : s.M) : (p.b_layout.value == Layout::RowMajor ? s.N : s.K),
            a ? s.a_bits : s.b_bits));
    pl.k_iters = ceil_div(s.K, pl.tile_k * pl.split_k);
    pl.l2_hit_rate = l2_hit_milli(s, pl.tile_m, pl.tile_n, pl.raster_group, pl.blocks_per_sm) / 1000.0;
    std::int64_t ra, ba, rb, bb;
    smem_tile_shape(s, true, pl.tile_m, pl.tile_n, pl.tile_k, ra, ba);
    smem_tile_shape(s, false, pl.tile_m, pl.tile_n, pl.tile_k, rb, bb);
    pl.bank_conflict_rate =
        std::max(bank_conflict_milli(s, ra, ba, v("smem")), bank_conflict_milli(s, rb, bb, v("smem"))) / 1000.0;
    pl.predicted_us = ns / 1000.0;
    // A run-time K: A's rows (K elements) start on 16-byte boundaries for the cp.async loads.
    if (p.k_dynamic) pl.k_align = elements_per(p.a.value, 16);
  } else {
    pl.dataflow = v("dataflow") == 0 ? "weight_stationary" : "output_stationary";
    pl.smem_bytes = npu_spad_bytes(s, pl.tile_m, pl.tile_n, pl.tile_k);
    pl.npu_layout = npu_layout_of(s, pl.tile_m, pl.tile_n, pl.tile_k, v("dataflow"));
    // A run-time K or N keeps the rows the DMA moves whole bus beats (whole bytes in a design with
    // byte rows): hw::npu_run_time_align, which the spec check applies to K_min and N_min too.
    const hw::NpuRunTimeAlign al =
        hw::npu_run_time_align(p.hw.npu, pl.npu_layout->byte_rows, hw::npu_element_bits(p.a.value.bits),
                               hw::npu_element_bits(p.b.value.bits), hw::npu_element_bits(p.c.value.bits),
                               p.a_layout.value == Layout::ColMajor, p.b_layout.value == Layout::ColMajor);
    if (p.k_dynamic) pl.k_align = al.k;
    if (p.n_dynamic) pl.n_align = al.n;
    if (p.m_dynamic) pl.m_align = al.m;
    pl.k_iters = ceil_div(s.K, pl.tile_k);
    pl.instr_k = 1;
    // NPU costs are cycles (the layout's estimate); the model's clock turns them into time.
    pl.predicted_us = static_cast<double>(pl.npu_layout->cycles) / p.hw.npu.clock_mhz;
  }
  double flops = 2.0 * static_cast<double>(s.M) * s.N * s.K * s.batch;
  pl.predicted_tflops = flops / (pl.predicted_us * 1e6);
  for (const auto& r : rules) pl.rules.push_back(r.name);
  if (!p.weight_conversion.empty())
    pl.notes.push_back(fmt::format("{} weights are unpacked and converted to {} in registers before the multiply",
                                   p.b.value.name, p.weight_conversion));
  // 4-bit weights on a GPU: packed weights stream from global memory straight into registers
  // (the n8k128 layout of <deepgemm/w4_pack.h>) in the weight-streaming kernel, whose schedule
  // follows from M, N, K, the group size and the SM count (w4_schedule): the plan carries it, not the
  // searched point, so that verify proves the kernel's own index maps.
  if (s.gpu && p.b.value.bits == 4 && !p.weight_conversion.empty() && pl.family == hw::Family::MmaSync) {
    const W4Schedule w = w4_schedule(s.M, s.N, s.K, pl.scale_b, p.hw.gpu.sm_count, s.w4_lighter);
    pl.loader = "registers";
    pl.tile_m = w.tile_m;
    pl.tile_n = w.tile_n;
    pl.tile_k = w.tile_k;
    pl.warp_m = 1;
    pl.warp_n = w.warp_n;
    pl.k_warps = w.k_warps;
    pl.stages = w.stages;
    pl.blocks_per_sm = w.blocks_per_sm;
    pl.split_k = pl.raster_group = pl.cluster_m = pl.cluster_n = 1;
    pl.persistent_blocks = 0;
    pl.smem_layout = smem_layout_name(kNone);
    pl.threads = 32 * w.k_warps * w.warp_n;
    pl.grid_m = ceil_div(s.M, pl.tile_m);
    pl.grid_n = ceil_div(s.N, pl.tile_n);
    pl.k_iters = ceil_div(ceil_div(s.K, pl.tile_k), w.k_warps);
    // Shared memory holds only the warps' partial sums (fp32, one per accumulator and lane).
    pl.smem_bytes = w.k_warps * (pl.tile_m / 16) * (pl.tile_n / 8) * 4 * 32 * 4;
    pl.regs_per_thread = w.blocks_per_sm == 2 ? 128 : 255;
    pl.l2_hit_rate = 0;
    pl.bank_conflict_rate = 0;
    // Time: the packed weights, A and C over DRAM bandwidth against the multiplies at the rate this
    // kernel reaches (kW4RegistersMathShare of the peak), plus one DRAM latency.
    const double bytes = static_cast<double>(s.M) * s.K * 2 + static_cast<double>(s.K) * s.N / 2 +
                         (w.group > 0 ? static_cast<double>(s.K / w.group) * s.N * 2 : 0) +
                         static_cast<double>(s.M) * s.N * s.c_bits / 8;
    const double sms = static_cast<double>(p.hw.gpu.sm_count);
    const double mem_ns = bytes / (s.dram_bytes_per_ns_sm * sms),
                 math_ns = flops / (s.peak_flops_per_ns_sm * kW4RegistersMathShare * sms);
    pl.predicted_us = (std::max(mem_ns, math_ns) + s.latency_ns) / 1000.0;
    pl.predicted_tflops = flops / (pl.predicted_us * 1e6);
    pl.bound = mem_ns >= math_ns ? "memory" : "compute";
    pl.rules.clear();
    pl.notes.push_back(fmt::format(
        "weights packed in the n8k128 layout (deepgemm pack) stream into registers: {}×{} of C per block, {} warps "
        "side by side along N (sharing A's rows) and K split over {}, {} blocks of 128 k in flight per warp (a "
        "schedule that follows from M, N, K, the group size and the SM count, not searched){}",
        pl.tile_m, pl.tile_n, pl.warp_n, pl.k_warps, pl.stages - 1,
        s.w4_lighter > 0 ? "; lighter than the schedule's first choice, which ptxas found spills registers" : ""));
  }
  if (s.w4)
    pl.notes.push_back(fmt::format(
        "weights packed in the n8k128 layout (deepgemm pack) are staged by cp.async, {} blocks of 128 k ahead, and "
        "converted to {} (times their scales) by the producer warpgroup into K-major stages that wgmma reads",
        kW4Slots - 1, p.weight_conversion));
  if (p.c.value.name != p.acc.value.name)
    pl.notes.push_back(fmt::format("{} accumulation, cast to {} on store", p.acc.value.name, p.c.value.name));
  if (p.pad_k.value && s.K % pl.tile_k != 0)
    pl.notes.push_back(fmt::format("the K tail ({} of {}) is zero-filled", s.K % pl.tile_k, pl.tile_k));
  pl.index = make_index(s, pl);
  return pl;
}

std::vector<std::pair<std::string, std::int64_t>> schedule_of(const Plan& pl) {
  std::int64_t smem = kNone;
  for (std::int64_t v = kNone; v <= kBanked; ++v)
    if (pl.smem_layout == smem_layout_name(v)) smem = v;
  return {{"tile_m", pl.tile_m},
          {"tile_n", pl.tile_n},
          {"tile_k", pl.tile_k},
          {"warp_m", pl.warp_m},
          {"warp_n", pl.warp_n},
          {"stages", pl.stages},
          {"split_k", pl.split_k},
          {"raster_group", pl.raster_group},
          {"smem", smem},
          {"blocks_per_sm", pl.blocks_per_sm},
          {"cluster_m", pl.cluster_m},
          {"cluster_n", pl.cluster_n},
          {"loader", pl.loader == "tma" ? kLoaderTma : kLoaderCpAsync},
          {"dataflow", pl.dataflow == "weight_stationary" ? 0 : 1}};
}

std::string plan_mismatch(const Plan& pl, const GemmProblem& p) {
  auto differs = [](const char* field, const auto& in_plan, const auto& in_spec) {
    return fmt::format("{} is {} in the plan, {} for the spec", field, in_plan, in_spec);
  };
  if (pl.target != p.hw.name) return differs("target", pl.target, p.hw.name);
  const std::vector<hw::Family> fams = families(p);
  if (std::find(fams.begin(), fams.end(), pl.family) == fams.end())
    return fmt::format("family is {} in the plan; the spec runs on {}", pl.family, fmt::join(fams, ", "));
  if (pl.a_type != p.a.value.name) return differs("a_type", pl.a_type, p.a.value.name);
  if (pl.b_type != p.b.value.name) return differs("b_type", pl.b_type, p.b.value.name);
  if (pl.c_type != p.c.value.name) return differs("c_type", pl.c_type, p.c.value.name);
  if (pl.acc_type != p.acc.value.name) return differs("acc_type", pl.acc_type, p.acc.value.name);
  if (pl.M != p.M.value) return differs("M", pl.M, p.M.value);
  if (pl.N != p.N.value) return differs("N", pl.N, p.N.value);
  if (pl.K != p.K.value) return differs("K", pl.K, p.K.value);
  if (pl.k_dynamic != p.k_dynamic) return differs("k_dynamic", pl.k_dynamic, p.k_dynamic);
  if (pl.K_min != p.K_min.value) return differs("K_min", pl.K_min, p.K_min.value);
  if (pl.K_max != p.K_max.value) return differs("K_max", pl.K_max, p.K_max.value);
  if (pl.m_dynamic != p.m_dynamic) return differs("m_dynamic", pl.m_dynamic, p.m_dynamic);
  if (pl.M_min != p.M_min.value) return differs("M_min", pl.M_min, p.M_min.value);
  if (pl.n_dynamic != p.n_dynamic) return differs("n_dynamic", pl.n_dynamic, p.n_dynamic);
  if (pl.operands_swapped != p.operands_swapped)
    return differs("operands_swapped", pl.operands_swapped, p.operands_swapped);
  if (pl.N_min != p.N_min.value) return differs("N_min", pl.N_min, p.N_min.value);
  if (pl.batch != p.batch.value) return differs("batch", pl.batch, p.batch.value);
  if (pl.pad_k != p.pad_k.value) return differs("pad_k", pl.pad_k, p.pad_k.value);
  const std::string epi = p.epilogue.user ? p.epilogue.value.front() : "none";
  if (pl.epilogue != epi) return differs("epilogue", pl.epilogue, epi);
  if (pl.alpha != p.alpha.value) return differs("alpha", pl.alpha, p.alpha.value);
  if (pl.beta != p.beta.value) return differs("beta", pl.beta, p.beta.value);
  const std::string sa = p.scale_a.value.empty() ? "none" : p.scale_a.value;
  const std::string sb = p.scale_b.value.empty() ? "none" : p.scale_b.value;
  if (pl.scale_a != sa) return differs("scale_a", pl.scale_a, sa);
  if (pl.scale_b != sb) return differs("scale_b", pl.scale_b, sb);
  // The 4-bit weight kernel's schedule is not searched: a plan of it holds the one w4_schedule gives.
  // (On the wgmma family 4-bit weights take the TMA kernel's searched schedule.)
  const bool w4 =
      p.hw.is_gpu() && p.b.value.bits == 4 && !p.weight_conversion.empty() && pl.family == hw::Family::MmaSync;
  if (w4 != (pl.loader == "registers")) return differs("loader", pl.loader, w4 ? "registers" : "cp.async or tma");
  if (w4) {
    auto text = [](std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t kw, std::int64_t st,
                   std::int64_t bps) {
      return fmt::format("{}×{}×{}, {} warps splitting K, {} stages, {} blocks per SM", tm, tn, tk, kw, st, bps);
    };
    const std::string have = text(pl.tile_m, pl.tile_n, pl.tile_k, pl.k_warps, pl.stages, pl.blocks_per_sm);
    // The first choice, or one of the lighter ones ptxas may have needed.
    std::string first;
    for (std::int64_t lighter = 0; lighter <= kW4MaxLighter; ++lighter) {
      const W4Schedule w = w4_schedule(p.M.value, p.N.value, p.K.value, sb, p.hw.gpu.sm_count, lighter);
      const std::string want = text(w.tile_m, w.tile_n, w.tile_k, w.k_warps, w.stages, w.blocks_per_sm);
      if (lighter == 0) first = want;
      if (have == want && pl.warp_m == 1 && pl.warp_n == w.warp_n) return "";
    }
    return fmt::format("the 4-bit weight kernel's schedule is {} in the plan, {} for the spec", have, first);
  }
  return "";
}

}  // namespace dg::solve
