"""PyTorch custom ops: ``torch.ops.pyhipattn.mha_fwd``, ``mha_varlen_fwd`` and ``mha_fwd_kvcache``.

    import pyhipattn.torch_ops               # registers the ops (this import imports torch)
    out, lse = torch.ops.pyhipattn.mha_fwd(q, k, v, causal=True)
    out = pyhipattn.torch_ops.mha_fwd(q, k, v, causal=True)        # FlashAttention-style wrapper

Registration is explicit: ``import pyhipattn`` never imports torch, and this module is the one
place that does.  The ops are ``torch.library.custom_op``s with fake (meta) implementations,
so ``torch.compile(fullgraph=True)`` traces through them without running them, and
``torch.cuda.graph`` / CUDAGraph capture and replay them.

Schema (fixed outputs, as custom ops need them):

    pyhipattn::mha_fwd(Tensor q, Tensor k, Tensor v, float? softmax_scale=None, *,
        bool causal=False, int window_left=-1, int window_right=-1, float softcap=0.,
        bool return_lse=False, int num_splits=0) -> (Tensor out, Tensor lse)
    pyhipattn::mha_varlen_fwd(Tensor q, Tensor k, Tensor v, Tensor cu_seqlens_q,
        Tensor cu_seqlens_k, int max_seqlen_q, int max_seqlen_k, float? softmax_scale=None, *,
        ...same keywords...) -> (Tensor out, Tensor lse)

    pyhipattn::mha_fwd_kvcache(Tensor q, Tensor(a!) k_cache, Tensor(b!) v_cache, Tensor? cache_seqlens,
        Tensor? block_table, Tensor? k_new, Tensor? v_new, Tensor? sinks, Tensor? alibi_slopes,
        float? softmax_scale=None, *, ...same keywords...) -> (Tensor out, Tensor lse)
        (the caches are mutated: k_new / v_new are written into them)

``lse`` is float32 ``(batch, heads_q, seqlen_q)`` (varlen: ``(heads_q, total_q)``) when
``return_lse``, else an empty float32 tensor ``(0,)`` on q's device (nothing is computed for it).
Forward only: no autograd formula is registered.

Streams: the kernels are queued on ``torch.cuda.current_stream(q.device)``, like any torch op.

CUDA graphs (what makes capture + replay correct):
- outputs come from ``torch.empty`` (under capture: the graph's private pool);
- split-K scratch, when the plan has splits, is taken from torch's allocator too while the
  stream is capturing (``outputs.capture_scratch`` through ``percall.launch``), never from pyhipattn's shared
  per-stream workspace, whose buffer may be replaced after the capture;
- nothing synchronises or allocates outside torch's allocator on this path;
- code objects must already be loaded: loading a module during capture is not a stream-ordered
  operation (the driver refuses it, or it would break the capture).  Warm up -- run the call
  once eagerly with the same shapes, as every CUDA-graph user does for cuBLAS and Triton --
  before capturing; a call under capture that would load a code object raises
  ``pyhipattn.GraphCaptureError`` *before* touching the driver.
"""

from __future__ import annotations

from typing import Optional

import torch

from . import api, percall
from .errors import GraphCaptureError

__all__ = ["mha_fwd", "mha_fwd_kvcache", "mha_varlen_fwd"]

_LSE_NONE_SHAPE = (0,)


def _kw(softmax_scale, causal, window_left, window_right, softcap, return_lse, num_splits) -> dict:
    return dict(softmax_scale=softmax_scale, causal=causal, window_size=(window_left, window_right),
                softcap=softcap, return_lse=return_lse, num_splits=num_splits)


def _check_capture_ready(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, kw: dict,
                         varlen: Optional[tuple] = None) -> None:
    """Under graph capture: raise GraphCaptureError unless every code object the call needs is
    already loaded on q's device (plans from the shapes, as ``plan_mha_fwd`` makes them)."""
    if not torch.cuda.is_current_stream_capturing():
        return
    from .runtime.modules import default_cache

    device = q.device.index if q.device.index is not None else torch.cuda.current_device()
    arch, cus = percall.device_facts(percall.backend(), device)
    extra = {}
    if varlen is not None:
        cu_len, max_q, max_k = varlen
        extra = dict(cu_seqlens_len=cu_len, max_seqlen_q=max_q, max_seqlen_k=max_k)
    dtype = {torch.bfloat16: "bf16", torch.float16: "fp16"}.get(q.dtype)
    if dtype is None:
        return          # the call itself raises the dtype error
    plans = api.plan_mha_fwd(tuple(q.shape), tuple(k.shape), tuple(v.shape), dtype=dtype, arch=arch,
                             compute_units=cus, **kw, **extra)
    for p in plans:
        if 0 not in p.grid and default_cache.load_count(device, p.code_object) == 0:
            raise GraphCaptureError(
                f"{p.kernel} ({p.code_object}) is not loaded on GPU {device} yet, and loading a code object "
                "during graph capture is not allowed: run the call once eagerly with the same shapes "
                "before capturing (warm-up)")


