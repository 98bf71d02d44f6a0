#!/bin/bash
# issue11z (helper-47, 2026-11-27 session 4): HOPPER_PARAM_MAPS_C2 (the d64 _c2 kernels take their Q / K / V / O tensor
# maps from the host as a second __grid_constant__ parameter, hopper_fwd_maps at kernarg offset 240; no tmap_make /
# publish / acquire in their prologue).  READY for the next session, NOT RUN.  One device call over /work/main's tree,
# carry [".whl", ".dev-z"], kind nvidia-h100-x1, prefix:
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
#   export PYTHONPATH=/tmp/site:$PWD XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1 && bash .dev-z/z1.sh
# .dev-z holds v.tar.xz (v/{base_d64,pm_d64}/{hopper_fwd.cubin,hopper_manifest.json}), tree/ (branch issue11z-parammaps'
# changed files: the planner that packs the maps, kernargs.check_params, manifest / tools.check, hopper_args.h, the
# sanitize harness + hopper_validate.sh that pass the maps), tree-base.sha256 (those files as of main 5b8891d: the checkout
# must still have them, else STOP: rebase the branch first), SHA256SUMS, bitcheck.py, ratios.py, this script (as z1.sh).
# Builds of branch issue11z-parammaps (scripts/build/hopper.sh): base_d64 = the default build (6e947678...), aa_d64 = a copy
# of it (A/A column), pm_d64 = PARAM_MAPS_C2=1 (326e354c...; only the two _c2 kernels' .text differ).
# Steps: unpack + sha256; the tree files copied in; check-only of pm_d64 through its own planner (the GPU test's targeted
# cases, plan grid and grids 132 / 5); bitcheck (out / LSE of pm_d64 against base_d64 bit for bit on the 37 bigcheck
# shapes + 4 more: the maps are the driver's bytes, so nothing may differ; and which plans took the maps: 752 kernarg
# bytes); one paired timing (5 rounds) of 6 d64 bf16 rows; bf16 racecheck over _c2$ of pm_d64 (the harness makes the
# maps with cuTensorMapEncodeTiled); ratio table last.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-z
V=$L/v
OUT=${OUT:-/tmp/z-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant cubins / tree files differ from the ones built"; exit 2; }
sha256sum -c --quiet $L/tree-base.sha256 || { echo "STOP: the checkout's planner files are not main 5b8891d's: rebase issue11z-parammaps and rebuild .dev-z"; exit 2; }
cp -r $L/tree/. . && echo "tree: $(cd $L/tree && find . -type f | wc -l) files copied in"
python3 -c "import pyhipattn.families.hopper as h; print('planner:', h.__file__, 'tile_maps' in dir(h))"
cp -r $V/base_d64 $V/aa_d64
ship=$(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64)
echo "checkout cubin $ship ($([ "$ship" = "$(sha256sum $V/base_d64/hopper_fwd.cubin | cut -c1-64)" ] && echo "= base_d64: hopper is a second A/A column" || echo "NOT base_d64"))"
t0=$SECONDS; timeout 110 python3 bench/hopper_dev.py check-only $V/pm_d64 > $OUT/check.log 2>&1; rc=$?
nl=$(grep -c "^$V/pm_d64/hopper_fwd.cubin " $OUT/check.log); nf=$(grep "^$V/pm_d64/hopper_fwd.cubin " $OUT/check.log | grep -c "FAIL")
echo "check-only rc=$rc ($((SECONDS-t0))s): pm_d64 $nl lines, $nf FAIL; $(tail -1 $OUT/check.log | cut -c1-200)"
grep "^$V/pm_d64/hopper_fwd.cubin " $OUT/check.log | grep FAIL | head -3 | cut -c1-240
grep "_c2" $OUT/check.log | head -2 | cut -c1-200
{ [ "$nf" = 0 ] && [ "$nl" -gt 0 ]; } || { echo "STOP: pm_d64 failed its check"; exit 1; }
t0=$SECONDS; timeout 90 python3 $L/bitcheck.py $V base_d64 pm_d64 > $OUT/bit.log 2>&1; rc=$?
echo "bitcheck rc=$rc ($((SECONDS-t0))s)"; grep -E "DIFFERENT|RAISED|raised|^bit plans|^bitcheck|Error" $OUT/bit.log | cut -c1-300 | tail -12
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0"
R="$R;16,32,32,1024,1024,64,1"
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 120 python3 bench/hopper_dev.py time $V/base_d64 $V/aa_d64 $V/pm_d64 > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
t0=$SECONDS; CO=$V/pm_d64 KERNELS='_c2$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s/pm_d64 \
  timeout 60 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | cut -c1-240; echo "  racecheck pm_d64 _c2 ($((SECONDS-t0))s)"
grep -E "^(ok|FAIL)" $OUT/s/pm_d64/sanitize-bf16-racecheck.log 2>/dev/null | head -3 | cut -c1-200
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null; tar -czf s.tgz s 2>/dev/null && rm -rf s)
python3 $L/ratios.py $OUT/hopper_time.json
echo "wall $((SECONDS-S))s"
