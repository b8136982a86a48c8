#!/usr/bin/env bash
# Compile the benchmark and GPU-check modules on the build host, into DIR (default carry/modules):
#   bench_<type>_<M>x<N>x<K>.ko  the benchmark table (issue targets: square, and M × (N, K) pairs)
#   check_<type>_<M>x<N>x<K>.ko  odd shapes for the correctness checks (tests/gpu), also per family
#   family_mma_<type>_...ko      the mma.sync family on the large shapes (family comparison)
#   explore_<n>_...ko            forced wgmma schedules of 4096^3 (schedule exploration)
#   epilogue_<type>_..._<op>.ko  4096^3 with each fused epilogue (op_type) and without
#   int8_MxNxK.ko             int8 x int8 -> int32 GEMMs (B column-major) for the int8 benchmark
#   fp8_<a>_<c>_MxNxK.ko      fp8 x fp8 GEMMs (B column-major) for the fp8 benchmark
#   batch_<type>_MxNxK_b<n>.ko strided batched GEMMs for the batch benchmark
#   tma_<loader>_<type>_MxNxK.ko the wgmma family with each loader forced (cp_async, tma, and pers:
#                             TMA with the persistent tile loop)
#   oddk_<type>_MxNxK.ko      a K whose rows are not whole 16-byte chunks (pad_k), beside K + 1
#   check_splitk_*.ko, splitk_<how>_<type>_MxNxK.ko  split K on the TMA kernel (split_k): checks
#                             with K tails (K not a multiple of tile_k · split_k), each input type, a
#                             fused epilogue, scales; the benchmark with the solver's split (auto)
#                             and with split_k 1 forced (off), same loader
#   check_w4_*.ko, w4_<type>_g128_MxNxK.ko  4-bit weights (W4A16): checks with tails and each
#                             scale grouping, and the benchmark against cuBLAS fp16 of the same shape
#   check_w4w_*.ko, w4f*_fp16_g128_MxNxK.ko  4-bit weights on wgmma (the TMA kernel's producer
#                             converts them): checks, and the benchmark picked, mma.sync, wgmma
#   weak_<type>_MxNxK.ko      the classes the table holds least of: M = 256, K = 512 and 1024 at
#                             M = N = 4096 and 8192, N = 576 and 2112 at K = 7168
#   check_i4_*.ko             int4 × int4 and u4 × u4 → int32 (Ampere's mma.sync m16n8k64): checks
#   check_fp8bs_*.ko, fp8bs_<a>_MxNxK.ko  fp8 with fine-grained scales (A group_128, B block_128):
#                             checks (tails, e5m2, split K with an epilogue, the persistent loop,
#                             a run-time K, an fp32 C) and the benchmark, beside per-tensor fp8
#                             (fp8pt_*.ko) of the same shapes, and on 128×128 tiles (fp8pt128_*.ko)
# usage: bench/make_gpu_modules.sh [DIR] [all|bench|weak|fp8|fp8bs|tma|oddk|w4|w4w|i4|splitk|epilogue|simt|residual]
#   (bench: only the benchmark table; weak: only the weak classes; fp8: only the fp8, scales and
#   batch modules; tma: only the TMA loader's checks and benchmark
#   (the split-K checks included); splitk: only the split-K checks and benchmark;
#   oddk: only the odd-K checks and benchmark; w4: only the 4-bit weight checks and benchmark;
#   w4w: only the 4-bit weights on wgmma; i4: only the int4 × int4 checks; fp8bs: only the
#   fine-grained fp8 scales' checks and benchmark;
#   epilogue: only the fused epilogues' checks and benchmark; simt: only the fp16-accumulation
#   (fp16_fma) and split-K SIMT checks and benchmark; residual: alpha and beta with a C input)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${DEEPGEMM:-build/ci/compiler/driver/deepgemm}
dir=${1:-carry/modules}
what=${2:-all}
mkdir -p "$dir"
spec() {  # type M N K out [extra constraints] [scales] [batch]
  cat > "$dir/.spec.dgml" <<SPEC
target hopper;
precision { activation: $1; weight: $1; output: $1; }
shape { M: $2; N: $3; K: $4; batch: ${8:-1}; }
scales { ${7:-} }
constraints { cast_output: $1; ${6:-} }
SPEC
  "$bin" compile "$dir/.spec.dgml" -o "$dir/$5" --force-rebuild 2>&1 | grep -v "^\s*$" | grep -E "error|warning" | sed "s|^|$5: |" || true
}
# The benchmark table: fp16 and bf16, square and M x (N, K) pairs (subset "bench" builds it alone).
bench_modules() {
  for t in fp16 bf16; do
    for s in 2048 4096 8192; do spec $t $s $s $s "bench_${t}_${s}x${s}x${s}.ko"; done
    for m in 1 16 64 128 4096; do
      for nk in "4096 4096" "14336 4096" "4096 14336" "7168 2048" "24576 1536"; do
        set -- $nk
        spec $t $m $1 $2 "bench_${t}_${m}x${1}x${2}.ko"
      done
    done
  done
}
# The classes the benchmark table holds least of, each its own table (weak_<type>_MxNxK.ko): M =
# 256 on the table's (N, K) pairs, a small K (512, 1024) at M = N = 4096 and 8192, and a narrow N
# (576, 2112) at M = 4096, K = 7168.
weak_modules() {
  for t in fp16 bf16; do
    for nk in "4096 4096" "14336 4096" "4096 14336" "7168 2048" "24576 1536"; do
      set -- $nk
      spec $t 256 $1 $2 "weak_${t}_256x${1}x${2}.ko"
    done
    for s in 4096 8192; do
      for k in 512 1024; do spec $t $s $s $k "weak_${t}_${s}x${s}x${k}.ko"; done
    done
    for n in 576 2112; do spec $t 4096 $n 7168 "weak_${t}_4096x${n}x7168.ko"; done
  done
}
if [ "$what" = weak ]; then
  weak_modules
  rm -f "$dir/.spec.dgml"
  ls "$dir" | wc -l
  exit 0
fi
if [ "$what" = bench ]; then
  bench_modules
  rm -f "$dir/.spec.dgml"
  ls "$dir" | wc -l
  exit 0
