#!/bin/bash
# lead call v4 (2026-11-27 session 6): main with host-made maps on the d128 _fk kernels (cubin c69f15d3...): compute-sanitizer
# memcheck / synccheck / racecheck over _d128_fk (bf16 + fp16), check, tests/gpu, then `pyhipattn bench` (paired, 5 rounds)
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin
t0=$SECONDS; KERNELS="${SAN_KERNELS:-_d128_fk$}" LIMIT=60 STEPS=sanitize OUT=$OUT/s bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s)"
grep "^sanitize" $OUT/sanitize.log | cut -c1-200 | sort -u
t0=$SECONDS; CHECK_S=90 TESTS_S=200 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-t0))s)"
tail -3 $OUT/validate.log; grep -c "PASSED" $OUT/v/gpu-tests.log
t0=$SECONDS; timeout 130 python3 -m pyhipattn bench --rounds 5 --out $OUT/b > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
cp $OUT/b/results.json $OUT/bench.json; cp $OUT/b/results.png $OUT/bench.png; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log
(cd $OUT && find . -name hopper_sanitize -delete; tar czf rest.tgz v b s && rm -rf v b s)
tail -46 $OUT/bench.log
echo "total wall $((SECONDS-S))s"
