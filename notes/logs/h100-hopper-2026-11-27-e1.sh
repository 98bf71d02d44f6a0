#!/bin/bash
# lead call e1 (2026-11-27 session 2): branch issue11k-c2pdec (merged with main's review mends, cubin 08db68da...) as the tree:
# (1) _c2 fp16 sanitizers, (2) tests/gpu, (3) helper-32's _c2 turn / descriptor variants (.dev-l/next2.sh = next.sh with the
# shipped cubin read from the checkout's kernels/co)
export PYTHONUNBUFFERED=1
S=$SECONDS
mkdir -p .dev-e1/k && tar -xJf .dev-e1/kt.tar.xz -C .dev-e1/k && tar -xJf .dev-e1/v.tar.xz -C .dev-e1 && cp -r .dev-e1/k/tree/. . || exit 2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin
t0=$SECONDS; KERNELS='_c2$' DTYPES=fp16 LIMIT=30 STEPS=sanitize OUT=$OUT/s bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | tail -3; echo "  ($((SECONDS-t0))s)"
t0=$SECONDS; timeout 200 python3 -m pytest -v -p no:cacheprovider tests/gpu > $OUT/gpu-tests.log 2>&1; echo "tests/gpu rc=$? ($((SECONDS-t0))s)"; tail -2 $OUT/gpu-tests.log; echo "c2 tests passed: $(grep -c "c2_sibling.* PASSED" $OUT/gpu-tests.log)"
grep -E "FAILED|ERROR" $OUT/gpu-tests.log | head -5
(cd $OUT && find . -name hopper_sanitize -delete)
mkdir -p $OUT/l; OUT=$OUT/l timeout $((560-(SECONDS-S))) bash .dev-e1/next2.sh
echo "total wall $((SECONDS-S))s"
