#!/bin/bash
# lead call e2 (2026-11-27 session 2): main 6255ae7 as committed (cubin 08b2fe03...: the d64 _c2 siblings with descriptor
# adds, issue11k merged): check, tests/gpu, sanitizers over _c2 (both dtypes), then pyhipattn bench
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin
t0=$SECONDS; CHECK_S=90 TESTS_S=240 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-t0))s)"
tail -3 $OUT/validate.log
t0=$SECONDS; KERNELS='_c2$' LIMIT=30 STEPS=sanitize OUT=$OUT/s bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s)"
grep "^sanitize" $OUT/sanitize.log | tail -6
left=$((575-(SECONDS-S)))
t0=$SECONDS; BENCH_S=$left STEPS=bench OUT=$OUT/b bash bench/hopper_validate.sh > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
cp $OUT/b/bench/results.json $OUT/bench.json; cp $OUT/b/bench/results.png $OUT/bench.png; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log
tail -48 $OUT/bench.log | head -46
(cd $OUT && find . -name hopper_sanitize -delete; tar czf rest.tgz v s b && rm -rf v s b)
echo "total wall $((SECONDS-S))s"
