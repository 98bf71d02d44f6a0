"""issue11ah: least-squares fit time = a + b * tiles_per_CTA + c * blocks_per_CTA over the five tiny d64 rows of a
hopper_dev.py time JSON (132 CTAs; 128-row tiles, 128-key blocks), per column.   python3 fit.py hopper_time.json"""
import json
import sys

import numpy as np

TB = {(1, 132, 128): (1, 1), (4, 132, 128): (4, 4), (1, 33, 512): (1, 4), (2, 33, 512): (2, 8), (1, 33, 1024): (2, 16)}
rows = json.load(open(sys.argv[1]))
cols = [k for k in rows[0] if k != "shape" and not k.startswith("_")]
X, Y = [], {c: [] for c in cols}
for r in rows:
    b, hq, hk, sq, sk, d, c = r["shape"][:7]
    if (b, hq, sq) not in TB:
        continue
    t, n = TB[(b, hq, sq)]
    X.append([1, t, n])
    for col in cols:
        Y[col].append(4 * b * hq * sq * sk * d / (r[col] * 1e12) * 1e6)
X = np.array(X, float)
for col in cols:
    co = np.linalg.lstsq(X, np.array(Y[col]), rcond=None)[0]
    res = np.array(Y[col]) - X @ co
    print(f"{col:10s} a {co[0]:6.2f} us  b {co[1]:5.2f} us/tile  c {co[2]:6.3f} us/block   residuals {np.round(res, 2).tolist()}")
