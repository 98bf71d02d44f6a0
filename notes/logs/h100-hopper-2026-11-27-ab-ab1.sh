#!/bin/bash
# issue11ab (helper, 2026-11-27 session 5, branch issue11ab-c2pair): HOPPER_C2_PAIR_D64 (the _c2 consumers take two
# 128-key blocks a ping-pong turn).  One device call over /work/main's tree, carry [".whl", ".dev-ab"], kind
# nvidia-h100-x1, prefix:
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
#   export PYTHONPATH=/tmp/site:$PWD XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1 && bash .dev-ab/ab1.sh
# .dev-ab holds v.tar.xz (v/{base_d64,pair_d64,pairs4_d64}/{hopper_fwd.cubin,hopper_manifest.json}), SHA256SUMS,
# accheck.py, ratios.py, this script.  base_d64 = the default build (326e354c..., main b198851's cubin), aa_d64 = a copy
# (A/A), pair_d64 = NVCC_EXTRA=-DHOPPER_C2_PAIR_D64=1 (666132fe...), pairs4_d64 = the same with C2_STAGES_D64=4
# (14593f5c...); in both only the two _c2 kernels' .text differ from base.  No Python changes (no tree/ copy).
# Steps: check-only of both variants; accheck (out / LSE of base and both variants against the float64 reference on 46
# shapes + packed qkv); bf16 racecheck over _c2$ of both; one paired timing (5 rounds) of 6 d64 bf16 rows; if time is
# left, ncu WarpStateStats + SchedulerStats of one launch of base and pair at 32x512 16/16; ratio table last.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-ab
V=$L/v
OUT=${OUT:-/tmp/ab-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
cp -r $V/base_d64 $V/aa_d64
echo "checkout cubin $(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16) (its _c2 .text: main's working tree)"
t0=$SECONDS; timeout 110 python3 bench/hopper_dev.py check-only $V/pair_d64 $V/pairs4_d64 > $OUT/check.log 2>&1; rc=$?
for n in pair_d64 pairs4_d64; do
  nl=$(grep -c "^$V/$n/hopper_fwd.cubin " $OUT/check.log); nf=$(grep "^$V/$n/hopper_fwd.cubin " $OUT/check.log | grep -c "FAIL")
  echo "check-only $n: $nl lines, $nf FAIL"; grep "^$V/$n/hopper_fwd.cubin " $OUT/check.log | grep FAIL | head -3 | cut -c1-240
done
echo "check-only rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check.log | cut -c1-200)"
[ $rc = 0 ] || { echo "STOP: check-only failed or timed out"; tail -5 $OUT/check.log | cut -c1-240; exit 1; }
t0=$SECONDS; timeout 100 python3 $L/accheck.py $V base_d64 pair_d64 pairs4_d64 > $OUT/acc.log 2>&1; rc=$?
echo "accheck rc=$rc ($((SECONDS-t0))s)"; grep -E "FAIL|RAISED|Error|^acc plans|^acc worst|^accheck" $OUT/acc.log | cut -c1-300 | tail -12
for n in pair_d64 pairs4_d64; do
  t0=$SECONDS; CO=$V/$n KERNELS='_c2$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s/$n \
    timeout 45 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | cut -c1-240; echo "  racecheck $n _c2 ($((SECONDS-t0))s)"
  grep -E "^(ok|FAIL)" $OUT/s/$n/sanitize-bf16-racecheck.log 2>/dev/null | head -2 | cut -c1-200
done
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null; tar -czf s.tgz s 2>/dev/null && rm -rf s)
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0"
R="$R;16,32,32,1024,1024,64,1"
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 120 python3 bench/hopper_dev.py time $V/base_d64 $V/aa_d64 $V/pair_d64 $V/pairs4_d64 > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
if [ $((SECONDS-S)) -lt 170 ]; then
  NCU=(ncu --profile-from-start off --clock-control none --import-source no --section WarpStateStats --section SchedulerStats --section SpeedOfLight)
  for n in base_d64 pair_d64; do
    echo "=== $n 32x512 16/16 nc"; timeout 25 "${NCU[@]}" -k regex:hopper_fwd -c 1 python3 bench/hopper_ncu.py hopper 32 16 16 512 512 64 0 $V/$n/hopper_fwd.cubin
  done > $OUT/ncu.txt 2>&1
  echo "ncu ($((SECONDS-S))s):"; grep -E "^=== |Duration|Warp Cycles Per Issued|Issue Slots Busy|No Eligible|Issued Warp Per|  hopper_fwd" $OUT/ncu.txt | cut -c1-150 | head -24
else
  echo "ncu skipped (no time left: $((SECONDS-S))s)"
fi
python3 $L/ratios.py $OUT/hopper_time.json
echo "wall $((SECONDS-S))s"
