#!/bin/bash
# lead call e4 (2026-11-27 session 2): main's _c2 (descriptor adds + interleaved exponentials) against the d64 kernel on
# the d64 rows above 1024 keys, one interleaved run: "hopper" = main's cubin with the _c2 gate opened to every length
# (dev.py = logs/h100-hopper-2026-11-27-k-dev.py), noc2_d64 = the same build without the _c2 kernels (C2_D64=0: the 46
# other kernels' .text identical), so its d64 rows run the d64 kernel as main's planner picks it (_s4 / _static where so)
export PYTHONUNBUFFERED=1
S=$SECONDS
tar -xJf .dev-e4/v.tar.xz -C .dev-e4 || exit 2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin .dev-e4/noc2_d64/hopper_fwd.cubin
t0=$SECONDS; HOPPER_DEV_D=64 timeout 60 python3 .dev-e4/dev.py check > $OUT/check.log 2>&1; echo "check (gate open) rc=$? ($((SECONDS-t0))s): $(tail -1 $OUT/check.log)"; grep -E "FAIL" $OUT/check.log | head -3
R="8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1;4,32,32,4096,4096,64,0;4,32,32,4096,4096,64,1;2,32,32,8192,8192,64,0;2,32,32,8192,8192,64,1;8,16,16,8192,8192,64,0;1,8,8,32768,32768,64,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none OUT=$OUT \
  timeout 150 python3 .dev-e4/dev.py time .dev-e4/noc2_d64 > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
tail -10 $OUT/time.log
python3 - $OUT/hopper_time.json <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    b, hq, hk, sq, sk, d, c = r["shape"][:7]
    h, n, cu = r.get("hopper"), r.get("noc2_d64"), r.get("cudnn")
    sp = r.get("_spread", {})
    print(f"| {b}x{sq} {hq}/{hk}{' c' if c else ''} | c2 / d64 kernel {h / n:.3f} | c2 / cuDNN {h / cu:.3f} | d64 kernel / cuDNN {n / cu:.3f} | spreads {sp.get('hopper', 0):.3f} {sp.get('noc2_d64', 0):.3f} {sp.get('cudnn', 0):.3f} |")
PY
echo "wall $((SECONDS-S))s"
