#include "sema/check.h"
#include "sema/checker.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <numeric>
#include <set>

#include "support/error.h"
#include "support/strings.h"

// Decoding: the spec's target, blocks and keys into a GemmProblem, each value typed and ranged
// with its location, the free constraints typed, then the target's rules (gpu_rules.cpp,
// npu_rules.cpp).
namespace dg::sema {

namespace {

constexpr std::int64_t kMaxDim = 2147483647;  // 2^31 - 1: dimensions are 32-bit on every backend

const std::map<std::string, std::vector<std::string>>& block_keys() {
  static const std::map<std::string, std::vector<std::string>> keys = {
      {"precision", {"weight", "activation", "output", "accumulate"}},
      {"shape", {"M", "M_min", "M_max", "N", "N_min", "N_max", "K", "K_min", "K_max", "batch"}},
      {"layout", {"A", "B", "C", "smem"}},
      {"scales", {"A", "B"}},
      {"constraints",
       {"use_hmma", "fp16_fma", "sm_mem_limit", "l2_hit_rate_min", "pad_k", "cast_output", "warp_level_sync", "family",
        "loader", "persistent", "split_k", "dataflow", "op_type", "alpha", "beta", "sparse_pattern",
        "custom_bitwidth"}},
  };
  return keys;
}

std::vector<std::string> block_names() {
  std::vector<std::string> names;
  for (const auto& [k, v] : block_keys()) names.push_back(k);
  return names;
}

const std::vector<std::string>& smem_layouts() {
  static const std::vector<std::string> v = {"swizzle_128b", "swizzle_64b", "swizzle_32b", "padded", "none"};
  return v;
}

const std::vector<std::string>& epilogue_ops() {
  static const std::vector<std::string> v = {"none", "relu",      "gelu",      "gelu_tanh",      "silu",
                                             "bias", "bias_relu", "bias_gelu", "bias_gelu_tanh", "bias_silu"};
  return v;
}

}  // namespace

std::optional<GemmProblem> Checker::run() {
  p_.spec_file = spec_.file;
  resolve_target();
  collect_blocks();
  if (have_target_) {
    check_precision();
    check_shape();
    check_layout();
    check_scales();
    check_constraints();
    if (!d_.has_errors()) check_rules();
    if (!d_.has_errors()) check_scaled_accumulation();
  }
  if (d_.has_errors()) return std::nullopt;
  return std::move(p_);
}

// ---- target -------------------------------------------------------------------------------
void Checker::resolve_target() {
  if (spec_.target.empty()) {
    d_.error(Loc{spec_.file, 1, 1}, "missing target declaration (e.g. 'target hopper;')");
    return;
  }
  std::vector<std::string> names;
  try {
    names = hw::list_names(hw_dir_);
  } catch (const UserError& e) {
    d_.error(spec_.target_loc, fmt::format("cannot read hardware models: {}", e.what()));
    return;
  }
  if (std::find(names.begin(), names.end(), spec_.target) == names.end()) {
    std::string near = did_you_mean(spec_.target, names);
    d_.error(spec_.target_loc, fmt::format("unknown target '{}'{}", spec_.target,
                                           near.empty() ? "" : fmt::format("; did you mean '{}'?", near)));
    d_.note(spec_.target_loc, fmt::format("targets described in hw-models/: {}", join_words(names)));
    return;
  }
  try {
    p_.hw = hw::load_named(hw_dir_, spec_.target);
  } catch (const UserError& e) {
    d_.error(spec_.target_loc, fmt::format("the hardware model for '{}' is invalid: {}", spec_.target, e.what()));
    return;
  }
  p_.target_loc = spec_.target_loc;
  have_target_ = true;
}

// ---- blocks and keys ------------------------------------------------------------------------
void Checker::collect_blocks() {
  std::map<std::string, Loc> seen_blocks;
  for (const auto& b : spec_.blocks) {
    auto known = block_keys().find(b.name);
    if (known == block_keys().end()) {
      std::string near = did_you_mean(b.name, block_names());
      d_.error(b.loc, fmt::format("unknown block '{}'{}", b.name,
                                  near.empty() ? fmt::format("; blocks are {}", join_words(block_names(), " and "))
                                               : fmt::format("; did you mean '{}'?", near)));
      continue;
    }
    if (auto it = seen_blocks.find(b.name); it != seen_blocks.end()) {
      d_.error(b.loc, fmt::format("duplicate block '{}'", b.name));
      d_.note(it->second, "first declared here");
      continue;
    }
    seen_blocks[b.name] = b.loc;
    auto& entries = entries_[b.name];
    for (const auto& item : b.items) {
      if (item.is_expr) {
        if (b.name != "constraints") {
          d_.error(item.expr->loc, fmt::format("free constraint expressions are allowed only in the 'constraints' "
                                               "block, not in '{}'",
                                               b.name));
        } else {
          exprs_.push_back(item.expr.get());
        }
        continue;
      }
      const ast::Entry& e = item.entry;
      const auto& keys = known->second;
      if (std::find(keys.begin(), keys.end(), e.key) == keys.end()) {
        std::string near = did_you_mean(e.key, keys);
        std::string elsewhere;
        for (const auto& [bn, bk] : block_keys())
          if (bn != b.name && std::find(bk.begin(), bk.end(), e.key) != bk.end()) elsewhere = bn;
        if (!elsewhere.empty())
          d_.error(e.loc, fmt::format("'{}' belongs in the '{}' block, not in '{}'", e.key, elsewhere, b.name));
        else
          d_.error(e.loc, fmt::format("unknown key '{}' in block '{}'{}", e.key, b.name,
                                      near.empty() ? fmt::format("; keys are {}", join_words(keys, " and "))
                                                   : fmt::format("; did you mean '{}'?", near)));
        continue;
      }
      if (auto it = entries.find(e.key); it != entries.end()) {
        d_.error(e.loc, fmt::format("duplicate key '{}' in block '{}'", e.key, b.name));
        d_.note(it->second->loc, "first declared here");
        continue;
      }
      entries[e.key] = &e;
    }
  }
  for (const char* required : {"precision", "shape"}) {
    if (!seen_blocks.count(required) && have_target_)
      d_.error(spec_.target_loc.valid() ? spec_.target_loc : Loc{spec_.file, 1, 1},
               fmt::format("missing '{}' block", required));
  }
}

const ast::Entry* Checker::get(const std::string& block, const std::string& key) const {
  auto b = entries_.find(block);
  if (b == entries_.end()) return nullptr;
  auto e = b->second.find(key);
  return e == b->second.end() ? nullptr : e->second;
}

// ---- typed values -----------------------------------------------------------------------------
bool Checker::want_bool(const ast::Entry& e, Declared<bool>& out) {
  if (e.value.kind != ast::Value::Kind::Bool) {
    d_.error(e.value.loc, fmt::format("'{}' expects true or false, got {} '{}'", e.key,
                                      ast::value_kind_name(e.value.kind), e.value.text));
    return false;
  }
  out = {e.value.bool_value, e.loc, true};
  return true;
}

bool Checker::want_int(const ast::Entry& e, std::int64_t lo, std::int64_t hi, Declared<std::int64_t>& out) {
  if (e.value.kind != ast::Value::Kind::Int) {
    d_.error(e.value.loc, fmt::format("'{}' expects an integer, got {} '{}'", e.key, ast::value_kind_name(e.value.kind),
                                      e.value.text));
    return false;
  }
  if (!e.value.unit.empty()) {
    d_.error(e.value.loc, fmt::format("'{}' takes no unit", e.key));
    return false;
  }
  if (e.value.overflow || e.value.int_value < lo || e.value.int_value > hi) {
    d_.error(e.value.loc,
             fmt::format("'{}' is out of range: {} is not between {} and {}", e.key, e.value.text, lo, hi));
    return false;
  }
  out = {e.value.int_value, e.value.loc, true};  // sizes are blamed at the number itself
  return true;
}

bool Checker::want_number(const ast::Entry& e, double lo, double hi, Declared<double>& out) {
  if (e.value.kind != ast::Value::Kind::Int && e.value.kind != ast::Value::Kind::Decimal) {
    d_.error(e.value.loc, fmt::format("'{}' expects a number, got {} '{}'", e.key, ast::value_kind_name(e.value.kind),
                                      e.value.text));
    return false;
  }
  double v = e.value.dec_value;
  if (!(v >= lo && v <= hi) || e.value.overflow) {
    d_.error(e.value.loc,
             fmt::format("'{}' is out of range: {} is not between {} and {}", e.key, e.value.text, lo, hi));
    return false;
  }
  out = {v, e.loc, true};
  return true;
}

bool Checker::want_ident(const ast::Entry& e, const std::vector<std::string>& allowed, std::string& out) {
  if (e.value.kind != ast::Value::Kind::Ident) {
    d_.error(e.value.loc, fmt::format("'{}' expects one of {}, got {} '{}'", e.key, join_words(allowed, " or "),
                                      ast::value_kind_name(e.value.kind), e.value.text));
    return false;
  }
  if (std::find(allowed.begin(), allowed.end(), e.value.text) == allowed.end()) {
    std::string near = did_you_mean(e.value.text, allowed);
    d_.error(e.value.loc, fmt::format("unknown value '{}' for '{}'{}", e.value.text, e.key,
                                      near.empty() ? fmt::format("; expected {}", join_words(allowed, " or "))
                                                   : fmt::format("; did you mean '{}'?", near)));
    return false;
  }
  out = e.value.text;
  return true;
}

bool Checker::want_dtype(const ast::Entry& e, Declared<DType>& out) {
  if (e.value.kind != ast::Value::Kind::Ident) {
    d_.error(e.value.loc, fmt::format("'{}' expects a precision such as fp16, bf16 or int8, got {} '{}'", e.key,
                                      ast::value_kind_name(e.value.kind), e.value.text));
    return false;
  }
  std::string name = e.value.text;
  if (name == "custom") {
    if (custom_bits_ == 0) {
      d_.error(e.value.loc, fmt::format("'{}: custom' needs 'custom_bitwidth' in the constraints block", e.key));
      return false;
    }
    name = fmt::format("s{}", custom_bits_);
  }
  auto t = parse_dtype(name);
  if (!t) {
    std::string near = did_you_mean(name, dtype_names());
    d_.error(e.value.loc, fmt::format("unknown precision '{}'{}", name,
                                      near.empty() ? fmt::format("; expected one of {} or a custom width sN/uN",
                                                                 join_words(dtype_names(), ", "))
                                                   : fmt::format("; did you mean '{}'?", near)));
    return false;
  }
  out = {*t, e.loc, true};
  return true;
}

// ---- blocks ---------------------------------------------------------------------------------
void Checker::check_precision() {
  // custom_bitwidth is read first: `custom` precisions depend on it.
  if (const auto* e = get("constraints", "custom_bitwidth")) {
    Declared<std::int64_t> bits;
    if (want_int(*e, 1, 16, bits)) custom_bits_ = static_cast<int>(bits.value);
  }
  const ast::Entry* act = get("precision", "activation");
  const ast::Entry* wt = get("precision", "weight");
  bool ok = true;
  if (act) ok &= want_dtype(*act, p_.a);
  if (wt) ok &= want_dtype(*wt, p_.b);
  if (entries_.count("precision")) {
    Loc ploc = block_loc("precision");
    if (!act) d_.error(ploc, "the precision block must declare 'activation' (the precision of A)"), ok = false;
    if (!wt) d_.error(ploc, "the precision block must declare 'weight' (the precision of B)"), ok = false;
  } else {
    ok = false;
  }
  if (const auto* e = get("precision", "output")) ok &= want_dtype(*e, p_.c);
  if (const auto* e = get("precision", "accumulate")) ok &= want_dtype(*e, p_.acc);
  precision_ok_ = ok;
}

Loc Checker::block_loc(const std::string& name) const {
  for (const auto& b : spec_.blocks)
    if (b.name == name) return b.loc;
  return Loc{spec_.file, 1, 1};
}

void Checker::check_shape() {
  if (!entries_.count("shape")) return;
  bool ok = true;
  auto dim = [&](const char* key, Declared<std::int64_t>& out) {
    if (const auto* e = get("shape", key)) ok &= want_int(*e, 1, kMaxDim, out);
  };
  dim("M", p_.M);
  dim("M_min", p_.M_min);
  dim("M_max", p_.M_max);
  dim("N", p_.N);
  dim("N_min", p_.N_min);
  dim("N_max", p_.N_max);
  dim("K", p_.K);
  dim("K_min", p_.K_min);
  dim("K_max", p_.K_max);
  p_.batch = {1, {}, false};
  if (const auto* e = get("shape", "batch")) ok &= want_int(*e, 1, 65535, p_.batch);
  Loc sloc = block_loc("shape");
  // M, N and K: each fixed, or a run-time range (X_min, X_max) whose largest value sizes buffers
  // and bounds.
  auto ranged = [&](const std::string& x, Declared<std::int64_t>& fixed, Declared<std::int64_t>& lo,
                    Declared<std::int64_t>& hi, bool& dynamic) {
    const std::string an = x == "K" ? "a" : "an";  // "an M", "an N", "a K"
    const auto* v = get("shape", x);
    const auto* vmin = get("shape", x + "_min");
    const auto* vmax = get("shape", x + "_max");
    bool good = true;
    if (v && (vmin || vmax)) {
      d_.error((vmin ? vmin : vmax)->loc,
               fmt::format("declare either '{0}' or {1} '{0}_min'/'{0}_max' range, not both", x, an));
      d_.note(v->loc, fmt::format("'{}' declared here", x));
      good = false;
    } else if (!v && !vmin && !vmax) {
      d_.error(sloc, fmt::format("the shape block must declare '{0}' (or {1} '{0}_min'/'{0}_max' range)", x, an));
      good = false;
    } else if (!v && (!vmin || !vmax)) {
      d_.error((vmin ? vmin : vmax)->loc,
               fmt::format("{} {} range needs both '{}_min' and '{}_max'; '{}_{}' is missing", an, x, x, x, x,
                           vmin ? "max" : "min"));
      good = false;
    } else if (!v && ok && lo.value > hi.value) {
      d_.error(vmin->loc,
               fmt::format("empty {0} range: {0}_min {1} is greater than {0}_max {2}", x, lo.value, hi.value));
      good = false;
    }
    ok &= good;
    if (!good) return;
    if (v) {
      lo = fixed;
      hi = fixed;
    } else {
      dynamic = true;
      fixed = hi;  // the largest sizes buffers and bounds
    }
  };
  ranged("M", p_.M, p_.M_min, p_.M_max, p_.m_dynamic);
  ranged("N", p_.N, p_.N_min, p_.N_max, p_.n_dynamic);
  ranged("K", p_.K, p_.K_min, p_.K_max, p_.k_dynamic);
  shape_ok_ = ok;
}

void Checker::check_layout() {
  p_.a_layout = {Layout::RowMajor, {}, false};
  p_.b_layout = {Layout::RowMajor, {}, false};
  p_.c_layout = {Layout::RowMajor, {}, false};
  static const std::vector<std::string> majors = {"row_major", "col_major"};
  auto lay = [&](const char* key, Declared<Layout>& out) {
    if (const auto* e = get("layout", key)) {
      std::string v;
      if (want_ident(*e, majors, v)) out = {v == "row_major" ? Layout::RowMajor : Layout::ColMajor, e->loc, true};
    }
  };
  lay("A", p_.a_layout);
  lay("B", p_.b_layout);
  lay("C", p_.c_layout);
  if (const auto* e = get("layout", "smem")) {
    std::string v;
    if (want_ident(*e, smem_layouts(), v)) p_.smem_layout = {v, e->loc, true};
  }
}

// scales { A: per_tensor; B: per_tensor; }: C = epilogue(scale_a · scale_b · (A·B) + bias), one
// fp32 value per tensor bound at run time by name (sc_a, sc_b), applied to the float
// accumulation before the fused epilogue and the store.
// scales { B: group_128; } (group_32, group_64, group_128, per_column): 4-bit weights with one
// scale per group of consecutive k and per column n, in the activation's type, bound as sc_b
// (K/group rows × N, row-major); per_column is one group of all K.
void Checker::check_scales() {
  p_.scale_a = {"none", {}, false};
  p_.scale_b = {"none", {}, false};
  static const std::vector<std::string> kinds = {"none",     "per_tensor", "per_column", "group_32",
                                                 "group_64", "group_128",  "block_128"};
  auto one = [&](const char* key, Declared<std::string>& out) {
    const auto* e = get("scales", key);
    if (!e) return;
    std::string v;
    // group_N with another N: say which group sizes exist.
    if (e->value.kind == ast::Value::Kind::Ident && e->value.text.rfind("group_", 0) == 0 &&
        std::find(kinds.begin(), kinds.end(), e->value.text) == kinds.end()) {
      d_.error(e->value.loc, fmt::format("group size '{}' is not generated: weight scales come in groups of 32, 64 "
                                         "or 128 k, or one per column",
                                         e->value.text.substr(6)));
      d_.note(e->value.loc, "write group_32, group_64, group_128 or per_column");
      return;
    }
    // A takes per-tensor scales, or fp8's per-token groups of 128 k (group_128, beside B's
    // block_128); the other grouped kinds belong to 4-bit weights, block_128 to an fp8 B.
    static const std::vector<std::string> a_kinds = {"none", "per_tensor", "group_128"};
    const bool grouped_on_a = key[0] == 'A' && e->value.kind == ast::Value::Kind::Ident &&
                              std::find(kinds.begin() + 2, kinds.end(), e->value.text) != kinds.end() &&
                              e->value.text != "group_128";
    if (grouped_on_a) {
      d_.error(e->value.loc, fmt::format("'{}' scales apply to weights (B) only; an activation takes per_tensor, "
                                         "group_128 (fp8: one scale per row and 128 k) or none",
                                         e->value.text));
      return;
    }
    if (!want_ident(*e, key[0] == 'A' ? a_kinds : kinds, v)) return;
    if (!p_.hw.is_gpu()) {
      d_.error(e->loc,
               fmt::format("scales apply to GPU targets; '{}' is an NPU, whose outputs are integers", p_.hw.name));
      return;
    }
    out = {v, e->loc, true};
  };
  one("A", p_.scale_a);
  one("B", p_.scale_b);
}

/// The group size of a grouped weight scale (0 for none and per_tensor, K for per_column).
std::int64_t Checker::group_of(const std::string& s) const {
  if (s == "per_column") return p_.K.value;
  if (s.rfind("group_", 0) == 0) return std::stoll(s.substr(6));
  return 0;
}

// Once the accumulation is resolved: a scale multiplies an fp32 accumulation; group scales
// belong to 4-bit weights converted in registers, along a K the groups divide.
void Checker::check_scaled_accumulation() {
  const Declared<std::string>& sb = p_.scale_b;
  if (p_.scale_a.value == "group_128" || sb.value == "block_128") {
    check_block_scales();
    return;
  }
  const std::int64_t g = group_of(sb.value);
  // 4-bit weights with 4-bit activations are an integer GEMM on the tensor cores (mma.sync
  // m16n8k64 s4/u4, gpu_rules.cpp): nothing is converted and nothing is scaled.
  const bool four_bit = p_.b.value.bits == 4 && p_.a.value.bits != 4;
  if (g > 0 && p_.b.value.bits == 4 && p_.a.value.bits == 4) {
    d_.error(sb.loc, fmt::format("'{}' scales belong to 4-bit weights converted to fp16 or bf16; activation {} × "
                                 "weight {} multiplies the 4-bit integers themselves, into int32",
                                 sb.value, p_.a.value.name, p_.b.value.name));
    d_.note(sb.loc, "remove the B scale, or declare 'activation: fp16;' for grouped 4-bit weights");
    return;
  }
  if (g > 0 && !four_bit) {
    d_.error(
        sb.loc,
        fmt::format("'{}' scales are generated for 4-bit weights (int4, u4, int4_e2m1) only; this spec's weight is {}",
                    sb.value, p_.b.value.name));
    d_.note(p_.b.loc, "use 'weight: int4;' or 'B: per_tensor;'");
    return;
  }
  // 4-bit weights on a GPU: the weight-streaming kernel's requirements (codegen/w4a16.cpp).
  if (four_bit && p_.hw.is_gpu()) {
    if (p_.b.value.name != "int4" && p_.b.value.name != "u4" && p_.b.value.name != "int4_e2m1") {
      d_.error(p_.b.loc, fmt::format("weight {} is not generated yet: int4 (signed), u4 (unsigned, zero point "
                                     "8) and int4_e2m1 (FP4) weights are converted in registers",
                                     p_.b.value.name));
      d_.note(p_.b.loc, "use 'weight: int4;', 'weight: u4;' or 'weight: int4_e2m1;'");
      return;
    }
    if (p_.a.value.name != "fp16" && p_.a.value.name != "bf16") {
      d_.error(p_.a.loc, fmt::format("4-bit weights are converted to the activation's type, fp16 or bf16; this "
                                     "spec's activation is {}",
                                     p_.a.value.name));
      return;
    }
    if (p_.scale_a.value != "none") {
      d_.error(p_.scale_a.loc,
               "an activation scale with 4-bit weights is not generated yet; fold it into the "
               "weights' group scales");
      return;
    }
    if (sb.value == "per_tensor") {
      d_.error(sb.loc, "4-bit weights take group scales: write group_32, group_64, group_128 or per_column");
      return;
    }
    if (p_.family.user && p_.family.value != hw::Family::MmaSync &&
        !(p_.family.value == hw::Family::Wgmma && p_.hw.gpu.has_tma)) {
      d_.error(p_.family.loc,
               fmt::format("4-bit weights are generated on the mma.sync family (their weights stream into "
                           "registers) and, on a target with the tensor-memory accelerator, on wgmma (the TMA "
                           "kernel's producer converts them){}",
                           p_.family.value == hw::Family::Wgmma
                               ? fmt::format("; {} has no tensor-memory accelerator", p_.hw.name)
                               : ""));
      d_.note(p_.family.loc, "leave out 'family', or write 'family: mma_sync;'");
      return;
    }
    if (p_.loader.user || p_.persistent.user || p_.split_k.user) {
      d_.error(p_.loader.user       ? p_.loader.loc
               : p_.persistent.user ? p_.persistent.loc
                                    : p_.split_k.loc,
               "4-bit weights take the loader, tile loop and K split the solver picks: leave out 'loader', "
               "'persistent' and 'split_k'");
      return;
    }
    // (With 'family: wgmma' the TMA kernel's tiles are the solver's variables, as for any type.)
    if (!p_.user_constraints.empty() && !(p_.family.user && p_.family.value == hw::Family::Wgmma)) {
      const auto& u = p_.user_constraints.front();
      d_.error(u.loc, fmt::format("4-bit weights run the weight-streaming kernel, whose schedule follows from M, K "
                                  "and the group size, so it takes no schedule constraint ('{}')",
                                  u.text));
      d_.note(u.loc,
              "remove the constraint (the plan, --emit plan, shows the schedule chosen), or write 'family: "
              "wgmma;' on a target with the tensor-memory accelerator, whose tiles it constrains");
      return;
    }
    if (p_.k_dynamic) {
      d_.error(p_.K_min.loc,
               "4-bit weights need a fixed K (their packed layout and scale groups are laid along "
               "it); this spec has a K range");
      return;
    }
    if (g > 0 && sb.value != "per_column" && p_.K.value % g != 0) {
      d_.error(p_.K.loc, fmt::format("K = {} is not a multiple of the weight scales' group size {}", p_.K.value, g));
      d_.note(sb.loc, fmt::format("pad K to {} (zero weights) or choose a group size that divides K",
                                  (p_.K.value + g - 1) / g * g));
      return;
    }
    if (p_.K.value % 32 != 0) {
      d_.error(p_.K.loc,
               fmt::format("K = {} is not a multiple of 32: 4-bit weights are read 32 k at a time", p_.K.value));
      d_.note(p_.K.loc, fmt::format("pad K to {} (zero weights)", (p_.K.value + 31) / 32 * 32));
      return;
    }
    if (p_.N.value % 8 != 0) {
      d_.error(p_.N.loc,
               fmt::format("N = {} is not a multiple of 8: 4-bit weights are packed in columns of 8", p_.N.value));
      return;
    }
    if (p_.batch.value > 1) {
      d_.error(p_.batch.loc, "batched GEMMs with 4-bit weights are not generated yet");
      return;
    }
    if (p_.b_layout.user) {
      d_.error(p_.b_layout.loc,
               "4-bit weights have their own packed layout (written by 'deepgemm pack'); leave "
               "B out of the layout block");
      return;
    }
    for (const Declared<Layout>* l : {&p_.a_layout, &p_.c_layout})
      if (l->user && l->value != Layout::RowMajor) {
        d_.error(l->loc, "the 4-bit weight kernel reads a row-major A and writes a row-major C");
        return;
      }
  }
  for (const Declared<std::string>* s : {&p_.scale_a, &p_.scale_b}) {
    if (s->value == "none" || p_.acc.value.name == "fp32") continue;
    d_.error(s->loc, fmt::format("a {} scale multiplies an fp32 accumulation; this spec accumulates in {}", s->value,
                                 p_.acc.value.name));
    d_.note(p_.a.loc, "scales are generated for float inputs (fp16, bf16, fp8) accumulated in fp32");
    return;
  }
}

// Fine-grained fp8 scales (scales { A: group_128; B: block_128; }): one fp32 scale per row of A
// and 128 k, one per 128×128 block of B; the wgmma TMA kernel multiplies each 128-k step's
// partial sums by their product and adds them into the fp32 accumulators (codegen/wgmma_tma.cpp).
void Checker::check_block_scales() {
  const Declared<std::string>&sa = p_.scale_a, &sb = p_.scale_b;
  const bool a_group = sa.value == "group_128", b_block = sb.value == "block_128";
  const Loc at = a_group ? sa.loc : sb.loc;
  if (a_group && !b_block && p_.b.value.bits == 4 && !p_.a.value.is_fp8()) {
    d_.error(sa.loc,
             "'A: group_128' is fp8's per-token scale (beside 'B: block_128'); an activation scale with "
             "4-bit weights is not generated yet");
    d_.note(sa.loc, "remove 'A: group_128;' and keep the weights' group scales on B");
    return;
  }
  if (!p_.a.value.is_fp8() || !p_.b.value.is_fp8()) {
    d_.error(at, fmt::format("fine-grained scales (A: group_128, B: block_128) are generated for fp8 inputs; this "
                             "spec multiplies {} by {}",
                             p_.a.value.name, p_.b.value.name));
    d_.note(at, "use per_tensor scales, or fp8_e4m3 / fp8_e5m2 for both inputs");
    return;
  }
  if (!a_group || !b_block) {
    d_.error(b_block ? sb.loc : sa.loc,
             b_block ? "'B: block_128' pairs with per-token activation scales: each 128-k step's partial sums are "
                       "scaled by A's row scale times B's block scale"
                     : "'A: group_128' pairs with 128×128 weight block scales: each 128-k step's partial sums are "
                       "scaled by A's row scale times B's block scale");
    d_.note(b_block ? sb.loc : sa.loc,
            b_block ? "add 'A: group_128;' to the scales block" : "add 'B: block_128;' to the scales block");
    return;
  }
  if (!p_.hw.gpu.has_tma) {
    d_.error(at, fmt::format("fine-grained fp8 scales are applied by the wgmma kernel with the tensor-memory "
                             "accelerator; {} has none (has_tma)",
                             p_.hw.name));
    return;
  }
  if (p_.family.user && p_.family.value != hw::Family::Wgmma) {
    d_.error(p_.family.loc, "fine-grained fp8 scales are generated on the wgmma family");
    d_.note(p_.family.loc, "leave out 'family', or write 'family: wgmma;'");
    return;
  }
  if (p_.loader.user && p_.loader.value != "tma") {
    d_.error(p_.loader.loc,
             "fine-grained fp8 scales are generated with the TMA loader (its consumers scale each 128-k step)");
    d_.note(p_.loader.loc, "leave out 'loader', or write 'loader: tma;'");
    return;
  }
  if (p_.batch.value > 1) {
    d_.error(p_.batch.loc,
             "batched GEMMs with fine-grained fp8 scales are not generated yet (the TMA loader maps "
             "one matrix per operand)");
    return;
  }
  // The TMA loader maps A and B by rows of K bytes: whole 16-byte strides (hw.tma_strides).
  for (const Declared<std::int64_t>* k : {&p_.K, &p_.K_min, &p_.K_max}) {
    if (!k->user || k->value % 16 == 0) continue;
    d_.error(k->loc, fmt::format("fine-grained fp8 scales run on the TMA loader, whose row strides are whole 16 "
                                 "bytes: K = {} is not a multiple of 16",
                                 k->value));
    d_.note(k->loc, fmt::format("pad K to {} with zeros in A and B (their scales then multiply zeros)",
                                (k->value + 15) / 16 * 16));
    return;
  }
  if (p_.acc.value.name != "fp32") {
    d_.error(at, fmt::format("fine-grained scales multiply an fp32 accumulation; this spec accumulates in {}",
                             p_.acc.value.name));
    return;
  }
}

void Checker::check_constraints() {
  const bool gpu = p_.hw.is_gpu();
  auto gpu_only = [&](const ast::Entry& e) {
    if (gpu) return true;
    d_.error(e.loc, fmt::format("'{}' applies to GPU targets; '{}' is an NPU", e.key, p_.hw.name));
    return false;
  };
  if (const auto* e = get("constraints", "use_hmma"); e && gpu_only(*e)) want_bool(*e, p_.use_hmma);
  if (const auto* e = get("constraints", "fp16_fma"); e && gpu_only(*e)) want_bool(*e, p_.fp16_fma);
  if (const auto* e = get("constraints", "warp_level_sync"); e && gpu_only(*e)) want_bool(*e, p_.warp_level_sync);
  if (const auto* e = get("constraints", "family"); e && gpu_only(*e)) {
    std::string v;
    if (want_ident(*e, {"mma_sync", "wgmma"}, v))
      p_.family = {v == "mma_sync" ? hw::Family::MmaSync : hw::Family::Wgmma, e->value.loc, true};
  }
  if (const auto* e = get("constraints", "loader"); e && gpu_only(*e)) {
    std::string v;
    if (want_ident(*e, {"cp_async", "tma"}, v)) p_.loader = {v == "cp_async" ? "cp.async" : v, e->value.loc, true};
  }
  // An NPU's dataflow, among those its model lists (by default the solver's choice).
  if (const auto* e = get("constraints", "dataflow")) {
    std::string v;
    if (gpu) {
      d_.error(e->loc, fmt::format("'dataflow' applies to NPU targets; '{}' is a GPU", p_.hw.name));
    } else if (want_ident(*e, {"weight_stationary", "output_stationary"}, v)) {
      const auto& dfs = p_.hw.npu.dataflows;
      if (std::find(dfs.begin(), dfs.end(), v) == dfs.end()) {
        d_.error(e->value.loc, fmt::format("dataflow {} is not offered by {}: npu.dataflows is [{}]", v, p_.hw.name,
                                           join_words(dfs, ", ")));
        d_.note(e->value.loc, fmt::format("use one of [{}], or add \"{}\" to npu.dataflows in {}",
                                          join_words(dfs, ", "), v, p_.hw.file));
      } else if (const int rows = p_.hw.npu.pe_rows; v == "weight_stationary" && (rows & (rows - 1)) != 0) {
        // (hw::npu_layout refuses every tile of it: a weight block's rows straddle scratchpad words.)
        d_.error(e->value.loc,
                 fmt::format("dataflow weight_stationary is not generated for {}'s {}-row array: the engine reads a "
                             "weight block's npu.pe_rows k of an A row from one power-of-two scratchpad word",
                             p_.hw.name, rows));
        d_.note(e->value.loc, "use dataflow output_stationary, or a model whose npu.pe_rows is a power of two");
      } else {
        p_.dataflow = {v, e->value.loc, true};
      }
    }
  }
  if (const auto* e = get("constraints", "pad_k")) want_bool(*e, p_.pad_k);
  if (const auto* e = get("constraints", "persistent"); e && gpu_only(*e)) want_bool(*e, p_.persistent);
  // K split across blocks, each summing a range of K tiles into a workspace that the last block
  // of each output tile reduces (codegen/wgmma_tma.cpp); 1 turns splitting off.
  if (const auto* e = get("constraints", "split_k"); e && gpu_only(*e)) want_int(*e, 1, kMaxSplitK, p_.split_k);
  if (const auto* e = get("constraints", "sm_mem_limit")) {
    if (want_number(*e, 1, 1e6, p_.sm_mem_limit_kb)) {
      double hw_kb = gpu ? p_.hw.gpu.smem_per_block_bytes / 1024.0
                         : double(p_.hw.npu.spad_banks) * p_.hw.npu.spad_rows * p_.hw.npu.spad_width_bits / 8 / 1024.0;
      if (p_.sm_mem_limit_kb.value > hw_kb)
        d_.warning(e->value.loc,
                   fmt::format("sm_mem_limit {} KB exceeds {}'s {} of {} KB; the hardware limit applies", e->value.text,
                               p_.hw.name, gpu ? "shared memory per block" : "scratchpad", hw_kb));
    }
  }
  if (const auto* e = get("constraints", "l2_hit_rate_min"); e && gpu_only(*e)) {
    if ((e->value.kind == ast::Value::Kind::Int || e->value.kind == ast::Value::Kind::Decimal) &&
        e->value.dec_value > 1 && e->value.dec_value <= 100) {
      d_.error(e->value.loc, fmt::format("'l2_hit_rate_min' is a fraction between 0 and 1; for {}% write {}",
                                         e->value.text, e->value.dec_value / 100));
    } else {
      want_number(*e, 0, 1, p_.l2_hit_rate_min);
    }
  }
  if (const auto* e = get("constraints", "cast_output")) {
    Declared<DType> t;
    if (want_dtype(*e, t)) p_.cast_output = {t.value, e->loc, true};
  }
  if (const auto* e = get("constraints", "op_type")) {
    std::string v;
    if (want_ident(*e, epilogue_ops(), v)) p_.epilogue = {{v}, e->loc, true};
  }
  // C = epilogue(alpha · (A·B) + bias + beta · C_in): finite factors, applied in fp32.
  if (const auto* e = get("constraints", "alpha")) want_number(*e, -1e9, 1e9, p_.alpha);
  if (const auto* e = get("constraints", "beta")) want_number(*e, -1e9, 1e9, p_.beta);
  if (const auto* e = get("constraints", "sparse_pattern")) {
    std::string v;
    if (want_ident(*e, {"csr"}, v))
      d_.error(e->loc, "sparse_pattern 'csr' is not supported: this version generates dense kernels only");
  }
  if (const auto* e = get("constraints", "custom_bitwidth"); e && gpu) {
    d_.error(e->loc, fmt::format("'custom_bitwidth' applies to NPU targets; '{}' is a GPU", p_.hw.name));
  }
  for (const ast::Expr* x : exprs_) check_free_constraint(*x);
}

Checker::Ty Checker::type_of(const ast::Expr& e) {
  using K = ast::Expr::Kind;
  switch (e.kind) {
    case K::Int: return Ty::Int;
    case K::Bool: return Ty::Bool;
    case K::Decimal:
      d_.error(e.loc, fmt::format("free constraints are over integers; '{}' is not an integer", e.text));
      return Ty::Bad;
    case K::Var: {
      const auto& vars = schedule_variable_names();
      const auto& consts = problem_constant_names();
      if (std::find(vars.begin(), vars.end(), e.text) != vars.end() ||
          std::find(consts.begin(), consts.end(), e.text) != consts.end())
        return Ty::Int;
      std::vector<std::string> all = vars;
      all.insert(all.end(), consts.begin(), consts.end());
      std::string near = did_you_mean(e.text, all);
      d_.error(e.loc, fmt::format("unknown schedule variable '{}'{}", e.text,
                                  near.empty() ? fmt::format("; variables are {}", join_words(all, ", "))
                                               : fmt::format("; did you mean '{}'?", near)));
      return Ty::Bad;
    }
    case K::Unary: {
      Ty t = type_of(*e.lhs);
      if (t == Ty::Bad) return t;
      Ty want = e.text == "!" ? Ty::Bool : Ty::Int;
      if (t != want) {
        d_.error(e.loc, fmt::format("operator '{}' expects {}", e.text, want == Ty::Bool ? "a condition" : "a number"));
        return Ty::Bad;
      }
      return want;
    }
    case K::Binary: {
      Ty l = type_of(*e.lhs);
      Ty r = type_of(*e.rhs);
      if (l == Ty::Bad || r == Ty::Bad) return Ty::Bad;
      const std::string& op = e.text;
      bool logical = op == "&&" || op == "||";
      bool compare = op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=";
      Ty operand = logical ? Ty::Bool : Ty::Int;
      if ((op == "==" || op == "!=") && l == r) return Ty::Bool;
      if (l != operand || r != operand) {
        d_.error(e.loc, fmt::format("operator '{}' expects {} on both sides", op,
                                    operand == Ty::Bool ? "conditions" : "numbers"));
        return Ty::Bad;
      }
      if ((op == "/" || op == "%") && e.rhs->kind == ast::Expr::Kind::Int && e.rhs->int_value == 0) {
        d_.error(e.rhs->loc, "division by zero");
        return Ty::Bad;
      }
      return compare || logical ? Ty::Bool : Ty::Int;
    }
  }
  return Ty::Bad;
}

/// The polynomial degree of an integer expression (variables multiplied or divided together).
int Checker::degree(const ast::Expr& e) {
  using K = ast::Expr::Kind;
  switch (e.kind) {
    case K::Var: return 1;
    case K::Int:
    case K::Decimal:
    case K::Bool: return 0;
    case K::Unary: return degree(*e.lhs);
    case K::Binary: {
      const int l = degree(*e.lhs), r = degree(*e.rhs);
      return e.text == "*" || e.text == "/" || e.text == "%" ? l + r : std::max(l, r);
    }
  }
  return 0;
}

void Checker::check_free_constraint(const ast::Expr& e) {
  Ty t = type_of(e);
  if (t == Ty::Int) {
    d_.error(e.loc, fmt::format("a free constraint must be a condition such as '{} <= 8192'; '{}' is a number",
                                ast::expr_to_string(e), ast::expr_to_string(e)));
    return;
  }
  if (t == Ty::Bool && degree(e) > kMaxDegree) {
    d_.error(e.loc, fmt::format("the constraint multiplies or divides {} variables together; free constraints may "
                                "multiply at most {} (schedule variables and M, N, K, batch each count once per use)",
                                degree(e), kMaxDegree));
    return;
  }
  if (t == Ty::Bool)
    p_.user_constraints.push_back({ast::expr_to_string(e), e.loc, std::shared_ptr<const ast::Expr>(ast::clone(e))});
}

// ---- cross-key rules --------------------------------------------------------------------------
void Checker::check_rules() {
  if (!precision_ok_ || !shape_ok_) return;
  if (p_.hw.is_gpu())
    check_gpu_rules();
  else
    check_npu_rules();
}

std::optional<GemmProblem> check(const ast::Spec& spec, const std::string& hw_dir, DiagEngine& diags) {
  return Checker(spec, hw_dir, diags).run();
}

}  // namespace dg::sema
