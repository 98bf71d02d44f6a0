#!/bin/bash
# issue11w (helper-44), call w2: the paired timing call w1 lost (its gate.py predated kernel_name's compute_units), then a
# bf16 racecheck of the leading variants not yet racechecked.  Same variants as w1 (.dev-w/v1.tar.xz, .dev-w/SHA256SUMS;
# w1: check-only 0 failures each, bigcheck hint / pf1 / pf2 bit for bit and rot1 / rot2 within rounding, racecheck pf2 /
# rot1 0 hazards).  Over /work/main's tree, carry [".whl", ".dev-w"], kind nvidia-h100-x1, the usual prefix, then
# `bash .dev-w/w2.sh`.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-w
V=$L/v
OUT=${OUT:-/tmp/w-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && mkdir -p $V && tar -xJf $L/v1.tar.xz -C $V || { echo "STOP: unpack"; exit 2; }
(cd $V && sha256sum -c --quiet ../SHA256SUMS) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
mkdir -p $V/k_fk_d128 && cp $V/base_d128/hopper_fwd.cubin $V/base_d128/hopper_manifest.json $V/k_fk_d128/
echo "checkout cubin sha256 $(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16) (base: 6e947678bcb9a676)"
t0=$SECONDS; timeout 30 python3 $L/gate.py check-only $V/k_fk_d128 > /tmp/check-k_fk.log 2>&1; rc=$?
echo "check-only k_fk (gate) rc=$rc ($((SECONDS-t0))s): $(tail -1 /tmp/check-k_fk.log | cut -c1-160)"; grep -m2 "gate fk" /tmp/check-k_fk.log
R="32,16,16,512,512,128,0;16,16,16,1024,1024,128,0;8,16,16,2048,2048,128,0;4,16,16,4096,4096,128,0;2,16,16,8192,8192,128,0"
R="$R;4,16,16,4096,4096,128,1;32,16,16,512,512,128,1"
cols=($V/base_d128 $V/rot1_d128 $V/rot2_d128 $V/hint_d128 $V/pf1_d128 $V/pf2_d128)
[ $rc -eq 0 ] && cols+=($V/k_fk_d128)
t0=$SECONDS; HOPPER_DEV_ROUNDS=${ROUNDS:-7} HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 110 python3 $L/gate.py time "${cols[@]}" > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s)"
grep -E "failed|Error|Traceback" $OUT/time.log | head -5 | cut -c1-240; grep "gate fk" $OUT/time.log | sort -u | head -4
python3 $L/ratios.py $OUT/hopper_time.json > $OUT/ratios.txt 2>&1
# racecheck the variants not racechecked in w1 whose non-causal geomean / base reads >= 1.003, while time is left
lead=$(python3 - "$OUT/hopper_time.json" <<'PY'
import json, math, sys
rows = json.load(open(sys.argv[1]))
out = []
for n in ("hint_d128", "pf1_d128", "rot2_d128"):
    xs = [r[n] / r["base_d128"] for r in rows if not r["shape"][6] and r["shape"][4] <= 4096 and r.get(n) and r.get("base_d128")]
    if xs and math.exp(sum(map(math.log, xs)) / len(xs)) >= 1.003:
        out.append(n)
print(" ".join(out))
PY
)
echo "racecheck candidates: ${lead:-none}"
for c in $lead; do
  [ $((SECONDS-S)) -gt 125 ] && { echo "  racecheck $c skipped (time)"; continue; }
  t0=$SECONDS; CO=$V/$c KERNELS='_d128(_fk)?$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=25 OUT=/tmp/s/$c \
    timeout 27 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | sort -u | cut -c1-240; echo "  racecheck $c ($((SECONDS-t0))s)"
done
echo "wall $((SECONDS-S))s"
cat $OUT/ratios.txt
