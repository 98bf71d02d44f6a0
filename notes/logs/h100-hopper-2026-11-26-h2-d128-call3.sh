#!/usr/bin/env bash
# helper h2 (issue11h-d128), call 3: the committed cubin (HOPPER_DECODE_ONCE_D128=1; the bytes of call 2's v_dec):
# check, tests/gpu, sanitizers over the bf16 d128 kernels, interleaved timing against a2a4bc8's cubin ("old") and cuDNN
set -uo pipefail
D=.dev-h2
T0=$(date +%s); END=$((T0 + 300))
left() { local l=$((END - $(date +%s))); [ $l -lt 5 ] && l=5; echo $l; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin $D/old/hopper_fwd.cubin
timeout 45 python3 bench/hopper_dev.py check > $OUT/check3.log 2>&1; echo "check rc $?: $(tail -1 $OUT/check3.log) ($(( $(date +%s) - T0 )) s)"
t0=$(date +%s)
timeout 185 python3 -m pytest -q -rfs -p no:cacheprovider tests/gpu > $OUT/gpu-tests3.log 2>&1; echo "pytest tests/gpu rc $?: $(tail -1 $OUT/gpu-tests3.log) ($(( $(date +%s) - t0 )) s)"
grep -E "^(FAILED|ERROR)" $OUT/gpu-tests3.log | head
gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
co=kernels/co/sm_90a/hopper_fwd.cubin
args=$(python3 -c "import json; m = json.load(open('kernels/co/sm_90a/hopper_manifest.json'))['objects']; \
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" for o in m if o['dtype'] == 'bf16' and o['head_dim'] == 128))")
{ echo "specs: $args"; timeout 20 /tmp/hopper_sanitize $co $args; echo "native rc $?"
  for tool in memcheck racecheck synccheck; do t1=$(date +%s)
    timeout $(left) compute-sanitizer --tool $tool --print-limit 20 /tmp/hopper_sanitize $co $args; echo "$tool rc $? ($(( $(date +%s) - t1 )) s)"; done; } > $OUT/sanitize3.log 2>&1
grep -E "native rc|rc [0-9]+ \(|ERROR SUMMARY|RACECHECK SUMMARY|FAIL" $OUT/sanitize3.log
echo "elapsed $(( $(date +%s) - T0 )) s"
python3 $D/mkp.py kernels/co/sm_90a $D/p_static static >/dev/null
SH="32,16,16,512,512,128,0;32,16,16,512,512,128,1;16,16,16,1024,1024,128,0;8,16,16,2048,2048,128,0;4,16,16,4096,4096,128,0;2,16,16,8192,8192,128,0;1,16,16,16384,16384,128,0;4,16,16,4096,4096,128,1;16,16,16,1024,1024,128,1"
SHAPES="$SH" ROUNDS=4 REP_MS=25 OUT=$OUT TIME_JSON=time3.json timeout $(left) python3 $D/time_il.py $D/old $D/p_static > $OUT/time3.log 2>&1
echo "time rc $?; elapsed $(( $(date +%s) - T0 )) s"
tail -11 $OUT/time3.log
