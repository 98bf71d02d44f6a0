#!/bin/bash
# helper h1 (issue11h-d64short), call 2: the branch's cubin (EPI_TMA_D64 + DECODE_ONCE_D64) installed as kernels/co/sm_90a:
# check, interleaved timing against a2a4bc8's cubin (v_main_d64) and the TMA-store-only build (v_tma_d64), cuDNN, portable;
# compute-sanitizer over the changed bf16 d64 kernels; tests/gpu
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin .dev-h1/v_*/hopper_fwd.cubin
timeout 60 python3 bench/hopper_dev.py check > $OUT/check.log 2>&1
echo "check rc=$?: $(tail -1 $OUT/check.log)"
S="32,32,32,512,512,64,0;16,32,32,1024,1024,64,0;32,16,16,512,512,64,0;16,12,12,1024,1024,64,0;32,32,32,512,512,64,1;16,32,32,1024,1024,64,1;8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1;4,32,32,4096,4096,64,0;4,32,32,4096,4096,64,1;1,32,32,16384,16384,64,0;1,32,32,16384,16384,64,1"
SHAPES="$S" ROUNDS=4 REP_MS=20 timeout 110 python3 .dev-h1/time_il.py .dev-h1/v_main_d64 .dev-h1/v_tma_d64 > $OUT/time.log 2>&1
echo "time rc=$?"
specs=$(python3 -c "import json; m = json.load(open('kernels/co/sm_90a/hopper_manifest.json'))['objects']; \
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" for o in m if o['dtype'] == 'bf16' and o['name'] in ('fwd_bf16_d64', 'fwd_bf16_d64_static')))")
echo "sanitize specs: $specs"
gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
san=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for tool in memcheck racecheck synccheck; do
  echo "=== $tool" >> $OUT/sanitize.log
  timeout 55 "$san" --tool "$tool" --print-limit 20 /tmp/hopper_sanitize kernels/co/sm_90a/hopper_fwd.cubin $specs >> $OUT/sanitize.log 2>&1
  echo "$tool (rc $?): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|failure' $OUT/sanitize.log | tail -2 | tr '\n' ' ')"
done
timeout 200 python3 -m pytest -q -rfs tests/gpu > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?: $(tail -1 $OUT/gpu-tests.log)"
grep -E "^(FAILED|ERROR)" $OUT/gpu-tests.log | head
tail -14 $OUT/time.log
