"""issue11v ratio table: each column / base_d64, base / cuDNN, each / cuDNN, round spreads, geomeans (non-causal, causal, all)."""
import json, math, sys
rows = json.load(open(sys.argv[1]))
rows = sorted(rows, key=lambda r: (r["shape"][6], r["shape"][3], r["shape"][1]))
names = [k for k in rows[0] if k not in ("shape", "base_d64", "cudnn") and not k.startswith("_")]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
print("columns: base_d64 = 6873dec5... (reference), aa_d64 = the same bytes (A/A), hopper = the checkout's cubin")
print("| row (d64, bf16) | base TFLOP/s (us) | " + " | ".join(f"{n} / base" for n in names) + " | base / cuDNN | "
      + " | ".join(f"{n} / cuDNN" for n in names if n != "hopper") + " | max spread |")
print("|---|---|" + "---|" * (2 * len(names) + 1))
nc, ca = {n: [] for n in names}, {n: [] for n in names}
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base = r.get("base_d64")
    cells = []
    for n in names:
        x = r[n] / base if r.get(n) and base else None
        if x:
            (ca if causal else nc)[n].append(x)
        cells.append(f"{x:.3f}" if x else "-")
    cu = [f"{r[n] / r['cudnn']:.3f}" if r.get(n) and r.get("cudnn") else "-" for n in names if n != "hopper"]
    c0 = f"{base / r['cudnn']:.3f}" if base and r.get("cudnn") else "-"
    sp = max(r.get("_spread", {}).values(), default=float("nan"))
    us = 4 * b * hq * sq * sk * d / (2 if causal else 1) / base / 1e6 if base else 0
    print(f"| {b}x{sq} {hq}/{hk}{' c' if causal else ''} | {base or 0:.0f} ({us:.1f}) | " + " | ".join(cells) + f" | {c0} | "
          + " | ".join(cu) + f" | {sp:.3f} |")
for lab, dd in (("non-causal", nc), ("causal", ca)):
    print(f"geomean / base, {lab} rows: " + ", ".join(f"{n} {g(v):.4f} (min {min(v):.3f})" for n, v in dd.items() if v))
al = {n: nc[n] + ca[n] for n in names}
print("geomean / base, all rows: " + ", ".join(f"{n} {g(v):.4f} (min {min(v):.3f})" for n, v in al.items() if v))
