#!/usr/bin/env bash
# Compile latency: the median of N compiles of each example through the proof stage
# (--emit=proof: parse, check, solve, verify; no cache), wall-clock, on this machine.
# usage: bench/compile_latency.sh [path/to/deepgemm] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/ci/compiler/driver/deepgemm}
n=${2:-20}
[ -x "$bin" ] || { echo "no deepgemm at $bin (build first: cmake --preset ci && cmake --build --preset ci)" >&2; exit 1; }
printf '%-28s %10s %10s %10s  %s\n' spec "median ms" "min ms" "max ms" "runs"
for spec in examples/*.dgml; do
  times=()
  for ((i = 0; i < n; i++)); do
    t0=$(date +%s%N)
    "$bin" compile "$spec" --emit=proof -o /dev/null 2>/dev/null
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000000 )))
  done
  sorted=($(printf '%s\n' "${times[@]}" | sort -n))
  median=${sorted[$((n / 2))]}
  printf '%-28s %10s %10s %10s  %s\n' "$(basename "$spec")" "$median" "${sorted[0]}" "${sorted[$((n - 1))]}" "$n"
done
