#include "verify/verify.h"

#include <chrono>
#include <functional>
#include <thread>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

#include "smt/smt.h"
#include "support/error.h"

namespace dg::verify {

bool Certificate::all_passed() const {
  for (const auto& c : checks)
    if (!c.passed) return false;
  return true;
}

namespace {

using smt::Expr;

constexpr std::int64_t kInt32Max = 2147483647;

/// A proof check's budget in Z3's resource units, so that a check proves or fails alike on an idle
/// and a loaded machine (the wall clock only as a backstop, smt::kBackstopSeconds). The heaviest check of the tests
/// takes about 0.4 million (bench/RESULTS.md, "Compiler: the schedule solver bounded by solver work").
constexpr std::uint64_t kCheckWork = 50'000'000;

/// One named query over a copy of the index variables.
class Query {
 public:
  explicit Query(const std::string& name) : z_(name) { z_.set_budget(smt::kBackstopSeconds, kCheckWork); }
  smt::Solver& z() { return z_; }

  /// Fresh copies of `vars`, constrained to their ranges; returned by name.
  std::map<std::string, Expr> vars(const std::vector<IndexVar>& vars, const std::string& suffix) {
    std::map<std::string, Expr> out;
    for (const auto& v : vars) {
      Expr e = z_.int_var(v.name + suffix);
      z_.add(e >= 0);
      z_.add(e < v.extent);
      out.emplace(v.name, e);
      order_.emplace_back(v.name + suffix, e);
    }
    return out;
  }

  Expr eval(const AffineMap& m, const std::map<std::string, Expr>& env) {
    Expr e = z_.int_val(m.offset);
    for (const auto& t : m.terms) {
      auto it = env.find(t.var);
      DG_INTERNAL_ASSERT(it != env.end(), "index map uses an unknown variable " + t.var);
      e = e + it->second * t.coeff;
    }
    return e;
  }

  /// Remember a term to show in a counterexample.
  Expr named(const std::string& name, const Expr& value) {
    order_.emplace_back(name, value);
    return value;
  }

  /// Sat means a counterexample exists: the property fails.
  bool holds(Check& c) {
    auto t0 = std::chrono::steady_clock::now();
    smt::Result r = z_.check();
    c.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r == smt::Result::Unsat) return true;
    if (r == smt::Result::Unknown) {
      c.counterexample = "solver gave no answer: " + z_.reason_unknown();
      return false;
    }
    std::vector<std::string> parts;
    for (const auto& [n, e] : order_) parts.push_back(fmt::format("{}={}", n, z_.eval_int(e)));
    c.counterexample = fmt::format("{}", fmt::join(parts, ", "));
    return false;
  }

