#!/usr/bin/env bash
# helper h11s, call 2: kernels/co = EP + XT + AHEAD (this branch's defaults); variants under .dev-h11s/
set -uo pipefail
D=.dev-h11s
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in kernels/co/sm_90a $D/v_epah; do
  echo "== $v: $(cuobjdump -sass "$v/hopper_fwd.cubin" | grep -oE 'UTMALDG|HGMMA|STSM|STL|LDL|WARPGROUP.DEPBAR' | sort | uniq -c | tr '\n' ' ')"
done
t0=$(date +%s)
timeout 150 python3 bench/hopper_dev.py check $D/v_epah > $OUT/check.log 2>&1; echo "check rc $?: $(tail -1 $OUT/check.log) ($(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_hopper_gpu.py > $OUT/pytest.log 2>&1; echo "pytest hopper rc $?: $(tail -1 $OUT/pytest.log) ($(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
timeout 150 python3 -m pytest -q -x -p no:cacheprovider tests/gpu/test_mha_gpu.py >> $OUT/pytest.log 2>&1; echo "pytest mha rc $?: $(tail -1 $OUT/pytest.log) ($(( $(date +%s) - t0 )) s)"
for rep in 1 2; do
  t0=$(date +%s)
  HOPPER_DEV_D=128 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PORTABLE=0 timeout 100 python3 bench/hopper_dev.py time $D/v_base $D/v_ep $D/v_epxt $D/v_epah > $OUT/time$rep.log 2>&1
  echo "time $rep rc $? ($(( $(date +%s) - t0 )) s)"
done
gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
args=$(python3 -c "import json; m = json.load(open('kernels/co/sm_90a/hopper_manifest.json'))['objects']; \
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" for o in m if o['head_dim'] == 128))")
echo "sanitize specs: $args"
co=kernels/co/sm_90a/hopper_fwd.cubin
{ t0=$(date +%s); timeout 30 /tmp/hopper_sanitize $co $args; echo "native rc $? ($(( $(date +%s) - t0 )) s)"
  for tool in memcheck racecheck synccheck; do t0=$(date +%s)
    timeout 60 compute-sanitizer --tool $tool --print-limit 20 /tmp/hopper_sanitize $co $args; echo "$tool rc $? ($(( $(date +%s) - t0 )) s)"; done; } > $OUT/sanitize.log 2>&1
grep -E "native rc|rc [0-9]+ \(|ERROR SUMMARY|RACECHECK SUMMARY|FAIL" $OUT/sanitize.log
t0=$(date +%s)
A=32,16,16,512,512,128,0
timeout 60 ncu --profile-from-start off --clock-control none --import-source no --section SpeedOfLight --section WarpStateStats \
  --section SchedulerStats --section SourceCounters -k regex:hopper_fwd -o /tmp/h11s_rep2 -f \
  python3 $D/ncu_multi.py $D/v_epxt/hopper_fwd.cubin $A - $A > /tmp/ncu_run.log 2>&1
echo "ncu rc $? ($(( $(date +%s) - t0 )) s)"
ncu -i /tmp/h11s_rep2.ncu-rep --page details > $OUT/ncu_details.txt 2>&1
for i in 0 1; do echo "=== result $i"; ncu -i /tmp/h11s_rep2.ncu-rep --page source --csv --print-source sass -s $i -c 1 2>&1; done | gzip > $OUT/ncu_source.csv.gz
grep -E "Duration|Issue Slots Busy|No Eligible" $OUT/ncu_details.txt
tail -17 $OUT/time1.log; tail -17 $OUT/time2.log
