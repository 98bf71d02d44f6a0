#!/usr/bin/env bash
# Build the runtime's smoke-test kernels (kernels/src/common/add.cu) for every shipped arch.
#
#   kernels/co/sm_90a/common_add.cubin  kernels/co/sm_80/common_add.cubin     (nvcc 13)
#   kernels/co/gfx942/common_add.co  gfx950/...  gfx1100/...                 (clang-22, HIP mode)
#
# Runs on a CPU-only machine.  Outputs are deterministic, also from another checkout path: nvcc
# gets no host-dependent input, clang none either (-nogpuinc -nogpulib, no debug info, fixed -cuid).
# Tools: NVCC (default /usr/local/bin/nvcc, else nvcc on PATH), CLANG (default clang-22).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
src="$root/kernels/src/common/add.cu"
out="$root/kernels/co"

nvcc_bin=${NVCC:-/usr/local/bin/nvcc}
[ -x "$nvcc_bin" ] || nvcc_bin=$(command -v nvcc || true)
clang_bin=${CLANG:-clang-22}

if [ -n "$nvcc_bin" ]; then
  for sm in 90a 80; do
    mkdir -p "$out/sm_$sm"
    "$nvcc_bin" -cubin -O3 -gencode=arch=compute_$sm,code=sm_$sm -I "$root/kernels/src/common" \
      -o "$out/sm_$sm/common_add.cubin" "$src"
    echo "  sm_$sm/common_add.cubin"
  done
else
  echo "common: nvcc not found (set NVCC=...): NVIDIA cubins not rebuilt" >&2
  exit 1
fi

if command -v "$clang_bin" >/dev/null; then
  for gfx in gfx942 gfx950 gfx1100; do
    mkdir -p "$out/$gfx"
    # -fhip-kernel-arg-name keeps the argument names in the metadata (pack_by_names needs them).
    # -cuid: a fixed compilation-unit id; without it clang names a __hip_cuid_<hash of the
    # source path> symbol, so a checkout elsewhere builds different bytes.
    "$clang_bin" -x hip --offload-arch=$gfx --cuda-device-only --no-gpu-bundle-output -nogpulib -nogpuinc \
      -cuid=pyhipattn_common_add -O3 -fhip-kernel-arg-name -I "$root/kernels/src/common" -o "$out/$gfx/common_add.co" "$src"
    echo "  $gfx/common_add.co"
  done
else
  echo "common: $clang_bin not found (apt-get install clang-22 lld-22): AMD code objects not rebuilt" >&2
  exit 1
fi
