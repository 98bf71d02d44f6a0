"""Reference attention with float64 accumulation: the oracle every numeric test uses.

Inputs may be numpy arrays (bf16 through ml_dtypes included) or torch tensors; a torch input
is computed in float64 on its own device (so GPU tests can check large shapes quickly), a
numpy input on the CPU.  The formulas are written once, over a tiny array namespace.

Semantics (the same as ``mha_fwd``):
- layout BSHD: q ``(b, sq, hq, d)``, k ``(b, sk, hk, d)``, v ``(b, sk, hk, dv)``;
  hq % hk == 0, query head ``h`` reads kv head ``h // (hq // hk)``.
- scores = softmax_scale * q.k; with ``softcap > 0``: ``softcap * tanh(scores / softcap)``.
- ``window = (left, right)``, -1 = unbounded; causal is ``(left, 0)``.  Aligned bottom-right
  (FlashAttention >= 2.1): query ``i`` may see key ``j`` iff
  ``i + sk - sq - left <= j <= i + sk - sq + right``.
- a row that sees no key gives output 0 and LSE -inf.
- LSE is the natural log of the sum of exp(scores) over the visible keys, ``(b, hq, sq)``.
- ALiBi (``alibi_slopes`` ``(hq,)`` or ``(b, hq)``, FlashAttention's semantics): the bias
  ``-slope * |i + sk - sq - j|`` is added to the scores after the softcap.
- sinks (``(hq,)``, gpt-oss): one logit per query head that joins the softmax denominator and
  carries no value: out = sum_j e^(s_j) v_j / (sum_j e^(s_j) + e^sink), LSE = log(sum_j e^(s_j)
  + e^sink); a row that sees no key gives output 0 and LSE = sink.
- KV caches (``attention_kvcache_ref``): sequence b attends to the first cache_seqlens[b]
  (+ appended) tokens of its cache, contiguous ``(b, seqlen_cache, hk, d)`` or paged
  ``(pages, page_size, hk, d)`` through ``block_table[b]``.
"""

from __future__ import annotations

import math

import numpy as np


class _Numpy:
    def f64(self, x):
        return np.asarray(x).astype(np.float64)

    def einsum(self, eq, a, b):
        return np.einsum(eq, a, b, optimize=True)

    def repeat(self, x, n, axis):
        return np.repeat(x, n, axis=axis)

    def amax(self, x):
        return x.max(axis=-1, keepdims=True)

    def rsum(self, x):
        return x.sum(axis=-1, keepdims=True)

    def arange(self, n, like):
        return np.arange(n)

    def full(self, shape, value, like):
        return np.full(shape, value, dtype=np.float64)

    tanh = staticmethod(np.tanh)
    exp = staticmethod(np.exp)
    log = staticmethod(np.log)
    where = staticmethod(np.where)
    isfinite = staticmethod(np.isfinite)


class _Torch:
    def __init__(self, torch):
        self.t = torch

    def f64(self, x):
        return x.to(self.t.float64)

    def einsum(self, eq, a, b):
        return self.t.einsum(eq, a, b)

    def repeat(self, x, n, axis):
        return x.repeat_interleave(n, dim=axis)

    def amax(self, x):
        return x.amax(dim=-1, keepdim=True)

    def rsum(self, x):
        return x.sum(dim=-1, keepdim=True)

    def arange(self, n, like):
        return self.t.arange(n, device=like.device)

    def full(self, shape, value, like):
        return self.t.full(shape, value, dtype=self.t.float64, device=like.device)

    def tanh(self, x):
        return self.t.tanh(x)

    def exp(self, x):
        return self.t.exp(x)

    def log(self, x):
        return self.t.log(x)

    def where(self, c, a, b):
        return self.t.where(c, a, b)

    def isfinite(self, x):
        return self.t.isfinite(x)


def _xp(x):
    if type(x).__module__.startswith("torch"):
        import torch

        return _Torch(torch)
    return _Numpy()


