#!/bin/bash
# issue11q (helper-37): the _c2 tile boundary (d64, 512-1024 keys).  One device call over /work/main's tree, carry
# [".whl", ".dev-q"], kind nvidia-h100-x1, prefix: pip install .whl --target /tmp/site && export PYTHONPATH=/tmp/site:$PWD ...
#   bash .dev-q/q.sh VARIANT...      (variants in .dev-q/v.tar.xz: v/<name>_d64/{hopper_fwd.cubin,hopper_manifest.json})
# base_d64 = branch issue11q-c2tile's default build = main's shipped cubin 1fb94eb4... bit for bit (bigcheck's reference).
# Steps: unpack + sha256; check-only of each variant (60 s each; a failure drops it); bigcheck (out / LSE bit for bit against
# base_d64; the variants change no arithmetic); bf16 racecheck over _c2 of each passing variant; one paired timing
# (HOPPER_DEV_ROUNDS=5) of 7 d64 rows: the shipped cubin ("hopper"), the variants, cuDNN; 8x2048 runs the d64 kernel (not
# _c2) in every column: the A/A control row; a ratio table last.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-q
V=$L/v
OUT=${OUT:-/tmp/q-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $V && sha256sum -c --quiet ../SHA256SUMS) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
echo "shipped cubin $(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64)"
ok=()
for c in "$@"; do
  t0=$SECONDS; timeout 60 python3 bench/hopper_dev.py check-only $V/$c > $OUT/check-$c.log 2>&1; rc=$?
  echo "check-only $c rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check-$c.log)"; grep -E "FAIL|Error" $OUT/check-$c.log | head -4
  [ $rc -eq 124 ] && echo "  $c TIMED OUT (a hang?): dropped"
  [ $rc -eq 0 ] && ok+=($c)
done
[ ${#ok[@]} -gt 0 ] || { echo "STOP: no variant passed its check"; exit 1; }
t0=$SECONDS; timeout 60 python3 $L/bigcheck.py $V base_d64 "${ok[@]}" > $OUT/bigcheck.log 2>&1; rc=$?
echo "bigcheck rc=$rc ($((SECONDS-t0))s)"; grep -E "^bigcheck|Error" $OUT/bigcheck.log | cut -c1-220 | tail -20
for c in "${ok[@]}"; do
  t0=$SECONDS; CO=$V/$c KERNELS='_c2$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s/$c \
    bash bench/hopper_validate.sh 2>&1 | grep "^sanitize"; echo "  racecheck $c _c2 ($((SECONDS-t0))s)"
done
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0"
R="$R;16,32,32,1024,1024,64,1;8,32,32,2048,2048,64,0"
cols=(); for c in "${ok[@]}"; do cols+=($V/$c); done
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 150 python3 bench/hopper_dev.py time "${cols[@]}" > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -5
python3 - $OUT/hopper_time.json <<'PY'
import json, math, sys
rows = json.load(open(sys.argv[1]))
names = [k for k in rows[0] if k not in ("shape", "hopper", "cudnn") and not k.startswith("_")]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
print("columns: hopper = the shipped cubin (1fb94eb4...); '*' = A/A row (8x2048 runs the d64 kernel, the shipped bytes, in every column)")
print("| row (d64, bf16) | hopper TFLOP/s | " + " | ".join(f"{n} / hopper" for n in names) + " | hopper / cuDNN | "
      + " | ".join(f"{n} / cuDNN" for n in names) + " | spreads (hopper, " + ", ".join(names) + ", cudnn) |")
print("|---|---|" + "---|" * (2 * len(names) + 2))
rat = {n: [] for n in names}
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base = r.get("hopper")
    cells, cu = [], []
    for n in names:
        x = r[n] / base if r.get(n) and base else None
        if x and sq <= 1024: rat[n].append(x)
        cells.append((f"{x:.3f}" if x else "-") + ("*" if sq > 1024 else ""))
        cu.append(f"{r[n] / r['cudnn']:.3f}" if r.get(n) and r.get("cudnn") else "-")
    c0 = f"{base / r['cudnn']:.3f}" if base and r.get("cudnn") else "-"
    sp = r.get("_spread", {})
    sps = " ".join(f"{sp.get(n, float('nan')):.3f}" for n in ["hopper"] + names + ["cudnn"])
    print(f"| {b}x{sq} {hq}/{hk}{' c' if causal else ''} | {base or 0:.0f} | " + " | ".join(cells) + f" | {c0} | "
          + " | ".join(cu) + f" | {sps} |")
print("geomean / hopper over the 512-1024 rows (_c2): " + ", ".join(f"{n} {g(v):.3f} (min {min(v):.3f})" for n, v in rat.items() if v))
PY
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null)
echo "wall $((SECONDS-S))s"
