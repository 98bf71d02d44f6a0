"""Output arrays in the caller's framework.

torch and cupy outputs come from the framework's own (stream-aware, caching) allocator, which
is both the fastest path and what their users expect; anything else (JAX, numpy-on-GPU users,
raw DLPack producers) gets a stream-ordered pyhipattn buffer exported over DLPack after the
kernels are queued, so the consumer's stream waits for them.
"""

from __future__ import annotations

_TORCH_DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}
_NP_DTYPES = {"bf16": None, "fp16": "float16", "fp32": "float32"}


def _framework(obj) -> str:
    mod = type(obj).__module__
    return mod.split(".", 1)[0] if mod else ""


def empty_like(like, shape: tuple[int, ...], dtype: str, device: int, stream: int):
    """Allocate an uninitialised contiguous array of ``shape`` / ``dtype`` on GPU ``device``
    in ``like``'s framework.  Returns ``(array_or_pending, data_pointer)``; pass the first
    through ``finish`` once the kernels writing it are queued."""
    fw = _framework(like)
    if fw == "torch":
        import torch

        t = torch.empty(shape, dtype=getattr(torch, _TORCH_DTYPES[dtype]), device=like.device)
        return t, t.data_ptr()
    if fw == "cupy":
        import cupy

        with cupy.cuda.Device(device):
            a = cupy.empty(shape, dtype=_cupy_dtype(dtype))
        return a, a.data.ptr
    if fw == "numpy":          # the emulator: host memory is device memory
        from .runtime import get_backend

        a = get_backend().host_array(shape, _cupy_dtype(dtype))
        return a, a.ctypes.data
    from .runtime.memory import device_array

    arr = device_array(shape, dtype, device, stream)
    return _Pending(arr, fw), arr.ptr


class _Pending:
    """A pyhipattn-owned output waiting to be handed to its framework after launch."""

    __slots__ = ("array", "framework")

    def __init__(self, array, framework: str) -> None:
        self.array, self.framework = array, framework


def finish(obj, stream: int):
    """Hand a pending output to its framework (JAX: ``jax.dlpack.from_dlpack``, zero copy);
    framework-allocated arrays pass through."""
    if not isinstance(obj, _Pending):
        return obj
    if obj.framework in ("jax", "jaxlib"):
        import jax.dlpack

        return jax.dlpack.from_dlpack(obj.array)
    return obj.array


def _cupy_dtype(dtype: str):
    if dtype == "bf16":
        import ml_dtypes

        return ml_dtypes.bfloat16
    return _NP_DTYPES[dtype]


def capture_scratch(like, nbytes: int, stream: int):
    """Split-K scratch for a launch being captured into a graph: ``(tensor, address)``, a torch
    uint8 tensor from the graph's private pool laid out like a Workspace (zeroed arrival
    counters, then ``nbytes`` at ``address``).  Drop the tensor after the launches are queued:
    like any intermediate tensor of a captured region, it stays valid for every replay.  Other
    frameworks have no allocator we can use during capture: GraphCaptureError says what to do
    instead."""
    from .errors import GraphCaptureError

    if _framework(like) != "torch":
        raise GraphCaptureError(
            f"this call needs {nbytes} bytes of split-K scratch, and stream 0x{stream:x} is being captured into a "
            "graph: under capture pyhipattn takes scratch only from torch's graph pool; pass torch tensors, or "
            "num_splits=1 (no scratch)")
    import torch

    if int(torch.cuda.current_stream(like.device).cuda_stream) != stream:
        raise GraphCaptureError("under graph capture, split-K calls must run on torch's current stream (stream=None)")
    from .runtime.memory import COUNTER_BYTES

    # the zeroing is captured too, so every replay starts from zeroed counters
    buf = torch.empty(COUNTER_BYTES + nbytes, dtype=torch.uint8, device=like.device)
    buf[:COUNTER_BYTES].zero_()
    return buf, buf.data_ptr() + COUNTER_BYTES
