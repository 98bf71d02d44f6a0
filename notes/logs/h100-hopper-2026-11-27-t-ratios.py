"""issue11t (helper-40): the ratio table of .dev-t/next.sh's timing (bench/hopper_dev.py JSON lines in a log).
Every ratio is between columns of one paired run.  `*` = A/A: the column's kernel on that row is base's bytes
(pvl / pvm on the _bn176 row; tr24 where the tail split does not change; hopper = the checkout's cubin everywhere)."""
import json
import math
import sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"shape"')]
VAR = ["pvl_d128", "pvm_d128", "pvm_d64", "tr24_d64", "k_c2_d64"]
names = ["hopper"] + [n for n in VAR if any(r.get(n) for r in rows)]


def split(tiles, rounds_max, grid=132):   # HOPPER_TAIL_SPLIT_D64's rule (non-causal, no window)
    return grid < tiles <= rounds_max * grid and 3 * (tiles % grid) <= grid


def kernel(b, hq, sq, sk, d, causal):
    if d == 128:
        return "_fk" if sk <= 2048 else ("_bn176" if not causal and sk >= 8192 else "d128")
    return "_c2" if sk <= 1024 else "d64"


print("| row | kernel | tiles / 132 | base TFLOP/s (us) | " + " | ".join(f"{n} / base" for n in names)
      + " | base / cuDNN | " + " | ".join(f"{n} / cuDNN" for n in names[1:]) + " | max spread |")
print("|---" * (2 * len(names) + 4) + "|")
g = {n: [] for n in names}
for r in rows:
    b, hq, hk, sq, sk, d, causal = r["shape"][:7]
    base, cu = r.get("base"), r.get("cudnn")
    k = kernel(b, hq, sq, sk, d, causal)
    bm = 192 if d == 64 else 128
    tiles = b * hq * -(-sq // bm)
    aa = {"hopper": True, "pvl_d128": k == "_bn176", "pvm_d128": k == "_bn176",
          "pvm_d64": False, "tr24_d64": d == 64 and (causal or split(tiles, 8) == split(tiles, 24)), "k_c2_d64": False}
    us = f" ({4 * b * hq * sq * sk * d / (2 if causal else 1) / base / 1e6:.1f})" if base else ""
    c1, c2 = [], []
    for n in names:
        v = r.get(n)
        if v and base:
            c1.append(f"{v / base:.3f}{'*' if aa.get(n) else ''}")
            if not aa.get(n) or n == "hopper":
                g[n].append(v / base)
        else:
            c1.append("-")
        if n != "hopper":
            c2.append(f"{v / cu:.3f}" if v and cu else "-")
    sp = max(r.get("_spread", {}).values(), default=float("nan"))
    print(f"| {b}x{sq} {hq}/{hk} d{d}{' c' if causal else ''} | {k} | {tiles / 132:.2f}"
          f"{' split24' if d == 64 and not causal and split(tiles, 24) and not split(tiles, 8) else ''} | "
          f"{base or 0:.0f}{us} | " + " | ".join(c1) + f" | {base / cu if base and cu else float('nan'):.3f} | "
          + " | ".join(c2) + f" | {sp:.3f} |")
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")  # noqa: E731
print("geomean / base over the rows where the column's kernel differs from base's (hopper: all rows, A/A): "
      + ", ".join(f"{n} {gm(v):.4f} ({len(v)} rows)" for n, v in g.items()))
