// An NPU target's rules over the decoded problem: what the model's MAC array multiplies and
// accumulates, and what the generator can build for the model (hw::npu_unbuildable).
#include "sema/checker.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <numeric>
#include <set>

#include "hw/npu_layout.h"
#include "support/error.h"
#include "support/strings.h"

namespace dg::sema {

void Checker::check_npu_rules() {
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
      d_.error(t.loc,
               fmt::format("{} precision {} is not supported by {}: inputs are {} or custom widths up to {} bits", role,
                           t.value.name, p_.hw.name, join_words(n.input_types, ", "), n.max_custom_width));
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
    d_.error(p_.c.loc,
             fmt::format("output {} is not supported by {}: outputs are integers", p_.c.value.name, p_.hw.name));
    return;
  }
  // The C write-out sends an accumulator row (pe_cols elements of C) as whole bus beats.
  if (p_.c.value.bits <= 64) {
    const std::int64_t row_bits = std::int64_t{n.pe_cols} * hw::npu_element_bits(p_.c.value.bits);
    if (row_bits % n.bus_data_bits != 0) {
      // (An output the spec does not declare is the accumulator's default: the target names it.)
      d_.error(p_.c.user ? p_.c.loc : p_.target_loc,
               fmt::format("{}output {}: a row of the array's {} columns of C is {} bits, which the {} C "
                           "write-out sends as whole {}-bit bus beats (npu.bus_data_bits); declare a "
                           "wider output, or use a model whose pe_cols × the output's bits is a multiple "
                           "of the bus",
                           p_.c.user ? "" : "the default ", p_.c.value.name, n.pe_cols, row_bits, p_.hw.name,
                           n.bus_data_bits));
      return;
    }
  }
  // The fused epilogue the generated C write-out applies: bias, relu, bias_relu (and, for int8 or
  // int16 outputs, requantization per column).
  if (p_.epilogue.user) {
    const std::string& op = p_.epilogue.value.front();
    if (op != "none" && op != "relu" && op != "bias" && op != "bias_relu") {
      d_.error(p_.epilogue.loc, fmt::format("op_type '{}' is not generated for NPUs: {} applies relu, bias or "
                                            "bias_relu in the accumulator drain",
                                            op, p_.hw.name));
      return;
    }
  }
  // A run-time N: the epilogue's per-column vectors (bias, the requantization records) are
  // fetched for the plan's N, so a design with them takes a fixed N.
  const bool vectors = (p_.epilogue.user && p_.epilogue.value.front().rfind("bias", 0) == 0) || p_.c.value.bits == 8 ||
                       p_.c.value.bits == 16;
  if (p_.n_dynamic && vectors) {
    d_.error(p_.N_min.loc, fmt::format("a run-time N range is not generated with {}: the design fetches its N "
                                       "per-column {} once per run, for a fixed N",
                                       p_.c.value.bits <= 16 ? "a requantized output" : "a bias",
                                       p_.c.value.bits <= 16 ? "requantization records" : "biases"));
    d_.note(p_.N_min.loc, fmt::format("declare a fixed 'N' (say 'N: {}')", p_.N_max.value));
    return;
  }
  // alpha and beta (a C input) are GPU epilogues: the NPU's drain has no multiplier for the sum
  // nor a read of C.
  for (const Declared<double>* f : {&p_.alpha, &p_.beta})
    if (f->user && f->value != (f == &p_.alpha ? 1.0 : 0.0)) {
      d_.error(f->loc, fmt::format("'{}' is not generated for NPUs: {}'s accumulator drain adds a bias, applies "
                                   "relu and requantizes, but neither scales the sum nor reads a C input; remove "
                                   "'{}' (or scale through the requantization's multiplier)",
                                   f == &p_.alpha ? "alpha" : "beta", p_.hw.name, f == &p_.alpha ? "alpha" : "beta"));
      return;
    }
  // Operand layouts: the AGUs walk row-major A and C, and B either way (a column-major B, N×K in
  // memory, is read K-major by the output-stationary engine). A column-major C is the transpose of
  // a row-major one: the design computes Cᵀ = Bᵀ·Aᵀ, whose operands are the spec's as they lie in
  // memory (a column-major B is Bᵀ row-major; A, either way, is Aᵀ the other way; C is Cᵀ
  // row-major). From here on the problem is that one (operands_swapped).
  if (p_.c_layout.value == Layout::ColMajor) {
    if (!check_npu_swap()) return;
    swap_operands(p_);
  }
  // A column-major A (K×M in memory) is read along M by the output-stationary engine, as it reads
  // a row-major B along N. (After the swap, that A is the spec's row-major B, Bᵀ.)
  if (p_.a_layout.value == Layout::ColMajor) {
    const bool sw = p_.operands_swapped;
    const std::string what = sw ? "a column-major C with a row-major B is generated as Cᵀ = Bᵀ·Aᵀ, which reads B "
                                  "as a column-major operand"
                                : "a column-major A (K×M in memory) is read";
    const std::string fix = sw ? "store B column-major (N×K) too, or store C row-major" : "store A row-major (M×K)";
    const Loc at = sw ? p_.c_layout.loc : p_.a_layout.loc;
    const bool os_offered = std::find(n.dataflows.begin(), n.dataflows.end(), "output_stationary") != n.dataflows.end();
    if (p_.dataflow.user && p_.dataflow.value == "weight_stationary") {
      d_.error(p_.dataflow.loc, fmt::format("{} by the output-stationary engine only: the weight-stationary engine "
                                            "streams rows of A along K",
                                            what));
      d_.note(at, fmt::format("{}, or let the solver choose the dataflow", fix));
      return;
    }
    if (!os_offered) {
      d_.error(at, fmt::format("{} by the output-stationary engine only, and {} offers {} (npu.dataflows)", what,
                               p_.hw.name, join_words(n.dataflows, ", ")));
      d_.note(at, fmt::format("{}, or add output_stationary to the model's npu.dataflows", fix));
      return;
    }
  }
  if (p_.b_layout.value == Layout::ColMajor && p_.dataflow.user && p_.dataflow.value == "weight_stationary") {
    d_.error(p_.dataflow.loc,
             "a column-major B (N×K in memory) is read by the output-stationary engine only: the weight-stationary "
             "engine loads weight blocks from K-major rows of B");
    d_.note(p_.b_layout.loc, "store B row-major (K×N), or let the solver choose the dataflow");
    return;
  }
  if (p_.b_layout.value == Layout::ColMajor &&
      std::find(n.dataflows.begin(), n.dataflows.end(), "output_stationary") == n.dataflows.end()) {
    d_.error(p_.b_layout.loc,
             fmt::format("a column-major B (N×K in memory) is read by the output-stationary engine only, and {} "
                         "offers {} (npu.dataflows)",
                         p_.hw.name, join_words(n.dataflows, ", ")));
    d_.note(p_.b_layout.loc, "store B row-major (K×N), or add output_stationary to the model's npu.dataflows");
    return;
  }
  // A run-time K, N or M: each value a run may set, the range's ends included, keeps the rows the
  // DMA moves whole bus beats, or whole bytes in a design with byte rows (hw::npu_run_time_align,
  // the plan's k_align, n_align and m_align).
  if (p_.k_dynamic || p_.n_dynamic || p_.m_dynamic) {
    const bool bcol = p_.b_layout.value == Layout::ColMajor, acol = p_.a_layout.value == Layout::ColMajor;
    const int ab = hw::npu_element_bits(p_.a.value.bits), bb = hw::npu_element_bits(p_.b.value.bits),
              cb = hw::npu_element_bits(p_.c.value.bits);
    const bool bytes = hw::npu_byte_rows(n, p_.M.value, p_.K.value, p_.N.value, ab, bb, cb, acol, bcol);
    const hw::NpuRunTimeAlign al = hw::npu_run_time_align(n, bytes, ab, bb, cb, acol, bcol);
    struct End {
      bool dynamic;
      const Declared<std::int64_t>* min;
      const Declared<std::int64_t>* max;
      std::int64_t align;
      const char* name;
      const char* rows;
    };
    // (After the swap, the problem's N is the user's M, and its rows of C are the user's columns.)
    const bool sw = p_.operands_swapped;
    // (A run-time M: a column-major A's columns of M elements; after the swap, the spec's row-major
    // B's rows of N.)
    for (const End& e : {End{p_.m_dynamic, &p_.M_min, &p_.M_max, al.m, sw ? "N" : "M", sw ? "B's rows" : "A's columns"},
                         End{p_.k_dynamic, &p_.K_min, &p_.K_max, al.k, "K",
                             acol   ? "B's rows"
                             : bcol ? "A's and B's rows"
                                    : "A's rows"},
                         End{p_.n_dynamic, &p_.N_min, &p_.N_max, al.n, sw ? "M" : "N",
                             sw     ? "C's columns"
                             : bcol ? "C's rows"
                                    : "B's and C's rows"}}) {
      if (!e.dynamic) continue;
      for (const Declared<std::int64_t>* end : {e.min, e.max})
        if (end->value % e.align != 0) {
          const std::int64_t down = end->value / e.align * e.align, up = down + e.align;
          d_.error(end->loc,
                   fmt::format("{}_{} {} is not a multiple of {}: every run-time {} on {} is, so that {} ({} "
                               "elements) are whole {}",
                               e.name, end == e.min ? "min" : "max", end->value, e.align, e.name, p_.hw.name, e.rows,
                               e.name, bytes ? "bytes" : fmt::format("{}-bit bus beats", n.bus_data_bits)));
          d_.note(end->loc,
                  fmt::format("make {0}_min and {0}_max multiples of {1} (say '{0}_{2}: {3}')", e.name, e.align,
                              end == e.min ? "min" : "max", end == e.min ? up : std::max(down, e.align)));
          return;
        }
    }
  }
  // A batch: each matrix's base is a whole bus beat on from the last (the START check BASE_ALIGN).
  // Packed matrices are that only when their bits are whole beats; a design with leading-dimension
  // registers can pad the rows at run time (the runtime refuses a packed batch that is not), one
  // without them never could.
  if (p_.batch.value > 1 && !n.ld_registers && !p_.m_dynamic && !p_.n_dynamic && !p_.k_dynamic) {
    const bool bcol = p_.b_layout.value == Layout::ColMajor;
    const std::int64_t M = p_.M.value, N = p_.N.value, K = p_.K.value;
    struct Op {
      char name;
      std::int64_t rows, cols;
      int bits;
    };
    // (After the swap, the problem's A is the user's B, N×K, and its B the user's A, M×K.)
    const bool sw = p_.operands_swapped;
    for (const Op& o : {Op{sw ? 'B' : 'A', M, K, hw::npu_element_bits(p_.a.value.bits)},
                        Op{sw ? 'A' : 'B', bcol ? N : K, bcol ? K : N, hw::npu_element_bits(p_.b.value.bits)},
                        Op{'C', sw ? N : M, sw ? M : N, hw::npu_element_bits(p_.c.value.bits)}}) {
      const std::int64_t bits = o.rows * o.cols * o.bits;
      if (bits % n.bus_data_bits == 0) continue;
      d_.error(p_.batch.loc,
               fmt::format("a batch of {} packed {}×{} matrices of {} ({} bits each) is not generated for {}: each "
                           "matrix starts a whole {}-bit bus beat on from the last (npu.bus_data_bits), and the "
                           "model has no leading-dimension registers to pad the rows (npu.ld_registers)",
                           p_.batch.value, o.rows, o.cols, o.name, bits, p_.hw.name, n.bus_data_bits));
      d_.note(p_.batch.loc, fmt::format("run the matrices one by one ('batch: 1'), choose M, N and K so that each "
                                        "operand's bits are a multiple of {}, or use a model with npu.ld_registers",
                                        n.bus_data_bits));
      return;
    }
  }
  p_.compute_paths = {hw::Family::Npu};
}

