#!/usr/bin/env bash
# Compile the benchmark and GPU-check modules on the build host, into DIR (default carry/modules):
#   bench_<type>_<M>x<N>x<K>.ko  the benchmark table (issue targets: square, and M × (N, K) pairs)
#   check_<type>_<M>x<N>x<K>.ko  odd shapes for the correctness checks (tests/gpu)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${DEEPGEMM:-build/ci/compiler/driver/deepgemm}
dir=${1:-carry/modules}
mkdir -p "$dir"
spec() {  # type M N K out [extra constraints]
  cat > "$dir/.spec.dgml" <<SPEC
target hopper;
precision { activation: $1; weight: $1; output: $1; }
shape { M: $2; N: $3; K: $4; }
constraints { cast_output: $1; ${6:-} }
SPEC
  "$bin" compile "$dir/.spec.dgml" -o "$dir/$5" --force-rebuild 2>&1 | grep -v "^\s*$" | grep -E "error|warning" || true
}
for t in fp16 bf16; do
  for s in 2048 4096 8192; do spec $t $s $s $s "bench_${t}_${s}x${s}x${s}.ko"; done
  for m in 1 16 64 128 4096; do
    for nk in "4096 4096" "14336 4096" "4096 14336" "7168 2048" "24576 1536"; do
      set -- $nk
      spec $t $m $1 $2 "bench_${t}_${m}x${1}x${2}.ko"
    done
  done
done
for t in fp16 bf16; do
  spec $t 1 8 16 "check_${t}_1x8x16.ko"
  spec $t 1000 776 1008 "check_${t}_1000x776x1008.ko"
  spec $t 333 520 72 "check_${t}_333x520x72.ko" "pad_k: true;"
  spec $t 4096 4096 4096 "check_${t}_4096x4096x4096.ko"
  spec $t 127 4104 1544 "check_${t}_127x4104x1544.ko" "pad_k: true;"
done
rm -f "$dir/.spec.dgml"
ls "$dir" | wc -l
