#!/bin/bash
# issue11o (helper o, prepared on the CPU 2026-11-27, never run): the d64 rows below cuDNN, one device call (~180 s).
# Run over /work/main's tree with carry [".whl", ".dev-o"], kind nvidia-h100-x1 and the prefix
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
#   export PYTHONPATH=/tmp/site:$PWD XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1 && bash .dev-o/next.sh
# .dev-o/v.tar.xz: whole builds of branch issue11o-d64next's source (`OUT=... NVCC_EXTRA=... bash scripts/build/hopper.sh`),
# each in v/<name>_d64/{hopper_fwd.cubin,hopper_manifest.json} (names ending in _d64: bench/hopper_dev.py times them on d64
# rows only), sha256 in .dev-o/SHA256SUMS:
#   base_d64  no NVCC_EXTRA: main's cubin e6fce333... bit for bit (the reference for bigcheck; a timing column only if the
#             checkout's shipped cubin is no longer e6fce333...)
#   dd_d64    -DHOPPER_DESC_ADD_D64=1: the three-warpgroup d64 kernels (_d64, _d64_s4; the 2048+ rows) build their wgmma
#             descriptors by adds: steady key block 518 -> 468 SASS instructions (bf16)
#   ddpm_d64  dd + -DHOPPER_PMAX_D64=1: their softmax's row max as four partial maxima a row (as _c2's c2_max)
#   ep_d64    -DHOPPER_C2_EARLY_PICK_D64=1: the _c2 kernels (512-1024 rows) pick the next tile (Q slot word, PDEC entry)
#             under the tile's last QK^T instead of between the last exponential turn and the last PV's issue
#   epmb_d64  ep + -DHOPPER_C2_MASK_BOUNDS_D64=1: _c2 decides which key blocks need the mask from two bounds made once a tile
# Steps: (1) unpack, sha256; (2) check-only of each variant alone (timeout each; a failure or timeout drops it); (3) bigcheck:
# each passing variant's out / LSE against base_d64's, bit for bit (no variant changes arithmetic), timed shapes plus ragged /
# causal / grid-capped ones; (4) bf16 racecheck over each passing variant's changed kernels; (5) one interleaved timing
# (HOPPER_DEV_ROUNDS=5, bench/hopper_dev.py's default pairing) of the d64 rows: the shipped cubin ("hopper"), the variants,
# cuDNN; (6) the ratio table: each variant / the reference, reference / cuDNN, and the A/A columns (variants whose kernel on
# that row is the reference's bytes: dd / ddpm on the _c2 rows <= 1024, ep / epmb on the rows >= 2048) as the noise floor.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-o
V=$L/v
OUT=${OUT:-/tmp/o-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $V && sha256sum -c --quiet ../SHA256SUMS) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
ship=$(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64)
echo "shipped cubin $ship"
REF=hopper; extra=()
if [ "$ship" != "e6fce333651c6b70fb0792832b4903269149498b36abd705d1889b231755e8c5" ]; then
  echo "NOTE: the shipped cubin is not e6fce333... (main's at 12c6f3e): base_d64 (= e6fce333...) is timed and is the reference"
  REF=base_d64; extra=($V/base_d64)
fi
ok=()
for c in dd_d64 ddpm_d64 ep_d64 epmb_d64; do
  t0=$SECONDS; timeout 60 python3 bench/hopper_dev.py check-only $V/$c > $OUT/check-$c.log 2>&1; rc=$?
  echo "check-only $c rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check-$c.log)"; grep -E "FAIL|Error" $OUT/check-$c.log | head -4
  [ $rc -eq 124 ] && echo "  $c TIMED OUT (a hang?): dropped"
  [ $rc -eq 0 ] && ok+=($c)