fi
spec_fp8() {  # A-type B-type C-type M N K out [extra constraints] [scales] [batch]: fp8 on wgmma, B column-major
  cat > "$dir/.spec.dgml" <<SPEC
target hopper;
precision { activation: $1; weight: $2; output: $3; }
shape { M: $4; N: $5; K: $6; batch: ${10:-1}; }
layout { B: col_major; }
scales { ${9:-} }
constraints { cast_output: $3; ${8:-} }
SPEC
  "$bin" compile "$dir/.spec.dgml" -o "$dir/$7" --force-rebuild 2>&1 | grep -v "^\s*$" | grep -E "error|warning" | sed "s|^|$7: |" || true
}
spec_b_col() {  # type M N K out [extra constraints] [batch]: B column-major (K-major); int8 writes int32
  local out=$1
  [ "$1" = int8 ] && out=int32
  cat > "$dir/.spec.dgml" <<SPEC
target hopper;
precision { activation: $1; weight: $1; output: $out; }
shape { M: $2; N: $3; K: $4; batch: ${7:-1}; }
layout { B: col_major; }
constraints { ${6:-} }
SPEC
  "$bin" compile "$dir/.spec.dgml" -o "$dir/$5" --force-rebuild 2>&1 | grep -v "^\s*$" | grep -E "error|warning" | sed "s|^|$5: |" || true
}
spec_kr() {  # A/B-type C-type M N K_min K_max out [extra constraints] [layout]
  cat > "$dir/.spec.dgml" <<SPEC
target hopper;
precision { activation: $1; weight: $1; output: $2; }
shape { M: $3; N: $4; K_min: $5; K_max: $6; }
layout { ${9:-} }
constraints { ${8:-} }
SPEC
  "$bin" compile "$dir/.spec.dgml" -o "$dir/$7" --force-rebuild 2>&1 | grep -v "^\s*$" | grep -E "error|warning" | sed "s|^|$7: |" || true
}
# Split K (split_k: each tile's K split over blocks, partials in the workspace, the last block
# sums them in split order and runs the epilogue): K tails (K not a multiple of tile_k · split_k,
# a last split shorter than the others), M and N tails, each tile shape, B column-major, fp16,
# bf16, int8 (exact against int64), fp8, a bias + GELU epilogue, per-tensor scales, and the
# solver's own split at a benchmark shape (exact on small integers: every check without an
# epilogue).
splitk_checks() {
  for t in fp16 bf16; do
    spec $t 200 520 1000 "check_splitk3_${t}_200x520x1000.ko" "split_k: 3; pad_k: true;"
    spec $t 127 4104 1544 "check_splitk4_${t}_127x4104x1544.ko" "split_k: 4; pad_k: true;"
    spec $t 200 136 1000 "check_splitk6_tma64x64_${t}_200x136x1000.ko" "split_k: 6; pad_k: true; tile_m == 64; tile_n == 64;"
    spec $t 1000 776 1008 "check_splitk2_tma256x128_${t}_1000x776x1008.ko" "split_k: 2; tile_m == 256; tile_n == 128;"
    spec_b_col $t 1000 776 1008 "check_splitk2_${t}_bcol_1000x776x1008.ko" "split_k: 2;"
    spec $t 333 520 1000 "check_splitk3_${t}_bias_gelu_333x520x1000.ko" "split_k: 3; op_type: bias_gelu; pad_k: true;"
    spec $t 1000 776 1008 "check_splitk2_${t}_scales_1000x776x1008.ko" "split_k: 2;" "A: per_tensor; B: per_tensor;"
  done
  spec bf16 128 4096 14336 "check_splitk_auto_bf16_128x4096x14336.ko"
  spec_b_col int8 129 520 4112 "check_splitk5_int8_bcol_129x520x4112.ko" "split_k: 5; pad_k: true;"
  spec_b_col int8 256 1024 8192 "check_splitk4_int8_bcol_256x1024x8192.ko" "split_k: 4;"
  spec_fp8 fp8_e4m3 fp8_e4m3 bf16 1000 776 1024 "check_splitk2_fp8_e4m3_bf16_1000x776x1024.ko" "split_k: 2;"
}
# The benchmark: the solver's split (auto) against split_k 1 forced (off), both on the TMA loader,
# at the short-and-deep shapes split K is for, and 4096^3, where it must not split.
splitk_bench() {
  for how in auto off; do
    c="loader: tma;"
    [ $how = off ] && c="loader: tma; split_k: 1;"
    for mnk in "128 4096 14336" "128 14336 4096" "64 4096 14336" "256 4096 8192" "4096 4096 4096"; do
      set -- $mnk
      spec bf16 $1 $2 $3 "splitk_${how}_bf16_${1}x${2}x${3}.ko" "$c"
    done
  done
}
spec_simt() {  # A/B-type C-type M N K out [constraints] [layout] [shape extra]; $ACC: accumulate (fp32)
  cat > "$dir/.spec.dgml" <<SPEC
target hopper;
precision { activation: $1; weight: $1; output: $2; accumulate: ${ACC:-fp32}; }
shape { M: $3; N: $4; K: $5; ${9:-} }
layout { ${8:-} }
constraints { ${7:-} }
SPEC
  "$bin" compile "$dir/.spec.dgml" -o "$dir/$6" --force-rebuild 2>&1 | grep -v "^\s*$" | grep -E "error|warning" || true
}
# fp16 accumulation on CUDA cores (fp16_fma: packed fma.rn.f16x2): K within 512, so that the
# small-integer sums stay exact in fp16; B row-major (one 4-byte pair load) and column-major.
fp16fma_modules() {
  ACC=fp16 spec_simt fp16 fp16 1000 776 512 "check_simt_fp16fma_1000x776x512.ko" "fp16_fma: true;"
  ACC=fp16 spec_simt fp16 fp16 333 520 72 "check_simt_fp16fma_bcol_333x520x72.ko" "fp16_fma: true; pad_k: true;" "B: col_major;"
  ACC=fp16 spec_simt fp16 fp16 129 264 200 "check_simt_fp16fma_gelu_129x264x200.ko" "fp16_fma: true; op_type: bias_gelu;"
  ACC=fp16 spec_simt fp16 fp16 16 4096 4096 "simt_fp16fma_16x4096x4096.ko" "fp16_fma: true;"
  ACC=fp16 spec_simt fp16 fp16 1 128 4096 "simt_fp16fma_1x128x4096.ko" "fp16_fma: true;"
  # Beside them, the same fp16 inputs accumulated in fp32 on CUDA cores (use_hmma: false).
  spec_simt fp16 fp16 16 4096 4096 "simt_fp16acc32_16x4096x4096.ko" "use_hmma: false; cast_output: fp16;"
}
# Split K on the SIMT kernel: the solver's split at 1 x 128 x 4096 (checked, and benchmarked
# beside split_k 1 forced), a forced split of 5 with M, N and K tails and B column-major, and fp16
# accumulation split 4 with bias + GELU (K 512: small-integer sums stay exact in fp16).
simt_split_modules() {
  spec_simt fp32 fp32 1 128 4096 "check_simt_fp32_1x128x4096.ko"
  spec_simt fp32 fp32 333 520 1000 "check_simt_fp32_split5_bcol_333x520x1000.ko" "split_k: 5;" "B: col_major;"
  ACC=fp16 spec_simt fp16 fp16 129 264 512 "check_simt_fp16fma_split4_gelu_129x264x512.ko" "fp16_fma: true; split_k: 4; op_type: bias_gelu;"
  spec_simt fp32 fp32 1 128 4096 "simt_fp32_nosplit_1x128x4096.ko" "split_k: 1;"
  ACC=fp16 spec_simt fp16 fp16 1 128 4096 "simt_fp16fma_nosplit_1x128x4096.ko" "fp16_fma: true; split_k: 1;"
  spec_simt fp32 fp32 1 4096 4096 "simt_fp32_1x4096x4096.ko"
}
if [ "$what" = simt ]; then
  fp16fma_modules
  simt_split_modules
  spec_simt fp32 fp32 1 128 4096 "simt_fp32_1x128x4096.ko"
  rm -f "$dir/.spec.dgml"
  ls "$dir" | wc -l
  exit 0
