"""issue11ai (adapted from issue11aa's bitcheck, notes/logs/h100-hopper-2026-11-27-aa-bitcheck.py): HOPPER_PARAM_MAPS_ALL=15
moves the Q / K / V / O tensor maps of the other non-varlen TMA kernels (d128 main / _static / _bn176 / _softcap, d64 /
_s4 / _static, d96 / _dyn / _softcap, d256 / _softcap; _fk and _c2 / _c2q3 already take host-made maps in the default
build) from the kernel (tmap_make) to the host (pyhipattn.kernargs.encode_tile_map), so out and LSE must be base's bit
for bit.  On helper-47's 41 d64 shapes plus shapes that run each changed kernel (head dims 64 / 96 / 128 / 256, causal
and not, GQA, grid caps, windows, softcap, packed-qkv views, zero keys) and the one-key-block rows 1x132x128 of each head
dim, each variant's out / LSE against base's on the same inputs: torch.equal on out, and on LSE as int32 bits.  Then which
plans of each variant ran which kernel with how many kernarg bytes (752 = hopper_fwd_args + pad + hopper_fwd_maps at 240;
216 = in-kernel maps).

    python3 bitcheck.py VDIR base VARIANT [VARIANT ...]
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
# (b, hq, hk, sq, sk, causal, window, grid cap or None, dtype[, q scale[, d[, softcap]]])
D64 = [
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
]
# issue11aa: the changed kernels (comment: the kernel the planner picks on 132 SMs; _fk: unchanged since main's
# HOPPER_PARAM_MAPS_FK=1, kept as a control)
MORE = [
    (4, 32, 32, 4096, 4096, True, W, None, bf, 1.0, 64),            # d64_s4
    (2, 8, 2, 4096, 4096, True, W, 5, fp, 1.0, 64),                 # d64_s4, 5 CTAs
    (1, 32, 8, 16384, 16384, True, W, None, bf, 1.0, 64),           # d64_static
    (1, 8, 8, 32768, 32768, False, W, None, bf, 1.0, 64),           # d64 (tail split)
    (4, 8, 4, 3000, 2500, False, W, 11, fp, 1.0, 64),               # d64, 11 CTAs
    (2, 8, 8, 2048, 2048, False, (300, 0), None, bf, 1.0, 64),      # d64, window
    (2, 8, 8, 3000, 3000, True, W, None, bf, 1.0, 64, 30.0),        # d64_softcap (unchanged kernel)
    (2, 16, 8, 6000, 6000, False, W, None, bf, 1.0, 128),           # d128
    (1, 32, 8, 8192, 8192, True, W, None, bf, 1.0, 128),            # d128 causal
    (32, 16, 16, 512, 512, False, W, None, bf, 1.0, 128),           # d128_fk
    (16, 16, 16, 1024, 1024, True, W, None, fp, 1.0, 128),          # d128_fk causal
    (4, 32, 8, 2048, 2048, True, W, None, bf, 1.0, 128),            # d128_static
    (3, 8, 2, 1000, 1000, True, W, 5, bf, 1.0, 128),                # d128_fk, 5 CTAs
    (2, 8, 8, 1000, 700, True, W, None, fp, 1.0, 128),              # sq > sk causal
    (4, 8, 8, 1024, 1024, False, (200, 0), None, bf, 1.0, 128),     # window
    (1, 16, 16, 16384, 16384, False, W, None, bf, 1.0, 128),        # d128_bn176
    (2, 8, 8, 9000, 9000, False, W, None, fp, 1.0, 128),            # d128_bn176, ragged
    (2, 8, 8, 1000, 1000, False, W, None, bf, 1.0, 128, 30.0),      # d128_softcap
    (2, 8, 4, 700, 900, True, W, None, fp, 1.0, 128, 20.0),         # d128_softcap causal
    (2, 8, 8, 512, 0, False, W, None, bf, 1.0, 128),                # zero keys
    (4, 32, 32, 2048, 2048, False, W, None, bf, 1.0, 96),           # d96
    (4, 32, 8, 2048, 2048, True, W, None, bf, 1.0, 96),             # d96_dyn
    (2, 8, 8, 8192, 8192, True, W, None, fp, 1.0, 96),              # d96 causal (static)
    (3, 8, 2, 1000, 1000, True, W, 5, bf, 1.0, 96),                 # d96_dyn, 5 CTAs
    (2, 8, 4, 700, 900, False, W, None, fp, 1.0, 96, 20.0),         # d96_softcap
    (1, 16, 8, 4096, 4096, True, W, None, bf, 1.0, 256),            # d256
    (2, 8, 8, 1000, 1000, False, W, None, fp, 1.0, 256),            # d256
    (2, 8, 2, 777, 900, True, W, 5, bf, 1.0, 256),                  # d256, 5 CTAs
    (3, 4, 1, 300, 500, False, W, None, bf, 1.0, 256, 50.0),        # d256_softcap
    # issue11ai: the one-key-block rows of the timing (1 x 132 heads x 128 x 128)
    (1, 132, 132, 128, 128, False, W, None, bf, 1.0, 64),
    (1, 132, 132, 128, 128, False, W, None, bf, 1.0, 96),
    (1, 132, 132, 128, 128, False, W, None, bf, 1.0, 128),
    (1, 132, 132, 128, 128, False, W, None, fp, 1.0, 256),
]
bad = 0
for sh in D64 + MORE + [("qkv", 64), ("qkv", 128), ("qkv", 96)]:
    sc = 0.0
    if sh[0] == "qkv":   # q / k / v as views of one (b, s, 3, h, d) tensor: seq stride 3 * h * d
        d = sh[1]
        b, hq, hk, sq, sk, causal, win, cap, dt, qs = 4, 16, 16, 1024, 1024, True, W, None, bf, 1.0
        g = torch.Generator(device="cuda").manual_seed(11)
        qkv = torch.randn(b, sq, 3, hq, d, device="cuda", dtype=bf, generator=g)
        q, k, v = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
    else:
        b, hq, hk, sq, sk, causal, win, cap, dt = sh[:9]
        qs = sh[9] if len(sh) > 9 else 1.0
        d = sh[10] if len(sh) > 10 else 64
        sc = sh[11] if len(sh) > 11 else 0.0
        g = torch.Generator(device="cuda").manual_seed(11)
        q = (torch.randn(b, sq, hq, d, device="cuda", dtype=torch.float32, generator=g) * qs).to(dt)
        k = torch.randn(b, sk, hk, d, device="cuda", dtype=dt, generator=g)
        v = torch.randn(b, sk, hk, d, device="cuda", dtype=dt, generator=g)
    dn = "bf16" if dt == bf else "fp16"
    tag = (f"bit d{d} {b}x{sq}x{sk} {hq}/{hk} {'causal' if causal else 'nc'} window {win} grid {cap or 'plan'} {dn}"
           f"{' q x%g' % qs if qs != 1 else ''}{' softcap %g' % sc if sc else ''}{' qkv-views' if sh[0] == 'qkv' else ''}")
    try:
        ref, ref_lse = hopper_dev.hopper_fwd(cub(base), cap)(q, k, v, causal=causal, window_size=win, softcap=sc)
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        print(f"{tag}: base raised {type(e).__name__}: {e}"[:300], flush=True)
        bad += 1
        continue
    cells = []
    for n in names:
        try:
            out, lse = hopper_dev.hopper_fwd(cub(n), cap)(q, k, v, causal=causal, window_size=win, softcap=sc)
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
    print(f"{tag}: " + "; ".join(cells), flush=True)
    del q, k, v
    torch.cuda.empty_cache()
for n in [base] + names:
    ran = {}
    for key, prep in hopper_dev._PREP.items():
        if key[8] == cub(n):
            for ln in prep.launches:
                ran[(ln.kernel.name, len(ln.template))] = ran.get((ln.kernel.name, len(ln.template)), 0) + 1
    print(f"bit plans of {n}: " + ", ".join(f"{k.removeprefix('hopper_fwd_')} {nb} B x{c}" for (k, nb), c in sorted(ran.items())),
          flush=True)
print(f"bitcheck: {bad} failures", flush=True)
sys.exit(1 if bad else 0)
