#!/usr/bin/env bash
# One call on the GPU host: build the runtime, the GPU checks and the benchmark (runtime-only
# preset: no LLVM, no Z3), run the checks on the carried modules, then the benchmark table.
# usage (on the GPU host, from the repository root): bench/gpu_run.sh [MODULE_DIR] [LOG_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
mods=$(realpath "${1:-carry/modules}")
logs=${2:-${OUT:-/tmp}}
mkdir -p "$logs"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv | tee "$logs/gpu.txt"
cmake --preset runtime-only -DDEEPGEMM_GPU_MODULES="$mods" -DDEEPGEMM_BENCH_CUDA=ON > "$logs/configure.log" 2>&1 || { tail -30 "$logs/configure.log"; exit 1; }
cmake --build --preset runtime-only -j "$(nproc)" > "$logs/build.log" 2>&1 || { tail -40 "$logs/build.log"; exit 1; }
(cd build/runtime-only && ctest -V -j 4 > "$logs/ctest.log" 2>&1)
grep -E "tests passed|Failed|\*\*\*" "$logs/ctest.log" | tail -20
grep -E "^[0-9]+: .*(\.ko: M=|relative Frobenius|exact int64|exact small-integer|split-K workspace|C_in in place)" "$logs/ctest.log" | sed 's/^[0-9]*: //' > "$logs/checks.txt"
echo "$(grep -c "relative Frobenius\|exact int64\|exact small-integer" "$logs/checks.txt") GEMM checks; worst relative error: \
$(grep -o "relative Frobenius error [0-9.e+-]*" "$logs/checks.txt" | awk '{print $4}' | sort -g | tail -1)"
if ls "$mods"/bench_*.ko > /dev/null 2>&1; then
  build/runtime-only/bench/gpu_bench "$mods"/bench_*.ko 2>&1 | tee "$logs/bench.log"
fi
if ls "$mods"/weak_*.ko > /dev/null 2>&1; then
  echo "== the classes the table holds least of: M = 256, K = 512 and 1024, N = 576 and 2112 (issue targets: >= 1.0 each)"
  build/runtime-only/bench/gpu_bench "$mods"/weak_*.ko 2>&1 | tee "$logs/bench_weak.log"
fi
if ls "$mods"/w4_*.ko > /dev/null 2>&1; then
  echo "== 4-bit weights (W4A16: int4, groups of 128, fp16) against cuBLAS fp16 of the same shape; ratio = speedup (targets: M 1-16 >= 3.0, M 64 >= 1.5, M 128 >= 1.0)"
  build/runtime-only/bench/gpu_bench "$mods"/w4_*.ko 2>&1 | tee "$logs/bench_w4.log"
  echo "== the same, each side timed by graph replays (no host launch overhead)"
  build/runtime-only/bench/gpu_bench --graph "$mods"/w4_*.ko 2>&1 | tee "$logs/bench_w4_graph.log"
fi
if ls "$mods"/w4f*_*.ko > /dev/null 2>&1; then
  echo "== 4-bit weights on wgmma: the solver's pick (w4f_), forced onto mma.sync (w4fm_) and wgmma (w4fw_), against cuBLAS fp16; graph replays"
  build/runtime-only/bench/gpu_bench --graph "$mods"/w4f*_*.ko 2>&1 | tee "$logs/bench_w4f.log"
fi
if ls "$mods"/family_*.ko > /dev/null 2>&1; then
  echo "== the mma.sync family on the large shapes"
  build/runtime-only/bench/gpu_bench "$mods"/family_*.ko 2>&1 | tee "$logs/bench_family.log"
fi
if ls "$mods"/epilogue_*.ko > /dev/null 2>&1; then
  echo "== fused epilogues at 4096^3 (kernel '+op'), beside the same GEMM without one"
  build/runtime-only/bench/gpu_bench "$mods"/epilogue_*.ko 2>&1 | tee "$logs/bench_epilogue.log"
fi
if ls "$mods"/int8_*.ko > /dev/null 2>&1; then
  echo "== int8 x int8 -> int32 (B column-major) against cublasGemmEx CUBLAS_COMPUTE_32I (TOP/s)"
  build/runtime-only/bench/gpu_bench "$mods"/int8_*.ko 2>&1 | tee "$logs/bench_int8.log"
fi
if ls "$mods"/fp8_*.ko > /dev/null 2>&1; then
  echo "== fp8 x fp8 (B column-major) against cuBLASLt's fp8 GEMM, unit scales (TFLOP/s)"
  build/runtime-only/bench/gpu_bench "$mods"/fp8_*.ko 2>&1 | tee "$logs/bench_fp8.log"
fi
if ls "$mods"/batch_*.ko > /dev/null 2>&1; then
  echo "== strided batches (one launch) against cublasGemmStridedBatchedEx / cuBLASLt batched (TFLOP/s over all batches)"
  build/runtime-only/bench/gpu_bench "$mods"/batch_*.ko 2>&1 | tee "$logs/bench_batch.log"
fi
if ls "$mods"/krange_*.ko > /dev/null 2>&1; then
  echo "== a run-time K range module at several K (dgmm_set_k), beside fixed-K modules of those K"
  args=()
  for m in "$mods"/krange_*.ko; do for k in 512 2048 8192; do args+=("$m@$k"); done; done
  build/runtime-only/bench/gpu_bench "${args[@]}" "$mods"/kfixed_*.ko 2>&1 | tee "$logs/bench_krange.log"
fi
if ls "$mods"/simt_*.ko > /dev/null 2>&1; then
  echo "== the SIMT family (CUDA cores: fp32, and fp16 with fp16 accumulation) against cuBLAS of the same input type (fp16: its tensor-core GEMM)"
  build/runtime-only/bench/gpu_bench "$mods"/simt_*.ko 2>&1 | tee "$logs/bench_simt.log"
fi
if ls "$mods"/smallm_*.ko > /dev/null 2>&1; then
  echo "== M = 64-256: the solver's choice and each family forced"
  build/runtime-only/bench/gpu_bench "$mods"/smallm_*.ko 2>&1 | tee "$logs/bench_smallm.log"
fi
if ls "$mods"/tma_*.ko > /dev/null 2>&1; then
  echo "== the wgmma family with each loader forced, in this order: cp.async, TMA with a persistent tile loop, TMA"
  build/runtime-only/bench/gpu_bench "$mods"/tma_*.ko 2>&1 | tee "$logs/bench_tma.log"
fi
if ls "$mods"/oddk_*.ko > /dev/null 2>&1; then
  echo "== an odd K (pad_k: rows loaded element by element) beside K = 4096, against cuBLAS at the same K"
  build/runtime-only/bench/gpu_bench "$mods"/oddk_*.ko 2>&1 | tee "$logs/bench_oddk.log"
fi
if ls "$mods"/splitk_*.ko > /dev/null 2>&1; then
  echo "== split K: the solver's split (auto) against split_k 1 (off), both TMA, against cuBLAS"
  build/runtime-only/bench/gpu_bench "$mods"/splitk_*.ko 2>&1 | tee "$logs/bench_splitk.log"
fi
if ls "$mods"/explore_*.ko > /dev/null 2>&1; then
  echo "== forced schedules"
  build/runtime-only/bench/gpu_bench "$mods"/explore_*.ko 2>&1 | tee "$logs/bench_explore.log"
fi
