"""issue11u (helper-41): the ratio table of hopper_dev.py time's JSON: each column / base_d64, base / cuDNN, each / cuDNN,
round spreads, and geomeans over the causal _c2 rows, the non-causal _c2 rows and all _c2 rows (8x2048: the d64 kernel in
every column but hopper, the A/A row).   python3 ratios.py hopper_time.json"""
import json
import math
import sys

rows = json.load(open(sys.argv[1]))
rows = sorted(rows, key=lambda r: (not r["shape"][6], r["shape"][3], r["shape"][4], r["shape"][1]))
skip = ("shape", "base_d64", "cudnn")
names = [k for k in rows[0] if k not in skip and not k.startswith("_")]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")  # noqa: E731
print("columns / base_d64 (this branch's default build = 6873dec5..., the reference); aa_d64 = a copy of base_d64 (A/A "
      "column); hopper = the checkout's cubin (its _c2 = base's where the script says so); '*' = A/A row (8x2048: the d64 "
      "kernel, base's bytes in every column but hopper)")
print("| row (d64, bf16) | base TFLOP/s | " + " | ".join(f"{n} / base" for n in names) + " | base / cuDNN | "
      + " | ".join(f"{n} / cuDNN" for n in names if n not in ("hopper", "aa_d64")) + " | max spread |")
print("|---|---|" + "---|" * (2 * len(names) + 2 - 2))
acc = {k: {n: [] for n in names} for k in ("causal", "nc", "all")}
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base = r.get("base_d64")
    aa = sq > 1024 or sk > 1024
    cells = []
    for n in names:
        x = r[n] / base if r.get(n) and base else None
        if x and not aa:
            acc["causal" if causal else "nc"][n].append(x)
            acc["all"][n].append(x)
        cells.append((f"{x:.3f}" if x else "-") + ("*" if aa else ""))
    cu = [f"{r[n] / r['cudnn']:.3f}" if r.get(n) and r.get("cudnn") else "-" for n in names if n not in ("hopper", "aa_d64")]
    c0 = f"{base / r['cudnn']:.3f}" if base and r.get("cudnn") else "-"
    sp = r.get("_spread", {})
    msp = max(sp.values()) if sp else float("nan")
    ln = f"{sq}" if sq == sk else f"{sq}/{sk}"
    print(f"| {b}x{ln} {hq}/{hk}{' c' if causal else ''} | {base or 0:.0f} | " + " | ".join(cells) + f" | {c0} | "
          + " | ".join(cu) + f" | {msp:.3f} |")
for k, lab in (("causal", "causal _c2 rows"), ("nc", "non-causal _c2 rows"), ("all", "all _c2 rows")):
    print(f"geomean / base over the {lab}: " + ", ".join(f"{n} {g(v):.4f} (min {min(v):.3f})" for n, v in acc[k].items() if v))
