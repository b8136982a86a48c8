// The verifier proves real plans and catches seeded bugs in the index description.
#include <doctest/doctest.h>

#include <sstream>

#include "dgml/parser.h"
#include "sema/check.h"
#include "solve/solve.h"
#include "verify/verify.h"

using namespace dg;

namespace {

Plan plan_for(const std::string& text) {
  DiagEngine d;
  auto spec = dgml::parse("t.dgml", text, d);
  auto p = sema::check(spec, std::string(DEEPGEMM_SOURCE_DIR) + "/hw-models", d);
  REQUIRE(p);
  auto r = solve::solve(*p);
  REQUIRE(r.plan);
  return *r.plan;
}

const verify::Check& check(const verify::Certificate& c, const std::string& name) {
  for (const auto& k : c.checks)
    if (k.name == name) return k;
  FAIL("no check " << name);
  return c.checks.front();
}

const char* kOdd =
    "target ampere;\nprecision { activation: fp16; weight: fp16; }\nshape { M: 1000; N: 777; K: 1008; }\n";

}  // namespace

TEST_CASE("verify: plans for odd shapes are proved") {
  for (const char* spec :
       {kOdd, "target hopper;\nprecision { activation: bf16; weight: bf16; }\nshape { M: 4096; N: 4096; K: 4096; }\n",
        "target volta;\nprecision { activation: fp16; weight: fp16; }\nshape { M: 33; N: 65; K: 1001; }\n"
        "constraints { pad_k: true; }\n",
        "target npu16;\nprecision { activation: int8; weight: int8; }\nshape { M: 100; N: 60; K: 300; }\n"}) {
    CAPTURE(spec);
    Plan pl = plan_for(spec);
    auto cert = verify::verify(pl);
    std::ostringstream os;
    verify::dump(os, cert);
    CAPTURE(os.str());
    CHECK(cert.all_passed());
    CHECK(cert.checks.size() >= 12);
  }
}

TEST_CASE("verify: a wrong element stride is caught with a counterexample") {
  Plan pl = plan_for(kOdd);
  for (auto& t : pl.index.c_row.terms)
    if (t.var == "elem_m") t.coeff = 2;  // rows of one fragment spread over two fragments
  auto cert = verify::verify(pl);
  CHECK(!cert.all_passed());
  bool row_check_failed = false;
  for (const auto& c : cert.checks)
    if (!c.passed && c.name.rfind("c_rows", 0) == 0) {
      row_check_failed = true;
      CHECK(!c.counterexample.empty());
    }
  CHECK(row_check_failed);
  CHECK(check(cert, "c_cols_unique").passed);  // the column map is untouched
}

TEST_CASE("verify: an off-by-one K tile stride leaves part of K uncovered") {
  Plan pl = plan_for(kOdd);
  for (auto& t : pl.index.k_index.terms)
    if (t.var == "k_tile") t.coeff += 1;
  auto cert = verify::verify(pl);
  CHECK(!check(cert, "k_loop_covered").passed);
}

namespace {
// K = 1000 in 16 K tiles of 64, split 3 ways: 6, 6 and 4 tiles, the last one partly past K.
const char* kSplit =
    "target hopper;\nprecision { activation: fp16; weight: fp16; output: fp16; }\n"
    "shape { M: 200; N: 520; K: 1000; }\nconstraints { cast_output: fp16; pad_k: true; split_k: 3; }\n";

std::int64_t& split_coeff(Plan& pl) {
  for (auto& t : pl.index.k_index.terms)
    if (t.var == "split") return t.coeff;
  FAIL("no split term");
  return pl.index.k_index.terms.front().coeff;
}
}  // namespace

TEST_CASE("verify: a split K partitions K, each split non-empty") {
  Plan pl = plan_for(kSplit);
  REQUIRE(pl.split_k == 3);
  CHECK(split_coeff(pl) == 6 * 64);
  auto cert = verify::verify(pl);
  std::ostringstream os;
  verify::dump(os, cert);
  CAPTURE(os.str());
  CHECK(cert.all_passed());
  for (const char* name :
       {"k_loop_unique", "k_loop_covered", "k_splits_count", "k_splits_whole_tiles", "k_splits_nonempty"})
    CHECK(check(cert, name).passed);
}

TEST_CASE("verify: splits that overlap sum a K range twice") {
  Plan pl = plan_for(kSplit);
  split_coeff(pl) -= 64;  // split s starts one K tile early: its first tile is split s-1's last
  auto cert = verify::verify(pl);
  CHECK(!check(cert, "k_loop_unique").passed);
  CHECK(!check(cert, "k_loop_unique").counterexample.empty());
}

