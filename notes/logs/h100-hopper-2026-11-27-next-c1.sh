#!/bin/bash
# lead call 1 on issue11h-next (224413a): check, varlen check, tests/gpu, varlen time, tail / s4 timings
export PYTHONUNBUFFERED=1
cp -r .dev-lead/tree/. . && mkdir -p v && cp -r .dev-lead/v/main_d64 v/ || exit 2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin v/main_d64/hopper_fwd.cubin
S=$SECONDS
t0=$SECONDS; timeout 150 python3 bench/hopper_dev.py check > $OUT/check.log 2>&1; echo "check rc=$? ($((SECONDS-t0))s): $(tail -1 $OUT/check.log)"
grep -E "FAIL|Error" $OUT/check.log | head -10
t0=$SECONDS; timeout 90 python3 bench/hopper_varlen_dev.py check > $OUT/check_varlen.log 2>&1; echo "varlen check rc=$? ($((SECONDS-t0))s): $(tail -1 $OUT/check_varlen.log)"
grep -E "FAIL|Error" $OUT/check_varlen.log | head -10
t0=$SECONDS; timeout 280 python3 -m pytest -q -rfs -p no:cacheprovider tests/gpu > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$? ($((SECONDS-t0))s): $(tail -1 $OUT/gpu-tests.log)"
grep -E "^(FAILED|ERROR)" $OUT/gpu-tests.log | head
t0=$SECONDS; OUT=$OUT timeout 60 python3 bench/hopper_varlen_dev.py time > $OUT/time_varlen.log 2>&1; echo "varlen time rc=$? ($((SECONDS-t0))s)"
R="1,2,2,40000,40000,64,0;1,4,4,8192,8192,64,0;1,8,8,8192,8192,64,0;2,8,8,4096,4096,64,0;32,16,16,512,512,64,0;16,12,12,1024,1024,64,0"
left=$((570-(SECONDS-S)))
if [ $left -gt 40 ]; then
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none timeout $((left/2)) \
  python3 bench/hopper_dev.py time v/main_d64 > $OUT/time_nc.log 2>&1; echo "time nc rc=$? ($((SECONDS-t0))s)"
fi
R="4,32,32,4096,4096,64,1;2,32,32,8192,8192,64,1;1,16,16,8192,8192,64,1;2,16,16,4096,4096,64,1"
left=$((575-(SECONDS-S)))
if [ $left -gt 30 ]; then
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none timeout $left \
  python3 bench/hopper_dev.py time > $OUT/time_c.log 2>&1; echo "time causal rc=$? ($((SECONDS-t0))s)"
fi
echo; tail -17 $OUT/time_varlen.log; echo; tail -9 $OUT/time_nc.log; echo; tail -7 $OUT/time_c.log
