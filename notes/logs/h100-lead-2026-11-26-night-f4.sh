#!/bin/bash
# lead: validation of merged main (issue11g-steady + issue11g-d64 + issue11g-window)
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin
timeout 70 python3 bench/hopper_dev.py check > $OUT/check.log 2>&1; echo "check rc=$?: $(tail -1 $OUT/check.log)"
timeout 230 python3 -m pytest -v -rfs tests/gpu > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?: $(tail -1 $OUT/gpu-tests.log)"
grep -E "^(FAILED|ERROR)" $OUT/gpu-tests.log | head
mkdir -p $OUT/bench
timeout 160 python3 -m pyhipattn bench --out $OUT/bench > $OUT/bench.log 2>&1; echo "bench rc=$?"
specs=$(python3 -c "import json; m = json.load(open('kernels/co/sm_90a/hopper_manifest.json'))['objects']; \
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" for o in m if o['dtype'] == 'bf16'))")
gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
san=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for tool in memcheck racecheck synccheck; do
  echo "=== $tool" >> $OUT/sanitize.log
  timeout 75 "$san" --tool "$tool" --print-limit 20 /tmp/hopper_sanitize kernels/co/sm_90a/hopper_fwd.cubin $specs >> $OUT/sanitize.log 2>&1
  echo "$tool (rc $?): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|failure' $OUT/sanitize.log | tail -2 | tr '\n' ' ')"
done
tail -46 $OUT/bench.log
