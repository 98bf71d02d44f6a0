#!/bin/bash
# issue11m call 1 (helper m, branch issue11m-d64): d64 rows 512-4096, variants of the _c2 / d64 kernels against the
# shipped cubin and cuDNN.  Variant dirs (.dev-m/v/<name>_d64, whole builds of the branch's source; sha256 in SHA256SUMS):
#   nc2  C2_D64=0: no _c2 kernels (main's d64 kernel on every d64 row: the reference for the _c2 gate at 2048 / 4096)
#   s4   C2_STAGES_D64=4         w2  NWG_D64=2 C2_D64=0 (the d64 kernel with two consumer warpgroups, 128-row tiles)
#   p1 / p2 / p3  NVCC_EXTRA=-DHOPPER_C2_POLY_D64=1 / 2 / 3: 1/8, 2/8, 3/8 of P's exponentials on the FMA pipe
# "hopper" = the shipped cubin; .dev-m/dev.py opens the _c2 gate to every length (shipped / s4 / p*: _c2 on every row).
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-m; V=$L/v
mkdir -p $V && tar -xJf $L/v.tar.xz -C $V || exit 2
(cd $V && sha256sum -c --quiet ../SHA256SUMS) || { echo "STOP: variant cubins differ"; exit 2; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin
for c in p2_d64 p3_d64 w2_d64 s4_d64; do
  t0=$SECONDS; timeout 60 python3 $L/dev.py check-only $V/$c > /tmp/check-$c.log 2>&1; rc=$?
  echo "check-only $c rc=$rc ($((SECONDS-t0))s): $(tail -1 /tmp/check-$c.log)"; grep -E "FAIL|Error" /tmp/check-$c.log | head -4
  { echo "##### $c rc=$rc"; cat /tmp/check-$c.log; } >> $OUT/check.log
done
for c in p2_d64 p3_d64; do
  t0=$SECONDS; CO=$V/$c KERNELS='_c2$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=/tmp/s/$c \
    bash bench/hopper_validate.sh > /tmp/san-$c.log 2>&1; echo "racecheck $c rc=$? ($((SECONDS-t0))s)"
  grep "^sanitize" /tmp/san-$c.log; { echo "##### $c"; cat /tmp/san-$c.log; } >> $OUT/sanitize.log
done
echo "elapsed $((SECONDS-S))s"
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,12,12,1024,1024,64,1"
R="$R;16,32,32,1024,1024,64,0;16,32,32,1024,1024,64,1;8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1"
R="$R;4,32,32,4096,4096,64,0;4,32,32,4096,4096,64,1;32,16,16,512,512,64,1"
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 150 python3 $L/dev.py time $V/nc2_d64 $V/s4_d64 $V/w2_d64 $V/p1_d64 $V/p2_d64 $V/p3_d64 > $OUT/time.log 2>&1
echo "time rc=$? ($((SECONDS-t0))s)"
if [ $((SECONDS-S)) -lt 190 ]; then
  t0=$SECONDS; NC="--profile-from-start off --clock-control none --set full --import-source no"
  timeout 45 ncu $NC -o /tmp/n_c2 -f python3 bench/hopper_ncu.py hopper 32 32 32 512 512 64 0 > /tmp/ncu1.log 2>&1; echo "ncu c2 rc $?"
  [ $((SECONDS-S)) -lt 215 ] && { timeout 40 ncu $NC -o /tmp/n_p2 -f python3 bench/hopper_ncu.py hopper 32 32 32 512 512 64 0 $V/p2_d64/hopper_fwd.cubin > /tmp/ncu2.log 2>&1; echo "ncu p2 rc $?"; }
  for r in c2 p2; do [ -f /tmp/n_$r.ncu-rep ] && { echo "##### $r"; ncu -i /tmp/n_$r.ncu-rep --page details 2>&1; }; done > $OUT/ncu_details.txt
  for r in c2 p2; do [ -f /tmp/n_$r.ncu-rep ] && { echo "##### $r"; ncu -i /tmp/n_$r.ncu-rep --page source --csv --print-source sass 2>&1; }; done | gzip > $OUT/ncu_source.csv.gz
  python3 $L/stalls.py $OUT/ncu_source.csv.gz
  grep -E "^#####|Duration|Issue Slots Busy|No Eligible|Eligible Warps|Executed Ipc A" $OUT/ncu_details.txt | head -24
  echo "ncu ($((SECONDS-t0))s)"
fi
python3 - $OUT/hopper_time.json <<'PY'
import json, math, sys
rows = json.load(open(sys.argv[1]))
ref = "hopper"
names = [k for k in rows[0] if k not in ("shape", ref, "cudnn") and not k.startswith("_")]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
print("| row (d64, bf16) | shipped _c2 TFLOP/s | " + " | ".join(f"{n[:-4]} / c2" for n in names) + " | c2 / cuDNN | p2 / cuDNN | nc2 / cuDNN | max spread |")
print("|---" * (len(names) + 6) + "|")
rat = {n: [] for n in names}
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base = r.get(ref); cu = r.get("cudnn")
    cells = []
    for n in names:
        x = r[n] / base if r.get(n) and base else None
        if x: rat[n].append((sq, x))
        cells.append(f"{x:.3f}" if x else "-")
    f = lambda k: f"{r[k] / cu:.3f}" if r.get(k) and cu else "-"
    sp = max(r.get("_spread", {}).values(), default=float("nan"))
    print(f"| {b}x{sq} {hq}/{hk}{' c' if causal else ''} | {base or 0:.0f} | " + " | ".join(cells) + f" | {f(ref)} | {f('p2_d64')} | {f('nc2_d64')} | {sp:.3f} |")
print("geomean / shipped _c2, all rows: " + ", ".join(f"{n[:-4]} {g([x for _, x in v]):.3f}" for n, v in rat.items()))
print("geomean / shipped _c2, 512-1024: " + ", ".join(f"{n[:-4]} {g([x for q, x in v if q <= 1024]):.3f}" for n, v in rat.items()))
print("geomean / shipped _c2, 2048-4096: " + ", ".join(f"{n[:-4]} {g([x for q, x in v if q > 1024]):.3f}" for n, v in rat.items()))
PY
echo "wall $((SECONDS-S))s"
