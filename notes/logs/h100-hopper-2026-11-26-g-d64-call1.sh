#!/usr/bin/env bash
# helper g3 (issue11g-d64), call 1: variants vs main's shipped cubin: check, time, ncu (ours vs cuDNN)
set -uo pipefail
D=.dev-g3
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin
t0=$(date +%s)
timeout 110 python3 bench/hopper_dev.py check-only $D/v_skip_d64 $D/v_nwg2_d64 > $OUT/check.log 2>&1; echo "check rc $?: $(tail -1 $OUT/check.log) ($(( $(date +%s) - t0 )) s)"
grep FAIL $OUT/check.log | head -5
t0=$(date +%s)
A=8,32,32,2048,2048,64,1; B=1,2,2,40000,40000,64,0
timeout 100 ncu --profile-from-start off --clock-control none --section LaunchStats --section Occupancy --section SpeedOfLight \
  --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
  -k regex:"hopper_fwd|sdpa|fmha|flash" -o /tmp/g3rep -f \
  python3 $D/ncu_multi.py hopper - $A hopper $D/v_skip_d64/hopper_fwd.cubin $A cudnn - $A hopper - $B hopper $D/v_nwg2_d64/hopper_fwd.cubin $B cudnn - $B > /tmp/ncu_run.log 2>&1
echo "ncu rc $? ($(( $(date +%s) - t0 )) s)"; tail -3 /tmp/ncu_run.log
ncu -i /tmp/g3rep.ncu-rep --page details > $OUT/ncu_details.txt 2>&1
t0=$(date +%s)
ROWS="8,32,32,2048,2048,64,1;8,32,32,2048,2048,64,0;4,32,32,4096,4096,64,1;4,32,32,4096,4096,64,0;1,2,2,40000,40000,64,0;1,8,8,32768,32768,64,0;8,16,16,8192,8192,64,0;2,32,32,8192,8192,64,1;1,32,32,16384,16384,64,1;32,32,32,512,512,64,1;16,32,32,1024,1024,64,1;32,32,32,512,512,64,0;16,32,32,1024,1024,64,0"
HOPPER_DEV_SHAPES="$ROWS" HOPPER_DEV_PGRID=none HOPPER_DEV_PEERS=cudnn OUT=$OUT timeout 200 python3 bench/hopper_dev.py time \
  $D/v_skip_d64 $D/v_nwg2_d64 $D/v_nwg2ns_d64 $D/v_st4_d64 > $OUT/time.log 2>&1
echo "time rc $? ($(( $(date +%s) - t0 )) s)"
grep -E "^  [a-z]|Error" $OUT/time.log | head -5
grep -E "^  [a-z_0-9]+ \(|Grid Size|Block Size|Registers Per|Dynamic Shared|Duration|Compute \(SM\) Throughput|Issue Slots Busy|No Eligible|Tensor is|highest-utilized|Achieved Occupancy|Waves Per SM|L2 Hit Rate|DRAM Throughput" $OUT/ncu_details.txt | sed 's/  */ /g' | cut -c1-160 | head -120
tail -16 $OUT/time.log
