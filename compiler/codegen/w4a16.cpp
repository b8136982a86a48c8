// The 4-bit weight kernel (W4A16; the mma.sync family's "registers" loader): int4, u4 or FP4 E2M1
// weights packed in the n8k128 layouts (<deepgemm/w4_pack.h>) stream from global memory straight
// into registers, 16 bytes per lane per load, with an L2 evict-first policy and no L1 allocation
// (each weight is read once; PTX ISA 7.4 or later, else plain non-coherent loads). They are
// converted to fp16/bf16 in registers — integers by lop3 into the mantissa of 1024.0 (bf16 128.0)
// and one subtraction (or, for fp16's odd registers, one fma that also undoes the nibble's 16×)
// per pair, E2M1 by moving its bits into the 16-bit format and one multiply by a power of two, all
// exact — and multiplied by mma.sync m16n8k16 with fp32 accumulation. No shared-memory stage: a
// lane's 16-byte load is already its B fragments for eight k16 steps, because k is permuted
// inside every 32 k the same way for A and B (lane t of a quad takes k 8t..8t+7), which also lets
// A arrive by 16-byte loads.
//
// Schedule (correct for any M): a block owns 16·fm rows (fm = ceil(M/16), at most 2: four m16
// tiles with group scales spill registers) and 8·fn·Wn columns, and its Wn·Wk warps are Wn side
// by side along N (8·fn columns, fn = 2 or, above M = 16, 4 n8 tiles, each) and Wk along K: warp
// (wn, wk) takes the 128-k blocks wk, wk + Wk, ... of its columns. The Wn warps of a K slice read
// the same rows of A at the same k, so A comes from L2 once a block and from L1 for the others:
// Wn > 1 and fn = 4 are what make larger M cheaper (with one warp of 16 columns a block, every 16
// columns read all of A again from L2; run 32 in bench/RESULTS.md). The loop is
// unrolled by its S = stages register slots, so that S - 1 blocks' weights (and
// scales) are in flight behind every multiply and no slot is copied around a ring. At M <= 8 the
// operands are swapped: the two n8 tiles' weights are one m16 operand and A's rows the n8 one, so
// one multiply covers 16 columns and none of its rows is padding. At the end the warps' partial
// sums meet in shared memory as C's tile, each accumulator tile summed by one warp, which runs
// the epilogue (bias, activation, cast) and the predicated store.
//
// Group scales (scales { B: group_G; }) multiply per-group partial sums in fp32: each group's
// products accumulate from zero in registers and are added to the accumulator times the group's
// scale (one fp32 fma per accumulator per group). The converted weights are the exact integers
// in [-8, 7], so with small-integer activations and power-of-two scales every step is exact.
#include <deepgemm/w4_pack.h>
#include <fmt/format.h>

#include <array>

#include "codegen/families.h"
#include "codegen/inline_ptx.h"
#include "codegen/kernel_builder.h"
#include "support/error.h"

