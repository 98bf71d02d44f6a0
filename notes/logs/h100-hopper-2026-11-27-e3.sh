#!/bin/bash
# lead call e3 (2026-11-27 session 2): main c5c7a72 as committed (cubin e6fce333...: issue11m's _c2 interleave (its .text
# validated in helper-33's call m2) + issue11n's d128 / _fk causal decode-once (never run on these bytes)): check, tests/gpu,
# sanitizers over the d128 / d128_fk kernels (both dtypes), then pyhipattn bench (interleaved rounds, default 3)
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin
t0=$SECONDS; CHECK_S=90 TESTS_S=240 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-t0))s)"
tail -3 $OUT/validate.log
t0=$SECONDS; KERNELS='_d128(_fk)?$' LIMIT=40 STEPS=sanitize OUT=$OUT/s timeout 150 bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s)"
grep "^sanitize" $OUT/sanitize.log | tail -6
left=$((570-(SECONDS-S)))
t0=$SECONDS; BENCH_S=$left STEPS=bench OUT=$OUT/b bash bench/hopper_validate.sh > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
cp $OUT/b/bench/results.json $OUT/bench.json; cp $OUT/b/bench/results.png $OUT/bench.png; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log
tail -48 $OUT/bench.log | head -46
(cd $OUT && find . -name hopper_sanitize -delete; tar czf rest.tgz v s b && rm -rf v s b)
echo "total wall $((SECONDS-S))s"
