"""bench/fa_adapter (FlashAttention's tests against pyhipattn): the stand-in's float32 reference,
which only supplies gradients, agrees with pyhipattn.reference; padding helpers round-trip."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed")
pytest.importorskip("pyhipattn")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "fa_adapter"))
from flash_attn import bert_padding, flash_attn_interface as fai  # noqa: E402

from pyhipattn import reference  # noqa: E402


@pytest.mark.parametrize("kw", [dict(), dict(causal=True), dict(window=(3, 1)), dict(softcap=2.0),
                                dict(slopes=True, causal=True)])
@pytest.mark.parametrize("sq,sk", [(5, 9), (9, 5)])
def test_reference_matches_pyhipattns(kw, sq, sk):
    g = torch.Generator().manual_seed(sq * 10 + sk)
    q, k, v = (torch.randn(2, n, h, 16, generator=g) for n, h in ((sq, 6), (sk, 3), (sk, 3)))
    slopes = torch.rand(2, 6, generator=g) if kw.get("slopes") else None
    causal, window, softcap = kw.get("causal", False), kw.get("window", (-1, -1)), kw.get("softcap", 0.0)
    got = fai._reference(q, k, v, 0.25, causal, window, softcap, slopes)
    win = (window[0], 0) if causal else window
    want, _ = reference.attention_ref(q.double().numpy(), k.double().numpy(), v.double().numpy(), softmax_scale=0.25,
                                      window=win, softcap=softcap,
                                      alibi_slopes=None if slopes is None else slopes.double().numpy())
    np.testing.assert_allclose(got.numpy(), want, atol=1e-5)


def test_gradient_trick_keeps_the_value_exactly():
    q = torch.randn(1, 3, 2, 8, requires_grad=True)
    ours = torch.randn(1, 3, 2, 8).to(torch.bfloat16)
    out = fai._with_grad(ours, (q,), lambda: q * 3)
    assert torch.equal(out, ours) and out.requires_grad
    (dq,) = torch.autograd.grad(out.float().sum(), q)
    assert torch.equal(dq, torch.full_like(q, 3.0))


def test_unpad_pad_round_trip():
    x = torch.arange(2 * 4 * 3, dtype=torch.float32).reshape(2, 4, 3)
    mask = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 0]], dtype=torch.bool)
    rows, idx, cu, longest, used = bert_padding.unpad_input(x, mask)
    assert rows.shape == (5, 3) and cu.tolist() == [0, 2, 5] and longest == 3 and used.tolist() == [2, 3]
    back = bert_padding.pad_input(rows, idx, 2, 4)
    assert torch.equal(back[mask], x[mask]) and torch.all(back[~mask] == 0)
