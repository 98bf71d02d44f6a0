#!/bin/bash
# issue11ah call ah2 (helper ah, branch issue11ah-c2ncprofile from main a8012cf): HOPPER_C2_KVWAIT_D64 variants.
# kind nvidia-h100-x1, carry [".whl", ".dev-ah"], the usual prefix, then `bash .dev-ah/ah2.sh`, over /work/main's tree
# (cubin c69f15d3... = base_d64: "hopper" is an A/A column).  v.tar.xz: v/base_d64 (default build), v/kv2_d64
# (=2: the fused boundary waits q_full + v_full
# together, next_tile skips its own q_full wait), kv4 (=4: K test_wait at c2_step's start, full wait after the PV only if it
# failed), kv8 (=8: the same test right after V's wait), kv6 (=6: 4 + 2).  Only the _c2 / _c2q3 kernels' .text differ from base.
# Steps: unpack + sha256; check-only of the variants (at once); bitcheck (out / LSE against base bit for bit, 41 shapes,
# every _c2 problem through _c2, then through _c2q3); bf16 racecheck over _c2$|_c2q3$; paired timing (5 rounds) of 7 rows.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-ah
V=$L/v
OUT=${OUT:-/tmp/ah2-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant files differ from the ones built"; exit 2; }
cp -r $V/base_d64 $V/aa_d64
ship=$(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64)
echo "checkout $(git rev-parse --short HEAD 2>/dev/null || echo "(no git)") cubin ${ship:0:16} ($([ "$ship" = "$(sha256sum $V/base_d64/hopper_fwd.cubin | cut -c1-64)" ] && echo "= base_d64: hopper is an A/A column" || echo "NOT base_d64"))"
VS="${VS:-kv2_d64 kv4_d64 kv8_d64 kv6_d64}"
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
if [ $((SECONDS-S)) -lt 100 ]; then
  for v in $OK; do
    t0=$SECONDS; CO=$V/$v KERNELS='_c2$|_c2q3$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s/$v \
      timeout 45 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | head -1 | cut -c1-240; echo "  racecheck $v _c2 / _c2q3 ($((SECONDS-t0))s)"
  done
else echo "racecheck skipped (time: $((SECONDS-S))s)"; fi
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;32,32,32,512,512,64,1;16,32,32,1024,1024,64,1;2,8,8,4096,4096,64,0"
left=$((150-(SECONDS-S))); [ $left -gt 45 ] || left=45
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout $left python3 bench/hopper_dev.py time $V/base_d64 $V/aa_d64 $(for v in $OK; do echo $V/$v; done) > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s, limit ${left}s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null; tar -czf extras.tgz s check-*.log 2>/dev/null && rm -rf s check-*.log)
echo "wall $((SECONDS-S))s"
python3 $L/ratios2.py $OUT/hopper_time.json
