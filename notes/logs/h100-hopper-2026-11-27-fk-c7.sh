#!/bin/bash
# lead call 7: issue11i-fk (main + the d128 _fk siblings): the test that hung helper-29's first build, check, tests/gpu,
# sanitizers over the _fk kernels, interleaved timing against main's d128 kernels, bench
export PYTHONUNBUFFERED=1
cp -r .dev-lead/tree/. . && mkdir -p v && cp -r .dev-lead/v/main_d128 v/ || exit 2
S=$SECONDS
sha256sum kernels/co/sm_90a/hopper_fwd.cubin v/main_d128/hopper_fwd.cubin
t0=$SECONDS; timeout 90 python3 -m pytest -x -q -p no:cacheprovider tests/gpu/test_hopper_gpu.py -k back_to_back > $OUT/hung.log 2>&1; rc=$?
echo "back_to_back rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/hung.log)"
if [ $rc -ne 0 ]; then echo "STOP: the test that hung fails or hangs"; tail -20 $OUT/hung.log; exit 1; fi
CHECK_S=120 TESTS_S=260 STEPS="check tests" OUT=$OUT/v bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "check+tests rc=$? ($((SECONDS-S))s)"
tail -3 $OUT/validate.log; grep -E "^(FAILED|ERROR)" $OUT/v/gpu-tests.log | head -5
t0=$SECONDS; KERNELS='_d128_fk$' LIMIT=50 STEPS=sanitize OUT=$OUT/s bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s)"
tail -7 $OUT/sanitize.log
R="32,16,16,512,512,128,0;32,16,16,512,512,128,1;16,16,16,1024,1024,128,0;16,16,16,1024,1024,128,1;8,16,16,2048,2048,128,0;8,16,16,2048,2048,128,1"
R="$R;4,32,8,2048,2048,128,1;4,16,16,4096,4096,128,0;1,32,8,8192,8192,128,1"
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none timeout 100 \
  python3 bench/hopper_dev.py time v/main_d128 > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
tail -12 $OUT/time.log
left=$((585-(SECONDS-S)))
if [ $left -gt 75 ]; then
  t0=$SECONDS; BENCH_S=$left STEPS=bench OUT=$OUT/b bash bench/hopper_validate.sh > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
  cp $OUT/b/bench/results.json $OUT/bench.json; cp $OUT/b/bench/results.png $OUT/bench.png;
else echo "bench skipped: $left s left"; fi
(cd $OUT && rm -f s/hopper_sanitize && tar czf rest.tgz v s b 2>/dev/null && rm -rf v s b)
