#!/bin/bash
# call am1 (the lead, session 8, branch issue11am-poly): HOPPER_POLY_EXP_{C2,D64,D128}=k (k of every 8 exponentials of a
# key block by a cubic on the FMA pipe, not MUFU.EX2): check-only of p3, out / LSE against base (p1 p2 p3), paired timing
# (base / aa = A/A copy / p1 / p2 / p3), 7 rounds.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-am
V=$L/v
OUT=${OUT:-/tmp/am-out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L && (cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variants"; exit 2; }
cp -r $V/base $V/aa
echo "checkout cubin $(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16) (base $(sha256sum $V/base/hopper_fwd.cubin | cut -c1-16))"
t0=$SECONDS; timeout 100 python3 bench/hopper_dev.py check-only $V/p4 > $OUT/check-p3.log 2>&1
echo "check-only p4 ($((SECONDS-t0))s): $(grep -c "^$V/p4/hopper_fwd.cubin " $OUT/check-p3.log) lines, $(grep "^$V/p4/hopper_fwd.cubin " $OUT/check-p3.log | grep -c FAIL) FAIL; $(tail -1 $OUT/check-p3.log | cut -c1-100)"
grep FAIL $OUT/check-p3.log | head -5
t0=$SECONDS; timeout 90 python3 $L/bitcheck.py $V base p2 p4 > $OUT/bit.log 2>&1; echo "bitcheck rc=$? ($((SECONDS-t0))s)"
for n in p2 p4; do echo "$n: $(grep -o "$n out [a-zA-Z]* lse [a-zA-Z]* max |d out| [0-9.e+-]*" $OUT/bit.log | sort -k7 -g | tail -1)"; done
grep "RAISED\|raised\|^bitcheck" $OUT/bit.log | head -3
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;32,32,32,512,512,64,1;16,32,32,1024,1024,64,1"
R="$R;1,8,8,32768,32768,64,0;8,32,32,2048,2048,64,0;2,32,32,8192,8192,64,1"
R="$R;16,16,16,1024,1024,128,0;8,16,16,2048,2048,128,0;2,16,16,8192,8192,128,1"
t0=$SECONDS; HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 240 python3 bench/hopper_dev.py time $V/base $V/aa $V/p1 $V/p2 $V/p3 $V/p4 > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -3
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json aa p1 p2 p3 p4
