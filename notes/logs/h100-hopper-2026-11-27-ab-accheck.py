"""issue11ab (helper, 2026-11-27 session 5): HOPPER_C2_PAIR_D64 takes the row max over 256 keys, so out / LSE are not
base_d64's bit for bit.  On helper-47's 41 bitcheck shapes (bf16 / fp16, windows, offset causal, rows with no key, grid
caps, large scores, size-1 heads, GQA, q from packed qkv), every build's out / LSE against the float64 reference
(pyhipattn.reference.attention_ref) with the check's tolerances (rel_error < 1e-2; lse_error: rtol 1e-3 / atol 2e-3,
-inf at exactly the reference's rows without keys), the max errors of each build, and the variant against base_d64
(bit-equal or max |d out| / |d lse|).  Which plans ran a _c2 kernel is listed at the end.

    python3 accheck.py VDIR base_d64 VARIANT [VARIANT ...]
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
import hopper_dev  # noqa: E402
from pyhipattn.reference import attention_ref, lse_error, rel_error  # noqa: E402

vdir, base, names = sys.argv[1], sys.argv[2], sys.argv[3:]
cub = lambda n: os.path.join(vdir, n, "hopper_fwd.cubin")  # noqa: E731
W = (-1, -1)
bf, fp = torch.bfloat16, torch.float16
SHAPES = [
    (32, 16, 16, 512, 512, False, W, None, bf), (32, 32, 32, 512, 512, True, W, None, bf),
    (16, 12, 12, 1024, 1024, True, W, None, bf), (16, 32, 32, 1024, 1024, True, W, None, bf),
    (8, 32, 32, 2048, 2048, False, W, None, bf),
    (3, 8, 2, 1000, 1000, True, W, 5, bf), (2, 8, 2, 700, 1000, True, W, 5, fp),
    (2, 8, 8, 1000, 700, True, W, 132, bf), (4, 8, 4, 777, 777, False, W, 132, fp),
    (4, 8, 4, 640, 1000, True, W, None, bf), (4, 8, 8, 512, 512, False, (100, 30), None, bf),
    (4, 8, 8, 1024, 1024, True, (200, 0), None, bf), (2, 8, 8, 900, 1000, False, (64, 64), 5, fp),
    (4, 8, 8, 1024, 1024, False, (-1, 77), None, bf), (4, 8, 8, 600, 600, False, (300, -1), None, bf),
    (16, 32, 32, 1024, 1024, True, W, None, fp), (32, 16, 16, 512, 512, True, W, None, fp),
    (8, 16, 16, 900, 1000, True, W, None, bf), (2, 8, 8, 1024, 960, True, W, 5, bf),
    (2, 8, 8, 1024, 960, True, W, None, fp), (4, 8, 4, 700, 960, False, W, 132, bf),
    (3, 8, 8, 300, 168, False, W, None, fp), (2, 8, 8, 960, 960, True, W, None, bf),
    (2, 8, 8, 1024, 1024, False, (-1, 60), None, bf), (2, 8, 8, 1024, 1024, False, (-1, 64), 5, bf),
    (2, 8, 8, 1024, 1024, False, (-1, 65), None, fp), (2, 8, 8, 1000, 1000, False, (100, 0), None, bf),
    (1, 4, 4, 130, 130, True, W, None, bf), (5, 4, 2, 64, 64, True, W, None, bf),
    (2, 8, 8, 200, 1024, True, W, 132, bf),
    (2, 8, 8, 4096, 4096, False, W, None, bf), (32, 16, 16, 512, 512, False, W, None, fp),
    (16, 12, 12, 1024, 1024, False, W, None, fp), (4, 8, 8, 512, 512, False, W, None, bf, 8.0),
    (4, 8, 8, 512, 512, True, W, None, fp, 8.0), (4, 8, 8, 1024, 1024, False, W, None, bf, 30.0),
    (2, 8, 8, 1000, 700, True, W, None, fp, 30.0),
    (1, 1, 1, 512, 512, False, W, None, bf), (1, 8, 1, 1024, 1024, True, W, None, fp), (2, 16, 2, 512, 777, False, W, None, bf),
    # issue11ab: odd / even key-block counts a tile (1-9 blocks, ragged tails) on the plan grid and a grid of 5
    (2, 8, 8, 384, 384, False, W, None, bf), (2, 8, 8, 1152, 1152, True, W, 5, bf), (2, 8, 8, 1100, 1100, False, W, None, fp),
    (2, 8, 8, 640, 640, True, W, None, bf), (3, 8, 8, 129, 257, False, W, 5, bf),
]
bad = 0
worst = {n: [0.0, 0.0] for n in [base] + names}
for sh in SHAPES + [("qkv",)]:
    if sh[0] == "qkv":
        b, hq, hk, sq, sk, causal, win, cap, dt, qs = 4, 16, 16, 512, 512, True, W, None, bf, 1.0
        g = torch.Generator(device="cuda").manual_seed(11)
        qkv = torch.randn(b, sq, 3, hq, 64, device="cuda", dtype=bf, generator=g)
        q, k, v = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
    else:
        b, hq, hk, sq, sk, causal, win, cap, dt = sh[:9]
        qs = sh[9] if len(sh) > 9 else 1.0
        g = torch.Generator(device="cuda").manual_seed(11)
        q = (torch.randn(b, sq, hq, 64, device="cuda", dtype=torch.float32, generator=g) * qs).to(dt)
        k = torch.randn(b, sk, hk, 64, device="cuda", dtype=dt, generator=g)
        v = torch.randn(b, sk, hk, 64, device="cuda", dtype=dt, generator=g)
    dn = "bf16" if dt == bf else "fp16"
    ref, ref_lse = attention_ref(q, k, v, causal=causal, window=win)
    res, cells = {}, []
    for n in [base] + names:
        try:
            out, lse = hopper_dev.hopper_fwd(cub(n), cap)(q, k, v, causal=causal, window_size=win)
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            cells.append(f"{n} RAISED {type(e).__name__}: {e}"[:200])
            bad += 1
            continue
        err = rel_error(out, ref)
        why = lse_error(lse, ref_lse)
        fin = torch.isfinite(ref_lse)
        lerr = float((lse[fin].double() - ref_lse[fin]).abs().max()) if fin.any() else 0.0
        ok = err < 1e-2 and why is None
        bad += not ok
        worst[n][0] = max(worst[n][0], err)
        worst[n][1] = max(worst[n][1], lerr)
        res[n] = (out, lse)
        vs = ""
        if n != base and base in res:
            o0, l0 = res[base]
            if torch.equal(out.view(torch.int16), o0.view(torch.int16)) and torch.equal(lse.view(torch.int32), l0.view(torch.int32)):
                vs = " =base"
            else:
                f0 = torch.isfinite(l0) & torch.isfinite(lse)
                vs = (f" vs base |d out| {float((out.float() - o0.float()).abs().max()):.2e} |d lse| "
                      f"{float((lse[f0] - l0[f0]).abs().max()) if f0.any() else 0.0:.2e}")
        cells.append(f"{n} rel {err:.2e} lse {lerr:.2e}{'' if ok else ' FAIL ' + str(why)}{vs}")
    print(f"acc {b}x{sq}x{sk} {hq}/{hk} {'causal' if causal else 'nc'} window {win} grid {cap or 'plan'} {dn}"
          f"{' q x%g' % qs if qs != 1 else ''}{' qkv-views' if sh[0] == 'qkv' else ''}: " + "; ".join(cells), flush=True)
for n in [base] + names:
    ran = {}
    for key, prep in hopper_dev._PREP.items():
        if key[8] == cub(n):
            for ln in prep.launches:
                ran[ln.kernel.name] = ran.get(ln.kernel.name, 0) + 1
    print(f"acc plans of {n}: " + ", ".join(f"{k} x{c}" for k, c in sorted(ran.items())), flush=True)
print("acc worst (rel err out, max |d lse| on finite rows): " + "; ".join(f"{n} {w[0]:.2e} {w[1]:.2e}" for n, w in worst.items()), flush=True)
print(f"accheck: {bad} failures", flush=True)
sys.exit(1 if bad else 0)
