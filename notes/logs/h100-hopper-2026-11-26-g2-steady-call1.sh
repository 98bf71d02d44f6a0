#!/usr/bin/env bash
# helper g2 (issue11g-steady), call 1: ncu ours vs cuDNN (8x2048, 2x8192 16/16 d128 nc), check + interleaved timing of
# variants, sanitizers over the TMA-store variant's d128 kernels
set -uo pipefail
D=.dev-g2
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
T0=$(date +%s)
python3 $D/mkp.py kernels/co/sm_90a $D/p_static static
python3 $D/mkp.py kernels/co/sm_90a $D/p_bn176 bn176
python3 $D/mkp.py $D/v_rit $D/p_ritstatic static
python3 $D/mkp.py $D/v_all $D/p_allstatic static
for v in kernels/co/sm_90a $D/v_rit $D/v_nv $D/v_tmas $D/v_all; do
  echo "== $v d128: $(cuobjdump -sass -fun hopper_fwd_bf16_d128 "$v/hopper_fwd.cubin" | grep -oE 'HGMMA|WARPGROUP.DEPBAR|WARPGROUP.ARRIVE|UTMASTG|UTMALDG|STSM|STG|STL|LDL|BAR.SYNC|VOTE' | sort | uniq -c | tr '\n' ' ')"
done
t0=$(date +%s)
timeout 120 python3 bench/hopper_dev.py check-only $D/v_rit $D/v_nv $D/v_ritnv $D/v_tmas $D/v_all > $OUT/check.log 2>&1
echo "check rc $?: $(tail -1 $OUT/check.log) ($(( $(date +%s) - t0 )) s); FAIL lines: $(grep -c FAIL $OUT/check.log)"
grep FAIL $OUT/check.log | head -5
# sanitizers over the TMA-store variant (v_all: TMA store + rescale in turn), its bf16 d128 kernels
gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
co=$D/v_all/hopper_fwd.cubin
args=$(python3 -c "import json; m = json.load(open('$D/v_all/hopper_manifest.json'))['objects']; \
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" for o in m if o['dtype'] == 'bf16' and o['head_dim'] == 128))")
{ t0=$(date +%s); timeout 30 /tmp/hopper_sanitize $co $args; echo "native rc $? ($(( $(date +%s) - t0 )) s)"
  for tool in memcheck racecheck synccheck; do t0=$(date +%s)
    timeout 50 compute-sanitizer --tool $tool --print-limit 20 /tmp/hopper_sanitize $co $args; echo "$tool rc $? ($(( $(date +%s) - t0 )) s)"; done; } > $OUT/sanitize_v_all.log 2>&1
grep -E "native rc|rc [0-9]+ \(|ERROR SUMMARY|RACECHECK SUMMARY|FAIL" $OUT/sanitize_v_all.log
echo "elapsed $(( $(date +%s) - T0 )) s"
t0=$(date +%s)
SH="8,16,16,2048,2048,128,0;4,16,16,4096,4096,128,0;2,16,16,8192,8192,128,0;1,16,16,16384,16384,128,0;16,16,16,1024,1024,128,0;1,32,8,8192,8192,128,1;2,64,8,4096,4096,128,1;1,16,16,16384,16384,128,1;4,16,16,4096,4096,128,1"
SHAPES="$SH" ROUNDS=3 REP_MS=25 OUT=$OUT timeout 190 python3 $D/time_il.py $D/v_rit $D/v_nv $D/v_ritnv $D/v_tmas $D/v_all \
  $D/p_static $D/p_bn176 $D/p_ritstatic $D/p_allstatic > $OUT/time.log 2>&1
echo "time rc $? ($(( $(date +%s) - t0 )) s)"
echo "elapsed $(( $(date +%s) - T0 )) s"
t0=$(date +%s)
NC="--profile-from-start off --clock-control none --set full --import-source no"
timeout 40 ncu $NC -o /tmp/n_h2048 -f python3 bench/hopper_ncu.py hopper 8 16 16 2048 2048 128 0 > /tmp/ncu1.log 2>&1; echo "ncu1 rc $?"
timeout 40 ncu $NC -o /tmp/n_c2048 -f python3 bench/hopper_ncu.py cudnn 8 16 16 2048 2048 128 0 > /tmp/ncu2.log 2>&1; echo "ncu2 rc $?"
timeout 40 ncu $NC -o /tmp/n_h8192 -f python3 bench/hopper_ncu.py hopper 2 16 16 8192 8192 128 0 > /tmp/ncu3.log 2>&1; echo "ncu3 rc $?"
timeout 40 ncu $NC -o /tmp/n_c8192 -f python3 bench/hopper_ncu.py cudnn 2 16 16 8192 8192 128 0 > /tmp/ncu4.log 2>&1; echo "ncu4 rc $?"
echo "ncu ($(( $(date +%s) - t0 )) s)"; tail -3 /tmp/ncu*.log
for r in h2048 c2048 h8192 c8192; do echo "##### $r"; ncu -i /tmp/n_$r.ncu-rep --page details 2>&1; done > $OUT/ncu_details.txt
for r in h2048 h8192; do echo "##### $r"; ncu -i /tmp/n_$r.ncu-rep --page source --csv --print-source sass 2>&1; done | gzip > $OUT/ncu_source.csv.gz
for r in h2048 c2048 h8192 c8192; do echo "##### $r"; ncu -i /tmp/n_$r.ncu-rep --page raw --csv 2>&1; done | gzip > $OUT/ncu_raw.csv.gz
echo "elapsed $(( $(date +%s) - T0 )) s"
grep -E "^#####|  [a-z_]+.*\(|Duration|Grid Size|Block Size|Registers Per|Dynamic Shared|Compute \(SM\) Throughput|Issue Slots Busy|No Eligible|Executed Ipc A|L2 Hit|DRAM Throughput|Waves Per SM" $OUT/ncu_details.txt | head -80
tail -12 $OUT/time.log