def visible_mask(sq: int, sk: int, window: tuple[int, int] = (-1, -1), causal: bool = False, *, like=None):
    """Boolean ``(sq, sk)``: True where query i may attend key j (bottom-right aligned).
    numpy unless ``like`` is a torch tensor (then a torch tensor on its device)."""
    xp = _xp(like) if like is not None else _Numpy()
    left, right = window
    if causal:
        right = 0 if right < 0 else min(right, 0)
    i = xp.arange(sq, like)[:, None] + (sk - sq)
    j = xp.arange(sk, like)[None, :]
    mask = (j >= 0) & (i > -(2**62))
    if right >= 0:
        mask = mask & (j <= i + right)
    if left >= 0:
        mask = mask & (j >= i - left)
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
    sinks=None,
    alibi_slopes=None,
):
    """Attention forward for one batch of equal-length sequences.

    q: ``(b, sq, hq, d)``, k: ``(b, sk, hk, d)``, v: ``(b, sk, hk, dv)``, any float dtype;
    sinks ``(hq,)`` and alibi_slopes ``(hq,)`` / ``(b, hq)`` optional (numpy inputs only).
    Returns ``(out, lse)``: out float64 ``(b, sq, hq, dv)``, lse float64 ``(b, hq, sq)``,
    numpy arrays for numpy inputs, torch tensors (on the inputs' device) for torch inputs.
    """
    xp = _xp(q)
    q, k, v = xp.f64(q), xp.f64(k), xp.f64(v)
    b, sq, hq, d = q.shape
    _, sk, hk, dv = v.shape
    if hq % hk:
        raise ValueError(f"k has {hk} heads, which does not divide q's {hq} heads")
    scale = 1.0 / math.sqrt(d) if softmax_scale is None else float(softmax_scale)
    g = hq // hk
    if sinks is not None or alibi_slopes is not None:
        return _serving_ref(q, k, v, scale, causal, window, softcap, sinks, alibi_slopes)
    if sk == 0 or sq == 0:
        return xp.full((b, sq, hq, dv), 0.0, q), xp.full((b, hq, sq), -math.inf, q)
    kk = xp.repeat(k, g, 2)  # (b, sk, hq, d)
    vv = xp.repeat(v, g, 2)
    s = xp.einsum("bqhd,bkhd->bhqk", q, kk) * scale
    if softcap > 0:
        s = softcap * xp.tanh(s / softcap)
    mask = visible_mask(sq, sk, window, causal, like=q if isinstance(xp, _Torch) else None)
    s = xp.where(mask[None, None], s, -math.inf)
    m = xp.amax(s)
    empty = ~xp.isfinite(m)
    m = xp.where(empty, 0.0, m)
    p = xp.exp(s - m)
    denom = xp.rsum(p)
    safe = xp.where(denom == 0, 1.0, denom)
    out = xp.einsum("bhqk,bkhd->bqhd", p / safe, vv)
    lse = xp.where(empty[..., 0], -math.inf, xp.log(safe[..., 0]) + m[..., 0])
    return out, lse