fi
spec_w4() {  # A-type C-type M N K scales out [constraints] [target] [weight]
  cat > "$dir/.spec.dgml" <<SPEC
target ${9:-hopper};
precision { activation: $1; weight: ${10:-int4}; output: $2; }
shape { M: $3; N: $4; K: $5; }
scales { $6 }
constraints { ${8:-} }
SPEC
  "$bin" compile "$dir/.spec.dgml" -o "$dir/$7" --force-rebuild 2>&1 | grep -v "^\s*$" | grep -E "error|warning" | sed "s|^|$7: |" || true
}
# alpha and beta with a C input (C_in): checks on each family (mma.sync batched with bias + ReLU,
# wgmma with the TMA loader and bias + GELU, its split K, SIMT fp32 split K and fp16 sums, 4-bit
# weights, fp8), exact
# where alpha and beta are powers of two and there is no bias; and 4096^3 with C += A·B (beta 1,
# C_in bound to C itself) beside cuBLAS computing the same with beta 1, and the plain GEMM.
residual_modules() {
  spec fp16 333 520 72 "check_res_mma_batch_bias_relu_333x520x72.ko" "family: mma_sync; pad_k: true; op_type: bias_relu; beta: 0.5;" "" 3
  spec bf16 333 520 72 "check_res_mma_333x520x72.ko" "family: mma_sync; pad_k: true; alpha: 2; beta: -1;"
  spec fp16 200 264 512 "check_res_tma_bias_gelu_200x264x512.ko" "family: wgmma; loader: tma; op_type: bias_gelu; alpha: 0.5; beta: 2;"
  spec fp16 200 264 512 "check_res_tma_200x264x512.ko" "family: wgmma; loader: tma; alpha: 0.5; beta: 2;"
  spec bf16 128 256 4096 "check_res_tma_split4_128x256x4096.ko" "family: wgmma; loader: tma; split_k: 4; beta: 1;"
  spec fp16 1000 776 1008 "check_res_fp16_1000x776x1008.ko" "beta: 1;"
  spec_simt fp32 fp32 1 128 4096 "check_res_simt_fp32_1x128x4096.ko" "alpha: 2; beta: -1;"
  ACC=fp16 spec_simt fp16 fp16 129 264 512 "check_res_simt_fp16fma_129x264x512.ko" "fp16_fma: true; beta: 1;"
  spec_w4 fp16 fp16 13 1000 4128 "B: group_32;" "check_res_w4_fp16_g32_13x1000x4128.ko" "cast_output: fp16; beta: 0.5;"
  spec_w4 bf16 bf16 77 1048 2112 "B: group_64;" "check_res_w4_bf16_g64_77x1048x2112.ko" "cast_output: bf16; alpha: 2; beta: 1;"
  spec_fp8 fp8_e4m3 fp8_e4m3 fp16 1000 776 1024 "check_res_fp8_e4m3_fp16_1000x776x1024.ko" "alpha: 0.5; beta: 1;"
  spec_fp8 fp8_e4m3 fp8_e4m3 bf16 333 520 4112 "check_res_fp8_bias_relu_bf16_333x520x4112.ko" "pad_k: true; op_type: bias_relu; beta: -2;"
  for t in fp16 bf16; do
    spec $t 4096 4096 4096 "epilogue_${t}_4096x4096x4096_residual.ko" "beta: 1;"
    spec $t 4096 4096 4096 "epilogue_${t}_4096x4096x4096_none.ko"
  done
}
if [ "$what" = residual ]; then
  residual_modules
  rm -f "$dir/.spec.dgml"
  ls "$dir" | wc -l
  exit 0
fi
# Fused epilogues alone: each op's checks on both families and on the solver's choice, and 4096^3
# with each op and without, for the cost of the fusion against cuBLAS + a separate pass and
# cuBLASLt's fused epilogue.
if [ "$what" = epilogue ]; then
  for op in relu gelu gelu_tanh silu bias bias_relu bias_gelu bias_silu; do
    for f in mma_sync wgmma; do
      spec bf16 333 520 72 "check_${f}_bf16_${op}_333x520x72.ko" "family: $f; op_type: $op; pad_k: true;"
    done
    spec fp16 1000 776 1008 "check_fp16_${op}_1000x776x1008.ko" "op_type: $op;"
    spec bf16 4096 4096 4096 "epilogue_bf16_4096x4096x4096_${op}.ko" "op_type: $op;"
  done
  for op in gelu bias_gelu; do spec fp16 4096 4096 4096 "epilogue_fp16_4096x4096x4096_${op}.ko" "op_type: $op;"; done
  for t in fp16 bf16; do spec $t 4096 4096 4096 "epilogue_${t}_4096x4096x4096_none.ko"; done
  rm -f "$dir/.spec.dgml"
  ls "$dir" | wc -l
  exit 0
fi
if [ "$what" = splitk ]; then
  splitk_checks
  splitk_bench
  rm -f "$dir/.spec.dgml"
  ls "$dir" | wc -l
  exit 0
fi
# An odd K (pad_k): A's rows, and a column-major B's, do not start on 16-byte boundaries, so
# their tiles are loaded element by element; each family, each input width, tails.
if [ "$what" = all ] || [ "$what" = oddk ]; then
spec fp16 1000 776 4095 "check_oddk_fp16_1000x776x4095.ko" "pad_k: true;"
spec bf16 333 520 1001 "check_oddk_mma_sync_bf16_333x520x1001.ko" "pad_k: true; family: mma_sync;"
spec bf16 333 520 1001 "check_oddk_wgmma_bf16_bias_gelu_333x520x1001.ko" "pad_k: true; family: wgmma; op_type: bias_gelu;"
spec_b_col bf16 129 264 4095 "check_oddk_bf16_bcol_129x264x4095.ko" "pad_k: true;"
spec_b_col int8 200 264 1001 "check_oddk_int8_bcol_200x264x1001.ko" "pad_k: true;"
spec_b_col int8 200 264 1001 "check_oddk_mma_sync_int8_bcol_200x264x1001.ko" "pad_k: true; family: mma_sync;"
for mk in "4096 4095" "4096 4096" "128 4095" "128 4096" "16 4095" "16 4096"; do
  set -- $mk
  spec fp16 $1 4096 $2 "oddk_fp16_${1}x4096x${2}.ko" "pad_k: true;"
done
fi
if [ "$what" = oddk ]; then
  rm -f "$dir/.spec.dgml"
  ls "$dir" | wc -l
  exit 0
