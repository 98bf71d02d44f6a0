"""Sinks and ALiBi on mha_fwd and mha_varlen_fwd on the GPU against the float64 reference
(issue 13): batch and varlen, causal and not, GQA/MQA, slopes (hq,) and (batch, hq); and the
kvcache call from CuPy arrays."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import pyhipattn  # noqa: E402
from pyhipattn.reference import attention_kvcache_ref, attention_ref, attention_varlen_ref, rel_error  # noqa: E402

TDT = {"bf16": torch.bfloat16, "fp16": torch.float16}
TOL = {"bf16": 1e-2, "fp16": 2e-3}

BATCH = [  # (b, sq, sk, hq, hk, d, causal, sinks, alibi, dtype)
    (2, 128, 128, 8, 8, 64, True, False, 1, "bf16"),
    (2, 77, 300, 16, 4, 128, False, True, 2, "fp16"),
    (1, 300, 77, 8, 1, 128, True, True, 1, "bf16"),
    (3, 1, 1000, 32, 8, 128, True, True, 0, "bf16"),
    (2, 64, 64, 4, 2, 256, False, False, 2, "fp16"),
]


@pytest.mark.gpu
@pytest.mark.parametrize("b,sq,sk,hq,hk,d,causal,sinks,alibi,dtype", BATCH)
def test_mha_fwd_sinks_alibi(b, sq, sk, hq, hk, d, causal, sinks, alibi, dtype):
    g = torch.Generator().manual_seed(b * 1000 + sq + sk)
    q, k, v = (torch.randn(b, s, h, d, generator=g) for s, h in ((sq, hq), (sk, hk), (sk, hk)))
    sk_ = torch.randn(hq, generator=g) * 2 if sinks else None
    sl = (torch.rand(hq if alibi == 1 else (b, hq), generator=g) * 0.2) if alibi else None
    dev = lambda t: None if t is None else t.cuda()  # noqa: E731
    dt = TDT[dtype]
    out, lse = pyhipattn.mha_fwd(q.to(dt).cuda(), k.to(dt).cuda(), v.to(dt).cuda(), causal=causal, sinks=dev(sk_),
                                 alibi_slopes=dev(sl), return_lse=True)
    torch.cuda.synchronize()
    f = lambda t: None if t is None else t.to(dt).float().numpy() if t.dim() == 4 else t.numpy()  # noqa: E731
    ro, rl = attention_ref(f(q), f(k), f(v), causal=causal, sinks=f(sk_), alibi_slopes=f(sl))
    assert rel_error(out.float().cpu().numpy(), ro) <= TOL[dtype]
    fin = np.isfinite(rl)
    assert np.allclose(lse.cpu().numpy()[fin], rl[fin], rtol=1e-3, atol=2e-3)


@pytest.mark.gpu
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("hq,hk", [(8, 8), (8, 2), (8, 1)])
def test_mha_varlen_fwd_sinks_alibi(causal, hq, hk):
    g = torch.Generator().manual_seed(hq * 10 + hk + causal)
    lq, lk = [5, 0, 130, 1, 64], [70, 3, 130, 400, 64]
    cq = torch.tensor(np.concatenate([[0], np.cumsum(lq)]), dtype=torch.int32)
    ck = torch.tensor(np.concatenate([[0], np.cumsum(lk)]), dtype=torch.int32)
    d, dt = 128, torch.bfloat16
    q = torch.randn(int(cq[-1]), hq, d, generator=g).to(dt)
    k = torch.randn(int(ck[-1]), hk, d, generator=g).to(dt)
    v = torch.randn(int(ck[-1]), hk, d, generator=g).to(dt)
    sinks = torch.randn(hq, generator=g)
    slopes = torch.rand(hq, generator=g) * 0.2
    out = pyhipattn.mha_varlen_fwd(q.cuda(), k.cuda(), v.cuda(), cq.cuda(), ck.cuda(), max(lq), max(lk),
                                   causal=causal, sinks=sinks.cuda(), alibi_slopes=slopes.cuda(), check_inputs=True)
    torch.cuda.synchronize()
    ro, _ = attention_varlen_ref(q.float().numpy(), k.float().numpy(), v.float().numpy(), cq.numpy(), ck.numpy(),
                                 causal=causal, sinks=sinks.numpy(), alibi_slopes=slopes.numpy())
    assert rel_error(out.float().cpu().numpy(), ro) <= TOL["bf16"]


@pytest.mark.gpu
def test_kvcache_from_cupy_appends_and_matches():
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(3)
    b, sq, hq, hk, d, page, per = 3, 2, 16, 4, 128, 64, 6
    pages = b * per + 2
    kc = rng.standard_normal((pages, page, hk, d)).astype(np.float16)
    vc = rng.standard_normal((pages, page, hk, d)).astype(np.float16)
    bt = rng.permutation(pages)[:b * per].reshape(b, per).astype(np.int32)
    lens = np.array([0, 200, page * per - 2], np.int32)
    q = rng.standard_normal((b, sq, hq, d)).astype(np.float16)
    kn = rng.standard_normal((b, 2, hk, d)).astype(np.float16)
    vn = rng.standard_normal((b, 2, hk, d)).astype(np.float16)
    sinks = rng.standard_normal(hq).astype(np.float32)
    g = {n: cupy.asarray(a) for n, a in dict(q=q, kc=kc, vc=vc, bt=bt, lens=lens, kn=kn, vn=vn, sinks=sinks).items()}
    out = pyhipattn.mha_fwd_kvcache(g["q"], g["kc"], g["vc"], cache_seqlens=g["lens"], block_table=g["bt"],
                                    k_new=g["kn"], v_new=g["vn"], causal=True, sinks=g["sinks"], check_inputs=True)
    cupy.cuda.Device().synchronize()
    assert isinstance(out, cupy.ndarray) and out.shape == (b, sq, hq, d)
    f = lambda a: a.astype(np.float32)  # noqa: E731
    ro, _, rk, rv = attention_kvcache_ref(f(q), f(kc), f(vc), lens, block_table=bt, k_new=f(kn), v_new=f(vn),
                                          causal=True, sinks=sinks)
    assert rel_error(cupy.asnumpy(out).astype(np.float32), ro) <= TOL["fp16"]
    assert np.array_equal(cupy.asnumpy(g["kc"]), rk.astype(np.float16))
    assert np.array_equal(cupy.asnumpy(g["vc"]), rv.astype(np.float16))
