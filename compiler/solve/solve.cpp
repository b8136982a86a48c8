#include "solve/solve.h"

#include <algorithm>
#include <numeric>
#include <cmath>
#include <fmt/format.h>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include "smt/smt.h"
#include "support/error.h"

namespace dg::solve {

namespace {

using smt::Expr;

/// Builds the Z3 query over the space: one index variable per schedule variable, and every
/// derived quantity as a table (nested ite) over the few variables it depends on.
class Query {
 public:
  Query(const Space& s, smt::Solver& z) : s_(s), z_(z) {
    for (const auto& v : s_.vars) {
      Expr i = z_.int_var(v.name + "_i");
      z_.add(i >= 0);
      z_.add(i < static_cast<std::int64_t>(v.values.size()));
      idx_.push_back(i);
    }
  }

  const Expr& index(int var) const { return idx_[var]; }
  int var(const std::string& name) const {
    int i = s_.index_of(name);
    DG_INTERNAL_ASSERT(i >= 0, "no schedule variable " + name);
    return i;
  }

  /// f tabulated over the named variables' domains.
  Expr table(const std::vector<std::string>& names, const std::function<std::int64_t(const std::vector<std::int64_t>&)>& f) {
    std::vector<int> vars;
    for (const auto& n : names) vars.push_back(var(n));
    std::vector<std::int64_t> vals(vars.size());
    std::string sig;
    return build(vars, 0, vals, f, sig);
  }

  Expr value(const std::string& name) {
    return table({name}, [](const std::vector<std::int64_t>& v) { return v[0]; });
  }

  /// x · term, where x is a schedule variable with a small domain: expanded into a sum of ites so
  /// that the query stays linear.
  Expr times_var(const std::string& name, const Expr& term) {
    int v = var(name);
    std::vector<Expr> parts;
    for (size_t i = 0; i < s_.vars[v].values.size(); ++i)
      parts.push_back(smt::ite(idx_[v] == static_cast<std::int64_t>(i), term * s_.vars[v].values[i], z_.int_val(0)));
    return z_.sum(parts);
  }

  Expr is_value(const std::string& name, std::int64_t value) {
    int v = var(name);
    const auto& vals = s_.vars[v].values;
    auto it = std::find(vals.begin(), vals.end(), value);
    if (it == vals.end()) return z_.bool_val(false);
    return idx_[v] == static_cast<std::int64_t>(it - vals.begin());
  }

  Point read(const smt::Solver& z) const {
    Point x;
    for (size_t i = 0; i < s_.vars.size(); ++i) x.push_back(s_.vars[i].values[z.eval_int(idx_[i])]);
    return x;
  }

 private:
  // Nested ite over the variables' indices; subtrees that do not depend on a variable collapse
  // (compared by a structural signature), so a table only branches where its function varies.
  Expr build(const std::vector<int>& vars, size_t d, std::vector<std::int64_t>& vals,
             const std::function<std::int64_t(const std::vector<std::int64_t>&)>& f, std::string& sig) {
    if (d == vars.size()) {
      std::int64_t k = f(vals);
      sig = std::to_string(k);
      return z_.int_val(k);
    }
    const auto& dom = s_.vars[vars[d]].values;
    std::vector<Expr> sub;
    std::vector<std::string> sigs(dom.size());
    for (size_t i = 0; i < dom.size(); ++i) {
      vals[d] = dom[i];
      sub.push_back(build(vars, d + 1, vals, f, sigs[i]));
    }
    if (std::all_of(sigs.begin(), sigs.end(), [&](const std::string& x) { return x == sigs[0]; })) {
      sig = sigs[0];
      return sub[0];
    }
    sig = "(" + std::to_string(vars[d]);
    for (const auto& x : sigs) sig += " " + x;
    sig += ")";
    Expr e = sub.back();
    for (size_t i = sub.size() - 1; i-- > 0;)
      e = smt::ite(idx_[vars[d]] == static_cast<std::int64_t>(i), sub[i], e);
    return e;
  }

