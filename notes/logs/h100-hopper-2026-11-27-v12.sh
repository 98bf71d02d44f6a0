#!/bin/bash
# lead call v12 (2026-11-27 session 8): main with HOPPER_LAZY_RESCALE=8 (cubin 3049b347...): adversarial numerics
# (adv.py), check + tests/gpu from the checkout, `pyhipattn bench --rounds 5`, then compute-sanitizer (bf16) over
# kernels the change touched (_d64, _d128_fk, _d128_bn176, _d256, _d96_dyn; the _c2 kernels are bit for bit).
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16
t0=$SECONDS; timeout 100 python3 .dev-v12/adv.py > $OUT/adv.log 2>&1; echo "adv rc=$? ($((SECONDS-t0))s)"; grep -c " ok$" $OUT/adv.log; grep "FAIL\|Error\|^adv:" $OUT/adv.log | head -5
t0=$SECONDS; CHECK_S=90 TESTS_S=220 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-t0))s)"
tail -3 $OUT/validate.log; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log
t0=$SECONDS; timeout 150 python3 -m pyhipattn bench --rounds 5 --out $OUT/b > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
cp $OUT/b/results.json $OUT/bench.json; cp $OUT/b/results.png $OUT/bench.png
tail -46 $OUT/bench.log | head -60
t0=$SECONDS; DTYPES=bf16 KERNELS='_d64$|_d128_fk$|_d128_bn176$|_d256$|_d96_dyn$' LIMIT=30 STEPS=sanitize OUT=$OUT/s timeout 170 bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s)"
grep "^sanitize" $OUT/sanitize.log | cut -c1-220 | sort -u
(cd $OUT && find . -name hopper_sanitize -delete; tar czf rest.tgz v b s 2>/dev/null && rm -rf v b s)
echo "wall $((SECONDS-S))s"
