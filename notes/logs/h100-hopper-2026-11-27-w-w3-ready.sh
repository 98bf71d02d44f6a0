#!/bin/bash
# issue11w (helper-44), READY, NOT RUN: a second look at the one candidate call w2 left, FK_SIBLING_D128 up to 4096 keys
# (notes/logs/h100-hopper-2026-11-27-w-fk4096-gate.patch: Python only, no kernel bytes change).  Over /work/main's tree
# (any cubin whose d128 / _fk kernels are 6e947678...'s), carry [".whl", ".dev-w"], kind nvidia-h100-x1, the usual prefix,
# then `bash .dev-w/w3.sh` (~60-80 s).  Columns: hopper = the planner as shipped (the d128 kernel at 2049-4096 keys),
# base_d128 = the same cubin as a variant (A/A), k_fk_d128 = the same cubin with gate.py forcing _fk on every d128 row,
# cuDNN.  Rows: 3000-4096-key d128 problems the patch moves (16/16 and GQA, both masks, a ragged one; causal ones whose K + V
# exceed 32 MiB, as the _static sibling runs the others before the gate is asked) and 8x2048 (_fk
# in every column: A/A).  Ship the patch if k_fk / hopper holds >= 1.01 over the moved rows with none below 0.99.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-w
V=/tmp/w3v
OUT=${OUT:-/tmp/w-out}
mkdir -p "$OUT" $V/base_d128 $V/k_fk_d128
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for d in base_d128 k_fk_d128; do cp kernels/co/sm_90a/hopper_fwd.cubin kernels/co/sm_90a/hopper_manifest.json $V/$d/; done
echo "checkout cubin sha256 $(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16)"
t0=$SECONDS; timeout 40 python3 $L/gate.py check-only $V/k_fk_d128 > $OUT/check-k_fk.log 2>&1; rc=$?
echo "check-only k_fk (gate) rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check-k_fk.log | cut -c1-160)"
[ $rc -eq 0 ] || { echo "STOP: check failed"; exit 1; }
R="4,16,16,4096,4096,128,0;4,16,16,4096,4096,128,1;4,32,8,4096,4096,128,1;2,16,16,4096,4096,128,1;2,32,8,4096,4096,128,0"
R="$R;3,16,16,3000,3000,128,0;8,16,16,2048,2048,128,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=9 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 150 python3 $L/gate.py time $V/base_d128 $V/k_fk_d128 > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
grep -E "failed|Error|Traceback" $OUT/time.log | head -5 | cut -c1-240; grep "gate fk" $OUT/time.log | sort -u | head -8
echo "wall $((SECONDS-S))s"
python3 - $OUT/hopper_time.json <<'PY'
import json, math, sys
rows = json.load(open(sys.argv[1]))
xs = []
print("| row (d128 bf16) | hopper TFLOP/s | base / hopper (A/A) | k_fk / hopper | hopper / cuDNN | k_fk / cuDNN | max spread |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    b, hq, hk, sq, sk, d, c = r["shape"][:7]
    h, f = r.get("hopper"), r.get("k_fk_d128")
    if h and f and 2048 < sk <= 4096:
        xs.append(f / h)
    cu = r.get("cudnn")
    cell = lambda x, y: f"{x / y:.3f}" if x and y else "-"
    print(f"| {b}x{sq} {hq}/{hk}{' c' if c else ''} | {h or 0:.0f} | {cell(r.get('base_d128'), h)} | {cell(f, h)} | {cell(h, cu)} | "
          f"{cell(f, cu)} | {max(r.get('_spread', {0: float('nan')}).values()):.3f} |")
if xs:
    print(f"k_fk / hopper over the moved rows: geomean {math.exp(sum(map(math.log, xs)) / len(xs)):.4f}, min {min(xs):.3f}")
PY