done
[ ${#ok[@]} -gt 0 ] || { echo "STOP: no variant passed its check"; exit 1; }
t0=$SECONDS; timeout 60 python3 $L/bigcheck.py $V base_d64 "${ok[@]}" > $OUT/bigcheck.log 2>&1; rc=$?
echo "bigcheck rc=$rc ($((SECONDS-t0))s)"; cat $OUT/bigcheck.log | grep -E "^bigcheck|Error" | cut -c1-220
for c in "${ok[@]}"; do
  case $c in dd*) k='_d64(_s4)?$';; *) k='_c2$';; esac
  t0=$SECONDS; CO=$V/$c KERNELS="$k" DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s/$c \
    bash bench/hopper_validate.sh 2>&1 | grep "^sanitize"; echo "  racecheck $c $k ($((SECONDS-t0))s)"
done
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0"
R="$R;16,32,32,1024,1024,64,1;8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1;4,32,32,4096,4096,64,0;4,32,32,4096,4096,64,1"
R="$R;2,32,32,8192,8192,64,0"
cols=("${extra[@]}"); for c in "${ok[@]}"; do cols+=($V/$c); done
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 170 python3 bench/hopper_dev.py time "${cols[@]}" > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s)"
if [ ! -s $OUT/hopper_time.json ] && [ $((SECONDS-t0)) -lt 40 ]; then   # the paired timer failed at once: the old rounds
  echo "NOTE: paired timing failed: HOPPER_DEV_TIMING=rounds"; tail -5 $OUT/time.log
  t0=$SECONDS; HOPPER_DEV_TIMING=rounds HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn \
    HOPPER_DEV_PGRID=none OUT=$OUT timeout 170 python3 bench/hopper_dev.py time "${cols[@]}" > $OUT/time.log 2>&1
  echo "time (rounds) rc=$? ($((SECONDS-t0))s)"
fi
grep -E "failed" $OUT/time.log | head -5
python3 - $OUT/hopper_time.json $REF <<'PY'
import json, math, sys
rows, ref = json.load(open(sys.argv[1])), sys.argv[2]
names = [k for k in rows[0] if k not in ("shape", "hopper", "base_d64", "cudnn") and not k.startswith("_")]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
# A/A: the variant's kernel on that row is the reference's bytes (dd / ddpm change the 3-warpgroup kernels, ep / epmb _c2)
aa = lambda n, sq: (n.startswith("dd") and sq <= 1024) or (n.startswith("ep") and sq > 1024)
print(f"reference: {ref};  '*' = A/A (same kernel bytes as the reference on that row: noise)")
print(f"| row (d64, bf16) | {ref} TFLOP/s | " + " | ".join(f"{n} / {ref}" for n in names) + f" | {ref} / cuDNN | spreads ({ref}, "
      + ", ".join(names) + ", cudnn) |")
print("|---|---|" + "---|" * (len(names) + 2))
rat = {n: [] for n in names}
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base = r.get(ref)
    cells = []
    for n in names:
        x = r[n] / base if r.get(n) and base else None
        if x: rat[n].append((sq, x))
        cells.append((f"{x:.3f}" if x else "-") + ("*" if aa(n, sq) else ""))
    cu = f"{base / r['cudnn']:.3f}" if base and r.get("cudnn") else "-"
    sp = r.get("_spread", {})
    sps = " ".join(f"{sp.get(n, float('nan')):.3f}" for n in [ref] + names + ["cudnn"])
    print(f"| {b}x{sq} {hq}/{hk}{' c' if causal else ''} | {base or 0:.0f} | " + " | ".join(cells) + f" | {cu} | {sps} |")
print(f"geomean / {ref}, 512-1024 (_c2): " + ", ".join(f"{n} {g([x for q, x in v if q <= 1024]):.3f}" for n, v in rat.items()))
print(f"geomean / {ref}, 2048-8192 (d64 / _s4): " + ", ".join(f"{n} {g([x for q, x in v if q > 1024]):.3f}" for n, v in rat.items()))
PY
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null)
echo "wall $((SECONDS-S))s"
