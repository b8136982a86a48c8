// A GPU target's rules over the decoded problem: the tensor-core instruction for the precisions,
// the compute paths, the accumulation and the output.
#include "sema/checker.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <tuple>
#include <map>
#include <numeric>
#include <set>

#include "support/error.h"
#include "support/strings.h"

namespace dg::sema {

std::string Checker::describe_mma(const hw::MmaShape& s) {
  return fmt::format("{} m{}n{}k{} {}×{}→{}", s.instr, s.m, s.n, s.k, s.a_type, s.b_type, s.acc_type);
}

void Checker::check_gpu_rules() {
  const hw::GpuModel& g = p_.hw.gpu;
  // A run-time M is generated for NPUs (the M register); the GPU kernels' grid and edge tiles
  // follow a compile-time M.
  for (const auto& [x, dynamic, lo, hi] :
       {std::tuple{"M", p_.m_dynamic, &p_.M_min, &p_.M_max}, std::tuple{"N", p_.n_dynamic, &p_.N_min, &p_.N_max}}) {
    if (!dynamic) continue;
    d_.error(lo->loc, fmt::format("a run-time {0} range is generated for NPU targets only; {1} kernels take a "
                                  "fixed {0}",
                                  x, p_.hw.name));
    d_.note(lo->loc,
            fmt::format("declare a fixed '{0}' (say '{0}: {1}') and compile one module per {0}", x, hi->value));
    return;
  }
  if (p_.use_hmma.user && p_.use_hmma.value && p_.fp16_fma.user && p_.fp16_fma.value) {
    const Loc& later = p_.fp16_fma.loc.line > p_.use_hmma.loc.line ? p_.fp16_fma.loc : p_.use_hmma.loc;
    const Loc& earlier = &later == &p_.fp16_fma.loc ? p_.use_hmma.loc : p_.fp16_fma.loc;
    d_.error(later,
             "conflicting compute units: 'use_hmma: true' asks for tensor cores (fp32 accumulation) and "
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
    d_.error(p_.acc.loc,
             fmt::format("'fp16_fma' accumulates in fp16; 'accumulate: {}' contradicts it", p_.acc.value.name));
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
                               p_.hw.name, a.name, b.name,
                               join_words(std::vector<std::string>(k_major_only.begin(), k_major_only.end()), " and "),
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
    std::set<hw::Family> paths;
    for (const auto* s : direct) {
      auto family = hw::family_from_name(s->instr);
      DG_INTERNAL_ASSERT(family.has_value(), "the hardware-model schema let an unknown instr through: " + s->instr);
      paths.insert(*family);
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
    // 4-bit activations and weights (mma.sync m16n8k64 s4/u4) are packed two k to a byte, along
    // K in both A's rows and B's columns: a K tail (pad_k) is zero-filled by whole bytes.
    if (a.bits == 4 && b.bits == 4 && !p_.k_dynamic && p_.K.value % 2 != 0) {
      d_.error(p_.K.loc, fmt::format("K = {} is odd: activation {} and weight {} are packed two k to a byte",
                                     p_.K.value, a.name, b.name));
      d_.note(p_.K.loc, fmt::format("pad K to {} (a zero column of A and a zero row of B)", p_.K.value + 1));
      return;
    }
    if (!conversion.empty())
      d_.note(p_.b.loc, fmt::format("{} has no {}×{} tensor-core instruction: the {} weights are converted to {} in "
                                    "registers before the multiply",
                                    p_.hw.name, a.name, b.name, b.name, conversion));
  } else {
    p_.use_hmma = {false, p_.use_hmma.loc, p_.use_hmma.user};
    p_.compute_paths = {hw::Family::Simt};
  }
  if (p_.family.user &&
      std::find(p_.compute_paths.begin(), p_.compute_paths.end(), p_.family.value) == p_.compute_paths.end()) {
    d_.error(p_.family.loc, fmt::format("'family: {}' is not available here: {} runs {}×{} (accumulate {}) on {}",
                                        p_.family.value == hw::Family::MmaSync ? "mma_sync" : "wgmma", p_.hw.name,
                                        a.name, b.name, p_.acc.value.name, fmt::join(p_.compute_paths, ", ")));
    return;
  }
  // alpha and beta act on a float accumulation (in fp32, before the cast); an int32 one is stored
  // as it is.
  if (!p_.acc.value.is_float())
    for (const Declared<double>* f : {&p_.alpha, &p_.beta})
      if (f->user && f->value != (f == &p_.alpha ? 1.0 : 0.0)) {
        d_.error(f->loc, fmt::format("'{}' scales a float accumulation; activation {} × weight {} accumulates in {}, "
                                     "which is stored as it is: remove '{}'",
                                     f == &p_.alpha ? "alpha" : "beta", a.name, b.name, p_.acc.value.name,
                                     f == &p_.alpha ? "alpha" : "beta"));
        return;
      }
  resolve_output(tensor);
}

void Checker::resolve_output(bool tensor) {
  if (p_.cast_output.user && p_.c.user && p_.cast_output.value && !(*p_.cast_output.value == p_.c.value)) {
    // 'output: fp32; cast_output: fp16': the output names the accumulation, stored cast to the
    // narrower float. A cast to a wider type, between integers and floats, or from an output
    // that is not the accumulation contradicts it.
    const DType& cast = *p_.cast_output.value;
    const DType& out = p_.c.value;
    const bool narrows = out.is_float() && cast.is_float() && cast.bits < out.bits;
    if (!narrows || !(out == p_.acc.value)) {
      d_.error(
          p_.cast_output.loc,
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
    d_.error(p_.c.loc,
             fmt::format("output {} from {} accumulation is not supported; use a float output", c.name, acc.name));
    return;
  }
  if (tensor && c.name != acc.name && !p_.cast_output.user && c.bits < acc.bits) {
    d_.note(p_.c.loc, fmt::format("tensor cores accumulate in {}; the {} output is produced by a cast on store (add "
                                  "'cast_output: {};' to the constraints block to make it explicit)",
                                  acc.name, c.name, c.name));
  }
}

}  // namespace dg::sema
