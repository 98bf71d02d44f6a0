import numpy as np
# p(f) = 1 + c1 f + c2 f^2 + c3 f^3 ~ 2^f on [0,1], minimax relative error (IRLS / Lawson), p(0)=1 fixed
f = np.linspace(0, 1, 20001)
y = 2.0**f
for deg in (3, 4):
    A = np.stack([f**k for k in range(1, deg+1)], 1) / y[:, None]
    b = (y - 1) / y
    w = np.ones_like(f)
    for it in range(3000):
        sw = np.sqrt(w)
        c, *_ = np.linalg.lstsq(A * sw[:, None], b * sw, rcond=None)
        r = np.abs(A @ c - b)
        w = w * (r + 1e-30); w /= w.sum()
    c32 = c.astype(np.float32)
    # evaluate in fp32 Horner as the kernel will
    ff = f.astype(np.float32)
    p = np.float32(c32[-1])
    for k in range(deg-2, -1, -1):
        p = (p * ff + c32[k]).astype(np.float32)
    p = (p * ff + np.float32(1)).astype(np.float32)
    rel = np.abs(p.astype(np.float64) / y - 1)
    print(deg, [float(x) for x in c32], [x.hex() for x in c32.astype(np.float64)], "max rel", rel.max(), "p(1)", float(p[-1]))
