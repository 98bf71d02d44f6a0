#!/bin/bash
# lead call v16 (2026-11-27 session 9): main 5bbee1f (bench: balanced call order by default; cubin f693eeb5...): check + tests/gpu from the
# checkout, then `pyhipattn bench --rounds 5`.
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16
t0=$SECONDS; CHECK_S=80 TESTS_S=190 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-t0))s)"
tail -3 $OUT/validate.log; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log
t0=$SECONDS; timeout 130 python3 -m pyhipattn bench --rounds 5 --out $OUT/b > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
cp $OUT/b/results.json $OUT/bench.json; cp $OUT/b/results.png $OUT/bench.png
python3 -m pytest -q -rs tests/test_bench.py 2>&1 | tail -2
(cd $OUT && tar czf rest.tgz v b 2>/dev/null && rm -rf v b)
echo "wall $((SECONDS-S))s"
grep -E "^b(16|32) h(12|16)/(12|16) s(512|1024) d64 " $OUT/bench.log
