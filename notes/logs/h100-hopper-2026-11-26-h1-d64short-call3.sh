#!/bin/bash
# helper h1 (issue11h-d64short), call 3: the branch's cubin against a2a4bc8's (v_main_d64), cuDNN and portable, more
# rounds: short causal d64 (hopper vs portable, for PREFERRED[(64, True)]) and the long d64 rows
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin .dev-h1/v_*/hopper_fwd.cubin
S="32,32,32,512,512,64,1;16,32,32,1024,1024,64,1;16,32,8,1024,1024,64,1;4,32,32,4096,4096,64,0;8,16,16,8192,8192,64,0;2,32,32,8192,8192,64,1;1,32,32,16384,16384,64,0;1,32,32,16384,16384,64,1;1,2,2,40000,40000,64,0"
SHAPES="$S" ROUNDS=6 REP_MS=30 timeout 170 python3 .dev-h1/time_il.py .dev-h1/v_main_d64 > $OUT/time3.log 2>&1
echo "time rc=$?"
tail -11 $OUT/time3.log