fi
# 4-bit weights (int4, u4 with zero point 8, FP4 E2M1; packed by dgmm_pack_weights; scales
# { B: group_G / per_column; }): checks on odd M (several 32-row blocks), N not a multiple of the
# 16-column block, K not a multiple of the 128-k block, each grouping, a fused epilogue, no
# scales, an fp32 output, u4, E2M1, the sm_80 kernel (no cache hints, run through the PTX JIT);
# and w4_*.ko, the benchmark's decode-to-small-batch shapes with groups of 128 (and E2M1 with
# groups of 32).
if [ "$what" = all ] || [ "$what" = w4 ]; then
  spec_w4 fp16 fp16 16 4096 4096 "B: group_128;" "check_w4_fp16_g128_16x4096x4096.ko" "cast_output: fp16;"
  spec_w4 fp16 fp16 13 1000 4128 "B: group_32;" "check_w4_fp16_g32_13x1000x4128.ko" "cast_output: fp16;"
  spec_w4 bf16 bf16 77 1048 2112 "B: group_64;" "check_w4_bf16_g64_77x1048x2112.ko" "cast_output: bf16;"
  spec_w4 fp16 fp16 130 4104 1024 "B: per_column;" "check_w4_fp16_percol_bias_silu_130x4104x1024.ko" "cast_output: fp16; op_type: bias_silu;"
  spec_w4 fp16 fp32 1 4096 14336 "B: group_128;" "check_w4_fp16_g128_fp32_1x4096x14336.ko"
  spec_w4 bf16 fp16 5 256 256 "" "check_w4_bf16_noscale_5x256x256.ko"
  spec_w4 bf16 bf16 5 200 288 "B: group_32;" "check_w4_ampere_bf16_g32_5x200x288.ko" "cast_output: bf16;" ampere
  spec_w4 fp16 fp16 3 1000 4096 "B: group_64;" "check_w4_u4_fp16_g64_3x1000x4096.ko" "cast_output: fp16;" hopper u4
  spec_w4 fp16 fp16 13 1000 4128 "B: group_32;" "check_w4_e2m1_fp16_g32_13x1000x4128.ko" "cast_output: fp16;" hopper int4_e2m1
  spec_w4 bf16 bf16 40 264 1024 "B: group_128;" "check_w4_e2m1_bf16_g128_40x264x1024.ko" "cast_output: bf16;" hopper int4_e2m1
  # M <= 8 runs with the operands swapped (weights as mma's m16 side): its edges, M = 8 and 9, a
  # per-column scale over a K with a partial last block, and E2M1 with a bias, fp32 out, at M = 1.
  spec_w4 fp16 fp16 8 520 4224 "B: per_column;" "check_w4_fp16_percol_8x520x4224.ko" "cast_output: fp16;"
  spec_w4 fp16 fp16 9 520 4224 "B: group_32;" "check_w4_fp16_g32_9x520x4224.ko" "cast_output: fp16;"
  spec_w4 bf16 fp32 1 264 384 "B: group_64;" "check_w4_e2m1_bf16_g64_bias_relu_1x264x384.ko" "op_type: bias_relu;" hopper int4_e2m1
  # Lighter schedules (the first choice spills): 16 columns a warp at M = 128, one block in flight.
  spec_w4 fp16 fp16 128 4096 4096 "B: group_64;" "check_w4_fp16_g64_128x4096x4096.ko" "cast_output: fp16;"
  spec_w4 bf16 bf16 96 264 4096 "B: group_64;" "check_w4_e2m1_bf16_g64_bias_silu_96x264x4096.ko" "cast_output: bf16; op_type: bias_silu;" hopper int4_e2m1
  for m in 1 16 32 64 128; do
    for nk in "4096 4096" "14336 4096" "4096 14336"; do
      set -- $nk
      spec_w4 fp16 fp16 $m $1 $2 "B: group_128;" "w4_fp16_g128_${m}x${1}x${2}.ko" "cast_output: fp16;"
    done
  done
  spec_w4 fp16 fp16 256 4096 4096 "B: group_128;" "w4_fp16_g128_256x4096x4096.ko" "cast_output: fp16;"
  spec_w4 fp16 fp16 4096 4096 4096 "B: group_128;" "w4_fp16_g128_4096x4096x4096.ko" "cast_output: fp16;"
  for m in 1 16; do
    spec_w4 fp16 fp16 $m 4096 4096 "B: group_32;" "w4_e2m1_fp16_g32_${m}x4096x4096.ko" "cast_output: fp16;" hopper int4_e2m1
  done
fi
if [ "$what" = w4 ]; then
  rm -f "$dir/.spec.dgml"
  ls "$dir" | wc -l
  exit 0
fi
# 4-bit weights on wgmma (the TMA kernel's producer converts them into the stages): checks forced
# onto the family (tails of M, N and K, each grouping, no scales, a fused epilogue, an fp32 output,
# u4, E2M1, both activation types, a split K where the solver takes one); w4f_*.ko the same
# benchmark shapes as the solver picks them (w4f_), forced onto mma.sync (w4fm_) and onto wgmma
# (w4fw_).
if [ "$what" = all ] || [ "$what" = w4w ]; then
  spec_w4 fp16 fp16 200 1048 4128 "B: group_32;" "check_w4w_fp16_g32_200x1048x4128.ko" "cast_output: fp16; family: wgmma;"
  spec_w4 bf16 bf16 77 1048 2112 "B: group_64;" "check_w4w_bf16_g64_77x1048x2112.ko" "cast_output: bf16; family: wgmma;"
  spec_w4 fp16 fp16 130 4104 1024 "B: per_column;" "check_w4w_fp16_percol_bias_silu_130x4104x1024.ko" "cast_output: fp16; op_type: bias_silu; family: wgmma;"
  spec_w4 fp16 fp32 256 4096 4096 "B: group_128;" "check_w4w_fp16_g128_fp32_256x4096x4096.ko" "family: wgmma;"
  spec_w4 bf16 fp16 64 256 256 "" "check_w4w_bf16_noscale_64x256x256.ko" "family: wgmma;"
  spec_w4 fp16 fp16 300 1000 4096 "B: group_64;" "check_w4w_u4_fp16_g64_300x1000x4096.ko" "cast_output: fp16; family: wgmma;" hopper u4
  spec_w4 fp16 fp16 200 1000 4128 "B: group_32;" "check_w4w_e2m1_fp16_g32_200x1000x4128.ko" "cast_output: fp16; family: wgmma;" hopper int4_e2m1
  spec_w4 bf16 bf16 1000 776 1024 "B: group_128;" "check_w4w_e2m1_bf16_g128_1000x776x1024.ko" "cast_output: bf16; family: wgmma;" hopper int4_e2m1
  spec_w4 fp16 fp16 16 4096 4096 "B: group_128;" "check_w4w_fp16_g128_16x4096x4096.ko" "cast_output: fp16; family: wgmma;"
  spec_w4 fp16 fp16 4096 4096 4096 "B: group_128;" "check_w4w_fp16_g128_4096x4096x4096.ko" "cast_output: fp16; family: wgmma;"
  spec_w4 fp16 fp16 128 4096 4096 "B: group_128;" "check_w4w_fp16_g128_res_128x4096x4096.ko" "cast_output: fp16; family: wgmma; beta: 1;"
  spec_w4 fp16 fp16 1024 4096 4096 "B: group_128;" "check_w4w_fp16_g128_1024x4096x4096.ko" "cast_output: fp16; family: wgmma;"
  # two consumer warpgroups (256×128 tiles, 384 threads) with tails in M and N, persistent
  spec_w4 bf16 bf16 1000 4104 4096 "B: group_64;" "check_w4w_e2m1_bf16_g64_1000x4104x4096.ko" "cast_output: bf16; family: wgmma;" hopper int4_e2m1
  for m in 16 32 64 128 256 1024 4096; do
    spec_w4 fp16 fp16 $m 4096 4096 "B: group_128;" "w4f_fp16_g128_${m}x4096x4096.ko" "cast_output: fp16;"
    spec_w4 fp16 fp16 $m 4096 4096 "B: group_128;" "w4fm_fp16_g128_${m}x4096x4096.ko" "cast_output: fp16; family: mma_sync;"
    spec_w4 fp16 fp16 $m 4096 4096 "B: group_128;" "w4fw_fp16_g128_${m}x4096x4096.ko" "cast_output: fp16; family: wgmma;"
  done
  for m in 128 4096; do
    spec_w4 fp16 fp16 $m 14336 4096 "B: group_128;" "w4fw_fp16_g128_${m}x14336x4096.ko" "cast_output: fp16; family: wgmma;"
  done
  rm -f "$dir/.spec.dgml"
  ls "$dir" | wc -l
  exit 0
