#!/usr/bin/env bash
# helper i64 (issue11i-d64), call 3: the installed cubin = main 3327b4e + HOPPER_UDIV_D64=1 + HOPPER_PDEC_D64=1 (the d64
# producer passes each tile's decode to the consumers); variants main_d64 (main's cubin), udiv_d64 (UDIV alone).
# Interleaved timing, then check, tests/gpu, compute-sanitizer (bf16, the changed d64 kernels)
set -uo pipefail
D=.dev-i64
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin $D/v/*/hopper_fwd.cubin
T0=$(date +%s)
for v in kernels/co/sm_90a $D/v/main_d64 $D/v/udiv_d64; do
  echo "== $v d64: $(cuobjdump -sass -fun hopper_fwd_bf16_d64 $v/hopper_fwd.cubin | grep -oE 'STL|LDL|MUFU.RCP|I2F|IABS' | sort | uniq -c | tr '\n' ' ') lines $(cuobjdump -sass -fun hopper_fwd_bf16_d64 $v/hopper_fwd.cubin | grep -c '/\*[0-9a-f]*\*/')"
done
t0=$(date +%s)
SH="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;16,32,32,1024,1024,64,1;8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1;4,32,32,4096,4096,64,0;4,32,32,4096,4096,64,1;1,32,32,16384,16384,64,0;1,32,32,16384,16384,64,1;1,2,2,40000,40000,64,0;8,16,16,8192,8192,64,0"
HOPPER_DEV_SHAPES="$SH" HOPPER_DEV_ROUNDS=5 HOPPER_DEV_PGRID=none HOPPER_DEV_PEERS=cudnn OUT=$OUT timeout 90 \
  python3 bench/hopper_dev.py time $D/v/main_d64 $D/v/udiv_d64 > $OUT/time.log 2>&1
echo "time rc $? ($(( $(date +%s) - t0 )) s)"
tail -16 $OUT/time.log
OUT=/tmp/val STEPS="check tests sanitize" DTYPES=bf16 KERNELS='_d64(_s4|_static|_softcap)?$' CHECK_S=60 TESTS_S=200 LIMIT=35 \
  bash bench/hopper_validate.sh > $OUT/validate.log 2>&1
echo "validate rc $?"
cp /tmp/val/check.log /tmp/val/gpu-tests.log $OUT/ 2>/dev/null
cat /tmp/val/sanitize-*.log > $OUT/sanitize.log 2>/dev/null
echo "elapsed $(( $(date +%s) - T0 )) s"
tail -8 $OUT/validate.log
