#!/usr/bin/env bash
# Rebuild kernels/co/ from kernels/src/ for every shipped arch, on a CPU-only machine.
#
#   scripts/build_co.sh            # everything
#   scripts/build_co.sh portable   # only the families named
#
# Each family has one build script, scripts/build/<family>.{sh,py}; this driver is the only
# entry point and the build scripts are the only places that know compiler flags.
# Tools: clang-22 + lld-22 (apt), nvcc 13 (CUDA 13.0), triton==3.6.0 (pip) with
# TRITON_PTXAS_PATH pointing at CUDA 13.0's ptxas so cubins load on a 580 driver.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
families=("$@")
if [ ${#families[@]} -eq 0 ]; then
  families=()
  for f in scripts/build/*.sh scripts/build/*.py; do
    [ -e "$f" ] || continue
    n=$(basename "$f"); families+=("${n%.*}")
  done
fi
for fam in "${families[@]}"; do
  if [ -f "scripts/build/$fam.sh" ]; then
    echo "== build $fam (scripts/build/$fam.sh)"
    bash "scripts/build/$fam.sh"
  elif [ -f "scripts/build/$fam.py" ]; then
    echo "== build $fam (scripts/build/$fam.py)"
    python3 "scripts/build/$fam.py"
  else
    echo "no build script for family '$fam' (looked for scripts/build/$fam.sh and .py)" >&2
    exit 2
  fi
done
echo "kernels/co rebuilt: $(find kernels/co -type f | wc -l) files"
