#!/usr/bin/env bash
# helper i64 (issue11i-d64), call 2: check-only + interleaved timing of udiv_d64 (HOPPER_UDIV_D64=1: unsigned tile
# decode) and mu_d64 (UDIV + HOPPER_TILE_MERGE_D64=1; spills 8 bytes, manifest copied from udiv: an experiment)
set -uo pipefail
D=.dev-i64
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T0=$(date +%s)
for v in kernels/co/sm_90a $D/v/udiv_d64 $D/v/mu_d64; do
  echo "== $v d64: $(cuobjdump -sass -fun hopper_fwd_bf16_d64 $v/hopper_fwd.cubin | grep -oE 'HGMMA[.0-9a-zA-Z]*|BAR.SYNC|BAR.ARV|UTMASTG|STL|LDL|MUFU.RCP|I2F|IABS' | sort | uniq -c | tr '\n' ' ')"
done
t0=$(date +%s)
timeout 90 python3 bench/hopper_dev.py check-only $D/v/udiv_d64 $D/v/mu_d64 > $OUT/check.log 2>&1
echo "check rc $?: $(tail -1 $OUT/check.log) ($(( $(date +%s) - t0 )) s); FAIL lines: $(grep -c FAIL $OUT/check.log)"
grep FAIL $OUT/check.log | head -5
t0=$(date +%s)
SH="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;16,32,32,1024,1024,64,1;8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1;4,32,32,4096,4096,64,0;4,32,32,4096,4096,64,1;1,32,32,16384,16384,64,0;1,32,32,16384,16384,64,1;1,2,2,40000,40000,64,0;8,16,16,8192,8192,64,0"
HOPPER_DEV_SHAPES="$SH" HOPPER_DEV_ROUNDS=5 HOPPER_DEV_PGRID=none HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn OUT=$OUT timeout 150 \
  python3 bench/hopper_dev.py time $D/v/udiv_d64 $D/v/mu_d64 > $OUT/time.log 2>&1
echo "time rc $? ($(( $(date +%s) - t0 )) s)"
echo "elapsed $(( $(date +%s) - T0 )) s"
tail -17 $OUT/time.log
