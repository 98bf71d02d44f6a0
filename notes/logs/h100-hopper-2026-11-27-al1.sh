#!/bin/bash
# call al1 (the lead, session 7, branch issue11al-l2short): causal problems of <= 512 keys with 4096-KiB L2 sections
# (L2_SHORT_SK=512) against the shipped 16384; paired timing, 9 rounds; base = the default build (= the shipped cubin).
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-al; V=$L/v
OUT=${OUT:-/tmp/al-out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L && cp -r $V/base $V/aa
sha256sum kernels/co/sm_90a/hopper_fwd.cubin $V/*/hopper_fwd.cubin | cut -c1-16,65-
R="32,32,32,512,512,64,1;32,16,16,512,512,64,1;64,32,32,256,256,64,1;32,16,16,512,512,128,1;16,32,8,512,512,128,1;64,16,16,256,256,128,1;16,32,32,1024,1024,64,1"
HOPPER_DEV_ROUNDS=9 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none OUT=$OUT \
  timeout 200 python3 bench/hopper_dev.py time $V/base $V/aa $V/sh512 > $OUT/time.log 2>&1; echo "time rc=$?"
grep -E "failed|Error" $OUT/time.log | head -3
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json aa sh512
