#!/bin/bash
# issue11ah call ah1 (helper ah, branch issue11ah-c2ncprofile from main a8012cf): where the d64 _c2 kernel loses ~1-2% to
# cuDNN on non-causal 512-1024-key rows.  kind nvidia-h100-x1, carry [".whl", ".dev-ah"], the usual prefix, then
# `bash .dev-ah/ah1.sh`.  Over /work/main's tree (cubin c69f15d3...: the "hopper" column; base_d64 / aa_d64 = copies of it).
# Steps: ncu sections + metrics, one launch each after 3 warm-ups: ours / cuDNN at 32x512 16/16 and 16x1024 12/12 d64
# non-causal; ncu SourceCounters (sampling interval 1 = 64 cycles) of ours / cuDNN at 32x512 16/16; paired timing
# (5 rounds) of 5 bench-like rows + 5 tiny rows, columns hopper, base_d64, aa_d64, cuDNN.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-ah
V=$L/v
OUT=${OUT:-/tmp/ah-out}
mkdir -p "$OUT" /tmp/nv
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
ship=$(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64); echo "checkout cubin $ship"
[ "$ship" = c69f15d3f64bd37157559b87c4ec0f2f8762c4bc89329519c7a008f46cfd9785 ] || echo "WARNING: checkout cubin is not c69f15d3"
for n in base_d64 aa_d64; do mkdir -p $V/$n && cp kernels/co/sm_90a/hopper_fwd.cubin kernels/co/sm_90a/hopper_manifest.json $V/$n/; done
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1); echo "ncu $ncu"
A=32,16,16,512,512,64,0; B=16,12,12,1024,1024,64,0
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,gpc__cycles_elapsed.max
M=$M,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active
M=$M,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
M=$M,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,smsp__issue_active.avg.pct_of_peak_sustained_active
t0=$SECONDS
timeout 60 $ncu --profile-from-start off --clock-control none --import-source no --section SpeedOfLight --section WarpStateStats \
  --section SchedulerStats --section LaunchStats --metrics $M -o /tmp/nv/h1 -f \
  python3 $L/ncu_multi.py hopper - $A cudnn - $A hopper - $B cudnn - $B > /tmp/nv/h1.log 2>&1
echo "ncu rc $? ($((SECONDS-t0))s)"; grep -E "^profiled|ERR|rror" /tmp/nv/h1.log | head -8 | cut -c1-200
$ncu -i /tmp/nv/h1.ncu-rep --page raw --csv > /tmp/nv/h1-raw.csv 2>&1
$ncu -i /tmp/nv/h1.ncu-rep --page details > /tmp/nv/h1-details.txt 2>&1
python3 $L/ncu_sum2.py /tmp/nv/h1-raw.csv 2>&1 | tee $OUT/ncu_sum.txt | cut -c1-300
t0=$SECONDS
timeout 45 $ncu --profile-from-start off --clock-control none --import-source no --warp-sampling-interval 1 \
  --warp-sampling-buffer-size 536870912 --section SourceCounters --section WarpStateStats -o /tmp/nv/h1src -f \
  python3 $L/ncu_multi.py hopper - $A cudnn - $A > /tmp/nv/h1src.log 2>&1
echo "ncu src rc $? ($((SECONDS-t0))s)"; grep -E "^profiled|ERR|rror" /tmp/nv/h1src.log | head -6 | cut -c1-200
$ncu -i /tmp/nv/h1src.ncu-rep --page source --csv --print-source sass > /tmp/nv/h1-src.csv 2>/tmp/nv/h1-src.err || true
$ncu -i /tmp/nv/h1src.ncu-rep --page raw --csv > /tmp/nv/h1src-raw.csv 2>&1
python3 $L/src.py /tmp/nv/h1-src.csv 2>&1 | cut -c1-250 | head -24
(cd /tmp/nv && tar -cJf $OUT/ncu.tar.xz h1-raw.csv h1-details.txt h1.log h1src.log h1-src.csv h1-src.err h1src-raw.csv 2>/dev/null)
ls -la $OUT/ncu.tar.xz
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;8,32,32,2048,2048,64,0"
R="$R;1,132,132,128,128,64,0;4,132,132,128,128,64,0;1,33,33,512,512,64,0;2,33,33,512,512,64,0;1,33,33,1024,1024,64,0"
left=$((140-(SECONDS-S))); [ $left -gt 30 ] || left=30
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout $left python3 bench/hopper_dev.py time $V/base_d64 $V/aa_d64 > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s, limit ${left}s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json
