"""The per-framework fast paths of ``mha_fwd``: the same call again skips views, validation
and planning, for torch, CuPy and JAX.

A first call takes the general path (``api``: DLPack-free views, validation, dispatch,
``prepare``) and, for torch and CuPy, leaves an entry keyed on every fact the plan and the
launch depend on: each of q, k, v's shape, strides, dtype and device, every option, and
(CuPy) the current device.  A later call whose key matches reads only the three data pointers
(and checks their 16-byte alignment), allocates the output from the framework's own allocator
on q's device and queues the kernels on the framework's current stream.  Any difference in a
key fact misses the cache and takes the general path, which validates again, so a stale entry
cannot be used; the entries are dropped when code objects are unloaded.

JAX arrays have no stream to queue on, so eager JAX calls run as a jitted ``pyhipattn.jax``
custom call (``jax.jit`` per option set, cached): XLA orders them on its own stream, and its
C++ dispatch is the fast path.  The bits equal those of a call from torch on the same data
(same kernels).

What a hit costs is measured by ``bench/host_frameworks.py`` (the H100 table in notes/frameworks.md).
"""

from __future__ import annotations

import sys
import threading

from . import percall
from .runtime.modules import on_unload

#: key -> (Prepared, out shape, lse shape, out is like q)
CACHE: dict = {}
_MAX = 4096
_LOCK = threading.Lock()


def remember(key, prep, out_shape: tuple, lse_shape: tuple, like_q: bool) -> None:
    """Record the general path's result for ``key`` (from ``torch_key`` / ``cupy_key``)."""
    with _LOCK:
        if len(CACHE) >= _MAX:
            CACHE.clear()
        CACHE[key] = (prep, out_shape, lse_shape, like_q)


def forget() -> None:
    """Drop every entry (code objects were unloaded: the entries' launches name them)."""
    CACHE.clear()
    _JAX_FNS.clear()


# -- torch -------------------------------------------------------------------------------------

_TORCH = None


def _torch():
    global _TORCH
    if _TORCH is None:
        import torch

        _TORCH = torch
    return _TORCH


def torch_key(q, k, v, options: tuple) -> tuple:
    # get_device() (an int) is cheaper to build and hash than .device (a new object each time)
    return (q.shape, q.stride(), q.dtype, q.get_device(), k.shape, k.stride(), k.dtype, k.get_device(),
            v.shape, v.stride(), v.dtype, v.get_device(), options)


def torch_call(q, k, v, options: tuple, return_lse: bool):
    """(key, result): the cached call's result, or (key, None) on a miss (the general path
    then remembers the key), or (None, None) for arguments this path does not describe.  A hit
    costs the key, the output tensors (``empty_like(q)`` or ``new_empty``), torch's current
    stream and one driver launch per kernel (``Prepared.run``)."""
    try:
        key = torch_key(q, k, v, options)
        hit = CACHE.get(key)
    except (TypeError, AttributeError):   # unhashable or non-torch arguments: the general path explains
        return None, None
    if hit is None:
        return key, None
    qp, kp, vp = q.data_ptr(), k.data_ptr(), v.data_ptr()
    if (qp | kp | vp) & 15:
        return None, None
    prep, out_shape, lse_shape, like_q = hit
    torch = _TORCH or _torch()
    torch_c = torch._C
    out = torch.empty_like(q) if like_q else q.new_empty(out_shape)
    stream = torch_c._cuda_getCurrentRawStream(key[3])     # key[3]: q.get_device()
    if return_lse:
        lse = q.new_empty(lse_shape, dtype=torch.float32)
        values = (qp, kp, vp, out.data_ptr(), lse.data_ptr(), 0, 0)
    else:
        values = (qp, kp, vp, out.data_ptr(), 0, 0, 0)
    # torch's own capture query is cheaper than the driver's; asked only when scratch is needed
    percall.launch(prep, values, stream, q, bool(prep.workspace_bytes) and torch_c._cuda_isCurrentStreamCapturing())
    return key, ((out, lse) if return_lse else out)


