#!/bin/bash
# lead call v8 (2026-11-27 session 7): main 1ce5c7d (HOPPER_FAST_RCP=1 shipped, cubin 5a2a0629...): compute-sanitizer
# memcheck / synccheck / racecheck over _c2, _d128_fk, _d64 (the two epilogues FAST_RCP changed), bf16 + fp16; then check
# and tests/gpu from the checkout.
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16
t0=$SECONDS; KERNELS='_c2$|_d128_fk$|_d64$' LIMIT=45 STEPS=sanitize OUT=$OUT/s timeout 300 bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s)"
grep "^sanitize" $OUT/sanitize.log | cut -c1-220 | sort -u
t0=$SECONDS; CHECK_S=90 TESTS_S=220 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-t0))s)"
tail -3 $OUT/validate.log; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log
(cd $OUT && find . -name hopper_sanitize -delete; tar czf rest.tgz v s 2>/dev/null && rm -rf v s)
echo "wall $((SECONDS-S))s"
