#include "plan/plan.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/error.h"

namespace dg::hw {

// The enums travel as their names; an unknown name is an error naming the field, never a default.
namespace {
template <typename E>
E enum_from_json(const nlohmann::json& j, const char* field, std::optional<E> (*parse)(std::string_view),
                 const char* expected) {
  const auto s = j.get<std::string>();  // a non-string is a type_error, as for any field
  if (auto e = parse(s)) return *e;
  throw UserError(fmt::format("plan: {}: unknown value {} (expected {})", field, nlohmann::json(s).dump(), expected));
}
}  // namespace

void to_json(nlohmann::json& j, TargetKind k) { j = target_kind_name(k); }
void from_json(const nlohmann::json& j, TargetKind& k) {
  k = enum_from_json<TargetKind>(j, "target_kind", target_kind_from_name, "\"gpu\" or \"npu\"");
}
void to_json(nlohmann::json& j, Family f) { j = family_name(f); }
void from_json(const nlohmann::json& j, Family& f) {
  f = enum_from_json<Family>(j, "family", family_from_name, "\"mma.sync\", \"wgmma\", \"simt\" or \"npu\"");
}

}  // namespace dg::hw
namespace dg {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(IndexVar, name, extent)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AffineMap::Term, var, coeff)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AffineMap, terms, offset)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(IndexDesc::Decomp, var, of, div, mod)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(IndexDesc, out_vars, k_vars, c_row, c_col, k_index, inverse, lda, ldb, ldc,
                                   a_row_major, b_row_major, c_row_major, a_smem_rows, a_smem_row_bytes, b_smem_rows,
                                   b_smem_row_bytes, smem_row_pad_bytes, swizzle_bits)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Plan, target, target_kind, family, a_type, b_type, c_type, acc_type,
                                   weight_conversion, M, N, K, K_min, K_max, batch, k_dynamic, k_align, pad_k, epilogue,
                                   scale_a, scale_b, tile_m, tile_n, tile_k, warp_m, warp_n, stages, split_k,
                                   raster_group, cluster_m, cluster_n, blocks_per_sm, loader, persistent_blocks,
                                   smem_layout, dataflow, instr_m, instr_n, instr_k, threads, smem_bytes,
                                   regs_per_thread, grid_m, grid_n, k_iters, predicted_us, predicted_tflops,
                                   l2_hit_rate, bank_conflict_rate, bound, space_size, feasible_tiles, rules, notes,
                                   index)

}  // namespace dg
namespace dg::hw {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(NpuLayout, group, b_seg, a_seg, a_words, b_words, a_base0, a_base1, b_base0, b_base1,
                                   words_per_bank, b_first, acc_rows, beats_per_acc_row, queue_a, queue_b, queue_c,
                                   outstanding_rd, outstanding_wr, byte_rows, cycles, compute_cycles, dma_cycles)
}  // namespace dg::hw
namespace dg {

nlohmann::json to_json(const Plan& p) {
  nlohmann::json j;
  to_json(j, p);
  if (p.npu_layout) j["npu_layout"] = *p.npu_layout;
  if (p.k_warps != 1) j["k_warps"] = p.k_warps;         // written only where a kernel splits K over warps
  if (p.c_store != "direct") j["c_store"] = p.c_store;  // ... and C's store where it is not direct
  if (p.alpha != 1) j["alpha"] = p.alpha;               // ... and alpha and beta where they act
  if (p.beta != 0) j["beta"] = p.beta;
  if (p.operands_swapped) j["operands_swapped"] = true;  // ... and the swap where the plan is Cᵀ = Bᵀ·Aᵀ
  if (p.m_dynamic) {                                     // ... and a run-time M range where M has one
    j["m_dynamic"] = true;
    j["M_min"] = p.M_min;
    if (p.m_align != 1) j["m_align"] = p.m_align;  // (a column-major A's rows of M elements)
  }
  if (p.n_dynamic) {
    j["n_dynamic"] = true;
    j["N_min"] = p.N_min;
    j["n_align"] = p.n_align;
  }
  j["format"] = "deepgemm-plan-1";
  return j;
}

Plan plan_from_json(const nlohmann::json& j) {
  try {
    if (!j.is_object()) throw UserError("plan: expected a JSON object");
    if (j.value("format", std::string()) != "deepgemm-plan-1")
      throw UserError("plan: missing or unknown 'format' (expected \"deepgemm-plan-1\")");
    // Fields added within format 1 take their defaults when a plan written before them lacks
    // them: the per-tensor scales ("none").
    nlohmann::json with_defaults = j;
    for (const char* key : {"scale_a", "scale_b"})
      if (!with_defaults.contains(key)) with_defaults[key] = "none";
    // ... and the loader: cp.async on GPUs, none on NPUs.
    if (!with_defaults.contains("persistent_blocks")) with_defaults["persistent_blocks"] = 0;
    if (!with_defaults.contains("loader"))
      with_defaults["loader"] = with_defaults.value("target_kind", std::string()) == "gpu" ? "cp.async" : "";
    Plan p;
    from_json(with_defaults, p);
    if (j.contains("npu_layout")) p.npu_layout = j.at("npu_layout").get<hw::NpuLayout>();
    p.k_warps = j.value("k_warps", std::int64_t{1});
    p.c_store = j.value("c_store", std::string("direct"));
    if (p.c_store != "direct" && p.c_store != "tma")
      throw UserError(fmt::format("plan: c_store is \"{}\"; it must be \"direct\" or \"tma\"", p.c_store));
    if (p.k_warps < 1) throw UserError(fmt::format("plan: k_warps is {}; it must be at least 1", p.k_warps));
    p.alpha = j.value("alpha", 1.0);
    p.beta = j.value("beta", 0.0);
    p.operands_swapped = j.value("operands_swapped", false);
    if (p.operands_swapped && p.target_kind != hw::TargetKind::Npu)
      throw UserError("plan: operands_swapped is true on a GPU plan; only NPU plans swap their operands");
    p.m_dynamic = j.value("m_dynamic", false);
    p.M_min = p.m_dynamic ? j.at("M_min").get<std::int64_t>() : p.M;
    if (p.M_min < 1 || p.M_min > p.M)
      throw UserError(fmt::format("plan: M_min is {}; it must be in [1, M = {}]", p.M_min, p.M));
    p.m_align = p.m_dynamic ? j.value("m_align", std::int64_t{1}) : 1;
    if (p.m_align < 1 || p.m_align > 65536)
      throw UserError(fmt::format("plan: m_align is {}; it must be in [1, 65536]", p.m_align));
    p.n_dynamic = j.value("n_dynamic", false);
    p.N_min = p.n_dynamic ? j.at("N_min").get<std::int64_t>() : p.N;
    p.n_align = p.n_dynamic ? j.value("n_align", std::int64_t{1}) : 1;
    if (p.n_align < 1 || p.n_align > 65536)
      throw UserError(fmt::format("plan: n_align is {}; it must be in [1, 65536]", p.n_align));
    if (p.N_min < 1 || p.N_min > p.N)
      throw UserError(fmt::format("plan: N_min is {}; it must be in [1, N = {}]", p.N_min, p.N));
    for (double f : {p.alpha, p.beta})
      if (!(f >= -1e9 && f <= 1e9)) throw UserError("plan: alpha and beta must be numbers between -1e9 and 1e9");
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw UserError(fmt::format("plan: {}", e.what()));
  }
}

std::string dump_plan(const Plan& p) { return to_json(p).dump(2) + "\n"; }

std::int64_t eval(const AffineMap& m, const std::vector<std::pair<std::string, std::int64_t>>& point) {
  std::int64_t v = m.offset;
  for (const auto& t : m.terms) {
    bool found = false;
    for (const auto& [name, val] : point)
      if (name == t.var) {
        v += t.coeff * val;
        found = true;
      }
    DG_INTERNAL_ASSERT(found, "affine map variable without a value: " + t.var);
  }
  return v;
}

std::ostream& operator<<(std::ostream& os, const Plan& p) {
  os << fmt::format("Plan for {} ({}, {}): C[{}×{}] = A·B, K = {}{}\n", p.target, hw::target_kind_name(p.target_kind),
                    hw::family_name(p.family),
                    p.m_dynamic ? fmt::format("[{}, {}]", p.M_min, p.M) : std::to_string(p.M),
                    p.n_dynamic ? fmt::format("[{}, {}]", p.N_min, p.N) : std::to_string(p.N),
                    p.k_dynamic ? fmt::format("[{}, {}]", p.K_min, p.K_max) : std::to_string(p.K),
                    p.batch > 1 ? fmt::format(", batch {}", p.batch) : "");
  if (p.operands_swapped)
    os << "  swapped      C is column-major: the NPU computes Cᵀ = Bᵀ·Aᵀ; A, B, M and N here are the "
          "transpose's (A is the spec's B, M its N)\n";
  os << fmt::format(
      "  precisions   A {} · B {} → acc {} → C {}{}\n", p.a_type, p.b_type, p.acc_type, p.c_type,
      p.weight_conversion.empty() ? "" : fmt::format(" (B converted to {} in registers)", p.weight_conversion));
  os << fmt::format("  tile         {}×{}×{} (instruction {}×{}×{})\n", p.tile_m, p.tile_n, p.tile_k, p.instr_m,
                    p.instr_n, p.instr_k);
  if (p.target_kind == hw::TargetKind::Gpu) {
    os << fmt::format(
        "  warps        {}×{} ({} threads{}), {} stages ({}), split_k {}, raster group {}, cluster {}×{}\n", p.warp_m,
        p.warp_n, p.threads,
        p.loader == "tma" ? ", one producer warpgroup"
        : p.k_warps > 1   ? fmt::format(", {} warps splitting K", p.k_warps)
                          : "",
        p.stages, p.loader, p.split_k, p.raster_group, p.cluster_m, p.cluster_n);
    os << fmt::format("  resources    {} B shared memory ({}), ~{} registers/thread, {} blocks/SM, grid {}×{}\n",
                      p.smem_bytes, p.smem_layout, p.regs_per_thread, p.blocks_per_sm, p.grid_m, p.grid_n);
    if (p.c_store == "tma")
      os << "  C store      through shared memory, a 128-byte column slab at a time, by the tensor-memory "
            "accelerator\n";
  } else {
    os << fmt::format("  array        {} dataflow, {} B scratchpad ({}), grid {}×{}\n", p.dataflow, p.smem_bytes,
                      p.smem_layout, p.grid_m, p.grid_n);
    if (const auto& l = p.npu_layout)
      os << fmt::format(
          "  layout       {} words per bank (A at {}/{}, B at {}/{}), queues A {} B {} C {}; estimate {} cycles "
          "(engine {}, A/B fetch {})\n",
          l->words_per_bank, l->a_base0, l->a_base1, l->b_base0, l->b_base1, l->queue_a, l->queue_b, l->queue_c,
          l->cycles, l->compute_cycles, l->dma_cycles);
  }
  os << fmt::format("  predicted    {:.2f} us, {:.1f} TFLOP/s, {}-bound, L2 hit {:.3f}, bank conflicts {:.1f}%\n",
                    p.predicted_us, p.predicted_tflops, p.bound, p.l2_hit_rate, 100 * p.bank_conflict_rate);
  os << fmt::format("  search       {} feasible tile shapes in a space of {} points\n", p.feasible_tiles, p.space_size);
  for (const auto& n : p.notes) os << "  note         " << n << "\n";
  return os;
}

}  // namespace dg
