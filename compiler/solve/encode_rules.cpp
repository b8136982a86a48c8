#include "solve/encode_rules.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <numeric>

#include "support/error.h"

namespace dg::solve {

std::string kb(std::int64_t bytes) {
  return bytes % 1024 == 0 ? fmt::format("{} KB", bytes / 1024) : fmt::format("{:.1f} KB", bytes / 1024.0);
}

void gave_up(const smt::Solver& z) {
  throw GaveUp(fmt::format("the schedule solver gave no answer within its budget of {} ({})", z.budget_text(),
                           z.reason_unknown()));
}

namespace {

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
    if (s_.family == hw::Family::Wgmma)
      rule("hw.warp_tile_m",
           fmt::format("tile_m / warpgroups is a multiple of the instruction's M ({}); a warpgroup is 4 warps", s_.im),
           "hardware",
           flag({"tile_m", "warp_m"}, [&](const Vals& v) { return v[1] % 4 == 0 && v[0] % (v[1] / 4 * s_.im) == 0; }));
    else
      rule("hw.warp_tile_m", fmt::format("tile_m / warp_m is a multiple of the instruction's M ({})", s_.im),
           "hardware", flag({"tile_m", "warp_m"}, [&](const Vals& v) { return v[0] % (v[1] * s_.im) == 0; }));
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
    const bool by_element = rows_by_element(s_, true) || rows_by_element(s_, false);
    if (by_element)
      regs = regs + q_.table({"tile_m", "tile_n", "tile_k", "warp_m", "warp_n", "stages"}, [&](const Vals& v) {
        return element_load_registers(s_, v[0], v[1], v[2], v[3], v[4], v[5]);
      });
    rule("hw.registers_per_thread",
         fmt::format("accumulator{} and fragment registers per thread <= {} ({})", by_element ? ", element-load" : "",
                     g.max_regs_per_thread, hwn),
         "hardware", regs <= g.max_regs_per_thread);

