#!/usr/bin/env bash
# helper i64 (issue11i-d64), call 1: check-only of the no-ping-pong variant, interleaved timing of 3 variants vs shipped /
# portable / cuDNN over the d64 rows, ncu (full set + source counters) of ours and cuDNN at 32x512 32/32 d64 nc and 8x2048
set -uo pipefail
D=.dev-i64
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin
T0=$(date +%s)
for v in kernels/co/sm_90a $D/v/nopp_d64 $D/v/nopp4_d64 $D/v/noskip_d64; do
  echo "== $v d64: $(cuobjdump -sass -fun hopper_fwd_bf16_d64 $v/hopper_fwd.cubin | grep -oE 'HGMMA[.0-9a-zA-Z]*|BAR.SYNC|BAR.ARV|UTMASTG|STL|LDL|SYNCS[.A-Z]*' | sort | uniq -c | tr '\n' ' ')"
done
t0=$(date +%s)
timeout 60 python3 bench/hopper_dev.py check-only $D/v/nopp_d64 > $OUT/check.log 2>&1
echo "check rc $?: $(tail -1 $OUT/check.log) ($(( $(date +%s) - t0 )) s); FAIL lines: $(grep -c FAIL $OUT/check.log)"
grep FAIL $OUT/check.log | head -5
t0=$(date +%s)
SH="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;16,32,32,1024,1024,64,1;8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1;4,32,32,4096,4096,64,0;4,32,32,4096,4096,64,1;1,32,32,16384,16384,64,0;1,32,32,16384,16384,64,1;1,2,2,40000,40000,64,0"
HOPPER_DEV_SHAPES="$SH" HOPPER_DEV_ROUNDS=5 HOPPER_DEV_PGRID=none HOPPER_DEV_PEERS=cudnn OUT=$OUT timeout 200 \
  python3 bench/hopper_dev.py time $D/v/nopp_d64 $D/v/nopp4_d64 $D/v/noskip_d64 > $OUT/time.log 2>&1
echo "time rc $? ($(( $(date +%s) - t0 )) s)"
echo "elapsed $(( $(date +%s) - T0 )) s"
t0=$(date +%s)
NC="--profile-from-start off --clock-control none --set full --import-source no"
timeout 45 ncu $NC -o /tmp/n_h512 -f python3 bench/hopper_ncu.py hopper 32 32 32 512 512 64 0 > /tmp/ncu1.log 2>&1; echo "ncu1 rc $?"
timeout 45 ncu $NC -o /tmp/n_c512 -f python3 bench/hopper_ncu.py cudnn 32 32 32 512 512 64 0 > /tmp/ncu2.log 2>&1; echo "ncu2 rc $?"
timeout 45 ncu $NC -o /tmp/n_h2048 -f python3 bench/hopper_ncu.py hopper 8 32 32 2048 2048 64 0 > /tmp/ncu3.log 2>&1; echo "ncu3 rc $?"
timeout 45 ncu $NC -o /tmp/n_c2048 -f python3 bench/hopper_ncu.py cudnn 8 32 32 2048 2048 64 0 > /tmp/ncu4.log 2>&1; echo "ncu4 rc $?"
echo "ncu ($(( $(date +%s) - t0 )) s)"; tail -2 /tmp/ncu*.log
for r in h512 c512 h2048 c2048; do echo "##### $r"; ncu -i /tmp/n_$r.ncu-rep --page details 2>&1; done > $OUT/ncu_details.txt
for r in h512 c512 h2048 c2048; do echo "##### $r"; ncu -i /tmp/n_$r.ncu-rep --page source --csv --print-source sass 2>&1; done | gzip > $OUT/ncu_source.csv.gz
for r in h512 c512 h2048 c2048; do echo "##### $r"; ncu -i /tmp/n_$r.ncu-rep --page raw --csv 2>&1; done | gzip > $OUT/ncu_raw.csv.gz
python3 $D/regions.py $OUT/ncu_source.csv.gz 0 1 2 3 2>&1 | head -70
echo "elapsed $(( $(date +%s) - T0 )) s"
grep -E "^#####|  [a-z_]+.*\(|Duration|Registers Per|Dynamic Shared|Issue Slots Busy|No Eligible|L2 Cache Throughput|Block Limit Barriers" $OUT/ncu_details.txt | head -60
tail -16 $OUT/time.log
