#!/bin/bash
# helper p (branch issue11p-d128pdec, prepared on the CPU 2026-11-27 05:20-06:40 UTC, never run): the d128 kernel / _fk
# tile decode moved to the producer, and an L2 prefetch of each CTA's first tile, one device call.
# Run over /work/main's tree with carry [".whl", ".dev-p"], kind nvidia-h100-x1, and the prefix
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
#   export PYTHONPATH=/tmp/site:$PWD XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1 && bash .dev-p/next.sh
# Variant cubins (.dev-p/v.tar.xz -> .dev-p/v/<name>/{hopper_fwd.cubin,hopper_manifest.json}, sha256 in .dev-p/SHA256SUMS),
# each a whole build of the branch's source (`OUT=... NVCC_EXTRA=... bash scripts/build/hopper.sh`); only
# hopper_fwd_{bf16,fp16}_d128 and _d128_fk differ in .text (pyelftools); names end in _d128, so bench/hopper_dev.py times
# them on d128 rows only:
#   base_d128  no NVCC_EXTRA: main 12c6f3e's cubin bit for bit (sha256 e6fce333...): the reference column
#   pdec_d128  -DHOPPER_PDEC_D128=1: the producer writes each tile's (m_block, head, batch) into a 16-byte entry per Q slot
#              (bars + 160) before the tile's Q load, both schedules; lane 0 of each consumer warp reads it at the loop head
#              and shuffles it on (no integer divisions there: 152 -> 42 SASS lines from the QK^T issue to its wait, _fk)
#   pdpf_d128  -DHOPPER_PDEC_D128=1 -DHOPPER_PF0_D128=1: pdec + the consumers prefetch their CTA's first tile (Q rows, K / V
#              of the first key block, K of the second) into L2 (prefetch.global.L2) while the producer makes the maps
#   pf0_d128   -DHOPPER_PF0_D128=1 alone: checked and timed only if pdec_d128 fails its check
# Steps: (1) check-only of each variant alone (timeout each; a failing variant is dropped); (2) bf16 racecheck over each
# passing variant's d128 / _fk (26 cases; hazards reported, the variant still timed); (3) one interleaved timing
# (HOPPER_DEV_ROUNDS=5) over the d128 16/16 rows 512-16384 both masks and 4x4096 32/8 causal, with the cuDNN peer;
# (4) the ratio table.  "hopper" = the checkout's shipped cubin (same bytes as base_d128 while main's d128 kernels are
# 12c6f3e's: the run's noise); 2x8192 / 1x16384 non-causal run _bn176, which no variant changes (noise controls too).
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-p
V=$L/v
mkdir -p "$OUT" /tmp/pw
tar -xJf $L/v.tar.xz -C $L || { echo "STOP: untar"; exit 2; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
(cd $V && sha256sum -c ../SHA256SUMS) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
echo "checkout cubin: $(sha256sum < kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16) (base_d128: e6fce333651c6b70); wheel: $(cd /tmp && python3 -c 'import pyhipattn; print(pyhipattn.__file__)')"
(cd /tmp && python3 -c "from pyhipattn.families import hopper as h; print('planner FK', h.FK_SIBLING_D128, 'BN176', h.WIDE_BLOCK_NONCAUSAL, 'STATIC', h.STATIC_SIBLING_CAUSAL.get(128))")
chk() {   # variant: check-only alone, 60 s
  t0=$SECONDS; timeout 60 python3 bench/hopper_dev.py check-only $V/$1 > $OUT/check-$1.log 2>&1; rc=$?
  echo "check-only $1 rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check-$1.log)"; grep -E "FAIL|Error" $OUT/check-$1.log | head -5
  [ $rc -eq 124 ] && echo "  $1 TIMED OUT (a hang?): dropped"
  return $rc
}
ok=()
chk pdec_d128 && ok+=(pdec_d128)
chk pdpf_d128 && ok+=(pdpf_d128)
if [[ " ${ok[*]} " != *" pdec_d128 "* ]]; then chk pf0_d128 && ok+=(pf0_d128); fi
[ ${#ok[@]} -gt 0 ] || { echo "STOP: no variant passed its check"; exit 1; }
for c in "${ok[@]}"; do
  t0=$SECONDS; CO=$V/$c KERNELS='_d128(_fk)?$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s-$c \
    bash bench/hopper_validate.sh 2>&1 | grep "^sanitize"; echo "  $c racecheck ($((SECONDS-t0))s)"
done
(cd $OUT && find . -name hopper_sanitize -delete)
R="32,16,16,512,512,128,0;32,16,16,512,512,128,1;16,16,16,1024,1024,128,0;16,16,16,1024,1024,128,1"
R="$R;8,16,16,2048,2048,128,0;8,16,16,2048,2048,128,1;4,16,16,4096,4096,128,0;4,16,16,4096,4096,128,1"
R="$R;2,16,16,8192,8192,128,0;2,16,16,8192,8192,128,1;1,16,16,16384,16384,128,0;1,16,16,16384,16384,128,1;4,32,8,4096,4096,128,1"
cols=($V/base_d128); for c in "${ok[@]}"; do cols+=($V/$c); done
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 170 python3 bench/hopper_dev.py time "${cols[@]}" > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
python3 - $OUT/time.log <<'PY'
import json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"shape"')]   # (the rows timed, also after a timeout)
names = [k for k in rows[0] if k not in ("shape", "base_d128", "cudnn") and not k.startswith("_")]
names = [n for n in names if n != "hopper"] + ["hopper"]
kern = lambda sq, c: "_fk" if sq <= 2048 else ("d128" if c or sq < 8192 else "_bn176")
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
print("| row (d128) | kernel | base TFLOP/s (us) | " + " | ".join(f"{n} / base" for n in names) +
      " | base / cuDNN | " + " | ".join(f"{n} / cuDNN" for n in names if n != "hopper") + " | max spread |")
print("|---" * (2 * len(names) + 4) + "|")
rat = {n: [] for n in names}
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base, cu = r.get("base_d128"), r.get("cudnn")
    cells, cus = [], []
    for n in names:
        x = r[n] / base if r.get(n) and base else None
        if x: rat[n].append((sq, causal, x))
        cells.append(f"{x:.3f}" if x else "-")
        if n != "hopper": cus.append(f"{r[n] / cu:.3f}" if r.get(n) and cu else "-")
    us = f" ({4 * b * hq * sq * sk * d / (2 if causal else 1) / base / 1e6:.1f})" if base else ""
    bc = f"{base / cu:.3f}" if base and cu else "-"
    sp = max(r.get("_spread", {}).values(), default=float("nan"))
    print(f"| {b}x{sq} {hq}/{hk}{' c' if causal else ''} | {kern(sq, causal)} | {base or 0:.0f}{us} | " + " | ".join(cells) +
          f" | {bc} | " + " | ".join(cus) + f" | {sp:.3f} |")
print("geomean / base, 512-2048 (_fk): " + ", ".join(f"{n} {g([x for q, c, x in v if q <= 2048]):.4f}" for n, v in rat.items()))
print("geomean / base, rows on changed kernels: " + ", ".join(
    f"{n} {g([x for q, c, x in v if q <= 4096 or c]):.4f}" for n, v in rat.items()))
print("geomean / base, _bn176 rows (unchanged): " + ", ".join(
    f"{n} {g([x for q, c, x in v if q >= 8192 and not c]):.4f}" for n, v in rat.items()))
PY
echo "wall $((SECONDS-S))s"
