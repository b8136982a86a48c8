#include "sema/problem.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace dg {

const char* layout_name(Layout l) { return l == Layout::RowMajor ? "row_major" : "col_major"; }

const std::vector<std::string>& schedule_variable_names() {
  static const std::vector<std::string> v = {"tile_m",    "tile_n",        "tile_k",    "stages",       "warps",
                                             "warp_m",    "warp_n",        "split_k",   "raster_group", "cluster_m",
                                             "cluster_n", "blocks_per_sm", "smem_bytes"};
  return v;
}

const std::vector<std::string>& problem_constant_names() {
  static const std::vector<std::string> v = {"M", "N", "K", "batch"};
  return v;
}

nlohmann::json to_json(const GemmProblem& p) {
  nlohmann::json j;
  j["spec"] = p.spec_file;
  j["target"] = p.hw.name;
  j["target_kind"] = p.hw.is_gpu() ? "gpu" : "npu";
  j["precision"] = {{"activation", p.a.value.name},
                    {"weight", p.b.value.name},
                    {"output", p.c.value.name},
                    {"accumulate", p.acc.value.name}};
  nlohmann::json shape = {{"batch", p.batch.value}};
  if (p.n_dynamic) {
    shape["N_min"] = p.N_min.value;
    shape["N_max"] = p.N_max.value;
  } else {
    shape["N"] = p.N.value;
  }
  if (p.m_dynamic) {
    shape["M_min"] = p.M_min.value;
    shape["M_max"] = p.M_max.value;
  } else {
    shape["M"] = p.M.value;
  }
  if (p.k_dynamic) {
    shape["K_min"] = p.K_min.value;
    shape["K_max"] = p.K_max.value;
  } else {
    shape["K"] = p.K.value;
  }
  j["shape"] = shape;
  j["layout"] = {{"A", layout_name(p.a_layout.value)},
                 {"B", layout_name(p.b_layout.value)},
                 {"C", layout_name(p.c_layout.value)},
                 {"smem", p.smem_layout.value.empty() ? "solver" : p.smem_layout.value}};
  if (p.operands_swapped) j["operands_swapped"] = true;
  if (p.scale_a.user || p.scale_b.user) j["scales"] = {{"A", p.scale_a.value}, {"B", p.scale_b.value}};
  nlohmann::json c;
  c["use_hmma"] = p.use_hmma.value;
  c["fp16_fma"] = p.fp16_fma.value;
  c["pad_k"] = p.pad_k.value;
  c["warp_level_sync"] = p.warp_level_sync.value;
  if (p.sm_mem_limit_kb.user) c["sm_mem_limit_kb"] = p.sm_mem_limit_kb.value;
  if (p.l2_hit_rate_min.user) c["l2_hit_rate_min"] = p.l2_hit_rate_min.value;
  if (p.cast_output.user && p.cast_output.value) c["cast_output"] = p.cast_output.value->name;
  if (p.epilogue.user) c["op_type"] = p.epilogue.value;
  if (p.alpha.user) c["alpha"] = p.alpha.value;
  if (p.beta.user) c["beta"] = p.beta.value;
  if (p.dataflow.user) c["dataflow"] = p.dataflow.value;
  nlohmann::json exprs = nlohmann::json::array();
  for (const auto& u : p.user_constraints) exprs.push_back({{"expr", u.text}, {"at", u.loc.str()}});
  c["free"] = exprs;
  j["constraints"] = c;
  nlohmann::json paths = nlohmann::json::array();
  for (hw::Family f : p.compute_paths) paths.push_back(hw::family_name(f));
  j["compute"] = {{"paths", paths}, {"k_step", p.k_step}};
  if (!p.weight_conversion.empty()) j["compute"]["weight_conversion"] = p.weight_conversion;
  return j;
}

