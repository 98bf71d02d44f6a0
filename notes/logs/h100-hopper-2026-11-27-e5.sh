#!/bin/bash
# lead call e5 (2026-11-27 session 2): pyhipattn bench's two timings on the rows whose ratio swung most between rounds in
# call e3 (and two short rows), peers cudnn + flash, 3 rounds each: --timing rounds, then --timing paired
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SH='[[32,16,16,512,512,64,false],[32,16,16,512,512,128,false],[2,32,32,8192,8192,64,false],[1,16,16,16384,16384,128,false],[1,16,16,16384,16384,128,true],[1,8,8,32768,32768,64,false],[8,16,16,8192,8192,64,false]]'
for t in rounds paired; do
  t0=$SECONDS; timeout 100 python3 -m pyhipattn bench --shapes "$SH" --peers cudnn,flash --timing $t --out $OUT/$t > $OUT/$t.log 2>&1
  echo "== --timing $t rc=$? ($((SECONDS-t0))s)"; tail -9 $OUT/$t.log | head -8
done
echo "wall $((SECONDS-S))s"