def _outputs(res, q: torch.Tensor, return_lse: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """(out, lse) as the fake implementations describe them: contiguous (the padded-head-dim
    path returns a column slice), lse empty when not requested."""
    out, lse = res if return_lse else (res, torch.empty(_LSE_NONE_SHAPE, dtype=torch.float32, device=q.device))
    return out.contiguous(), lse


@torch.library.custom_op("pyhipattn::mha_fwd", mutates_args=(), device_types="cuda")
def _mha_fwd_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, softmax_scale: Optional[float] = None, *,
                causal: bool = False, window_left: int = -1, window_right: int = -1, softcap: float = 0.0,
                return_lse: bool = False, num_splits: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    kw = _kw(softmax_scale, causal, window_left, window_right, softcap, return_lse, num_splits)
    _check_capture_ready(q, k, v, kw)
    return _outputs(api.mha_fwd(q, k, v, **kw), q, return_lse)


@_mha_fwd_op.register_fake
def _mha_fwd_fake(q, k, v, softmax_scale=None, *, causal=False, window_left=-1, window_right=-1, softcap=0.0,
                  return_lse=False, num_splits=0):
    torch._check(q.dim() == 4, lambda: f"q has {q.dim()} dims; expected 4 (batch, seqlen, heads, head_dim)")
    b, sq, hq, _ = q.shape
    out = q.new_empty((b, sq, hq, v.shape[-1]))
    lse = q.new_empty((b, hq, sq) if return_lse else _LSE_NONE_SHAPE, dtype=torch.float32)
    return out, lse


@torch.library.custom_op("pyhipattn::mha_varlen_fwd", mutates_args=(), device_types="cuda")
def _mha_varlen_fwd_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_seqlens_q: torch.Tensor,
                       cu_seqlens_k: torch.Tensor, max_seqlen_q: int, max_seqlen_k: int,
                       softmax_scale: Optional[float] = None, *, causal: bool = False, window_left: int = -1,
                       window_right: int = -1, softcap: float = 0.0, return_lse: bool = False,
                       num_splits: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    kw = _kw(softmax_scale, causal, window_left, window_right, softcap, return_lse, num_splits)
    _check_capture_ready(q, k, v, kw, (cu_seqlens_q.shape[0], max_seqlen_q, max_seqlen_k))
    res = api.mha_varlen_fwd(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, **kw)
    return _outputs(res, q, return_lse)


@_mha_varlen_fwd_op.register_fake
def _mha_varlen_fwd_fake(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, softmax_scale=None, *,
                         causal=False, window_left=-1, window_right=-1, softcap=0.0, return_lse=False,
                         num_splits=0):
    torch._check(q.dim() == 3, lambda: f"q has {q.dim()} dims; expected 3 (total_tokens, heads, head_dim)")
    tq, hq, _ = q.shape
    out = q.new_empty((tq, hq, v.shape[-1]))
    lse = q.new_empty((hq, tq) if return_lse else _LSE_NONE_SHAPE, dtype=torch.float32)
    return out, lse


def mha_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, softmax_scale: Optional[float] = None,
            causal: bool = False, window_size: tuple[int, int] = (-1, -1), softcap: float = 0.0,
            return_lse: bool = False, num_splits: int = 0):
    """``pyhipattn.mha_fwd`` for torch tensors through the custom op (traceable by torch.compile,
    capturable in CUDA graphs).  Returns out, or ``(out, lse)`` with ``return_lse``."""
    out, lse = torch.ops.pyhipattn.mha_fwd(
        q, k, v, softmax_scale, causal=causal, window_left=int(window_size[0]), window_right=int(window_size[1]),
        softcap=float(softcap), return_lse=return_lse, num_splits=num_splits)
    return (out, lse) if return_lse else out


def mha_varlen_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_seqlens_q: torch.Tensor,
                   cu_seqlens_k: torch.Tensor, max_seqlen_q: int, max_seqlen_k: int, *,
                   softmax_scale: Optional[float] = None, causal: bool = False,
                   window_size: tuple[int, int] = (-1, -1), softcap: float = 0.0, return_lse: bool = False,
                   num_splits: int = 0):
    """``pyhipattn.mha_varlen_fwd`` through the custom op (see ``mha_fwd``).  The cu_seqlens are
    not read by the host; check them once with ``pyhipattn.validate_cu_seqlens`` (it syncs)."""
    out, lse = torch.ops.pyhipattn.mha_varlen_fwd(
        q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, softmax_scale, causal=causal,
        window_left=int(window_size[0]), window_right=int(window_size[1]), softcap=float(softcap),
        return_lse=return_lse, num_splits=num_splits)
    return (out, lse) if return_lse else out


