#!/bin/bash
# lead call v5 (2026-11-27 session 6): main a02e315 + HOPPER_C2_KVWAIT_D64 = 6 switched on (cubin b4ba9b62... = helper-56's
# kv6): (1) a confirming paired timing, base_d64 / aa_d64 = main's c69f15d3... (kvwait 0), kv6_d64 = a copy of the new
# cubin, "hopper" = the checkout's (the same kv6 bytes through the planner), 7 rounds; (2) check + tests/gpu on the new
# cubin; (3) compute-sanitizer over _c2 / _c2q3 (bf16 + fp16) if time is left.  The ratio table last.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-v5
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin $L/v/*/hopper_fwd.cubin | cut -c1-16,65-
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;32,32,32,512,512,64,1;16,32,32,1024,1024,64,1;2,8,8,4096,4096,64,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 90 python3 bench/hopper_dev.py time $L/v/base_d64 $L/v/aa_d64 $L/v/kv6_d64 > $OUT/time.log 2>&1
echo "time rc=$? ($((SECONDS-t0))s)"; grep -E "failed|Error" $OUT/time.log | head -3
python3 $L/ratios.py $OUT/hopper_time.json > $OUT/ratios.txt 2>&1
t0=$SECONDS; CHECK_S=90 TESTS_S=200 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-t0))s)"
tail -3 $OUT/validate.log; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log; grep -c "test_hopper_d64_c2_sibling.*PASSED" $OUT/gpu-tests.log
left=$((330-(SECONDS-S)))
if [ $left -gt 40 ]; then
  t0=$SECONDS; KERNELS='_c2$|_c2q3$' LIMIT=$((left/6)) STEPS=sanitize OUT=$OUT/s timeout $left bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s, tool limit $((left/6))s)"
  grep "^sanitize" $OUT/sanitize.log | cut -c1-200 | sort -u
else echo "sanitize skipped ($((SECONDS-S))s gone)"; fi
(cd $OUT && find . -name hopper_sanitize -delete; tar czf rest.tgz v s 2>/dev/null && rm -rf v s)
echo "wall $((SECONDS-S))s; hopper = the checkout's cubin (kv6 bytes), aa_d64 = base copy (A/A), kv6_d64 = kv6 copy"
cat $OUT/ratios.txt
