#!/bin/bash
# lead call v9 (2026-11-27 session 7): `pyhipattn bench --rounds 5` on main (FAST_RCP cubin 5a2a0629..., session 7's gates)
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16
t0=$SECONDS; timeout 200 python3 -m pyhipattn bench --rounds 5 --out $OUT/b > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
cp $OUT/b/results.json $OUT/bench.json; cp $OUT/b/results.png $OUT/bench.png; rm -rf $OUT/b
echo "wall $((SECONDS-S))s"
tail -46 $OUT/bench.log
