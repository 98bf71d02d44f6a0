"""issue11af (from issue11ae's bitcheck): the d128 _fk variants (HOPPER_FK_TAIL_D128: the CTA's last tile takes an unfused
last turn; HOPPER_PARAM_MAPS_FK: host-made maps) must give base_d128's out and LSE bit for bit.  d128 shapes (the planner's
own choice: _fk up to 4096 keys, causal and not; a few longer / GQA / windowed / grid-capped / fp16 / q-scaled / view cases).

    python3 bitcheck.py VDIR base_d128 VARIANT [VARIANT ...]
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
import hopper_dev  # noqa: E402

vdir, base, names = sys.argv[1], sys.argv[2], sys.argv[3:]
cub = lambda n: os.path.join(vdir, n, "hopper_fwd.cubin")  # noqa: E731
W = (-1, -1)
bf, fp = torch.bfloat16, torch.float16
D = 128
# (b, hq, hk, sq, sk, causal, window, grid cap or None, dtype[, q scale])
SHAPES = [
    (1, 132, 132, 128, 128, False, W, None, bf), (4, 132, 132, 128, 128, False, W, None, bf),
    (1, 33, 33, 512, 512, False, W, None, bf), (32, 16, 16, 512, 512, False, W, None, bf),
    (16, 16, 16, 1024, 1024, False, W, None, bf), (8, 16, 16, 2048, 2048, False, W, None, bf),
    (4, 16, 16, 4096, 4096, False, W, None, bf), (32, 16, 16, 512, 512, True, W, None, bf),
    (16, 16, 16, 1024, 1024, True, W, None, bf), (4, 16, 16, 4096, 4096, True, W, None, bf),
    (3, 8, 2, 1000, 1000, True, W, 5, bf), (2, 8, 2, 700, 1000, True, W, 5, fp),
    (2, 8, 8, 1000, 700, True, W, 132, bf), (4, 8, 4, 777, 777, False, W, 132, fp),
    (4, 8, 4, 640, 1000, True, W, None, bf), (4, 8, 8, 512, 512, False, (100, 30), None, bf),
    (4, 8, 8, 1024, 1024, True, (200, 0), None, bf), (2, 8, 8, 900, 1000, False, (64, 64), 5, fp),
    (4, 8, 8, 1024, 1024, False, (-1, 77), None, bf), (4, 8, 8, 600, 600, False, (300, -1), None, bf),
    (16, 16, 16, 1024, 1024, True, W, None, fp), (32, 16, 16, 512, 512, True, W, None, fp),
    (8, 16, 16, 900, 1000, True, W, None, bf), (2, 8, 8, 1024, 960, True, W, 5, bf),
    (3, 8, 8, 300, 168, False, W, None, fp), (1, 4, 4, 130, 130, True, W, None, bf), (5, 4, 2, 64, 64, True, W, None, bf),
    (2, 8, 8, 200, 1024, True, W, 132, bf), (4, 8, 8, 512, 512, False, W, None, bf, 8.0),
    (4, 8, 8, 512, 512, True, W, None, fp, 8.0), (4, 8, 8, 1024, 1024, False, W, None, bf, 30.0),
    (1, 1, 1, 512, 512, False, W, None, bf), (1, 8, 1, 1024, 1024, True, W, None, fp), (2, 16, 2, 512, 777, False, W, None, bf),
    (4, 32, 8, 4096, 4096, True, W, None, bf),
]
bad = 0
for sh in SHAPES + [("qkv",)]:
    if sh[0] == "qkv":   # q / k / v as views of one (b, s, 3, h, 128) tensor: seq stride 3 * h * 128
        b, hq, hk, sq, sk, causal, win, cap, dt, qs = 4, 16, 16, 512, 512, True, W, None, bf, 1.0
        g = torch.Generator(device="cuda").manual_seed(11)
        qkv = torch.randn(b, sq, 3, hq, D, device="cuda", dtype=bf, generator=g)
        q, k, v = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
    else:
        b, hq, hk, sq, sk, causal, win, cap, dt = sh[:9]
        qs = sh[9] if len(sh) > 9 else 1.0
        g = torch.Generator(device="cuda").manual_seed(11)
        q = (torch.randn(b, sq, hq, D, device="cuda", dtype=torch.float32, generator=g) * qs).to(dt)
        k = torch.randn(b, sk, hk, D, device="cuda", dtype=dt, generator=g)
        v = torch.randn(b, sk, hk, D, device="cuda", dtype=dt, generator=g)
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
for n in [base] + names:   # which kernels the plans ran, and their kernarg bytes (752: host-made maps)
    ran = {}
    for key, prep in hopper_dev._PREP.items():
        if key[8] == cub(n):
            for ln in prep.launches:
                ran[(ln.kernel.name, len(ln.template))] = ran.get((ln.kernel.name, len(ln.template)), 0) + 1
    print(f"bit plans of {n}: " + ", ".join(f"{k} {nb} B x{c}" for (k, nb), c in sorted(ran.items())), flush=True)
print(f"bitcheck: {bad} failures", flush=True)
sys.exit(1 if bad else 0)