def _serving_ref(q, k, v, scale, causal, window, softcap, sinks, alibi_slopes):
    """attention_ref with sinks and / or ALiBi (numpy, float64)."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    b, sq, hq, _ = q.shape
    _, sk, hk, dv = v.shape
    g = hq // hk
    kk, vv = np.repeat(k, g, 2), np.repeat(v, g, 2)
    s = np.einsum("bqhd,bkhd->bhqk", q, kk, optimize=True) * scale
    if softcap > 0:
        s = softcap * np.tanh(s / softcap)
    if alibi_slopes is not None:
        slopes = np.broadcast_to(np.asarray(alibi_slopes, np.float64).reshape(-1, hq), (b, hq))
        dist = np.abs(np.arange(sq)[:, None] + sk - sq - np.arange(sk)[None, :])
        s = s - slopes[:, :, None, None] * dist[None, None]
    s = np.where(visible_mask(sq, sk, window, causal)[None, None], s, -math.inf)
    sink = (np.full(hq, -math.inf) if sinks is None else np.asarray(sinks, np.float64))[None, :, None, None]
    m = np.maximum(s.max(axis=-1, keepdims=True, initial=-math.inf), sink)
    empty = ~np.isfinite(m)
    m = np.where(empty, 0.0, m)
    p = np.exp(s - m)
    denom = p.sum(axis=-1, keepdims=True) + np.exp(sink - m)
    safe = np.where(denom == 0, 1.0, denom)
    out = np.einsum("bhqk,bkhd->bqhd", p / safe, vv, optimize=True)
    lse = np.where(denom[..., 0] == 0, -math.inf, np.log(safe[..., 0]) + m[..., 0])
    return out, lse


def attention_kvcache_ref(q, k_cache, v_cache, cache_seqlens, *, block_table=None, k_new=None, v_new=None,
                          alibi_slopes=None, **kw):
    """Attention of q ``(b, sq, hq, d)`` over KV caches, FlashAttention's
    ``flash_attn_with_kvcache`` semantics (numpy, float64).

    Caches: contiguous ``(b, seqlen_cache, hk, d)``, or paged ``(pages, page_size, hk, d)`` with
    ``block_table`` ``(b, max_pages)``.  ``k_new`` / ``v_new`` ``(b, n_new, hk, d)`` are first
    written at positions ``cache_seqlens[b] ..``; sequence b then attends to its first
    ``cache_seqlens[b] + n_new`` tokens.  Other keywords as ``attention_ref``.
    Returns ``(out, lse, k_cache, v_cache)``: the caches as the call leaves them (copies).
    """
    k_cache, v_cache = np.array(k_cache, copy=True), np.array(v_cache, copy=True)
    b = q.shape[0]
    lens = np.asarray(cache_seqlens).astype(np.int64)
    n_new = 0 if k_new is None else k_new.shape[1]

    def rows(i: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        pos = np.arange(n)
        if block_table is None:
            return np.full(n, i), pos
        ps = k_cache.shape[1]
        return np.asarray(block_table)[i, pos // ps], pos % ps

    if n_new:
        for i in range(b):
            pages, offs = rows(i, int(lens[i]) + n_new)
            pages, offs = pages[int(lens[i]):], offs[int(lens[i]):]
            k_cache[pages, offs] = np.asarray(k_new[i])
            v_cache[pages, offs] = np.asarray(v_new[i])
    outs, lses = [], []
    for i in range(b):
        pages, offs = rows(i, int(lens[i]) + n_new)
        ki, vi = k_cache[pages, offs][None], v_cache[pages, offs][None]
        slopes = None if alibi_slopes is None else np.asarray(alibi_slopes).reshape(-1, q.shape[2])[
            i if np.asarray(alibi_slopes).ndim == 2 else 0]
        o, l = attention_ref(q[i:i + 1], ki, vi, alibi_slopes=slopes, **kw)
        outs.append(np.asarray(o))
        lses.append(np.asarray(l))
    return np.concatenate(outs), np.concatenate(lses), k_cache, v_cache


def attention_varlen_ref(q, k, v, cu_seqlens_q, cu_seqlens_k, **kw):
    """Varlen attention: q ``(total_q, hq, d)``, k ``(total_k, hk, d)``, v ``(total_k, hk, dv)``,
    cu_seqlens ints ``(batch + 1,)``.  Returns out ``(total_q, hq, dv)`` and lse
    ``(hq, total_q)`` (float64), each sequence computed alone with ``attention_ref``.
    """
    xp = _xp(q)
    cq = [int(x) for x in cu_seqlens_q]
    ck = [int(x) for x in cu_seqlens_k]
    out = xp.full((q.shape[0], q.shape[1], v.shape[2]), 0.0, q)
    lse = xp.full((q.shape[1], q.shape[0]), -math.inf, q)
    for i in range(len(cq) - 1):
        q0, q1, k0, k1 = cq[i], cq[i + 1], ck[i], ck[i + 1]
        if q1 == q0:
            continue
        o, l = attention_ref(q[None, q0:q1], k[None, k0:k1], v[None, k0:k1], **kw)
        out[q0:q1] = o[0]
        lse[:, q0:q1] = l[0]
    return out, lse


def lse_error(lse, ref_lse) -> str | None:
    """Why the torch LSE ``lse`` (fp32, any shape) does not match the float64 reference ``ref_lse`` (the same shape):
    -inf at other rows than the reference's rows without keys (a NaN, an unwritten row, counts as not -inf), or a finite
    row off by more than rtol 1e-3 / atol 2e-3; None when it matches."""
    import torch

    if not torch.equal(torch.isneginf(lse), torch.isneginf(ref_lse)):
        return "lse is -inf at other rows than the reference's rows without keys"
    fin = torch.isfinite(ref_lse)
    if fin.any() and not torch.allclose(lse[fin].double(), ref_lse[fin], rtol=1e-3, atol=2e-3):
        return f"lse differs by up to {float((lse[fin].double() - ref_lse[fin]).abs().max()):.3e}"
    return None


def rel_error(x, ref) -> float:
    """Relative Frobenius error ``||x - ref|| / ||ref||`` in float64 (inf where x has NaN)."""
    if type(x).__module__.startswith("torch") or type(ref).__module__.startswith("torch"):
        import torch

        x = torch.as_tensor(x).to(torch.float64)
        ref = torch.as_tensor(ref, device=x.device).to(torch.float64)
        if torch.isnan(x).any():
            return float("inf")
        n = float(torch.linalg.vector_norm(ref))
        return float(torch.linalg.vector_norm(x - ref)) / (n if n > 0 else 1.0)
    x, ref = np.asarray(x).astype(np.float64), np.asarray(ref).astype(np.float64)
    if np.isnan(x).any():
        return float("inf")
    n = np.linalg.norm(ref)
    return float(np.linalg.norm(x - ref) / (n if n > 0 else 1.0))
