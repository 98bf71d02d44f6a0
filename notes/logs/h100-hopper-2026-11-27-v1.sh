#!/bin/bash
# lead call v1 (2026-11-27 session 5): main with the causal _c2q3 siblings (cubin 2ce7bbd3...): check, tests/gpu,
# compute-sanitizer memcheck / synccheck / racecheck over the new _c2q3 kernels (bf16 + fp16; every other kernel's
# bytes were sanitized before: _c2 in z1 / l2, the rest in l2 / l3), then `pyhipattn bench` (paired, 5 rounds)
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin
t0=$SECONDS; CHECK_S=100 TESTS_S=240 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-t0))s)"
tail -3 $OUT/validate.log
t0=$SECONDS; KERNELS='_c2q3$' LIMIT=60 STEPS=sanitize OUT=$OUT/s bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s)"
grep "^sanitize" $OUT/sanitize.log | cut -c1-220
t0=$SECONDS; timeout 200 python3 -m pyhipattn bench --rounds 5 --out $OUT/b > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
cp $OUT/b/results.json $OUT/bench.json; cp $OUT/b/results.png $OUT/bench.png; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log
(cd $OUT && find . -name hopper_sanitize -delete; tar czf rest.tgz v b s && rm -rf v b s)
tail -50 $OUT/bench.log
echo "total wall $((SECONDS-S))s"