fi
# 4-bit activations and weights (int4 × int4, u4 × u4 → int32, B column-major) on Ampere's
# mma.sync m16n8k64: checks with M and N tails, an odd K with pad_k, a run-time K, a batch. Hopper
# has no 4-bit tensor-core shape in its model: the sm_80 PTX runs there through the driver's JIT.
spec_i4() {  # type "shape fields" out [constraints]
  cat > "$dir/.spec.dgml" <<SPEC
target ampere;
precision { activation: $1; weight: $1; output: int32; }
shape { $2 }
layout { B: col_major; }
constraints { ${4:-} }
SPEC
  "$bin" compile "$dir/.spec.dgml" -o "$dir/$3" --force-rebuild 2>&1 | grep -v "^\s*$" | grep -E "error|warning" | sed "s|^|$3: |" || true
}
if [ "$what" = all ] || [ "$what" = i4 ]; then
  spec_i4 int4 "M: 1000; N: 776; K: 2048;" check_i4_s4_1000x776x2048.ko
  spec_i4 u4 "M: 200; N: 264; K: 1002;" check_i4_u4_padk_200x264x1002.ko "pad_k: true;"
  spec_i4 int4 "M: 77; N: 136; K: 130;" check_i4_s4_padk_77x136x130.ko "pad_k: true;"
  spec_i4 int4 "M: 333; N: 520; K_min: 64; K_max: 4096;" check_i4_s4_krange_333x520x4096.ko
  spec_i4 int4 "M: 333; N: 520; K: 256; batch: 3;" check_i4_s4_batch3_333x520x256.ko
  spec_i4 u4 "M: 4096; N: 4096; K: 4096;" check_i4_u4_4096x4096x4096.ko
fi
if [ "$what" = i4 ]; then
  rm -f "$dir/.spec.dgml"
  ls "$dir" | wc -l
  exit 0
fi
spec_fp8bs() {  # A-type B-type C-type shape out [constraints] [scales]: fp8, B column-major
  cat > "$dir/.spec.dgml" <<SPEC
target hopper;
precision { activation: $1; weight: $2; output: $3; }
shape { $4 }
layout { B: col_major; }
scales { ${7:-A: group_128; B: block_128;} }
constraints { cast_output: $3; ${6:-} }
SPEC
  "$bin" compile "$dir/.spec.dgml" -o "$dir/$5" --force-rebuild 2>&1 | grep -v "^\s*$" | grep -E "error|warning" | sed "s|^|$5: |" || true
}
if [ "$what" = all ] || [ "$what" = fp8bs ]; then
  spec_fp8bs fp8_e4m3 fp8_e4m3 bf16 "M: 1000; N: 776; K: 1056;" check_fp8bs_e4m3_1000x776x1056.ko
  spec_fp8bs fp8_e5m2 fp8_e4m3 fp32 "M: 256; N: 392; K: 640;" check_fp8bs_e5m2_fp32_256x392x640.ko
  spec_fp8bs fp8_e4m3 fp8_e5m2 bf16 "M: 128; N: 4096; K: 7168;" check_fp8bs_splitk_bias_gelu_128x4096x7168.ko \
    "split_k: 4; op_type: bias_gelu;"
  spec_fp8bs fp8_e4m3 fp8_e4m3 bf16 "M: 4096; N: 4096; K: 4096;" check_fp8bs_persistent_4096x4096x4096.ko \
    "persistent: true;"
  spec_fp8bs fp8_e4m3 fp8_e4m3 fp16 "M: 333; N: 520; K_min: 128; K_max: 4096;" check_fp8bs_krange_333x520x4096.ko
  spec_fp8bs fp8_e4m3 fp8_e4m3 bf16 "M: 77; N: 136; K: 1040;" check_fp8bs_padk_77x136x1040.ko "pad_k: true;"
  # The benchmark: square, and DeepSeek-V3's layer shapes (N × K = 7168 × 2048, 2112 × 7168,
  # 24576 × 1536) at M = 128 and 4096, beside per-tensor fp8 of the same shapes.
  for s in "4096 4096 4096" "8192 8192 8192" "4096 7168 2048" "4096 2112 7168" "4096 24576 1536" \
           "128 7168 2048" "128 2112 7168"; do
    set -- $s
    spec_fp8bs fp8_e4m3 fp8_e4m3 bf16 "M: $1; N: $2; K: $3;" "fp8bs_e4m3_${1}x${2}x${3}.ko"
    spec_fp8bs fp8_e4m3 fp8_e4m3 bf16 "M: $1; N: $2; K: $3;" "fp8pt_e4m3_${1}x${2}x${3}.ko" "" \
      "A: per_tensor; B: per_tensor;"
  done
  # Per-tensor fp8 on the block-scaled kernel's usual tiles (128×128, two consumer warpgroups):
  # what the promotion costs apart from the tile shape.
  for s in "4096 4096 4096" "8192 8192 8192" "4096 7168 2048"; do
    set -- $s
    spec_fp8bs fp8_e4m3 fp8_e4m3 bf16 "M: $1; N: $2; K: $3;" "fp8pt128_e4m3_${1}x${2}x${3}.ko" \
      "tile_m == 128; tile_n == 128; warps == 8;" "A: per_tensor; B: per_tensor;"
  done
fi
if [ "$what" = fp8bs ]; then
  rm -f "$dir/.spec.dgml"
  ls "$dir" | wc -l
  exit 0
