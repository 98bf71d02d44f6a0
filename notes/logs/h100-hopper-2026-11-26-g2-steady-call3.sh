#!/usr/bin/env bash
# helper g2 (issue11g-steady), call 3: the committed cubin (DESC_ADD + no vote + rescale in turn + TMA store, d128):
# check, tests/gpu, sanitizers over the bf16 d128 kernels, interleaved timing against 54845e1's cubin and cuDNN
set -uo pipefail
D=.dev-g2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin $D/old/hopper_fwd.cubin
T0=$(date +%s)
timeout 60 python3 bench/hopper_dev.py check > $OUT/check3.log 2>&1; echo "check rc $?: $(tail -1 $OUT/check3.log)"
t0=$(date +%s)
timeout 230 python3 -m pytest -q -rfs -p no:cacheprovider tests/gpu > $OUT/gpu-tests.log 2>&1; echo "pytest tests/gpu rc $?: $(tail -1 $OUT/gpu-tests.log) ($(( $(date +%s) - t0 )) s)"
grep -E "^(FAILED|ERROR)" $OUT/gpu-tests.log | head
gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
co=kernels/co/sm_90a/hopper_fwd.cubin
args=$(python3 -c "import json; m = json.load(open('kernels/co/sm_90a/hopper_manifest.json'))['objects']; \
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" for o in m if o['dtype'] == 'bf16' and o['head_dim'] == 128))")
echo "sanitize specs: $args"
{ t0=$(date +%s); timeout 25 /tmp/hopper_sanitize $co $args; echo "native rc $? ($(( $(date +%s) - t0 )) s)"
  for tool in memcheck racecheck synccheck; do t0=$(date +%s)
    timeout 30 compute-sanitizer --tool $tool --print-limit 20 /tmp/hopper_sanitize $co $args; echo "$tool rc $? ($(( $(date +%s) - t0 )) s)"; done; } > $OUT/sanitize3.log 2>&1
grep -E "native rc|rc [0-9]+ \(|ERROR SUMMARY|RACECHECK SUMMARY|FAIL" $OUT/sanitize3.log
echo "elapsed $(( $(date +%s) - T0 )) s"
t0=$(date +%s)
SH="8,16,16,2048,2048,128,0;4,16,16,4096,4096,128,0;2,16,16,8192,8192,128,0;1,16,16,16384,16384,128,0;16,16,16,1024,1024,128,0;32,16,16,512,512,128,0;1,32,8,8192,8192,128,1;2,64,8,4096,4096,128,1;1,16,16,16384,16384,128,1;4,16,16,4096,4096,128,1;8,16,16,2048,2048,128,1"
SHAPES="$SH" ROUNDS=6 REP_MS=40 OUT=$OUT TIME_JSON=time3.json timeout 80 python3 $D/time_il.py $D/old > $OUT/time3.log 2>&1
echo "time rc $? ($(( $(date +%s) - t0 )) s); elapsed $(( $(date +%s) - T0 )) s"
tail -13 $OUT/time3.log
