#!/bin/bash
# issue11x (helper-45) call x2: why the exp2 polynomial loses.  ncu --set full, one launch each, 32x512 16/16 d64 bf16
# non-causal, of base_d64 (= 6e947678...), p2_d64 and p4_d64 (call x1's bytes, sha256 checked), clocks not fixed.
# Same carry / prefix as x1 (bash .dev-x/x2.sh).  Summary (ncusum.py) to stdout; raw / source CSVs in $OUT/ncu.tar.xz.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-x
V=$L/v
OUT=${OUT:-/tmp/x-out}
mkdir -p "$OUT" /tmp/nv
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for c in ${VARS:-base_d64 p4_d64 p2_d64}; do
  [ $((SECONDS-S)) -gt 150 ] && { echo "$c: skipped (time)"; continue; }
  t0=$SECONDS
  timeout 45 $ncu --profile-from-start off --clock-control none --set full --import-source no --kernel-name regex:"hopper_fwd" \
    -o /tmp/nv/$c -f python3 bench/hopper_ncu.py hopper 32 16 16 512 512 64 0 $V/$c/hopper_fwd.cubin > /tmp/nv/$c.log 2>&1
  echo "ncu $c rc=$? ($((SECONDS-t0))s)"
  $ncu --import /tmp/nv/$c.ncu-rep --page raw --csv > /tmp/nv/$c-raw.csv 2>/dev/null
  $ncu --import /tmp/nv/$c.ncu-rep --page source --csv --print-source sass > /tmp/nv/$c-src.csv 2>/tmp/nv/$c-src.err
  python3 $L/ncusum.py $c /tmp/nv/$c-raw.csv /tmp/nv/$c-src.csv 2>&1 | tee -a $OUT/ncu_sum.txt
done
(cd /tmp/nv && tar -cJf $OUT/ncu.tar.xz *.csv *.log 2>/dev/null)
echo "wall $((SECONDS-S))s"
