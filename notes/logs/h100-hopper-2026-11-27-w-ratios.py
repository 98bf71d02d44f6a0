"""issue11w (helper-44): the ratio table of hopper_dev.py time's JSON over the d128 rows: each column / base_d128 (this
branch's default build = main's 6e947678..., the reference), base / cuDNN, each / cuDNN, max round spread; geomeans over
the non-causal 128-key rows (512-4096: _fk / d128, where the variants' code runs), the causal rows, and 2x8192 (_bn176:
base's bytes in every variant column, an A/A row).   python3 ratios.py hopper_time.json"""
import json
import math
import sys

rows = json.load(open(sys.argv[1]))
rows = sorted(rows, key=lambda r: (r["shape"][6], r["shape"][3], r["shape"][4]))
skip = ("shape", "base_d128", "cudnn")
names = [k for k in rows[0] if k not in skip and not k.startswith("_")]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")  # noqa: E731
print("| row (d128 bf16) | base TFLOP/s | " + " | ".join(f"{n} / base" for n in names) + " | base / cuDNN | "
      + " | ".join(f"{n} / cuDNN" for n in names) + " | max spread |")
print("|---|---|" + "---|" * (2 * len(names) + 2))
acc = {k: {n: [] for n in names + ["base_d128"]} for k in ("nc", "c", "aa")}
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base = r.get("base_d128")
    key = "c" if causal else ("aa" if sk > 4096 else "nc")
    cells = []
    for n in names:
        x = r[n] / base if r.get(n) and base else None
        if x:
            acc[key][n].append(x)
        cells.append(f"{x:.3f}" if x else "-")
    if base and r.get("cudnn"):
        acc[key]["base_d128"].append(base / r["cudnn"])
    cu = [f"{r[n] / r['cudnn']:.3f}" if r.get(n) and r.get("cudnn") else "-" for n in names]
    c0 = f"{base / r['cudnn']:.3f}" if base and r.get("cudnn") else "-"
    sp = r.get("_spread", {})
    msp = max(sp.values()) if sp else float("nan")
    print(f"| {b}x{sq if sq == sk else f'{sq}/{sk}'} {hq}/{hk}{' c' if causal else ''} | {base or 0:.0f} | "
          + " | ".join(cells) + f" | {c0} | " + " | ".join(cu) + f" | {msp:.3f} |")
for k, lab in (("nc", "non-causal 512-4096 (variant code)"), ("c", "causal"), ("aa", "2x8192 _bn176 (A/A)")):
    print(f"geomean / base over {lab}: " + ", ".join(f"{n} {g(v):.4f} (min {min(v):.3f})" for n, v in acc[k].items()
                                                      if v and n != "base_d128")
          + (f"; base / cuDNN {g(acc[k]['base_d128']):.4f}" if acc[k]["base_d128"] else ""))
