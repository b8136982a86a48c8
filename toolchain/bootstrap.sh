#!/usr/bin/env bash
# Install what DeepGEMM needs on Debian 12, with apt. Idempotent: silent when all is there.
set -euo pipefail

packages=(
  cmake ninja-build git
  clang-19 lld-19 libclang-rt-19-dev llvm-19-dev libzstd-dev
  libz3-dev z3
  libfmt-dev nlohmann-json3-dev libcli11-dev doctest-dev libsodium-dev
  verilator g++ make yosys iverilog nextpnr-ice40 fpga-icestorm
  qemu-system-misc libxml2-utils clang-format-14
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "bootstrap: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "bootstrap: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "bootstrap: done"
