#!/bin/bash
# lead call d5: branch issue11k-c2pdec as the shipped tree (cubin 08db68da...: main's 46 kernels + the d64 _c2 siblings with the
# producer's tile decode and the fused tile boundary; planner _c2 at 0..1024 keys): _c2 fp16 sanitizers, then tests/gpu
# .dev-k/tree = the branch's changed files (from a checkout of issue11k-c2pdec, in the main repository's root):
#   for f in $(git diff --name-only main issue11k-c2pdec -- kernels scripts pyhipattn tests bench); do
#     mkdir -p .dev-k/tree/$(dirname $f); git show issue11k-c2pdec:$f > .dev-k/tree/$f; done
# (if main moved on, merge main into the branch first and rebuild the cubin: bash scripts/build/hopper.sh)
export PYTHONUNBUFFERED=1
cp -r .dev-k/tree/. . || exit 2
sha256sum kernels/co/sm_90a/hopper_fwd.cubin
t0=$SECONDS; KERNELS='_c2$' DTYPES=fp16 LIMIT=30 STEPS=sanitize OUT=$OUT/s bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | tail -3; echo "  ($((SECONDS-t0))s)"
t0=$SECONDS; timeout 170 python3 -m pytest -v -p no:cacheprovider tests/gpu > $OUT/gpu-tests.log 2>&1; echo "tests/gpu rc=$? ($((SECONDS-t0))s)"; tail -2 $OUT/gpu-tests.log; echo "c2 tests passed: $(grep -c "c2_sibling.* PASSED" $OUT/gpu-tests.log)"