bool Checker::check_npu_swap() {
  const hw::NpuModel& n = p_.hw.npu;
  const Loc at = p_.c_layout.loc;
  // The drain's bias and requantization records are per column of what it writes; of Cᵀ's columns
  // they would be per row of C.
  const bool bias = p_.epilogue.user && p_.epilogue.value.front().rfind("bias", 0) == 0;
  if (bias || p_.c.value.bits == 8 || p_.c.value.bits == 16) {
    d_.error(bias ? p_.epilogue.loc : p_.c.loc,
             fmt::format("{} is not generated with a column-major C: the design computes Cᵀ = Bᵀ·Aᵀ, and its "
                         "drain applies {} per column of Cᵀ, which is per row of C",
                         bias ? "a bias" : fmt::format("a requantized {} output", p_.c.value.name),
                         bias ? "the bias" : "the requantization records"));
    d_.note(at, bias ? "store C row-major, or add the bias outside the GEMM"
                     : "store C row-major, or declare an int32 or int64 output");
    return false;
  }
  // With a row-major A, Bᵀ·Aᵀ reads Aᵀ as a column-major B: the output-stationary engine's path.
  const bool os_offered = std::find(n.dataflows.begin(), n.dataflows.end(), "output_stationary") != n.dataflows.end();
  if (p_.a_layout.value == Layout::RowMajor &&
      ((p_.dataflow.user && p_.dataflow.value == "weight_stationary") || !os_offered)) {
    d_.error(p_.dataflow.user ? p_.dataflow.loc : at,
             fmt::format("a column-major C with a row-major A is generated as Cᵀ = Bᵀ·Aᵀ, which reads A as a "
                         "column-major operand: the output-stationary engine's path only, and {}",
                         os_offered
                             ? "the spec asks for weight_stationary"
                             : fmt::format("{} offers {} (npu.dataflows)", p_.hw.name, join_words(n.dataflows, ", "))));
    d_.note(at, os_offered ? "let the solver choose the dataflow, store A column-major too, or store C row-major"
                           : "store A column-major too, store C row-major, or add output_stationary to the model's "
                             "npu.dataflows");
    return false;
  }
  return true;
}

