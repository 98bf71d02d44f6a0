#!/bin/bash
# call g2 (the lead, session 7): planner-only gate check over main's shipped cubin: _fk on causal d128 above 4096 keys (g1
# read 1.007-1.028x there), _s4 on non-causal long d64 rows, against base copies (A/A) and cuDNN; paired, 7 rounds.
S=$SECONDS
L=.dev-g2
OUT=${OUT:-/tmp/g2-out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "cubin $(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16)"
for v in base_d128 fkall_d128 base_d64 s4all_d64; do mkdir -p $L/v/$v && cp kernels/co/sm_90a/hopper_fwd.cubin kernels/co/sm_90a/hopper_manifest.json $L/v/$v/; done
R="2,16,16,8192,8192,128,1;1,16,16,16384,16384,128,1;1,32,8,8192,8192,128,1;1,16,16,32768,32768,128,1;2,32,8,8192,8192,128,1"
R="$R;1,8,8,32768,32768,64,0;2,32,32,8192,8192,64,0;8,32,32,2048,2048,64,0;4,32,32,4096,4096,64,0;1,32,32,16384,16384,64,0;8,16,16,8192,8192,64,0"
HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none OUT=$OUT \
  timeout 200 python3 $L/gate.py time $L/v/base_d128 $L/v/fkall_d128 $L/v/base_d64 $L/v/s4all_d64 > $OUT/time.log 2>&1; echo "time rc=$?"
grep "plan \|rror" $OUT/time.log | sort -u | head -40
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json
