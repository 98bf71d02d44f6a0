#!/bin/bash
# lead call d3: main 9419ba6 as committed (cubin 90d3dea3..., HOPPER_PDEC_D64 with per-thread q_empty arrivals; causal d64
# on hopper from 512): causal short d64 hopper (forced) vs portable vs cuDNN, check, tests/gpu, sanitizers over d64, bench
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin; git log --oneline -1 2>/dev/null
R="32,32,32,512,512,64,1;16,32,32,1024,1024,64,1;32,16,16,512,512,64,1;16,12,12,1024,1024,64,1;8,32,32,2048,2048,64,1;32,16,16,512,512,64,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=1 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none timeout 90 \
  python3 bench/hopper_dev.py time > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"; tail -8 $OUT/time.log
t0=$SECONDS; CHECK_S=90 TESTS_S=240 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-t0))s)"
t0=$SECONDS; KERNELS='_d64(_s4)?$' LIMIT=40 STEPS=sanitize OUT=$OUT/s bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s)"
left=$((560-(SECONDS-S)))
t0=$SECONDS; BENCH_S=$left STEPS=bench OUT=$OUT/b bash bench/hopper_validate.sh > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
cp $OUT/b/bench/results.json $OUT/bench.json; cp $OUT/b/bench/results.png $OUT/bench.png; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log
tail -3 $OUT/validate.log; tail -7 $OUT/sanitize.log; tail -48 $OUT/bench.log | head -46
(cd $OUT && find . -name hopper_sanitize -delete; tar czf rest.tgz v s b && rm -rf v s b)
