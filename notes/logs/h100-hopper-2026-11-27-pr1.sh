#!/bin/bash
# lead call pr1 (2026-11-27 session 9): predecessor matrix, rotate vs balanced order on six rows, then the full bench in
# both orders.
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16
t0=$SECONDS; timeout 150 python3 .dev-pr/pred.py > $OUT/pred.log 2>&1; echo "pred rc=$? ($((SECONDS-t0))s)"
t0=$SECONDS; timeout 200 python3 .dev-pr/order.py $OUT/order.json > $OUT/order.log 2>&1; echo "order rc=$? ($((SECONDS-t0))s)"
for o in balanced rotate; do
  t0=$SECONDS; timeout 130 python3 -m pyhipattn bench --rounds 5 --order $o --out $OUT/b-$o > $OUT/bench-$o.log 2>&1; echo "bench $o rc=$? ($((SECONDS-t0))s)"
  cp $OUT/b-$o/results.json $OUT/bench-$o.json; cp $OUT/b-$o/results.png $OUT/bench-$o.png; rm -rf $OUT/b-$o
done
echo "wall $((SECONDS-S))s"
cat $OUT/pred.log | grep -v Warning | tail -45
cat $OUT/order.log | grep "^rep"
