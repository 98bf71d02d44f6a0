#!/bin/bash
# issue11af call af2 (helper af, branch issue11af-d128fixed from main e057dc0): the two d128 _fk fixed-cost variants.
# kind nvidia-h100-x1, carry [".whl", ".dev-af"], the usual prefix, then `bash .dev-af/af2.sh`.
# v.tar.xz: v/base_d128 (= shipped 4e6af702...), v/fkt_d128 (HOPPER_FK_TAIL_D128=1), v/pm_d128 (PARAM_MAPS_FK=1: the _fk
# kernels take host-made maps), v/pmfkt_d128 (both).  tree/: the branch's pyhipattn/families/hopper.py (tile_maps for the
# _fk kernels, O boxes of 64 rows) and bench/hopper_sanitize.c + hopper_validate.sh (issue11aa's BLOCK_N:O_ROWS harness
# fields), copied over this tree's after checking that its files are main e057dc0's (the copy on the device only).
# Steps: check-only of pm / pmfkt; bitcheck (out / LSE vs base, bit for bit, 36 d128 shapes) of fkt / pm / pmfkt; bf16
# racecheck of _d128_fk$ in pmfkt (then pm, fkt, time allowing); paired timing, 7 rounds, 9 d128 rows; ratio table last.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-af
V=$L/v
OUT=${OUT:-/tmp/af-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant files differ from the ones built"; exit 2; }
cp -r $V/base_d128 $V/aa_d128
ship=$(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64)
echo "checkout cubin ${ship:0:16} ($([ "$ship" = "$(sha256sum $V/base_d128/hopper_fwd.cubin | cut -c1-64)" ] && echo "= base_d128" || echo "NOT base_d128"))"
echo "26d72729da6cf49d56511d065efbd0ee300905c8df33cc37b3024ba6572e8ed0  pyhipattn/families/hopper.py
b15bece0aebc59b00ea2d4edbb1cb0672f115c3aeb54e683017b17ca06aa5618  bench/hopper_sanitize.c
babdf945d36850f0490f03c4aeffad6a1d253407cf49035854a942c6afac3a8b  bench/hopper_validate.sh" | sha256sum -c --quiet \
  || { echo "STOP: the tree's planner / harness are not main e057dc0's"; exit 2; }
cp $L/tree/hopper.py pyhipattn/families/hopper.py && cp $L/tree/hopper_sanitize.c $L/tree/hopper_validate.sh bench/
t0=$SECONDS
for v in pm_d128 pmfkt_d128; do timeout 80 python3 bench/hopper_dev.py check-only $V/$v > $OUT/check-$v.log 2>&1 & done; wait
OK="fkt_d128"
for v in pm_d128 pmfkt_d128; do
  nl=$(grep -c "^$V/$v/hopper_fwd.cubin " $OUT/check-$v.log); nf=$(grep "^$V/$v/hopper_fwd.cubin " $OUT/check-$v.log | grep -c "FAIL")
  echo "check-only $v ($((SECONDS-t0))s): $nl lines, $nf FAIL; $(tail -1 $OUT/check-$v.log | cut -c1-100)"
  grep "FAIL\|rror" $OUT/check-$v.log | head -3 | cut -c1-240
  { [ "$nf" = 0 ] && [ "$nl" -gt 50 ] && tail -1 $OUT/check-$v.log | grep -q "^check: 0 failures"; } && OK="$OK $v"
done
t0=$SECONDS; timeout 60 python3 $L/bitcheck.py $V base_d128 $OK > $OUT/bit.log 2>&1; rc=$?
echo "bitcheck rc=$rc ($((SECONDS-t0))s)"
grep -E "DIFFERENT|RAISED|raised|^bitcheck|Error|^bit plans" $OUT/bit.log | cut -c1-300 | tail -8
for v in pmfkt_d128 pm_d128 fkt_d128; do
  case " $OK " in *" $v "*) ;; *) continue;; esac
  if [ $((SECONDS-S)) -lt 115 ]; then
    t0=$SECONDS; CO=$V/$v KERNELS='_d128_fk$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s/$v \
      timeout 45 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | head -1 | cut -c1-240; echo "  racecheck $v _d128_fk ($((SECONDS-t0))s)"
  else echo "racecheck $v skipped (time: $((SECONDS-S))s)"; fi
done
R="1,132,132,128,128,128,0;4,132,132,128,128,128,0;1,33,33,512,512,128,0;32,16,16,512,512,128,0;16,16,16,1024,1024,128,0"
R="$R;8,16,16,2048,2048,128,0;4,16,16,4096,4096,128,0;32,16,16,512,512,128,1;16,16,16,1024,1024,128,1"
left=$((222-(SECONDS-S))); [ $left -gt 30 ] || left=30
t0=$SECONDS; HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout $left python3 bench/hopper_dev.py time $V/base_d128 $V/aa_d128 $(for v in $OK; do echo $V/$v; done) > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s, limit ${left}s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null; tar -czf extras.tgz s check-*.log 2>/dev/null && rm -rf s check-*.log)
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json
