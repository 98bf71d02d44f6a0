#!/usr/bin/env bash
# Build the native attention kernels (kernels/src/native) for every arch they support:
#   gfx942 gfx950 (MFMA split-K), gfx1100 gfx1101 gfx1102 gfx1200 gfx1201 (WMMA),
#   sm_90a sm_80 (the CUDA build of the same logic: the shared-logic test vehicle).
# Writes kernels/co/<arch>/native_fwd.{co,cubin}, native_combine.{co,cubin} and
# native_manifest.json.  Every object is built twice and the two sha256 must agree.
#
#   scripts/build/native.sh              # all arches
#   scripts/build/native.sh gfx942 sm_90a
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
src=kernels/src/native
amd_arches=(gfx942 gfx950 gfx1100 gfx1101 gfx1102 gfx1200 gfx1201)
cuda_arches=(sm_90a sm_80)
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=("${amd_arches[@]}" "${cuda_arches[@]}")

CLANG=${CLANG:-clang-22}
NVCC=${NVCC:-nvcc}
# -ffp-contract=fast on both so that both compilers may fuse a*b+c alike; no fast-math
# (the kernels compare against -inf).
CLANG_FLAGS=(-x hip --cuda-device-only --no-gpu-bundle-output -nogpulib -nogpuinc -O3 -std=c++17
             -ffp-contract=fast -Wall -Werror -Wno-unused-function)
NVCC_FLAGS=(-cubin -O3 -std=c++17 --fmad=true -Werror all-warnings)

compile() {  # arch source out
  local arch=$1 in=$2 out=$3
  case $arch in
    # -cuid: a fixed compilation-unit id (clang otherwise emits a random __hip_cuid_* symbol)
    gfx*) "$CLANG" "${CLANG_FLAGS[@]}" -cuid="pyhipattn_$(basename "${out%.*}")" --offload-arch="$arch" -c "$in" -o "$out" ;;
    sm_*) local n=${arch#sm_}; "$NVCC" "${NVCC_FLAGS[@]}" -gencode="arch=compute_$n,code=sm_$n" -o "$out" "$in" ;;
    *) echo "native.sh: unknown arch $arch" >&2; return 2 ;;
  esac
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pids=()
for arch in "${arches[@]}"; do
  case $arch in gfx*) ext=co ;; *) ext=cubin ;; esac
  for name in fwd combine; do
    src_file=$src/splitk_fwd.cu; [ $name = combine ] && src_file=$src/combine.cu
    for pass in a b; do
      mkdir -p "$tmp/$pass/$arch"
      compile "$arch" "$src_file" "$tmp/$pass/$arch/native_$name.$ext" &
      pids+=($!)
      # at most 2 compiles at once (nvcc is memory hungry; CI machines have 2 cores)
      if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
    done
  done
done
for p in "${pids[@]}"; do wait "$p"; done

for arch in "${arches[@]}"; do
  for f in "$tmp/a/$arch"/*; do
    b="$tmp/b/$arch/$(basename "$f")"
    if [ "$(sha256sum < "$f")" != "$(sha256sum < "$b")" ]; then
      echo "native.sh: $arch/$(basename "$f") differs between two builds (not deterministic)" >&2
      exit 1
    fi
  done
  dest=kernels/co/$arch
  mkdir -p "$dest"
  rm -f "$dest"/native_fwd.* "$dest"/native_combine.*
  cp "$tmp/a/$arch"/* "$dest"/
  python3 "$src/make_manifest.py" "$arch" "$dest"
  echo "native: $dest: $(cd "$dest" && ls native_* | tr '\n' ' ')"
done
