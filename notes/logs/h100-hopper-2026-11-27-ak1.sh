#!/bin/bash
# call ak1 (the lead, session 7, branch issue11ak-rcp): HOPPER_FAST_RCP=1 (a tile's 1 / l by rcp.approx, not the IEEE
# division): check-only, out / LSE against base, paired timing (base / aa = A/A copy / rcp), 7 rounds.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-ak
V=$L/v
OUT=${OUT:-/tmp/ak-out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L && (cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variants"; exit 2; }
cp -r $V/base $V/aa
echo "checkout cubin $(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16) (base $(sha256sum $V/base/hopper_fwd.cubin | cut -c1-16))"
t0=$SECONDS; timeout 100 python3 bench/hopper_dev.py check-only $V/rcp > $OUT/check-rcp.log 2>&1
echo "check-only rcp ($((SECONDS-t0))s): $(grep -c "^$V/rcp/hopper_fwd.cubin " $OUT/check-rcp.log) lines, $(grep "^$V/rcp/hopper_fwd.cubin " $OUT/check-rcp.log | grep -c FAIL) FAIL; $(tail -1 $OUT/check-rcp.log | cut -c1-100)"
t0=$SECONDS; timeout 70 python3 $L/bitcheck.py $V base rcp > $OUT/bit.log 2>&1; echo "bitcheck rc=$? ($((SECONDS-t0))s)"
grep -c "lse DIFFERENT" $OUT/bit.log; grep -o "max |d out| [0-9.e-]*" $OUT/bit.log | sort -k4 -g | tail -3; grep "RAISED\|^bitcheck" $OUT/bit.log | head -3
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;32,32,32,512,512,64,1;16,32,32,1024,1024,64,1"
R="$R;32,16,16,512,512,128,0;32,16,16,512,512,128,1;8,16,16,2048,2048,128,0;2,16,16,8192,8192,128,1;8,32,32,2048,2048,64,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 150 python3 bench/hopper_dev.py time $V/base $V/aa $V/rcp > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -3
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json aa rcp
