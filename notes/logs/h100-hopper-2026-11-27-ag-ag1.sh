#!/bin/bash
# issue11ag (2026-11-27 session 6, helper ag), call ag1: the _c2 steady key block's run of 23 MUFU.EX2 broken by moving
# V's wait (HOPPER_C2_VWAIT_D64) and pinning the turn's arrive (HOPPER_C2_ARVPIN_D64).  Kind nvidia-h100-x1, carry
# [".whl", ".dev-ag"], over /work/main's tree (e057dc0, shipped cubin 4e6af702... = base_d64: "hopper" is an A/A column).
# Adapted from notes/logs/h100-hopper-2026-11-27-ae-next.sh.  Steps: unpack + sha256; check-only of the variants (at once);
# bitcheck (out / LSE against base bit for bit, 41 shapes, every _c2 problem through _c2, then through _c2q3); bf16
# racecheck over _c2$|_c2q3$ of each; one paired timing (5 rounds) of seven _c2 rows; the ratio table last.
# Files (.dev-ag): ag1.sh, bitcheck.py, ratios.py, v.tar.xz, SHA256SUMS, VS (the variant names).
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-ag
V=$L/v
OUT=${OUT:-/tmp/ag-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant files differ from the ones built"; exit 2; }
cp -r $V/base_d64 $V/aa_d64
ship=$(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64)
echo "checkout $(git rev-parse --short HEAD 2>/dev/null || echo "(no git)") cubin ${ship:0:16} ($([ "$ship" = "$(sha256sum $V/base_d64/hopper_fwd.cubin | cut -c1-64)" ] && echo "= base_d64: hopper is an A/A column" || echo "NOT base_d64"))"
VS=$(cat $L/VS)
t0=$SECONDS
for v in $VS; do timeout 100 python3 bench/hopper_dev.py check-only $V/$v > $OUT/check-$v.log 2>&1 & done; wait
OK=""
for v in $VS; do
  nl=$(grep -c "^$V/$v/hopper_fwd.cubin " $OUT/check-$v.log); nf=$(grep "^$V/$v/hopper_fwd.cubin " $OUT/check-$v.log | grep -c "FAIL")
  echo "check-only $v ($((SECONDS-t0))s): $nl lines, $nf FAIL; $(tail -1 $OUT/check-$v.log | cut -c1-100)"
  grep "^$V/$v/.*FAIL" $OUT/check-$v.log | head -2 | cut -c1-240
  { [ "$nf" = 0 ] && [ "$nl" -gt 100 ] && tail -1 $OUT/check-$v.log | grep -q "^check: 0 failures"; } && OK="$OK $v"
done
[ -n "$OK" ] || { echo "STOP: no variant passed its check"; exit 1; }
BOK=""
for route in c2 c2q3; do
  t0=$SECONDS; BITCHECK_ROUTE=$route timeout 45 python3 $L/bitcheck.py $V base_d64 $OK > $OUT/bit-$route.log 2>&1; rc=$?
  echo "bitcheck $route rc=$rc ($((SECONDS-t0))s)"
  grep -E "DIFFERENT|RAISED|raised|^bitcheck|Error" $OUT/bit-$route.log | cut -c1-300 | tail -6
done
# a variant with any DIFFERENT / RAISED cell is dropped
for v in $OK; do grep -hE "$v (out|RAISED)" $OUT/bit-c2.log $OUT/bit-c2q3.log | grep -qE "$v (out [a-z]+ lse DIFFERENT|out DIFFERENT|RAISED)" && echo "STOP $v: not bit for bit" || BOK="$BOK $v"; done
grep -q "^bitcheck (c2): " $OUT/bit-c2.log && grep -q "^bitcheck (c2q3): " $OUT/bit-c2q3.log || { echo "STOP: a bitcheck did not finish"; BOK=""; }
[ -n "$BOK" ] || { echo "STOP: no variant bit for bit"; exit 1; }
for v in $BOK; do
  t0=$SECONDS; CO=$V/$v KERNELS='_c2$|_c2q3$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s/$v \
    timeout 40 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | head -1 | cut -c1-240; echo "  racecheck $v _c2 / _c2q3 ($((SECONDS-t0))s)"
done
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;32,32,32,512,512,64,1;16,32,32,1024,1024,64,1;2,8,8,4096,4096,64,0"
left=$((225-(SECONDS-S))); [ $left -gt 40 ] || left=40
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout $left python3 bench/hopper_dev.py time $V/base_d64 $V/aa_d64 $(for v in $BOK; do echo $V/$v; done) > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s, limit ${left}s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null; tar -czf extras.tgz s check-*.log 2>/dev/null && rm -rf s check-*.log)
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json
