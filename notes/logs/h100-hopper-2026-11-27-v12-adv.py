"""Adversarial numerics for HOPPER_LAZY_RESCALE (the lead, session 8, call v12): scores that grow along the keys, so a
warp's row maxima move every key block -- by about 3 (exp2 domain) a block, which the kernels keep for two blocks and
then rescale (P up to 2^8 before each rescale), and by about 20, a rescale every block -- and scores that fall (the first
block's maxima kept to the end).  q rows all u * sqrt(d) plus noise, k_j = u * t_j plus noise, t_j = slope * j; out and
LSE of the checkout's hopper kernels (bench/hopper_dev.py's hopper_fwd: the planner's kernel) against
pyhipattn.reference.attention_ref, with check-only's bounds (rel err < 1e-2, |d lse| < 2e-3)."""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
import hopper_dev  # noqa: E402
from pyhipattn.reference import attention_ref, rel_error  # noqa: E402

torch.manual_seed(0)
fwd = hopper_dev.hopper_fwd(None)
bad = 0
cases = []
for d in (64, 96, 128, 256):
    for causal in (False, True):
        cases.append((2, 2048, 4, d, causal))
cases += [(1, 8192, 4, 128, False), (1, 8192, 4, 64, False)]
for (b, s, h, d, causal) in cases:
    for grow in (3.0, 20.0, -3.0):
        for dt in (torch.bfloat16, torch.float16):
            u = torch.randn(d, device="cuda")
            u = u / u.norm()
            slope = grow / 128 / math.log2(math.e)          # natural-log units a key (softmax scale 1 / sqrt(d))
            t = torch.arange(s, device="cuda", dtype=torch.float32) * slope
            if grow < 0:
                t = t - t.min()
            q = (u * math.sqrt(d)).expand(b, s, h, d) + 0.3 * torch.randn(b, s, h, d, device="cuda")
            k = u * t[None, :, None, None] + 0.3 * torch.randn(b, s, h, d, device="cuda")
            v = torch.randn(b, s, h, d, device="cuda")
            q, k, v = (x.to(dt).contiguous() for x in (q, k, v))
            out, lse = fwd(q, k, v, causal=causal)
            ref, ref_lse = attention_ref(q, k, v, causal=causal)
            err = rel_error(out, ref)
            lerr = float((lse.double() - ref_lse).abs().max())
            ok = err < 1e-2 and lerr < 2e-3 and bool(torch.isfinite(out).all())
            bad += not ok
            kern = hopper_dev.hopper_prepared(q, k, v, causal, True, None).launches[0].kernel
            name = str(getattr(kern, "name", kern)).removeprefix("hopper_fwd_")
            print(f"adv {b}x{s} h{h} d{d} causal={causal} grow {grow:+.0f} {str(dt)[6:]}: rel err {err:.2e} "
                  f"lse err {lerr:.2e} {name} {'ok' if ok else 'FAIL'}", flush=True)
print(f"adv: {bad} failures of {len(cases) * 6}", flush=True)
