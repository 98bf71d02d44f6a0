"""The randomized numeric sweep of ``mha_fwd`` (tests/gpu and ``pyhipattn check`` share it).

Each case draws fresh inputs (torch, on the GPU), poisons the output with NaN, runs
``mha_fwd(..., out=out)`` and compares with ``reference.attention_ref`` (float64 on the GPU):
no NaN may survive (every element written), and the relative Frobenius error must be
<= 1.5x torch SDPA's on the same inputs where SDPA can express the case (explicit bottom-right
masks; no rows without keys; dv == d), else <= 1e-2 (bf16) / 2e-3 (fp16).  LSE must be -inf
exactly where no key is visible and close elsewhere.
"""

from __future__ import annotations

import os
import random
import time

LENGTHS = (1, 2, 3, 7, 17, 64, 127, 128, 129, 255, 1000, 4097)
HEADS = ((8, 8), (8, 2), (8, 1))
DIMS = (32, 40, 64, 80, 96, 128, 160, 192, 256)
FEATURES = ("none", "causal", "window", "softcap", "causal+lse", "window+softcap")
ABS_TOL = {"bf16": 1e-2, "fp16": 2e-3}


def make_cases(n: int, seed: int = 2026) -> list[dict]:
    """``n`` random cases over the issue's sweep, then targeted ones (sq > sk and sq < sk
    causal, decode, dv != d, odd lengths, d=256 windows)."""
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        sq, sk = rng.choice(LENGTHS), rng.choice(LENGTHS)
        hq, hk = rng.choice(HEADS)
        d = rng.choice(DIMS)
        b = rng.randint(1, 4)
        while b * max(sq, sk) * hq * d > 4 * 4097 * 8 * 128 and b > 1:   # bound memory and time
            b -= 1
        cases.append(dict(b=b, sq=sq, sk=sk, hq=hq, hk=hk, d=d, dv=d, dtype=rng.choice(["bf16", "fp16"]),
                          feature=rng.choice(FEATURES), window=(rng.choice([0, 3, 64]), rng.choice([-1, 0, 5])),
                          seed=i))
    base = dict(window=(0, 0))
    for i, (b, sq, sk, hq, hk, d, dv, dt, f) in enumerate([
            (2, 1000, 7, 8, 2, 64, 64, "bf16", "causal"), (2, 7, 1000, 8, 2, 64, 64, "bf16", "causal"),
            (3, 1, 4097, 8, 1, 128, 128, "bf16", "none"), (1, 3, 3, 8, 8, 40, 40, "fp16", "none"),
            (2, 129, 255, 8, 2, 128, 64, "bf16", "causal+lse"), (1, 17, 17, 8, 8, 256, 256, "fp16", "window")]):
        cases.append(dict(base, b=b, sq=sq, sk=sk, hq=hq, hk=hk, d=d, dv=dv, dtype=dt, feature=f,
                          seed=900 + i, window=(3, 5) if f == "window" else (0, 0)))
    return cases


def case_id(c: dict) -> str:
    return f"b{c['b']}-sq{c['sq']}-sk{c['sk']}-h{c['hq']}x{c['hk']}-d{c['d']}x{c['dv']}-{c['dtype']}-{c['feature']}"


def case_kwargs(c: dict) -> dict:
    f = c["feature"]
    kw = dict(causal="causal" in f, softcap=5.0 if "softcap" in f else 0.0, return_lse=True)
    if "window" in f:
        kw["window_size"] = c["window"]
    return kw


def case_inputs(c: dict, device: str = "cuda"):
    import torch

    g = torch.Generator(device=device).manual_seed(1000 + c["seed"])
    dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[c["dtype"]]
    q = torch.randn(c["b"], c["sq"], c["hq"], c["d"], device=device, dtype=dt, generator=g)
    k = torch.randn(c["b"], c["sk"], c["hk"], c["d"], device=device, dtype=dt, generator=g)
    v = torch.randn(c["b"], c["sk"], c["hk"], c["dv"], device=device, dtype=dt, generator=g)
    return q, k, v


def sdpa_error(q, k, v, kw: dict, ref) -> float | None:
    """torch SDPA's relative error on the same inputs, or None where SDPA cannot express it."""
    import torch

    from ..reference import rel_error, visible_mask

    if kw.get("softcap", 0) > 0 or q.shape[-1] != v.shape[-1]:
        return None
    sq, sk = q.shape[1], k.shape[1]
    mask = visible_mask(sq, sk, kw.get("window_size", (-1, -1)), kw["causal"], like=q)
    if not bool(mask.any(dim=1).all()):
        return None   # rows with no key: SDPA gives NaN there, we give 0 by contract
    g = q.shape[2] // k.shape[2]
    qt = q.transpose(1, 2)
    kt, vt = k.repeat_interleave(g, 2).transpose(1, 2), v.repeat_interleave(g, 2).transpose(1, 2)
    masked = not bool(mask.all())
    o = torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, attn_mask=mask if masked else None)
    return rel_error(o.transpose(1, 2), ref)


def check_case(c: dict, mha_fwd=None) -> str | None:
    """Run one case; None when it passes, else what failed."""
    import torch

    from ..reference import attention_ref, lse_error, rel_error

    if mha_fwd is None:
        from ..api import mha_fwd
    q, k, v = case_inputs(c)
    kw = case_kwargs(c)
    out = torch.full((c["b"], c["sq"], c["hq"], c["dv"]), float("nan"), device=q.device, dtype=q.dtype)
    res, lse = mha_fwd(q, k, v, out=out, **kw)
    if res is not out:
        return "mha_fwd(out=out) did not return out"
    torch.cuda.synchronize()
    if torch.isnan(out).any():
        return f"{int(torch.isnan(out).sum())} output elements are NaN (unwritten or broken)"
    ref, ref_lse = attention_ref(q, k, v, causal=kw["causal"], window=kw.get("window_size", (-1, -1)),
                                 softcap=kw["softcap"])
    err = rel_error(out, ref)
    sdpa = sdpa_error(q, k, v, kw, ref)
    limit = max(1.5 * sdpa if sdpa is not None else ABS_TOL[c["dtype"]], 1e-6)
    if err > limit:
        return f"rel error {err:.3e} > {limit:.3e} (sdpa {sdpa if sdpa is None else f'{sdpa:.3e}'})"
    if lse.dtype != torch.float32 or tuple(lse.shape) != (c["b"], c["hq"], c["sq"]):
        return f"lse has dtype {lse.dtype} shape {tuple(lse.shape)}"
    return lse_error(lse, ref_lse)


def gpu_available() -> bool:
    try:
        import torch

        from ..runtime import get_backend

        return bool(torch.cuda.is_available()) and get_backend() is not None
    except Exception:
        return False


def run_sweep(cases: int = 200, kernels_root: str | None = None, progress=None) -> dict:
    """Run ``cases`` random cases (plus the targeted ones); code objects from ``kernels_root``
    when given.  Returns {device, passed, failures: [str], seconds}."""
    import torch

    if kernels_root:
        os.environ["PYHIPATTN_KERNELS_DIR"] = kernels_root
    t0, failures, passed = time.time(), [], 0
    todo = make_cases(cases)
    for i, c in enumerate(todo):
        why = check_case(c)
        if why:
            failures.append(f"{case_id(c)}: {why}")
        else:
            passed += 1
        if progress and (i + 1) % 25 == 0:
            print(f"  sweep {i + 1}/{len(todo)}: {len(failures)} failed", file=progress, flush=True)
    return {"device": torch.cuda.get_device_name(), "passed": passed, "failures": failures,
            "seconds": round(time.time() - t0, 1)}
