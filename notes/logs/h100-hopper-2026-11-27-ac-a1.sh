#!/bin/bash
# issue11ac (2026-11-27 session 5), call a1: what cuDNN does differently at causal 32x512 32/32 d64 bf16.
# Carry [".whl", ".dev-ac"], kind nvidia-h100-x1, the usual prefix, then `bash .dev-ac/a1.sh`.  Over /work/main b198851's
# tree (cubin 326e354c...: the "hopper" column).  Steps: ncu (SpeedOfLight, WarpStateStats, SchedulerStats, LaunchStats,
# Occupancy + metrics), one launch each: ours (shipped) / cuDNN at 32x512 32/32 causal and non-causal, 16x1024 32/32
# causal; ncu SourceCounters of ours / cuDNN at causal 32x512 (per-SASS stall samples); paired timing (3 rounds) of
# causal / non-causal 32x256, 32x512, 16x1024 (32/32), columns hopper, base_d64 (= a copy of the shipped cubin: A/A), cuDNN.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-ac
OUT=${OUT:-/tmp/ac-out}
mkdir -p "$OUT" /tmp/nv
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "checkout cubin $(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16)"
mkdir -p $L/v/base_d64 && cp kernels/co/sm_90a/hopper_fwd.cubin kernels/co/sm_90a/hopper_manifest.json $L/v/base_d64/
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
C5=32,32,32,512,512,64,1; N5=32,32,32,512,512,64,0; C10=16,32,32,1024,1024,64,1
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,gpc__cycles_elapsed.max
M=$M,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active
M=$M,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
M=$M,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,smsp__issue_active.avg.pct_of_peak_sustained_active
t0=$SECONDS
timeout 70 $ncu --profile-from-start off --clock-control none --import-source no --section SpeedOfLight --section WarpStateStats \
  --section SchedulerStats --section LaunchStats --section Occupancy --metrics $M -o /tmp/nv/a1 -f \
  python3 $L/ncu_multi.py hopper - $C5 cudnn - $C5 hopper - $N5 cudnn - $N5 hopper - $C10 cudnn - $C10 > /tmp/nv/a1.log 2>&1
echo "ncu rc $? ($((SECONDS-t0))s)"; grep -E "^profiled|ERR|rror" /tmp/nv/a1.log | head -12 | cut -c1-200
$ncu -i /tmp/nv/a1.ncu-rep --page raw --csv > /tmp/nv/a1-raw.csv 2>&1
$ncu -i /tmp/nv/a1.ncu-rep --page details > /tmp/nv/a1-details.txt 2>&1
python3 $L/ncu_sum2.py /tmp/nv/a1-raw.csv 2>&1 | tee $OUT/ncu_sum.txt | cut -c1-330
t0=$SECONDS
timeout 50 $ncu --profile-from-start off --clock-control none --import-source no --section SourceCounters --section WarpStateStats \
  -o /tmp/nv/a1src -f python3 $L/ncu_multi.py hopper - $C5 cudnn - $C5 > /tmp/nv/a1src.log 2>&1
echo "ncu src rc $? ($((SECONDS-t0))s)"
$ncu -i /tmp/nv/a1src.ncu-rep --page source --csv --print-source sass > /tmp/nv/a1-src.csv 2>/tmp/nv/a1-src.err || true
(cd /tmp/nv && tar -cJf $OUT/ncu.tar.xz a1-raw.csv a1-details.txt a1.log a1src.log a1-src.csv a1-src.err 2>/dev/null)
R="32,32,32,512,512,64,1;32,32,32,256,256,64,1;16,32,32,1024,1024,64,1;32,32,32,512,512,64,0;32,32,32,256,256,64,0"
R="$R;16,32,32,1024,1024,64,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=3 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 60 python3 bench/hopper_dev.py time $L/v/base_d64 > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json
