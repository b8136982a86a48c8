#!/bin/sh
# bench/proof_time.sh DEEPGEMM [RUNS]: the NPU backend's proof time per spec — `deepgemm compile
# SPEC --emit=verilog --verbose` RUNS times (default 5) for each NPU spec of examples/,
# tests/rtl/, tests/formal/ and bench/npu/, median, minimum and maximum of the "properties of N
# modules proved (T ms)" line.
set -eu
cmd=${1:?usage: bench/proof_time.sh DEEPGEMM [RUNS]}
runs=${2:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '| spec | properties | modules | median ms | min ms | max ms | runs |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n'
for spec in "$here"/examples/npu_*.dgml "$here"/tests/rtl/*.dgml "$here"/tests/formal/*.dgml "$here"/bench/npu/*.dgml; do
  : >"$work/t"
  props=""; mods=""
  i=0
  while [ "$i" -lt "$runs" ]; do
    line=$("$cmd" compile "$spec" --emit=verilog -o "$work/v" --verbose 2>&1 | grep 'properties of [0-9]* modules proved' || true)
    [ -n "$line" ] || { echo "| $(basename "$spec") | not proved | | | | | |"; continue 2; }
    props=$(echo "$line" | sed 's/.* \([0-9]*\) properties of .*/\1/')
    mods=$(echo "$line" | sed 's/.*properties of \([0-9]*\) modules.*/\1/')
    echo "$line" | sed 's/.*proved (\([0-9.]*\) ms).*/\1/' >>"$work/t"
    i=$((i + 1))
  done
  sort -n "$work/t" >"$work/s"
  med=$(awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}' "$work/s")
  printf '| %s | %s | %s | %.0f | %.0f | %.0f | %s |\n' "$(basename "$spec")" "$props" "$mods" "$med" "$(head -1 "$work/s")" "$(tail -1 "$work/s")" "$runs"
done
