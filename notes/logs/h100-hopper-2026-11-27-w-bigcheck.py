"""issue11w (helper-44; after helper-40's t-bigcheck.py): each variant build's out and LSE against the base build's (the
shipped cubin, carried as a variant) on the same inputs.  A variant named in SAME_ONLY (comma list, env) must be bit for bit
(it changes no arithmetic: L2 hints, L2 prefetches); the others (NC_ROT: another key-block order) are reported with their
largest |d out| and |d lse| and must stay within 2e-2 / 2e-3 of base.  d128 only: the timed rows, ragged / GQA / sq != sk,
both masks, grid caps 132 / 5, bf16 and fp16.

    python3 bigcheck.py VDIR base VARIANT [VARIANT ...]   # VDIR/<name>/hopper_fwd.cubin; one line per case
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
import hopper_dev  # noqa: E402

vdir, base, names = sys.argv[1], sys.argv[2], sys.argv[3:]
same_only = set(filter(None, os.environ.get("SAME_ONLY", "").split(",")))
cub = lambda n: os.path.join(vdir, n, "hopper_fwd.cubin")  # noqa: E731
bf, fp = torch.bfloat16, torch.float16
# (b, hq, hk, sq, sk, d, causal, grid cap or None, dtype)
SHAPES = [
    (32, 16, 16, 512, 512, 128, False, None, bf), (16, 16, 16, 1024, 1024, 128, False, None, bf),
    (8, 16, 16, 2048, 2048, 128, False, None, bf), (4, 16, 16, 4096, 4096, 128, False, None, bf),
    (4, 16, 16, 4096, 4096, 128, True, None, bf), (32, 16, 16, 512, 512, 128, True, None, bf),
    (2, 8, 2, 1500, 700, 128, True, 132, bf), (3, 8, 2, 1000, 1000, 128, False, 5, fp),
    (2, 4, 4, 3000, 3000, 128, True, 5, fp), (2, 8, 8, 777, 1999, 128, False, None, fp),
    (1, 4, 4, 4097, 4097, 128, False, None, bf), (2, 8, 2, 1000, 3333, 128, False, 132, bf),
    (3, 4, 4, 200, 5000, 128, False, 5, fp), (2, 4, 1, 2500, 130, 128, False, None, bf),
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
        do = float((out.float() - ref.float()).abs().max())
        dl = float((lse - ref_lse).abs().max())
        ok = same or (n not in same_only and do < 2e-2 and dl < 2e-3)
        bad += not ok
        cells.append(f"{n} " + ("same" if same else f"{'differs' if ok else 'DIFFERS'} (max |d out| {do:.3g}, |d lse| {dl:.3g})"))
    print(f"bigcheck {b}x{sq}x{sk} {hq}/{hk} d{d} {'causal' if causal else 'nc'} grid {cap or 'plan'} {str(dt)[6:]}: "
          + ", ".join(cells), flush=True)
    del q, k, v, ref, ref_lse
print(f"bigcheck: {bad} failures", flush=True)
sys.exit(1 if bad else 0)
