#!/bin/bash
# issue11aj call aj2 (helper aj): as aj1.sh (see there), variants v/base (default b4ba9b62...), v/ks1 (call aj1's KSPLIT=1,
# ad22bc6a...), v/ks2 (KSPLIT=1 with KS_REG: the _fk consumers hold a piece's first key block in a register, 1616f0ad...),
# v/ks2n (ks2's code with KSPLIT_MIN_SAVE=1000000: never splits; the code's overhead alone, f1aaa198...).  Steps: kscheck of
# ks2; paired timing, 9 rounds, base / aa / ks1 / ks2 / ks2n + cuDNN on the 8 rows; racecheck of ks2's bf16 _fk / _bn176;
# check-only ks2 if time.  Same command / carry as aj1.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-aj
V=$L/v
OUT=${OUT:-/tmp/aj-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v2.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS2) || { echo "STOP: variant files differ from the ones built"; exit 2; }
cp -r $V/base $V/aa
echo "8800e64de07b76b3a793d30ba31d4a0415fdcf12db86177402bf4d2a3b505dd2  pyhipattn/families/hopper.py" | sha256sum -c --quiet \
  || { echo "STOP: the tree's planner is not main 491583b's"; exit 2; }
echo "c76986c0964f95cacf7604dc904d2a5eab0123efda0ed80011d2bcecf1a14fe2  bench/hopper_sanitize.c" | sha256sum -c --quiet \
  || { echo "STOP: the tree's sanitize harness is not main's"; exit 2; }
cp $L/tree/hopper.py pyhipattn/families/hopper.py
cp $L/tree/hopper_sanitize.c bench/hopper_sanitize.c
t0=$SECONDS; timeout 40 python3 $L/kscheck.py $V base ks2 > $OUT/kscheck.log 2>&1; rc=$?
echo "kscheck ks2 rc=$rc ($((SECONDS-t0))s)"; grep -c " ok " $OUT/kscheck.log; grep -E "FAIL|RAISED|^kscheck|^plans of ks2" $OUT/kscheck.log | cut -c1-300
R="2,16,16,8192,8192,128,0;1,16,16,16384,16384,128,0;4,16,16,4096,4096,128,0;8,16,16,2048,2048,128,0"
R="$R;1,8,8,32768,32768,64,0;8,32,32,2048,2048,64,0;2,32,32,8192,8192,64,0;32,16,16,512,512,128,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=9 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 75 python3 bench/hopper_dev.py time $V/base $V/aa $V/ks1 $V/ks2 $V/ks2n > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s, limit 75s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
if [ -f $OUT/hopper_time.json ]; then python3 $L/ratios2.py $OUT/hopper_time.json
else grep "^{" $OUT/time.log > $OUT/rows.jsonl; echo "(partial: $(wc -l < $OUT/rows.jsonl) rows from time.log)"; python3 $L/ratios2.py $OUT/rows.jsonl; fi
if [ $((SECONDS-S)) -lt 110 ]; then
  t0=$SECONDS; CO=$V/ks2 KERNELS='_d128_fk$|_d128_bn176$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=30 OUT=$OUT/s \
    timeout 35 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | head -1 | cut -c1-240; echo "  racecheck ks2 _fk / _bn176 ($((SECONDS-t0))s)"
  grep -E "640 sk2000|FAIL" $OUT/s/sanitize-bf16-racecheck.log 2>/dev/null | head -4 | cut -c1-200
else echo "racecheck skipped (time: $((SECONDS-S))s)"; fi
if [ $((SECONDS-S)) -lt 112 ]; then
  t0=$SECONDS; timeout $((148-(SECONDS-S))) python3 bench/hopper_dev.py check-only $V/ks2 > $OUT/check-ks2.log 2>&1
  nl=$(grep -c "^$V/ks2/hopper_fwd.cubin " $OUT/check-ks2.log); nf=$(grep "^$V/ks2/hopper_fwd.cubin " $OUT/check-ks2.log | grep -c "FAIL")
  echo "check-only ks2 ($((SECONDS-t0))s): $nl lines, $nf FAIL; $(tail -1 $OUT/check-ks2.log | cut -c1-100)"
else echo "check-only skipped (time: $((SECONDS-S))s)"; fi
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null; tar -czf extras.tgz s 2>/dev/null && rm -rf s)
echo "wall $((SECONDS-S))s"
