#!/bin/bash
# call l2 (the lead, session 7): the causal tile order's L2 sections (build L2_SECTION_KB: 16384 shipped; 4096, 65536, 0 =
# none) on causal rows, paired timing, 7 rounds; base = a copy of the shipped cubin (dbbd65a).
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-l2; V=$L/v
OUT=${OUT:-/tmp/l2-out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L && cp -r $V/base $V/aa
sha256sum $V/*/hopper_fwd.cubin | cut -c1-16,65-
R="32,32,32,512,512,64,1;16,32,32,1024,1024,64,1;8,32,32,2048,2048,64,1;32,16,16,512,512,128,1;8,16,16,2048,2048,128,1;2,64,8,4096,4096,128,1;4,32,8,4096,4096,128,1"
HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none OUT=$OUT \
  timeout 200 python3 bench/hopper_dev.py time $V/base $V/aa $V/l2s4096 $V/l2s65536 $V/l2s0 > $OUT/time.log 2>&1; echo "time rc=$?"
grep -E "failed|Error" $OUT/time.log | head -3
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json aa l2s4096 l2s65536 l2s0
