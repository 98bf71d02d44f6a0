#!/bin/bash
# call am3 (the lead, session 8, branch issue11am-poly): HOPPER_LAZY_RESCALE=8 without the _c2 kernels (lzA) and with them
# (lzB, HOPPER_LAZY_RESCALE_C2=1, by selects): check-only of both, out / LSE against base, paired timing
# (base / aa = A/A copy / lzA / lzB), 7 rounds.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-am
V=$L/v
OUT=${OUT:-/tmp/am-out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L && (cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variants"; exit 2; }
cp -r $V/base $V/aa
echo "checkout cubin $(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16) (base $(sha256sum $V/base/hopper_fwd.cubin | cut -c1-16))"
for n in lzA lzB; do
t0=$SECONDS; timeout 100 python3 bench/hopper_dev.py check-only $V/$n > $OUT/check-$n.log 2>&1
echo "check-only $n ($((SECONDS-t0))s): $(grep -c "^$V/$n/hopper_fwd.cubin " $OUT/check-$n.log) lines, $(grep "^$V/$n/hopper_fwd.cubin " $OUT/check-$n.log | grep -c FAIL) FAIL; $(tail -1 $OUT/check-$n.log | cut -c1-100)"
grep FAIL $OUT/check-$n.log | head -5
done
t0=$SECONDS; timeout 90 python3 $L/bitcheck.py $V base lzA lzB > $OUT/bit.log 2>&1; echo "bitcheck rc=$? ($((SECONDS-t0))s)"
for n in lzA lzB; do echo "$n: $(grep -o "$n out [a-zA-Z]* lse [a-zA-Z]* max |d out| [0-9.e+-]*" $OUT/bit.log | sort -k7 -g | tail -1)"; done
grep "RAISED\|raised\|^bitcheck" $OUT/bit.log | head -3
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;32,32,32,512,512,64,1;16,32,32,1024,1024,64,1"
R="$R;1,8,8,32768,32768,64,0;8,32,32,2048,2048,64,0;2,32,32,8192,8192,64,1"
R="$R;16,16,16,1024,1024,128,0;8,16,16,2048,2048,128,0;2,16,16,8192,8192,128,1;1,16,16,16384,16384,128,0;2,64,8,4096,4096,128,1;1,16,8,4096,4096,256,1;4,32,32,2048,2048,96,1"
t0=$SECONDS; HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 240 python3 bench/hopper_dev.py time $V/base $V/aa $V/lzA $V/lzB > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -3
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json aa lzA lzB
