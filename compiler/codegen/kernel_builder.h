// What every GEMM kernel family shares: the kernel signature (A, B, C, M, N, K), the dynamic
// shared-memory buffer, rasterized block order, the cp.async loader of operand tiles with
// zero-filled tails, the K loop, and the predicated store of accumulator pairs. A family
// (mma_sync.cpp, wgmma.cpp) derives from KernelBuilder and writes its own main loop and fragment
// mapping; the offsets it uses come from the plan's index description, the one verify proved.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <functional>
#include <string>

#include "codegen/ptx_backend.h"
#include "plan/plan.h"

namespace dg::codegen {

/// Coefficient of `var` in an affine map (0 when absent).
std::int64_t coeff(const AffineMap& m, const std::string& var);
/// Extent of the index variable `name` (1 when absent).
std::int64_t extent(const std::vector<IndexVar>& vars, const std::string& name);

/// An element's bytes for a type of whole bytes (sema/dtype.h holds the widths; a plan holds only
/// types sema parsed).
std::int64_t element_bytes(const std::string& type);
/// An operand type's width in bits (4 for the packed 4-bit types).
std::int64_t element_bits(const std::string& type);

class KernelBuilder {
 public:
  KernelBuilder(const Plan& p, llvm::LLVMContext& ctx, llvm::Module& m) : p_(p), ctx_(ctx), m_(m), b_(ctx) {}
  virtual ~KernelBuilder() = default;

 protected:
  using Value = llvm::Value;

  /// Declare the kernel `name` (A, B, C global pointers, then the epilogue's operands and, with
  /// `workspace`, the workspace's; M, N, K; then `tensor_maps` tensor maps by value, for A and
  /// then B), its launch annotations and the dynamic shared-memory buffer (aligned to
  /// `smem_align` bytes), and position the builder at its entry block.
  void begin_kernel(const std::string& name, std::int64_t threads, std::int64_t min_blocks, std::uint64_t smem_align,
                    unsigned tensor_maps = 0, bool workspace = false);
  /// The workspace pointer (begin_kernel with `workspace`): the last pointer parameter.
  Value* arg_workspace() { return kernel_->getArg(pointers_ - 1); }
  /// The generic address of tensor map i (0: A's, 1: B's), a kernel parameter kept in the
  /// parameter space (grid_constant), as cp.async.bulk.tensor takes it.
  Value* tensor_map(unsigned i) { return b_.CreatePtrToInt(kernel_->getArg(pointers_ + 3 + i), b_.getInt64Ty()); }

  Value* c32(std::int64_t v) { return b_.getInt32(static_cast<std::uint32_t>(v)); }
  Value* sreg(llvm::Intrinsic::ID id) { return b_.CreateCall(llvm::Intrinsic::getDeclaration(&m_, id)); }
  llvm::Function* intr(llvm::Intrinsic::ID id) { return llvm::Intrinsic::getDeclaration(&m_, id); }
  /// Operand pointer i; for A, B and C of a batched GEMM, already advanced to this block's batch
  /// (blockIdx.y).
  Value* arg(unsigned i) { return i < 3 && batched_[i] != nullptr ? batched_[i] : kernel_->getArg(i); }
  /// The problem's sizes, after the operand pointers (A, B, C and, with a bias epilogue, bias).
  Value* arg_m() { return kernel_->getArg(pointers_ + 0); }
  Value* arg_n() { return kernel_->getArg(pointers_ + 1); }
  Value* arg_k() { return kernel_->getArg(pointers_ + 2); }
  /// True when the plan's epilogue adds the per-column `bias` operand first.
  bool has_bias() const { return p_.epilogue.rfind("bias", 0) == 0; }
  Value* smem_ptr(Value* byte_offset) { return b_.CreateGEP(b_.getInt8Ty(), smem_, byte_offset); }

  /// The launch shape of the kernel begun: a 1-D grid of every block, threads_ per block.
  LaunchInfo launch_info(const std::string& name, std::int64_t smem_bytes) const {
    LaunchInfo li;
    li.kernel = name;
    li.grid[0] = static_cast<std::uint32_t>(grid_m_ * grid_n_);
    li.grid[1] = static_cast<std::uint32_t>(p_.batch);  // one batch per grid row
    li.block[0] = static_cast<std::uint32_t>(threads_);
    li.smem_bytes = static_cast<std::uint32_t>(smem_bytes);
    return li;
  }

  /// Rasterized block order: groups of raster_group block rows, column by column within a group.
  /// Sets row_base_ and col_base_ (first C row and column of this block) through the plan's
  /// block_m and block_n coefficients.
  void block_origin();
  /// The same for output tile `id` (a persistent block's current tile) instead of blockIdx.x.
  void block_origin(Value* id);

