#!/bin/bash
# next session's first device call (prepared 2026-11-27 session 3 by the lead, never run): helper-39's _c2 variants
# (.dev-s/next.sh) and helper-40's d64 / d128 variants (.dev-t/next.sh), one after the other, each under a timeout so both
# always run; their logs under $OUT/s and $OUT/t, packed into two tarballs (8 files come back at most).
# Carry [".whl", ".dev-s", ".dev-t", ".dev-next"], kind nvidia-h100-x1, the usual prefix, then: bash .dev-next/st.sh
export PYTHONUNBUFFERED=1
S=$SECONDS
OUT0=$OUT
for h in s t; do
  t0=$SECONDS; mkdir -p $OUT0/$h
  OUT=$OUT0/$h timeout 240 bash .dev-$h/next.sh > $OUT0/$h.log 2>&1; echo "== .dev-$h/next.sh rc=$? ($((SECONDS-t0))s)"
  tail -32 $OUT0/$h.log
done
(cd $OUT0 && find . -name hopper_sanitize -delete; tar czf s.tgz s && tar czf t.tgz t && rm -rf s t)
echo "wall $((SECONDS-S))s"