  const Space& s_;
  smt::Solver& z_;
  std::vector<Expr> idx_;
};

std::string kb(std::int64_t bytes) {
  return bytes % 1024 == 0 ? fmt::format("{} KB", bytes / 1024) : fmt::format("{:.1f} KB", bytes / 1024.0);
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// Everything about one query: rules, the objective terms and the handles to read them back.
struct Model {
  std::vector<Rule> rules;
  std::map<std::string, Expr> rule_expr;
  std::optional<Expr> cost, tiebreak, smem, l2;
  std::vector<Expr> cost_links;  // defines the cost's max() term; asserted only where the cost is used
};

class Encoder {
 public:
  Encoder(const Space& s, smt::Solver& z, Query& q, Model& m) : s_(s), z_(z), q_(q), m_(m) {}

  void rule(const std::string& name, const std::string& text, const std::string& origin, const Expr& e, Loc loc = {},
            std::string decl = "") {
    m_.rules.push_back({name, text, loc, origin, decl.empty() ? text : decl});
    m_.rule_expr.emplace(name, e);
    z_.track(e, name);
  }

  void encode() {
    if (s_.gpu)
      encode_gpu();
    else
      encode_npu();
    encode_numerics();
    encode_user();
  }

 private:
  using Vals = std::vector<std::int64_t>;
  const GemmProblem& p() const { return *s_.problem; }

  Expr flag(const std::vector<std::string>& vars, const std::function<bool(const Vals&)>& f) {
    return q_.table(vars, [&](const Vals& v) { return f(v) ? 1 : 0; }) == 1;
  }

  void encode_gpu() {
    const auto& g = p().hw.gpu;
    const std::string hwn = p().hw.name;
    if (s_.family == "wgmma")
      rule("hw.warp_tile_m",
           fmt::format("tile_m / warpgroups is a multiple of the instruction's M ({}); a warpgroup is 4 warps", s_.im),
           "hardware", flag({"tile_m", "warp_m"}, [&](const Vals& v) { return v[1] % 4 == 0 && v[0] % (v[1] / 4 * s_.im) == 0; }));
    else
      rule("hw.warp_tile_m", fmt::format("tile_m / warp_m is a multiple of the instruction's M ({})", s_.im), "hardware",
           flag({"tile_m", "warp_m"}, [&](const Vals& v) { return v[0] % (v[1] * s_.im) == 0; }));
    rule("hw.warp_tile_n", fmt::format("tile_n / warp_n is a multiple of the instruction's N ({})", s_.in), "hardware",
         flag({"tile_n", "warp_n"}, [&](const Vals& v) { return v[0] % (v[1] * s_.in) == 0; }));
    // The wgmma family's loader: a TMA producer warpgroup adds threads and registers.
    const bool loaders = s_.index_of("loader") >= 0;
    auto with_loader = [&](std::vector<std::string> vars) {
      if (loaders) vars.push_back("loader");
      return vars;
    };
    auto loader_of = [&](const Vals& v) { return loaders ? v.back() : kLoaderCpAsync; };
    Expr thr = q_.table(with_loader({"warp_m", "warp_n"}),
                        [&](const Vals& v) { return block_threads(v[0], v[1], loader_of(v)); });
    rule("hw.threads_per_block", fmt::format("threads per block <= {} ({})", g.max_threads_per_block, hwn), "hardware",
         thr <= g.max_threads_per_block);
    if (loaders) {
      // The copy engine's tensor maps (PTX ISA, cp.async.bulk.tensor; CUDA driver API,
      // cuTensorMapEncodeTiled): a global row stride that is a multiple of 16 bytes, and one 2-D
      // map per operand (a batch is not mapped yet). The base addresses' 16-byte alignment is the
      // runtime's check when a buffer is bound.
      const bool strides = tma_strides_aligned(s_);
      rule("hw.tma_strides", tma_strides_rule(s_), "hardware",
           flag({"loader"}, [&](const Vals& v) { return v[0] != kLoaderTma || strides; }));
      rule("hw.tma_batch", kTmaBatchRule, "hardware",
           flag({"loader"}, [&](const Vals& v) { return v[0] != kLoaderTma || s_.batch == 1; }));
    }
    if (p().persistent.user && p().persistent.value)
      rule("spec.persistent", "a persistent tile loop is generated for the TMA loader", "user",
           loaders ? q_.is_value("loader", kLoaderTma) : z_.bool_val(false), p().persistent.loc);
    if (p().loader.user)
      rule("spec.loader", fmt::format("operand tiles are loaded by {}", p().loader.value), "user",
           loaders ? q_.is_value("loader", p().loader.value == "tma" ? kLoaderTma : kLoaderCpAsync)
                   : z_.bool_val(p().loader.value == "cp.async"),
           p().loader.loc);
    Expr regs = q_.table({"tile_m", "tile_n", "tile_k", "warp_m", "warp_n"},
                         [&](const Vals& v) { return regs_per_thread(s_, v[0], v[1], v[2], v[3], v[4]); });
    rule("hw.registers_per_thread",
         fmt::format("accumulator and fragment registers per thread <= {} ({})", g.max_regs_per_thread, hwn),
         "hardware", regs <= g.max_regs_per_thread);

    Expr per_stage = q_.table({"tile_m", "tile_n", "tile_k"}, [&](const Vals& v) { return stage_bytes(s_, v[0], v[1], v[2]); }) +
                     q_.table({"tile_m", "tile_n", "tile_k", "smem"},
                              [&](const Vals& v) { return pad_bytes(s_, v[0], v[1], v[2], v[3]); });
    if (loaders)  // the TMA loader's two mbarriers per stage
      per_stage = per_stage + q_.table({"loader"}, [&](const Vals& v) { return v[0] == kLoaderTma ? kTmaBarrierBytes : 0; });
    Expr smem = q_.times_var("stages", per_stage);
    m_.smem = smem;
    rule("hw.smem_per_block", fmt::format("shared memory per block <= {} ({})", kb(g.smem_per_block_bytes), hwn),
         "hardware", smem <= g.smem_per_block_bytes);
    if (p().sm_mem_limit_kb.user) {
      auto limit = static_cast<std::int64_t>(std::floor(p().sm_mem_limit_kb.value * 1024));
      rule("spec.sm_mem_limit", fmt::format("shared memory per block <= {}", kb(limit)), "user", smem <= limit,
           p().sm_mem_limit_kb.loc, fmt::format("sm_mem_limit {}", p().sm_mem_limit_kb.value));
    }
    rule("hw.occupancy_smem",
         fmt::format("blocks_per_sm × shared memory per block <= {} per SM ({})", kb(g.smem_per_sm_bytes), hwn),
         "hardware", q_.times_var("blocks_per_sm", smem) <= g.smem_per_sm_bytes);
    Expr regs_block = q_.table(with_loader({"tile_m", "tile_n", "tile_k", "warp_m", "warp_n"}), [&](const Vals& v) {
      return block_registers(s_, v[0], v[1], v[2], v[3], v[4], loader_of(v));
    });
    rule("hw.occupancy_registers", fmt::format("blocks_per_sm × registers per block <= {} per SM ({})", g.regs_per_sm, hwn),
         "hardware", q_.times_var("blocks_per_sm", regs_block) <= g.regs_per_sm);
    rule("hw.occupancy_threads", fmt::format("blocks_per_sm × threads per block <= {} per SM ({})", g.max_threads_per_sm, hwn),
         "hardware", q_.times_var("blocks_per_sm", thr) <= g.max_threads_per_sm);

    for (bool a : {true, false}) {
      // A's tile depends on tile_m and tile_k, B's on tile_k and tile_n.
      std::string other = a ? "tile_m" : "tile_n";
      Expr rate = q_.table({other, "tile_k", "smem"}, [&](const Vals& v) {
        std::int64_t rows, row_bytes;
        std::int64_t tm = a ? v[0] : 16, tn = a ? 16 : v[0];
        smem_tile_shape(s_, a, tm, tn, v[1], rows, row_bytes);
        return bank_conflict_milli(s_, rows, row_bytes, v[2]);
      });
      rule(a ? "hw.bank_conflicts_a" : "hw.bank_conflicts_b",
           fmt::format("shared-memory bank conflicts of {}'s tile <= 5% ({} banks × {} B)", a ? "A" : "B", g.smem_banks,
                       g.smem_bank_width_bytes),
           "hardware", rate <= 50);
    }
    rule("hw.split_k", "each K split gets at least one K tile", "hardware",
         flag({"tile_k", "split_k"}, [&](const Vals& v) { return v[1] == 1 || ceil_div(s_.K, v[0]) >= v[1]; }));

    Expr l2 = q_.table({"tile_m", "tile_n", "raster_group", "blocks_per_sm"},
                       [&](const Vals& v) { return l2_hit_milli(s_, v[0], v[1], v[2], v[3]); });
    m_.l2 = l2;
    if (p().l2_hit_rate_min.user) {
      auto need = static_cast<std::int64_t>(std::ceil(p().l2_hit_rate_min.value * 1000 - 1e-9));
      rule("spec.l2_hit_rate_min", fmt::format("modelled L2 hit rate >= {}", p().l2_hit_rate_min.value), "user",
           l2 >= need, p().l2_hit_rate_min.loc, fmt::format("l2_hit_rate_min {}", p().l2_hit_rate_min.value));
    }
    if (p().smem_layout.user) {
      std::int64_t want = kNone;
      for (std::int64_t v = kNone; v <= kSwizzle128; ++v)
        if (p().smem_layout.value == smem_layout_name(v)) want = v;
      rule("spec.layout_smem", fmt::format("shared-memory layout is {}", p().smem_layout.value), "user",
           q_.is_value("smem", want), p().smem_layout.loc);
    }

    // Objective: log2 of the predicted time (cost_model.md), then a deterministic tie-break.
    Expr waves = q_.table({"tile_m", "tile_n", "split_k", "blocks_per_sm"},
                          [&](const Vals& v) { return log_waves(s_, v[0], v[1], v[2], v[3]); });
    Expr iters = q_.table({"tile_k", "split_k", "stages"}, [&](const Vals& v) { return log_iters(s_, v[0], v[1], v[2]); });
    Expr epi = q_.table({"tile_m", "tile_n", "tile_k", "split_k"},
                        [&](const Vals& v) { return log_epilogue(s_, v[0], v[1], v[2], v[3]); });
    Expr math = q_.table({"tile_m", "tile_n", "tile_k"}, [&](const Vals& v) { return log_math_tile(s_, v[0], v[1], v[2]); }) +
                q_.table({"tile_m", "tile_n", "warp_m", "warp_n"},
                         [&](const Vals& v) { return log_math_warps(s_, v[0], v[1], v[2], v[3]); }) +
                q_.table({"warp_m", "warp_n", "blocks_per_sm"},
                         [&](const Vals& v) { return log_math_occ(s_, v[0], v[1], v[2]); });
    Expr mem = q_.table({"tile_m", "tile_n", "tile_k"}, [&](const Vals& v) { return log_mem_tile(s_, v[0], v[1], v[2]); }) +
               q_.table({"tile_m", "tile_n", "raster_group", "blocks_per_sm"},
                        [&](const Vals& v) { return log_mem_rate(s_, v[0], v[1], v[2], v[3]); });
    Expr lat = q_.table({"stages"}, [&](const Vals& v) { return log_latency(s_, v[0]); });
    Expr load = loaders ? q_.table({"loader"}, [&](const Vals& v) { return log_loader(s_, v[0]); }) : z_.int_val(0);
    objective(waves + iters + epi + load, {math, mem, lat});
  }

  void encode_npu() {
    const auto& n = p().hw.npu;
    const std::string hwn = p().hw.name;
    std::int64_t spad = static_cast<std::int64_t>(n.spad_banks) * n.spad_rows * n.spad_width_bits / 8;
    Expr sp = q_.table({"tile_m", "tile_n", "tile_k"}, [&](const Vals& v) { return npu_spad_bytes(s_, v[0], v[1], v[2]); });
    m_.smem = sp;
    rule("hw.spad_capacity", fmt::format("double-buffered A and B tiles <= {} scratchpad ({})", kb(spad), hwn), "hardware",
         sp <= spad);
    if (p().sm_mem_limit_kb.user) {
      auto limit = static_cast<std::int64_t>(std::floor(p().sm_mem_limit_kb.value * 1024));
      rule("spec.sm_mem_limit", fmt::format("scratchpad use <= {}", kb(limit)), "user", sp <= limit,
           p().sm_mem_limit_kb.loc, fmt::format("sm_mem_limit {}", p().sm_mem_limit_kb.value));
    }
    std::int64_t acc = static_cast<std::int64_t>(n.acc_rows) * n.acc_width_bits / 8;
    rule("hw.acc_capacity", fmt::format("two C tiles of accumulators (double-buffered) <= {} accumulator memory ({})", kb(acc), hwn), "hardware",
         q_.table({"tile_m", "tile_n"}, [&](const Vals& v) { return npu_acc_bytes(s_, v[0], v[1]); }) <= acc);
    // The array reads pe_rows consecutive tile rows per cycle; row r lives in bank r mod banks.
    std::int64_t per_bank = ceil_div(n.pe_rows, n.spad_banks);
    rule("hw.bank_conflicts", fmt::format("the array's {} parallel row reads hit distinct banks ({} banks)", n.pe_rows,
                                          n.spad_banks),
         "hardware", z_.int_val(per_bank) <= 1);
    std::int64_t beat = n.bus_data_bits / 8;
    rule("hw.burst_alignment", fmt::format("tile rows are whole {}-byte bus beats", beat), "hardware",
         flag({"tile_n", "tile_k"}, [&](const Vals& v) {
           return (v[1] * s_.a_bits / 8) % beat == 0 && (v[0] * s_.b_bits / 8) % beat == 0 && (v[1] * s_.a_bits) % 8 == 0;
         }));
    // What else the generated design needs of a tile shape (whole scratchpad words per tile row,
    // the double buffers inside each bank's rows, ...): the layout's own conditions.
    rule("hw.npu_layout", fmt::format("the generated {} design can lay the tiles out (hw::npu_layout)", hwn), "hardware",
         flag({"tile_m", "tile_n", "tile_k", "dataflow"},
              [&](const Vals& v) { return npu_layout_of(s_, v[0], v[1], v[2], v[3]).unbuildable.empty(); }));
    // Objective: log2 of the layout's cycle estimate, the figure the design's BOUND register holds.
    Expr cycles = q_.table({"tile_m", "tile_n", "tile_k", "dataflow"},
                           [&](const Vals& v) { return npu_log_cycles(s_, v[0], v[1], v[2], v[3]); });
    objective(z_.int_val(0), {cycles});
  }

  void encode_numerics() {
    const GemmProblem& pr = p();
    const double amax = pr.a.value.is_int() ? pr.a.value.max_abs() : 1.0;
    const double bmax = pr.b.value.is_int() ? pr.b.value.max_abs() : 1.0;
    if (pr.acc.value.is_int()) {
      double bound = std::ldexp(1.0, pr.acc.value.bits - 1) - 1;
      double worst = static_cast<double>(pr.K.value) * amax * bmax;
      // Stated as the requirement, with the fix when it fails: the largest K whose sums fit.
      const double k_fit = std::floor(bound / (amax * bmax));
      rule("numerics.accumulator_overflow",
           worst <= bound
               ? fmt::format("K·max|a·b| = {}·{}·{} = {:.0f} fits the {}-bit accumulator (<= {:.0f})", pr.K.value, amax,
                             bmax, worst, pr.acc.value.bits, bound)
               : fmt::format("K·max|a·b| = {}·{}·{} = {:.0f} must fit the {}-bit accumulator (<= {:.0f}), and does not: "
                             "at most K = {:.0f} fits; narrow an input precision, or accumulate wider (a model with a "
                             "larger acc_width)",
                             pr.K.value, amax, bmax, worst, pr.acc.value.bits, bound, k_fit),
           "numerics", z_.bool_val(worst <= bound), pr.K.loc);
    }
    if (pr.acc.value.name == "fp16") {
      // fp16 accumulation: each split's partial sum of unit-scale products must stay below 65504.
      rule("numerics.fp16_accumulation", "ceil(K / split_k)·max|a·b| <= 65504 (fp16 range, unit-scale inputs)",
           "numerics", flag({"split_k"}, [&](const Vals& v) { return ceil_div(pr.K.value, v[0]) <= 65504; }),
           pr.fp16_fma.loc);
    }
  }

  // ---- user free constraints ----------------------------------------------------------------
  Expr term(const ast::Expr& e) {
    using K = ast::Expr::Kind;
    switch (e.kind) {
      case K::Int: return z_.int_val(e.int_value);
      case K::Bool: return z_.bool_val(e.bool_value);
      case K::Decimal: DG_INTERNAL_ASSERT(false, "sema let a decimal into a free constraint"); break;
      case K::Var: {
        if (e.text == "M") return z_.int_val(p().M.value);
        if (e.text == "N") return z_.int_val(p().N.value);
        if (e.text == "K") return z_.int_val(p().K.value);
        if (e.text == "batch") return z_.int_val(p().batch.value);
        if (e.text == "smem_bytes") return *m_.smem;
        if (e.text == "warps" && s_.index_of("warp_m") >= 0)
          return q_.table({"warp_m", "warp_n"}, [](const Vals& v) { return v[0] * v[1]; });
        // A variable this target family does not vary (NPUs: no warps, splits or clusters) is 1.
        if (s_.index_of(e.text) < 0) return z_.int_val(1);
        return q_.value(e.text);
      }
      case K::Unary: return e.text == "!" ? !term(*e.lhs) : -term(*e.lhs);
      case K::Binary: {
        const std::string& op = e.text;
        if (op == "*") {
          // Keep the query linear: multiply by a schedule variable by expanding over its domain.
          auto plain = [&](const ast::Expr& x) {
            return x.kind == K::Var && s_.index_of(x.text) >= 0;
          };
          if (plain(*e.lhs) && e.rhs->kind != K::Int) return q_.times_var(e.lhs->text, term(*e.rhs));
          if (plain(*e.rhs) && e.lhs->kind != K::Int) return q_.times_var(e.rhs->text, term(*e.lhs));
          return term(*e.lhs) * term(*e.rhs);
        }
        Expr l = term(*e.lhs), r = term(*e.rhs);
        if ((op == "/" || op == "%") && e.rhs->kind != K::Int) divisors_.emplace_back(e.rhs.get(), r);
        if (op == "+") return l + r;
        if (op == "-") return l - r;
        if (op == "/") return l / r;
        if (op == "%") return l % r;
        if (op == "<") return l < r;
        if (op == "<=") return l <= r;
        if (op == ">") return l > r;
        if (op == ">=") return l >= r;
        if (op == "==") return l == r;
        if (op == "!=") return l != r;
        if (op == "&&") return l && r;
        if (op == "||") return l || r;
        break;
      }
    }
    DG_INTERNAL_ASSERT(false, "unknown operator in a free constraint");
    return z_.int_val(0);
  }

  void encode_user() {
    int n = 0;
    for (const auto& u : p().user_constraints) {
      ++n;
      divisors_.clear();
      rule(fmt::format("spec.constraint_{}", n), u.text, "user", term(*u.expr), u.loc);
      // Division by zero is undefined (Z3 would pick any value): each divisor is a rule of its own,
      // so a spec whose only points divide by zero is infeasible and says so.
      for (std::size_t i = 0; i < divisors_.size(); ++i) {
        const auto& [at, d] = divisors_[i];
        rule(fmt::format("spec.constraint_{}.divisor_{}", n, i + 1),
             fmt::format("the divisor '{}' in '{}' is not zero", ast::expr_to_string(*at), u.text), "user",
             d != z_.int_val(0), at->loc);
      }
    }
  }

  void objective(const Expr& base, const std::vector<Expr>& per_iteration) {
    // z is at least each lower bound; minimizing the sum makes it their maximum.
    Expr zmax = z_.int_var("iteration_time");
    for (const auto& t : per_iteration) m_.cost_links.push_back(zmax >= t);
    m_.cost = base + zmax;
    // Tie-break: larger tiles, then fewer warps, stages, splits; later variables matter less.
    std::vector<Expr> parts;
    std::int64_t weight = 1;
    for (size_t i = s_.vars.size(); i-- > 0;) {
      const Var& v = s_.vars[i];
      auto n = static_cast<std::int64_t>(v.values.size());
      // (dataflow: output stationary, 1, before weight stationary, 0.)
      bool prefer_large = v.name == "tile_m" || v.name == "tile_n" || v.name == "tile_k" || v.name == "smem" ||
                          v.name == "blocks_per_sm" || v.name == "dataflow";
      Expr k = prefer_large ? z_.int_val(n - 1) - q_.index(static_cast<int>(i)) : q_.index(static_cast<int>(i));
      parts.push_back(k * weight);
      weight *= n;
    }
    m_.tiebreak = z_.sum(parts);
  }

  const Space& s_;
  smt::Solver& z_;
  Query& q_;
  Model& m_;
  std::vector<std::pair<const ast::Expr*, Expr>> divisors_;  // of the free constraint being encoded
};

// ---- the plan's index description -------------------------------------------------------------

IndexDesc make_index(const Space& s, const Plan& pl) {
  IndexDesc d;
  const GemmProblem& p = *s.problem;
  std::int64_t tm = pl.tile_m, tn = pl.tile_n, tk = pl.tile_k;
  std::int64_t grid_m = ceil_div(s.M, tm), grid_n = ceil_div(s.N, tn);
  std::int64_t k_tiles = ceil_div(s.K, tk);
  std::int64_t kps = ceil_div(k_tiles, pl.split_k);  // K tiles per split
  if (s.gpu && s.family == "wgmma") {
    // Warpgroup g owns rows [g·gtm, (g+1)·gtm) of the tile, in m64 fragments; inside one, warp w
    // owns 16 rows (the m64nNk16 accumulator layout); every warpgroup spans the whole tile_n.
    std::int64_t groups = pl.warp_m / 4, gtm = tm / groups;
    d.out_vars = {{"block_m", grid_m}, {"group_m", groups}, {"frag_m", gtm / s.im}, {"warp_m", 4}, {"elem_m", 16},
                  {"block_n", grid_n}, {"frag_n", tn / 8},  {"elem_n", 8}};
    d.c_row = {{{"block_m", tm}, {"group_m", gtm}, {"frag_m", s.im}, {"warp_m", 16}, {"elem_m", 1}}, 0};
    d.c_col = {{{"block_n", tn}, {"frag_n", 8}, {"elem_n", 1}}, 0};
    d.inverse = {{"block_m", "row", tm, 0},         {"group_m", "row", gtm, groups}, {"frag_m", "row", s.im, gtm / s.im},
                 {"warp_m", "row", 16, 4},          {"elem_m", "row", 1, 16},        {"block_n", "col", tn, 0},
                 {"frag_n", "col", 8, tn / 8},      {"elem_n", "col", 1, 8}};
  } else if (s.gpu) {
    std::int64_t wtm = tm / pl.warp_m, wtn = tn / pl.warp_n;
    d.out_vars = {{"block_m", grid_m}, {"warp_m", pl.warp_m}, {"frag_m", wtm / s.im}, {"elem_m", s.im},
                  {"block_n", grid_n}, {"warp_n", pl.warp_n}, {"frag_n", wtn / s.in}, {"elem_n", s.in}};
    d.c_row = {{{"block_m", tm}, {"warp_m", wtm}, {"frag_m", s.im}, {"elem_m", 1}}, 0};
    d.c_col = {{{"block_n", tn}, {"warp_n", wtn}, {"frag_n", s.in}, {"elem_n", 1}}, 0};
    d.inverse = {{"block_m", "row", tm, 0},     {"warp_m", "row", wtm, pl.warp_m}, {"frag_m", "row", s.im, wtm / s.im},
                 {"elem_m", "row", 1, s.im},    {"block_n", "col", tn, 0},         {"warp_n", "col", wtn, pl.warp_n},
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
  d.a_row_major = p.a_layout.value == Layout::RowMajor;
  d.b_row_major = p.b_layout.value == Layout::RowMajor;
  d.c_row_major = p.c_layout.value == Layout::RowMajor;
  d.lda = d.a_row_major ? s.K : s.M;
  d.ldb = d.b_row_major ? s.N : s.K;
  d.ldc = d.c_row_major ? s.N : s.M;
  if (s.gpu) {
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

Plan make_plan(const Space& s, const Point& x, const std::vector<Rule>& rules) {
  const GemmProblem& p = *s.problem;
  auto v = [&](const char* n) { return s.index_of(n) >= 0 ? at(s, x, n) : 1; };
  Plan pl;
  pl.target = p.hw.name;
  pl.target_kind = s.gpu ? "gpu" : "npu";
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
  pl.pad_k = p.pad_k.value;
  if (p.epilogue.user) pl.epilogue = p.epilogue.value.front();
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
    if (pl.loader == "tma") {
      const std::int64_t tiles = ceil_div(s.M, pl.tile_m) * ceil_div(s.N, pl.tile_n);
      const std::int64_t slots = std::max<std::int64_t>(1, p.hw.gpu.sm_count) * pl.blocks_per_sm;
      const bool persistent = p.persistent.user ? p.persistent.value : tiles > slots;
      if (persistent) pl.persistent_blocks = std::min(tiles, slots);
    }
    // Where the TMA loader's rules leave only cp.async, the plan says which one (--verbose, plan).
    if (pl.family == "wgmma" && pl.loader == "cp.async" && p.hw.gpu.has_tma && !p.loader.user)
      if (std::string why = tma_refusal(s); !why.empty()) pl.notes.push_back("tiles are loaded by cp.async: " + why);
    pl.smem_bytes = smem_bytes(s, pl.tile_m, pl.tile_n, pl.tile_k, pl.stages, v("smem")) +
                    (pl.loader == "tma" ? kTmaBarrierBytes * pl.stages : 0);
    pl.regs_per_thread = regs_per_thread(s, pl.tile_m, pl.tile_n, pl.tile_k, pl.warp_m, pl.warp_n);
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
    // The DMA moves whole bus beats: a run-time K keeps A's rows (K elements) whole beats.
    const std::int64_t beat_bits = p.hw.npu.bus_data_bits;
    if (p.k_dynamic) pl.k_align = elements_per(p.a.value, beat_bits / 8);
    pl.smem_bytes = npu_spad_bytes(s, pl.tile_m, pl.tile_n, pl.tile_k);
    pl.npu_layout = npu_layout_of(s, pl.tile_m, pl.tile_n, pl.tile_k, v("dataflow"));
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
  if (p.c.value.name != p.acc.value.name)
    pl.notes.push_back(fmt::format("{} accumulation, cast to {} on store", p.acc.value.name, p.c.value.name));
  if (p.pad_k.value && s.K % pl.tile_k != 0)
    pl.notes.push_back(fmt::format("the K tail ({} of {}) is zero-filled", s.K % pl.tile_k, pl.tile_k));
  pl.index = make_index(s, pl);
  return pl;
}

/// A lower bound of the cost over every point with this tile shape: the exact minimum of the cost
/// over the other variables with the rules ignored. The cost's max() is monotone in each argument
/// and its arguments depend on disjoint variables once split_k, blocks_per_sm and stages are
/// fixed, so each is minimized separately under those three. Sound (no point of the cube costs
/// less), so a cube whose bound cannot beat the incumbent needs no bound query.
std::int64_t cube_lower_bound(const Space& s, std::int64_t tm, std::int64_t tn, std::int64_t tk) {
  constexpr std::int64_t kInf = std::numeric_limits<std::int64_t>::max() / 4;
  auto dom = [&](const char* n) {
    int i = s.index_of(n);
    return i >= 0 ? s.vars[i].values : std::vector<std::int64_t>{1};
  };
  if (!s.gpu) {
    std::int64_t best = kInf;
    for (std::int64_t df : dom("dataflow")) best = std::min(best, npu_log_cycles(s, tm, tn, tk, df));
    return best;
  }
  const std::int64_t m1 = log_math_tile(s, tm, tn, tk), mem1 = log_mem_tile(s, tm, tn, tk);
  std::int64_t best = kInf;
  for (std::int64_t occ : dom("blocks_per_sm")) {
    std::int64_t warps = kInf, rate = kInf;
    for (std::int64_t wm : dom("warp_m"))
      for (std::int64_t wn : dom("warp_n"))
        warps = std::min(warps, log_math_warps(s, tm, tn, wm, wn) + log_math_occ(s, wm, wn, occ));
    for (std::int64_t rg : dom("raster_group")) rate = std::min(rate, log_mem_rate(s, tm, tn, rg, occ));
    for (std::int64_t sk : dom("split_k")) {
      std::int64_t base = log_waves(s, tm, tn, sk, occ) + log_epilogue(s, tm, tn, tk, sk);
      for (std::int64_t st : dom("stages"))
        best = std::min(best, base + log_iters(s, tk, sk, st) + std::max({m1 + warps, mem1 + rate, log_latency(s, st)}));
    }
  }
  return best;
}

/// The largest (or smallest) value of `e` in [lo, hi] over the rules except `relaxed`, by
/// bisection with plain satisfiability checks; nullopt when no point exists at all.
std::optional<std::int64_t> extreme(smt::Solver& z, const Expr& e, std::int64_t lo, std::int64_t hi, bool largest,
                                    const std::vector<std::string>& relaxed, double budget_s) {
  auto reachable = [&](std::int64_t v) {
    z.push();
    z.add(largest ? e >= v : e <= v);
    smt::Result r = z.check_without(relaxed);
    z.pop();
    if (r == smt::Result::Unknown)
      throw GaveUp(fmt::format("the schedule solver gave no answer within its {:g} s budget while explaining an "
                               "infeasible spec ({})",
                               budget_s, z.reason_unknown()));
    return r == smt::Result::Sat;
  };
  if (!reachable(largest ? lo : hi)) return std::nullopt;
  while (lo < hi) {
    if (largest) {
      std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (reachable(mid)) lo = mid; else hi = mid - 1;
    } else {
      std::int64_t mid = lo + (hi - lo) / 2;
      if (reachable(mid)) hi = mid; else lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace

namespace {

Result solve_family(const GemmProblem& p, const Options& opts, const std::string& family) {
  Result r;
  r.space = make_space(p, opts.max_values, family);
  const Space& s = r.space;
  smt::Solver z("schedule", /*optimizing=*/true);
  z.set_budget(opts.budget_s);
  Query q(s, z);
  Model m;
  Encoder enc(s, z, q, m);
  enc.encode();
  for (const auto& v : s.vars) {
    if (opts.fixed.empty()) break;
    auto it = std::find_if(opts.fixed.begin(), opts.fixed.end(), [&](const auto& f) { return f.first == v.name; });
    DG_INTERNAL_ASSERT(it != opts.fixed.end(), "a fixed schedule without " + v.name);
    const std::string value = v.name == "smem"       ? smem_layout_name(it->second)
                              : v.name == "dataflow" ? (it->second == 0 ? "weight_stationary" : "output_stationary")
                                                     : std::to_string(it->second);
    const bool in_domain = std::find(v.values.begin(), v.values.end(), it->second) != v.values.end();
    const std::string text = fmt::format("{}: {} = {}{}", opts.fixed_from, v.name, value,
                                         in_domain ? "" : fmt::format(", which is not one of its values {{{}}}",
                                                                      fmt::join(v.values, ", ")));
    m.rules.push_back({"plan." + v.name, text, {}, "plan", text});
    m.rule_expr.emplace("plan." + v.name, q.is_value(v.name, it->second));
    z.track(q.is_value(v.name, it->second), "plan." + v.name);
  }
  r.rules = m.rules;
  for (const auto& [fam, sched] : opts.exclude_schedules) {
    if (fam != s.family) continue;
    std::vector<Expr> same;
    for (const auto& [name, value] : sched)
      if (s.index_of(name) >= 0) same.push_back(q.is_value(name, value));
    z.add(!smt::all_of(same));
  }
  for (const Point& x : opts.exclude) {
    std::vector<Expr> same;
    for (size_t i = 0; i < x.size(); ++i) same.push_back(q.is_value(s.vars[i].name, x[i]));
    z.add(!smt::all_of(same));
  }

  // The optimum, cube by cube: each tile shape (tile_m, tile_n, tile_k) is one cube, visited in
  // tie-break order (larger tiles first). In a cube the solver first decides feasibility (which
  // also counts the feasible tile shapes), then tightens `cost < incumbent` until UNSAT: the last
  // UNSAT answer of every cube proves that no point of it beats the incumbent. Among points of
  // optimal cost the tie-break key is then minimized the same way inside the winning cube.
  int vm = s.index_of("tile_m"), vn = s.index_of("tile_n"), vk = s.index_of("tile_k");
  struct Cube {
    std::int64_t m, n, k;  // value indices
    int order;             // position in tie-break order (larger tiles first)
    std::int64_t bound;    // analytic lower bound of the cost over the cube
  };
  std::vector<Cube> cubes;
  for (std::int64_t a = static_cast<std::int64_t>(s.vars[vm].values.size()); a-- > 0;)
    for (std::int64_t b = static_cast<std::int64_t>(s.vars[vn].values.size()); b-- > 0;)
      for (std::int64_t c = static_cast<std::int64_t>(s.vars[vk].values.size()); c-- > 0;)
        cubes.push_back({a, b, c, static_cast<int>(cubes.size()),
                         cube_lower_bound(s, s.vars[vm].values[a], s.vars[vn].values[b], s.vars[vk].values[c])});
  // Most promising first, so that the incumbent is strong early and later cubes are pruned.
  std::sort(cubes.begin(), cubes.end(),
            [](const Cube& x, const Cube& y) { return x.bound != y.bound ? x.bound < y.bound : x.order < y.order; });
  smt::Result res = z.check();  // the whole space first: infeasible specs go to the explanation
  if (const char* dump = std::getenv("DEEPGEMM_DUMP_SMT"); dump && *dump)
    std::ofstream(dump) << z.to_smt2() << "; objective: " << m.cost->str() << "\n";
  std::optional<Cube> best_cube;
  std::int64_t best = 0;
  auto unknown = [&]() -> void {
    throw GaveUp(fmt::format("the schedule solver gave no answer within its {:g} s budget ({})", opts.budget_s,
                             z.reason_unknown()));
  };
  if (res == smt::Result::Sat) {
    for (const Cube& c : cubes) {
      z.push();
      z.add(q.index(vm) == c.m && q.index(vn) == c.n && q.index(vk) == c.k);
      smt::Result fr = z.check();
      if (std::getenv("DG_DEBUG_SOLVE")) fmt::print(stderr, "cube {} {} {} feasibility {}\n", c.m, c.n, c.k, smt::result_name(fr));
      if (fr == smt::Result::Unknown) unknown();
      if (fr == smt::Result::Sat) {
        ++r.feasible_tiles;
        // The model's cost, evaluated on its point (the cost's max() is not asserted here).
        std::int64_t cur = cost_terms(s, q.read(z)).total();
        // Equal cost goes to the cube that comes first in tie-break order.
        bool first = best_cube && c.order < best_cube->order;
        bool wins = !best_cube || cur < best || (cur == best && first);
        if (!wins && !(c.bound > best || (c.bound == best && !first))) {
          for (const auto& l : m.cost_links) z.add(l);
          z.add(first ? *m.cost <= best : *m.cost < best);
          fr = z.check();
          if (std::getenv("DG_DEBUG_SOLVE")) fmt::print(stderr, "  bound check {}\n", smt::result_name(fr));
          if (fr == smt::Result::Unknown) unknown();
          wins = fr == smt::Result::Sat;
        }
        if (wins) {
          // This cube holds a better point: its optimum, from the optimizer.
          z.push();
          for (const auto& l : m.cost_links) z.add(l);
          z.minimize(*m.cost);
          fr = z.check();
          if (std::getenv("DG_DEBUG_SOLVE")) fmt::print(stderr, "  optimize\n");
          if (fr != smt::Result::Sat) unknown();
          best = z.eval_int(*m.cost);
          best_cube = c;
          z.pop();
        }
      }
      z.pop();
    }
    DG_INTERNAL_ASSERT(best_cube.has_value(), "a satisfiable space with no feasible cube");
    r.cost = best;
    z.push();
    for (const auto& l : m.cost_links) z.add(l);
    z.add(q.index(vm) == best_cube->m && q.index(vn) == best_cube->n && q.index(vk) == best_cube->k);
    z.add(*m.cost == best);
    smt::Result tr = z.check();
    DG_INTERNAL_ASSERT(tr == smt::Result::Sat, "the optimum was lost");
    std::int64_t tb = z.eval_int(*m.tiebreak);
    Point pt = q.read(z);
    for (;;) {
      z.add(*m.tiebreak < tb);
      tr = z.check();
      if (tr == smt::Result::Unknown) unknown();
      if (tr != smt::Result::Sat) break;
      tb = z.eval_int(*m.tiebreak);
      pt = q.read(z);
    }
    r.point = pt;
    z.pop();
    CostTerms ct = cost_terms(s, r.point);
    DG_INTERNAL_ASSERT(ct.total() == r.cost,
                       fmt::format("the solver's cost {} differs from the model's {} at its point (waves {} iters {} epi {} "
                                   "math {} mem {} latency {})",
                                   r.cost, ct.total(), ct.waves, ct.iters, ct.epilogue, ct.math, ct.mem, ct.latency));
  }
  if (std::getenv("DG_DEBUG_SOLVE")) fmt::print(stderr, "optimize: {:.3f}s {} checks\n", z.seconds(), z.checks());
  if (res == smt::Result::Unknown) unknown();

  if (res == smt::Result::Sat) {
    Plan pl = make_plan(s, r.point, r.rules);
    pl.space_size = s.size();
    pl.feasible_tiles = r.feasible_tiles;
    r.plan = pl;
  } else {
    // Shrink the solver's core to a minimal conflicting set.
    std::vector<std::string> core = z.unsat_core();
    auto all_but = [&](const std::vector<std::string>& keep) {
      std::vector<std::string> relaxed;
      for (const auto& rule : r.rules)
        if (std::find(keep.begin(), keep.end(), rule.name) == keep.end()) relaxed.push_back(rule.name);
      return relaxed;
    };
    for (size_t i = 0; i < core.size();) {
      std::vector<std::string> trial = core;
      trial.erase(trial.begin() + static_cast<std::ptrdiff_t>(i));
      smt::Result tr = z.check_without(all_but(trial));
      if (tr == smt::Result::Unknown) unknown();
      if (tr == smt::Result::Unsat)
        core = trial;
      else
        ++i;
    }
    for (const auto& rule : r.rules)
      if (std::find(core.begin(), core.end(), rule.name) != core.end()) r.conflict.push_back(rule);
    // For a numeric bound in the conflict, the best value the rest of the spec allows.
    auto others = [&](const std::string& name) {
      std::vector<std::string> desc;
      for (const auto& c : r.conflict)
        if (c.name != name && c.origin == "user") desc.push_back(c.decl);
      return desc.empty() ? std::string() : fmt::format(" with {}", fmt::join(desc, ", "));
    };
    for (const auto& c : r.conflict) {
      if (c.name == "spec.l2_hit_rate_min" && m.l2) {
        if (auto best = extreme(z, *m.l2, 0, 1000, true, {c.name}, opts.budget_s))
          r.hints.push_back(fmt::format("highest achievable l2_hit_rate_min{} on {}: {:.3f}", others(c.name),
                                        p.hw.name, *best / 1000.0));
      } else if (c.name == "spec.sm_mem_limit" && m.smem) {
        std::int64_t cap = s.gpu ? p.hw.gpu.smem_per_block_bytes
                                 : std::int64_t(p.hw.npu.spad_banks) * p.hw.npu.spad_rows * p.hw.npu.spad_width_bits / 8;
        if (auto best = extreme(z, *m.smem, 0, cap, false, {c.name}, opts.budget_s))
          r.hints.push_back(fmt::format("smallest sm_mem_limit any plan needs{} on {}: {}", others(c.name), p.hw.name,
                                        kb(*best)));
      }
    }
  }
  r.seconds = z.seconds();
  r.checks = z.checks();
  return r;
}

}  // namespace

Result solve(const GemmProblem& p, const Options& opts) {
  std::vector<std::string> fams = opts.family.empty() ? families(p) : std::vector<std::string>{opts.family};
  std::optional<Result> best, first;
  double seconds = 0;
  int checks = 0;
  std::vector<Result::FamilyResult> tried;
  for (const auto& f : fams) {
    Result r = solve_family(p, opts, f);
    seconds += r.seconds;
    checks += r.checks;
    tried.push_back({r.space.family, r.plan ? std::optional<double>(r.plan->predicted_us) : std::nullopt});
    if (!r.plan) {
      if (!first) first = std::move(r);
      continue;
    }
    if (!best || r.cost < best->cost) best = std::move(r);
  }
  Result out = best ? std::move(*best) : std::move(*first);
  out.seconds = seconds;
  out.checks = checks;
  out.families = std::move(tried);
  return out;
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
  const std::vector<std::string> fams = families(p);
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
  if (pl.batch != p.batch.value) return differs("batch", pl.batch, p.batch.value);
  if (pl.pad_k != p.pad_k.value) return differs("pad_k", pl.pad_k, p.pad_k.value);
  const std::string epi = p.epilogue.user ? p.epilogue.value.front() : "none";
  if (pl.epilogue != epi) return differs("epilogue", pl.epilogue, epi);
  const std::string sa = p.scale_a.value.empty() ? "none" : p.scale_a.value;
  const std::string sb = p.scale_b.value.empty() ? "none" : p.scale_b.value;
  if (pl.scale_a != sa) return differs("scale_a", pl.scale_a, sa);
  if (pl.scale_b != sb) return differs("scale_b", pl.scale_b, sb);
  return "";
}

void explain(const Result& r, const GemmProblem& p, DiagEngine& diags) {
  Loc at = p.target_loc;
  for (const auto& c : r.conflict)
    if (c.loc.valid()) {
      at = c.loc;
      break;
    }
  diags.error(at, "No valid candidate found after pruning");
  for (const auto& c : r.conflict) {
    if (c.origin == "user")
      diags.note(c.loc, fmt::format("conflicting declaration: {} [{}]", c.text, c.name));
    else
      diags.note(c.loc.valid() ? c.loc : p.target_loc, fmt::format("{} rule: {} [{}]", c.origin, c.text, c.name));
  }
  for (const auto& h : r.hints) diags.note(at, h);
}

void dump_space(std::ostream& os, const Result& r) {
  const Space& s = r.space;
  os << fmt::format("Space for {} ({}): {} points\n", s.problem->hw.name, s.family, s.size());
  for (const auto& v : s.vars)
    os << fmt::format("  {:<14} {{{}}}  — {}\n", v.name, fmt::join(v.values, ", "), v.note);
  os << fmt::format("Rules ({}):\n", r.rules.size());
  for (const auto& rule : r.rules)
    os << fmt::format("  {:<28} {}{}\n", rule.name, rule.text, rule.loc.valid() ? "  (" + rule.loc.str() + ")" : "");
  if (r.plan)
    os << fmt::format("Feasible tile shapes: {}; optimum cost {:.6f} ({})\n", r.feasible_tiles, r.cost / kLogScale,
                      r.space.gpu ? "log2 ns" : "log2 cycles");
  else
    os << "Feasible tile shapes: 0\n";
}

}  // namespace dg::solve