namespace dg::codegen {

namespace {

/// FP4 E2M1 codes (s e1 e0 m) → fp16x2 (bf16x2): the exponent and mantissa bits go to the top of
/// the 16-bit format's exponent-mantissa boundary (bits 9-11 for fp16, 6-8 for bf16), the sign to
/// bit 15, which reads as 2^(e - bias16)·(1 + m/2) (a subnormal for e = 0, m/2 · 2^(1 - bias16));
/// one multiply by 2^(bias16 - 1) (2^14, bf16 2^126) gives E2M1's value 2^(e - 1)·(1 + m/2), or
/// m/2, exactly. The multiply is an fma with -0.0, which keeps the sign of zero.
std::array<llvm::Value*, 4> convert_e2m1(llvm::IRBuilder<>& b, InlinePtx& cv, bool bf16) {
  std::string text = "{\n\t.reg .b32 t<4>, m<4>, c<2>;\n";
  text += bf16 ? "\tmov.b32 c0, 0x7e807e80;\n" : "\tmov.b32 c0, 0x74007400;\n";
  text += "\tmov.b32 c1, 0x80008000;\n";
  for (int i = 0; i < 4; ++i) {
    text += i == 0 ? "\tmov.b32 t0, $4;\n" : fmt::format("\tshr.b32 t{}, $4, {};\n", i, 4 * i);
    text += fmt::format("\tand.b32 m{0}, t{0}, 0x00070007;\n\tshl.b32 m{0}, m{0}, {1};\n", i, bf16 ? 6 : 9);
    text += fmt::format("\tand.b32 t{0}, t{0}, 0x00080008;\n\tshl.b32 t{0}, t{0}, 12;\n", i);
    text += fmt::format("\tor.b32 t{0}, t{0}, m{0};\n", i);
    text += fmt::format("\tfma.rn.{}x2 ${}, t{}, c0, c1;\n", bf16 ? "bf16" : "f16", i, i);
  }
  text += "}";
  llvm::Value* r = cv.emit(b, text, false, false);
  return {b.CreateExtractValue(r, 0), b.CreateExtractValue(r, 1), b.CreateExtractValue(r, 2),
          b.CreateExtractValue(r, 3)};
}

}  // namespace

/// One word of 8 nibbles → four fp16x2 (bf16x2) registers: register i holds k0 + 2i, k0 + 2i + 1.
std::array<llvm::Value*, 4> convert_w4_word(llvm::IRBuilder<>& b, llvm::Value* word, bool bf16, bool e2m1) {
  InlinePtx cv;
  for (int i = 0; i < 4; ++i) cv.out('r');
  cv.in(word, 'r');
  if (e2m1) return convert_e2m1(b, cv, bf16);
  // fp16: 0x6400 | u is 1024 + u, minus 1032 is u - 8 = v; a nibble left in bits 4-7 gives
  // 0x6400 | 16u = 1024 + 16u, and (1024 + 16u)·(1/16) - 72 is v too, so registers 1 and 3
  // need no shift of their own (one shift by 8 serves 2 and 3). bf16 has 7 mantissa bits, too
  // few for 16u: each register is shifted into bits 0-3, 0x4300 | u is 128 + u, minus 136 (as
  // 1·x + (-136): sm_80 has no bf16x2 subtraction).
  std::string text = "{\n\t.reg .b32 t<4>, c<3>, s;\n";
  if (bf16) {
    text += "\tmov.b32 c0, 0x3f803f80;\n\tmov.b32 c1, 0xc308c308;\n";
    for (int i = 0; i < 4; ++i) {
      const std::string src = i == 0 ? "$4" : fmt::format("t{}", i);
      if (i > 0) text += fmt::format("\tshr.b32 t{}, $4, {};\n", i, 4 * i);
      text += fmt::format("\tlop3.b32 t{}, {}, 0x000f000f, 0x43004300, 0xea;\n", i, src);
      text += fmt::format("\tfma.rn.bf16x2 ${}, t{}, c0, c1;\n", i, i);
    }
  } else {
    // c0 = 1032, c1 = 1/16 (0x2c00), c2 = -72 (0xd480), each in both halves.
    text += "\tmov.b32 c0, 0x64086408;\n\tmov.b32 c1, 0x2c002c00;\n\tmov.b32 c2, 0xd480d480;\n";
    text += "\tshr.b32 s, $4, 8;\n";
    for (int i = 0; i < 4; ++i) {
      text += fmt::format("\tlop3.b32 t{}, {}, {}, 0x64006400, 0xea;\n", i, i < 2 ? "$4" : "s",
                          i % 2 == 0 ? "0x000f000f" : "0x00f000f0");
      text += i % 2 == 0 ? fmt::format("\tsub.f16x2 ${}, t{}, c0;\n", i, i)
                         : fmt::format("\tfma.rn.f16x2 ${}, t{}, c1, c2;\n", i, i);
    }
  }
  text += "}";
  llvm::Value* r = cv.emit(b, text, false, false);
  return {b.CreateExtractValue(r, 0), b.CreateExtractValue(r, 1), b.CreateExtractValue(r, 2),
          b.CreateExtractValue(r, 3)};
}

namespace {

using llvm::Value;

/// The group size of the plan's weight scales: 0 without scales, K for per_column.
std::int64_t group_size(const Plan& p) { return w4_group_size(p.scale_b, p.K); }

class W4a16Kernel : KernelBuilder {
 public:
  W4a16Kernel(const Plan& p, const hw::HwModel& hw, llvm::LLVMContext& ctx, llvm::Module& m)
      : KernelBuilder(p, ctx, m), hint_(hw.gpu.ptx_version_major * 10 + hw.gpu.ptx_version_minor >= 74) {}

  LaunchInfo build(const std::string& name) {
    kb_ = static_cast<std::int64_t>(ko::w4::k_blocks(static_cast<std::uint64_t>(p_.K)));
    // The plan's schedule (solve/space.h, w4_schedule): tile_m = 16·fm rows, 16 columns, 128-k
    // tiles, K split over k_warps warps, stages - 1 blocks of weights in flight per warp.
    fm_ = p_.tile_m / 16;
    warps_ = p_.k_warps;
    warps_n_ = p_.warp_n;
    fn_ = p_.tile_n / p_.warp_n / 8;
    ahead_ = p_.stages - 1;
    per_column_ = p_.scale_b == "per_column";
    group_ = per_column_ ? 0 : group_size(p_);
    // A's fragments one block ahead where they are one m16 tile's upper rows only (M <= 8: 16
    // registers a block; w4_schedule leaves room for them).
    a_ahead_ = p_.M <= 8;
    // The operands swapped where A's rows fit mma's n8 side (M <= 8, one m16 tile).
    swap_ = p_.M <= 8 && fm_ == 1;
    bf16_ = p_.a_type == "bf16";
    e2m1_ = p_.b_type == "int4_e2m1";
    const std::int64_t grid_n = (p_.N + (8 * fn_) * warps_n_ - 1) / ((8 * fn_) * warps_n_),
                       grid_m = (p_.M + 16 * fm_ - 1) / (16 * fm_);
    // The plan's blocks per SM bound the registers (two blocks of eight warps: 128 a thread).
    begin_kernel(name, 32 * warps_ * warps_n_, p_.blocks_per_sm, 16);
    body(grid_n);
    LaunchInfo li = launch_info(name, warps_ * warps_n_ * fm_ * fn_ * 4 * 32 * 4);
    li.grid[0] = static_cast<std::uint32_t>(grid_n * grid_m);
    return li;
  }

