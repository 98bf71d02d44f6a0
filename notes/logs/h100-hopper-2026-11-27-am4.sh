#!/bin/bash
# call am4 (the lead, session 8, branch issue11am-poly): the _c2 rows with HOPPER_LAZY_RESCALE: lzD (the _c2 kernels
# lazy too, exponentials held in the turn by a shared load after its bar.sync) and noc2 (lzA's cubin planned without
# the _c2 siblings: the d64 kernel); check-only of lzD; paired timing base / aa / lzA / noc2 / lzD, 7 rounds.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-am
V=$L/v
OUT=${OUT:-/tmp/am-out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L && (cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variants"; exit 2; }
cp -r $V/base $V/aa; cp -r $V/lzA $V/noc2
n=lzD; t0=$SECONDS; timeout 100 python3 bench/hopper_dev.py check-only $V/$n > $OUT/check-$n.log 2>&1
echo "check-only $n ($((SECONDS-t0))s): $(grep -c "^$V/$n/hopper_fwd.cubin " $OUT/check-$n.log) lines, $(grep "^$V/$n/hopper_fwd.cubin " $OUT/check-$n.log | grep -c FAIL) FAIL; $(tail -1 $OUT/check-$n.log | cut -c1-100)"
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;32,32,32,512,512,64,1;16,32,32,1024,1024,64,1;8,32,32,2048,2048,64,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 200 python3 $L/gate.py time $V/base $V/aa $V/lzA $V/noc2 $V/lzD > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -3; grep "  plan" $OUT/time.log | grep "noc2\|lzA" | head -16
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json aa lzA noc2 lzD
