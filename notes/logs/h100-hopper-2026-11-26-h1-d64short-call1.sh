#!/bin/bash
# helper h1 (issue11h-d64short), call 1: d64 variants (TMA store; TMA store + 4 stages) checked and timed against
# the shipped cubin (main a2a4bc8), cuDNN, and portable on short causal rows
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin .dev-h1/v_*/hopper_fwd.cubin
timeout 100 python3 bench/hopper_dev.py check-only .dev-h1/v_tma_d64 .dev-h1/v_tma_st4_d64 > $OUT/check.log 2>&1
echo "check-only rc=$?: $(tail -1 $OUT/check.log)"
grep -iE "fail|error|hang|timeout" $OUT/check.log | head -20
S="32,32,32,512,512,64,0;16,32,32,1024,1024,64,0;32,16,16,512,512,64,0;16,12,12,1024,1024,64,0;32,32,32,512,512,64,1;16,32,32,1024,1024,64,1;8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1;4,32,32,4096,4096,64,0;4,32,32,4096,4096,64,1;1,32,32,16384,16384,64,0;1,32,32,16384,16384,64,1"
SHAPES="$S" ROUNDS=5 REP_MS=25 timeout 200 python3 .dev-h1/time_il.py .dev-h1/v_tma_d64 .dev-h1/v_tma_st4_d64 > $OUT/time.log 2>&1
echo "time rc=$?"
tail -14 $OUT/time.log
