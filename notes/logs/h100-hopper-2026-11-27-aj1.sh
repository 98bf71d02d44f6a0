#!/bin/bash
# issue11aj (helper aj, branch issue11aj-streamk from main 2493144): HOPPER_KSPLIT=1 (the stream-K-style key split of the last
# round of non-causal tiles in the d128 _fk / _bn176 kernels) against the default build.  Device call: kind nvidia-h100-x1,
# carry [".whl", ".dev-aj"], over /work/main's tree (main 491583b: its cubin is 2493144's b4ba9b62..., its planner
# 8800e64d... differs from 2493144's only in causal kernel choices), command
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1 && bash .dev-aj/aj1.sh
# v.tar.xz: v/base (default build b4ba9b62... / 374ad0ef...), v/ks (KSPLIT=1: ad22bc6a... / faf3e23b...).  tree/hopper.py:
# main 491583b's planner + ksplit_bytes (the branch's change); tree/hopper_sanitize.c: the harness with the partials'
# scratch and a split case (1x640x2000 2/1 on 3 CTAs) for the _fk / _bn176 kernels.
# Steps: kscheck (ks vs base, tolerance; twice back to back; bit for bit where no split), paired timing (5 rounds,
# base / aa / ks + cuDNN, 8 rows), racecheck of ks's bf16 _fk / _bn176 (the harness's split case), check-only ks if time.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-aj
V=$L/v
OUT=${OUT:-/tmp/aj-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant files differ from the ones built"; exit 2; }
cp -r $V/base $V/aa
ship=$(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64)
echo "checkout $(git rev-parse --short HEAD 2>/dev/null || echo "(no git)") cubin ${ship:0:16} ($([ "$ship" = "$(sha256sum $V/base/hopper_fwd.cubin | cut -c1-64)" ] && echo "= base" || echo "NOT base"))"
echo "8800e64de07b76b3a793d30ba31d4a0415fdcf12db86177402bf4d2a3b505dd2  pyhipattn/families/hopper.py" | sha256sum -c --quiet \
  || { echo "STOP: the tree's planner is not main 491583b's"; exit 2; }
echo "c76986c0964f95cacf7604dc904d2a5eab0123efda0ed80011d2bcecf1a14fe2  bench/hopper_sanitize.c" | sha256sum -c --quiet \
  || { echo "STOP: the tree's sanitize harness is not main's"; exit 2; }
cp $L/tree/hopper.py pyhipattn/families/hopper.py
cp $L/tree/hopper_sanitize.c bench/hopper_sanitize.c
t0=$SECONDS; timeout 50 python3 $L/kscheck.py $V base ks > $OUT/kscheck.log 2>&1; rc=$?
echo "kscheck rc=$rc ($((SECONDS-t0))s)"; cut -c1-300 $OUT/kscheck.log | tail -16
R="2,16,16,8192,8192,128,0;1,16,16,16384,16384,128,0;4,16,16,4096,4096,128,0;8,16,16,2048,2048,128,0"
R="$R;1,8,8,32768,32768,64,0;8,32,32,2048,2048,64,0;2,32,32,8192,8192,64,0;32,16,16,512,512,128,0"
left=$((100-(SECONDS-S))); [ $left -gt 50 ] || left=50
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout $left python3 bench/hopper_dev.py time $V/base $V/aa $V/ks > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s, limit ${left}s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
if [ -f $OUT/hopper_time.json ]; then python3 $L/ratios.py $OUT/hopper_time.json
else grep "^{" $OUT/time.log > $OUT/rows.jsonl; echo "(partial: $(wc -l < $OUT/rows.jsonl) rows from time.log)"; python3 $L/ratios.py $OUT/rows.jsonl; fi
if [ $((SECONDS-S)) -lt 105 ]; then
  t0=$SECONDS; CO=$V/ks KERNELS='_d128_fk$|_d128_bn176$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s \
    timeout 40 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | head -2 | cut -c1-240; echo "  racecheck ks _fk / _bn176 ($((SECONDS-t0))s)"
  grep -E "640 sk2000|FAIL" $OUT/s/sanitize-bf16-racecheck.log 2>/dev/null | head -4 | cut -c1-200
else echo "racecheck skipped (time: $((SECONDS-S))s)"; fi
if [ $((SECONDS-S)) -lt 110 ]; then
  t0=$SECONDS; timeout $((148-(SECONDS-S))) python3 bench/hopper_dev.py check-only $V/ks > $OUT/check-ks.log 2>&1
  nl=$(grep -c "^$V/ks/hopper_fwd.cubin " $OUT/check-ks.log); nf=$(grep "^$V/ks/hopper_fwd.cubin " $OUT/check-ks.log | grep -c "FAIL")
  echo "check-only ks ($((SECONDS-t0))s): $nl lines, $nf FAIL; $(tail -1 $OUT/check-ks.log | cut -c1-100)"
else echo "check-only skipped (time: $((SECONDS-S))s)"; fi
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null; tar -czf extras.tgz s 2>/dev/null && rm -rf s)
echo "wall $((SECONDS-S))s"
