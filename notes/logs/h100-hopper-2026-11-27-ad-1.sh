#!/bin/bash
# issue11ad (2026-11-27 session 5), call ad1: three _c2q3 variants against the default build (main 5088a48's cubin
# 2ce7bbd3...).  Carry [".whl", ".dev-ad"], kind nvidia-h100-x1, the usual prefix, then `bash .dev-ad/ad.sh`.
# Ran as call ad1 (2026-11-27 ~12:47 UTC): kind nvidia-h100-x1, reply "one NVIDIA H100 GPU (about 78 GiB of GPU memory)", wall_s 76.4.
# v.tar.xz: v/base_d64 (default build, 2ce7bbd3...), v/qs4_d64 (C2Q3_QS4_D64=1: four Q buffers in _c2q3, manifest shared
# 182016 / q_stages 4), v/ta_d64 (-DHOPPER_C2Q3_TAKE_AHEAD_D64=1: the next tile's atomic at the current tile's start),
# v/ka_d64 (-DHOPPER_C2Q3_KAHEAD_D64=1: K(n - 1) before V(n)); only the two _c2q3 kernels' .text differ from base.
# Steps: unpack + sha256; check-only of the three; bitcheck (out / LSE against base bit for bit, every _c2 problem forced
# through _c2q3); bf16 racecheck over _c2q3 of each; one paired timing (5 rounds) of four causal rows; ratio table last.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-ad
V=$L/v
OUT=${OUT:-/tmp/ad-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant files differ from the ones built"; exit 2; }
cp -r $V/base_d64 $V/aa_d64
ship=$(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64)
echo "checkout cubin ${ship:0:16} ($([ "$ship" = "$(sha256sum $V/base_d64/hopper_fwd.cubin | cut -c1-64)" ] && echo "= base_d64: hopper is an A/A column" || echo "NOT base_d64"))"
VS="qs4_d64 ta_d64 ka_d64"
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
t0=$SECONDS; timeout 40 python3 $L/bitcheck.py $V base_d64 $OK > $OUT/bit.log 2>&1; rc=$?
echo "bitcheck rc=$rc ($((SECONDS-t0))s)"; grep -E "DIFFERENT|RAISED|raised|^bitcheck|Error|^bit plans" $OUT/bit.log | cut -c1-300 | tail -8
if [ $((SECONDS-S)) -lt 140 ]; then
  for v in $OK; do
    t0=$SECONDS; CO=$V/$v KERNELS='_c2q3$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s/$v \
      timeout 14 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | head -1 | cut -c1-240; echo "  racecheck $v _c2q3 ($((SECONDS-t0))s)"
  done
else echo "racecheck skipped (time)"; fi
R="32,32,32,512,512,64,1;32,16,16,512,512,64,1;32,32,32,256,256,64,1;16,32,32,1024,1024,64,1"
left=$((180-(SECONDS-S)))
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout $left python3 bench/hopper_dev.py time $V/base_d64 $V/aa_d64 $(for v in $OK; do echo $V/$v; done) > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s, limit ${left}s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null; tar -czf extras.tgz s check-*.log 2>/dev/null && rm -rf s check-*.log)
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json
