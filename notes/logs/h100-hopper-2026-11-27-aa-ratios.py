"""issue11aa: the ratio table of bench/hopper_dev.py time's JSON (every column / base, base / cuDNN); from .dev-z's."""
import json, math, sys
rows = json.load(open(sys.argv[1]))
names = [k for k in rows[0] if k not in ("shape", "base", "cudnn") and not k.startswith("_")]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")  # noqa: E731
print("columns / base (the default build = 326e354c...); hopper = the checkout's shipped cubin (= base bytes); aa = a copy "
      "of base (A/A); pm = PARAM_MAPS_ALL=15 (host-made maps on the other non-varlen TMA kernels), pm1 = PARAM_MAPS_ALL=1 (d128 only)")
print("| row (bf16) | kernel | base TFLOP/s | " + " | ".join(f"{n} / base" for n in names) + " | base / cuDNN | "
      + " | ".join(f"{n} / cuDNN" for n in names if n not in ("hopper", "aa")) + " | max spread |")
print("|---|---|---|" + "---|" * (len(names) + 1 + len([n for n in names if n not in ("hopper", "aa")]) + 1))
rat = {n: [] for n in names}
byd = {}
kern = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base = r.get("base")
    cells = []
    for n in names:
        x = r[n] / base if r.get(n) and base else None
        if x:
            rat[n].append(x)
            if n.startswith("pm"):
                byd.setdefault((n, d), []).append(x)
        cells.append(f"{x:.3f}" if x else "-")
    cu = [f"{r[n] / r['cudnn']:.3f}" if r.get(n) and r.get("cudnn") else "-" for n in names if n not in ("hopper", "aa")]
    c0 = f"{base / r['cudnn']:.3f}" if base and r.get("cudnn") else "-"
    sp = max(r.get("_spread", {}).values() or [float("nan")])
    label = f"d{d} {b}x{sq} {hq}/{hk}{' c' if causal else ''}"
    print(f"| {label} | {kern.get(label, '?')} | {base or 0:.0f} | " + " | ".join(cells) + f" | {c0} | " + " | ".join(cu)
          + f" | {sp:.3f} |")
print("geomean / base over the rows: " + ", ".join(f"{n} {g(v):.4f} (min {min(v):.3f})" for n, v in rat.items() if v))
print("by head dim: " + ", ".join(f"{n} d{d} {g(v):.4f} (min {min(v):.3f}, {len(v)} rows)" for (n, d), v in sorted(byd.items())))