  /// Byte offset of (row, 16-byte chunk) in a tile of `pitch`-byte rows through the plan's layout:
  /// the XOR swizzle of `swizzle_bits` bits ([7, 7+b) into [4, 4+b) of the offset), the same
  /// function the solver counted bank conflicts on and the verifier proved conflict-free.
  Value* smem_offset(Value* row, Value* chunk, std::int64_t pitch, int swizzle_bits);

  /// Maps (row, 16-byte chunk) of an operand tile to its byte offset inside the stage.
  using TileOffset = std::function<Value*(Value* row, Value* chunk)>;

  /// cp.async copies of one operand tile stored row by row in global memory (`rows` × `cols`
  /// elements of `elem_bytes` each, 16 / elem_bytes per 16-byte chunk) from global rows
  /// [row0, row0 + rows) and columns [col0, col0 + cols) into shared memory at
  /// `base` + offset(row, chunk); chunks outside the matrix (row >= row_limit or col >= col_limit)
  /// or of a tile past the last (`valid_tile` false) are zero-filled. A column-major operand is
  /// passed as its transpose.
  void load_operand(Value* global, Value* base, std::int64_t rows, std::int64_t cols, const TileOffset& offset,
                    Value* row0, Value* col0, Value* row_limit, Value* col_limit, Value* ld, Value* valid_tile,
                    std::int64_t elem_bytes);

  /// The leading dimensions of A and B: the plan's, or, with a run-time K, the kernel's K for the
  /// operand whose rows run along K (a row-major A, a column-major B: packed at any K).
  Value* lda() { return p_.k_dynamic && p_.index.a_row_major ? arg_k() : c32(p_.index.lda); }
  Value* ldb() { return p_.k_dynamic && !p_.index.b_row_major ? arg_k() : c32(p_.index.ldb); }
  /// K tiles of `tile_k`: the plan's count, or ceil(K / tile_k) of the run-time K.
  Value* k_tile_count(std::int64_t tile_k, std::int64_t planned) {
    if (!p_.k_dynamic) return c32(planned);
    return b_.CreateUDiv(b_.CreateAdd(arg_k(), c32(tile_k - 1)), c32(tile_k));
  }

  /// Where one pipeline stage of A and B tiles lives in shared memory (mma.sync and SIMT
  /// families): every A stage first, then every B stage; rows of `a_pitch` / `b_pitch` bytes
  /// through the plan's swizzle.
  struct StageLayout {
    std::int64_t bm = 0, bn = 0, bk = 0, a_pitch = 0, b_pitch = 0, a_stage = 0, b_stage = 0, stages = 1;
    std::int64_t elem_bytes = 2;
    int swizzle_bits = 0;
    /// 4-bit A and B (two k to a byte, K even): K's columns are copied as bytes, K/2 of them.
    bool k_packed = false;
  };
  /// Issue and commit the cp.async copies of K tile `kt` (A: tile_m × tile_k; B: tile_k × tile_n,
  /// or its transpose when column-major) into `stage`; tails and tiles past the last
  /// (`valid` false) are zero-filled.
  void load_stage(const StageLayout& t, Value* stage, Value* kt, Value* valid);

  /// The cp.async main loop of the mma.sync and SIMT families over `tiles` K tiles:
  /// `load(stage, kt, valid)` issues (and commits) the copies of K tile kt into a stage,
  /// `compute(stage)` consumes one. With one stage each tile is loaded, waited for and consumed
  /// between barriers; with more, stages - 1 tiles are in flight while one is consumed.
  void cp_async_main_loop(std::int64_t stages, Value* tiles, const std::function<void(Value*, Value*, Value*)>& load,
                          const std::function<void(Value*)>& compute);

  /// `f` inside `if (cond)` when `needed`, else unconditionally.
  void emit_guarded(Value* cond, bool needed, const std::function<void()>& f);

  /// for (kt = 0; kt < count; ++kt) body(kt) — count >= 1.
  void loop(Value* count, const std::function<void(Value*)>& body);

