#!/bin/bash
# lead call v10 (2026-11-27 session 7): compute-sanitizer memcheck / synccheck / racecheck over every kernel of the shipped
# cubin (FAST_RCP, 5a2a0629...), bf16, each tool limited to 140 s (the harness's cases per kernel as in earlier sweeps).
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16
t0=$SECONDS; DTYPES=bf16 LIMIT=140 STEPS=sanitize OUT=$OUT/s timeout 460 bash bench/hopper_validate.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? ($((SECONDS-t0))s)"
grep "^sanitize" $OUT/sanitize.log | cut -c1-240 | sort -u
(cd $OUT && find . -name hopper_sanitize -delete; tar czf rest.tgz s 2>/dev/null && rm -rf s)
echo "wall $((SECONDS-S))s"
