#!/bin/bash
# lead call l2 (2026-11-27 session 3): main 7722b82 (cubin 6873dec5...: + HOPPER_SMX_TREE_D128 (d128 / _fk .text = helper-38's
# smx1_d128) + HOPPER_C2_DEFER_D64 (_c2 .text = helper-37's d_d64), each checked and bf16-racechecked in its helper's
# call): check, tests/gpu, fp16+bf16 memcheck / synccheck / racecheck over KRE (default _d128, _d128_fk, _c2), then
# `pyhipattn bench` (paired, 5 rounds)
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin
t0=$SECONDS; CHECK_S=90 TESTS_S=240 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-t0))s)"
tail -3 $OUT/validate.log
t0=$SECONDS; KERNELS="${KRE:-_d128(_fk)?\$|_c2\$}" LIMIT=40 STEPS=sanitize OUT=$OUT/s timeout 170 bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s)"
grep "^sanitize" $OUT/sanitize.log | tail -6
t0=$SECONDS; timeout 200 python3 -m pyhipattn bench --rounds 5 --out $OUT/b > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
cp $OUT/b/results.json $OUT/bench.json; cp $OUT/b/results.png $OUT/bench.png; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log
(cd $OUT && find . -name hopper_sanitize -delete; tar czf rest.tgz v s b && rm -rf v s b)
tail -50 $OUT/bench.log
echo "total wall $((SECONDS-S))s"
