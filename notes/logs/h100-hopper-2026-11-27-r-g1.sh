#!/bin/bash
# helper r (branch issue11r-d128nc), call g1: the d128 planner gates.  Each column is the shipped cubin (main 3b2875c,
# 1fb94eb4...) with one kernel forced on every d128 row by .dev-r/gate.py (variant dir k_<sfx>_d128):
#   k_fk_d128 (_fk), k_base_d128 (the d128 kernel), k_bn176_d128 (_bn176; causal rows keep the planner's pick),
#   k_static_d128 (_static).  "hopper" = the planner as shipped.  Same bytes everywhere: no racecheck (no kernel changed).
# Run over /work/main's tree with carry [".whl", ".dev-r"], kind nvidia-h100-x1, the usual prefix, then: bash .dev-r/g1.sh
export PYTHONUNBUFFERED=1
S=$SECONDS
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "checkout cubin: $(sha256sum < kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16) (expect 1fb94eb472dbf011)"
(cd /tmp && python3 -c "from pyhipattn.families import hopper as h; print('planner FK', h.FK_SIBLING_D128, 'BN176', h.WIDE_BLOCK_NONCAUSAL, 'STATIC', h.STATIC_SIBLING_CAUSAL.get(128))")
V=/tmp/rv; cols=()
for s in fk base bn176 static; do
  mkdir -p $V/k_${s}_d128; cp kernels/co/sm_90a/hopper_fwd.cubin kernels/co/sm_90a/hopper_manifest.json $V/k_${s}_d128/
  cols+=($V/k_${s}_d128)
done
# the forced routes nothing validated yet: _bn176 and _static on short non-causal problems (the check's targeted cases)
t0=$SECONDS; timeout 100 python3 .dev-r/gate.py check-only $V/k_bn176_d128 $V/k_static_d128 > $OUT/check.log 2>&1; rc=$?
echo "check-only (forced _bn176, _static) rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check.log)"; grep -E "FAIL|Error" $OUT/check.log | head -8
grep "^  gate" $OUT/check.log | sed 's/: .*->/ ->/;s/ grid.*//' | sort | uniq -c
R="32,16,16,512,512,128,0;16,16,16,1024,1024,128,0;8,16,16,2048,2048,128,0;4,16,16,4096,4096,128,0"
R="$R;32,16,16,512,512,128,1;4,16,16,4096,4096,128,1"
t0=$SECONDS; HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 165 python3 .dev-r/gate.py time "${cols[@]}" > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
grep "^  gate" $OUT/time.log | sed 's/ grid.*//' | sort -u
grep -v '^  gate' $OUT/time.log | grep -iE "error|fail|Traceback" | head -5
python3 - $OUT/time.log <<'PY'
import json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"shape"')]
names = ["hopper", "k_fk_d128", "k_base_d128", "k_bn176_d128", "k_static_d128"]
short = {"hopper": "hopper", "k_fk_d128": "_fk", "k_base_d128": "d128", "k_bn176_d128": "_bn176", "k_static_d128": "_static"}
print("| row (d128 16/16) | hopper TFLOP/s (us) | " + " | ".join(f"{short[n]} / cuDNN" for n in names) + " | "
      + " | ".join(f"{short[n]} / hopper" for n in names[1:]) + " | max spread |")
print("|---" * (2 * len(names) + 2) + "|")
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    h, cu = r.get("hopper"), r.get("cudnn")
    us = f" ({4 * b * hq * sq * sk * d / (2 if causal else 1) / h / 1e6:.1f})" if h else ""
    c1 = [f"{r[n] / cu:.3f}" if r.get(n) and cu else "-" for n in names]
    c2 = [f"{r[n] / h:.3f}" if r.get(n) and h else "-" for n in names[1:]]
    sp = max(r.get("_spread", {}).values(), default=float("nan"))
    print(f"| {b}x{sq}{' c' if causal else ''} | {h or 0:.0f}{us} | " + " | ".join(c1) + " | " + " | ".join(c2) + f" | {sp:.3f} |")
PY
echo "wall $((SECONDS-S))s"