std::ostream& operator<<(std::ostream& os, const GemmProblem& p) {
  auto src = [](const auto& d) { return d.user ? fmt::format("  ({})", d.loc.str()) : std::string("  (default)"); };
  os << "GemmProblem " << p.spec_file << "\n";
  os << "  target      " << p.hw.name << " — " << p.hw.description << "\n";
  os << "  C[M×N] = A[M×K] · B[K×N]\n";
  os << "  activation  " << p.a.value.name << src(p.a) << "\n";
  os << "  weight      " << p.b.value.name << src(p.b) << "\n";
  os << "  output      " << p.c.value.name << src(p.c) << "\n";
  os << "  accumulate  " << p.acc.value.name << src(p.acc) << "\n";
  if (p.m_dynamic)
    os << "  M           run time, in [" << p.M_min.value << ", " << p.M_max.value << "]" << src(p.M_min) << "\n";
  else
    os << "  M           " << p.M.value << src(p.M) << "\n";
  if (p.n_dynamic)
    os << "  N           run time, in [" << p.N_min.value << ", " << p.N_max.value << "]" << src(p.N_min) << "\n";
  else
    os << "  N           " << p.N.value << src(p.N) << "\n";
  if (p.k_dynamic)
    os << "  K           run time, in [" << p.K_min.value << ", " << p.K_max.value << "]" << src(p.K_min) << "\n";
  else
    os << "  K           " << p.K.value << src(p.K) << "\n";
  os << "  batch       " << p.batch.value << src(p.batch) << "\n";
  os << "  layout      A " << layout_name(p.a_layout.value) << ", B " << layout_name(p.b_layout.value) << ", C "
     << layout_name(p.c_layout.value) << ", smem " << (p.smem_layout.value.empty() ? "(solver)" : p.smem_layout.value)
     << "\n";
  if (p.operands_swapped)
    os << "  swapped     C is column-major: the NPU computes Cᵀ = Bᵀ·Aᵀ (A, B, M, N and the layouts above are "
          "the transpose's)\n";
  os << "  compute     ";
  os << fmt::format("{}", fmt::join(p.compute_paths, ", "));
  if (p.k_step) os << " (K step " << p.k_step << ")";
  if (!p.weight_conversion.empty()) os << "; weights converted to " << p.weight_conversion << " in registers";
  os << "\n";
  if (p.hw.is_gpu()) {
    os << "  use_hmma    " << (p.use_hmma.value ? "true" : "false") << src(p.use_hmma) << "\n";
    os << "  fp16_fma    " << (p.fp16_fma.value ? "true" : "false") << src(p.fp16_fma) << "\n";
  }
  os << "  pad_k       " << (p.pad_k.value ? "true" : "false") << src(p.pad_k) << "\n";
  if (p.sm_mem_limit_kb.user)
    os << "  sm_mem_limit " << p.sm_mem_limit_kb.value << " KB" << src(p.sm_mem_limit_kb) << "\n";
  if (p.l2_hit_rate_min.user) os << "  l2_hit_rate_min " << p.l2_hit_rate_min.value << src(p.l2_hit_rate_min) << "\n";
  if (p.cast_output.user && p.cast_output.value)
    os << "  cast_output " << p.cast_output.value->name << src(p.cast_output) << "\n";
  if (p.epilogue.user) os << "  epilogue    " << p.epilogue.value.front() << src(p.epilogue) << "\n";
  if (p.alpha.user) os << "  alpha       " << p.alpha.value << src(p.alpha) << "\n";
  if (p.beta.user) os << "  beta        " << p.beta.value << src(p.beta) << "\n";
  if (p.dataflow.user) os << "  dataflow    " << p.dataflow.value << src(p.dataflow) << "\n";
  if (p.scale_a.user) os << "  scale A     " << p.scale_a.value << src(p.scale_a) << "\n";
  if (p.scale_b.user) os << "  scale B     " << p.scale_b.value << src(p.scale_b) << "\n";
  for (const auto& u : p.user_constraints) os << "  constraint  " << u.text << "  (" << u.loc.str() << ")\n";
  return os;
}

}  // namespace dg
