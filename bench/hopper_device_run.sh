#!/usr/bin/env bash
# One H100 call for the hopper family (issue 11): numerics, sanitizers, timing, in that order,
# everything logged under $OUT (default /tmp/hopper-run).  Run from a checkout (or its copy in a
# git-ignored folder carried to the device) with pyhipattn importable:
#
#   bash bench/hopper_device_run.sh [VARIANT_DIR ...]    # variant dirs: OUT=... scripts/build/hopper.sh
#
# 1. bench/hopper_dev.py check over the shipped cubin and the variants (targeted cases of
#    tests/gpu/test_hopper_gpu.py, strided inputs);
# 2. pytest tests/gpu/test_hopper_gpu.py;
# 3. compute-sanitizer memcheck / racecheck / synccheck over bench/hopper_sanitize.c (no framework
#    in the process, so each tool takes seconds), built here with gcc;
# 4. bench/hopper_dev.py time (hopper variants, portable, cuDNN, flash; TFLOP/s table last).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/hopper-run}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
co=kernels/co/sm_90a/hopper_fwd.cubin
python3 bench/hopper_dev.py check "$@" > "$OUT/check.log" 2>&1; echo "check: $(tail -1 "$OUT/check.log")"
python3 -m pytest -q -p no:cacheprovider tests/gpu/test_hopper_gpu.py > "$OUT/pytest_hopper.log" 2>&1
echo "pytest: $(tail -1 "$OUT/pytest_hopper.log")"
# every bf16 kernel of the manifest, as KERNEL:SHARED:BLOCK_M:THREADS:D (hopper_sanitize.c's second form)
specs=$(python3 -c "import json; m = json.load(open('kernels/co/sm_90a/hopper_manifest.json'))['objects']; \
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" for o in m if o['dtype'] == 'bf16'))")
gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
san=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for tool in memcheck racecheck synccheck; do
  timeout 300 "$san" --tool "$tool" --print-limit 20 /tmp/hopper_sanitize "$co" $specs > "$OUT/sanitize_$tool.log" 2>&1
  echo "$tool (rc $?): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|failure' "$OUT/sanitize_$tool.log" | tr '\n' ' ')"
done
python3 bench/hopper_dev.py time "$@" > "$OUT/time.log" 2>&1
tail -45 "$OUT/time.log"
