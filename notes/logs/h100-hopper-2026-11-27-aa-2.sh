#!/bin/bash
# issue11aa (2026-11-27 session 5), second call: call aa1 found PARAM_MAPS_ALL=15 at 1.005-1.014x base on the d128 _fk rows,
# ~1.003x on d64, 1.000 d96, 0.996 d256 (one row each).  This call times the d128 bit alone: pm1 = PARAM_MAPS_ALL=1 (only
# the d128 kernels take host-made maps; their .text is pm's of call aa1, which passed check-only / bitcheck / racecheck
# there) against base (326e354c...) and aa (a copy of base) over every d128 prefill row of `pyhipattn bench` (16k tokens,
# 512-16384, causal and not; 1x8192 32/8 c, 2x4096 64/8 c, 4x4096 32/8 c), 7 paired rounds.  Same prefix / carry as aa1.sh.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-aa
V=$L/v
OUT=${OUT:-/tmp/aa-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant cubins / tree files differ from the ones built"; exit 2; }
sha256sum -c --quiet $L/tree-base.sha256 || { echo "STOP: the checkout's planner / harness files are not main b198851's"; exit 2; }
cp -r $L/tree/. . && echo "tree: $(cd $L/tree && find . -type f | wc -l) files copied in"
cp -r $V/base $V/aa
t0=$SECONDS; timeout 60 python3 $L/bitcheck.py $V base pm1 > $OUT/bit2.log 2>&1; rc=$?
echo "bitcheck pm1 rc=$rc ($((SECONDS-t0))s)"; grep -E "DIFFERENT|RAISED|raised|^bitcheck|Error" $OUT/bit2.log | cut -c1-300 | tail -6
R=""
for s in 512 1024 2048 4096 8192 16384; do for c in 0 1; do R="$R;$((16384 / s)),16,16,$s,$s,128,$c"; done; done
R="${R#;};1,32,8,8192,8192,128,1;2,64,8,4096,4096,128,1;4,32,8,4096,4096,128,1"
t0=$SECONDS; HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 130 python3 bench/hopper_dev.py time $V/base $V/aa $V/pm1 > $OUT/time2.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time2.log | head -5 | cut -c1-240
python3 $L/ratios.py $OUT/hopper_time.json "$(cat $L/kernels2.json)"
echo "wall $((SECONDS-S))s"
