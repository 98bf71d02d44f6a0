"""issue11ah (from issue11af): the ratio table of bench/hopper_dev.py time's JSON (every column / base_d64,
base / cuDNN, each variant / cuDNN), then geomeans / base over all rows, the causal and the non-causal rows.

    python3 ratios.py hopper_time.json
"""
import json
import math
import sys

rows = json.load(open(sys.argv[1]))
names = [k for k in rows[0] if k not in ("shape", "base_d64", "cudnn") and not k.startswith("_")]
peer = [n for n in names if n not in ("hopper", "aa_d64")]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")  # noqa: E731
print("columns / base_d64 (the default build = c69f15d3... = main a8012cf's cubin); hopper = the checkout's shipped cubin "
      "(A/A where it is base's bytes), aa_d64 = a copy of base (A/A); other columns: variants")
print("| row (bf16) | base TFLOP/s (base / cuDNN us) | " + " | ".join(f"{n} / base" for n in names) + " | base / cuDNN | "
      + " | ".join(f"{n} / cuDNN" for n in peer) + " | max spread |")
print("|---|---|" + "---|" * (len(names) + 1 + len(peer) + 1))
rat = {n: {"all": [], "causal": [], "non-causal": []} for n in names}
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base = r.get("base_d64")
    cells = []
    for n in names:
        x = r[n] / base if r.get(n) and base else None
        if x:
            rat[n]["all"].append(x)
            rat[n]["causal" if causal else "non-causal"].append(x)
        cells.append(f"{x:.3f}" if x else "-")
    cu = [f"{r[n] / r['cudnn']:.3f}" if r.get(n) and r.get("cudnn") else "-" for n in peer]
    c0 = f"{base / r['cudnn']:.3f}" if base and r.get("cudnn") else "-"
    sp = max(r.get("_spread", {}).values() or [float("nan")])
    us = lambda t: 4 * b * hq * sq * sk * d / (2 if causal else 1) / (t * 1e12) * 1e6 if t else 0  # noqa: E731
    print(f"| {b}x{sq} {hq}/{hk} d{d}{' c' if causal else ''} | {base or 0:.0f} ({us(base):.2f} / {us(r.get('cudnn')):.2f} us) | " + " | ".join(cells) + f" | {c0} | "
          + " | ".join(cu) + f" | {sp:.3f} |")
for part in ("all", "causal", "non-causal"):
    label = f"all {len(rat[names[0]]['all'])} rows" if part == "all" else f"the {len(rat[names[0]][part])} {part} rows"
    print(f"geomean / base over {label}: "
          + ", ".join(f"{n} {g(v[part]):.4f} (min {min(v[part]):.3f})" for n, v in rat.items() if v[part]))
