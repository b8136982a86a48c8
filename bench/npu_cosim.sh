#!/bin/sh
# bench/npu_cosim.sh DEEPGEMM [LATENCY]: compiles the NPU benchmark specs (bench/npu/*.dgml) and
# co-simulates each with `deepgemm sim` (the freestanding runtime programs the Verilated design;
# DRAM latency LATENCY cycles, default 100, no back-pressure), then prints cycles, the plan's
# estimate, MAC-array utilization, bus utilization and simulation speed per spec.
set -eu
cmd=${1:?usage: bench/npu_cosim.sh DEEPGEMM [LATENCY]}
lat=${2:-100}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '| spec | problem | cycles | plan estimate | MAC utilization | A+B read bus | C write bus | sim cycles/s | result |\n'
printf '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n'
for spec in "$here"/npu/*.dgml; do
  name=$(basename "$spec" .dgml)
  "$cmd" compile "$spec" -o "$work/$name.ko" 2>"$work/$name.compile.log" || { echo "| $name | compile failed | | | | | | | |"; continue; }
  "$cmd" sim "$work/$name.ko" --latency "$lat" >"$work/$name.out" 2>"$work/$name.err" || true
  o="$work/$name.out"
  problem=$(sed -n 's/^  problem *\(C.*\), int[0-9]* (.*$/\1/p' "$o")
  cycles=$(sed -n 's/^  cycles *\([0-9]*\) (CYCLES register; plan estimate \([0-9]*\).*/\1/p' "$o")
  est=$(sed -n 's/^  cycles *[0-9]* (CYCLES register; plan estimate \([0-9]*\).*/\1/p' "$o")
  util=$(sed -n 's/^  MAC array .*: \([0-9.]*%\) utilization$/\1/p' "$o")
  rd=$(sed -n 's/^  DRAM bus *A+B read \([0-9.]*%\) of two ports, C write \([0-9.]*%\).*/\1/p' "$o")
  wr=$(sed -n 's/^  DRAM bus *A+B read \([0-9.]*%\) of two ports, C write \([0-9.]*%\).*/\2/p' "$o")
  speed=$(sed -n 's/^  speed *\([0-9]*\) simulated cycles per second.*/\1/p' "$o")
  result=$(grep -o '^PASS\|^FAIL' "$o" || echo "no result")
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$problem" "$cycles" "$est" "$util" "$rd" "$wr" "$speed" "$result"
done
