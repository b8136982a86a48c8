#include "sema/check.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <numeric>
#include <set>

#include "support/error.h"
#include "support/strings.h"

namespace dg::sema {

namespace {

constexpr std::int64_t kMaxDim = 2147483647;  // 2^31 - 1: dimensions are 32-bit on every backend

const std::map<std::string, std::vector<std::string>>& block_keys() {
  static const std::map<std::string, std::vector<std::string>> keys = {
      {"precision", {"weight", "activation", "output", "accumulate"}},
      {"shape", {"M", "N", "K", "K_min", "K_max", "batch"}},
      {"layout", {"A", "B", "C", "smem"}},
      {"scales", {"A", "B"}},
      {"constraints",
       {"use_hmma", "fp16_fma", "sm_mem_limit", "l2_hit_rate_min", "pad_k", "cast_output", "warp_level_sync",
        "family", "loader", "persistent", "dataflow", "op_type", "sparse_pattern", "custom_bitwidth"}},
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
  static const std::vector<std::string> v = {"none",      "relu",      "gelu",      "gelu_tanh",      "silu",
                                             "bias",      "bias_relu", "bias_gelu", "bias_gelu_tanh", "bias_silu"};
  return v;
}

class Checker {
 public:
  Checker(const ast::Spec& spec, const std::string& hw_dir, DiagEngine& d) : spec_(spec), hw_dir_(hw_dir), d_(d) {}

  std::optional<GemmProblem> run() {
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

 private:
  // ---- target -------------------------------------------------------------------------------
  void resolve_target() {
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
  void collect_blocks() {
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

  const ast::Entry* get(const std::string& block, const std::string& key) const {
    auto b = entries_.find(block);
    if (b == entries_.end()) return nullptr;
    auto e = b->second.find(key);
    return e == b->second.end() ? nullptr : e->second;
  }

  // ---- typed values -----------------------------------------------------------------------------
  bool want_bool(const ast::Entry& e, Declared<bool>& out) {
    if (e.value.kind != ast::Value::Kind::Bool) {
      d_.error(e.value.loc, fmt::format("'{}' expects true or false, got {} '{}'", e.key,
                                        ast::value_kind_name(e.value.kind), e.value.text));
      return false;
    }
    out = {e.value.bool_value, e.loc, true};
    return true;
  }

  bool want_int(const ast::Entry& e, std::int64_t lo, std::int64_t hi, Declared<std::int64_t>& out) {
    if (e.value.kind != ast::Value::Kind::Int) {
      d_.error(e.value.loc, fmt::format("'{}' expects an integer, got {} '{}'", e.key,
                                        ast::value_kind_name(e.value.kind), e.value.text));
      return false;
    }
    if (!e.value.unit.empty()) {
      d_.error(e.value.loc, fmt::format("'{}' takes no unit", e.key));
      return false;
    }
    if (e.value.overflow || e.value.int_value < lo || e.value.int_value > hi) {
      d_.error(e.value.loc, fmt::format("'{}' is out of range: {} is not between {} and {}", e.key, e.value.text, lo, hi));
      return false;
    }
    out = {e.value.int_value, e.value.loc, true};  // sizes are blamed at the number itself
    return true;
  }

  bool want_number(const ast::Entry& e, double lo, double hi, Declared<double>& out) {
    if (e.value.kind != ast::Value::Kind::Int && e.value.kind != ast::Value::Kind::Decimal) {
      d_.error(e.value.loc, fmt::format("'{}' expects a number, got {} '{}'", e.key,
                                        ast::value_kind_name(e.value.kind), e.value.text));
      return false;
    }
    double v = e.value.dec_value;
    if (!(v >= lo && v <= hi) || e.value.overflow) {
      d_.error(e.value.loc, fmt::format("'{}' is out of range: {} is not between {} and {}", e.key, e.value.text, lo, hi));
      return false;
    }
    out = {v, e.loc, true};
    return true;
  }

  bool want_ident(const ast::Entry& e, const std::vector<std::string>& allowed, std::string& out) {
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

  bool want_dtype(const ast::Entry& e, Declared<DType>& out) {
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
  void check_precision() {
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

  Loc block_loc(const std::string& name) const {
    for (const auto& b : spec_.blocks)
      if (b.name == name) return b.loc;
    return Loc{spec_.file, 1, 1};
  }

  void check_shape() {
    if (!entries_.count("shape")) return;
    bool ok = true;
    auto dim = [&](const char* key, Declared<std::int64_t>& out) {
      if (const auto* e = get("shape", key)) ok &= want_int(*e, 1, kMaxDim, out);
    };
    dim("M", p_.M);
    dim("N", p_.N);
    dim("K", p_.K);
    dim("K_min", p_.K_min);
    dim("K_max", p_.K_max);
    p_.batch = {1, {}, false};
    if (const auto* e = get("shape", "batch")) ok &= want_int(*e, 1, 65535, p_.batch);
    Loc sloc = block_loc("shape");
    if (!get("shape", "M")) d_.error(sloc, "the shape block must declare 'M'"), ok = false;
    if (!get("shape", "N")) d_.error(sloc, "the shape block must declare 'N'"), ok = false;
    const auto* k = get("shape", "K");
    const auto* kmin = get("shape", "K_min");
    const auto* kmax = get("shape", "K_max");
    if (k && (kmin || kmax)) {
      d_.error((kmin ? kmin : kmax)->loc, "declare either 'K' or a 'K_min'/'K_max' range, not both");
      d_.note(k->loc, "'K' declared here");
      ok = false;
    } else if (!k && !kmin && !kmax) {
      d_.error(sloc, "the shape block must declare 'K' (or a 'K_min'/'K_max' range)");
      ok = false;
    } else if (!k && (!kmin || !kmax)) {
      d_.error((kmin ? kmin : kmax)->loc,
               fmt::format("a K range needs both 'K_min' and 'K_max'; '{}' is missing", kmin ? "K_max" : "K_min"));
      ok = false;
    } else if (!k && ok && p_.K_min.value > p_.K_max.value) {
      d_.error(kmin->loc, fmt::format("empty K range: K_min {} is greater than K_max {}", p_.K_min.value, p_.K_max.value));
      ok = false;
    }
    if (ok) {
      if (k) {
        p_.K_min = p_.K;
        p_.K_max = p_.K;
      } else {
        p_.k_dynamic = true;
        p_.K = p_.K_max;  // the largest K sizes buffers and bounds
      }
    }
    shape_ok_ = ok;
  }

  void check_layout() {
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
  void check_scales() {
    p_.scale_a = {"none", {}, false};
    p_.scale_b = {"none", {}, false};
    static const std::vector<std::string> kinds = {"none", "per_tensor"};
    auto one = [&](const char* key, Declared<std::string>& out) {
      const auto* e = get("scales", key);
      if (!e) return;
      std::string v;
      if (!want_ident(*e, kinds, v)) return;
      if (!p_.hw.is_gpu()) {
        d_.error(e->loc, fmt::format("scales apply to GPU targets; '{}' is an NPU, whose outputs are integers", p_.hw.name));
        return;
      }
      out = {v, e->loc, true};
    };
    one("A", p_.scale_a);
    one("B", p_.scale_b);
  }

  // Once the accumulation is resolved: a scale multiplies an fp32 accumulation.
  void check_scaled_accumulation() {
    for (const Declared<std::string>* s : {&p_.scale_a, &p_.scale_b}) {
      if (s->value == "none" || p_.acc.value.name == "fp32") continue;
      d_.error(s->loc, fmt::format("a {} scale multiplies an fp32 accumulation; this spec accumulates in {}", s->value,
                                   p_.acc.value.name));
      d_.note(p_.a.loc, "scales are generated for float inputs (fp16, bf16, fp8) accumulated in fp32");
      return;
    }
  }

  void check_constraints() {
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
      if (want_ident(*e, {"mma_sync", "wgmma"}, v)) p_.family = {v == "mma_sync" ? "mma.sync" : v, e->value.loc, true};
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
        } else {
          p_.dataflow = {v, e->value.loc, true};
        }
      }
    }
    if (const auto* e = get("constraints", "pad_k")) want_bool(*e, p_.pad_k);
    if (const auto* e = get("constraints", "persistent"); e && gpu_only(*e)) want_bool(*e, p_.persistent);
    if (const auto* e = get("constraints", "sm_mem_limit")) {
      if (want_number(*e, 1, 1e6, p_.sm_mem_limit_kb)) {
        double hw_kb = gpu ? p_.hw.gpu.smem_per_block_bytes / 1024.0
                           : double(p_.hw.npu.spad_banks) * p_.hw.npu.spad_rows * p_.hw.npu.spad_width_bits / 8 / 1024.0;
        if (p_.sm_mem_limit_kb.value > hw_kb)
          d_.warning(e->value.loc, fmt::format("sm_mem_limit {} KB exceeds {}'s {} of {} KB; the hardware limit applies",
                                               e->value.text, p_.hw.name,
                                               gpu ? "shared memory per block" : "scratchpad", hw_kb));
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

  // ---- free constraints -------------------------------------------------------------------------
  enum class Ty { Int, Bool, Bad };

  Ty type_of(const ast::Expr& e) {
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

  // The solver decides products of variables by case splits over their domains: a product of many
  // is refused here rather than left to run for minutes.
  static constexpr int kMaxDegree = 8;

  /// The polynomial degree of an integer expression (variables multiplied or divided together).
  static int degree(const ast::Expr& e) {
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

  void check_free_constraint(const ast::Expr& e) {
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
  void check_rules() {
    if (!precision_ok_ || !shape_ok_) return;
    if (p_.hw.is_gpu())
      check_gpu_rules();
    else
      check_npu_rules();
  }

  std::string acc_default(const DType& a) const { return a.is_float() ? "fp32" : "int32"; }

  static std::string describe_mma(const hw::MmaShape& s) {
    return fmt::format("{} m{}n{}k{} {}×{}→{}", s.instr, s.m, s.n, s.k, s.a_type, s.b_type, s.acc_type);
  }

  void check_gpu_rules() {
    const hw::GpuModel& g = p_.hw.gpu;
    if (p_.use_hmma.user && p_.use_hmma.value && p_.fp16_fma.user && p_.fp16_fma.value) {
      const Loc& later = p_.fp16_fma.loc.line > p_.use_hmma.loc.line ? p_.fp16_fma.loc : p_.use_hmma.loc;
      const Loc& earlier = &later == &p_.fp16_fma.loc ? p_.use_hmma.loc : p_.fp16_fma.loc;
      d_.error(later, "conflicting compute units: 'use_hmma: true' asks for tensor cores (fp32 accumulation) and "
                      "'fp16_fma: true' for fp16 FMA on CUDA cores");
      d_.note(earlier, "the other compute unit is requested here");
      return;
    }
    const DType& a = p_.a.value;
    const DType& b = p_.b.value;
    bool fp16_fma = p_.fp16_fma.user && p_.fp16_fma.value;
    if (!p_.acc.user) p_.acc = {*parse_dtype(fp16_fma ? "fp16" : acc_default(a)), {}, false};
    if (fp16_fma && !(a.name == "fp16" && b.name == "fp16")) {
      d_.error(p_.fp16_fma.loc, fmt::format("'fp16_fma' multiplies fp16 by fp16; the precisions are activation {} and "
                                            "weight {}",
                                            a.name, b.name));
      return;
    }
    if (fp16_fma && p_.acc.value.name != "fp16") {
      d_.error(p_.acc.loc, fmt::format("'fp16_fma' accumulates in fp16; 'accumulate: {}' contradicts it", p_.acc.value.name));
      return;
    }

    // Which instructions can do this? Tensor cores directly, tensor cores after converting the
    // weights in registers, or plain FMA on CUDA cores.
    std::vector<const hw::MmaShape*> direct;
    for (const auto& s : g.mma)
      if (s.a_type == a.name && s.b_type == b.name && s.acc_type == p_.acc.value.name) direct.push_back(&s);
    std::string conversion;
    if (direct.empty()) {
      for (const auto& conv : g.conversions) {
        if (conv.from != b.name) continue;
        if (std::find(conv.compute_types.begin(), conv.compute_types.end(), a.name) == conv.compute_types.end()) continue;
        for (const auto& s : g.mma)
          if (s.a_type == a.name && s.b_type == a.name && s.acc_type == p_.acc.value.name) direct.push_back(&s);
        if (!direct.empty()) conversion = a.name;
      }
    }
    bool simt_ok = a == b && std::find(g.simt_types.begin(), g.simt_types.end(), a.name) != g.simt_types.end() &&
                   (p_.acc.value.name == "fp32" || (p_.acc.value.name == "fp16" && a.name == "fp16"));
    bool want_tc = p_.use_hmma.user ? p_.use_hmma.value : !fp16_fma;
    // A row-major (N-major) B leaves out the instructions that read B K-major only (the model's
    // b_k_major_only: wgmma transposes 16-bit elements only, integer mma.sync takes .row.col).
    if (want_tc && p_.b_layout.value == Layout::RowMajor) {
      std::set<std::string> k_major_only;
      for (const auto* s : direct)
        if (s->b_k_major_only) k_major_only.insert(s->instr);
      direct.erase(std::remove_if(direct.begin(), direct.end(), [](const auto* s) { return s->b_k_major_only; }),
                   direct.end());
      if (!k_major_only.empty() && direct.empty()) {
        const Loc& at = p_.b_layout.user ? p_.b_layout.loc : p_.b.loc;
        d_.error(at, fmt::format("{} runs activation {} × weight {} on {} only, which read{} B K-major (column-major) "
                                 "only",
                                 p_.hw.name, a.name, b.name, join_words(std::vector<std::string>(k_major_only.begin(), k_major_only.end()), " and "),
                                 k_major_only.size() == 1 ? "s" : ""));
        d_.note(at, "store B column-major (K-major): add 'B: col_major;' to the layout block");
        return;
      }
    }
    bool tensor = want_tc && !direct.empty();
    if (want_tc && direct.empty() && (p_.use_hmma.user || !simt_ok)) {
      const Loc& at = p_.b.loc;
      d_.error(at, fmt::format("precision combination activation {} × weight {} (accumulate {}) is not supported by "
                               "{}'s tensor cores",
                               a.name, b.name, p_.acc.value.name, p_.hw.name));
      std::set<std::string> combos;
      for (const auto& s : g.mma) combos.insert(fmt::format("{}×{}→{}", s.a_type, s.b_type, s.acc_type));
      d_.note(p_.target_loc, fmt::format("{} tensor cores take {}", p_.hw.name,
                                         join_words(std::vector<std::string>(combos.begin(), combos.end()), ", ")));
      return;
    }
    if (!tensor && !simt_ok) {
      d_.error(p_.b.loc, fmt::format("precision combination activation {} × weight {} needs tensor cores on {}, but "
                                     "'use_hmma' is false",
                                     a.name, b.name, p_.hw.name));
      return;
    }
    if (tensor) {
      p_.use_hmma = {true, p_.use_hmma.loc, p_.use_hmma.user};
      p_.weight_conversion = conversion;
      int kstep = 0;
      std::set<std::string> paths;
      for (const auto* s : direct) {
        paths.insert(s->instr);
        if (s->instr == "mma.sync") kstep = kstep == 0 ? s->k : std::min(kstep, s->k);
      }
      if (kstep == 0)
        for (const auto* s : direct) kstep = kstep == 0 ? s->k : std::min(kstep, s->k);
      p_.k_step = kstep;
      p_.compute_paths.assign(paths.begin(), paths.end());
      const hw::MmaShape* first = direct.front();
      for (const auto* s : direct)
        if (s->instr == "mma.sync") {
          first = s;
          break;
        }
      // A run-time K zero-fills its K tail in the kernel, whatever K is chosen: no pad_k needed.
      // Its rows of A are loaded 16 bytes at a time, so every run-time K, the range's ends too,
      // is a multiple of 16 bytes of A's elements.
      if (p_.k_dynamic) {
        const std::int64_t align = elements_per(a, 16);
        for (const Declared<std::int64_t>* end : {&p_.K_min, &p_.K_max})
          if (end->value % align != 0) {
            d_.error(end->loc, fmt::format("a run-time K on {} is a multiple of {} ({} elements of A: rows are loaded "
                                           "16 bytes at a time); {} is {}",
                                           p_.hw.name, align, a.name, end == &p_.K_min ? "K_min" : "K_max", end->value));
            d_.note(end->loc, fmt::format("make K_min and K_max multiples of {}", align));
            return;
          }
      }
      if (!p_.pad_k.value && !p_.k_dynamic) {
        if (p_.K.value % kstep != 0) {
          d_.error(p_.K.loc, fmt::format("K dimension not aligned to tensor core requirement: K = {} is not a multiple "
                                         "of {} ({})",
                                         p_.K.value, kstep, describe_mma(*first)));
          d_.note(p_.K.loc, fmt::format("add 'pad_k: true;' to the constraints block to zero-fill the K tail (K "
                                        "padded to {})",
                                        (p_.K.value + kstep - 1) / kstep * kstep));
        }
      }
      if (!conversion.empty())
        d_.note(p_.b.loc, fmt::format("{} has no {}×{} tensor-core instruction: the {} weights are converted to {} in "
                                      "registers before the multiply",
                                      p_.hw.name, a.name, b.name, b.name, conversion));
    } else {
      p_.use_hmma = {false, p_.use_hmma.loc, p_.use_hmma.user};
      p_.compute_paths = {"simt"};
    }
    if (p_.family.user &&
        std::find(p_.compute_paths.begin(), p_.compute_paths.end(), p_.family.value) == p_.compute_paths.end()) {
      d_.error(p_.family.loc, fmt::format("'family: {}' is not available here: {} runs {}×{} (accumulate {}) on {}",
                                          p_.family.value == "mma.sync" ? "mma_sync" : p_.family.value, p_.hw.name,
                                          a.name, b.name, p_.acc.value.name, join_words(p_.compute_paths, ", ")));
      return;
    }
    resolve_output(tensor);
  }

  void resolve_output(bool tensor) {
    if (p_.cast_output.user && p_.c.user && p_.cast_output.value && !(*p_.cast_output.value == p_.c.value)) {
      // 'output: fp32; cast_output: fp16': the output names the accumulation, stored cast to the
      // narrower float. A cast to a wider type, between integers and floats, or from an output
      // that is not the accumulation contradicts it.
      const DType& cast = *p_.cast_output.value;
      const DType& out = p_.c.value;
      const bool narrows = out.is_float() && cast.is_float() && cast.bits < out.bits;
      if (!narrows || !(out == p_.acc.value)) {
        d_.error(p_.cast_output.loc,
                 fmt::format("'cast_output: {}' contradicts 'output: {}': {}", cast.name, out.name,
                             !narrows ? fmt::format("a cast stores the {} accumulation as a narrower float ('output: fp32; "
                                                    "cast_output: fp16'), and {} is not one",
                                                    p_.acc.value.name, cast.name)
                                      : fmt::format("the accumulation is {}, not {}", p_.acc.value.name, out.name)));
        d_.note(p_.c.loc, "output declared here");
        return;
      }
      p_.c = {cast, p_.cast_output.loc, true};
    }
    if (!p_.c.user) {
      if (p_.cast_output.user && p_.cast_output.value)
        p_.c = {*p_.cast_output.value, p_.cast_output.loc, false};
      else
        p_.c = {p_.acc.value, {}, false};
    }
    const DType& c = p_.c.value;
    const DType& acc = p_.acc.value;
    if (acc.is_float() && c.is_int()) {
      d_.error(p_.c.loc, fmt::format("output {} from {} accumulation is not supported; use a float output", c.name, acc.name));
      return;
    }
    if (tensor && c.name != acc.name && !p_.cast_output.user && c.bits < acc.bits) {
      d_.note(p_.c.loc, fmt::format("tensor cores accumulate in {}; the {} output is produced by a cast on store (add "
                                    "'cast_output: {};' to the constraints block to make it explicit)",
                                    acc.name, c.name, c.name));
    }
  }

  void check_npu_rules() {
    const hw::NpuModel& n = p_.hw.npu;
    // A model that asks for hardware the generator does not build is refused here, naming the
    // field, before anything is planned.
    if (std::string why = hw::npu_unbuildable(n); !why.empty()) {
      d_.error(p_.target_loc, fmt::format("{}: {}, so this model cannot be built", p_.hw.file, why));
      return;
    }
    auto check_input = [&](const Declared<DType>& t, const char* role) {
      if (t.value.is_float()) {
        d_.error(t.loc, fmt::format("{} multiplies integers only; {} precision {} is a float format", p_.hw.name, role,
                                    t.value.name));
        return false;
      }
      bool native = std::find(n.input_types.begin(), n.input_types.end(), t.value.name) != n.input_types.end();
      if (!native && !(t.value.is_custom() && t.value.bits <= n.max_custom_width)) {
        d_.error(t.loc, fmt::format("{} precision {} is not supported by {}: inputs are {} or custom widths up to {} bits",
                                    role, t.value.name, p_.hw.name, join_words(n.input_types, ", "), n.max_custom_width));
        return false;
      }
      return true;
    };
    bool a_ok = check_input(p_.a, "activation");
    bool b_ok = check_input(p_.b, "weight");
    if (!a_ok || !b_ok) return;
    if (!p_.acc.user) p_.acc = {DType{DType::Kind::Int, n.acc_width, true, fmt::format("int{}", n.acc_width)}, {}, false};
    if (p_.acc.value.is_float() || p_.acc.value.bits > n.acc_width) {
      d_.error(p_.acc.loc, fmt::format("accumulate {} is not supported by {}: accumulators are {}-bit integers",
                                       p_.acc.value.name, p_.hw.name, n.acc_width));
      return;
    }
    // The output: the accumulator's sum as int32 or int64 (by default the narrower that holds the
    // accumulator); an int32 output of wider accumulators saturates.
    if (!p_.c.user) {
      const bool wide = p_.acc.value.bits > 32;
      p_.c = {DType{DType::Kind::Int, wide ? 64 : 32, true, wide ? "int64" : "int32"}, {}, false};
    }
    if (p_.c.value.is_float()) {
      d_.error(p_.c.loc, fmt::format("output {} is not supported by {}: outputs are integers", p_.c.value.name, p_.hw.name));
      return;
    }
    p_.compute_paths = {"npu"};
  }

  const ast::Spec& spec_;
  const std::string& hw_dir_;
  DiagEngine& d_;
  GemmProblem p_;
  bool have_target_ = false;
  bool precision_ok_ = false;
  bool shape_ok_ = false;
  int custom_bits_ = 0;
  std::map<std::string, std::map<std::string, const ast::Entry*>> entries_;
  std::vector<const ast::Expr*> exprs_;
};

}  // namespace

std::optional<GemmProblem> check(const ast::Spec& spec, const std::string& hw_dir, DiagEngine& diags) {
  return Checker(spec, hw_dir, diags).run();
}

}  // namespace dg::sema