 private:
  // fn_: the n8 tiles of a warp (2, or 4 at M > 16: more multiplies for each A fragment), so a
  // warp owns 8·fn_ columns.

  Value* acc_at(llvm::AllocaInst* a, std::int64_t e) {
    return b_.CreateConstInBoundsGEP2_32(a->getAllocatedType(), a, 0, static_cast<unsigned>(e));
  }
  std::int64_t acc_index(std::int64_t i, std::int64_t j, std::int64_t e) const { return (i * fn_ + j) * 4 + e; }

  /// 16 bytes of packed weights at byte `base` + `off` of the data (past the header; `base` is
  /// this lane's chunk of an n8 tile): a non-caching load with the kernel's L2 evict-first policy.
  std::array<Value*, 4> load_weights(Value* base, Value* off) {
    Value* byte =
        b_.CreateAdd(b_.CreateZExt(b_.CreateAdd(base, off), b_.getInt64Ty()), b_.getInt64(ko::w4::kHeaderBytes));
    Value* ptr = b_.CreateGEP(b_.getInt8Ty(), arg(1), byte);
    if (policy_ == nullptr) {  // PTX before 7.4: a plain non-coherent load, no cache hint
      auto* v4 = llvm::FixedVectorType::get(b_.getInt32Ty(), 4);
      auto* ld = b_.CreateAlignedLoad(v4, ptr, llvm::Align(16));
      ld->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx_, {}));
      return {b_.CreateExtractElement(ld, std::uint64_t(0)), b_.CreateExtractElement(ld, std::uint64_t(1)),
              b_.CreateExtractElement(ld, std::uint64_t(2)), b_.CreateExtractElement(ld, std::uint64_t(3))};
    }
    InlinePtx ld;
    for (int i = 0; i < 4; ++i) ld.out('r');
    ld.in(b_.CreatePtrToInt(ptr, b_.getInt64Ty()), 'l');
    ld.in(policy_, 'l');
    Value* r = ld.emit(b_, "ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {$0, $1, $2, $3}, [$4], $5;", false);
    return {b_.CreateExtractValue(r, 0), b_.CreateExtractValue(r, 1), b_.CreateExtractValue(r, 2),
            b_.CreateExtractValue(r, 3)};
  }

  std::array<Value*, 4> convert(Value* word) { return convert_w4_word(b_, word, bf16_, e2m1_); }

