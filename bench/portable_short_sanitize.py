"""Small mha_fwd calls that run the sm_90a d64 short objects (plain_short, masked_short,
softcap_short), bf16 and fp16, head dims 64 and 40, none / causal / window / softcap / causal +
softcap, checked against the float64 reference; exits 1 on a mismatch.  For compute-sanitizer:

    compute-sanitizer --tool memcheck python3 bench/portable_short_sanitize.py
"""
import sys
import torch
import pyhipattn
from pyhipattn import validate
from pyhipattn.dlpack import view
from pyhipattn.families import portable
from pyhipattn.reference import attention_ref, rel_error

TOL = {torch.bfloat16: 1e-2, torch.float16: 2e-3}
bad = 0
kinds = set()
for dt in (torch.bfloat16, torch.float16):
    for d in (64, 40):
        for (b, sq, sk, hq, hk) in ((2, 129, 255, 8, 2), (1, 300, 77, 4, 4), (1, 64, 1000, 8, 1)):
            for feat in ("none", "causal", "window", "softcap", "causal+softcap"):
                g = torch.Generator(device="cuda").manual_seed(sq + sk + d)
                q = torch.randn(b, sq, hq, d, device="cuda", dtype=dt, generator=g)
                k = torch.randn(b, sk, hk, d, device="cuda", dtype=dt, generator=g)
                v = torch.randn(b, sk, hk, d, device="cuda", dtype=dt, generator=g)
                kw = dict(causal="causal" in feat, softcap=5.0 if "softcap" in feat else 0.0,
                          window_size=(3, 5) if feat == "window" else (-1, -1))
                p = validate.batch_problem(view(q, argname="q"), view(k, argname="k"), view(v, argname="v"),
                                           softmax_scale=None, return_lse=True, num_splits=1, **kw)
                kinds.add(portable.tile_kind(p, "sm_90a"))
                out, lse = pyhipattn.mha_fwd(q, k, v, return_lse=True, **kw)
                ref, ref_lse = attention_ref(q, k, v, causal=kw["causal"], softcap=kw["softcap"],
                                             window=kw["window_size"])
                err = rel_error(out, ref)
                fin = torch.isfinite(ref_lse)
                lerr = float((lse.double()[fin] - ref_lse[fin]).abs().max()) if fin.any() else 0.0
                ok = err <= TOL[dt] and lerr < 2e-3
                bad += not ok
                if not ok:
                    print("FAIL", dt, d, (b, sq, sk, hq, hk), feat, err, lerr, flush=True)
torch.cuda.synchronize()
print(f"mc: kinds {sorted(kinds)}; {bad} failures", flush=True)
sys.exit(1 if bad else 0)
