#!/bin/bash
# issue11j, not run (the team's device budget was below 700 s): the fused _c2 tile boundary against the shipped _c2.
# On the CPU first, in a checkout of this branch:
#   git apply notes/logs/h100-hopper-2026-11-27-j64-c2-fuse.patch
#   NVCC_EXTRA=-DHOPPER_C2_FUSE_D64=1 OUT=<dev folder>/v/v_fuse_d64 bash scripts/build/hopper.sh   # (0 spills, no warnings here)
#   git checkout kernels/src/hopper/hopper_fwd.cu
# then on the device (the shipped cubin = this branch's, _c2 at 0..1024 keys; the dev wrapper opens the gate to every
# length for both columns): check first (a hang is the risk of a new boundary), then interleaved timing.
export PYTHONUNBUFFERED=1
D=${D:-.dev-j64}
V=$D/v
t0=$SECONDS; timeout 90 python3 $D/dev.py check-only $V/v_fuse_d64 > $OUT/check.log 2>&1; rc=$?
echo "check-only fuse rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check.log)"
if [ $rc -ne 0 ]; then grep FAIL $OUT/check.log | head; exit 1; fi
t0=$SECONDS; timeout 90 python3 -m pytest -x -q -p no:cacheprovider tests/gpu/test_hopper_gpu.py -k c2_sibling > $OUT/c2tests.log 2>&1
echo "c2 tests on the shipped cubin rc=$? ($((SECONDS-t0))s): $(tail -1 $OUT/c2tests.log)"
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0"
R="$R;16,32,32,1024,1024,64,1;8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1;4,32,32,4096,4096,64,0;4,32,32,4096,4096,64,1"
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none OUT=$OUT timeout 150 \
  python3 $D/dev.py time $V/v_fuse_d64 > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
tail -12 $OUT/time.log
