#!/bin/bash
# lead call v15 (2026-11-27 session 9): compute-sanitizer memcheck / synccheck / racecheck over every kernel of the
# shipped cubin f693eeb5... (HOPPER_START_WAIT=1), bf16, each tool limited to 140 s; then fp16 over the two _c2 kernels
# the start wait changed (LIMIT 40 s a tool).
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16
t0=$SECONDS; DTYPES=bf16 LIMIT=140 STEPS=sanitize OUT=$OUT/s timeout 440 bash bench/hopper_validate.sh > $OUT/sanitize-bf16.log 2>&1; echo "sanitize bf16 rc=$? ($((SECONDS-t0))s)"
grep "^sanitize" $OUT/sanitize-bf16.log | cut -c1-240 | sort -u
t0=$SECONDS; DTYPES=fp16 KERNELS='_c2' LIMIT=40 STEPS=sanitize OUT=$OUT/s2 timeout 130 bash bench/hopper_validate.sh > $OUT/sanitize-fp16.log 2>&1; echo "sanitize fp16 rc=$? ($((SECONDS-t0))s)"
grep "^sanitize" $OUT/sanitize-fp16.log | cut -c1-240 | sort -u
(cd $OUT && find . -name hopper_sanitize -delete; tar czf rest.tgz s s2 2>/dev/null && rm -rf s s2)
echo "wall $((SECONDS-S))s"
