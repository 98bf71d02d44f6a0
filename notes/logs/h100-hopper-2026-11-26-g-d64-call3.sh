#!/usr/bin/env bash
# helper g3 (issue11g-d64), call 3: tree = d692f3d (WG_SKIP shipped); v_main_d64 = main's cubin; sanitizers over the
# shipped d64 kernels; v_ovs_d64 (tile-overlap experiment) last, with strict timeouts (call 2's v_ovlm hung)
set -uo pipefail
D=.dev-g3
sha256sum kernels/co/sm_90a/hopper_fwd.cubin $D/v_main_d64/hopper_fwd.cubin
t0=$(date +%s)
ROWS="8,32,32,2048,2048,64,1;8,32,32,2048,2048,64,0;4,32,32,4096,4096,64,1;4,32,32,4096,4096,64,0;1,2,2,40000,40000,64,0;1,8,8,32768,32768,64,0;8,16,16,8192,8192,64,0;2,32,32,8192,8192,64,1;2,32,32,8192,8192,64,0;1,32,32,16384,16384,64,1;1,32,32,16384,16384,64,0;32,32,32,512,512,64,1;16,32,32,1024,1024,64,1;32,32,32,512,512,64,0;16,32,32,1024,1024,64,0;32,16,16,512,512,64,0;16,12,12,1024,1024,64,0"
HOPPER_DEV_SHAPES="$ROWS" HOPPER_DEV_PGRID=none HOPPER_DEV_PEERS=cudnn OUT=$OUT timeout 60 python3 bench/hopper_dev.py time $D/v_main_d64 > $OUT/time.log 2>&1
echo "time rc $? ($(( $(date +%s) - t0 )) s)"
gcc -O2 -I kernels/src/hopper -o /tmp/hopper_sanitize bench/hopper_sanitize.c -ldl -lm
specs="hopper_fwd_bf16_d64:173696:192:512:64 hopper_fwd_bf16_d64_static:173696:192:512:64"
co=kernels/co/sm_90a/hopper_fwd.cubin
{ for tool in memcheck racecheck synccheck; do t0=$(date +%s)
    timeout 30 compute-sanitizer --tool $tool --print-limit 20 /tmp/hopper_sanitize $co $specs; echo "$tool rc $? ($(( $(date +%s) - t0 )) s)"; done; } > $OUT/sanitize.log 2>&1
grep -E "rc [0-9]+ \(|ERROR SUMMARY|RACECHECK SUMMARY|FAIL|failure" $OUT/sanitize.log
t0=$(date +%s)
timeout 15 /tmp/hopper_sanitize $D/v_ovs_d64/hopper_fwd.cubin hopper_fwd_bf16_d64:173696:192:512:64 > $OUT/ovs.log 2>&1; echo "v_ovs native harness rc $? ($(( $(date +%s) - t0 )) s): $(tail -1 $OUT/ovs.log)"
t0=$(date +%s)
HOPPER_DEV_SHAPES="8,32,32,2048,2048,64,1;8,32,32,2048,2048,64,0;4,32,32,4096,4096,64,0" HOPPER_DEV_PGRID=none HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PORTABLE=0 timeout 20 python3 bench/hopper_dev.py time $D/v_ovs_d64 >> $OUT/ovs.log 2>&1
echo "v_ovs time rc $? ($(( $(date +%s) - t0 )) s)"; grep "^|" $OUT/ovs.log
tail -20 $OUT/time.log
