#!/bin/bash
# call s2 (the lead, session 9, branch issue11-sw2): HOPPER_START_WAIT=2 (every non-_c2, non-K-ahead TMA producer waits
# for its first K block before the deeper prefetch; a predicate flag, no spill) against the shipped cubin: check-only of
# sw2, then paired timing (base / aa = A/A copy / sw2, with cuDNN; balanced order), 7 rounds, on the rows its kernels run.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-s2
V=$L/v
OUT=${OUT:-/tmp/s2-out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L && (cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variants"; exit 2; }
cp -r $V/base $V/aa
echo "checkout cubin $(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16) (base $(sha256sum $V/base/hopper_fwd.cubin | cut -c1-16))"
t0=$SECONDS; timeout 100 python3 bench/hopper_dev.py check-only $V/sw2 > $OUT/check-sw2.log 2>&1
echo "check-only sw2 ($((SECONDS-t0))s): $(grep -c "^$V/sw2/hopper_fwd.cubin " $OUT/check-sw2.log) lines, $(grep "^$V/sw2/hopper_fwd.cubin " $OUT/check-sw2.log | grep -c FAIL) FAIL; $(tail -1 $OUT/check-sw2.log | cut -c1-100)"
grep FAIL $OUT/check-sw2.log | head -5
R="8,32,32,2048,2048,64,0;4,32,32,4096,4096,64,0;4,32,32,4096,4096,64,1;2,32,32,8192,8192,64,1;1,8,8,32768,32768,64,0"
R="$R;8,16,16,8192,8192,64,0;1,2,2,40000,40000,64,0;32,16,16,512,512,128,0;16,16,16,1024,1024,128,0;8,16,16,2048,2048,128,0"
R="$R;1,16,16,16384,16384,128,0;1,16,8,4096,4096,256,1;4,32,32,2048,2048,96,1"
t0=$SECONDS; HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 300 python3 bench/hopper_dev.py time $V/base $V/aa $V/sw2 > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -3
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json aa sw2
