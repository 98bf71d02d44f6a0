"""Normalise a ``stream`` argument to the driver handle (an int) that a launch is queued on.

Accepted:
- ``None``: the current stream of the framework the inputs came from (``framework="torch"``:
  ``torch.cuda.current_stream(device).cuda_stream``; ``"cupy"``:
  ``cupy.cuda.get_current_stream().ptr``), else the backend's default stream (CUDA's legacy
  default stream ``CU_STREAM_LEGACY`` = 1, HIP's null stream 0);
- an ``int`` handle, or any integer (numpy) (0 = the null stream, 1 / 2 = CUDA's legacy / per-thread default);
- any object with ``__cuda_stream__`` (the CUDA stream protocol: a method, or on older
  producers an attribute, giving ``(version, handle)``), e.g. ``cuda.core`` streams;
- ``torch.cuda.Stream`` / ``torch.cuda.ExternalStream`` (``.cuda_stream``);
- CuPy streams (``.ptr``);
- cuda-bindings ``CUstream`` / hip-python ``ihipStream_t`` handle objects (``int()``).

torch and cupy are looked up in ``sys.modules`` only: this module never imports a framework.

Run on hardware: the framework paths run in tests/gpu/test_runtime_gpu.py; the rest is
covered by tests/test_runtime.py.
"""

from __future__ import annotations

import operator
import sys
from typing import Any, Callable

_HANDLE_TYPES = ("CUstream", "ihipStream_t")

ACCEPTED = ("None, an int handle, an object with __cuda_stream__, a torch.cuda.Stream, "
            "a cupy.cuda.Stream, or a CUstream / hipStream_t handle")


def framework_stream(framework: str | None, device: int) -> int | None:
    """The current stream of ``framework`` on ``device`` as an int, or None when unknown.

    ``framework`` is ``"torch"``, ``"cupy"``, ``"jax"`` or None; JAX exposes no current
    stream, so it (like None) gives None and the caller uses the default stream.
    """
    if framework == "torch":
        torch = sys.modules.get("torch")
        if torch is not None:
            return int(torch.cuda.current_stream(device).cuda_stream)
    elif framework == "cupy":
        cupy = sys.modules.get("cupy")
        if cupy is not None:
            with cupy.cuda.Device(device):
                return int(cupy.cuda.get_current_stream().ptr)
    return None


def stream_handle(stream: Any, *, default: int, framework: str | None = None, device: int = 0) -> int:
    """``stream`` as an int handle; see the module docstring for what is accepted.

    ``default`` is the backend's default stream (``backend.default_stream``), used for None
    when no framework current stream applies.  Raises TypeError naming ``stream`` and the
    accepted kinds for anything else, ValueError for a negative handle.
    """
    if stream is None:
        s = framework_stream(framework, device) if framework else None
        return default if s is None else s
    if type(stream) is int:  # the common case first, and bool excluded
        handle = stream
    else:
        handle = _object_handle(stream)
    if handle < 0:
        raise ValueError(f"stream handle {handle} is negative; stream handles are pointers (>= 0)")
    return handle


def framework_of(array: Any) -> str | None:
    """``"torch"``, ``"cupy"`` or ``"jax"`` for an array of that framework, else None (cheap: the type's module)."""
    module = type(array).__module__.split(".", 1)[0]
    if module in ("torch", "cupy"):
        return module
    return "jax" if module in ("jax", "jaxlib") else None


def resolve(stream: Any, *, like: Any = None, device: int = 0, backend: Any = None) -> int:
    """``stream_handle`` with the framework taken from ``like`` (an input array) and the default
    stream from ``backend`` (the process backend when None): what the public API calls."""
    if type(stream) is int:
        return stream if stream >= 0 else stream_handle(stream, default=0)
    if backend is None:
        from pyhipattn.runtime.detect import get_backend

        backend = get_backend()
    return stream_handle(stream, default=backend.default_stream, framework=framework_of(like), device=device)


def _object_handle(stream: Any) -> int:
    if isinstance(stream, bool):
        raise TypeError(f"stream must be {ACCEPTED}; got a bool")
    if isinstance(stream, int) or hasattr(type(stream), "__index__"):  # int subclasses, numpy integers
        return operator.index(stream)
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        value = protocol() if callable(protocol) else protocol
        try:
            _version, handle = value
            return int(handle)
        except (TypeError, ValueError):
            raise TypeError(
                f"stream.__cuda_stream__ returned {value!r}; the protocol needs a (version, handle) pair"
            ) from None
    for attr in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy.cuda.Stream
        value = getattr(stream, attr, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    if type(stream).__name__ in _HANDLE_TYPES:
        return int(stream)
    raise TypeError(f"stream must be {ACCEPTED}; got {type(stream).__module__}.{type(stream).__qualname__}")


def sync_hook(producer_stream: int, device: int, backend: Any = None) -> Callable[[Any], None]:
    """A DLPack producer's ``sync(consumer_stream)``: make the consumer's stream wait for the
    work queued so far on ``producer_stream`` (event record + stream wait, no host sync).

    ``consumer_stream`` follows DLPack: None or -1 means no ordering was asked for; on CUDA 1
    and 2 are the legacy / per-thread default streams (the same values as the driver's
    CU_STREAM_LEGACY / CU_STREAM_PER_THREAD), on ROCm 0 is the default stream.
    """
    if backend is None:
        from pyhipattn.runtime.detect import get_backend

        backend = get_backend()

    def sync(consumer_stream: Any) -> None:
        if consumer_stream is None or consumer_stream == -1:
            return
        consumer = stream_handle(consumer_stream, default=backend.default_stream)
        if consumer == producer_stream:
            return
        event = backend.event_create(device)
        try:
            backend.event_record(event, producer_stream)
            backend.stream_wait_event(consumer, event)
        finally:
            backend.event_destroy(event)  # released once the wait no longer needs it

    return sync
