#!/bin/bash
# lead call 3 (issue11i-varlen96, 438e941): the d96 _dyn_varlen kernels: varlen check, sanitizers, d96 varlen timing
export PYTHONUNBUFFERED=1
cp -r .dev-lead/tree/. . || exit 2
sha256sum kernels/co/sm_90a/hopper_fwd.cubin
t0=$SECONDS; timeout 90 python3 bench/hopper_varlen_dev.py check > $OUT/check_varlen.log 2>&1; echo "varlen check rc=$? ($((SECONDS-t0))s): $(tail -1 $OUT/check_varlen.log)"
grep -c "d96.*causal\|_dyn_varlen" $OUT/check_varlen.log
t0=$SECONDS; timeout 200 python3 -m pytest -q -rfs -p no:cacheprovider tests/gpu/test_hopper_varlen_gpu.py > $OUT/gpu-varlen.log 2>&1; echo "pytest varlen rc=$? ($((SECONDS-t0))s): $(tail -1 $OUT/gpu-varlen.log)"
t0=$SECONDS
HOPPER_VARLEN_ROWS="16,128,4096,32,32,96,1;8,1024,8192,32,32,96,1;32,128,1024,32,32,96,1;4,4096,16384,32,32,96,1;256,16,256,32,32,96,1;16,128,4096,32,8,96,1" \
  timeout 60 python3 bench/hopper_varlen_dev.py time > $OUT/time_varlen96.log 2>&1; echo "varlen time rc=$? ($((SECONDS-t0))s)"
OUT=$OUT/v KERNELS='_d96_dyn_varlen$' STEPS=sanitize LIMIT=60 bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "validate rc=$?"
tail -7 $OUT/validate.log; tail -8 $OUT/time_varlen96.log
rm -f $OUT/v/hopper_sanitize; (cd $OUT && tar czf v.tgz v && rm -rf v)