  /// This lane's scales of group `gi` for n8 tile j: one 32-bit word (columns c0 and c0 + 1 of the
  /// lane's accumulator pairs), or with the operands swapped one 16-bit value (column g). Columns
  /// past N read column 0 (their results are not stored).
  Value* load_scale(Value* gi, std::int64_t j) {
    Value* col = b_.CreateAdd(col_base_, b_.CreateAdd(c32(8 * j), swap_ ? quad_g_ : c0_));
    col = b_.CreateSelect(b_.CreateICmpULT(col, arg_n()), col, c32(0));
    Value* idx = b_.CreateAdd(b_.CreateMul(b_.CreateZExt(gi, b_.getInt64Ty()), b_.getInt64(p_.N)),
                              b_.CreateZExt(col, b_.getInt64Ty()));
    llvm::Type* t = swap_ ? b_.getInt16Ty() : b_.getInt32Ty();
    auto* ld = b_.CreateAlignedLoad(t, b_.CreateGEP(b_.getInt16Ty(), arg(scale_arg_), idx), llvm::Align(swap_ ? 2 : 4));
    ld->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx_, {}));
    return swap_ ? b_.CreateZExt(ld, b_.getInt32Ty()) : static_cast<Value*>(ld);
  }

  /// A scale word's two values as fp32 (with the operands swapped, its low value twice).
  std::array<Value*, 2> scale_pair(Value* w) {
    auto* f32 = b_.getFloatTy();
    if (bf16_) {
      Value* lo = b_.CreateBitCast(b_.CreateShl(w, 16), f32);
      return {lo, swap_ ? lo : b_.CreateBitCast(b_.CreateAnd(w, c32(0xffff0000)), f32)};
    }
    Value* h2 = b_.CreateBitCast(w, llvm::FixedVectorType::get(b_.getHalfTy(), 2));
    Value* lo = b_.CreateFPExt(b_.CreateExtractElement(h2, std::uint64_t(0)), f32);
    return {lo, swap_ ? lo : b_.CreateFPExt(b_.CreateExtractElement(h2, std::uint64_t(1)), f32)};
  }

  /// acc += part · scale (each n8 tile's columns), then part = 0. With the operands swapped, the
  /// lane's accumulators 0 and 1 are column g of tile 0, 2 and 3 column g of tile 1.
  void fold(const std::vector<Value*>& scales) {
    auto* f32 = b_.getFloatTy();
    for (std::int64_t j = 0; j < fn_; ++j) {
      std::array<Value*, 2> s = scale_pair(scales[j]);
      for (std::int64_t i = 0; i < fm_; ++i)
        for (std::int64_t e = 0; e < (swap_ ? 2 : 4); ++e) {
          const std::int64_t x = swap_ ? 2 * j + e : acc_index(i, j, e);
          Value* v = b_.CreateLoad(f32, acc_at(part_, x));
          Value* a = b_.CreateLoad(f32, acc_at(acc_, x));
          b_.CreateStore(b_.CreateIntrinsic(llvm::Intrinsic::fma, {f32}, {v, s[e & 1], a}), acc_at(acc_, x));
          b_.CreateStore(llvm::ConstantFP::get(f32, 0.0), acc_at(part_, x));
        }
    }
  }

  void mma(llvm::AllocaInst* into, std::int64_t x, const std::array<Value*, 4>& a, Value* b0, Value* b1) {
    auto* f32 = b_.getFloatTy();
    std::vector<Value*> args;
    auto* h2 = llvm::FixedVectorType::get(b_.getHalfTy(), 2);
    for (Value* v : a) args.push_back(bf16_ ? v : b_.CreateBitCast(v, h2));
    for (Value* v : {b0, b1}) args.push_back(bf16_ ? v : b_.CreateBitCast(v, h2));
    for (std::int64_t e = 0; e < 4; ++e) args.push_back(b_.CreateLoad(f32, acc_at(into, x + e)));
    Value* r = b_.CreateCall(intr(bf16_ ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16
                                        : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32),
                             args);
    for (unsigned e = 0; e < 4; ++e) b_.CreateStore(b_.CreateExtractValue(r, e), acc_at(into, x + e));
  }

  /// A's fragments for 128-k block q: rows g and g + 8 of each m16 tile, 8 k from k0 + 32·w for
  /// the four k32 steps w, flattened as [w][i][h][r]. A row past M reads row M - 1 instead (row r of
  /// A reaches only row r of C, and rows past M are not stored), so only k past K needs zeros;
  /// rows that are past M in every block (g + 8 when M <= 8) are constant zeros, not loads.
  std::vector<Value*> load_a(Value* q) {
    Value* q128 = b_.CreateMul(q, c32(128));
    auto* v4 = llvm::FixedVectorType::get(b_.getInt32Ty(), 4);
    std::vector<Value*> out;
    for (std::int64_t w = 0; w < 4; ++w) {
      Value* kw = b_.CreateAdd(q128, c32(32 * w));
      // Every k32 step of a block inside K is inside K when K is a multiple of 128 (q < KB).
      Value* k_ok = p_.K % 128 == 0 ? nullptr : b_.CreateICmpULT(kw, arg_k());
      Value* kc = k_ok ? b_.CreateSelect(k_ok, kw, c32(0)) : kw;
      for (std::int64_t i = 0; i < fm_; ++i)
        for (std::int64_t h = 0; h < 2; ++h) {
          if (a_row_empty(i, h)) {
            for (unsigned r = 0; r < 4; ++r) out.push_back(c32(0));
            continue;
          }
          Value* ptr = b_.CreateGEP(b_.getInt16Ty(), a_row_[i * 2 + h], b_.CreateZExt(kc, b_.getInt64Ty()));
          auto* ld = b_.CreateAlignedLoad(v4, ptr, llvm::Align(16));
          ld->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx_, {}));
          Value* v = k_ok ? b_.CreateSelect(k_ok, ld, llvm::ConstantAggregateZero::get(v4)) : static_cast<Value*>(ld);
          for (unsigned r = 0; r < 4; ++r) out.push_back(b_.CreateExtractElement(v, std::uint64_t(r)));
        }
    }
    return out;
  }
  bool a_row_empty(std::int64_t i, std::int64_t h) const { return p_.M <= 16 * fm_ && 16 * i + 8 * h >= p_.M; }

  /// Multiply 128-k block q of this warp: `af` are A's fragments (load_a), `bw[j]` n8 tile j's
  /// four weight words, `sc[j][h]` the scale words of the block's groups (group_ <= 128).
  ///
  /// With the operands swapped (M <= 8), one m16n8k16 multiplies both n8 tiles at once: the
  /// weights are its A operand (16 columns: the two tiles' B fragments, interleaved, are exactly
  /// the m16k16 fragment) and A's rows its n8 operand (row g's fragment registers 0-1 and 2-3 are
  /// the n8k16 fragments of the two k16 steps), so the m16n8 product is C's transpose: half the
  /// multiplies, and no row of the m16 operand is padding.
  void compute_block(const std::vector<Value*>& af, const std::vector<std::array<Value*, 4>>& bw,
                     const std::vector<std::vector<Value*>>& sc) {
    llvm::AllocaInst* into = group_ > 0 || per_column_ ? part_ : acc_;
    auto a_at = [&](std::int64_t w, std::int64_t i, std::int64_t h, std::int64_t r) {
      return af[static_cast<std::size_t>(((w * fm_ + i) * 2 + h) * 4 + r)];
    };
    for (std::int64_t w = 0; w < 4; ++w) {
      if (swap_) {
        std::array<Value*, 4> b0 = convert(bw[0][w]), b1 = convert(bw[1][w]);
        mma(into, 0, {b0[0], b1[0], b0[1], b1[1]}, a_at(w, 0, 0, 0), a_at(w, 0, 0, 1));
        mma(into, 0, {b0[2], b1[2], b0[3], b1[3]}, a_at(w, 0, 0, 2), a_at(w, 0, 0, 3));
      } else {
        for (std::int64_t j = 0; j < fn_; ++j) {
          std::array<Value*, 4> bf = convert(bw[j][w]);
          for (std::int64_t i = 0; i < fm_; ++i) {
            // Step 0 takes k0 + 0..3 (A registers 0 and 1), step 1 k0 + 4..7 (registers 2 and 3).
            mma(into, acc_index(i, j, 0), {a_at(w, i, 0, 0), a_at(w, i, 1, 0), a_at(w, i, 0, 1), a_at(w, i, 1, 1)},
                bf[0], bf[1]);
            mma(into, acc_index(i, j, 0), {a_at(w, i, 0, 2), a_at(w, i, 1, 2), a_at(w, i, 0, 3), a_at(w, i, 1, 3)},
                bf[2], bf[3]);
          }
        }
      }
      if (group_ == 32 || (group_ == 64 && w % 2 == 1)) {
        std::vector<Value*> s;
        for (std::int64_t j = 0; j < fn_; ++j) s.push_back(sc[j][group_ == 32 ? w : w / 2]);
        fold(s);
      }
    }
    if (group_ == 128) {
      std::vector<Value*> s;
      for (std::int64_t j = 0; j < fn_; ++j) s.push_back(sc[j][0]);
      fold(s);
    }
  }

  /// Shared-memory float index of warp w's partial of C(m, n), m and n inside the block's tile.
  Value* partial_at(Value* w, Value* m, Value* n) {
    Value* i = b_.CreateAdd(b_.CreateMul(b_.CreateAdd(b_.CreateMul(w, c32(16 * fm_)), m), c32((8 * fn_))), n);
    return b_.CreateShl(i, 2);
  }

  void body(std::int64_t grid_n) {
    auto* f32 = b_.getFloatTy();
    const std::int64_t n_acc = swap_ ? 4 : fm_ * fn_ * 4;
    auto* acc_ty = llvm::ArrayType::get(f32, static_cast<std::uint64_t>(n_acc));
    acc_ = b_.CreateAlloca(acc_ty, nullptr, "acc");
    part_ = b_.CreateAlloca(acc_ty, nullptr, "part");
    for (std::int64_t e = 0; e < n_acc; ++e) {
      b_.CreateStore(llvm::ConstantFP::get(f32, 0.0), acc_at(acc_, e));
      b_.CreateStore(llvm::ConstantFP::get(f32, 0.0), acc_at(part_, e));
    }
    scale_arg_ = has_bias() ? 4 : 3;
    tid_ = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
    lane_ = b_.CreateAnd(tid_, c32(31));
    // Warp (wn, wk) is warp wk·Wn + wn of the block: its columns, and its first K block.
    Value* warp = b_.CreateLShr(tid_, 5);
    Value* wn = b_.CreateURem(warp, c32(warps_n_));
    Value* wk = b_.CreateUDiv(warp, c32(warps_n_));
    quad_g_ = b_.CreateLShr(lane_, 2);
    quad_t_ = b_.CreateAnd(lane_, c32(3));
    c0_ = b_.CreateShl(quad_t_, 1);
    Value* bid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
    col_base_ = b_.CreateAdd(b_.CreateMul(b_.CreateURem(bid, c32(grid_n)), c32((8 * fn_) * warps_n_)),
                             b_.CreateMul(wn, c32((8 * fn_))));
    row_base_ = b_.CreateMul(b_.CreateUDiv(bid, c32(grid_n)), c32(16 * fm_));
    // The weights' L2 policy (createpolicy and ld's .L2::cache_hint need PTX ISA 7.4).
    policy_ = nullptr;
    if (hint_) {
      InlinePtx pol;
      pol.out('l');
      policy_ = pol.emit(b_, "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;", false);
    }
    // Byte offsets of this lane's 16 bytes in each n8 tile's chunk of block q; tiles past N read
    // the last tile (their results are not stored). 32 bits: verify proves B's element offsets
    // fit a signed 32-bit index (b_index_32bit), and the packed bytes are half as many.
    const std::int64_t tiles = p_.N / 8;
    std::vector<Value*> tile_base(fn_);
    for (std::int64_t j = 0; j < fn_; ++j) {
      Value* tile = b_.CreateAdd(b_.CreateUDiv(col_base_, c32(8)), c32(j));
      tile = b_.CreateSelect(b_.CreateICmpULT(tile, c32(tiles)), tile, c32(tiles - 1));
      tile_base[j] = b_.CreateAdd(b_.CreateMul(tile, c32(kb_ * 512)), b_.CreateMul(lane_, c32(16)));
    }
    // This lane's A rows (clamped into M) at its k offset 8t of every k32 step.
    a_row_.assign(static_cast<std::size_t>(2 * fm_), nullptr);
    for (std::int64_t i = 0; i < fm_; ++i)
      for (std::int64_t h = 0; h < 2; ++h) {
        if (a_row_empty(i, h)) continue;
        Value* row = b_.CreateAdd(row_base_, b_.CreateAdd(c32(16 * i + 8 * h), quad_g_));
        row = b_.CreateSelect(b_.CreateICmpULT(row, arg_m()), row, c32(p_.M - 1));
        Value* idx = b_.CreateAdd(b_.CreateMul(b_.CreateZExt(row, b_.getInt64Ty()), b_.getInt64(p_.index.lda)),
                                  b_.CreateZExt(b_.CreateShl(quad_t_, 3), b_.getInt64Ty()));
        a_row_[i * 2 + h] = b_.CreateGEP(b_.getInt16Ty(), arg(0), idx);
      }
    const std::int64_t groups_per_block = group_ > 0 ? 128 / group_ : 0;
    // One block's weights (and scales) as a flat list of registers: tile j's four words, then its
    // scale words.
    auto load_block = [&](Value* qv) {
      std::vector<Value*> flat;
      for (std::int64_t j = 0; j < fn_; ++j) {
        std::array<Value*, 4> w = load_weights(tile_base[j], b_.CreateMul(qv, c32(512)));
        flat.insert(flat.end(), w.begin(), w.end());
        for (std::int64_t h = 0; h < groups_per_block; ++h) {
          // Groups past K (the last block's padding) read group 0: their weights are zero.
          Value* gi = b_.CreateAdd(b_.CreateMul(qv, c32(groups_per_block)), c32(h));
          gi = b_.CreateSelect(b_.CreateICmpULT(gi, c32(p_.K / group_)), gi, c32(0));
          flat.push_back(load_scale(gi, j));
        }
      }
      return flat;
    };
    auto compute_flat = [&](const std::vector<Value*>& a, const std::vector<Value*>& flat) {
      std::vector<std::array<Value*, 4>> bw(fn_);
      std::vector<std::vector<Value*>> sc(fn_);
      std::size_t at = 0;
      for (std::int64_t j = 0; j < fn_; ++j) {
        for (int w = 0; w < 4; ++w) bw[j][w] = flat[at++];
        for (std::int64_t h = 0; h < groups_per_block; ++h) sc[j].push_back(flat[at++]);
      }
      compute_block(a, bw, sc);
    };
    auto clamp_block = [&](Value* qv) { return b_.CreateSelect(b_.CreateICmpULT(qv, c32(kb_)), qv, c32(kb_ - 1)); };
    // The K loop: warp w takes blocks w, w + W, ... < KB. S = stages slots of registers hold the
    // blocks in flight. Slot p of an iteration holds its block q0 + p·W; step r loads block
    // q0 + (r + S - 1)·W into slot r + S - 1, then multiplies slot r, so S - 1 blocks' loads are
    // in flight behind every multiply, and the next iteration starts with slots U.. of this one.
    // The loop is unrolled U = S times, so that every slot stays in its registers (no copies
    // around a ring) — except with groups of 32 and A's two row halves (M > 8), whose unrolled
    // steps do not fit the 128 registers of two blocks a SM: there U = 1 and the slots move.
    // Loads past the warp's last block read the last block again (from L2) and are not used; a
    // step past it multiplies nothing.
    const std::int64_t S = ahead_ + 1, U = group_ == 32 && !swap_ ? 1 : S;
    std::vector<std::vector<Value*>> slot0(static_cast<std::size_t>(S - 1));
    for (std::int64_t r = 0; r + 1 < S; ++r) slot0[r] = load_block(clamp_block(b_.CreateAdd(wk, c32(r * warps_))));
    // A one block ahead (a_ahead_): block q's fragments were loaded at the step before, so the
    // warp's wait for them overlaps the previous block's multiply.
    std::vector<Value*> a0;
    if (a_ahead_) a0 = load_a(wk);
    // Every warp has a whole number of iterations' blocks when KB is a multiple of U·W.
    const bool ragged = kb_ % (U * warps_) != 0;
    auto* pre = b_.GetInsertBlock();
    auto* head = llvm::BasicBlock::Create(ctx_, "k.loop", kernel_);
    auto* done = llvm::BasicBlock::Create(ctx_, "k.done", kernel_);
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    auto* q0 = b_.CreatePHI(b_.getInt32Ty(), 2, "q0");
    q0->addIncoming(wk, pre);
    std::vector<std::vector<Value*>> slot(static_cast<std::size_t>(U + S - 1));
    std::vector<std::vector<llvm::PHINode*>> slot_phi(static_cast<std::size_t>(S - 1));
    for (std::int64_t r = 0; r + 1 < S; ++r)
      for (Value* v : slot0[r]) {
        slot_phi[r].push_back(b_.CreatePHI(v->getType(), 2));
        slot_phi[r].back()->addIncoming(v, pre);
        slot[r].push_back(slot_phi[r].back());
      }
    std::vector<llvm::PHINode*> a_phi(a0.size(), nullptr);
    std::vector<Value*> a_cur;
    for (std::size_t i = 0; i < a0.size(); ++i) {
      if (llvm::isa<llvm::Constant>(a0[i])) {  // a row past M: zero in every block
        a_cur.push_back(a0[i]);
        continue;
      }
      a_phi[i] = b_.CreatePHI(b_.getInt32Ty(), 2);
      a_phi[i]->addIncoming(a0[i], pre);
      a_cur.push_back(a_phi[i]);
    }
    for (std::int64_t r = 0; r < U; ++r) {
      Value* qr = b_.CreateAdd(q0, c32(r * warps_));
      slot[r + S - 1] = load_block(clamp_block(b_.CreateAdd(q0, c32((r + S - 1) * warps_))));
      std::vector<Value*> a_use = a_cur;
      if (a_ahead_) a_cur = load_a(clamp_block(b_.CreateAdd(qr, c32(warps_))));
      const std::vector<Value*>& work = slot[r];
      emit_guarded(b_.CreateICmpULT(qr, c32(kb_)), ragged && r > 0,
                   [&] { compute_flat(a_ahead_ ? a_use : load_a(qr), work); });
    }
    Value* qn = b_.CreateAdd(q0, c32(U * warps_));
    auto* latch = b_.GetInsertBlock();
    q0->addIncoming(qn, latch);
    for (std::int64_t r = 0; r + 1 < S; ++r)
      for (std::size_t i = 0; i < slot_phi[r].size(); ++i) slot_phi[r][i]->addIncoming(slot[r + U][i], latch);
    for (std::size_t i = 0; i < a_phi.size(); ++i)
      if (a_phi[i] != nullptr) a_phi[i]->addIncoming(a_cur[i], latch);
    b_.CreateCondBr(b_.CreateICmpULT(qn, c32(kb_)), head, done);
    b_.SetInsertPoint(done);
    if (per_column_) {  // one group of all K, one scale per column
      std::vector<Value*> s;
      for (std::int64_t j = 0; j < fn_; ++j) s.push_back(load_scale(c32(0), j));
      fold(s);
    }
    // The warps' partial sums meet in shared memory, warp by warp (partial_at); tile (i, j) of
    // column group wn is summed over the Wk warps of the group and stored by its warp
    // wk = (i·fn + j) % Wk, in mma.sync's accumulator layout.
    for (std::int64_t e = 0; e < n_acc; ++e) {
      Value *m, *n;
      if (swap_) {  // accumulator e: C(2t + e % 2, 8·(e / 2) + g)
        m = b_.CreateAdd(c0_, c32(e % 2));
        n = b_.CreateAdd(quad_g_, c32(8 * (e / 2)));
      } else {  // acc_index(i, j, e'): C(16i + 8·(e' / 2) + g, 8j + 2t + e' % 2)
        const std::int64_t i = e / (fn_ * 4), j = e / 4 % fn_, ee = e % 4;
        m = b_.CreateAdd(quad_g_, c32(16 * i + 8 * (ee / 2)));
        n = b_.CreateAdd(c0_, c32(8 * j + ee % 2));
      }
      b_.CreateAlignedStore(b_.CreateLoad(f32, acc_at(acc_, e)), smem_ptr(partial_at(warp, m, n)), llvm::Align(4));
    }
    b_.CreateCall(intr(llvm::Intrinsic::nvvm_barrier0));
    for (std::int64_t i = 0; i < fm_; ++i)
      for (std::int64_t j = 0; j < fn_; ++j) {
        const std::int64_t owner = (i * fn_ + j) % warps_;
        emit_guarded(b_.CreateICmpEQ(wk, c32(owner)), warps_ > 1, [&] {
          for (std::int64_t h = 0; h < 2; ++h) {
            if (a_row_empty(i, h)) continue;  // rows past M: no partial was written
            Value* m = b_.CreateAdd(quad_g_, c32(16 * i + 8 * h));
            std::array<Value*, 2> sum{};
            for (std::int64_t e = 0; e < 2; ++e) {
              Value* n = b_.CreateAdd(c0_, c32(8 * j + e));
              for (std::int64_t w = 0; w < warps_; ++w) {
                Value* at = partial_at(b_.CreateAdd(c32(w * warps_n_), wn), m, n);
                Value* v = b_.CreateAlignedLoad(f32, smem_ptr(at), llvm::Align(4));
                sum[e] = sum[e] ? b_.CreateFAdd(sum[e], v) : v;
              }
            }
            store_pair(b_.CreateAdd(row_base_, m), b_.CreateAdd(col_base_, b_.CreateAdd(c0_, c32(8 * j))), sum[0],
                       sum[1]);
          }
        });
      }
    b_.CreateRetVoid();
  }

  std::int64_t kb_ = 1, fm_ = 1, fn_ = 2, warps_ = 1, warps_n_ = 1, group_ = 0, ahead_ = 1;  // warps_: Wk
  unsigned scale_arg_ = 3;
  bool a_ahead_ = false, swap_ = false, hint_ = false, bf16_ = false, per_column_ = false, e2m1_ = false;
  llvm::AllocaInst *acc_ = nullptr, *part_ = nullptr;
  std::vector<Value*> a_row_;  // this lane's A row pointers, [i][h] (load_a)
  Value *policy_ = nullptr, *quad_g_ = nullptr, *quad_t_ = nullptr, *c0_ = nullptr;
};

}  // namespace

