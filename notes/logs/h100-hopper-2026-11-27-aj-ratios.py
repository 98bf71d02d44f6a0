"""issue11aj (from issue11ai's ratios.py): the ratio table of bench/hopper_dev.py time's JSON: every column / base (base =
the default build = main 2493144's (and 491583b's) cubin b4ba9b62...; hopper = the checkout's shipped cubin, aa = a copy of base: A/A
columns; ks = KSPLIT=1 (the key-split last round of the d128 _fk / _bn176 kernels)), base and ks / cuDNN, then geomeans / base over all rows, the one-key-block rows
(sq = sk = 128) and the bench rows.

    python3 ratios.py hopper_time.json
"""
import json
import math
import sys

rows = [json.loads(ln) for ln in open(sys.argv[1])] if sys.argv[1].endswith(".jsonl") else json.load(open(sys.argv[1]))
names = [k for k in rows[0] if k not in ("shape", "base", "cudnn") and not k.startswith("_")]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")  # noqa: E731
print("columns / base (the default build = b4ba9b62... = main 2493144's (and 491583b's) cubin); hopper = the checkout's shipped cubin "
      "(A/A where it is base's bytes), aa = a copy of base (A/A); ks = KSPLIT=1 (the key-split last round of the d128 _fk / _bn176 kernels)")
print("| row (bf16) | base TFLOP/s | " + " | ".join(f"{n} / base" for n in names) + " | base / cuDNN | ks / cuDNN | max spread |")
print("|---|---|" + "---|" * (len(names) + 3))
rat = {n: {"all": [], "one-block": [], "bench": []} for n in names}
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base = r.get("base")
    cells = []
    for n in names:
        x = r[n] / base if r.get(n) and base else None
        if x:
            rat[n]["all"].append(x)
            rat[n]["one-block" if sq == sk == 128 else "bench"].append(x)
        cells.append(f"{x:.3f}" if x else "-")
    c0 = f"{base / r['cudnn']:.3f}" if base and r.get("cudnn") else "-"
    c1 = f"{r['ks'] / r['cudnn']:.3f}" if r.get("ks") and r.get("cudnn") else "-"
    sp = max(r.get("_spread", {}).values() or [float("nan")])
    print(f"| d{d} {b}x{sq} {hq}/{hk}{' c' if causal else ''} | {base or 0:.0f} | " + " | ".join(cells)
          + f" | {c0} | {c1} | {sp:.3f} |")
long = {n: [r[n] / r["base"] for r in rows if r.get(n) and r.get("base") and not (r["shape"][3] == 512)] for n in names}
print("geomean / base over the long rows (all but 32x512): " + ", ".join(f"{n} {g(v):.4f} (min {min(v):.3f})" for n, v in long.items() if v))
for part in ("all", "one-block", "bench"):
    k = len(rat[names[0]][part]) if names else 0
    print(f"geomean / base over the {k} {part} rows: "
          + ", ".join(f"{n} {g(v[part]):.4f} (min {min(v[part]):.3f})" for n, v in rat.items() if v[part]))