namespace {

/// The expression with M and N, tile_m and tile_n exchanged.
void swap_names(ast::Expr& e) {
  static const std::map<std::string, std::string> other = {
      {"M", "N"}, {"N", "M"}, {"tile_m", "tile_n"}, {"tile_n", "tile_m"}};
  if (e.kind == ast::Expr::Kind::Var)
    if (auto it = other.find(e.text); it != other.end()) e.text = it->second;
  if (e.lhs) swap_names(*e.lhs);
  if (e.rhs) swap_names(*e.rhs);
}

}  // namespace

void swap_operands(GemmProblem& p) {
  std::swap(p.a, p.b);
  std::swap(p.M, p.N);
  std::swap(p.M_min, p.N_min);
  std::swap(p.M_max, p.N_max);
  std::swap(p.m_dynamic, p.n_dynamic);
  std::swap(p.scale_a, p.scale_b);
  // Each operand of the transpose lies as the spec's does, in the other layout: Bᵀ (N×K) is
  // row-major where B is column-major, Aᵀ (K×M) column-major where A is row-major, and so on.
  auto flip = [](Layout l) { return l == Layout::RowMajor ? Layout::ColMajor : Layout::RowMajor; };
  const Declared<Layout> a = p.a_layout, b = p.b_layout;
  p.a_layout = {flip(b.value), b.loc, b.user};
  p.b_layout = {flip(a.value), a.loc, a.user};
  p.c_layout.value = flip(p.c_layout.value);
  for (UserConstraint& u : p.user_constraints) {
    ast::ExprPtr e = ast::clone(*u.expr);
    swap_names(*e);
    u.text = ast::expr_to_string(*e);
    u.expr = std::shared_ptr<const ast::Expr>(std::move(e));
  }
  p.operands_swapped = !p.operands_swapped;
}

}  // namespace dg::sema
