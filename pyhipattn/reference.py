"""Reference attention in numpy with float64 accumulation: the oracle every numeric test uses.

Semantics (the same as ``mha_fwd``):
- layout BSHD: q ``(b, sq, hq, d)``, k ``(b, sk, hk, d)``, v ``(b, sk, hk, dv)``;
  hq % hk == 0, query head ``h`` reads kv head ``h // (hq // hk)``.
- scores = softmax_scale * q.k; with ``softcap > 0``: ``softcap * tanh(scores / softcap)``.
- ``window = (left, right)``, -1 = unbounded; causal is ``(left, 0)``.  Aligned bottom-right
  (FlashAttention >= 2.1): query ``i`` may see key ``j`` iff
  ``i + sk - sq - left <= j <= i + sk - sq + right``.
- a row that sees no key gives output 0 and LSE -inf.
- LSE is the natural log of the sum of exp(scores) over the visible keys, float32 ``(b, hq, sq)``.
"""

from __future__ import annotations

import numpy as np


def _as_f64(x) -> np.ndarray:
    return np.asarray(x).astype(np.float64)


def visible_mask(sq: int, sk: int, window: tuple[int, int] = (-1, -1), causal: bool = False) -> np.ndarray:
    """Boolean ``(sq, sk)``: True where query i may attend key j (bottom-right aligned)."""
    left, right = window
    if causal:
        right = 0 if right < 0 else min(right, 0)
    i = np.arange(sq)[:, None] + (sk - sq)
    j = np.arange(sk)[None, :]
    mask = np.ones((sq, sk), dtype=bool)
    if right >= 0:
        mask &= j <= i + right
    if left >= 0:
        mask &= j >= i - left
    return mask


def attention_ref(
    q,
    k,
    v,
    *,
    softmax_scale: float | None = None,
    causal: bool = False,
    window: tuple[int, int] = (-1, -1),
    softcap: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Attention forward for one batch of equal-length sequences.

    q: ``(b, sq, hq, d)``, k: ``(b, sk, hk, d)``, v: ``(b, sk, hk, dv)``, any float dtype
    (bf16 via ml_dtypes included).  Returns ``(out, lse)``: out float64 ``(b, sq, hq, dv)``,
    lse float64 ``(b, hq, sq)``.
    """
    q, k, v = _as_f64(q), _as_f64(k), _as_f64(v)
    b, sq, hq, d = q.shape
    _, sk, hk, dv = v.shape
    if hq % hk:
        raise ValueError(f"k has {hk} heads, which does not divide q's {hq} heads")
    scale = 1.0 / np.sqrt(d) if softmax_scale is None else float(softmax_scale)
    g = hq // hk
    if sk == 0:
        return np.zeros((b, sq, hq, dv)), np.full((b, hq, sq), -np.inf)
    kk = np.repeat(k, g, axis=2)  # (b, sk, hq, d)
    vv = np.repeat(v, g, axis=2)
    s = np.einsum("bqhd,bkhd->bhqk", q, kk) * scale
    if softcap > 0:
        s = softcap * np.tanh(s / softcap)
    mask = visible_mask(sq, sk, window, causal)
    s = np.where(mask[None, None], s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    empty = ~np.isfinite(m)
    m = np.where(empty, 0.0, m)
    p = np.exp(s - m)
    denom = p.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.einsum("bhqk,bkhd->bqhd", np.where(empty, 0.0, p / np.where(denom == 0, 1, denom)), vv)
        lse = np.where(empty[..., 0], -np.inf, np.log(np.where(denom[..., 0] == 0, 1, denom[..., 0])) + m[..., 0])
    return out, lse


def attention_varlen_ref(
    q,
    k,
    v,
    cu_seqlens_q,
    cu_seqlens_k,
    **kw,
) -> tuple[np.ndarray, np.ndarray]:
    """Varlen attention: q ``(total_q, hq, d)``, k ``(total_k, hk, d)``, v ``(total_k, hk, dv)``,
    cu_seqlens int ``(batch + 1,)``.  Returns out ``(total_q, hq, dv)`` and lse ``(hq, total_q)``
    (float64), each sequence computed alone with ``attention_ref``.
    """
    q, k, v = _as_f64(q), _as_f64(k), _as_f64(v)
    cq, ck = np.asarray(cu_seqlens_q), np.asarray(cu_seqlens_k)
    out = np.zeros(q.shape[:2] + (v.shape[2],))
    lse = np.full((q.shape[1], q.shape[0]), -np.inf)
    for i in range(len(cq) - 1):
        q0, q1, k0, k1 = int(cq[i]), int(cq[i + 1]), int(ck[i]), int(ck[i + 1])
        if q1 == q0:
            continue
        o, l = attention_ref(q[None, q0:q1], k[None, k0:k1], v[None, k0:k1], **kw)
        out[q0:q1] = o[0]
        lse[:, q0:q1] = l[0]
    return out, lse


def rel_error(x, ref) -> float:
    """Relative Frobenius error ``||x - ref|| / ||ref||`` in float64 (inf where x has NaN)."""
    x, ref = _as_f64(x), _as_f64(ref)
    if np.isnan(x).any():
        return float("inf")
    n = np.linalg.norm(ref)
    return float(np.linalg.norm(x - ref) / (n if n > 0 else 1.0))
