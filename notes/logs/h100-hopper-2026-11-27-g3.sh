#!/bin/bash
# call g3 (the lead, session 7): planner-only gate check over the shipped cubin + main dcbe3cc's planner (_fk causal at
# every length): the _static siblings (d128, d64) and d96's _dyn against the kernels the planner would run without them.
S=$SECONDS
L=.dev-g3
OUT=${OUT:-/tmp/g3-out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "cubin $(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16) tree $(git log --oneline -1 2>/dev/null | cut -c1-7)"
grep -q "True: (0, 1 << 30)," pyhipattn/families/hopper.py && echo "planner: _fk causal at every length" || echo "planner: OLD fk gate"
for v in base_d128 nostatic_d128 base_d64 nostatic_d64 base_d96 nodyn_d96; do mkdir -p $L/v/$v && cp kernels/co/sm_90a/hopper_fwd.cubin kernels/co/sm_90a/hopper_manifest.json $L/v/$v/; done
R="2,64,8,4096,4096,128,1;1,16,16,4096,4096,128,1;1,32,8,4096,4096,128,1;2,16,8,2048,2048,128,1"
R="$R;1,32,32,16384,16384,64,1;1,16,16,32768,32768,64,1;2,16,16,16384,16384,64,1"
R="$R;4,32,32,2048,2048,96,1;2,32,32,4096,4096,96,1;8,16,16,1024,1024,96,1"
HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none OUT=$OUT \
  timeout 200 python3 $L/gate.py time $L/v/base_d128 $L/v/nostatic_d128 $L/v/base_d64 $L/v/nostatic_d64 $L/v/base_d96 $L/v/nodyn_d96 > $OUT/time.log 2>&1; echo "time rc=$?"
grep "plan \|rror" $OUT/time.log | sort -u | head -40
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json