LaunchInfo build_w4a16(const Plan& plan, const hw::HwModel& hw, llvm::LLVMContext& ctx, llvm::Module& m,
                       const std::string& name) {
  return W4a16Kernel(plan, hw, ctx, m).build(name);
}

std::string w4a16_unsupported(const Plan& p, const hw::HwModel& hw) {
  if (p.b_type != "int4" && p.b_type != "u4" && p.b_type != "int4_e2m1")
    return fmt::format("weight {} is not generated yet (int4, u4 and int4_e2m1 only)", p.b_type);
  if (p.a_type != "fp16" && p.a_type != "bf16") return "4-bit weights are converted to fp16 or bf16 activations only";
  if (p.acc_type != "fp32") return "4-bit weights accumulate in fp32";
  if (p.family != hw::Family::MmaSync) return "4-bit weights are generated on the mma.sync family only";
  // The schedule w4_schedule (solve/space.h) gives, as a plan read back may carry another.
  const bool wn_ok = p.warp_n == 1 || p.warp_n == 2 || p.warp_n == 4 || p.warp_n == 8;
  const std::int64_t warp_cols = p.tile_n / std::max<std::int64_t>(1, p.warp_n);
  if (!wn_ok || p.tile_n % p.warp_n != 0 || (warp_cols != 16 && (warp_cols != 32 || p.M <= 8)) || p.tile_k != 128 ||
      (p.tile_m != 16 && p.tile_m != 32) || p.k_warps < 1 || p.k_warps > 8 || p.k_warps * p.warp_n > 16 ||
      p.stages < 2 || p.stages > 4 || p.warp_m != 1 || (p.warp_n > 1 && p.M <= 8) || p.split_k != 1 ||
      (p.blocks_per_sm != 1 && p.blocks_per_sm != 2))
    return fmt::format(
        "the plan's schedule {}×{}×{} ({}×{} warps, {} splitting K, {} stages, {} blocks per SM) is not one the "
        "4-bit weight kernel builds: tile_m 16 or 32, tile_n 16 per warp along N (or 32 above M = 8; 1, 2, 4 or 8 "
        "warps, 1 at M <= 8), tile_k 128, one warp along M, 1 to 8 warps splitting K (16 warps at most), 2 to 4 "
        "stages, 1 or 2 "
        "blocks per SM",
        p.tile_m, p.tile_n, p.tile_k, p.warp_m, p.warp_n, p.k_warps, p.stages, p.blocks_per_sm);
  if (!hw.gpu.has_cp_async) return fmt::format("{} (no sm_80 instructions) has no 4-bit weight kernel", hw.name);
  if (p.N % 8 != 0 || p.K % 32 != 0) return "4-bit weights need N a multiple of 8 and K of 32";
  if (p.batch != 1 || p.k_dynamic) return "4-bit weights: no batches and no run-time K";
  if (!p.index.a_row_major || !p.index.c_row_major) return "4-bit weights: row-major A and C only";
  if (p.scale_a != "none" || p.scale_b == "per_tensor") return "4-bit weights take group scales on B only";
  if (p.c_type != "fp16" && p.c_type != "bf16" && p.c_type != "fp32") return "outputs are fp16, bf16 or fp32";
  const std::int64_t g = group_size(p);
  if (g > 0 && g != p.K && (g > 128 || 128 % g != 0 || p.K % g != 0))
    return fmt::format("group size {} (32, 64, 128 or per_column, dividing K)", g);
  return "";
}

}  // namespace dg::codegen
