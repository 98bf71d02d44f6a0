"""issue11ah (from issue11ae's, unchanged below the docstring): the _c2 / _c2q3 variants (HOPPER_C2_KVWAIT_D64) change only
the consumers' mbarrier waits (which barriers one retry loop tests), so out and LSE must be base_d64's bit for bit.  helper-47's
41 shapes (issue11ac's / issue11ad's bitcheck, unchanged), every problem the planner gives _c2 routed by BITCHECK_ROUTE
(base and variants alike): ``c2``: through _c2 (hopper.C2Q3_SIBLING_D64 emptied); ``c2q3``: through _c2q3 (widened to both
causal flags and all lengths, issue11ad's routing); ``plan``: the planner's own choice (causal up to 1024 keys _c2q3, the
rest _c2).  From notes/logs/h100-hopper-2026-11-27-ad-bitcheck.py (its "all through _c2q3" line replaced by the route).

    BITCHECK_ROUTE=c2|c2q3|plan python3 bitcheck.py VDIR base_d64 VARIANT [VARIANT ...]
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
import hopper_dev  # noqa: E402
from pyhipattn.families import hopper as _hopper  # noqa: E402

ROUTE = os.environ.get("BITCHECK_ROUTE", "plan")
if ROUTE == "c2":       # every _c2 problem through _c2
    _hopper.C2Q3_SIBLING_D64 = {True: (0, -1), False: (0, -1)}
elif ROUTE == "c2q3":   # every _c2 problem through _c2q3
    _hopper.C2Q3_SIBLING_D64 = {True: (0, 1 << 30), False: (0, 1 << 30)}
elif ROUTE != "plan":
    sys.exit(f"BITCHECK_ROUTE={ROUTE}: c2, c2q3 or plan")

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
    (2, 8, 8, 4096, 4096, False, W, None, bf), (32, 16, 16, 512, 512, False, W, None, fp),
    (16, 12, 12, 1024, 1024, False, W, None, fp), (4, 8, 8, 512, 512, False, W, None, bf, 8.0),
    (4, 8, 8, 512, 512, True, W, None, fp, 8.0), (4, 8, 8, 1024, 1024, False, W, None, bf, 30.0),
    (2, 8, 8, 1000, 700, True, W, None, fp, 30.0),
    # issue11z: size-1 batch / heads (the maps' nominal 16-byte strides), GQA 8:1, and a non-contiguous q (its strides in
    # the maps: q sliced out of a packed qkv)
    (1, 1, 1, 512, 512, False, W, None, bf), (1, 8, 1, 1024, 1024, True, W, None, fp), (2, 16, 2, 512, 777, False, W, None, bf),
]
bad = 0
for sh in SHAPES + [("qkv",)]:
    if sh[0] == "qkv":   # q / k / v as views of one (b, s, 3, h, 64) tensor: seq stride 3 * h * 64
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
    try:
        ref, ref_lse = hopper_dev.hopper_fwd(cub(base), cap)(q, k, v, causal=causal, window_size=win)
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        print(f"bit {b}x{sq}x{sk} {hq}/{hk}: base raised {type(e).__name__}: {e}"[:300], flush=True)
        bad += 1
        continue
    cells = []
    for n in names:
        try:
            out, lse = hopper_dev.hopper_fwd(cub(n), cap)(q, k, v, causal=causal, window_size=win)
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            cells.append(f"{n} RAISED {type(e).__name__}: {e}"[:200])
            bad += 1
            continue
        same_o = bool(torch.equal(out.view(torch.int16), ref.view(torch.int16)))
        same_l = bool(torch.equal(lse.view(torch.int32), ref_lse.view(torch.int32)))
        bad += not (same_o and same_l)
        diff = "" if same_o else f" max |d out| {float((out.float() - ref.float()).abs().max()):.2e}"
        cells.append(f"{n} out {'same' if same_o else 'DIFFERENT'} lse {'same' if same_l else 'DIFFERENT'}{diff}")
    print(f"bit {b}x{sq}x{sk} {hq}/{hk} {'causal' if causal else 'nc'} window {win} grid {cap or 'plan'} {dn}"
          f"{' q x%g' % qs if qs != 1 else ''}{' qkv-views' if sh[0] == 'qkv' else ''}: " + "; ".join(cells), flush=True)
# which of the variants' plans took host-made maps (key[8]: the cubin; launches' kernel and kernarg bytes)
for n in names:
    ran = {}
    for key, prep in hopper_dev._PREP.items():
        if key[8] == cub(n):
            for ln in prep.launches:
                ran[(ln.kernel.name, len(ln.template))] = ran.get((ln.kernel.name, len(ln.template)), 0) + 1
    print(f"bit plans of {n}: " + ", ".join(f"{k} {nb} B x{c}" for (k, nb), c in sorted(ran.items())), flush=True)
print(f"bitcheck ({ROUTE}): {bad} failures", flush=True)
sys.exit(1 if bad else 0)
