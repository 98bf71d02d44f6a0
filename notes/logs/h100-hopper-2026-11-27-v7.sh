#!/bin/bash
# lead call v7 (2026-11-27 session 7): main 83853ab (planner: d128 _fk for causal at every length and before _static;
# cubin unchanged b4ba9b62...): check + tests/gpu from the checkout, then `pyhipattn bench` (paired, 5 rounds).
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16
grep -q "True: (0, 1 << 30)," pyhipattn/families/hopper.py && grep -q "the d128 _fk sibling before _static" pyhipattn/families/hopper.py && echo "planner: 83853ab's gates" || echo "planner: NOT 83853ab"
t0=$SECONDS; CHECK_S=90 TESTS_S=220 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-t0))s)"
tail -3 $OUT/validate.log; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log; grep -c "test_hopper_static_siblings.*PASSED" $OUT/gpu-tests.log
t0=$SECONDS; timeout 150 python3 -m pyhipattn bench --rounds 5 --out $OUT/b > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
cp $OUT/b/results.json $OUT/bench.json; cp $OUT/b/results.png $OUT/bench.png
(cd $OUT && tar czf rest.tgz v b 2>/dev/null && rm -rf v b)
echo "wall $((SECONDS-S))s"
tail -46 $OUT/bench.log