  /// Store C(gm, gn) = v0 and C(gm, gn + 1) = v1, cast to the output type, when gm < M and gn < N
  /// (N is a multiple of 8, so the pair is in bounds together). Values are f32, or i32 for an
  /// int32 output. `bias` and `c_in`: their pairs where the caller loaded them ahead.
  void store_pair(Value* gm, Value* gn, Value* v0, Value* v1, const std::pair<Value*, Value*>* bias = nullptr,
                  const std::pair<Value*, Value*>* c_in = nullptr);
  /// store_pair's values: the fused epilogue applied to (v0, v1) in fp32 (float accumulators; i32
  /// pass through), then packed in C's type: one i32 for a 16-bit pair, else a <2 x f32|i32> vector.
  Value* finished_pair(Value* gm, Value* gn, Value* v0, Value* v1, const std::pair<Value*, Value*>* bias = nullptr,
                       const std::pair<Value*, Value*>* c_in = nullptr);
  /// finished_pair's two steps: the fused epilogue (fp32 in, fp32 out; i32 pass through) ...
  std::pair<Value*, Value*> epilogue_pair(Value* gm, Value* gn, Value* v0, Value* v1,
                                          const std::pair<Value*, Value*>* bias, const std::pair<Value*, Value*>* c_in);
  /// ... and the pair packed in C's type.
  Value* packed_pair(Value* v0, Value* v1);
  /// Split K's workspace (launch_format.h's): the output tiles' 32-bit arrival counters, padded to
  /// 256 bytes, then `split` fp32 partial tiles (slots) of tile_m × tile_n per output tile.
  struct SplitWorkspace {
    std::int64_t tiles = 0, split = 1, tile_m = 0, tile_n = 0;
    std::uint64_t counter_bytes() const { return static_cast<std::uint64_t>((tiles * 4 + 255) / 256 * 256); }
    std::uint64_t slot_bytes() const { return static_cast<std::uint64_t>(tile_m * tile_n * 4); }
    std::uint64_t bytes() const { return counter_bytes() + static_cast<std::uint64_t>(tiles * split) * slot_bytes(); }
  };
  /// Split K: the address in workspace `ws` of thread `tid`'s 16 bytes of step c in slot `slot`
  /// (i64) of tile `tile_id`; a step is `threads` × 16 bytes.
  std::function<Value*(Value* slot, std::int64_t c)> split_slot_at(const SplitWorkspace& w, Value* ws, Value* tile_id,
                                                                   Value* tid, std::int64_t threads);
  /// Split K: thread 0 of the block counts its arrival on tile `tile_id`'s counter (32-bit word
  /// tile_id of the workspace `ws`, acq_rel at the GPU scope); the last of `split` arrivals resets
  /// it to 0 for the next launch. Barrier `barrier` over `threads` threads gives every thread the
  /// answer: nonzero in the tile's last block. The caller fences its partial-tile stores first.
  Value* count_split_arrival(Value* ws, Value* tile_id, Value* tid, std::int64_t split, int barrier,
                             std::int64_t threads);
  /// True when the epilogue adds beta · C_in.
  bool reads_c_in() const { return p_.reads_c_in(); }
  /// The bias of columns gn and gn + 1 (gn even; clamped into [0, N - 2] for the tail), in fp32:
  /// one aligned load of the pair. A caller that stores several rows of the same columns loads
  /// them once, ahead of the stores, and passes them to store_pair.
  std::pair<Value*, Value*> load_bias_pair(Value* gn);
  /// The pair of C_in (beta ≠ 0) at row gm, columns gn and gn + 1, widened to fp32.
  std::pair<Value*, Value*> load_c_in_pair(Value* gm, Value* gn);
  /// Store a warp's fm × fn m16n8 accumulator fragments (mma.sync's layout, which the SIMT family
  /// keeps): this lane holds rows lane/4 and lane/4 + 8 and columns 2·(lane%4) and the next of each
  /// 16×8 fragment, the warp's fragments starting at (warp_row, warp_col) of the block tile;
  /// `acc(e)` loads accumulator e, four per fragment.
  void store_m16n8_fragments(Value* warp_row, Value* warp_col, std::int64_t fm, std::int64_t fn,
                             const std::function<Value*(std::int64_t)>& acc);
  /// The plan's elementwise epilogue on an fp32 accumulator: relu, gelu (erf), gelu_tanh, silu.
  Value* activate(Value* x);
  unsigned pointers_ = 3;   // operand pointer parameters: A, B, C (and bias, sc_a, sc_b)
  Value* scale_ = nullptr;  // scale_a · scale_b (fp32) with per-tensor scales, else null
  Value* batched_[3] = {};  // A, B, C advanced to this block's batch (batch > 1), else null
  Value* c_in_ = nullptr;   // beta ≠ 0: C_in, advanced to this block's batch

  const Plan& p_;
  // store_pair packs an fp16 pair with one cvt.rn.f16x2.f32 (sm_80 and later; Volta's kernel
  // clears it).
  bool pack_f16x2_ = true;
  llvm::LLVMContext& ctx_;
  llvm::Module& m_;
  llvm::IRBuilder<> b_;
  llvm::Function* kernel_ = nullptr;
  llvm::GlobalVariable* smem_ = nullptr;
  Value *tid_ = nullptr, *lane_ = nullptr, *row_base_ = nullptr, *col_base_ = nullptr;
  std::int64_t threads_ = 32, grid_m_ = 1, grid_n_ = 1;
};

}  // namespace dg::codegen
