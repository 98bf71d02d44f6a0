#!/bin/bash
# lead call l4 (2026-11-27 session 4): main (the sha256 line) after the helpers' branches: (1) helper-44's ready w3 (_fk up to
# 4096 keys, forced through a gate wrapper, against the planner as shipped, 9 rounds); if its verdict holds (geomean >= 1.01
# over the moved rows, none below 0.99) the gate patch's two files (.dev-l4/fk/) are copied in before (2): check,
# tests/gpu, then `pyhipattn bench` (paired, 5 rounds).  No sanitizer step: every kernel's bytes are the ones
# sanitized in calls l2 (_d128, _fk, _c2) and l3 (_d64, _d64_s4), bf16 and fp16
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin
t0=$SECONDS; mkdir -p $OUT/w; OUT=$OUT/w timeout 150 bash .dev-w/w3.sh > $OUT/w3.log 2>&1; echo "w3 rc=$? ($((SECONDS-t0))s)"
tail -14 $OUT/w3.log
v=$(grep "k_fk / hopper over the moved rows" $OUT/w3.log)
if python3 -c "import re,sys; g,m=map(float,re.findall(r'geomean ([0-9.]+), min ([0-9.]+)',sys.argv[1])[0]); sys.exit(0 if g>=1.01 and m>=0.99 else 1)" "$v"; then
  cp .dev-l4/fk/hopper.py pyhipattn/families/hopper.py && cp .dev-l4/fk/test_hopper_plan.py tests/test_hopper_plan.py && echo "FK4096: APPLIED (the bench below runs _fk up to 4096 keys)"
else
  echo "FK4096: not applied ($v)"
fi
t0=$SECONDS; CHECK_S=90 TESTS_S=240 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-t0))s)"
tail -3 $OUT/validate.log
t0=$SECONDS; timeout 200 python3 -m pyhipattn bench --rounds 5 --out $OUT/b > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
cp $OUT/b/results.json $OUT/bench.json; cp $OUT/b/results.png $OUT/bench.png; cp $OUT/v/gpu-tests.log $OUT/gpu-tests.log
(cd $OUT && find . -name hopper_sanitize -delete; tar czf rest.tgz v b w && rm -rf v b w)
tail -50 $OUT/bench.log
echo "total wall $((SECONDS-S))s"