fi
# The TMA loader (a producer warpgroup, mbarrier pipeline): odd shapes and tails (the copy engine
# zero-fills them), each B layout, tile variant, input type, epilogue, scales and a run-time K; and
# tma_<loader>_*.ko, each loader forced on the benchmark's shapes, timed beside cuBLAS.
splitk_checks
for t in fp16 bf16; do
  spec $t 1000 776 1008 "check_tma_${t}_1000x776x1008.ko" "loader: tma;"
  spec $t 333 520 72 "check_tma_${t}_333x520x72.ko" "loader: tma; pad_k: true;"
  spec $t 127 4104 1544 "check_tma_${t}_127x4104x1544.ko" "loader: tma; pad_k: true;"
  spec $t 4096 4096 4096 "check_tma_${t}_4096x4096x4096.ko" "loader: tma;"
  spec $t 1000 776 1008 "check_tma128x128_${t}_1000x776x1008.ko" "loader: tma; tile_m == 128; tile_n == 128; warps == 4;"
  spec $t 200 136 200 "check_tma64x64_${t}_200x136x200.ko" "loader: tma; tile_m == 64; tile_n == 64; pad_k: true;"
  spec $t 1000 776 1008 "check_tma256x128_${t}_1000x776x1008.ko" "loader: tma; tile_m == 256; tile_n == 128;"
  spec_b_col $t 1000 776 1008 "check_tma_${t}_bcol_1000x776x1008.ko" "loader: tma;"
  spec $t 333 520 72 "check_tma_${t}_bias_gelu_333x520x72.ko" "loader: tma; op_type: bias_gelu; pad_k: true;"
  spec $t 1000 776 1008 "check_tma_${t}_scales_1000x776x1008.ko" "loader: tma;" "A: per_tensor; B: per_tensor;"
done
# The persistent tile loop (persistent: true): blocks that take several tiles (more tiles than
# 132 SMs hold), tails, a run-time K, fp8.
for t in fp16 bf16; do
  spec $t 4096 4096 4096 "check_tmap_${t}_4096x4096x4096.ko" "loader: tma; persistent: true;"
  spec $t 1000 776 1008 "check_tmap64x64_${t}_1000x776x1008.ko" "loader: tma; persistent: true; tile_m == 64; tile_n == 64; blocks_per_sm == 1;"
  spec $t 255 4104 1544 "check_tmap_${t}_255x4104x1544.ko" "loader: tma; persistent: true; pad_k: true; tile_m == 64; tile_n == 64; blocks_per_sm == 1;"
done
spec_kr bf16 fp32 1000 776 64 1032 "check_tmap_krange_bf16_1000x776xK64-1032.ko" "loader: tma; persistent: true; tile_m == 64; tile_n == 64; blocks_per_sm == 1;"
spec_fp8 fp8_e4m3 fp8_e4m3 bf16 2000 1552 1024 "check_tmap_fp8_e4m3_bf16_2000x1552x1024.ko" "loader: tma; persistent: true; tile_m == 128; tile_n == 128; blocks_per_sm == 1;"
spec_kr fp16 fp32 1000 776 128 1024 "check_tma_krange_fp16_1000x776xK128-1024.ko" "loader: tma;"
spec_kr bf16 fp32 333 520 64 4104 "check_tma_krange_bf16_bcol_333x520xK64-4104.ko" "loader: tma;" "B: col_major;"
spec_b_col int8 1000 776 1024 "check_tma_int8_bcol_1000x776x1024.ko" "loader: tma;"
spec_b_col int8 129 520 4112 "check_tma_int8_bcol_129x520x4112.ko" "loader: tma; pad_k: true;"
spec_fp8 fp8_e4m3 fp8_e4m3 bf16 1000 776 1024 "check_tma_fp8_e4m3_bf16_1000x776x1024.ko" "loader: tma;"
spec_fp8 fp8_e5m2 fp8_e4m3 fp32 129 264 224 "check_tma_fp8_e5m2xe4m3_fp32_129x264x224.ko" "loader: tma;"
for l in tma cp_async pers; do
  c="loader: $l;"
  [ $l = pers ] && c="loader: tma; persistent: true;"
  for s in 2048 4096 8192; do spec bf16 $s $s $s "tma_${l}_bf16_${s}x${s}x${s}.ko" "family: wgmma; $c"; done
  for m in 128 4096; do
    for nk in "4096 4096" "14336 4096" "4096 14336" "7168 2048"; do
      set -- $nk
      spec bf16 $m $1 $2 "tma_${l}_bf16_${m}x${1}x${2}.ko" "family: wgmma; $c"
    done
  done
  spec_fp8 fp8_e4m3 fp8_e4m3 bf16 4096 4096 4096 "tma_${l}_fp8_e4m3_bf16_4096x4096x4096.ko" "$c"
  spec_fp8 fp8_e4m3 fp8_e4m3 bf16 8192 8192 8192 "tma_${l}_fp8_e4m3_bf16_8192x8192x8192.ko" "$c"
done
if [ "$what" = tma ]; then
  rm -f "$dir/.spec.dgml"
  ls "$dir" | wc -l
  exit 0
fi
# fp8 (e4m3, e5m2, mixed) x fp8 -> fp32 accumulation on wgmma m64nNk32: odd shapes and tails for
# the checks, each output type, a fused epilogue, the tile variants.
spec_fp8 fp8_e4m3 fp8_e4m3 fp16 1000 776 1024 "check_fp8_e4m3_fp16_1000x776x1024.ko"
spec_fp8 fp8_e4m3 fp8_e5m2 bf16 333 520 4112 "check_fp8_e4m3xe5m2_bf16_333x520x4112.ko" "pad_k: true;"
spec_fp8 fp8_e5m2 fp8_e4m3 fp32 129 264 224 "check_fp8_e5m2xe4m3_fp32_129x264x224.ko"
spec_fp8 fp8_e5m2 fp8_e5m2 bf16 1000 776 1024 "check_fp8_e5m2_bf16_1000x776x1024.ko"
spec_fp8 fp8_e4m3 fp8_e4m3 bf16 4096 4096 4096 "check_fp8_e4m3_bf16_4096x4096x4096.ko"
spec_fp8 fp8_e4m3 fp8_e4m3 bf16 1000 776 1024 "check_fp8_e4m3_bf16_bias_gelu_1000x776x1024.ko" "op_type: bias_gelu;"
spec_fp8 fp8_e4m3 fp8_e4m3 fp16 200 136 256 "check_fp8_wgmma64x64_e4m3_fp16_200x136x256.ko" "tile_m == 64; tile_n == 64;"
spec_fp8 fp8_e4m3 fp8_e4m3 fp16 1000 776 1024 "check_fp8_wgmma128x128_e4m3_fp16_1000x776x1024.ko" "tile_m == 128; tile_n == 128; warps == 4;"
# Per-tensor scales (operands sc_a, sc_b): fp8 and 16-bit, each family, with and without an epilogue.
spec_fp8 fp8_e4m3 fp8_e4m3 bf16 1000 776 1024 "check_fp8_scales_e4m3_bf16_1000x776x1024.ko" "" "A: per_tensor; B: per_tensor;"
spec_fp8 fp8_e4m3 fp8_e4m3 fp16 333 520 4112 "check_fp8_scale_b_relu_e4m3_fp16_333x520x4112.ko" "op_type: bias_relu; pad_k: true;" "B: per_tensor;"
for f in mma_sync wgmma; do
  spec fp16 1000 776 1008 "check_${f}_fp16_scales_1000x776x1008.ko" "family: $f;" "A: per_tensor; B: per_tensor;"
  spec bf16 333 520 72 "check_${f}_bf16_scale_a_gelu_333x520x72.ko" "family: $f; op_type: gelu; pad_k: true;" "A: per_tensor;"
