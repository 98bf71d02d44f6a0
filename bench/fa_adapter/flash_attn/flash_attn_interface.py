"""FlashAttention's public forward calls mapped onto pyhipattn (bench/fa_adapter/README.md).

Each call runs pyhipattn's forward.  When an input requires grad, the output also carries the
gradient of a float32 PyTorch attention on the same inputs (``ours + (ref - ref.detach())``:
the value is exactly ours), because FlashAttention's tests check gradients too and pyhipattn is
forward only.  What pyhipattn does not do is skipped with its reason.
"""

from __future__ import annotations

import math

import pytest
import torch

import pyhipattn

USE_TRITON_ROCM = False


def _get_block_size_n(device, head_dim, is_dropout, causal):
    return 64        # only used for dropout masks, which pyhipattn does not produce


def _check(dropout_p=0.0, return_attn_probs=False):
    if dropout_p:
        pytest.skip("pyhipattn: dropout is not supported (inference forward only)")
    if return_attn_probs:
        pytest.skip("pyhipattn: returning attention probabilities is not supported")


def _aligned(x):
    return x if x.data_ptr() % 16 == 0 else x.contiguous()


def _reference(q, k, v, scale, causal, window, softcap, slopes):
    """float32 attention, q (1 or b, sq, hq, d); differentiable; rows without keys give 0."""
    sq, hq, sk, hk = q.shape[1], q.shape[2], k.shape[1], k.shape[2]
    kk = k.float().repeat_interleave(hq // hk, dim=2)
    vv = v.float().repeat_interleave(hq // hk, dim=2)
    s = torch.einsum("bqhd,bkhd->bhqk", q.float(), kk) * scale
    if softcap > 0:
        s = softcap * torch.tanh(s / softcap)
    i = torch.arange(sq, device=q.device)[:, None] + (sk - sq)
    j = torch.arange(sk, device=q.device)[None, :]
    if slopes is not None:
        sl = slopes.float().reshape(-1, hq)[:, :, None, None]
        s = s - sl * (i - j).abs()
    left, right = window
    if causal:
        right = 0
    visible = torch.ones(sq, sk, dtype=torch.bool, device=q.device)
    if left >= 0:
        visible &= j >= i - left
    if right >= 0:
        visible &= j <= i + right
    s = s.masked_fill(~visible, -1e30)
    p = torch.softmax(s, dim=-1) * visible.any(-1)[:, None].to(s.dtype)
    return torch.einsum("bhqk,bkhd->bqhd", p, vv)


def _with_grad(out, inputs, make_ref):
    if not any(t.requires_grad for t in inputs):
        return out
    ref = make_ref()
    return out + (ref - ref.detach()).to(out.dtype)


def _scale(scale, d):
    return scale if scale is not None else 1.0 / math.sqrt(d)


def flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0,
                    alibi_slopes=None, deterministic=False, return_attn_probs=False):
    _check(dropout_p, return_attn_probs)
    out = pyhipattn.mha_fwd(_aligned(q.detach()), _aligned(k.detach()), _aligned(v.detach()),
                            softmax_scale=softmax_scale, causal=causal, window_size=tuple(window_size), softcap=softcap,
                            alibi_slopes=alibi_slopes)
    scale = _scale(softmax_scale, q.shape[-1])
    return _with_grad(out, (q, k, v), lambda: _reference(q, k, v, scale, causal, tuple(window_size), softcap,
                                                          alibi_slopes))


def flash_attn_qkvpacked_func(qkv, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0,
                              alibi_slopes=None, deterministic=False, return_attn_probs=False):
    return flash_attn_func(qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2], dropout_p, softmax_scale, causal, window_size,
                           softcap, alibi_slopes, deterministic, return_attn_probs)


def flash_attn_kvpacked_func(q, kv, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1),
                             softcap=0.0, alibi_slopes=None, deterministic=False, return_attn_probs=False):
    return flash_attn_func(q, kv[:, :, 0], kv[:, :, 1], dropout_p, softmax_scale, causal, window_size, softcap,
                           alibi_slopes, deterministic, return_attn_probs)


def flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p=0.0,
                           softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0, alibi_slopes=None,
                           deterministic=False, return_attn_probs=False, block_table=None):
    _check(dropout_p, return_attn_probs)
    if block_table is not None:
        pytest.skip("pyhipattn: paged KV in the varlen call is not supported (use mha_fwd_kvcache)")
    out = pyhipattn.mha_varlen_fwd(_aligned(q.detach()), _aligned(k.detach()), _aligned(v.detach()), cu_seqlens_q,
                                   cu_seqlens_k, int(max_seqlen_q), int(max_seqlen_k), softmax_scale=softmax_scale,
                                   causal=causal, window_size=tuple(window_size), softcap=softcap,
                                   alibi_slopes=alibi_slopes)
    scale = _scale(softmax_scale, q.shape[-1])

    def ref():
        cq, ck = cu_seqlens_q.tolist(), cu_seqlens_k.tolist()
        parts = []
        for b in range(len(cq) - 1):
            sl = None if alibi_slopes is None else alibi_slopes.reshape(-1, q.shape[1])[b if alibi_slopes.dim() == 2 else 0]
            parts.append(_reference(q[None, cq[b]:cq[b + 1]], k[None, ck[b]:ck[b + 1]], v[None, ck[b]:ck[b + 1]], scale,
                                    causal, tuple(window_size), softcap, sl)[0])
        return torch.cat(parts)
    return _with_grad(out, (q, k, v), ref)


def flash_attn_varlen_qkvpacked_func(qkv, cu_seqlens, max_seqlen, dropout_p=0.0, softmax_scale=None, causal=False,
                                     window_size=(-1, -1), softcap=0.0, alibi_slopes=None, deterministic=False,
                                     return_attn_probs=False):
    return flash_attn_varlen_func(qkv[:, 0], qkv[:, 1], qkv[:, 2], cu_seqlens, cu_seqlens, max_seqlen, max_seqlen,
                                  dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes, deterministic,
                                  return_attn_probs)


def flash_attn_varlen_kvpacked_func(q, kv, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p=0.0,
                                    softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0,
                                    alibi_slopes=None, deterministic=False, return_attn_probs=False):
    return flash_attn_varlen_func(q, kv[:, 0], kv[:, 1], cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                                  dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes, deterministic,
                                  return_attn_probs)


def flash_attn_with_kvcache(q, k_cache, v_cache, k=None, v=None, rotary_cos=None, rotary_sin=None, cache_seqlens=None,
                            cache_batch_idx=None, cache_leftpad=None, block_table=None, softmax_scale=None,
                            causal=False, window_size=(-1, -1), softcap=0.0, rotary_interleaved=True,
                            alibi_slopes=None, num_splits=0, return_softmax_lse=False):
    if rotary_cos is not None:
        pytest.skip("pyhipattn: rotary embeddings are not supported")
    if cache_batch_idx is not None:
        pytest.skip("pyhipattn: cache_batch_idx is not supported")
    if cache_leftpad is not None:
        pytest.skip("pyhipattn: cache_leftpad is not supported")
    if q.shape[-1] % 8 or v_cache.shape[-1] % 8:
        pytest.skip("pyhipattn: KV caches need head dims that are multiples of 8 (a cache cannot be padded in place)")
    if isinstance(cache_seqlens, int):
        cache_seqlens = torch.full((q.shape[0],), cache_seqlens, dtype=torch.int32, device=q.device)
    return pyhipattn.mha_fwd_kvcache(q, k_cache, v_cache, cache_seqlens=cache_seqlens, block_table=block_table,
                                     k_new=k, v_new=v, softmax_scale=softmax_scale, causal=causal,
                                     window_size=tuple(window_size), softcap=softcap, alibi_slopes=alibi_slopes,
                                     num_splits=num_splits, return_lse=return_softmax_lse)
