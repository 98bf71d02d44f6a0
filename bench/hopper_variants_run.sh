#!/usr/bin/env bash
# One device call for hopper variants (issue 11): SASS counts, check each variant in its own
# process (a hang costs one timeout), PYTEST=1: tests/gpu/test_hopper_gpu.py, the timing table of
# the variants that passed, bench/hopper_sanitize.c natively and under compute-sanitizer (memcheck,
# racecheck, synccheck) for the shipped object and the variants named in SANITIZE, and with
# NCU_VARIANTS set bench/hopper_ncu.sh.  Everything under $OUT (at most 7 files).
#   bash bench/hopper_variants_run.sh VARIANT_DIR ...     (run from the checkout or its copy)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/hopper-run}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
misc=$OUT/misc.log
for v in kernels/co/sm_90a "$@"; do
  echo "== $v: $(cuobjdump -sass "$v/hopper_fwd.cubin" | grep -oE 'UTMALDG|LDGSTS|HGMMA|USETMAXREG|UTMACCTL|STL|LDL' | sort | uniq -c | tr '\n' ' ')" >> "$misc"
done
ok=()
timeout 150 python3 bench/hopper_dev.py check >> "$OUT/check.log" 2>&1
echo "check shipped rc $?: $(tail -1 "$OUT/check.log")"
for v in "$@"; do
  timeout 150 python3 bench/hopper_dev.py check-only "$v" >> "$OUT/check.log" 2>&1
  rc=$?; echo "check $v rc $rc: $(tail -1 "$OUT/check.log")"
  [ $rc -eq 0 ] && ok+=("$v")
done
gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
san=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
if [ -n "${PYTEST:-}" ]; then
  timeout 300 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_hopper_gpu.py > "$OUT/pytest.log" 2>&1
  echo "pytest rc $?: $(tail -1 "$OUT/pytest.log")" | tee -a "$misc"
fi
OUT=$OUT timeout ${TIME_LIMIT:-400} python3 bench/hopper_dev.py time "${ok[@]}" > "$OUT/time.log" 2>&1
echo "time rc $?"
for v in kernels/co/sm_90a "${ok[@]}"; do
  [ -n "${SANITIZE:-}" ] && ! echo " $SANITIZE " | grep -q " $(basename "$v") " && continue
  # every bf16 kernel of the variant's manifest, as KERNEL:SHARED:BLOCK_M:THREADS:D (hopper_sanitize.c's second form)
  args=$(python3 -c "import json,sys; m = json.load(open(sys.argv[1]))['objects']; \
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" for o in m if o['dtype'] == 'bf16'))" "$v/hopper_manifest.json")
  # natively first (a hang here is the kernel's, not a tool's), then the three tools
  timeout "${SAN_TIMEOUT:-60}" /tmp/hopper_sanitize "$v/hopper_fwd.cubin" $args > /tmp/san.log 2>&1
  rc=$?; echo "$v native (rc $rc): $(tail -1 /tmp/san.log)" | tee -a "$misc"; cat /tmp/san.log >> "$misc"
  [ $rc -ne 0 ] && continue
  for tool in memcheck racecheck synccheck; do
    timeout "${SAN_TIMEOUT:-60}" "$san" --tool "$tool" --print-limit 20 /tmp/hopper_sanitize "$v/hopper_fwd.cubin" $args > /tmp/san.log 2>&1
    echo "$v $tool (rc $?): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|failure' /tmp/san.log | tr '\n' ' ')" | tee -a "$misc"
    grep -E "FAIL|^hopper_fwd|=====" /tmp/san.log | head -30 >> "$misc"
  done
done
[ -n "${NCU_VARIANTS+x}" ] && OUT=$OUT timeout ${NCU_LIMIT:-120} bash bench/hopper_ncu.sh $NCU_VARIANTS
cat "$misc"
tail -40 "$OUT/time.log"