def _check_kvcache_capture_ready(q, k_cache, v_cache, block_table, k_new, sinks, alibi_slopes, kw) -> None:
    """Under graph capture: the kvcache call's code objects must be loaded already (warm up)."""
    if not torch.cuda.is_current_stream_capturing():
        return
    from .kvcache import plan_mha_fwd_kvcache
    from .runtime.modules import default_cache

    device = q.device.index if q.device.index is not None else torch.cuda.current_device()
    arch, cus = percall.device_facts(percall.backend(), device)
    dtype = {torch.bfloat16: "bf16", torch.float16: "fp16"}.get(q.dtype)
    if dtype is None:
        return
    plans = plan_mha_fwd_kvcache(tuple(q.shape), tuple(k_cache.shape), tuple(v_cache.shape), arch=arch, dtype=dtype,
                                 block_table_shape=None if block_table is None else tuple(block_table.shape),
                                 seqlen_new=0 if k_new is None else k_new.shape[1], sinks=sinks is not None,
                                 alibi_slopes_shape=None if alibi_slopes is None else tuple(alibi_slopes.shape),
                                 compute_units=cus, **kw)
    for p in plans:
        if 0 not in p.grid and default_cache.load_count(device, p.code_object) == 0:
            raise GraphCaptureError(
                f"{p.kernel} ({p.code_object}) is not loaded on GPU {device} yet, and loading a code object "
                "during graph capture is not allowed: run the call once eagerly with the same shapes "
                "before capturing (warm-up)")


@torch.library.custom_op("pyhipattn::mha_fwd_kvcache", mutates_args=("k_cache", "v_cache"), device_types="cuda")
def _mha_fwd_kvcache_op(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
                        cache_seqlens: Optional[torch.Tensor], block_table: Optional[torch.Tensor],
                        k_new: Optional[torch.Tensor], v_new: Optional[torch.Tensor], sinks: Optional[torch.Tensor],
                        alibi_slopes: Optional[torch.Tensor], softmax_scale: Optional[float] = None, *,
                        causal: bool = False, window_left: int = -1, window_right: int = -1, softcap: float = 0.0,
                        return_lse: bool = False, num_splits: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    from .kvcache import mha_fwd_kvcache

    kw = _kw(softmax_scale, causal, window_left, window_right, softcap, return_lse, num_splits)
    _check_kvcache_capture_ready(q, k_cache, v_cache, block_table, k_new, sinks, alibi_slopes, kw)
    res = mha_fwd_kvcache(q, k_cache, v_cache, cache_seqlens=cache_seqlens, block_table=block_table, k_new=k_new,
                          v_new=v_new, sinks=sinks, alibi_slopes=alibi_slopes, **kw)
    return _outputs(res, q, return_lse)


@_mha_fwd_kvcache_op.register_fake
def _mha_fwd_kvcache_fake(q, k_cache, v_cache, cache_seqlens, block_table, k_new, v_new, sinks, alibi_slopes,
                          softmax_scale=None, *, causal=False, window_left=-1, window_right=-1, softcap=0.0,
                          return_lse=False, num_splits=0):
    torch._check(q.dim() == 4, lambda: f"q has {q.dim()} dims; expected 4 (batch, seqlen_q, heads, head_dim)")
    b, sq, hq, _ = q.shape
    out = q.new_empty((b, sq, hq, v_cache.shape[-1]))
    lse = q.new_empty((b, hq, sq) if return_lse else _LSE_NONE_SHAPE, dtype=torch.float32)
    return out, lse


def mha_fwd_kvcache(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, *,
                    cache_seqlens: Optional[torch.Tensor] = None, block_table: Optional[torch.Tensor] = None,
                    k_new: Optional[torch.Tensor] = None, v_new: Optional[torch.Tensor] = None,
                    softmax_scale: Optional[float] = None, causal: bool = False,
                    window_size: tuple[int, int] = (-1, -1), softcap: float = 0.0,
                    sinks: Optional[torch.Tensor] = None, alibi_slopes: Optional[torch.Tensor] = None,
                    return_lse: bool = False, num_splits: int = 0):
    """``pyhipattn.mha_fwd_kvcache`` through the custom op (torch.compile, CUDA graphs: decode is
    captured by every server).  Returns out, or ``(out, lse)`` with ``return_lse``."""
    out, lse = torch.ops.pyhipattn.mha_fwd_kvcache(
        q, k_cache, v_cache, cache_seqlens, block_table, k_new, v_new, sinks, alibi_slopes, softmax_scale,
        causal=causal, window_left=int(window_size[0]), window_right=int(window_size[1]), softcap=float(softcap),
        return_lse=return_lse, num_splits=num_splits)
    return (out, lse) if return_lse else out
