#!/usr/bin/env bash
# helper g3 (issue11g-d64), call 2: tree = branch issue11g-d64 d692f3d (WG_SKIP cubin shipped); v_main_d64 = main's cubin;
# v_ovs_d64 (next QK^T after the stmatrix, stores under it) / v_ovlm_d64 (next QK^T in the last PV turn): tile-overlap experiments, 8-20 bytes of spills at the tile boundary (not shippable as built)
set -uo pipefail
D=.dev-g3
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin $D/v_*/hopper_fwd.cubin
t0=$(date +%s)
ROWS="8,32,32,2048,2048,64,1;8,32,32,2048,2048,64,0;4,32,32,4096,4096,64,1;4,32,32,4096,4096,64,0;1,2,2,40000,40000,64,0;1,8,8,32768,32768,64,0;8,16,16,8192,8192,64,0;2,32,32,8192,8192,64,1;2,32,32,8192,8192,64,0;1,32,32,16384,16384,64,1;1,32,32,16384,16384,64,0;32,32,32,512,512,64,1;16,32,32,1024,1024,64,1;32,32,32,512,512,64,0;16,32,32,1024,1024,64,0;32,16,16,512,512,64,0;16,12,12,1024,1024,64,0"
HOPPER_DEV_SHAPES="$ROWS" HOPPER_DEV_PGRID=none HOPPER_DEV_PEERS=cudnn OUT=$OUT timeout 150 python3 bench/hopper_dev.py time \
  $D/v_main_d64 $D/v_ovlm_d64 $D/v_ovs_d64 > $OUT/time.log 2>&1
echo "time rc $? ($(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
timeout 60 python3 bench/hopper_dev.py check > $OUT/check.log 2>&1; echo "check (shipped = d692f3d) rc $?: $(tail -1 $OUT/check.log) ($(( $(date +%s) - t0 )) s)"
grep FAIL $OUT/check.log | head -5
t0=$(date +%s)
timeout 100 python3 bench/hopper_dev.py check-only $D/v_ovlm_d64 $D/v_ovs_d64 > $OUT/check_ovl.log 2>&1; echo "check-only ovl rc $?: $(tail -1 $OUT/check_ovl.log) ($(( $(date +%s) - t0 )) s)"
grep FAIL $OUT/check_ovl.log | head -5
t0=$(date +%s)
timeout 200 python3 -m pytest -q -rfs -p no:cacheprovider tests/gpu > $OUT/gpu-tests.log 2>&1; echo "pytest tests/gpu rc $?: $(tail -1 $OUT/gpu-tests.log) ($(( $(date +%s) - t0 )) s)"
grep -E "^(FAILED|ERROR)" $OUT/gpu-tests.log | head
gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
specs=$(python3 -c "import json; m = json.load(open('kernels/co/sm_90a/hopper_manifest.json'))['objects']; \
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" for o in m if o['dtype'] == 'bf16' and o['head_dim'] == 64))")
dspec=$(echo $specs | tr ' ' '\n' | grep 'd64:' | head -1)
echo "sanitize specs: $specs | ovl: $dspec"
{ for co in kernels/co/sm_90a/hopper_fwd.cubin; do
  t0=$(date +%s); timeout 30 /tmp/hopper_sanitize $co $specs; echo "native rc $? ($(( $(date +%s) - t0 )) s)"
  for tool in memcheck racecheck synccheck; do t0=$(date +%s)
    timeout 60 compute-sanitizer --tool $tool --print-limit 20 /tmp/hopper_sanitize $co $specs; echo "$tool rc $? ($(( $(date +%s) - t0 )) s)"; done; done
  for co in $D/v_ovlm_d64/hopper_fwd.cubin $D/v_ovs_d64/hopper_fwd.cubin; do echo "=== $co"
    for tool in racecheck synccheck; do t0=$(date +%s)
    timeout 40 compute-sanitizer --tool $tool --print-limit 20 /tmp/hopper_sanitize $co $dspec; echo "$tool rc $? ($(( $(date +%s) - t0 )) s)"; done; done; } > $OUT/sanitize.log 2>&1
grep -E "^===|native rc|rc [0-9]+ \(|ERROR SUMMARY|RACECHECK SUMMARY|FAIL|failure" $OUT/sanitize.log
tail -20 $OUT/time.log
