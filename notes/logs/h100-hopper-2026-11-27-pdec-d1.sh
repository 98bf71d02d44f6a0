#!/bin/bash
# lead call d1 (2026-11-28 session): main + HOPPER_PDEC_D64 (producer-side tile decode for the d64 kernels) as the shipped cubin,
# bench/hopper_sanitize.c with one shared reference (stricter NaN LSE check): check, tests/gpu (also covers last session's
# test refactors), sanitizers over d64 / d64_s4 / d128 / d64_varlen, interleaved timing vs main's d64 kernels (v/old_d64)
export PYTHONUNBUFFERED=1
cp -r .dev-lead/tree/. . && mkdir -p v && cp -r .dev-lead/v/old_d64 v/ || exit 2
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin v/old_d64/hopper_fwd.cubin
CHECK_S=120 TESTS_S=260 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-S))s)"
t0=$SECONDS; KERNELS='_d64(_s4)?$|_d128$|_d64_varlen$' LIMIT=45 STEPS=sanitize OUT=$OUT/s bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s)"
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;16,32,32,1024,1024,64,1"
R="$R;8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1;4,32,32,4096,4096,64,0;4,32,32,4096,4096,64,1;1,32,32,16384,16384,64,0;1,2,2,40000,40000,64,0;8,16,16,8192,8192,64,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none timeout 150 \
  python3 bench/hopper_dev.py time v/old_d64 > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log 2>/dev/null
tail -4 $OUT/validate.log; tail -9 $OUT/sanitize.log; tail -16 $OUT/time.log
(cd $OUT && rm -f s/hopper_sanitize && tar czf rest.tgz v s && rm -rf v s)