    Expr per_stage =
        q_.table({"tile_m", "tile_n", "tile_k"}, [&](const Vals& v) { return stage_bytes(s_, v[0], v[1], v[2]); }) +
        q_.table({"tile_m", "tile_n", "tile_k", "smem"},
                 [&](const Vals& v) { return pad_bytes(s_, v[0], v[1], v[2], v[3]); });
    if (loaders)  // the TMA loader's two mbarriers per stage
      per_stage =
          per_stage + q_.table({"loader"}, [&](const Vals& v) { return v[0] == kLoaderTma ? kTmaBarrierBytes : 0; });
    Expr smem = q_.times_var("stages", per_stage);
    // 4-bit weights: the producer's staging slots beside the stages.
    if (s_.w4) smem = smem + q_.table({"tile_n"}, [&](const Vals& v) { return staging_bytes(s_, v[0]); });
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
    if (by_element)
      regs_block =
          regs_block + q_.table({"tile_m", "tile_n", "tile_k", "warp_m", "warp_n", "stages"}, [&](const Vals& v) {
            return element_load_registers(s_, v[0], v[1], v[2], v[3], v[4], v[5]) * threads(v[3], v[4]);
          });
    rule("hw.occupancy_registers",
         fmt::format("blocks_per_sm × registers per block <= {} per SM ({})", g.regs_per_sm, hwn), "hardware",
         q_.times_var("blocks_per_sm", regs_block) <= g.regs_per_sm);
    rule("hw.occupancy_threads",
         fmt::format("blocks_per_sm × threads per block <= {} per SM ({})", g.max_threads_per_sm, hwn), "hardware",
         q_.times_var("blocks_per_sm", thr) <= g.max_threads_per_sm);

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
    // Split s takes the K tiles [s·per, (s+1)·per), per = ceil(tiles / split_k): the last one
    // must start below the last K tile (tiles 9, split 4: per 3 leaves split 3 nothing).
    rule("hw.split_k", "each K split gets at least one K tile: (split_k - 1)·ceil(K tiles / split_k) < K tiles",
         "hardware", flag({"tile_k", "split_k"}, [&](const Vals& v) {
           const std::int64_t tiles = ceil_div(s_.K, v[0]);
           return (v[1] - 1) * ceil_div(tiles, v[1]) < tiles;
         }));
    // 4-bit weights on wgmma are staged by 128-k blocks (two K tiles): a split starts on one.
    if (s_.w4)
      rule("family.split_k_w4", "each K split of 4-bit weights takes an even number of K tiles (whole 128-k blocks)",
           "generator", flag({"tile_k", "split_k"}, [&](const Vals& v) {
             return v[1] == 1 || ceil_div(ceil_div(s_.K, v[0]), v[1]) % 2 == 0;
           }));
    // Which kernels reduce K splits: the wgmma kernel with the TMA loader and the SIMT kernel
    // (the last block per tile sums the workspace's partials), one block per (tile, split), at a K
    // fixed at compile time.
    if (s_.family == hw::Family::Simt) {
      if (s_.batch > 1)
        rule("family.split_k_batch", "split_k is 1 in a batched SIMT GEMM (a split K takes one matrix)", "generator",
             q_.is_value("split_k", 1));
    } else if (s_.family != hw::Family::Wgmma || !loaders)
      rule("family.split_k",
           fmt::format("split_k is 1: the split-K reduction is generated for the wgmma kernel with the TMA loader "
                       "and for the SIMT kernel only (this is {})",
                       s_.family),
           "generator", q_.is_value("split_k", 1));
    else
      rule("family.split_k", "split_k > 1 needs the TMA loader (the split-K reduction is generated there only)",
           "generator", flag({"split_k", "loader"}, [&](const Vals& v) { return v[0] == 1 || v[1] == kLoaderTma; }));
    if (p().k_dynamic)
      rule("family.split_k_fixed_k", "split_k is 1 with a run-time K (the K splits are fixed at compile time)",
           "generator", q_.is_value("split_k", 1));
    if (p().persistent.user && p().persistent.value)
      rule("family.split_k_persistent", "split_k is 1 in a persistent tile loop (it takes whole tiles)", "generator",
           q_.is_value("split_k", 1));
    if (p().split_k.user)
      rule("spec.split_k", fmt::format("K is split {} ways across blocks", p().split_k.value), "user",
           q_.is_value("split_k", p().split_k.value), p().split_k.loc, fmt::format("split_k {}", p().split_k.value));

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
    Expr iters =
        q_.table({"tile_k", "split_k", "stages"}, [&](const Vals& v) { return log_iters(s_, v[0], v[1], v[2]); });
    Expr epi = q_.table({"tile_m", "tile_n", "tile_k", "split_k"},
                        [&](const Vals& v) { return log_epilogue(s_, v[0], v[1], v[2], v[3]); });
    Expr math = q_.table({"tile_m", "tile_n", "tile_k"}, [&](const Vals& v) {
      return log_math_tile(s_, v[0], v[1], v[2]);
    }) + q_.table({"tile_m", "tile_n", "warp_m", "warp_n"}, [&](const Vals& v) {
      return log_math_warps(s_, v[0], v[1], v[2], v[3]);
    }) + q_.table({"warp_m", "warp_n", "blocks_per_sm"}, [&](const Vals& v) {
      return log_math_occ(s_, v[0], v[1], v[2]);
    });
    Expr mem =
        q_.table({"tile_m", "tile_n", "tile_k"}, [&](const Vals& v) { return log_mem_tile(s_, v[0], v[1], v[2]); }) +
        q_.table({"tile_m", "tile_n", "raster_group", "blocks_per_sm"},
                 [&](const Vals& v) { return log_mem_rate(s_, v[0], v[1], v[2], v[3]); });
    Expr lat = q_.table({"stages"}, [&](const Vals& v) { return log_latency(s_, v[0]); });
    // (mma.sync has no loader variable: its cp.async term is a constant, log_loader's.)
    Expr load = loaders ? q_.table({"loader"}, [&](const Vals& v) { return log_loader(s_, v[0]); })
                        : z_.int_val(s_.family == hw::Family::MmaSync ? log_loader(s_, kLoaderCpAsync) : 0);
    objective(waves + iters + epi + load, {math, mem, lat});
  }

