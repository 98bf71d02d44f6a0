#!/bin/bash
# issue11l (helper l, prepared on the CPU 2026-11-27, never run): the d64 _c2 turn / descriptor experiments, one device call.
# Run over /work/main's tree with carry [".whl", ".dev-l"] and the prefix
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
#   export PYTHONPATH=/tmp/site:$PWD XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1 && bash .dev-l/next.sh
# Variant cubins (.dev-l/v/<name>/{hopper_fwd.cubin,hopper_manifest.json}), each a whole build of branch issue11l-c2next's
# source (`OUT=... NVCC_EXTRA=... bash scripts/build/hopper.sh`); only their hopper_fwd_{bf16,fp16}_d64_c2 .text differs
# from c2base's; each directory ends in _d64, so bench/hopper_dev.py times it on d64 rows only:
#   c2base_d64  no NVCC_EXTRA: issue11k-c2pdec's cubin bit for bit (sha256 08db68da...): _c2 with PDEC + fused boundary
#   o2_d64      -DHOPPER_C2_ORDER_D64=2: the turn pinned where the source puts it (both row maxima before the bar.sync,
#               all 64 exponentials between it and the bar.arrive; as compiled, c2base has 12 of 64 inside the turn)
#   o3_d64      -DHOPPER_C2_ORDER_D64=3: o2 + O's rescale and P's conversion inside the turn (arrive 5 instructions
#               above the PV's first wgmma, as cuDNN's)
#   d1_d64      -DHOPPER_C2_DESC_D64=1: wgmma descriptors by adds (PV issue 59 -> 35 SASS lines, QK^T 62 -> 52); turn as c2base
#   o3d_d64     -DHOPPER_C2_ORDER_D64=3 -DHOPPER_C2_DESC_D64=1
# Steps: (1) check-only of each variant alone (timeout each; a variant that fails or times out is dropped from what follows;
# stop if none passes); (2) bf16 racecheck over each passing variant's _c2 (hazards are reported, the variant still timed);
# (3) one interleaved timing (HOPPER_DEV_ROUNDS=5) over the d64 rows at 512-2048 of call d4 with the cudnn peer.
# Timing columns: "hopper" = the shipped cubin of the installed wheel (/tmp/site/pyhipattn/_kernels: main's; with the _c2
# gate opened by the dev wrapper, its _c2 kernel if it has one, else its d64 kernel: see the printed sha256 / kernel
# list), c2base_d64 = the base branch's _c2 (the reference for every ratio below), o2 / o3 / d1 / o3d = the variants,
# cudnn = torch SDPA's cuDNN backend.  Last: each variant / c2base and c2base / cudnn per row, and geomeans.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-e1
V=$L/v
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# python3 -c from /tmp: the package the dev wrapper imports (PYTHONPATH's first, the wheel), not the checkout's in $PWD
py() { (cd /tmp && python3 -c "$@"); }
site_co=$PWD/kernels/co/sm_90a
echo "pyhipattn: $(py 'import pyhipattn; print(pyhipattn.__file__)'); shipped: $site_co"
sha256sum "$site_co/hopper_fwd.cubin"
(cd $V && sha256sum -c ../SHA256SUMS) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
python3 -c "import json, sys; m = json.load(open(sys.argv[1])); print('shipped _c2 kernels:', [o['kernel'] for o in m['objects'] if o['kernel'].endswith('_c2')])" "$site_co/hopper_manifest.json"
# the planner must know the _c2 siblings (main with issue11k merged); else the branch's planner (same as issue11k's) replaces it
if ! py "from pyhipattn.families import hopper; assert hasattr(hopper, 'C2_SIBLING_D64')" 2>/dev/null; then
  hp=$(py "import pyhipattn.families.hopper as h; print(h.__file__)")
  case "$hp" in "$PWD"/*) echo "STOP: the planner in use is the checkout's ($hp), not the installed wheel's"; exit 2;; esac
  echo "NOTE: the installed planner has no C2_SIBLING_D64: using $L/py/hopper.py (branch issue11l-c2next's) over $hp"
  cp $L/py/hopper.py "$hp" || exit 2
fi
ok=()
for c in o3d_d64 o2_d64 o3_d64 d1_d64; do
  t0=$SECONDS; timeout 60 python3 $L/dev.py check-only $V/$c > $OUT/check-$c.log 2>&1; rc=$?
  echo "check-only $c rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check-$c.log)"; grep -E "FAIL|Error" $OUT/check-$c.log | head -4
  [ $rc -eq 0 ] && ok+=($c)
  [ $rc -eq 124 ] && echo "  $c TIMED OUT (a hang?): dropped"
done
[ ${#ok[@]} -gt 0 ] || { echo "STOP: no variant passed its check"; exit 1; }
for c in "${ok[@]}"; do
  t0=$SECONDS; CO=$V/$c KERNELS='_c2$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s/$c \
    bash bench/hopper_validate.sh 2>&1 | grep "^sanitize"; echo "  ($((SECONDS-t0))s)"
done
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0"
R="$R;16,32,32,1024,1024,64,0;16,32,32,1024,1024,64,1;8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1"
cols=($V/c2base_d64); for c in "${ok[@]}"; do cols+=($V/$c); done
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 150 python3 $L/dev.py time "${cols[@]}" > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
tail -11 $OUT/time.log
python3 - $OUT/hopper_time.json <<'PY'
import json, math, sys
rows = json.load(open(sys.argv[1]))
names = [k for k in rows[0] if k not in ("shape", "hopper", "c2base_d64", "cudnn") and not k.startswith("_")]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
print("| row (d64) | c2base TFLOP/s | " + " | ".join(f"{n} / c2base" for n in names) + " | hopper / c2base | c2base / cudnn | max spread |")
rat = {n: [] for n in names + ["hopper"]}
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base = r.get("c2base_d64")
    cells = []
    for n in names + ["hopper"]:
        x = r[n] / base if r.get(n) and base else None
        if x: rat[n].append((sq, x))
        cells.append(f"{x:.3f}" if x else "-")
    cu = f"{base / r['cudnn']:.3f}" if base and r.get("cudnn") else "-"
    sp = max(r.get("_spread", {}).values(), default=float("nan"))
    print(f"| {b}x{sq} {hq}/{hk}{' c' if causal else ''} | {base or 0:.0f} | " + " | ".join(cells) + f" | {cu} | {sp:.3f} |")
print("geomean / c2base over all rows: " + ", ".join(f"{n} {g([x for _, x in v]):.3f}" for n, v in rat.items()))
print("geomean / c2base over 512-1024: " + ", ".join(f"{n} {g([x for q, x in v if q <= 1024]):.3f}" for n, v in rat.items()))
PY
(cd $OUT && find . -name hopper_sanitize -delete)
echo "wall $((SECONDS-S))s"
