"""issue11t (helper-40, prepared on the CPU 2026-11-27, never run; after helper o's q-bigcheck.py): each variant build's
out and LSE against the base build's (the shipped cubin copied as a variant) on the same inputs, **bit for bit**: no
variant changes arithmetic (pvl_d128 / pvm_d128 / pvm_d64: where ptxas puts the PV wait; tr24_d64: which d64 tiles are
dealt out as per-warpgroup pieces), so any difference is a bug.  Head dims 128 and 64: the timed rows, the rows HOPPER_TAIL_ROUNDS_D64=24
newly splits (8x2048 / 4x4096 32/32, 5x2000 32/32 with dead and partial pieces), causal, GQA, ragged ones, persistent grids
of 132 and 5 CTAs.

    python3 bigcheck.py VDIR base VARIANT [VARIANT ...]   # VDIR/<name>/hopper_fwd.cubin; prints one line per case
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
import hopper_dev  # noqa: E402

vdir, base, names = sys.argv[1], sys.argv[2], sys.argv[3:]
cub = lambda n: os.path.join(vdir, n, "hopper_fwd.cubin")  # noqa: E731
bf, fp = torch.bfloat16, torch.float16
# (b, hq, hk, sq, sk, d, causal, grid cap or None, dtype)
SHAPES = [
    (16, 16, 16, 1024, 1024, 128, False, None, bf), (8, 16, 16, 2048, 2048, 128, False, None, bf),
    (4, 16, 16, 4096, 4096, 128, False, None, bf), (4, 16, 16, 4096, 4096, 128, True, None, bf),
    (32, 16, 16, 512, 512, 128, True, None, bf), (4, 32, 8, 4096, 4096, 128, True, None, bf),
    (2, 8, 2, 1500, 700, 128, True, 132, bf), (3, 8, 2, 1000, 1000, 128, False, 5, fp),
    (2, 4, 4, 3000, 3000, 128, True, 5, fp), (2, 8, 8, 777, 1999, 128, False, None, fp),
    (8, 32, 32, 2048, 2048, 64, False, None, bf), (4, 32, 32, 4096, 4096, 64, False, None, bf),
    (5, 32, 32, 2000, 2000, 64, False, None, bf), (5, 32, 32, 2000, 1500, 64, False, None, fp),
    (8, 32, 32, 2048, 2048, 64, False, None, fp), (2, 32, 32, 8192, 8192, 64, False, None, bf),
    (1, 8, 8, 32768, 32768, 64, False, None, bf), (8, 32, 32, 2048, 2048, 64, True, None, bf),
    (3, 8, 2, 1000, 1000, 64, True, 5, bf), (2, 8, 2, 700, 1500, 64, False, 5, fp),
    (4, 8, 4, 777, 777, 64, False, 132, fp),
]
bad = 0
for b, hq, hk, sq, sk, d, causal, cap, dt in SHAPES:
    g = torch.Generator(device="cuda").manual_seed(11)
    q = torch.randn(b, sq, hq, d, device="cuda", dtype=dt, generator=g)
    k = torch.randn(b, sk, hk, d, device="cuda", dtype=dt, generator=g)
    v = torch.randn(b, sk, hk, d, device="cuda", dtype=dt, generator=g)
    ref, ref_lse = hopper_dev.hopper_fwd(cub(base), cap)(q, k, v, causal=causal)
    torch.cuda.synchronize()
    cells = []
    for n in names:
        out, lse = hopper_dev.hopper_fwd(cub(n), cap)(q, k, v, causal=causal)
        torch.cuda.synchronize()
        same = torch.equal(out.view(torch.int16), ref.view(torch.int16)) and torch.equal(lse.view(torch.int32), ref_lse.view(torch.int32))
        bad += not same
        cells.append(f"{n} {'same' if same else 'DIFFERS (max |d out| %.3g)' % (out.float() - ref.float()).abs().max()}")
    print(f"bigcheck {b}x{sq}x{sk} {hq}/{hk} d{d} {'causal' if causal else 'nc'} grid {cap or 'plan'} {str(dt)[6:]}: "
          + ", ".join(cells), flush=True)
    del q, k, v, ref, ref_lse
print(f"bigcheck: {bad} differences", flush=True)
sys.exit(1 if bad else 0)
