#!/bin/bash
# helper n (issue11n-d128), call 2.  Variants (.dev-n/v2.tar.xz -> .dev-n/v/<name>/), all whole builds:
#   main_d128   main 6255ae7's cubin bit for bit (08b2fe03...): the reference column
#   ne_d128     patch notes/logs/h100-hopper-2026-11-27-n-d128-tpf-dec1c.patch, NVCC_EXTRA=-DHOPPER_DEC1_CAUSAL_D128=1: the d128 /
#               _fk consumers skip next_tile's empty-tile decode on causal problems with sk >= sq (no left window edge)
#   pfne_d128   the same patch, -DHOPPER_TILE_PF_D128=1 -DHOPPER_DEC1_CAUSAL_D128=1 (call 1's build)
#   l2s8_d128   main's source, L2_SECTION_KB=8192 (causal L2 sections of 8 MiB instead of 16)
#   l2s32_d128  main's source, L2_SECTION_KB=32768
# Steps: check-only ne / l2s8 / l2s32; ncu (--set full) of main's _fk on 32x512 16/16 d128 causal and non-causal (details +
# the SASS source page as CSV, xz) and cuDNN non-causal; interleaved timing (9 rounds) of the short d128 rows.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-n
V=$L/v
mkdir -p "$OUT" /tmp/nw
tar -xJf $L/v2.tar.xz -C $L || { echo "STOP: untar"; exit 2; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
(cd $V && sha256sum -c ../SHA256SUMS2) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
cols=($V/main_d128 $V/pfne_d128)
for c in ne_d128 l2s8_d128 l2s32_d128; do
  t0=$SECONDS; timeout 60 python3 bench/hopper_dev.py check-only $V/$c > /tmp/nw/check-$c.log 2>&1; rc=$?
  echo "check-only $c rc=$rc ($((SECONDS-t0))s): $(tail -1 /tmp/nw/check-$c.log)"; grep -E "FAIL|Error" /tmp/nw/check-$c.log | head -5
  [ $rc -eq 0 ] && cols+=($V/$c)
done
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
prof() {  # name impl causal
  t0=$SECONDS
  timeout 45 $ncu --profile-from-start off --clock-control none --set full --kernel-name regex:"hopper_fwd|cudnn" \
    -o /tmp/nw/$1 -f python3 bench/hopper_ncu.py $2 32 16 16 512 512 128 $3 $V/main_d128/hopper_fwd.cubin > /tmp/nw/$1.log 2>&1
  echo "ncu $1 rc=$? ($((SECONDS-t0))s)"
  $ncu --import /tmp/nw/$1.ncu-rep --page details > $OUT/$1.txt 2>&1
  grep -E "^  [a-z_]|Duration|SM Active Cycles|DRAM Throughput|L2 Hit Rate|Executed Ipc A" $OUT/$1.txt | head -7
}
if [ -n "$ncu" ]; then
  prof ncu-h-c512 hopper 1
  prof ncu-h-nc512 hopper 0
  prof ncu-cudnn-nc512 cudnn 0
  for n in ncu-h-c512 ncu-h-nc512; do
    ($ncu --import /tmp/nw/$n.ncu-rep --page source --csv --print-source sass > /tmp/nw/$n-src.csv 2>/tmp/nw/$n-src.err ||
     $ncu --import /tmp/nw/$n.ncu-rep --page source --csv > /tmp/nw/$n-src.csv 2>>/tmp/nw/$n-src.err)
    echo "$n source page: $(wc -lc < /tmp/nw/$n-src.csv) $(head -c 300 /tmp/nw/$n-src.err)"
    xz -6 -c /tmp/nw/$n-src.csv > $OUT/$n-src.csv.xz
  done
fi
R="32,16,16,512,512,128,1;16,16,16,1024,1024,128,1;8,16,16,2048,2048,128,1;32,16,16,512,512,128,0"
R="$R;16,16,16,1024,1024,128,0;4,33,33,128,128,128,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=9 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 150 python3 bench/hopper_dev.py time "${cols[@]}" > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
python3 - $OUT/hopper_time.json <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
names = [k for k in rows[0] if k not in ("shape", "main_d128", "cudnn") and not k.startswith("_")]
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
echo "wall $((SECONDS-S))s"
