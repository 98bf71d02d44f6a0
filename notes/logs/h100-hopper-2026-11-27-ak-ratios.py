"""Ratio table: each column named on the command line / base, base / cuDNN; geomeans (issue11ak)."""
import json
import math
import sys

rows = json.load(open(sys.argv[1]))
cols = sys.argv[2:]
print("| row (bf16) | base TFLOP/s | " + " | ".join(f"{c} / base" for c in cols) + " | base / cuDNN | max spread |")
print("|---|---|" + "---|" * len(cols) + "---|---|")
acc = {c: [] for c in cols}
for r in rows:
    sh = r["shape"]
    b = r.get("base")
    if not b:
        continue
    cells = []
    for c in cols:
        x = r.get(c)
        cells.append(f"{x / b:.3f}" if x else "-")
        if x:
            acc[c].append(x / b)
    cu = r.get("cudnn")
    sp = max((v for v in r.get("_spread", {}).values() if v), default=float("nan"))
    print(f"| d{sh[5]} {sh[0]}x{sh[3]} {sh[1]}/{sh[2]}{' c' if sh[6] else ''} | {b:.0f} | " + " | ".join(cells)
          + f" | {b / cu if cu else float('nan'):.3f} | {sp:.3f} |")
for c, v in acc.items():
    if v:
        print(f"{c} / base: geomean {math.exp(sum(map(math.log, v)) / len(v)):.4f} over {len(v)} rows (min {min(v):.3f})")
