#!/bin/bash
# lead call 5: issue11i-udiv (main + HOPPER_UDIV_D64): check, tests/gpu, sanitizers over the d64 kernels, interleaved timing vs main's d64 kernels, bench
export PYTHONUNBUFFERED=1
cp -r .dev-lead/tree/. . && mkdir -p v && cp -r .dev-lead/v/main_d64 v/ || exit 2
S=$SECONDS
sha256sum kernels/co/sm_90a/hopper_fwd.cubin v/main_d64/hopper_fwd.cubin
CHECK_S=120 TESTS_S=260 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-S))s)"
t0=$SECONDS; KERNELS='_d64(_s4|_static|_softcap)?$' LIMIT=45 STEPS=sanitize OUT=$OUT/s bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s)"
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;16,32,32,1024,1024,64,1"
R="$R;8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1;4,32,32,4096,4096,64,0;4,32,32,4096,4096,64,1;1,32,32,16384,16384,64,0;1,32,32,16384,16384,64,1"
t0=$SECONDS; HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=1 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none timeout 120 \
  python3 bench/hopper_dev.py time v/main_d64 > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
left=$((585-(SECONDS-S)))
t0=$SECONDS; BENCH_S=$left STEPS=bench OUT=$OUT/b bash bench/hopper_validate.sh > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
cp $OUT/b/bench/results.json $OUT/bench.json; cp $OUT/b/bench/results.png $OUT/bench.png; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log
tail -4 $OUT/validate.log; tail -9 $OUT/sanitize.log; tail -48 $OUT/bench.log | head -46; tail -14 $OUT/time.log
(cd $OUT && rm -f s/hopper_sanitize && tar czf rest.tgz v s b && rm -rf v s b)
