"""mha_fwd numerics on the GPU against the float64 reference (the rules: pyhipattn/tools/sweep.py).

Every case draws fresh inputs and poisons the output before the call; forced splits must
equal the unsplit result; varlen with uneven and zero lengths; inputs from cupy and jax.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import pyhipattn  # noqa: E402
from pyhipattn.tools import sweep  # noqa: E402
from pyhipattn.reference import attention_ref, attention_varlen_ref, rel_error  # noqa: E402

ABS_TOL = sweep.ABS_TOL
TDT = {"bf16": torch.bfloat16, "fp16": torch.float16}
_inputs = sweep.case_inputs


@pytest.mark.gpu
@pytest.mark.parametrize("case", sweep.make_cases(150), ids=sweep.case_id)
def test_mha_fwd_matches_reference(case):
    why = sweep.check_case(case)
    assert why is None, why


@pytest.mark.gpu
@pytest.mark.parametrize("splits", [2, 3, 4, 7, 8, 16])
@pytest.mark.parametrize("shape", [(1, 1, 8, 2, 4097, 128), (2, 17, 8, 8, 1000, 64), (1, 129, 8, 1, 255, 96)])
def test_forced_splits_equal_unsplit(splits, shape):
    b, sq, hq, hk, sk, d = shape
    c = dict(b=b, sq=sq, sk=sk, hq=hq, hk=hk, d=d, dv=d, dtype="bf16", seed=splits * 7 + sq)
    q, k, v = _inputs(c)
    base, lse0 = pyhipattn.mha_fwd(q, k, v, causal=True, num_splits=1, return_lse=True)
    split, lse1 = pyhipattn.mha_fwd(q, k, v, causal=True, num_splits=splits, return_lse=True)
    ref, _ = attention_ref(q, k, v, causal=True)
    assert rel_error(split, base) <= 5e-3
    assert rel_error(split, ref) <= ABS_TOL["bf16"]
    fin = torch.isfinite(lse0)
    assert torch.equal(fin, torch.isfinite(lse1)) and torch.allclose(lse0[fin], lse1[fin], atol=1e-3)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
@pytest.mark.parametrize("causal", [False, True])
def test_varlen_uneven_and_zero_lengths(dtype, causal):
    lens_q = [5, 0, 129, 1, 1000, 3]
    lens_k = [7, 3, 0, 4097, 999, 3]
    cq = torch.tensor([0] + list(torch.tensor(lens_q).cumsum(0)), dtype=torch.int32, device="cuda")
    ck = torch.tensor([0] + list(torch.tensor(lens_k).cumsum(0)), dtype=torch.int32, device="cuda")
    hq, hk, d = 8, 2, 80
    g = torch.Generator(device="cuda").manual_seed(7)
    dt = TDT[dtype]
    q = torch.randn(sum(lens_q), hq, d, device="cuda", dtype=dt, generator=g)
    k = torch.randn(sum(lens_k), hk, d, device="cuda", dtype=dt, generator=g)
    v = torch.randn(sum(lens_k), hk, d, device="cuda", dtype=dt, generator=g)
    out = torch.full((sum(lens_q), hq, d), float("nan"), device="cuda", dtype=dt)
    _, lse = pyhipattn.mha_varlen_fwd(q, k, v, cq, ck, max(lens_q), max(lens_k), causal=causal, out=out, return_lse=True)
    torch.cuda.synchronize()
    assert not torch.isnan(out).any()
    ref, ref_lse = attention_varlen_ref(q, k, v, cq.tolist(), ck.tolist(), causal=causal)
    assert rel_error(out, ref) <= ABS_TOL[dtype]
    assert torch.equal(torch.isneginf(lse), torch.isneginf(ref_lse))


@pytest.mark.gpu
@pytest.mark.parametrize("framework", ["cupy", "jax"])
def test_inputs_from_other_frameworks(framework):
    mod = pytest.importorskip(framework)
    c = dict(b=2, sq=127, sk=255, hq=8, hk=2, d=64, dv=64, dtype="fp16", seed=77)
    q, k, v = _inputs(c)
    if framework == "cupy":
        conv = mod.from_dlpack
    else:
        import jax.dlpack

        conv = jax.dlpack.from_dlpack
    torch.cuda.synchronize()
    qx, kx, vx = conv(q), conv(k), conv(v)
    out = pyhipattn.mha_fwd(qx, kx, vx, causal=True)
    assert type(out).__module__.split(".")[0] in (framework, "jaxlib")
    back = torch.from_dlpack(out)
    torch.cuda.synchronize()
    ref, _ = attention_ref(q, k, v, causal=True)
    assert rel_error(back, ref) <= ABS_TOL["fp16"]


@pytest.mark.gpu
@pytest.mark.parametrize("d,dv", [(36, 36), (20, 52), (1, 8), (100, 100)])
def test_head_dims_not_multiple_of_8_are_padded_and_sliced_back(d, dv):
    g = torch.Generator(device="cuda").manual_seed(d * 1000 + dv)
    q = torch.randn(2, 33, 8, d, device="cuda", dtype=torch.bfloat16, generator=g)
    k = torch.randn(2, 65, 2, d, device="cuda", dtype=torch.bfloat16, generator=g)
    v = torch.randn(2, 65, 2, dv, device="cuda", dtype=torch.bfloat16, generator=g)
    out = torch.full((2, 33, 8, dv), float("nan"), device="cuda", dtype=torch.bfloat16)
    res, lse = pyhipattn.mha_fwd(q, k, v, causal=True, out=out, return_lse=True)
    assert res is out and res.shape == (2, 33, 8, dv)
    ref, ref_lse = attention_ref(q, k, v, causal=True)    # scale 1/sqrt(d) of the original d
    assert rel_error(out, ref) <= ABS_TOL["bf16"]
    assert torch.allclose(lse.double(), ref_lse, atol=2e-3, rtol=1e-3)


@pytest.mark.gpu
def test_repeated_torch_calls_take_the_fast_path_and_stay_correct():
    from pyhipattn import fastpath

    q, k, v = _inputs(dict(b=2, sq=1, sk=3000, hq=8, hk=2, d=128, dv=128, dtype="bf16", seed=5))
    first = pyhipattn.mha_fwd(q, k, v)
    n = len(fastpath.CACHE)
    for i in range(3):                      # same signature, new values each time
        q2, k2, v2 = torch.randn_like(q), torch.randn_like(k), torch.randn_like(v)
        o = pyhipattn.mha_fwd(q2, k2, v2)
        ref, _ = attention_ref(q2, k2, v2)
        assert rel_error(o, ref) <= ABS_TOL["bf16"]
    assert len(fastpath.CACHE) == n and first.shape == (2, 1, 8, 128)
