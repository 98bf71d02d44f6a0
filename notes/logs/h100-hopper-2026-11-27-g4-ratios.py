"""Ratio table of call g4: each forced column / its base copy (A/A: base / hopper), and base / cuDNN."""
import json
import math
import sys

rows = json.load(open(sys.argv[1]))
print("| row | hopper TFLOP/s | base / hopper (A/A) | forced / base | base / cuDNN | forced / cuDNN |")
print("|---|---|---|---|---|---|")
g = {}
for r in rows:
    sh = r.get("shape")
    d = sh[5]
    bn, fn = (f"base_d{d}", f"bal_d{d}")
    t = {k: v for k, v in r.items() if isinstance(v, (int, float))}
    h, b, f, c = t.get("hopper"), t.get(bn), t.get(fn), t.get("cudnn")
    if not (h and b and f):
        print(f"| {sh} | missing columns: {sorted(t)} |")
        continue
    g.setdefault(d, []).append((b / h, f / b))
    print(f"| d{d} {sh[0]}x{sh[3]} {sh[1]}/{sh[2]}{' c' if sh[6] else ''} | {h:.0f} | {b / h:.3f} | {f / b:.3f} | "
          f"{(b / c) if c else float('nan'):.3f} | {(f / c) if c else float('nan'):.3f} |")
for d, v in g.items():
    print(f"d{d}: geomean A/A {math.exp(sum(math.log(a) for a, _ in v) / len(v)):.4f}, forced / base "
          f"{math.exp(sum(math.log(x) for _, x in v) / len(v)):.4f} over {len(v)} rows")
