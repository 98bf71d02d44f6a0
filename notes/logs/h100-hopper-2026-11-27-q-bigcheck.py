"""issue11o (helper o, prepared on the CPU 2026-11-27, never run): each variant build's out and LSE against base_d64's (this
branch's default build, bit for bit main's cubin e6fce333...) on the same inputs, **bit for bit**: no variant changes
arithmetic (descriptor adds, partial row maxima, where the next tile is picked, how masked blocks are found), so any
difference is a bug.  Shapes: the timed d64 rows (many tiles per CTA: the _c2 boundary's early pick runs on each), ragged
and causal ones, and persistent grids of 132 and 5 CTAs (several tiles per CTA on every shape).

    python3 bigcheck.py VDIR base_d64 VARIANT [VARIANT ...]   # VDIR/<name>/hopper_fwd.cubin; prints one line per case
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
import hopper_dev  # noqa: E402  (main's bench/hopper_dev.py: hopper_fwd(cubin, grid_cap) plans with the cubin's manifest)

vdir, base, names = sys.argv[1], sys.argv[2], sys.argv[3:]
cub = lambda n: os.path.join(vdir, n, "hopper_fwd.cubin")  # noqa: E731
# (b, hq, hk, sq, sk, causal, grid cap or None, dtype)
SHAPES = [
    (32, 16, 16, 512, 512, False, None, torch.bfloat16), (32, 32, 32, 512, 512, True, None, torch.bfloat16),
    (16, 12, 12, 1024, 1024, False, None, torch.bfloat16), (16, 32, 32, 1024, 1024, True, None, torch.bfloat16),
    (8, 32, 32, 2048, 2048, False, None, torch.bfloat16), (8, 32, 32, 2048, 2048, True, None, torch.bfloat16),
    (4, 32, 32, 4096, 4096, False, None, torch.bfloat16), (4, 32, 32, 4096, 4096, True, None, torch.bfloat16),
    (2, 32, 32, 8192, 8192, False, None, torch.bfloat16),
    (3, 8, 2, 1000, 1000, True, 5, torch.bfloat16), (2, 8, 2, 700, 1500, False, 5, torch.float16),
    (2, 8, 8, 1500, 700, True, 132, torch.bfloat16), (4, 8, 4, 777, 777, False, 132, torch.float16),
    (2, 4, 4, 3000, 3000, True, 5, torch.float16), (16, 32, 32, 1024, 1024, True, None, torch.float16),
]
bad = 0
for b, hq, hk, sq, sk, causal, cap, dt in SHAPES:
    g = torch.Generator(device="cuda").manual_seed(11)
    q = torch.randn(b, sq, hq, 64, device="cuda", dtype=dt, generator=g)
    k = torch.randn(b, sk, hk, 64, device="cuda", dtype=dt, generator=g)
    v = torch.randn(b, sk, hk, 64, device="cuda", dtype=dt, generator=g)
    ref, ref_lse = hopper_dev.hopper_fwd(cub(base), cap)(q, k, v, causal=causal)
    torch.cuda.synchronize()
    cells = []
    for n in names:
        out, lse = hopper_dev.hopper_fwd(cub(n), cap)(q, k, v, causal=causal)
        torch.cuda.synchronize()
        same = torch.equal(out.view(torch.int16), ref.view(torch.int16)) and torch.equal(lse.view(torch.int32), ref_lse.view(torch.int32))
        bad += not same
        cells.append(f"{n} {'same' if same else 'DIFFERS (max |d out| %.3g)' % (out.float() - ref.float()).abs().max()}")
    print(f"bigcheck {b}x{sq}x{sk} {hq}/{hk} {'causal' if causal else 'nc'} grid {cap or 'plan'} {str(dt)[6:]}: "
          + ", ".join(cells), flush=True)
print(f"bigcheck: {bad} differences", flush=True)
sys.exit(1 if bad else 0)
