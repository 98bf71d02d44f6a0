#!/bin/bash
# lead call v11 (2026-11-27 session 7): main af84983 (L2_SHORT_SK=512, cubin f9b756a9...): check + tests/gpu from the
# checkout, then `pyhipattn bench --rounds 5`.
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16
t0=$SECONDS; CHECK_S=90 TESTS_S=200 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-t0))s)"
tail -3 $OUT/validate.log; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log
t0=$SECONDS; timeout 150 python3 -m pyhipattn bench --rounds 5 --out $OUT/b > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
cp $OUT/b/results.json $OUT/bench.json; cp $OUT/b/results.png $OUT/bench.png
(cd $OUT && tar czf rest.tgz v b 2>/dev/null && rm -rf v b)
echo "wall $((SECONDS-S))s"
tail -46 $OUT/bench.log
