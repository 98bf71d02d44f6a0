#!/usr/bin/env bash
# helper h11s, call 1: kernels/co = the EP+XT build (this branch's defaults); variants under .dev-h11s/
set -uo pipefail
D=.dev-h11s
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in kernels/co/sm_90a $D/v_base $D/v_ep $D/v_xt; do
  echo "== $v: $(cuobjdump -sass "$v/hopper_fwd.cubin" | grep -oE 'UTMALDG|HGMMA|STSM|STL|LDL|WARPGROUP.DEPBAR' | sort | uniq -c | tr '\n' ' ')"
done
t0=$(date +%s)
timeout 150 python3 bench/hopper_dev.py check $D/v_ep $D/v_xt > $OUT/check.log 2>&1; echo "check rc $?: $(tail -1 $OUT/check.log) ($(( $(date +%s) - t0 )) s)"
grep -c FAIL $OUT/check.log
t0=$(date +%s)
HOPPER_DEV_D=128 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PORTABLE=0 OUT=$OUT timeout 150 python3 bench/hopper_dev.py time $D/v_base $D/v_ep $D/v_xt $D/v_epxt128 > $OUT/time.log 2>&1
echo "time rc $? ($(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
A=32,16,16,512,512,128,0; B=16,16,16,1024,1024,128,1; C=4,16,16,4096,4096,128,0
bb=$D/v_base/hopper_fwd.cubin
timeout 120 ncu --profile-from-start off --clock-control none --import-source no --section SpeedOfLight --section WarpStateStats \
  --section SchedulerStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section SourceCounters -k regex:hopper_fwd -o /tmp/h11s_rep -f \
  python3 $D/ncu_multi.py $bb $A - $A $bb $B - $B $bb $C - $C > /tmp/ncu_run.log 2>&1
echo "ncu rc $? ($(( $(date +%s) - t0 )) s)"; tail -4 /tmp/ncu_run.log
ncu -i /tmp/h11s_rep.ncu-rep --page details > $OUT/ncu_details.txt 2>&1
for i in 0 1 2 3 4 5; do echo "=== result $i"; ncu -i /tmp/h11s_rep.ncu-rep --page source --csv --print-source sass -s $i -c 1 2>&1; done | gzip > $OUT/ncu_source.csv.gz
ls -la $OUT
t0=$(date +%s)
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_hopper_gpu.py > $OUT/pytest_hopper.log 2>&1; echo "pytest rc $?: $(tail -1 $OUT/pytest_hopper.log) ($(( $(date +%s) - t0 )) s)"
gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
args=$(python3 -c "import json; m = json.load(open('kernels/co/sm_90a/hopper_manifest.json'))['objects']; \
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" for o in m if o['dtype'] == 'bf16' and o['head_dim'] == 128))")
echo "sanitize specs: $args"
co=kernels/co/sm_90a/hopper_fwd.cubin
{ t0=$(date +%s); timeout 30 /tmp/hopper_sanitize $co $args; echo "native rc $? ($(( $(date +%s) - t0 )) s)"
  for tool in memcheck racecheck synccheck; do t0=$(date +%s)
    timeout 60 compute-sanitizer --tool $tool --print-limit 20 /tmp/hopper_sanitize $co $args; echo "$tool rc $? ($(( $(date +%s) - t0 )) s)"; done; } > $OUT/sanitize.log 2>&1
grep -E "native rc|rc [0-9]+ \(|ERROR SUMMARY|RACECHECK SUMMARY|FAIL" $OUT/sanitize.log
grep -E "^=|Duration|Compute \(SM\) Throughput|Issue Slots Busy|No Eligible|L2 Cache Throughput|DRAM Throughput|  hopper_fwd" $OUT/ncu_details.txt | head -80
tail -22 $OUT/time.log