done
# Strided batches (one launch, blockIdx.y the batch): each family and input type, with a shared
# bias, and batch_*.ko for the benchmark against cuBLAS's strided batched GEMM.
spec_fp8 fp8_e4m3 fp8_e4m3 bf16 333 520 1024 "check_fp8_batch5_e4m3_bf16_333x520x1024.ko" "" "" 5
for f in mma_sync wgmma; do
  spec fp16 1000 776 1008 "check_${f}_fp16_batch3_1000x776x1008.ko" "family: $f;" "" 3
  spec bf16 333 520 72 "check_${f}_bf16_batch4_bias_relu_333x520x72.ko" "family: $f; op_type: bias_relu; pad_k: true;" "" 4
  spec_b_col int8 129 264 256 "check_${f}_int8_batch6_129x264x256.ko" "family: $f;" 6
done
spec fp16 512 512 512 "batch_fp16_512x512x512_b64.ko" "" "" 64
spec bf16 128 4096 4096 "batch_bf16_128x4096x4096_b16.ko" "" "" 16
spec bf16 2048 2048 2048 "batch_bf16_2048x2048x2048_b8.ko" "" "" 8
spec_fp8 fp8_e4m3 fp8_e4m3 bf16 1024 1024 4096 "batch_fp8_e4m3_bf16_1024x1024x4096_b16.ko" "" "" 16
# A run-time K (K_min/K_max; dgmm_set_k): checks at the range's ends and between, each family and
# input type; krange_*.ko for the benchmark (run at several K, beside fixed-K modules of those K).
for f in mma_sync wgmma; do
  spec_kr fp16 fp32 1000 776 128 1024 "check_krange_${f}_fp16_1000x776xK128-1024.ko" "family: $f;"
  spec_kr bf16 fp32 333 520 64 4104 "check_krange_${f}_bf16_bcol_333x520xK64-4104.ko" "family: $f;" "B: col_major;"
  spec_kr int8 int32 129 264 32 1024 "check_krange_${f}_int8_129x264xK32-1024.ko" "family: $f;" "B: col_major;"
done
spec_kr fp8_e4m3 bf16 1000 776 256 2048 "check_krange_fp8_e4m3_1000x776xK256-2048.ko" "cast_output: bf16;" "B: col_major;"
spec_kr fp16 fp32 4096 4096 512 8192 "krange_fp16_4096x4096xK512-8192.ko" "cast_output: fp16;"
for k in 512 2048 8192; do spec fp16 4096 4096 $k "kfixed_fp16_4096x4096x${k}.ko"; done
# The SIMT family (CUDA cores): fp32 inputs, and use_hmma: false on 16-bit inputs; simt_*.ko for
# the benchmark against cuBLAS's fp32 GEMM (CUBLAS_COMPUTE_32F).
spec_simt fp32 fp32 1000 776 1000 "check_simt_fp32_1000x776x1000.ko"
spec_simt fp32 fp32 333 520 72 "check_simt_fp32_bcol_333x520x72.ko" "" "B: col_major;"
spec_simt fp32 fp32 129 264 100 "check_simt_fp32_batch3_129x264x100.ko" "" "" "batch: 3;"
spec_simt fp16 fp16 1000 776 1008 "check_simt_fp16_bias_1000x776x1008.ko" "use_hmma: false; cast_output: fp16; op_type: bias_relu;" "B: col_major;"
fp16fma_modules
simt_split_modules
spec_simt fp32 fp32 1 128 4096 "simt_fp32_1x128x4096.ko"
spec_simt fp32 fp32 16 4096 4096 "simt_fp32_16x4096x4096.ko"
spec_simt fp32 fp32 4096 4096 4096 "simt_fp32_4096x4096x4096.ko"
# M = 64-256 (issue: these run on mma.sync at 0.42-0.90 of cuBLAS): the solver's choice beside each
# family forced, the same shapes (smallm_<choice>_*.ko), to see which family wins where.
for m in 64 128 256; do
  for nk in "4096 4096" "14336 4096"; do
    set -- $nk
    spec bf16 $m $1 $2 "smallm_solver_bf16_${m}x${1}x${2}.ko"
    spec bf16 $m $1 $2 "smallm_wgmma_bf16_${m}x${1}x${2}.ko" "family: wgmma;"
    spec bf16 $m $1 $2 "smallm_wgmma64_bf16_${m}x${1}x${2}.ko" "family: wgmma; tile_m == 64;"
    spec bf16 $m $1 $2 "smallm_mma_bf16_${m}x${1}x${2}.ko" "family: mma_sync;"
  done
done
# The fp8 benchmark against cuBLASLt fp8 (bf16 output, the common serving choice): square sizes
# and LLM layer shapes from decode to prefill.
for s in 2048 4096 8192; do spec_fp8 fp8_e4m3 fp8_e4m3 bf16 $s $s $s "fp8_e4m3_bf16_${s}x${s}x${s}.ko"; done
for m in 16 128 4096; do
  for nk in "4096 4096" "14336 4096" "4096 14336" "7168 2048"; do
    set -- $nk
    spec_fp8 fp8_e4m3 fp8_e4m3 bf16 $m $1 $2 "fp8_e4m3_bf16_${m}x${1}x${2}.ko"
  done
done
spec_fp8 fp8_e4m3 fp8_e5m2 bf16 4096 4096 4096 "fp8_e4m3xe5m2_bf16_4096x4096x4096.ko"
spec_fp8 fp8_e4m3 fp8_e4m3 bf16 4096 4096 4096 "fp8_scales_e4m3_bf16_4096x4096x4096.ko" "" "A: per_tensor; B: per_tensor;"
spec_fp8 fp8_e4m3 fp8_e4m3 bf16 8192 8192 8192 "fp8_scales_e4m3_bf16_8192x8192x8192.ko" "" "A: per_tensor; B: per_tensor;"
if [ "$what" = fp8 ]; then
  rm -f "$dir/.spec.dgml"
  ls "$dir" | wc -l
  exit 0
