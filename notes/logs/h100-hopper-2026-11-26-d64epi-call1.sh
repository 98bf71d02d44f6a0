#!/usr/bin/env bash
# helper h11e, call 1: time d64 O-epilogue variants (+ d128 st.global.v4), then validate the best d64 variant installed
set -uo pipefail
D=.dev-h11e
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin $D/v_*/hopper_fwd.cubin
ROWS="32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,32,32,1024,1024,64,0;16,32,32,1024,1024,64,1;32,16,16,512,512,64,0;16,12,12,1024,1024,64,0;8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1;4,32,32,4096,4096,64,0;4,32,32,4096,4096,64,1;32,16,16,512,512,128,0;32,16,16,512,512,128,1;16,16,16,1024,1024,128,1;4,16,16,4096,4096,128,0"
t0=$(date +%s)
HOPPER_DEV_SHAPES="$ROWS" HOPPER_DEV_PGRID=none HOPPER_DEV_PEERS=cudnn OUT=$OUT timeout 150 python3 bench/hopper_dev.py time $D/v_epi_d64 $D/v_epiw_d64 $D/v_v4_d128 > $OUT/time.log 2>&1
echo "time rc $? ($(( $(date +%s) - t0 )) s)"
best=$(python3 - <<'PY'
import json, math, os
rows = json.load(open(os.environ["OUT"] + "/hopper_time.json"))
g = {}
for v in ("v_epi_d64", "v_epiw_d64"):
    r = [x[v] / x["hopper"] for x in rows if x["shape"][5] == 64 and x.get(v) and x.get("hopper")]
    g[v] = math.exp(sum(map(math.log, r)) / len(r)) if r else 0.0
print(max(g, key=g.get))
import sys; print(g, file=sys.stderr)
PY
)
echo "best d64 variant: $best"
cp $D/$best/hopper_fwd.cubin $D/$best/hopper_manifest.json kernels/co/sm_90a/
t0=$(date +%s)
timeout 45 python3 bench/hopper_dev.py check > $OUT/check.log 2>&1; echo "check rc $?: $(tail -1 $OUT/check.log) ($(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_hopper_gpu.py tests/gpu/test_mha_gpu.py > $OUT/pytest.log 2>&1; echo "pytest rc $?: $(tail -1 $OUT/pytest.log) ($(( $(date +%s) - t0 )) s)"
gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
spec() { python3 -c "import json,sys; m = json.load(open('$1/hopper_manifest.json'))['objects']; \
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" for o in m if o['dtype'] == 'bf16' and o['head_dim'] == $2))"; }
san=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
{ for pair in "kernels/co/sm_90a 64" "$D/v_v4_d128 128"; do set -- $pair; args=$(spec $1 $2); co=$1/hopper_fwd.cubin
  echo "=== $co: $args"
  t0=$(date +%s); timeout 20 /tmp/hopper_sanitize $co $args; echo "native rc $? ($(( $(date +%s) - t0 )) s)"
  for tool in memcheck racecheck synccheck; do t0=$(date +%s)
    timeout 25 "$san" --tool $tool --print-limit 20 /tmp/hopper_sanitize $co $args; echo "$tool rc $? ($(( $(date +%s) - t0 )) s)"; done; done; } > $OUT/sanitize.log 2>&1
grep -E "^===|native rc|rc [0-9]+ \(|ERROR SUMMARY|RACECHECK SUMMARY|FAIL" $OUT/sanitize.log
grep -E "^(FAILED|ERROR)" $OUT/pytest.log | head
grep -E "FAIL" $OUT/check.log | head
tail -17 $OUT/time.log