TEST_CASE("verify: splits that leave a gap skip a K range") {
  Plan pl = plan_for(kSplit);
  split_coeff(pl) += 64;  // one K tile between consecutive splits is nobody's
  auto cert = verify::verify(pl);
  CHECK(!check(cert, "k_loop_covered").passed);
}

TEST_CASE("verify: a split with no K tile, or a count the index map does not have, is refused") {
  Plan pl = plan_for(kSplit);
  for (auto& v : pl.index.k_vars)
    if (v.name == "split") v.extent = 4;  // a fourth split would start at 18 tiles, past K
  pl.split_k = 4;
  auto cert = verify::verify(pl);
  CHECK(!check(cert, "k_splits_nonempty").passed);
  CHECK(check(cert, "k_splits_count").passed);

  Plan other = plan_for(kSplit);
  other.split_k = 2;  // the plan says 2 splits, its index map 3
  auto cert2 = verify::verify(other);
  CHECK(!check(cert2, "k_splits_count").passed);

  Plan half = plan_for(kSplit);
  split_coeff(half) = 6 * 64 + 32;  // splits starting inside a K tile
  auto cert3 = verify::verify(half);
  CHECK(!check(cert3, "k_splits_whole_tiles").passed);
}

TEST_CASE("verify: a wrong leading dimension reads out of bounds") {
  Plan pl = plan_for(kOdd);
  pl.index.lda += 1;
  auto cert = verify::verify(pl);
  const auto& c = check(cert, "a_in_bounds");
  CHECK(!c.passed);
  CHECK(c.counterexample.find("offset=") != std::string::npos);
}

TEST_CASE("verify: dropping the swizzle of a 128-byte-row tile makes reads conflict") {
  Plan pl = plan_for(
      "target ampere;\nprecision { activation: fp16; weight: fp16; }\nshape { M: 4096; N: 4096; K: 4096; }\n"
      "layout { smem: swizzle_128b; }\nconstraints { tile_k == 64; }\n");
  REQUIRE(pl.index.a_smem_row_bytes == 128);
  CHECK(verify::verify(pl).all_passed());
  pl.index.swizzle_bits = 0;
  CHECK(!check(verify::verify(pl), "a_smem_conflict_free").passed);
}

TEST_CASE("verify: a problem too large for 32-bit indices fails the overflow check") {
  Plan pl = plan_for(kOdd);
  pl.M = pl.N = 100000;
  pl.K = 100000;
  pl.index.lda = pl.index.ldb = pl.index.ldc = 100000;
  for (auto& v : pl.index.out_vars)
    if (v.name == "block_m") v.extent = (100000 + pl.tile_m - 1) / pl.tile_m;
  auto cert = verify::verify(pl);
  CHECK(!check(cert, "a_index_32bit").passed);
}

TEST_CASE("verify: C through the TMA is stored by slabs whose every element is written once, conflict-free") {
  Plan pl = plan_for(
      "target hopper;\nprecision { activation: fp16; weight: fp16; output: fp16; }\n"
      "shape { M: 4096; N: 4096; K: 512; }\n");
  REQUIRE(pl.c_store == "tma");
  auto cert = verify::verify(pl);
  CHECK(cert.all_passed());
  for (const char* name :
       {"c_slab_shape", "c_slab_unique", "c_slab_covered", "c_slab_addresses", "c_slab_conflict_free"})
    CHECK(check(cert, name).passed);
  // 32-bit C: 8-byte pairs, at most two to a bank per half-warp.
  Plan wide = plan_for(
      "target hopper;\nprecision { activation: bf16; weight: bf16; output: fp32; }\n"
      "shape { M: 1000; N: 776; K: 1024; }\nconstraints { loader: tma; }\n");
  REQUIRE(wide.c_store == "tma");
  CHECK(check(verify::verify(wide), "c_slab_conflicts_at_most_2").passed);
  // A warpgroup's rows that are not whole 64-row fragments leave part of the slab unwritten.
  Plan partial = pl;
  partial.tile_m = 80 * (partial.tile_m / 64);
  CHECK(!check(verify::verify(partial), "c_slab_covered").passed);
  // An 8-bit C has no slab store.
  Plan bytes = pl;
  bytes.c_type = "int8";
  CHECK(!check(verify::verify(bytes), "c_slab_shape").passed);
}
