#!/bin/bash
# issue11s (helper-39, branch issue11s-c2causal), prepared on the CPU 2026-11-27 and NOT run: the d64 `_c2` rows below
# cuDNN (call l2).  One device call over /work/main's tree, carry [".whl", ".dev-s"], kind nvidia-h100-x1, prefix:
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
#   export PYTHONPATH=/tmp/site:$PWD XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1 && bash .dev-s/next.sh
# .dev-s holds v.tar.xz (v/<name>_d64/{hopper_fwd.cubin,hopper_manifest.json}), SHA256SUMS (paths v/...), bigcheck.py
# (= notes/logs/h100-hopper-2026-11-27-s-bigcheck.py) and this script.  Whole builds of the branch (scripts/build/hopper.sh):
#   base_d64  the default build = main 67569fe's shipped cubin 6873dec5... bit for bit (the reference; bigcheck's base)
#   dg_d64    -DHOPPER_C2_DIAG_D64=1     cheaper right-edge mask (34 immediate compares + 64 FSEL; same elements masked)
#   qs_d64    -DHOPPER_C2_QKSPLIT_D64=1  QK^T in two 64-column halves; the first half's mask / max under the second
#   dgqs_d64  both
# Steps: unpack + sha256; check-only of each variant alone (60 s each; a failure or timeout drops it; worst case with every step timing out ~530 s); bigcheck (out / LSE
# bit for bit against base_d64, 17 shapes incl. windows, offset causal, grid caps 5 / 132, fp16); bf16 racecheck over _c2
# of each passing variant; one paired timing (HOPPER_DEV_ROUNDS=5) of 9 d64 bf16 rows with columns hopper (the checkout's
# shipped cubin), base_d64, the passing variants, cuDNN; 8x2048 32/32 runs the d64 kernel (not _c2) in every column: the
# A/A row; hopper / base_d64 is the A/A column where the checkout still ships 6873dec5...; a ratio table last.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-s
V=$L/v
OUT=${OUT:-/tmp/s-out}
VARS="${VARS:-dg_d64 qs_d64 dgqs_d64}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
ship=$(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64)
echo "shipped cubin $ship ($([ "$ship" = 6873dec56a7465f5cabedb6f2758297f7767d4446a9ee40633b30b798af73f22 ] && echo "= base_d64: hopper / base_d64 is an A/A column" || echo "NOT base_d64: hopper / base_d64 is not an A/A column"))"
ok=()
for c in $VARS; do
  t0=$SECONDS; timeout 60 python3 bench/hopper_dev.py check-only $V/$c > $OUT/check-$c.log 2>&1; rc=$?
  echo "check-only $c rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check-$c.log | cut -c1-200)"
  grep -E "FAIL|Error" $OUT/check-$c.log | head -4 | cut -c1-240
  [ $rc -eq 124 ] && echo "  $c TIMED OUT (a hang?): dropped"
  [ $rc -eq 0 ] && ok+=($c)
done
[ ${#ok[@]} -gt 0 ] || { echo "STOP: no variant passed its check"; exit 1; }
t0=$SECONDS; timeout 60 python3 $L/bigcheck.py $V base_d64 "${ok[@]}" > $OUT/bigcheck.log 2>&1; rc=$?
echo "bigcheck rc=$rc ($((SECONDS-t0))s)"; grep -E "^bigcheck|Error" $OUT/bigcheck.log | cut -c1-240 | tail -20
for c in "${ok[@]}"; do
  t0=$SECONDS; CO=$V/$c KERNELS='_c2$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s/$c \
    timeout 45 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | cut -c1-240; echo "  racecheck $c _c2 ($((SECONDS-t0))s)"
done
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0"
R="$R;16,32,32,1024,1024,64,1;32,16,16,512,512,64,1;16,12,12,1024,1024,64,1;8,32,32,2048,2048,64,0"
cols=($V/base_d64); for c in "${ok[@]}"; do cols+=($V/$c); done
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 150 python3 bench/hopper_dev.py time "${cols[@]}" > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
python3 - $OUT/hopper_time.json <<'PY'
import json, math, sys
rows = json.load(open(sys.argv[1]))
rows = sorted(rows, key=lambda r: (r["shape"][3], r["shape"][6], r["shape"][1]))
names = [k for k in rows[0] if k not in ("shape", "hopper", "base_d64", "cudnn") and not k.startswith("_")]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
print("columns: base_d64 = main's cubin 6873dec5... (the reference), hopper = the checkout's shipped cubin (A/A column if the "
      "same bytes); '*' = A/A row (8x2048 runs the d64 kernel, base's bytes, in every column)")
print("| row (d64, bf16) | base TFLOP/s | hopper / base | " + " | ".join(f"{n} / base" for n in names) + " | base / cuDNN | "
      + " | ".join(f"{n} / cuDNN" for n in names) + " | spreads (base, hopper, " + ", ".join(names) + ", cudnn) |")
print("|---|---|---|" + "---|" * (2 * len(names) + 2))
rat = {n: [] for n in names}
causal_rat = {n: [] for n in names}
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base = r.get("base_d64")
    aa = sq > 1024
    cells, cu = [], []
    for n in ["hopper"] + names:
        x = r[n] / base if r.get(n) and base else None
        if x and not aa and n != "hopper":
            rat[n].append(x)
            if causal:
                causal_rat[n].append(x)
        cells.append((f"{x:.3f}" if x else "-") + ("*" if aa else ""))
    for n in names:
        cu.append(f"{r[n] / r['cudnn']:.3f}" if r.get(n) and r.get("cudnn") else "-")
    c0 = f"{base / r['cudnn']:.3f}" if base and r.get("cudnn") else "-"
    sp = r.get("_spread", {})
    sps = " / ".join(f"{sp.get(n, float('nan')):.3f}" for n in ["base_d64", "hopper"] + names + ["cudnn"])
    print(f"| {b}x{sq} {hq}/{hk}{' c' if causal else ''} | {base or 0:.0f} | " + " | ".join(cells) + f" | {c0} | "
          + " | ".join(cu) + f" | {sps} |")
six = {(32, 16, 512, False), (32, 32, 512, False), (32, 32, 512, True), (16, 12, 1024, False), (16, 32, 1024, False), (16, 32, 1024, True)}
r6 = {n: [r[n] / r["base_d64"] for r in rows if (r["shape"][0], r["shape"][1], r["shape"][3], bool(r["shape"][6])) in six
          and r.get(n) and r.get("base_d64")] for n in names}
print("geomean / base over the brief's six rows: " + ", ".join(f"{n} {g(v):.3f} (min {min(v):.3f})" for n, v in r6.items() if v))
print("geomean / base over the eight _c2 rows: " + ", ".join(f"{n} {g(v):.3f} (min {min(v):.3f})" for n, v in rat.items() if v))
print("geomean / base over the four causal _c2 rows: " + ", ".join(f"{n} {g(v):.3f}" for n, v in causal_rat.items() if v))
PY
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null)
echo "wall $((SECONDS-S))s"