# -- CuPy --------------------------------------------------------------------------------------

class _Cupy:
    module = None
    get_device = None        # cupy.cuda.runtime.getDevice
    current_stream = None    # cupy.cuda.get_current_stream
    empty = None

    @classmethod
    def load(cls):
        cupy = sys.modules["cupy"]
        cls.get_device, cls.current_stream, cls.empty = (cupy.cuda.runtime.getDevice, cupy.cuda.get_current_stream,
                                                         cupy.empty)
        cls.module = cupy
        return cupy


def cupy_key(q, k, v, options: tuple) -> tuple:
    """Every fact of the call a plan or launch depends on; CuPy's current device last (the
    output is allocated, and the current stream read, there)."""
    return ("cupy", q.shape, q.strides, q.dtype, q.data.device_id, k.shape, k.strides, k.dtype, k.data.device_id,
            v.shape, v.strides, v.dtype, v.data.device_id, options, _cupy_device())


def _cupy_device() -> int:
    if _Cupy.get_device is None:
        _Cupy.load()
    return _Cupy.get_device()


def cupy_call(q, k, v, options: tuple, return_lse: bool):
    """As ``torch_call`` for CuPy arrays: the output from ``cupy.empty`` (CuPy's pool), the
    kernels on ``cupy.cuda.get_current_stream()``.  Only when q's device is CuPy's current
    device (the key's last entry equals q's device); else the general path."""
    try:
        key = cupy_key(q, k, v, options)
        hit = CACHE.get(key)
    except (TypeError, AttributeError):
        return None, None
    if key[4] != key[-1]:
        return None, None
    if hit is None:
        return key, None
    qp, kp, vp = q.data.ptr, k.data.ptr, v.data.ptr
    if (qp | kp | vp) & 15:
        return None, None
    prep, out_shape, lse_shape, _ = hit
    empty = _Cupy.empty
    out = empty(out_shape, q.dtype)
    stream = _Cupy.current_stream().ptr
    if return_lse:
        lse = empty(lse_shape, "float32")
        values = (qp, kp, vp, out.data.ptr, lse.data.ptr, 0, 0)
    else:
        values = (qp, kp, vp, out.data.ptr, 0, 0, 0)
    percall.launch(prep, values, stream, q, bool(prep.workspace_bytes) and prep.backend.stream_is_capturing(stream, key[4]))
    return key, ((out, lse) if return_lse else out)


# -- JAX ---------------------------------------------------------------------------------------

_JAX_FNS: dict = {}


def jax_call(q, k, v, options: tuple, sinks, alibi_slopes):
    """``pyhipattn.jax.mha_fwd`` under a cached ``jax.jit`` for this option set: eager JAX
    arrays (and tracers: then it simply traces into the caller's computation)."""
    fkey = (options, sinks is None, alibi_slopes is None)
    fn = _JAX_FNS.get(fkey)
    if fn is None:
        fn = _JAX_FNS.setdefault(fkey, _jit(options, sinks is not None, alibi_slopes is not None))
    if sinks is None and alibi_slopes is None:
        return fn(q, k, v)
    return fn(q, k, v, *(x for x in (sinks, alibi_slopes) if x is not None))


def _jit(options: tuple, has_sinks: bool, has_alibi: bool):
    import jax

    from . import jax as pjax

    softmax_scale, causal, window_size, softcap, return_lse, num_splits = options

    def f(q, k, v, *extras):
        rest = list(extras)
        sinks = rest.pop(0) if has_sinks else None
        alibi = rest.pop(0) if has_alibi else None
        return pjax.mha_fwd(q, k, v, softmax_scale=softmax_scale, causal=causal, window_size=window_size,
                            softcap=softcap, return_lse=return_lse, num_splits=num_splits, sinks=sinks,
                            alibi_slopes=alibi)

    return jax.jit(f)


on_unload(forget)
