#!/usr/bin/env bash
# helper h2 (issue11h-d128), call 2: the softmax-bracketing ping-pong (PP_SOFTMAX_D128) and decode-once variants:
# check, interleaved timing against the shipped cubin and cuDNN (with the _static planner experiment on top), ncu of
# v_pps at 32x512, sanitizers over v_pps's bf16 d128 kernels
set -uo pipefail
D=.dev-h2
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
T0=$(date +%s)
for v in kernels/co/sm_90a $D/v_pps $D/v_dec $D/v_ppsdec; do
  echo "== $v: $(cuobjdump -sass -fun hopper_fwd_bf16_d128 $v/hopper_fwd.cubin | grep -cE '^\s+/\*[0-9a-f]{4,}\*/') SASS lines d128; $(cuobjdump -sass -fun hopper_fwd_bf16_d128 $v/hopper_fwd.cubin | grep -oE 'HGMMA|MUFU.EX2|STL|LDL|BAR.SYNC|BAR.ARV|I2F|MUFU.RCP' | sort | uniq -c | tr '\n' ' ')"
done
python3 $D/mkp.py kernels/co/sm_90a $D/p_static static >/dev/null; python3 $D/mkp.py $D/v_pps $D/p_static_pps static >/dev/null
t0=$(date +%s)
timeout 100 python3 bench/hopper_dev.py check-only $D/v_pps $D/v_dec $D/v_ppsdec > $OUT/check2.log 2>&1
echo "check rc $?: $(tail -1 $OUT/check2.log) ($(( $(date +%s) - t0 )) s); FAIL lines: $(grep -c FAIL $OUT/check2.log)"
grep FAIL $OUT/check2.log | head -5
t0=$(date +%s)
gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
co=$D/v_pps/hopper_fwd.cubin
args=$(python3 -c "import json; m = json.load(open('$D/v_pps/hopper_manifest.json'))['objects']; \
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" for o in m if o['dtype'] == 'bf16' and o['head_dim'] == 128))")
{ echo "specs: $args"; timeout 25 /tmp/hopper_sanitize $co $args; echo "native rc $?"
  for tool in memcheck racecheck synccheck; do t1=$(date +%s)
    timeout 50 compute-sanitizer --tool $tool --print-limit 20 /tmp/hopper_sanitize $co $args; echo "$tool rc $? ($(( $(date +%s) - t1 )) s)"; done; } > $OUT/sanitize2.log 2>&1
grep -E "native rc|rc [0-9]+ \(|ERROR SUMMARY|RACECHECK SUMMARY|FAIL" $OUT/sanitize2.log
echo "sanitize ($(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
timeout 60 ncu --profile-from-start off --clock-control none --set full -o /tmp/n2 -f python3 $D/ncu_multi.py hopper $D/v_pps/hopper_fwd.cubin 32,16,16,512,512,128,0 > /tmp/ncu2.log 2>&1
echo "ncu rc $? ($(( $(date +%s) - t0 )) s)"
ncu -i /tmp/n2.ncu-rep --page raw --csv > /tmp/n2_raw.csv 2>&1; python3 $D/ncu_sum.py /tmp/n2_raw.csv > $OUT/ncu2_sum.txt 2>&1; cat $OUT/ncu2_sum.txt | head -20
ncu -i /tmp/n2.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > $OUT/ncu2_source_sass.csv.gz
t0=$(date +%s)
SH="32,16,16,512,512,128,0;32,16,16,512,512,128,1;16,16,16,1024,1024,128,0;8,16,16,2048,2048,128,0;4,16,16,4096,4096,128,0;2,16,16,8192,8192,128,0;1,16,16,16384,16384,128,0;4,16,16,4096,4096,128,1;16,16,16,1024,1024,128,1"
SHAPES="$SH" ROUNDS=7 REP_MS=30 OUT=$OUT TIME_JSON=time2.json timeout 150 python3 $D/time_il.py $D/v_pps $D/v_dec $D/v_ppsdec $D/p_static $D/p_static_pps > $OUT/time2.log 2>&1
echo "time rc $? ($(( $(date +%s) - t0 )) s); elapsed $(( $(date +%s) - T0 )) s"
tail -11 $OUT/time2.log
