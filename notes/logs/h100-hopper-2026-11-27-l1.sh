#!/bin/bash
# lead call l1 (2026-11-28 session): main 3b2875c (cubin 1fb94eb4...: HOPPER_DESC_ADD_D64 + HOPPER_PDEC_D128 shipped; their
# per-kernel .text = dd_d64's / pdec_d128's, checked and bf16-racechecked in call o1): check, tests/gpu, fp16+bf16
# memcheck / synccheck / racecheck over the changed kernels (_d64, _d64_s4, _d128, _d128_fk), then the first whole
# `pyhipattn bench` with paired timing (5 rounds)
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin
t0=$SECONDS; CHECK_S=90 TESTS_S=240 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-t0))s)"
tail -3 $OUT/validate.log
t0=$SECONDS; KERNELS='_d64(_s4)?$|_d128(_fk)?$' LIMIT=40 STEPS=sanitize OUT=$OUT/s timeout 170 bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s)"
grep "^sanitize" $OUT/sanitize.log | tail -6
t0=$SECONDS; timeout 200 python3 -m pyhipattn bench --rounds 5 --out $OUT/b > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
cp $OUT/b/results.json $OUT/bench.json; cp $OUT/b/results.png $OUT/bench.png; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log
(cd $OUT && find . -name hopper_sanitize -delete; tar czf rest.tgz v s b && rm -rf v s b)
tail -50 $OUT/bench.log
echo "total wall $((SECONDS-S))s"
