"""issue11y (helper-46, 2026-11-27 session 4), copied from issue11x (helper-45): HOPPER_C2_ROWSUM_D64 changes the _c2 kernels' numerics (l as the tensor cores' sum of the rounded P; issue11x: a degree-3
exp2 polynomial, relative error 8.6e-5, on k of 16 column groups), so instead of the bit-for-bit bigcheck: on helper-41's
30 bigcheck shapes (logs/...-u-bigcheck.py; bf16 / fp16, windows, offset causal, rows that see no key, grid caps) plus
large-score rows (q x 8 / x 30: exponents far below -127), each variant's out / LSE against base_d64's on the same
inputs: max |d out| (against sweep.ABS_TOL of the dtype), max |d LSE| over finite LSE, rows whose base LSE is -inf must
be -inf with out exactly 0 in the variant, no NaN / Inf in out; for shapes of <= 2^27 score elements also max |out - ref|
(float64 pyhipattn.reference.attention_ref) of base and of each variant.

    python3 acccheck.py VDIR base_d64 VARIANT [VARIANT ...]
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
import hopper_dev  # noqa: E402
from pyhipattn.tools import sweep  # noqa: E402
from pyhipattn.reference import attention_ref  # noqa: E402

vdir, base, names = sys.argv[1], sys.argv[2], sys.argv[3:]
cub = lambda n: os.path.join(vdir, n, "hopper_fwd.cubin")  # noqa: E731
W = (-1, -1)
bf, fp = torch.bfloat16, torch.float16
# (b, hq, hk, sq, sk, causal, window, grid cap or None, dtype[, q scale])
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
    # issue11x: the few-rounds non-causal row, fp16 512 / 1024 non-causal, large scores (exponents far below -127)
    (2, 8, 8, 4096, 4096, False, W, None, bf), (32, 16, 16, 512, 512, False, W, None, fp),
    (16, 12, 12, 1024, 1024, False, W, None, fp), (4, 8, 8, 512, 512, False, W, None, bf, 8.0),
    (4, 8, 8, 512, 512, True, W, None, fp, 8.0), (4, 8, 8, 1024, 1024, False, W, None, bf, 30.0),
    (2, 8, 8, 1000, 700, True, W, None, fp, 30.0),
]
bad = 0
worst = {n: {"bf16": [0.0, 0.0], "fp16": [0.0, 0.0]} for n in names}
for sh in SHAPES:
    b, hq, hk, sq, sk, causal, win, cap, dt = sh[:9]
    qs = sh[9] if len(sh) > 9 else 1.0
    dn = "bf16" if dt == bf else "fp16"
    g = torch.Generator(device="cuda").manual_seed(11)
    q = (torch.randn(b, sq, hq, 64, device="cuda", dtype=torch.float32, generator=g) * qs).to(dt)
    k = torch.randn(b, sk, hk, 64, device="cuda", dtype=dt, generator=g)
    v = torch.randn(b, sk, hk, 64, device="cuda", dtype=dt, generator=g)
    try:
        ref, ref_lse = hopper_dev.hopper_fwd(cub(base), cap)(q, k, v, causal=causal, window_size=win)
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        print(f"acc {b}x{sq}x{sk} {hq}/{hk} causal={causal} window={win}: base raised {type(e).__name__}: {e}"[:300], flush=True)
        continue
    small = b * hq * sq * sk <= 2 ** 27
    if small:
        r64, _ = attention_ref(q, k, v, causal=causal, window=win)
        eb = float((ref.double() - r64.double()).abs().max())
    dead = torch.isneginf(ref_lse)
    cells = [f"base |d ref| {eb:.2e}" if small else "no ref", f"dead rows {int(dead.sum())}"]
    for n in names:
        out, lse = hopper_dev.hopper_fwd(cub(n), cap)(q, k, v, causal=causal, window_size=win)
        torch.cuda.synchronize()
        do = float((out.float() - ref.float()).abs().max())
        fin = torch.isfinite(ref_lse)
        dl = float((lse[fin] - ref_lse[fin]).abs().max()) if fin.any() else 0.0
        ok_dead = bool(torch.equal(torch.isneginf(lse), dead)) and (not dead.any() or bool(
            (out.permute(0, 2, 1, 3)[dead] == 0).all()))
        ok_fin = bool(torch.isfinite(out).all()) and not bool(torch.isnan(lse).any())
        ok = ok_dead and ok_fin and do <= sweep.ABS_TOL[dn]
        bad += not ok
        worst[n][dn][0] = max(worst[n][dn][0], do)
        worst[n][dn][1] = max(worst[n][dn][1], dl)
        c = f"{n} |d out| {do:.2e} |d lse| {dl:.2e}"
        if small:
            c += f" |d ref| {float((out.double() - r64.double()).abs().max()):.2e}"
        if not ok_dead:
            c += " DEAD-ROWS-DIFFER"
        if not ok_fin:
            c += " NON-FINITE"
        if do > sweep.ABS_TOL[dn]:
            c += " OVER-TOL"
        cells.append(c)
    print(f"acc {b}x{sq}x{sk} {hq}/{hk} {'causal' if causal else 'nc'} window {win} grid {cap or 'plan'} {dn}"
          f"{' q x%g' % qs if qs != 1 else ''}: " + "; ".join(cells), flush=True)
for n in names:
    print(f"acc worst {n}: bf16 |d out| {worst[n]['bf16'][0]:.3e} (tol {sweep.ABS_TOL['bf16']}) |d lse| {worst[n]['bf16'][1]:.3e}; "
          f"fp16 |d out| {worst[n]['fp16'][0]:.3e} (tol {sweep.ABS_TOL['fp16']}) |d lse| {worst[n]['fp16'][1]:.3e}", flush=True)
print(f"acccheck: {bad} failures", flush=True)
sys.exit(1 if bad else 0)
