#!/bin/bash
# lead call l3 (2026-11-27 session 4): main eb27594 (cubin 6e947678...: + HOPPER_PV_LATE_D64=2, every kernel's .text = the
# timed pvm_d64's; planner: _c2 on non-causal d64 problems of <= 4 rounds of d64 tiles): check, tests/gpu, fp16+bf16
# memcheck / synccheck / racecheck over KRE (default _d64, _d64_s4), a paired timing of few-round d64 rows against cuDNN
# through the planner, then `pyhipattn bench` (paired, 5 rounds)
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin
t0=$SECONDS; CHECK_S=90 TESTS_S=240 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-t0))s)"
tail -3 $OUT/validate.log
t0=$SECONDS; KERNELS="${KRE:-_d64(_s4)?\$}" LIMIT=40 STEPS=sanitize OUT=$OUT/s timeout 170 bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s)"
grep "^sanitize" $OUT/sanitize.log | tail -6
R="1,4,4,8192,8192,64,0;2,8,8,4096,4096,64,0;1,2,2,40000,40000,64,0;1,4,4,2048,2048,64,0;2,16,16,2048,2048,64,0;1,8,8,32768,32768,64,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT/f timeout 90 python3 bench/hopper_dev.py time > $OUT/few.log 2>&1; echo "few-rounds time rc=$? ($((SECONDS-t0))s)"
tail -12 $OUT/few.log
t0=$SECONDS; timeout 200 python3 -m pyhipattn bench --rounds 5 --out $OUT/b > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
cp $OUT/b/results.json $OUT/bench.json; cp $OUT/b/results.png $OUT/bench.png; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log
(cd $OUT && find . -name hopper_sanitize -delete; tar czf rest.tgz v s b f && rm -rf v s b f)
tail -50 $OUT/bench.log
echo "total wall $((SECONDS-S))s"
