#!/usr/bin/env bash
# helper h2 (issue11h-d128), call 1: ncu of the shipped d128 kernel (-lineinfo build, same SASS) vs cuDNN at 32x512 and
# 4x4096 16/16 non-causal; check + interleaved timing of the softmax-tree / non-causal-dynamic variants and planner
# experiments (p_static, p_bn176) against the shipped cubin and cuDNN
set -uo pipefail
D=.dev-h2
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
T0=$(date +%s)
for v in kernels/co/sm_90a $D/v_li $D/v_tree $D/v_ncdyn $D/v_both; do
  echo "== $v: $(cuobjdump -sass -fun hopper_fwd_bf16_d128 $v/hopper_fwd.cubin | grep -cE '^\s+/\*[0-9a-f]{4,}\*/') SASS lines d128; $(cuobjdump -sass -fun hopper_fwd_bf16_d128 $v/hopper_fwd.cubin | grep -oE 'HGMMA|MUFU.EX2|FMNMX|FADD|STL|LDL|ATOMG|BAR.SYNC|BAR.ARV' | sort | uniq -c | tr '\n' ' ')"
done
python3 $D/mkp.py kernels/co/sm_90a $D/p_static static >/dev/null; python3 $D/mkp.py kernels/co/sm_90a $D/p_bn176 bn176 >/dev/null
t0=$(date +%s)
timeout 100 python3 bench/hopper_dev.py check-only $D/v_tree $D/v_ncdyn $D/v_both > $OUT/check1.log 2>&1
echo "check rc $?: $(tail -1 $OUT/check1.log) ($(( $(date +%s) - t0 )) s); FAIL lines: $(grep -c FAIL $OUT/check1.log)"
grep FAIL $OUT/check1.log | head -5
t0=$(date +%s)
NC="--profile-from-start off --clock-control none --set full --import-source yes"
timeout 150 ncu $NC -o /tmp/n1 -f python3 $D/ncu_multi.py hopper $D/v_li/hopper_fwd.cubin 32,16,16,512,512,128,0 cudnn - 32,16,16,512,512,128,0 \
  hopper $D/v_li/hopper_fwd.cubin 4,16,16,4096,4096,128,0 cudnn - 4,16,16,4096,4096,128,0 > /tmp/ncu1.log 2>&1
echo "ncu rc $? ($(( $(date +%s) - t0 )) s)"; tail -3 /tmp/ncu1.log
ncu -i /tmp/n1.ncu-rep --page raw --csv > /tmp/n1_raw.csv 2>&1; gzip -c /tmp/n1_raw.csv > $OUT/ncu1_raw.csv.gz
ncu -i /tmp/n1.ncu-rep --page details > $OUT/ncu1_details.txt 2>&1
ncu -i /tmp/n1.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > $OUT/ncu1_source_sass.csv.gz
ncu -i /tmp/n1.ncu-rep --page source --csv --print-source cuda 2>&1 | gzip > $OUT/ncu1_source_cuda.csv.gz
python3 $D/ncu_sum.py /tmp/n1_raw.csv > $OUT/ncu1_sum.txt 2>&1; cat $OUT/ncu1_sum.txt
echo "elapsed $(( $(date +%s) - T0 )) s"
t0=$(date +%s)
SH="32,16,16,512,512,128,0;32,16,16,512,512,128,1;16,16,16,1024,1024,128,0;8,16,16,2048,2048,128,0;4,16,16,4096,4096,128,0;2,16,16,8192,8192,128,0;1,16,16,16384,16384,128,0;4,16,16,4096,4096,128,1;16,16,16,1024,1024,128,1"
SHAPES="$SH" ROUNDS=7 REP_MS=30 OUT=$OUT TIME_JSON=time1.json timeout 170 python3 $D/time_il.py $D/v_tree $D/v_ncdyn $D/v_both $D/p_static $D/p_bn176 > $OUT/time1.log 2>&1
echo "time rc $? ($(( $(date +%s) - t0 )) s); elapsed $(( $(date +%s) - T0 )) s"
tail -11 $OUT/time1.log
