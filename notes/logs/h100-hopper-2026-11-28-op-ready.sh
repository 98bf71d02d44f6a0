#!/bin/bash
# next session's first device call (prepared 2026-11-27 by the lead, never run): helper-35's d64 variants
# (.dev-o/next.sh, ~170-190 s) and helper-36's d128 variants (.dev-p/next.sh, ~150-190 s), one after the other, each under
# a timeout so both always run; their logs under $OUT/o and $OUT/p, packed into two tarballs (8 files come back at most).
# Carry [".whl", ".dev-o", ".dev-p", ".dev-next"], kind nvidia-h100-x1, the usual prefix, then: bash .dev-next/op.sh
export PYTHONUNBUFFERED=1
S=$SECONDS
OUT0=$OUT
for h in o p; do
  t0=$SECONDS; mkdir -p $OUT0/$h
  OUT=$OUT0/$h timeout 270 bash .dev-$h/next.sh > $OUT0/$h.log 2>&1; echo "== .dev-$h/next.sh rc=$? ($((SECONDS-t0))s)"
  tail -28 $OUT0/$h.log
done
(cd $OUT0 && tar czf o.tgz o && tar czf p.tgz p && rm -rf o p)
echo "wall $((SECONDS-S))s"
