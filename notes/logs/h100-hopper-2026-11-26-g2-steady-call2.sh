#!/usr/bin/env bash
# helper g2 (issue11g-steady), call 2: descriptor-add variants (DESC_ADD_D128) with / without the vote, rescale in turn,
# TMA store: SASS counts, check, interleaved timing (9 rounds, every column in every position once), ncu of two variants
set -uo pipefail
D=.dev-g2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T0=$(date +%s)
for v in kernels/co/sm_90a $D/v_nv $D/v_d $D/v_dnv $D/v_dall; do
  echo "== $v d128: $(cuobjdump -sass -fun hopper_fwd_bf16_d128 "$v/hopper_fwd.cubin" | grep -cE '^\s+/\*[0-9a-f]{4,}\*/') SASS lines; $(cuobjdump -sass -fun hopper_fwd_bf16_d128 "$v/hopper_fwd.cubin" | grep -oE 'HGMMA|R2UR|UTMASTG|STG|STL|LDL|VOTE' | sort | uniq -c | tr '\n' ' ')"
done
t0=$(date +%s)
timeout 120 python3 bench/hopper_dev.py check-only $D/v_d $D/v_dnv $D/v_dritnv $D/v_dall $D/v_dallnv > $OUT/check2.log 2>&1
echo "check rc $?: $(tail -1 $OUT/check2.log) ($(( $(date +%s) - t0 )) s); FAIL lines: $(grep -c FAIL $OUT/check2.log)"
grep FAIL $OUT/check2.log | head -5
t0=$(date +%s)
SH="8,16,16,2048,2048,128,0;4,16,16,4096,4096,128,0;2,16,16,8192,8192,128,0;1,16,16,16384,16384,128,0;16,16,16,1024,1024,128,0;1,32,8,8192,8192,128,1;2,64,8,4096,4096,128,1;1,16,16,16384,16384,128,1"
SHAPES="$SH" ROUNDS=9 REP_MS=40 OUT=$OUT TIME_JSON=time2.json timeout 200 python3 $D/time_il.py $D/v_nv $D/v_all $D/v_d $D/v_dnv $D/v_dritnv $D/v_dall $D/v_dallnv > $OUT/time2.log 2>&1
echo "time rc $? ($(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
NC="--profile-from-start off --clock-control none --section SpeedOfLight --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis --section LaunchStats --section SourceCounters --import-source no -k regex:hopper_fwd"
for v in v_dnv v_dall; do
  timeout 40 ncu $NC -o /tmp/n2_$v -f python3 bench/hopper_ncu.py hopper 8 16 16 2048 2048 128 0 $D/$v/hopper_fwd.cubin > /tmp/ncu2_$v.log 2>&1; echo "ncu $v rc $?"
done
for v in v_dnv v_dall; do echo "##### $v"; ncu -i /tmp/n2_$v.ncu-rep --page details 2>&1; done > $OUT/ncu2_details.txt
for v in v_dnv v_dall; do echo "##### $v"; ncu -i /tmp/n2_$v.ncu-rep --page source --csv --print-source sass 2>&1; done | gzip > $OUT/ncu2_source.csv.gz
for v in v_dnv v_dall; do echo "##### $v"; ncu -i /tmp/n2_$v.ncu-rep --page raw --csv 2>&1; done | gzip > $OUT/ncu2_raw.csv.gz
echo "ncu ($(( $(date +%s) - t0 )) s); elapsed $(( $(date +%s) - T0 )) s"
grep -E "^#####|Duration|Executed Instructions  |Compute \(SM\) Throughput|Issue Slots Busy|No Eligible" $OUT/ncu2_details.txt | head -20
tail -11 $OUT/time2.log
