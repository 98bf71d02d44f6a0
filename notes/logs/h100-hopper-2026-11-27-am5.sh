#!/bin/bash
# call am5 (the lead, session 8, branch issue11an-c2lazy): HOPPER_LAZY_RESCALE_C2=1 over main 98121c5 (the _c2 kernels
# lazy too: maxima kept by selects, O's rescale before the turn, the exponentials' offsets tied to a shared load after
# the turn's bar.sync, the turn's bar.arrive inside the exponentials' loop after column group 5 (lzK) or 3 (lzK3));
# check-only of both, paired timing base / aa / lzK / lzK3 on the _c2 rows, 9 rounds.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-am
V=$L/v
OUT=${OUT:-/tmp/am-out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L && (cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variants"; exit 2; }
cp -r $V/base $V/aa
for n in lzK lzK3; do
t0=$SECONDS; timeout 100 python3 bench/hopper_dev.py check-only $V/$n > $OUT/check-$n.log 2>&1
echo "check-only $n ($((SECONDS-t0))s): $(grep -c "^$V/$n/hopper_fwd.cubin " $OUT/check-$n.log) lines, $(grep "^$V/$n/hopper_fwd.cubin " $OUT/check-$n.log | grep -c FAIL) FAIL; $(tail -1 $OUT/check-$n.log | cut -c1-100)"
done
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;32,32,32,512,512,64,1;16,32,32,1024,1024,64,1;1,4,4,8192,8192,64,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=9 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 200 python3 bench/hopper_dev.py time $V/base $V/aa $V/lzK $V/lzK3 > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -3
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json aa lzK lzK3
