#!/bin/bash
# issue11ae (2026-11-27 session 5, helper): built on the CPU (branch issue11ae-next from main 84745bb), NOT run on a GPU
# yet.  The next session's first device call: kind nvidia-h100-x1, carry [".whl", ".dev-ae"], over /work/main's tree
# (main 84745bb or a later commit that ships cubin 4e6af702...: then the "hopper" column is an A/A column), command
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit; bash .dev-ae/ae.sh
# ~150 s of command wall expected (timeout_s 300 leaves room).
# v.tar.xz: v/base_d64 (the default build = main 84745bb's cubin 4e6af702...), v/ka2_d64 (C2_KAHEAD_D64=1: the _c2
# producer loads K(n - 1) before V(n), as _c2q3 already does), v/ta_d64 (C2_TAKE_AHEAD_D64=1: the _c2 / _c2q3 producer
# takes its next tile at the current tile's start), v/ka2ta_d64 (both: K ahead + take-ahead in _c2 and _c2q3).  Only the
# _c2 (ka2) / _c2 and _c2q3 (ta, ka2ta) kernels' .text differ from base; manifests mark k_ahead / take_ahead.
# Steps: unpack + sha256; check-only of the three (at once); bitcheck (out / LSE against base bit for bit on the 41
# shapes, every _c2 problem routed through _c2, then through _c2q3); bf16 racecheck over _c2$|_c2q3$ of each; one paired
# timing (5 rounds) of seven _c2 rows (four non-causal, two causal, the few-rounds 2x4096 h8); the ratio table last.
# Files (.dev-ae, git-ignored): ae.sh (this; notes/logs/h100-hopper-2026-11-27-ae-next.sh), bitcheck.py
# (notes/logs/h100-hopper-2026-11-27-ae-bitcheck.py), ratios.py (notes/logs/h100-hopper-2026-11-27-ae-ratios.py),
# v.tar.xz, SHA256SUMS (notes/logs/h100-hopper-2026-11-27-ae-SHA256SUMS.txt).  Logs under $OUT: bit-c2.log, bit-c2q3.log,
# time.log, hopper_time.json, extras.tgz (check-only and racecheck logs).
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-ae
V=$L/v
OUT=${OUT:-/tmp/ae-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant files differ from the ones built"; exit 2; }
cp -r $V/base_d64 $V/aa_d64
ship=$(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64)
echo "checkout $(git rev-parse --short HEAD 2>/dev/null || echo "(no git)") cubin ${ship:0:16} ($([ "$ship" = "$(sha256sum $V/base_d64/hopper_fwd.cubin | cut -c1-64)" ] && echo "= base_d64: hopper is an A/A column" || echo "NOT base_d64"))"
VS="ka2_d64 ta_d64 ka2ta_d64"
# (the three check-only runs at once, one process each: correctness only, no timing)
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
for route in c2 c2q3; do
  t0=$SECONDS; BITCHECK_ROUTE=$route timeout 45 python3 $L/bitcheck.py $V base_d64 $OK > $OUT/bit-$route.log 2>&1; rc=$?
  echo "bitcheck $route rc=$rc ($((SECONDS-t0))s)"
  grep -E "DIFFERENT|RAISED|raised|^bitcheck|Error|^bit plans" $OUT/bit-$route.log | cut -c1-300 | tail -8
done
if [ $((SECONDS-S)) -lt 120 ]; then
  for v in $OK; do
    t0=$SECONDS; CO=$V/$v KERNELS='_c2$|_c2q3$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s/$v \
      timeout 45 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | head -1 | cut -c1-240; echo "  racecheck $v _c2 / _c2q3 ($((SECONDS-t0))s)"
  done
else echo "racecheck skipped (time: $((SECONDS-S))s)"; fi
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;32,32,32,512,512,64,1;16,32,32,1024,1024,64,1;2,8,8,4096,4096,64,0"
left=$((240-(SECONDS-S))); [ $left -gt 60 ] || left=60
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout $left python3 bench/hopper_dev.py time $V/base_d64 $V/aa_d64 $(for v in $OK; do echo $V/$v; done) > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s, limit ${left}s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null; tar -czf extras.tgz s check-*.log 2>/dev/null && rm -rf s check-*.log)
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json
