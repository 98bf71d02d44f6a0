#!/bin/bash
# issue11y (helper-46, 2026-11-27 session 4), call y2: HOPPER_C2_ROWSUM_D64=3 (the steady PV as m64n72k16, B's columns 64..71 a
# 2 KiB ones tile: o[32..35] the row sums, the 64 FADD gone) and its control (+ HOPPER_C2_ROWSUM_KEEP_D64=1: l still from the
# FADD sums).  Their manifests: the two _c2 kernels' shared + 2048 (151296; patched after the build).  One device
# call over /work/main's tree, carry [".whl", ".dev-y"], kind nvidia-h100-x1, prefix:
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
#   export PYTHONPATH=/tmp/site:$PWD XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1 && bash .dev-y/y2.sh
# .dev-y holds v.tar.xz (v/<name>_d64/{hopper_fwd.cubin,hopper_manifest.json}), SHA256SUMS, acccheck.py, ratios.py, this script.
# Whole builds of branch issue11y-c2rowsum (scripts/build/hopper.sh): base_d64 = the default build (6e947678...), aa_d64 = a
# copy of it (A/A column), rs3_d64 = -DHOPPER_C2_ROWSUM_D64=3, rs3keep_d64 = that plus -DHOPPER_C2_ROWSUM_KEEP_D64=1.
# Steps: unpack + sha256; check-only of the variants (one process, per-variant FAIL lines counted); acccheck (out / LSE
# against base_d64; rs3keep must read 0 everywhere); one paired timing (5 rounds) of 8 d64 bf16 rows; sanitizers over _c2
# (rs3: bf16 racecheck / memcheck / synccheck, fp16 racecheck; rs3keep: bf16 racecheck); ratio table last.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-y
V=$L/v
OUT=${OUT:-/tmp/y-out}
VARS="${VARS:-rs3_d64 rs3keep_d64}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
cp -r $V/base_d64 $V/aa_d64
ship=$(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64)
echo "checkout cubin $ship ($([ "$ship" = "$(sha256sum $V/base_d64/hopper_fwd.cubin | cut -c1-64)" ] && echo "= base_d64: hopper is a second A/A column" || echo "NOT base_d64"))"
cols=()
for c in $VARS; do cols+=($V/$c); done
t0=$SECONDS; timeout 80 python3 bench/hopper_dev.py check-only "${cols[@]}" > $OUT/check.log 2>&1; rc=$?
echo "check-only rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check.log | cut -c1-200)"
ok=()
for c in $VARS; do
  nl=$(grep -c "^$V/$c/hopper_fwd.cubin " $OUT/check.log); nf=$(grep "^$V/$c/hopper_fwd.cubin " $OUT/check.log | grep -c "FAIL")
  echo "  $c: $nl lines, $nf FAIL"; grep "^$V/$c/hopper_fwd.cubin " $OUT/check.log | grep FAIL | head -3 | cut -c1-240
  [ "$nf" = 0 ] && [ "$nl" -gt 0 ] && ok+=($c)
done
grep -E "packed-qkv" $OUT/check.log | cut -c1-160
[ ${#ok[@]} -gt 0 ] || { echo "STOP: no variant passed its check"; exit 1; }
t0=$SECONDS; timeout 60 python3 $L/acccheck.py $V base_d64 "${ok[@]}" > $OUT/acc.log 2>&1; rc=$?
echo "acccheck rc=$rc ($((SECONDS-t0))s)"; grep -E "^acc worst|^acccheck|Error|OVER|DEAD|NON-FIN" $OUT/acc.log | cut -c1-260 | tail -14
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0"
R="$R;16,32,32,1024,1024,64,1;2,8,8,4096,4096,64,0;8,32,32,2048,2048,64,0"
tc=($V/base_d64 $V/aa_d64); for c in "${ok[@]}"; do tc+=($V/$c); done
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 90 python3 bench/hopper_dev.py time "${tc[@]}" > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
san() {  # variant dtype tool
  [ $((SECONDS-S)) -gt 170 ] && { echo "  $3 $1 $2: skipped (time)"; return; }
  t0=$SECONDS; CO=$V/$1 KERNELS='_c2$' DTYPES=$2 TOOLS=$3 STEPS=sanitize LIMIT=40 OUT=$OUT/s/$1-$2-$3 \
    timeout 45 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | cut -c1-240; echo "  $3 $1 $2 _c2 ($((SECONDS-t0))s)"
}
for c in "${ok[@]}"; do
  san $c bf16 racecheck
  if [ $c = rs3_d64 ]; then san $c fp16 racecheck; san $c bf16 memcheck; san $c bf16 synccheck; fi
done
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null; tar -czf s.tgz s 2>/dev/null && rm -rf s)
python3 $L/ratios.py $OUT/hopper_time.json
echo "wall $((SECONDS-S))s"
