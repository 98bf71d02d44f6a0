#!/bin/bash
# call g4 (the lead, session 7): planner-only: a balanced persistent grid (as many rounds, equal tiles a CTA) on
# non-causal rows whose last round is partly empty; paired, 7 rounds.
S=$SECONDS
L=.dev-g4
OUT=${OUT:-/tmp/g4-out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "cubin $(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16)"
for v in base_d128 bal_d128 base_d64 bal_d64; do mkdir -p $L/v/$v && cp kernels/co/sm_90a/hopper_fwd.cubin kernels/co/sm_90a/hopper_manifest.json $L/v/$v/; done
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;8,32,32,2048,2048,64,0"
R="$R;1,8,8,32768,32768,64,0;32,16,16,512,512,128,0;8,16,16,2048,2048,128,0;2,16,16,8192,8192,128,0"
HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none OUT=$OUT \
  timeout 200 python3 $L/gate.py time $L/v/base_d128 $L/v/bal_d128 $L/v/base_d64 $L/v/bal_d64 > $OUT/time.log 2>&1; echo "time rc=$?"
grep "plan \|rror" $OUT/time.log | sort -u | head -40
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json
