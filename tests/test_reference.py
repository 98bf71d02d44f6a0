"""The numpy reference against a direct per-row loop (written independently) and known cases."""

import math

import numpy as np
import pytest

from pyhipattn.reference import attention_ref, attention_varlen_ref, rel_error, visible_mask


def loop_attention(q, k, v, scale, window, causal, softcap):
    b, sq, hq, d = q.shape
    sk, hk, dv = k.shape[1], k.shape[2], v.shape[3]
    out = np.zeros((b, sq, hq, dv))
    lse = np.full((b, hq, sq), -np.inf)
    left, right = window
    if causal:
        right = 0
    for bi in range(b):
        for h in range(hq):
            kh = h // (hq // hk)
            for i in range(sq):
                keys = [j for j in range(sk)
                        if (right < 0 or j <= i + sk - sq + right) and (left < 0 or j >= i + sk - sq - left)]
                if not keys:
                    continue
                s = []
                for j in keys:
                    x = scale * float(np.dot(q[bi, i, h], k[bi, j, kh]))
                    s.append(softcap * math.tanh(x / softcap) if softcap > 0 else x)
                m = max(s)
                w = [math.exp(x - m) for x in s]
                z = sum(w)
                lse[bi, h, i] = m + math.log(z)
                out[bi, i, h] = sum(wi * v[bi, j, kh] for wi, j in zip(w, keys)) / z
    return out, lse


@pytest.mark.parametrize("sq,sk", [(1, 1), (3, 7), (7, 3), (5, 5), (1, 13)])
@pytest.mark.parametrize("causal,window,softcap", [(False, (-1, -1), 0.0), (True, (-1, -1), 0.0),
                                                   (False, (2, 1), 0.0), (True, (3, -1), 0.0), (False, (-1, -1), 5.0)])
def test_reference_matches_direct_loop(sq, sk, causal, window, softcap):
    rng = np.random.default_rng(sq * 100 + sk)
    q = rng.standard_normal((2, sq, 4, 8))
    k = rng.standard_normal((2, sk, 2, 8))
    v = rng.standard_normal((2, sk, 2, 6))
    out, lse = attention_ref(q, k, v, softmax_scale=0.3, causal=causal, window=window, softcap=softcap)
    ref_o, ref_l = loop_attention(q, k, v, 0.3, window, causal, softcap)
    np.testing.assert_allclose(out, ref_o, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.isinf(lse), np.isinf(ref_l))
    fin = np.isfinite(ref_l)
    np.testing.assert_allclose(lse[fin], ref_l[fin], rtol=1e-12)


def test_rows_without_keys_give_zero_and_minus_inf():
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal((1, 6, 1, 4)), rng.standard_normal((1, 2, 1, 4)), rng.standard_normal((1, 2, 1, 4))
    out, lse = attention_ref(q, k, v, causal=True)   # bottom-right: the first 4 rows see nothing
    assert np.all(out[0, :4] == 0) and np.all(np.isneginf(lse[0, 0, :4]))
    assert np.all(np.isfinite(lse[0, 0, 4:]))


def test_causal_mask_is_bottom_right_aligned():
    m = visible_mask(2, 4, causal=True)
    assert m.tolist() == [[True, True, True, False], [True, True, True, True]]


def test_varlen_equals_per_sequence_batches_with_empty_sequences():
    rng = np.random.default_rng(2)
    lens_q, lens_k = [3, 0, 5], [4, 2, 0]
    cq, ck = np.cumsum([0] + lens_q), np.cumsum([0] + lens_k)
    q = rng.standard_normal((cq[-1], 2, 8))
    k = rng.standard_normal((ck[-1], 1, 8))
    v = rng.standard_normal((ck[-1], 1, 8))
    out, lse = attention_varlen_ref(q, k, v, cq, ck, causal=True)
    o0, l0 = attention_ref(q[None, :3], k[None, :4], v[None, :4], causal=True)
    np.testing.assert_allclose(out[:3], o0[0])
    assert np.all(out[3:] == 0) and np.all(np.isneginf(lse[:, 3:]))   # sequence 2 has no keys


def test_rel_error_flags_nan():
    assert rel_error(np.array([np.nan, 1.0]), np.array([1.0, 1.0])) == float("inf")
    assert rel_error(np.array([1.0, 1.0]), np.array([1.0, 1.0])) == 0.0


def test_torch_inputs_give_the_same_result_as_numpy():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    q, k, v = rng.standard_normal((2, 5, 4, 8)), rng.standard_normal((2, 9, 2, 8)), rng.standard_normal((2, 9, 2, 8))
    kw = dict(softmax_scale=0.2, causal=True, window=(3, -1), softcap=4.0)
    o_np, l_np = attention_ref(q, k, v, **kw)
    o_t, l_t = attention_ref(torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), **kw)
    np.testing.assert_allclose(o_t.numpy(), o_np, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.isinf(l_t.numpy()), np.isinf(l_np))


def test_lse_error_names_each_mismatch():
    torch = pytest.importorskip("torch")
    from pyhipattn.reference import lse_error

    ref = torch.tensor([[1.0, float("-inf"), 3.0]], dtype=torch.float64)
    assert lse_error(ref.float(), ref) is None
    assert "-inf at other rows" in lse_error(torch.tensor([[1.0, 0.0, 3.0]]), ref)
    assert "-inf at other rows" in lse_error(torch.tensor([[1.0, float("nan"), 3.0]]), ref)   # unwritten row
    assert "differs by up to 1.000e-01" in lse_error(torch.tensor([[1.1, float("-inf"), 3.0]]), ref)
