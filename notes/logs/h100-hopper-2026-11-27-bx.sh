#!/bin/bash
# call bx (the lead, session 8): the three d64 _c2 rows of the bench's seven shapes and one sweep row, `pyhipattn bench`
# with all peers (as the acceptance run), with cuDNN alone, and with --timing rounds; 9 rounds each.
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name --format=csv,noheader; sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16
SH='[[16,12,12,1024,1024,64,false],[32,16,16,512,512,64,false],[16,32,32,1024,1024,64,false],[32,32,32,512,512,64,false]]'
for cfg in "all|" "cudnn|--peers cudnn" "flash,cudnn|--peers flash,cudnn" "rounds|--timing rounds"; do
  n=${cfg%%|*}; a=${cfg#*|}
  t0=$SECONDS; timeout 120 python3 -m pyhipattn bench --shapes "$SH" --rounds 9 $a --out $OUT/$n > $OUT/bench-$n.log 2>&1; echo "== $n rc=$? ($((SECONDS-t0))s)"
  grep -E "^b(16|32) " $OUT/bench-$n.log | cut -c1-130
done
echo "wall $((SECONDS-S))s"