fi
bench_modules
weak_modules
spec_volta() {  # M N K out output [layout] [constraints]: Volta's m8n8k4 kernels (PTX for sm_70, JIT-compiled)
  cat > "$dir/.spec.dgml" <<SPEC
target volta;
precision { activation: fp16; weight: fp16; output: $5; }
shape { M: $1; N: $2; K: $3; }
layout { ${6:-} }
constraints { ${7:-} }
SPEC
  "$bin" compile "$dir/.spec.dgml" -o "$dir/$4" --force-rebuild 2>&1 | grep -v "^\s*$" | grep -E "error|warning" || true
}
spec_volta 1000 2048 1001 "check_volta_fp16_1000x2048x1001.ko" fp32 "" "pad_k: true; sm_mem_limit: 64;"
spec_volta 333 520 72 "check_volta_fp16_333x520x72.ko" fp16 "" "pad_k: true;"
spec_volta 1000 776 1008 "check_volta_fp16_bcol_1000x776x1008.ko" fp16 "B: col_major;" ""
spec_volta 127 264 136 "check_volta_fp16_1stage_127x264x136.ko" fp32 "" "stages == 1;"
spec_volta 2048 2048 2048 "check_volta_fp16_2048x2048x2048.ko" fp16 "" ""
for f in mma_sync wgmma; do
  spec_b_col int8 1000 776 1024 "check_${f}_int8_bcol_1000x776x1024.ko" "family: $f;"
  spec_b_col int8 129 520 4112 "check_${f}_int8_bcol_129x520x4112.ko" "family: $f; pad_k: true;"
  spec_b_col bf16 1000 776 1008 "check_${f}_bf16_bcol_1000x776x1008.ko" "family: $f;"
  spec_b_col fp16 333 520 72 "check_${f}_fp16_bcol_333x520x72.ko" "family: $f; pad_k: true;"
done
spec_b_col int8 4096 4096 4096 "check_int8_bcol_4096x4096x4096.ko"
for t in fp16 bf16; do
  spec $t 1 8 16 "check_${t}_1x8x16.ko"
  spec $t 1000 776 1008 "check_${t}_1000x776x1008.ko"
  spec $t 333 520 72 "check_${t}_333x520x72.ko" "pad_k: true;"
  spec $t 4096 4096 4096 "check_${t}_4096x4096x4096.ko"
  spec $t 127 4104 1544 "check_${t}_127x4104x1544.ko" "pad_k: true;"
  # Each family on odd shapes, whatever the solver would pick, and the wgmma tile variants.
  for f in mma_sync wgmma; do
    spec $t 1000 776 1008 "check_${f}_${t}_1000x776x1008.ko" "family: $f;"
    spec $t 333 520 72 "check_${f}_${t}_333x520x72.ko" "family: $f; pad_k: true;"
    spec $t 127 4104 1544 "check_${f}_${t}_127x4104x1544.ko" "family: $f; pad_k: true;"
  done
  spec $t 1000 776 1008 "check_wgmma128x256_${t}_1000x776x1008.ko" "family: wgmma; tile_m == 128; tile_n == 256;"
  spec $t 1000 776 1008 "check_wgmma128x128_${t}_1000x776x1008.ko" "family: wgmma; tile_m == 128; tile_n == 128; warps == 4;"
  spec $t 200 136 200 "check_wgmma64x64_${t}_200x136x200.ko" "family: wgmma; tile_m == 64; tile_n == 64; pad_k: true;"
done
# Fused elementwise epilogues (op_type), each family on an odd shape (checks), and 4096^3 with and
# without each on the solver's choice (epilogue_*.ko: the cost of the fusion, measured side by side).
for op in relu gelu gelu_tanh silu; do
  for f in mma_sync wgmma; do
    spec fp16 1000 776 1008 "check_${f}_fp16_${op}_1000x776x1008.ko" "family: $f; op_type: $op;"
    spec bf16 333 520 72 "check_${f}_bf16_${op}_333x520x72.ko" "family: $f; op_type: $op; pad_k: true;"
  done
  spec_volta 1000 776 1008 "check_volta_fp16_${op}_1000x776x1008.ko" fp16 "" "op_type: $op;"
  for t in fp16 bf16; do spec $t 4096 4096 4096 "epilogue_${t}_4096x4096x4096_${op}.ko" "op_type: $op;"; done
done
for t in fp16 bf16; do spec $t 4096 4096 4096 "epilogue_${t}_4096x4096x4096_none.ko"; done
# The bias epilogues (a per-column operand 'bias' in C's type), alone and before an activation.
for op in bias bias_relu bias_gelu bias_silu; do
  for f in mma_sync wgmma; do
    spec fp16 1000 776 1008 "check_${f}_fp16_${op}_1000x776x1008.ko" "family: $f; op_type: $op;"
    spec bf16 333 520 72 "check_${f}_bf16_${op}_333x520x72.ko" "family: $f; op_type: $op; pad_k: true;"
  done
  spec_volta 1000 776 1008 "check_volta_fp32_${op}_1000x776x1008.ko" fp32 "" "op_type: $op;"
  spec bf16 4096 4096 4096 "epilogue_bf16_4096x4096x4096_${op}.ko" "op_type: $op;"
done
# int8 x int8 -> int32 (B column-major, as the tensor cores read it) against cuBLAS's int8 GEMM
# (int8_*.ko): square sizes and the LLM layer shapes, decode to prefill.
for s in 2048 4096 8192; do spec_b_col int8 $s $s $s "int8_${s}x${s}x${s}.ko"; done
for m in 16 128 4096; do
  for nk in "4096 4096" "14336 4096" "4096 14336"; do
    set -- $nk
    spec_b_col int8 $m $1 $2 "int8_${m}x${1}x${2}.ko"
  done
done
# The mma.sync family on the large shapes, for the family comparison (family_*.ko).
for t in fp16 bf16; do
  for s in 2048 4096 8192; do spec $t $s $s $s "family_mma_${t}_${s}x${s}x${s}.ko" "family: mma_sync;"; done
  for nk in "4096 4096" "14336 4096" "4096 14336" "7168 2048" "24576 1536"; do
    set -- $nk
    spec $t 4096 $1 $2 "family_mma_${t}_4096x${1}x${2}.ko" "family: mma_sync;"
  done
done
# Forced wgmma schedules of 4096^3 fp16 (explore_*.ko): how far the solver's choice is from the
# best of its neighbours.
e=0
for c in "tile_m == 256; tile_n == 128; stages == 3;" "tile_m == 256; tile_n == 128; stages == 4;" \
         "tile_m == 128; tile_n == 256; stages == 3;" "tile_m == 128; tile_n == 256; stages == 4;" \
         "tile_m == 128; tile_n == 128; warps == 4; stages == 4;" "tile_m == 128; tile_n == 128; warps == 8; stages == 4;" \
         "tile_m == 128; tile_n == 128; warps == 4; blocks_per_sm == 2;" "tile_m == 256; tile_n == 128; raster_group == 1;"; do
  e=$((e + 1))
  spec fp16 4096 4096 4096 "explore_${e}_fp16_4096x4096x4096.ko" "family: wgmma; $c"
done
rm -f "$dir/.spec.dgml"
ls "$dir" | wc -l
