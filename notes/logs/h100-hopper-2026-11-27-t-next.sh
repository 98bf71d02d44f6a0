#!/bin/bash
# helper-40 (branch issue11t-near1, from main 67569fe, cubin 6873dec5...), call t1 -- prepared on the CPU, never run.
# The rows just below cuDNN in call l2 that the d64 _c2 kernels do not run: d128 16/16 non-causal 2048-8192, d64 32/32
# non-causal 2048-8192, d64 1x32768 8/8.
# Variants (.dev-t/v.tar.xz -> $V/<name>/{hopper_fwd.cubin,hopper_manifest.json}; sha256 in .dev-t/SHA256SUMS), whole
# builds of the branch (`OUT=... [VARS] bash scripts/build/hopper.sh`):
#   base       the default build = main's cubin 6873dec5... bit for bit (the reference / A/A column)
#   pvl_d128   NVCC_EXTRA=-DHOPPER_PV_LATE_D128=1: the d128 / _fk steady loop's PV wait kept behind the softmax's 64
#              exponentials (ptxas had it right behind the QK^T wait); only hopper_fwd_{bf16,fp16}_d128(_fk) differ
#   pvm_d128   NVCC_EXTRA=-DHOPPER_PV_LATE_D128=2: the same wait kept behind the row max only; the same 4 kernels differ
#   pvm_d64    NVCC_EXTRA=-DHOPPER_PV_LATE_D64=2: the three-warpgroup d64 kernels' PV wait kept behind the row max (1
#              spills at 160 registers); only hopper_fwd_{bf16,fp16}_d64(_s4) differ
#   tr24_d64   TAIL_ROUNDS_D64=24 (a build variable, no source change): the d64 tail split also at 9-24 rounds, so
#              8x2048 / 4x4096 32/32 (21.3 rounds, 44 tiles in the last) run their last round as 132 pieces; only
#              hopper_fwd_{bf16,fp16}_d64(_s4) differ (the constant)
#   k_c2_d64   base's bytes, with .dev-t/gate.py opening the _c2 gate for this column only: the d64 rows on the 128-row
#              _c2 kernel (1x32768 8/8: 2048 tiles = 15.5 rounds against 1368 = 10.4 of 192 rows; the lead's c2q.sh)
# Run over /work/main's tree with carry [".whl", ".dev-t"], kind nvidia-h100-x1, the usual prefix, then: bash .dev-t/next.sh
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-t
V=/tmp/tv
mkdir -p "$OUT" $V
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "checkout cubin: $(sha256sum < kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16) (built from: 6873dec56a7465f5)"
[ "$(sha256sum < kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16)" = 6873dec56a7465f5 ] ||
  echo "NOTE: main's cubin moved: the hopper column is NOT an A/A control (base = 6873dec5..., carried, stays the reference)"
tar -xJf $L/v.tar.xz -C $V || { echo "STOP: untar"; exit 2; }
(SUMS=$PWD/$L/SHA256SUMS; cd $V && sha256sum -c --quiet $SUMS) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
mkdir -p $V/k_c2_d64; cp $V/base/hopper_fwd.cubin $V/base/hopper_manifest.json $V/k_c2_d64/
chk() {   # chk NAME [wrapper]: check-only of one variant alone
  t0=$SECONDS; timeout 75 python3 ${2:-bench/hopper_dev.py} check-only $V/$1 > $OUT/check-$1.log 2>&1; rc=$?
  echo "check-only $1 rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check-$1.log)"; grep -E "FAIL|Error" $OUT/check-$1.log | head -5
  [ $rc -eq 124 ] && echo "  $1 TIMED OUT (a hang?): dropped"
  return $rc
}
ok=()
for c in pvl_d128 pvm_d128 pvm_d64 tr24_d64; do chk $c && ok+=($c); done
c2ok=0; chk k_c2_d64 $L/gate.py && c2ok=1
grep -m3 "gate c2" $OUT/check-k_c2_d64.log
if [ ${#ok[@]} -gt 0 ]; then
  t0=$SECONDS; timeout 90 python3 $L/bigcheck.py $V base "${ok[@]}" > $OUT/bigcheck.log 2>&1; rc=$?
  echo "bigcheck rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/bigcheck.log)"; grep -E "DIFFERS|Error|Traceback" $OUT/bigcheck.log | head -8
  if [ $rc -ne 0 ]; then   # a variant with any difference is dropped (none may change arithmetic)
    keep=(); for c in "${ok[@]}"; do grep -q "$c DIFFERS" $OUT/bigcheck.log || keep+=($c); done
    [ $rc -eq 1 ] && ok=("${keep[@]}")
  fi
fi
for c in "${ok[@]}"; do
  case $c in *_d128) k='_d128(_fk)?$';; *) k='_d64$';; esac
  t0=$SECONDS; CO=$V/$c KERNELS="$k" DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s-$c \
    bash bench/hopper_validate.sh 2>&1 | grep "^sanitize"; echo "  $c racecheck $k ($((SECONDS-t0))s)"
done
(cd $OUT && find . -name hopper_sanitize -delete; ls -d s-* > /dev/null 2>&1 && tar czf s.tgz s-* && rm -rf s-*)
R="16,16,16,1024,1024,128,0;8,16,16,2048,2048,128,0;4,16,16,4096,4096,128,0;2,16,16,8192,8192,128,0;4,16,16,4096,4096,128,1"
R="$R;8,32,32,2048,2048,64,0;4,32,32,4096,4096,64,0;2,32,32,8192,8192,64,0;1,8,8,32768,32768,64,0"
R="$R;1,4,4,8192,8192,64,0;2,8,8,4096,4096,64,0;1,2,2,40000,40000,64,0"
cols=($V/base); for c in "${ok[@]}"; do cols+=($V/$c); done; [ $c2ok -eq 1 ] && cols+=($V/k_c2_d64)
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 150 python3 $L/gate.py time "${cols[@]}" > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
grep -iE "error|fail|Traceback" $OUT/time.log | head -5
grep "gate c2" $OUT/time.log | sort -u | head -8
python3 $L/ratios.py $OUT/time.log
echo "wall $((SECONDS-S))s"
