#!/bin/bash
# helper r (branch issue11r-d128nc), call r2: the d128 softmax's dependent chains cut short (HOPPER_SMX_TREE_D128).
# Variants (.dev-r/v.tar.xz -> $V/<name>/{hopper_fwd.cubin,hopper_manifest.json}; sha256 in .dev-r/SHA256SUMS), whole
# builds of the branch (`OUT=... NVCC_EXTRA=-DHOPPER_SMX_TREE_D128=N bash scripts/build/hopper.sh`); only
# hopper_fwd_{bf16,fp16}_d128 and _d128_fk differ in .text from main 3b2875c's cubin (1fb94eb4...):
#   smx1_d128  N=1: each row's block max in four partial maxima (same values)
#   smx2_d128  N=2: and the row sums in two partial sums (another rounding order of l)
#   base_d128  the shipped cubin (1fb94eb4...) copied as a variant: the A/A column (the softmax change applies to every
#              d128 row on these kernels, causal 4x4096 included)
# Run over /work/main's tree with carry [".whl", ".dev-r"], kind nvidia-h100-x1, the usual prefix, then: bash .dev-r/r2.sh
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-r
V=/tmp/rv2
mkdir -p "$OUT" $V
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "checkout cubin: $(sha256sum < kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16) (expect 1fb94eb472dbf011)"
tar -xJf $L/v.tar.xz -C $V || { echo "STOP: untar"; exit 2; }
(SUMS=$PWD/$L/SHA256SUMS; cd $V && sha256sum -c $SUMS) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
mkdir -p $V/base_d128; cp kernels/co/sm_90a/hopper_fwd.cubin kernels/co/sm_90a/hopper_manifest.json $V/base_d128/
chk() {
  t0=$SECONDS; timeout 60 python3 bench/hopper_dev.py check-only $V/$1 > $OUT/check-$1.log 2>&1; rc=$?
  echo "check-only $1 rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check-$1.log)"; grep -E "FAIL|Error" $OUT/check-$1.log | head -5
  [ $rc -eq 124 ] && echo "  $1 TIMED OUT (a hang?): dropped"
  return $rc
}
ok=()
chk smx2_d128 && ok+=(smx2_d128)
chk smx1_d128 && ok+=(smx1_d128)
[ ${#ok[@]} -gt 0 ] || { echo "STOP: no variant passed its check"; exit 1; }
for c in "${ok[@]}"; do
  t0=$SECONDS; CO=$V/$c KERNELS='_d128(_fk)?$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=35 OUT=$OUT/s-$c \
    bash bench/hopper_validate.sh 2>&1 | grep "^sanitize"; echo "  $c racecheck ($((SECONDS-t0))s)"
done
(cd $OUT && find . -name hopper_sanitize -delete; tar czf s.tgz s-* && rm -rf s-*)
R="32,16,16,512,512,128,0;16,16,16,1024,1024,128,0;8,16,16,2048,2048,128,0;4,16,16,4096,4096,128,0"
R="$R;32,16,16,512,512,128,1;4,16,16,4096,4096,128,1"
cols=($V/base_d128); for c in "${ok[@]}"; do cols+=($V/$c); done
t0=$SECONDS; HOPPER_DEV_ROUNDS=9 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 120 python3 bench/hopper_dev.py time "${cols[@]}" > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
grep -iE "error|fail|Traceback" $OUT/time.log | head -5
python3 - $OUT/time.log <<'PY'
import json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"shape"')]
names = [n for n in ["hopper", "smx1_d128", "smx2_d128"] if any(n in r for r in rows)]
print("| row (d128 16/16) | kernel | base TFLOP/s (us) | " + " | ".join(f"{n} / base" for n in names) + " | base / cuDNN | "
      + " | ".join(f"{n} / cuDNN" for n in names if n != "hopper") + " | max spread |")
print("|---" * (2 * len(names) + 3) + "|")
g = {n: [] for n in names}
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base, cu = r.get("base_d128"), r.get("cudnn")
    us = f" ({4 * b * hq * sq * sk * d / (2 if causal else 1) / base / 1e6:.1f})" if base else ""
    c1 = [f"{r[n] / base:.3f}" if r.get(n) and base else "-" for n in names]
    c2 = [f"{r[n] / cu:.3f}" if r.get(n) and cu else "-" for n in names if n != "hopper"]
    for n in names:
        if r.get(n) and base: g[n].append(r[n] / base)
    sp = max(r.get("_spread", {}).values(), default=float("nan"))
    k = "_fk" if sq <= 2048 else "d128"
    print(f"| {b}x{sq}{' c' if causal else ''} | {k} | {base or 0:.0f}{us} | " + " | ".join(c1)
          + f" | {base / cu:.3f} | " + " | ".join(c2) + f" | {sp:.3f} |")
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
print("geomean / base, all 6 rows: " + ", ".join(f"{n} {gm(v):.4f}" for n, v in g.items()))
print("geomean / base, 4 non-causal rows: " + ", ".join(f"{n} {gm(v[:4]):.4f}" for n, v in g.items()))
PY
echo "wall $((SECONDS-S))s"
