// The spec checker's one class (internal to sema/): it decodes the spec's blocks into a
// GemmProblem (decode.cpp) and applies the target's rules, a GPU's (gpu_rules.cpp) or an NPU's
// (npu_rules.cpp), with the hardware model it resolved from the spec's target. sema::check
// (check.h) is the entry point.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dgml/ast.h"
#include "dgml/diag.h"
#include "sema/problem.h"

namespace dg::sema {

class Checker {
 public:
  Checker(const ast::Spec& spec, const std::string& hw_dir, DiagEngine& d) : spec_(spec), hw_dir_(hw_dir), d_(d) {}

  std::optional<GemmProblem> run();

 private:
  // ---- target -------------------------------------------------------------------------------
  void resolve_target();

  // ---- blocks and keys ------------------------------------------------------------------------
  void collect_blocks();

  const ast::Entry* get(const std::string& block, const std::string& key) const;

  // ---- typed values -----------------------------------------------------------------------------
  bool want_bool(const ast::Entry& e, Declared<bool>& out);

  bool want_int(const ast::Entry& e, std::int64_t lo, std::int64_t hi, Declared<std::int64_t>& out);

  bool want_number(const ast::Entry& e, double lo, double hi, Declared<double>& out);

  bool want_ident(const ast::Entry& e, const std::vector<std::string>& allowed, std::string& out);

  bool want_dtype(const ast::Entry& e, Declared<DType>& out);

  // ---- blocks ---------------------------------------------------------------------------------
  void check_precision();

  Loc block_loc(const std::string& name) const;

  void check_shape();

  void check_layout();

  // scales { A: per_tensor; B: per_tensor; }: C = epilogue(scale_a · scale_b · (A·B) + bias), one
  // fp32 value per tensor bound at run time by name (sc_a, sc_b), applied to the float
  // accumulation before the fused epilogue and the store.
  // scales { B: group_128; } (group_32, group_64, group_128, per_column): 4-bit weights with one
  // scale per group of consecutive k and per column n, in the activation's type, bound as sc_b
  // (K/group rows × N, row-major); per_column is one group of all K.
  // scales { A: group_128; B: block_128; }: fp8 inputs with one fp32 scale per row of A and 128 k
  // (sc_a: ceil(K/128) rows of M) and one per 128×128 block of B (sc_b: ceil(K/128) rows of
  // ceil(N/128)), applied to each 128-k step's partial sums (check_block_scales).
  void check_scales();

  /// The group size of a grouped weight scale (0 for none and per_tensor, K for per_column).
  std::int64_t group_of(const std::string& s) const;

  // Once the accumulation is resolved: a scale multiplies an fp32 accumulation; group scales
  // belong to 4-bit weights converted in registers, along a K the groups divide.
  void check_scaled_accumulation();
  void check_block_scales();

  void check_constraints();

  // ---- free constraints -------------------------------------------------------------------------
  enum class Ty { Int, Bool, Bad };

  Ty type_of(const ast::Expr& e);

  // The solver decides products of variables by case splits over their domains: a product of many
  // is refused here rather than left to run for minutes.
  static constexpr int kMaxDegree = 8;

  /// The polynomial degree of an integer expression (variables multiplied or divided together).
  static int degree(const ast::Expr& e);

  void check_free_constraint(const ast::Expr& e);

  // ---- cross-key rules --------------------------------------------------------------------------
  void check_rules();

  std::string acc_default(const DType& a) const { return a.is_float() ? "fp32" : "int32"; }

  static std::string describe_mma(const hw::MmaShape& s);

  void check_gpu_rules();

  void resolve_output(bool tensor);

  void check_npu_rules();
  bool check_npu_swap();  // a column-major C: can the design compute Cᵀ = Bᵀ·Aᵀ?

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

/// The transposed problem Cᵀ = Bᵀ·Aᵀ of a column-major C on an NPU (GemmProblem::operands_swapped):
/// A and B, M and N and their ranges exchanged, and tile_m and tile_n in the user's constraints.
void swap_operands(GemmProblem& p);

}  // namespace dg::sema