  void encode_npu() {
    const auto& n = p().hw.npu;
    const std::string hwn = p().hw.name;
    std::int64_t spad = static_cast<std::int64_t>(n.spad_banks) * n.spad_rows * n.spad_width_bits / 8;
    Expr sp =
        q_.table({"tile_m", "tile_n", "tile_k"}, [&](const Vals& v) { return npu_spad_bytes(s_, v[0], v[1], v[2]); });
    m_.smem = sp;
    rule("hw.spad_capacity", fmt::format("double-buffered A and B tiles <= {} scratchpad ({})", kb(spad), hwn),
         "hardware", sp <= spad);
    if (p().sm_mem_limit_kb.user) {
      auto limit = static_cast<std::int64_t>(std::floor(p().sm_mem_limit_kb.value * 1024));
      rule("spec.sm_mem_limit", fmt::format("scratchpad use <= {}", kb(limit)), "user", sp <= limit,
           p().sm_mem_limit_kb.loc, fmt::format("sm_mem_limit {}", p().sm_mem_limit_kb.value));
    }
    std::int64_t acc = static_cast<std::int64_t>(n.acc_rows) * n.acc_width_bits / 8;
    rule("hw.acc_capacity",
         fmt::format("two C tiles of accumulators (double-buffered) <= {} accumulator memory ({})", kb(acc), hwn),
         "hardware",
         q_.table({"tile_m", "tile_n"}, [&](const Vals& v) { return npu_acc_bytes(s_, v[0], v[1]); }) <= acc);
    // The array reads pe_rows consecutive tile rows per cycle; row r lives in bank r mod banks.
    std::int64_t per_bank = ceil_div(n.pe_rows, n.spad_banks);
    rule("hw.bank_conflicts",
         fmt::format("the array's {} parallel row reads hit distinct banks ({} banks)", n.pe_rows, n.spad_banks),
         "hardware", z_.int_val(per_bank) <= 1);
    std::int64_t beat = n.bus_data_bits / 8;
    // A design that moves byte rows (hw::npu_byte_rows) realigns any row; else tile rows are whole
    // beats, so that every request is.
    // (A column-major B's tile rows run along K: tile_k elements; a column-major A's along M.)
    const bool b_col = p().b_layout.value == Layout::ColMajor, a_col = p().a_layout.value == Layout::ColMajor;
    if (hw::npu_byte_rows(n, s_.M, s_.K, s_.N, s_.a_bits, s_.b_bits, s_.c_bits, a_col, b_col))
      rule("hw.burst_alignment", "tile rows are whole bytes (the DMA realigns rows to bus beats)", "hardware",
           flag({"tile_m", "tile_n", "tile_k"}, [&](const Vals& v) {
             return ((a_col ? v[0] : v[2]) * s_.a_bits) % 8 == 0 && ((b_col ? v[2] : v[1]) * s_.b_bits) % 8 == 0;
           }));
    else
      rule("hw.burst_alignment", fmt::format("tile rows are whole {}-byte bus beats", beat), "hardware",
           flag({"tile_m", "tile_n", "tile_k"}, [&](const Vals& v) {
             const std::int64_t a_row = a_col ? v[0] : v[2];
             return (a_row * s_.a_bits / 8) % beat == 0 && ((b_col ? v[2] : v[1]) * s_.b_bits / 8) % beat == 0 &&
                    (a_row * s_.a_bits) % 8 == 0;
           }));
    // What else the generated design needs of a tile shape (whole scratchpad words per tile row,
    // the double buffers inside each bank's rows, ...): the layout's own conditions.
    rule("hw.npu_layout", fmt::format("the generated {} design can lay the tiles out (hw::npu_layout)", hwn),
         "hardware", flag({"tile_m", "tile_n", "tile_k", "dataflow"}, [&](const Vals& v) {
           return npu_layout_of(s_, v[0], v[1], v[2], v[3]).unbuildable.empty();
         }));
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
      rule(
          "numerics.accumulator_overflow",
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
          auto plain = [&](const ast::Expr& x) { return x.kind == K::Var && s_.index_of(x.text) >= 0; };
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

}  // namespace

void encode_rules(const Space& s, smt::Solver& z, Query& q, Model& m) { Encoder(s, z, q, m).encode(); }

}  // namespace dg::solve
