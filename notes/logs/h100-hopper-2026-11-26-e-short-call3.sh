#!/usr/bin/env bash
# helper h11s, call 3: the committed cubin (EP: O through shared memory, d128) in kernels/co; v_base = f4626a6's
set -uo pipefail
D=.dev-h11s
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin $D/v_base/hopper_fwd.cubin
echo "SASS: $(cuobjdump -sass kernels/co/sm_90a/hopper_fwd.cubin | grep -oE 'UTMALDG|HGMMA|STSM|STL|LDL' | sort | uniq -c | tr '\n' ' ')"
t0=$(date +%s)
timeout 40 python3 bench/hopper_dev.py check > $OUT/check.log 2>&1; echo "check rc $?: $(tail -1 $OUT/check.log) ($(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
timeout 40 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_hopper_gpu.py > $OUT/pytest_hopper.log 2>&1; echo "pytest hopper rc $?: $(tail -1 $OUT/pytest_hopper.log) ($(( $(date +%s) - t0 )) s)"
gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
args=$(python3 -c "import json; m = json.load(open('kernels/co/sm_90a/hopper_manifest.json'))['objects']; \
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" for o in m if o['dtype'] == 'bf16' and o['head_dim'] == 128))")
echo "sanitize specs: $args"
co=kernels/co/sm_90a/hopper_fwd.cubin
{ t0=$(date +%s); timeout 20 /tmp/hopper_sanitize $co $args; echo "native rc $? ($(( $(date +%s) - t0 )) s)"
  for tool in memcheck racecheck synccheck; do t0=$(date +%s)
    timeout 25 compute-sanitizer --tool $tool --print-limit 20 /tmp/hopper_sanitize $co $args; echo "$tool rc $? ($(( $(date +%s) - t0 )) s)"; done; } > $OUT/sanitize.log 2>&1
grep -E "native rc|rc [0-9]+ \(|ERROR SUMMARY|RACECHECK SUMMARY|FAIL" $OUT/sanitize.log
t0=$(date +%s)
HOPPER_DEV_D=128 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PORTABLE=0 OUT=$OUT timeout 40 python3 bench/hopper_dev.py time $D/v_base > $OUT/time.log 2>&1
echo "time rc $? ($(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
timeout 45 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_mha_gpu.py > $OUT/pytest_mha.log 2>&1; echo "pytest mha rc $?: $(tail -1 $OUT/pytest_mha.log) ($(( $(date +%s) - t0 )) s)"
tail -17 $OUT/time.log
