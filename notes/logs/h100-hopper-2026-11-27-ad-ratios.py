"""issue11ad (from issue11z): the ratio table of bench/hopper_dev.py time's JSON (every column / base_d64, base / cuDNN); from .dev-y's."""
import json, math, sys
rows = json.load(open(sys.argv[1]))
names = [k for k in rows[0] if k not in ("shape", "base_d64", "cudnn") and not k.startswith("_")]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")  # noqa: E731
print("columns / base_d64 (the default build = 2ce7bbd3... = main 5088a48); hopper = the checkout's shipped cubin (A/A); other columns: variants"
)
print("| row (d64, bf16) | base TFLOP/s | " + " | ".join(f"{n} / base" for n in names) + " | base / cuDNN | "
      + " | ".join(f"{n} / cuDNN" for n in names if n not in ("hopper", "aa_d64")) + " | max spread |")
print("|---|---|" + "---|" * (len(names) + 1 + len([n for n in names if n not in ("hopper", "aa_d64")]) + 1))
rat = {n: [] for n in names}
ratc = {n: [] for n in names}
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base = r.get("base_d64")
    cells = []
    for n in names:
        x = r[n] / base if r.get(n) and base else None
        if x:
            rat[n].append(x)
            if causal:
                ratc[n].append(x)
        cells.append(f"{x:.3f}" if x else "-")
    cu = [f"{r[n] / r['cudnn']:.3f}" if r.get(n) and r.get("cudnn") else "-" for n in names if n not in ("hopper", "aa_d64")]
    c0 = f"{base / r['cudnn']:.3f}" if base and r.get("cudnn") else "-"
    sp = max(r.get("_spread", {}).values() or [float("nan")])
    print(f"| {b}x{sq} {hq}/{hk}{' c' if causal else ''} | {base or 0:.0f} | " + " | ".join(cells) + f" | {c0} | "
          + " | ".join(cu) + f" | {sp:.3f} |")
print("geomean / base over the rows: " + ", ".join(f"{n} {g(v):.4f} (min {min(v):.3f})" for n, v in rat.items() if v))
print("geomean / base over the causal rows: " + ", ".join(f"{n} {g(v):.4f} (min {min(v):.3f})" for n, v in ratc.items() if v))
