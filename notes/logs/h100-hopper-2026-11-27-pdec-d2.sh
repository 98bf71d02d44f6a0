#!/bin/bash
# lead call d2: PDEC with __syncwarp before the q_empty arrivals (shipped, pdec2) vs per-lane arrivals (v/pdec3_d64) vs main (v/old_d64):
# tests/gpu/test_interop_gpu.py alone (d1's first failure), racecheck of both PDEC builds, then the whole tests/gpu, sanitizers, timing
export PYTHONUNBUFFERED=1
cp -r .dev-lead/tree/. . && mkdir -p v && cp -r .dev-lead/v/old_d64 .dev-lead/v/pdec3_d64 v/ || exit 2
S=$SECONDS
sha256sum kernels/co/sm_90a/hopper_fwd.cubin v/*/hopper_fwd.cubin
t0=$SECONDS; timeout 150 python3 -m pytest -q -x --tb=short -p no:cacheprovider tests/gpu/test_interop_gpu.py > $OUT/interop.log 2>&1; echo "interop rc=$? ($((SECONDS-t0))s)"; tail -3 $OUT/interop.log
for c in kernels/co/sm_90a v/pdec3_d64 v/old_d64; do
  t0=$SECONDS; CO=$c KERNELS='_d64$' DTYPES=bf16 TOOLS=racecheck LIMIT=60 STEPS=sanitize OUT=$OUT/r/$(basename $c) bash bench/hopper_validate.sh 2>&1 | tail -1; echo "  ($((SECONDS-t0))s)"
done
t0=$SECONDS; timeout 280 python3 -m pytest -q -x --tb=short -p no:cacheprovider tests/gpu > $OUT/gpu-tests.log 2>&1; echo "tests/gpu rc=$? ($((SECONDS-t0))s)"; tail -3 $OUT/gpu-tests.log
t0=$SECONDS; KERNELS='_d64(_s4)?$' LIMIT=45 STEPS=sanitize OUT=$OUT/s bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s)"
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0;16,32,32,1024,1024,64,1"
R="$R;8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1;4,32,32,4096,4096,64,0;1,32,32,16384,16384,64,0;1,2,2,40000,40000,64,0;8,16,16,8192,8192,64,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=7 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none timeout 150 \
  python3 bench/hopper_dev.py time v/old_d64 v/pdec3_d64 > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
tail -8 $OUT/sanitize.log; tail -15 $OUT/time.log
(cd $OUT && find . -name hopper_sanitize -delete; tar czf rest.tgz r s && rm -rf r s)