 private:
  smt::Solver z_;
  std::vector<std::pair<std::string, Expr>> order_;
};

std::int64_t extent_of(const std::vector<IndexVar>& vars, const std::string& name) {
  for (const auto& v : vars)
    if (v.name == name) return v.extent;
  return 1;
}

Expr differs(const std::map<std::string, Expr>& a, const std::map<std::string, Expr>& b) {
  std::vector<Expr> d;
  for (const auto& [n, e] : a) d.push_back(e != b.at(n));
  return smt::any_of(d);
}

/// Exactly-one for one axis: the forward map restricted to [0, limit) is injective, and the
/// inverse decomposition of every x in [0, limit) lands in range and maps back to x.
void exactly_once(const Plan& p, const std::vector<IndexVar>& vars, const AffineMap& fwd, const std::string& of,
                  std::int64_t limit, const std::string& name, const std::string& what, Certificate& cert) {
  {
    Check c{name + "_unique", fmt::format("no two {} index tuples produce the same {} in [0, {})", what, of, limit)};
    Query q(c.name);
    auto a = q.vars(vars, "");
    auto b = q.vars(vars, "'");
    Expr xa = q.eval(fwd, a), xb = q.eval(fwd, b);
    q.z().add(xa == xb);
    q.z().add(xa >= 0);
    q.z().add(xa < limit);
    q.z().add(differs(a, b));
    c.passed = q.holds(c);
    cert.checks.push_back(c);
  }
  {
    Check c{name + "_covered", fmt::format("every {} in [0, {}) is produced by a {} index tuple", of, limit, what)};
    Query q(c.name);
    Expr x = q.z().int_var(of);
    q.z().add(x >= 0);
    q.z().add(x < limit);
    std::map<std::string, Expr> env;
    std::vector<Expr> bad;
    for (const auto& d : p.index.inverse) {
      if (d.of != of) continue;
      Expr v = x / q.z().int_val(d.div);
      if (d.mod) v = v % q.z().int_val(d.mod);
      env.emplace(d.var, v);
    }
    for (const auto& v : vars) {
      auto it = env.find(v.name);
      if (it == env.end()) continue;  // vars of the other axis
      bad.push_back(it->second < 0);
      bad.push_back(it->second >= v.extent);
    }
    // All variables of this map must be determined by the inverse.
    for (const auto& t : fwd.terms)
      DG_INTERNAL_ASSERT(env.count(t.var), "the index description has no inverse for " + t.var);
    bad.push_back(q.eval(fwd, env) != x);
    q.z().add(smt::any_of(bad));
    q.named("image", q.eval(fwd, env));
    c.passed = q.holds(c);
    c.counterexample = c.passed ? "" : fmt::format("{} (", of) + c.counterexample + ")";
    cert.checks.push_back(c);
  }
}

/// A persistent grid (the TMA loader's): G blocks, block b taking the tiles b + i·G for
/// i < (T - b + G - 1) / G. The bound is written here as codegen/wgmma_tma.cpp's my_tiles()
/// computes it: the proof holds for any G >= 1, so what it checks is that formula. Every tile in [0, T) is taken by
/// exactly one (block, iteration), and no iteration takes a tile past the last.
void persistent_tiles(const Plan& p, Certificate& cert) {
  const std::int64_t T = p.grid_m * p.grid_n, G = p.persistent_blocks;
  auto loop_ok = [&](Query& q, const Expr& b, const Expr& i) {
    // i < (T - b + G - 1) / G, over the integers as the kernel computes it (b < G <= T: no wrap).
    return smt::all_of({b >= 0, b < G, i >= 0, i < (q.z().int_val(T) - b + G - 1) / q.z().int_val(G)});
  };
  {
    Check c{"tile_loop_in_range",
            fmt::format("every iteration of the {} persistent blocks takes a tile in [0, {})", G, T)};
    Query q(c.name);
    Expr b = q.named("block", q.z().int_var("block")), i = q.named("iteration", q.z().int_var("iteration"));
    q.z().add(loop_ok(q, b, i));
    q.z().add(smt::any_of({b + i * G < 0, b + i * G >= T}));
    c.passed = q.holds(c);
    cert.checks.push_back(c);
  }
  {
    Check c{"tile_loop_unique", fmt::format("no two (block, iteration) pairs take the same tile ({} blocks)", G)};
    Query q(c.name);
    Expr b = q.named("block", q.z().int_var("block")), i = q.named("iteration", q.z().int_var("iteration"));
    Expr b2 = q.named("block'", q.z().int_var("block'")), i2 = q.named("iteration'", q.z().int_var("iteration'"));
    q.z().add(loop_ok(q, b, i));
    q.z().add(loop_ok(q, b2, i2));
    q.z().add(b + i * G == b2 + i2 * G);
    q.z().add(smt::any_of({b != b2, i != i2}));
    c.passed = q.holds(c);
    cert.checks.push_back(c);
  }
  {
    Check c{"tile_loop_covered", fmt::format("every tile in [0, {}) is taken by a persistent block's iteration", T)};
    Query q(c.name);
    Expr t = q.named("tile", q.z().int_var("tile"));
    q.z().add(t >= 0);
    q.z().add(t < T);
    Expr b = t % q.z().int_val(G), i = t / q.z().int_val(G);
    q.z().add(!loop_ok(q, b, i));
    c.passed = q.holds(c);
    cert.checks.push_back(c);
  }
}

/// A split K (split_k > 1; the TMA kernel's): the index map's split variable is the plan's
/// split_k, each split starts on a whole K tile, and every split starts below K, so each takes at
/// least one K tile (the kernel's K-tile loop runs at least once, and the tile's last block sums
/// split_k partials that all exist). That the splits partition K, each k of each tile in exactly
/// one split, is k_loop_unique and k_loop_covered.
void k_splits(const Plan& p, Certificate& cert) {
  const IndexDesc& d = p.index;
  std::int64_t S = 1, per = 0, tile = 0;
  for (const auto& v : d.k_vars)
    if (v.name == "split") S = v.extent;
  for (const auto& t : d.k_index.terms) {
    if (t.var == "split") per = t.coeff;
    if (t.var == "k_tile") tile = t.coeff;
  }
  {
    Check c{"k_splits_count", fmt::format("the K index map splits K {} ways, the plan's split_k", p.split_k)};
    c.passed = S == p.split_k;
    if (!c.passed) c.counterexample = fmt::format("split extent={}, split_k={}", S, p.split_k);
    cert.checks.push_back(c);
  }
  {
    Check c{"k_splits_whole_tiles",
            fmt::format("a split spans whole K tiles of tile_k {} (split stride {})", p.tile_k, per)};
    c.passed = tile == p.tile_k && p.tile_k > 0 && per > 0 && per % p.tile_k == 0;
    if (!c.passed) c.counterexample = fmt::format("split stride={}, k_tile stride={}, tile_k={}", per, tile, p.tile_k);
    cert.checks.push_back(c);
  }
  {
    Check c{"k_splits_nonempty", fmt::format("each of the {} K splits starts below K = {}", S, p.K)};
    Query q(c.name);
    Expr s = q.named("split", q.z().int_var("split"));
    q.z().add(s >= 0);
    q.z().add(s < S);
    q.z().add(q.named("first_k", s * per) >= p.K);
    c.passed = q.holds(c);
    cert.checks.push_back(c);
  }
}

void bounds_and_overflow(const Plan& p, Certificate& cert) {
  const IndexDesc& d = p.index;
  std::int64_t K = p.K;
  struct Operand {
    const char* name;
    bool row_major;
    std::int64_t ld, rows, cols;
  };
  // A is M×K (row = c_row, col = k), B is K×N (row = k, col = c_col), C is M×N.
  for (const Operand& op : {Operand{"a", d.a_row_major, d.lda, p.M, K}, Operand{"b", d.b_row_major, d.ldb, K, p.N},
                            Operand{"c", d.c_row_major, d.ldc, p.M, p.N}}) {
    std::string n = op.name;
    for (bool overflow : {false, true}) {
      Check c{overflow ? n + "_index_32bit" : n + "_in_bounds",
              overflow ? fmt::format("every {} element offset the loops form fits a signed 32-bit index", n)
                       : fmt::format("every predicated {} access lies inside the {}×{} buffer", n, op.rows, op.cols)};
      Query q(c.name);
      auto out = q.vars(d.out_vars, "");
      auto kv = q.vars(d.k_vars, "");
      Expr row = n == "b" ? q.eval(d.k_index, kv) : q.eval(d.c_row, out);
      Expr col = n == "a" ? q.eval(d.k_index, kv) : q.eval(d.c_col, out);
      Expr off = q.named("offset", op.row_major ? row * op.ld + col : col * op.ld + row);
      if (overflow) {
        q.z().add(off > kInt32Max);
      } else {
        // The kernel's predicate: the row and column are inside the matrix (zero-fill otherwise).
        q.z().add(row < op.rows);
        q.z().add(col < op.cols);
        q.z().add(off < 0 || off >= op.rows * op.cols);
      }
      c.passed = q.holds(c);
      cert.checks.push_back(c);
    }
  }
}

/// Byte offset of (row, 16-byte chunk) through the layout, as 32-bit bit-vector arithmetic: the
/// XOR swizzle moves bits [7, 7+b) of the offset into bits [4, 4+b).
Expr layout_offset(smt::Solver& z, const Expr& row, const Expr& chunk, std::int64_t pitch, int bits) {
  Expr off = row * z.bv_val(static_cast<std::uint64_t>(pitch), 32) + chunk * z.bv_val(16, 32);
  if (bits > 0) {
    Expr mask = z.bv_val((1u << bits) - 1, 32);
    off = smt::bv_xor(off, smt::bv_shl(smt::bv_and(smt::bv_lshr(off, 7), mask), 4));
  }
  return off;
}

void bank_conflicts(const Plan& p, Certificate& cert) {
  const IndexDesc& d = p.index;
  struct Tile {
    const char* name;
    std::int64_t rows, row_bytes;
  };
  for (const Tile& t : {Tile{"a", d.a_smem_rows, d.a_smem_row_bytes}, Tile{"b", d.b_smem_rows, d.b_smem_row_bytes}}) {
    Check c{
        fmt::format("{}_smem_conflict_free", t.name),
        fmt::format("8-row 16-byte shared-memory reads of {}'s tile ({} rows × {} B, {}) hit 8 distinct bank groups",
                    t.name, t.rows, t.row_bytes, p.smem_layout)};
    Query q(c.name);
    smt::Solver& z = q.z();
    auto bv = [&](std::uint64_t v) { return z.bv_val(v, 32); };
    std::int64_t pitch = t.row_bytes + d.smem_row_pad_bytes;
    Expr g = z.bv_var("row_group", 32), chunk = z.bv_var("chunk", 32), l1 = z.bv_var("lane", 32),
         l2 = z.bv_var("lane'", 32);
    z.add(smt::bv_ule(g * bv(8) + bv(8), bv(static_cast<std::uint64_t>(t.rows))));
    z.add(smt::bv_ult(g, bv(1u << 20)));
    z.add(smt::bv_ult(chunk * bv(16), bv(static_cast<std::uint64_t>(t.row_bytes))));
    z.add(smt::bv_ult(l1, bv(8)));
    z.add(smt::bv_ult(l2, bv(8)));
    z.add(l1 != l2);
    Expr o1 = layout_offset(z, g * bv(8) + l1, chunk, pitch, d.swizzle_bits);
    Expr o2 = layout_offset(z, g * bv(8) + l2, chunk, pitch, d.swizzle_bits);
    // Same group of four 4-byte banks (32 banks × 4 B = 8 groups of 16 B) at different addresses.
    z.add(smt::bv_and(smt::bv_lshr(o1, 4), bv(7)) == smt::bv_and(smt::bv_lshr(o2, 4), bv(7)));
    z.add(o1 != o2);
    q.named("row_group", g);
    q.named("chunk", chunk);
    q.named("lane", l1);
    q.named("lane'", l2);
    q.named("offset", o1);
    q.named("offset'", o2);
    c.passed = q.holds(c);
    cert.checks.push_back(c);
  }
}

/// C through the tensor-memory accelerator (c_store "tma", wgmma_tma.cpp): a consumer warpgroup
/// writes its rows of the tile into a slab buffer of group_rows rows of 128 bytes, 128-byte
/// swizzled as the copy engine reads it (16-byte chunk c of row r at r·128 + (c xor r mod 8)·16),
/// which one bulk tensor store then writes to C. The kernel's map from (thread of the warpgroup,
/// fragment, column group, row half, element of the pair) to (row, column) of the slab writes
/// every element of the slab exactly once, at an address inside the buffer that no other element
/// has, and a warp's store of its pairs meets every bank once (a half-warp's, for 8-byte pairs).
void c_store_slabs(const Plan& p, Certificate& cert) {
  const std::int64_t groups = std::max<std::int64_t>(1, extent_of(p.index.out_vars, "group_m"));
  const std::int64_t rows = p.tile_m / groups, fm = rows / 64;
  const std::int64_t cb = p.c_type == "fp16" || p.c_type == "bf16"    ? 2
                          : p.c_type == "fp32" || p.c_type == "int32" ? 4
                                                                      : 0;
  {
    Check c{"c_slab_shape", fmt::format("a warpgroup's slab is {} rows of 128 bytes ({} B elements): whole 64-row "
                                        "fragments, at most 256 rows (a copy's box)",
                                        rows, cb)};
    c.passed = cb != 0 && rows >= 64 && rows <= 256 && p.tile_m % groups == 0;
    if (!c.passed) c.counterexample = fmt::format("rows={}, element bytes={}, c_type={}", rows, cb, p.c_type);
    cert.checks.push_back(c);
    if (!c.passed) return;
  }
  const std::int64_t cols = 128 / cb, col_groups = cols / 8;
  struct Pt {
    Expr t, f, j, h, e;  // thread of the warpgroup, fragment, column group, row half, element of the pair
  };
  auto bv = [](Query& q, std::uint64_t v) { return q.z().bv_val(v, 32); };
  auto point = [&](Query& q, const std::string& s) {
    Pt x{q.named("thread" + s, q.z().bv_var("thread" + s, 32)), q.named("fragment" + s, q.z().bv_var("f" + s, 32)),
         q.named("group" + s, q.z().bv_var("j" + s, 32)), q.named("half" + s, q.z().bv_var("h" + s, 32)),
         q.named("element" + s, q.z().bv_var("e" + s, 32))};
    q.z().add(smt::bv_ult(x.t, bv(q, 128)));
    q.z().add(smt::bv_ult(x.f, bv(q, static_cast<std::uint64_t>(fm))));
    q.z().add(smt::bv_ult(x.j, bv(q, static_cast<std::uint64_t>(col_groups))));
    q.z().add(smt::bv_ult(x.h, bv(q, 2)));
    q.z().add(smt::bv_ult(x.e, bv(q, 2)));
    return x;
  };
  // The kernel's map (wgmma's accumulator layout: warp w of the warpgroup owns rows 16w..16w+15 of
  // each 64-row fragment, lane l rows l/4 and l/4 + 8 and columns 2(l mod 4), +1 of each 8-column
  // group), and the slab's swizzled byte address.
  auto row = [&](Query& q, const Pt& x) {
    return smt::bv_shl(smt::bv_lshr(x.t, 5), 4) + smt::bv_lshr(smt::bv_and(x.t, bv(q, 31)), 2) + smt::bv_shl(x.f, 6) +
           smt::bv_shl(x.h, 3);
  };
  auto col = [&](Query& q, const Pt& x) {
    return smt::bv_shl(x.j, 3) + smt::bv_shl(smt::bv_and(x.t, bv(q, 3)), 1) + x.e;
  };
  auto addr = [&](Query& q, const Expr& r, const Expr& c) {
    Expr byte = c * bv(q, static_cast<std::uint64_t>(cb));
    return smt::bv_shl(r, 7) + smt::bv_shl(smt::bv_xor(smt::bv_lshr(byte, 4), smt::bv_and(r, bv(q, 7))), 4) +
           smt::bv_and(byte, bv(q, 15));
  };
  {
    Check c{"c_slab_unique", fmt::format("no two (thread, fragment, column group, half, element) write the same "
                                         "element of a {}×{} slab",
                                         rows, cols)};
    Query q(c.name);
    Pt a = point(q, ""), b = point(q, "'");
    q.z().add(smt::any_of({a.t != b.t, a.f != b.f, a.j != b.j, a.h != b.h, a.e != b.e}));
    q.z().add(row(q, a) == row(q, b));
    q.z().add(col(q, a) == col(q, b));
    c.passed = q.holds(c);
    cert.checks.push_back(c);
  }
  {
    Check c{"c_slab_covered", fmt::format("every element of a {}×{} slab is written by a thread", rows, cols)};
    Query q(c.name);
    Expr r = q.named("row", q.z().bv_var("row", 32)), k = q.named("column", q.z().bv_var("column", 32));
    q.z().add(smt::bv_ult(r, bv(q, static_cast<std::uint64_t>(rows))));
    q.z().add(smt::bv_ult(k, bv(q, static_cast<std::uint64_t>(cols))));
    Pt x{smt::bv_shl(smt::bv_lshr(smt::bv_and(r, bv(q, 63)), 4), 5) + smt::bv_shl(smt::bv_and(r, bv(q, 7)), 2) +
             smt::bv_lshr(smt::bv_and(k, bv(q, 7)), 1),
         smt::bv_lshr(r, 6), smt::bv_lshr(k, 3), smt::bv_and(smt::bv_lshr(r, 3), bv(q, 1)), smt::bv_and(k, bv(q, 1))};
    q.z().add(!smt::all_of({smt::bv_ult(x.f, bv(q, static_cast<std::uint64_t>(fm))),
                            smt::bv_ult(x.j, bv(q, static_cast<std::uint64_t>(col_groups))), row(q, x) == r,
                            col(q, x) == k}));
    c.passed = q.holds(c);
    cert.checks.push_back(c);
  }
  {
    Check c{"c_slab_addresses",
            fmt::format("the slab's elements lie at distinct {}-byte-aligned addresses inside its {} bytes", cb,
                        rows * 128)};
    Query q(c.name);
    Expr r = q.named("row", q.z().bv_var("row", 32)), k = q.named("column", q.z().bv_var("column", 32));
    Expr r2 = q.named("row'", q.z().bv_var("row'", 32)), k2 = q.named("column'", q.z().bv_var("column'", 32));
    for (const Expr& v : {r, r2}) q.z().add(smt::bv_ult(v, bv(q, static_cast<std::uint64_t>(rows))));
    for (const Expr& v : {k, k2}) q.z().add(smt::bv_ult(v, bv(q, static_cast<std::uint64_t>(cols))));
    Expr a = q.named("address", addr(q, r, k)), a2 = addr(q, r2, k2);
    q.z().add(smt::any_of({smt::all_of({smt::any_of({r != r2, k != k2}), a == a2}),
                           smt::bv_ult(bv(q, static_cast<std::uint64_t>(rows * 128 - cb)), a),
                           smt::bv_and(a, bv(q, static_cast<std::uint64_t>(cb - 1))) != bv(q, 0)}));
    c.passed = q.holds(c);
    cert.checks.push_back(c);
  }
  {
    // 16-bit C: a warp's 4-byte stores meet each bank once. 32-bit C: a half-warp's 8-byte stores
    // (one phase each) meet each bank at most twice: lanes of rows r and r xor 1 land in the same
    // pair of chunks under the 128-byte swizzle, which the copy engine's layout fixes.
    const bool once = cb == 2;
    Check c{once ? "c_slab_conflict_free" : "c_slab_conflicts_at_most_2",
            once ? "a warp's 4-byte stores of its pairs into the slab meet each bank once"
                 : "a half-warp's 8-byte stores of its pairs into the slab meet each bank at most twice"};
    Query q(c.name);
    Pt a = point(q, "");
    q.z().add(a.e == bv(q, 0));
    Expr l1 = smt::bv_and(a.t, bv(q, 31));
    std::vector<Expr> lanes = {l1};
    for (const char* s : {"lane'", "lane''"}) {
      if (once && lanes.size() == 2) break;
      Expr l = q.named(s, q.z().bv_var(s, 32));
      q.z().add(smt::bv_ult(l, bv(q, 32)));
      for (const Expr& o : lanes) q.z().add(l != o);
      lanes.push_back(l);
    }
    auto bank = [&](const Expr& lane) {
      Pt b{smt::bv_shl(smt::bv_lshr(a.t, 5), 5) + lane, a.f, a.j, a.h, a.e};  // a lane of the same warp
      Expr x = addr(q, row(q, b), col(q, b));
      return once ? smt::bv_and(smt::bv_lshr(x, 2), bv(q, 31)) : smt::bv_and(smt::bv_lshr(x, 3), bv(q, 15));
    };
    for (size_t k = 1; k < lanes.size(); ++k) {
      q.z().add(bank(lanes[k]) == bank(lanes[0]));
      if (!once) q.z().add(smt::bv_lshr(lanes[k], 4) == smt::bv_lshr(lanes[0], 4));
    }
    c.passed = q.holds(c);
    cert.checks.push_back(c);
  }
}

}  // namespace

