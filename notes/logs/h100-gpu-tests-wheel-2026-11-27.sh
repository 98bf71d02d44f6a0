#!/bin/bash
# lead call 6: tests/gpu from the installed wheel (main 3d33b13+), outside the checkout
export PYTHONUNBUFFERED=1
sha256sum kernels/co/sm_90a/hopper_fwd.cubin .dev-lead/dist/*.whl
t0=$SECONDS; WHEEL=$(ls .dev-lead/dist/*.whl) TESTS_S=400 STEPS=tests OUT=$OUT/w bash bench/hopper_validate.sh > $OUT/wheel.log 2>&1; echo "wheel tests rc=$? ($((SECONDS-t0))s)"
tail -3 $OUT/wheel.log; grep "pyhipattn from" $OUT/w/gpu-tests.log; cp $OUT/w/gpu-tests.log $OUT/gpu-tests-wheel.log; rm -rf $OUT/w
