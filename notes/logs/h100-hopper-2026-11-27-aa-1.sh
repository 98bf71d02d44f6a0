#!/bin/bash
# issue11aa (2026-11-27 session 5): HOPPER_PARAM_MAPS_ALL=15 (the other non-varlen TMA kernels -- d128 / _fk / _static /
# _bn176 / _softcap, d64 / _s4 / _static, d96 / _dyn / _softcap, d256 / _softcap -- take their Q / K / V / O tensor maps
# from the host as a second __grid_constant__ parameter, hopper_fwd_maps at kernarg offset 240, as the _c2 kernels do since
# call z1).  One device call over /work/main's tree, carry [".whl", ".dev-aa"], kind nvidia-h100-x1, prefix:
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
#   export PYTHONPATH=/tmp/site:$PWD XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1 && bash .dev-aa/aa1.sh
# .dev-aa holds v.tar.xz (v/{base,pm}/{hopper_fwd.cubin,hopper_manifest.json}), tree/ (branch issue11aa-pmall's
# families/hopper.py, bench/hopper_sanitize.c, bench/hopper_validate.sh), tree-base.sha256 (those files as of main
# b198851: the checkout must still have them, else STOP), SHA256SUMS, bitcheck.py, ratios.py, this script.
# base = the default build of the branch (326e354c..., = main's shipped cubin), aa = a copy (A/A), pm = PARAM_MAPS_ALL=15.
# Steps: unpack + sha256; tree copied in; check-only of pm through the branch's planner; bitcheck (out / LSE of pm against
# base bit for bit, d64 / d96 / d128 / d256 shapes); one paired timing (5 rounds) of 12 rows that run the changed kernels;
# bf16 racecheck over one kernel of each kind (d128_fk, d64, d96, d256); ratio table last.
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
python3 -c "import pyhipattn.families.hopper as h; print('planner:', h.__file__, 'o_map_rows' in dir(h))"
cp -r $V/base $V/aa
ship=$(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64)
echo "checkout cubin $ship ($([ "$ship" = "$(sha256sum $V/base/hopper_fwd.cubin | cut -c1-64)" ] && echo "= base: hopper is a second A/A column" || echo "NOT base"))"
t0=$SECONDS; timeout 70 python3 bench/hopper_dev.py check-only $V/pm > $OUT/check.log 2>&1; rc=$?
nl=$(grep -c "^$V/pm/hopper_fwd.cubin " $OUT/check.log); nf=$(grep "^$V/pm/hopper_fwd.cubin " $OUT/check.log | grep -c "FAIL")
echo "check-only rc=$rc ($((SECONDS-t0))s): pm $nl lines, $nf FAIL; $(tail -1 $OUT/check.log | cut -c1-200)"
grep "^$V/pm/hopper_fwd.cubin " $OUT/check.log | grep FAIL | head -3 | cut -c1-240
{ [ "$nf" = 0 ] && [ "$nl" -gt 0 ]; } || { echo "STOP: pm failed its check"; tail -5 $OUT/check.log | cut -c1-300; exit 1; }
t0=$SECONDS; timeout 50 python3 $L/bitcheck.py $V base pm > $OUT/bit.log 2>&1; rc=$?
echo "bitcheck rc=$rc ($((SECONDS-t0))s)"; grep -E "DIFFERENT|RAISED|raised|^bit plans|^bitcheck|Error" $OUT/bit.log | cut -c1-400 | tail -12
R="32,16,16,512,512,128,0;32,16,16,512,512,128,1;16,16,16,1024,1024,128,0;4,16,16,4096,4096,128,0;4,16,16,4096,4096,128,1"
R="$R;1,16,16,16384,16384,128,0;1,32,8,8192,8192,128,1;8,32,32,2048,2048,64,0;4,32,32,4096,4096,64,1;1,8,8,32768,32768,64,0"
R="$R;4,32,32,2048,2048,96,1;1,16,8,4096,4096,256,1"
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 90 python3 bench/hopper_dev.py time $V/base $V/aa $V/pm > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
K='{"d128 32x512 16/16": "d128_fk", "d128 32x512 16/16 c": "d128_fk", "d128 16x1024 16/16": "d128_fk", "d128 4x4096 16/16": "d128_fk", "d128 4x4096 16/16 c": "d128_fk", "d128 1x16384 16/16": "d128_bn176", "d128 1x8192 32/8 c": "d128", "d64 8x2048 32/32": "d64", "d64 4x4096 32/32 c": "d64_s4", "d64 1x32768 8/8": "d64", "d96 4x2048 32/32 c": "d96_dyn", "d256 1x4096 16/8 c": "d256"}'
python3 $L/ratios.py $OUT/hopper_time.json "$K" > $OUT/ratios.txt 2>&1
t0=$SECONDS; CO=$V/pm KERNELS='_d128_fk$|_d64$|_d96$|_d256$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=50 \
  OUT=$OUT/s/pm timeout 60 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | cut -c1-240; echo "  racecheck pm ($((SECONDS-t0))s)"
grep -E "^(FAIL)" $OUT/s/pm/sanitize-bf16-racecheck.log 2>/dev/null | head -3 | cut -c1-200
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null; tar -czf s.tgz s 2>/dev/null && rm -rf s)
cat $OUT/ratios.txt
echo "wall $((SECONDS-S))s"