Certificate verify(const Plan& p) {
  auto t0 = std::chrono::steady_clock::now();
  const IndexDesc& d = p.index;
  std::vector<IndexVar> rows, cols;
  for (const auto& v : d.out_vars) {
    bool is_row = false;
    for (const auto& t : d.c_row.terms) is_row = is_row || t.var == v.name;
    (is_row ? rows : cols).push_back(v);
  }
  // Independent queries, each in its own solver context: run them on two threads, then list the
  // checks in a fixed order.
  std::vector<std::function<void(Certificate&)>> groups = {
      [&](Certificate& c) { exactly_once(p, rows, d.c_row, "row", p.M, "c_rows", "block/warp/fragment row", c); },
      [&](Certificate& c) { exactly_once(p, cols, d.c_col, "col", p.N, "c_cols", "block/warp/fragment column", c); },
      [&](Certificate& c) { exactly_once(p, d.k_vars, d.k_index, "k", p.K, "k_loop", "split/K-tile/element", c); },
      [&](Certificate& c) { bounds_and_overflow(p, c); },
      [&](Certificate& c) {
        if (p.target_kind == hw::TargetKind::Gpu && d.a_smem_row_bytes > 0) bank_conflicts(p, c);
      },
      [&](Certificate& c) {
        if (p.persistent_blocks > 0) persistent_tiles(p, c);
      },
      [&](Certificate& c) {
        if (p.c_store == "tma") c_store_slabs(p, c);
      },
      [&](Certificate& c) {
        if (p.target_kind == hw::TargetKind::Gpu && (p.split_k > 1 || extent_of(d.k_vars, "split") > 1)) k_splits(p, c);
      },
  };
  std::vector<Certificate> parts(groups.size());
  std::vector<std::string> errors(groups.size());
  auto run = [&](size_t first) {
    for (size_t i = first; i < groups.size(); i += 2) {
      try {
        groups[i](parts[i]);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    }
  };
  std::thread other(run, 1);
  run(0);
  other.join();
  Certificate cert;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (!errors[i].empty()) throw InternalError("verify: " + errors[i]);
    cert.checks.insert(cert.checks.end(), parts[i].checks.begin(), parts[i].checks.end());
  }
  cert.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return cert;
}

void dump(std::ostream& os, const Certificate& c) {
  os << fmt::format("Proof: {} checks, {} ({:.1f} ms)\n", c.checks.size(), c.all_passed() ? "all proved" : "FAILED",
                    c.seconds * 1000);
  for (const auto& k : c.checks) {
    os << fmt::format("  {:<6} {:<24} {:>7.2f} ms  {}\n", k.passed ? "proved" : "FAILED", k.name, k.ms, k.statement);
    if (!k.passed) os << "         counterexample: " << k.counterexample << "\n";
  }
}

std::string to_json_text(const Certificate& c) {
  nlohmann::json j;
  j["format"] = "deepgemm-proof-1";
  j["all_passed"] = c.all_passed();
  for (const auto& k : c.checks) {
    nlohmann::json e = {{"name", k.name}, {"statement", k.statement}, {"result", k.passed ? "proved" : "failed"}};
    if (!k.passed) e["counterexample"] = k.counterexample;
    j["checks"].push_back(e);
  }
  return j.dump(2) + "\n";
}

}  // namespace dg::verify
