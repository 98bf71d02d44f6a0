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


class CaptureScratch:
    """Split-K scratch owned by a graph being captured: ``address`` is where a kernel's
    partials start (after the zeroed arrival counters); call ``release()`` once the launches
    that use it are queued."""

    __slots__ = ("address", "_keep", "_free")

    def __init__(self, address: int, keep=None, free=None) -> None:
        self.address, self._keep, self._free = address, keep, free

    def release(self) -> None:
        self._keep = None
        if self._free is not None:
            free, self._free = self._free, None
            free()


def capture_scratch(like, nbytes: int, stream: int, device: int, backend=None) -> CaptureScratch:
    """Split-K scratch for launches being captured into a graph on ``stream``, laid out like a
    Workspace (zeroed arrival counters, then ``nbytes``); the zeroing is captured too, so every
    replay starts from zeroed counters.

    torch: a uint8 tensor from the graph's private pool (torch's current stream only); like any
    intermediate tensor of a captured region it stays valid for every replay once dropped.
    Other frameworks (CuPy, raw streams): a stream-ordered allocation and free on the capturing
    stream (``cuMemAllocAsync`` / ``hipMallocAsync``), which the capture records as the graph's
    own memory-allocation and free nodes around the kernels.
    """
    from .runtime.memory import COUNTER_BYTES

    if _framework(like) == "torch":
        import torch

        from .errors import GraphCaptureError

        if int(torch.cuda.current_stream(like.device).cuda_stream) != stream:
            raise GraphCaptureError("under graph capture, split-K calls on torch tensors must run on torch's "
                                    "current stream (stream=None)")
        buf = torch.empty(COUNTER_BYTES + nbytes, dtype=torch.uint8, device=like.device)
        buf[:COUNTER_BYTES].zero_()
        return CaptureScratch(buf.data_ptr() + COUNTER_BYTES, keep=buf)
    if backend is None:
        from .runtime import get_backend

        backend = get_backend()
    ptr = backend.graph_malloc_async(COUNTER_BYTES + nbytes, stream, device)
    backend.memset_async(ptr, 0, COUNTER_BYTES, stream, device)
    return CaptureScratch(ptr + COUNTER_BYTES, free=lambda: backend.free_async(ptr, stream, device))
