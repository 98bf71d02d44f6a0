#!/bin/bash
# helper n (issue11n-d128), call 1: the d128 rows below cuDNN.  Variants (.dev-n/v.tar.xz -> .dev-n/v/<name>/):
#   main_d128   branch issue11n-d128's default build = main 6255ae7's cubin bit for bit (08b2fe03...): the reference column
#   pf_d128     NVCC_EXTRA=-DHOPPER_TILE_PF_D128=1: the dynamic schedule's producer takes its next tile index one tile ahead
#               (the atomicAdd after the current tile's first K load instead of before the next tile's Q load)
#   pfne_d128   NVCC_EXTRA="-DHOPPER_TILE_PF_D128=1 -DHOPPER_DEC1_CAUSAL_D128=1": pf + no empty-tile decode in next_tile on causal
#   fkall_d128  main's cubin, manifest with fwd_*_d128 -> the _fk kernels (planner experiment: 4096 / 8192 rows on _fk)
# Steps: check-only pf, pfne; bf16 racecheck over pfne's d128 / _fk; interleaved timing (5 rounds) on the d128 16/16 rows; ncu of
# main's _fk against cuDNN at 32x512 causal (if time is left).
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-n
V=$L/v
mkdir -p "$OUT" /tmp/nw
tar -xJf $L/v.tar.xz -C $L || { echo "STOP: untar"; exit 2; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
(cd $V && sha256sum -c ../SHA256SUMS) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
echo "checkout cubin: $(sha256sum < kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16); wheel: $(cd /tmp && python3 -c 'import pyhipattn, os; print(pyhipattn.__file__)')"
(cd /tmp && python3 -c "from pyhipattn.families import hopper as h; print('planner FK', h.FK_SIBLING_D128, 'BN176', h.WIDE_BLOCK_NONCAUSAL, 'STATIC', h.STATIC_SIBLING_CAUSAL.get(128))")
cols=($V/main_d128 $V/fkall_d128)
for c in pf_d128 pfne_d128; do
  t0=$SECONDS; timeout 80 python3 bench/hopper_dev.py check-only $V/$c > $OUT/check-$c.log 2>&1; rc=$?
  echo "check-only $c rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check-$c.log)"; grep -E "FAIL|Error" $OUT/check-$c.log | head -5
  [ $rc -eq 0 ] && cols+=($V/$c)
done
if [[ " ${cols[*]} " == *pfne_d128* ]]; then
  t0=$SECONDS; CO=$V/pfne_d128 KERNELS='_d128(_fk)?$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=60 OUT=/tmp/nw/s \
    bash bench/hopper_validate.sh 2>&1 | grep "^sanitize"; echo "  ($((SECONDS-t0))s)"
fi
R="32,16,16,512,512,128,0;32,16,16,512,512,128,1;16,16,16,1024,1024,128,0;16,16,16,1024,1024,128,1"
R="$R;8,16,16,2048,2048,128,0;8,16,16,2048,2048,128,1;4,16,16,4096,4096,128,0;4,16,16,4096,4096,128,1"
R="$R;2,16,16,8192,8192,128,0;2,16,16,8192,8192,128,1;4,33,33,128,128,128,0;4,33,33,512,512,128,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 200 python3 bench/hopper_dev.py time "${cols[@]}" > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
python3 - $OUT/hopper_time.json <<'PY'
import json, math, sys
rows = json.load(open(sys.argv[1]))
names = [k for k in rows[0] if k not in ("shape", "main_d128", "cudnn") and not k.startswith("_")]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
print("| row (d128) | main TFLOP/s | " + " | ".join(f"{n} / main" for n in names) + " | main / cudnn | max spread |")
print("|---" * (len(names) + 4) + "|")
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base = r.get("main_d128")
    cells = [f"{r[n] / base:.3f}" if r.get(n) and base else "-" for n in names]
    cu = f"{base / r['cudnn']:.3f}" if base and r.get("cudnn") else "-"
    sp = max(r.get("_spread", {}).values(), default=float("nan"))
    us = f" ({4 * b * hq * sq * sk * d / (2 if causal else 1) / base / 1e6:.1f} us)" if base else ""
    print(f"| {b}x{sq} {hq}/{hk}{' c' if causal else ''} | {base or 0:.0f}{us} | " + " | ".join(cells) + f" | {cu} | {sp:.3f} |")
PY
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
if [ -n "$ncu" ] && [ $((SECONDS-S)) -lt 230 ]; then
  for impl in hopper cudnn; do
    t0=$SECONDS
    timeout 45 $ncu --profile-from-start off --clock-control none --set full -o /tmp/nw/ncu-$impl -f \
      python3 bench/hopper_ncu.py $impl 32 16 16 512 512 128 1 $V/main_d128/hopper_fwd.cubin > /tmp/nw/ncu-$impl.log 2>&1
    echo "ncu $impl rc=$? ($((SECONDS-t0))s)"
    $ncu --import /tmp/nw/ncu-$impl.ncu-rep --page details > $OUT/ncu-$impl-c512.txt 2>&1
    grep -E "^  [a-z_]|Duration|Elapsed Cycles|SM Active Cycles|Executed Ipc A|Issue Slots Busy" $OUT/ncu-$impl-c512.txt | head -8
  done
fi
echo "wall $((SECONDS-S))s"
