#!/usr/bin/env bash
# helper i128 (issue11i-d128), call 1: check-only of the variants, interleaved timing (5 rounds) against the shipped
# cubin and cuDNN, sanitizers over ve's changed bf16 / fp16 d128 kernels
set -uo pipefail
D=.dev-i128
T0=$(date +%s)
el() { echo "$(( $(date +%s) - T0 )) s"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin $D/v/*/hopper_fwd.cubin
timeout 75 python3 bench/hopper_dev.py check-only $D/v/vf_d128 $D/v/ve_d128 > $OUT/check1.log 2>&1
echo "check-only vf ve rc $?: $(tail -1 $OUT/check1.log) ($(el))"
grep -E "FAIL|Error" $OUT/check1.log | head -5
SH="32,16,16,512,512,128,0;32,16,16,512,512,128,1;16,16,16,1024,1024,128,0;16,16,16,1024,1024,128,1;8,16,16,2048,2048,128,0;8,16,16,2048,2048,128,1;4,16,16,4096,4096,128,0;4,16,16,4096,4096,128,1;2,16,16,8192,8192,128,0;1,16,16,16384,16384,128,0;1,16,16,16384,16384,128,1;1,32,8,8192,8192,128,1"
HOPPER_DEV_SHAPES="$SH" HOPPER_DEV_ROUNDS=5 HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none OUT=$OUT \
  timeout 170 python3 bench/hopper_dev.py time $D/v/vf_d128 $D/v/ve_d128 $D/v/vx_d128 $D/v/vs_d128 > $OUT/time1.log 2>&1
echo "time rc $? ($(el))"
gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
co=$D/v/ve_d128/hopper_fwd.cubin
args=$(python3 -c "import json; m = json.load(open('$D/v/ve_d128/hopper_manifest.json'))['objects']; \
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" for o in m if o['kernel'] in ('hopper_fwd_bf16_d128', 'hopper_fwd_bf16_d128_static', 'hopper_fwd_bf16_d128_softcap', 'hopper_fwd_fp16_d128')))")
{ echo "specs: $args"; timeout 20 /tmp/hopper_sanitize $co $args; echo "native rc $?"
  for tool in memcheck racecheck synccheck; do t1=$(date +%s)
    timeout 40 compute-sanitizer --tool $tool --print-limit 20 /tmp/hopper_sanitize $co $args; echo "$tool rc $? ($(( $(date +%s) - t1 )) s)"; done; } > $OUT/sanitize1.log 2>&1
grep -E "native rc|rc [0-9]+ \(|ERROR SUMMARY|RACECHECK SUMMARY|^FAIL" $OUT/sanitize1.log
echo "elapsed $(el)"
python3 - $OUT/hopper_time.json <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
cols = ["vf_d128", "ve_d128", "vx_d128", "vs_d128"]
print("| row | hopper/cudnn | " + " | ".join(c + "/hopper" for c in cols) + " | best/cudnn | spread max |")
for r in rows:
    h, c = r.get("hopper"), r.get("cudnn")
    sp = max(r.get("_spread", {}).values() or [0])
    vals = [r.get(k) for k in ["hopper"] + cols if r.get(k)]
    print(f"| {r['shape']} | {h / c:.3f} | " + " | ".join(f"{r[k] / h:.3f}" if r.get(k) else "-" for k in cols)
          + f" | {max(vals) / c:.3f} | {sp:.3f} |")
PY
