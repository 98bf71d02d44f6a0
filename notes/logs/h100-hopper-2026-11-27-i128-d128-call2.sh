#!/usr/bin/env bash
# helper i128 (issue11i-d128), call 2: interleaved timing (5 rounds) of vk (HOPPER_K_AHEAD_D128=1) and vfk (+ HOPPER_FUSE_TURN_D128=1)
# against the shipped cubin and cuDNN; then, only if one wins (gate below), that cubin installed as kernels/co/sm_90a:
# bench/hopper_dev.py check, tests/gpu, compute-sanitizer memcheck / racecheck / synccheck over bf16 / fp16 d128
set -uo pipefail
D=.dev-i128
T0=$(date +%s)
el() { echo "$(( $(date +%s) - T0 )) s"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin $D/v/*/hopper_fwd.cubin
SH="32,16,16,512,512,128,0;32,16,16,512,512,128,1;16,16,16,1024,1024,128,0;16,16,16,1024,1024,128,1;8,16,16,2048,2048,128,0;8,16,16,2048,2048,128,1;4,16,16,4096,4096,128,0;4,16,16,4096,4096,128,1;2,16,16,8192,8192,128,0;1,16,16,16384,16384,128,0;1,16,16,16384,16384,128,1;1,32,8,8192,8192,128,1"
HOPPER_DEV_SHAPES="$SH" HOPPER_DEV_ROUNDS=5 HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none OUT=$OUT \
  timeout 75 python3 bench/hopper_dev.py time $D/v/vk_d128 $D/v/vfk_d128 $D/v/vfke_d128 > $OUT/time2.log 2>&1
echo "time rc $? ($(el))"
win=$(python3 - $OUT/hopper_time.json <<'PY'
import json, math, sys
rows = json.load(open(sys.argv[1]))
main = [r for r in rows if not (r["shape"][6] is False and r["shape"][3] >= 8192)]   # the _bn176 rows: unchanged kernel
best, bg = "", 0.0
for c in ("vk_d128", "vfk_d128", "vfke_d128"):
    rs = [r[c] / r["hopper"] for r in main if r.get(c) and r.get("hopper")]
    g = math.exp(sum(map(math.log, rs)) / len(rs)) if rs else 0
    print(f"{c}: geomean {g:.4f} min {min(rs):.3f} over {len(rs)} rows", file=sys.stderr)
    if len(rs) == len(main) and g >= 1.01 and min(rs) >= 0.97 and g > bg:
        best, bg = c, g
print(best)
PY
)
echo "gate: '${win}' ($(el))"
if [ -n "$win" ]; then
  cp $D/v/$win/hopper_fwd.cubin $D/v/$win/hopper_manifest.json kernels/co/sm_90a/
  sha256sum kernels/co/sm_90a/hopper_fwd.cubin
  timeout 50 python3 bench/hopper_dev.py check > $OUT/check2.log 2>&1
  echo "check rc $?: $(tail -1 $OUT/check2.log) ($(el))"; grep -E "FAIL" $OUT/check2.log | head -5
  timeout 145 python3 -m pytest -q -rfs -p no:cacheprovider tests/gpu > $OUT/gpu-tests2.log 2>&1
  echo "pytest tests/gpu rc $?: $(tail -1 $OUT/gpu-tests2.log) ($(el))"; grep -E "^(FAILED|ERROR)" $OUT/gpu-tests2.log | head
  gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
  co=kernels/co/sm_90a/hopper_fwd.cubin
  args=$(python3 -c "import json; m = json.load(open('kernels/co/sm_90a/hopper_manifest.json'))['objects']; \
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" for o in m if o['kernel'] in ('hopper_fwd_bf16_d128', 'hopper_fwd_fp16_d128')))")
  { echo "specs: $args"
    for tool in memcheck racecheck synccheck; do t1=$(date +%s)
      timeout 25 compute-sanitizer --tool $tool --print-limit 20 /tmp/hopper_sanitize $co $args; echo "$tool rc $? ($(( $(date +%s) - t1 )) s)"; done; } > $OUT/sanitize2.log 2>&1
  grep -E "rc [0-9]+ \(|ERROR SUMMARY|RACECHECK SUMMARY|^FAIL|sanitize cases" $OUT/sanitize2.log
fi
echo "elapsed $(el)"
python3 - $OUT/hopper_time.json <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
cols = ["vk_d128", "vfk_d128", "vfke_d128"]
print("| row | hopper/cudnn | " + " | ".join(c + "/hopper" for c in cols) + " | best/cudnn | spread max |")
for r in rows:
    h, c = r.get("hopper"), r.get("cudnn")
    sp = max(r.get("_spread", {}).values() or [0])
    vals = [r.get(k) for k in ["hopper"] + cols if r.get(k)]
    print(f"| {r['shape']} | {h / c:.3f} | " + " | ".join(f"{r[k] / h:.3f}" if r.get(k) else "-" for k in cols)
          + f" | {max(vals) / c:.3f} | {sp:.3f} |")
PY
