"""Stream-ordered device memory: ``DeviceBuffer`` and the per-(device, stream) ``Workspace``.

``DeviceBuffer`` allocates from the device's memory pool ordered on a stream
(``cuMemAllocFromPoolAsync`` / ``hipMallocFromPoolAsync``) and frees exactly once, ordered on
the same stream (``cuMemFreeAsync`` / ``hipFreeAsync``): by ``free()``, or by garbage
collection, whichever comes first (``weakref.finalize``).  The
finalizer holds only its arguments (the backend's bound ``free_async`` and plain ints) and
uses no module globals, so it still works while the interpreter tears modules down; it
swallows only the driver's "deinitialized" status.  The stream must outlive the buffer (seen on
an H100: a free queued on a destroyed stream segfaults inside the driver), so buffers that
may outlive a caller's stream are allocated on the default stream; nothing is freed at exit.

``Workspace`` is the scratch one (device, stream) pair reuses across launches (split-K
partials, after COUNTER_BYTES of arrival counters that are zero-filled when allocated and
that only self-resetting kernels write): it only grows, geometrically, by freeing the old buffer and allocating the new one
on the same stream, so kernels queued before the growth still read the old memory and nothing
waits on the host.  Nothing in ``ensure`` synchronises, so it is safe in graph capture as long
as the buffer does not grow during capture.

Run on hardware: not by the author; exactly-once freeing is tested with a counting fake
backend in tests/test_runtime.py (including at interpreter exit).
"""

from __future__ import annotations

import ctypes
import threading
import weakref
from typing import Any

from pyhipattn.runtime.base import Backend

_ALIGN = 256
WORKSPACE_MIN_BYTES = 1 << 20
#: int32 split-K arrival counters reserved, zero-filled, in front of every workspace: the
#: pointer a kernel gets is past them, partials of any problem start there, and kernels that
#: fold their own splits (the portable family's FOLD_COUNTERS) count at negative offsets and
#: leave every counter at 0.  Problems with more row tiles than this are not split that way.
SPLIT_COUNTERS = 65536
COUNTER_BYTES = 4 * SPLIT_COUNTERS


def _release(free_async: Any, deinitialized: int, ptr: int, stream: int, device: int) -> None:
    # Runs from free(), from GC, or from weakref's atexit hook: uses its arguments only.
    try:
        free_async(ptr, stream, device)
    except Exception as e:
        if getattr(e, "status", None) != deinitialized:
            raise


def _backend(backend: Backend | None) -> Backend:
    if backend is not None:
        return backend
    from pyhipattn.runtime.detect import get_backend

    return get_backend()


class DeviceBuffer:
    """``nbytes`` of device memory on ``device``, allocated and freed in ``stream``'s order.

    ``ptr`` is the device address (int).  ``free()`` queues the free now; calling it again,
    or the buffer being collected afterwards, does nothing.
    """

    __slots__ = ("ptr", "nbytes", "device", "stream", "_finalizer", "__weakref__")

    def __init__(self, nbytes: int, device: int, stream: int, backend: Backend | None = None) -> None:
        if not isinstance(nbytes, int) or nbytes < 0:
            raise ValueError(f"nbytes must be a non-negative int; got {nbytes!r}")
        b = _backend(backend)
        self.ptr = b.malloc_async(max(nbytes, 1), stream, device)
        self.nbytes = nbytes
        self.device = device
        self.stream = stream
        self._finalizer = weakref.finalize(self, _release, b.free_async, b.deinitialized_status,
                                           self.ptr, stream, device)
        # Not at interpreter exit: the stream may be gone by then (a framework's side stream),
        # and a free queued on a destroyed stream crashes the driver; the process's exit returns
        # the memory anyway.
        self._finalizer.atexit = False

    @property
    def alive(self) -> bool:
        return self._finalizer.alive

    def free(self) -> None:
        """Queue the free on the buffer's stream (once; later calls do nothing)."""
        self._finalizer()

    def __repr__(self) -> str:
        state = "" if self.alive else ", freed"
        return f"DeviceBuffer(ptr=0x{self.ptr:x}, nbytes={self.nbytes}, device={self.device}, stream=0x{self.stream:x}{state})"


class Workspace:
    """Grow-only scratch for one (device, stream).

    Hold ``lock`` from ``ensure`` until the launch using the pointer is queued when several
    threads share the stream (``runtime.launch`` does), so a concurrent growth cannot free the
    buffer between the two.
    """

    def __init__(self, device: int, stream: int, backend: Backend | None = None) -> None:
        self.device = device
        self.stream = stream
        self.lock = threading.RLock()
        self.grows = 0
        self._backend = backend
        self._buf: DeviceBuffer | None = None
        self._fast = (-1, 0)    # (usable bytes, address): one read answers ensure's common case

    @property
    def nbytes(self) -> int:
        """Usable bytes (past the counters)."""
        return self._buf.nbytes - COUNTER_BYTES if self._buf is not None else 0

    def ensure(self, nbytes: int) -> int:
        """Device address of at least ``nbytes`` of scratch (grows by at least 2x when needed),
        preceded by the SPLIT_COUNTERS zeroed int32 counters."""
        usable, address = self._fast
        if nbytes <= usable:
            return address
        with self.lock:
            usable, address = self._fast        # again: another thread may have grown it meanwhile
            if nbytes <= usable:
                return address
            buf = self._buf
            size = max(nbytes, 2 * self.nbytes, WORKSPACE_MIN_BYTES)
            size = -(-size // _ALIGN) * _ALIGN
            if buf is not None:
                buf.free()  # stream-ordered: launches queued earlier still own the old memory
            b = _backend(self._backend)
            self._buf = DeviceBuffer(COUNTER_BYTES + size, self.device, self.stream, b)
            # the counters start at 0 (stream-ordered, once per growth; the kernels keep them at 0)
            b.memset_async(self._buf.ptr, 0, COUNTER_BYTES, self.stream, self.device)
            self.grows += 1
            self._fast = (size, self._buf.ptr + COUNTER_BYTES)
            return self._buf.ptr + COUNTER_BYTES

    def release(self) -> None:
        with self.lock:
            if self._buf is not None:
                self._fast = (-1, 0)
                self._buf.free()
                self._buf = None


_workspaces: dict[tuple[int, int, int], Workspace] = {}
_workspaces_lock = threading.Lock()


def workspace(device: int, stream: int, backend: Backend | None = None) -> Workspace:
    """The shared Workspace of (device, stream) for ``backend`` (default: the process backend)."""
    b = _backend(backend)
    key = (id(b), device, stream)
    ws = _workspaces.get(key)
    if ws is None:
        with _workspaces_lock:
            ws = _workspaces.get(key)
            if ws is None:
                ws = _workspaces[key] = Workspace(device, stream, b)
    return ws


def release_workspaces() -> None:
    """Free every workspace (stream-ordered); call before destroying streams that have one."""
    with _workspaces_lock:
        spaces = list(_workspaces.values())
        _workspaces.clear()
    for ws in spaces:
        ws.release()


def device_array(shape: tuple[int, ...], dtype: str, device: int, stream: int,
                 backend: Backend | None = None) -> Any:
    """A new contiguous ``pyhipattn.dlpack.DLPackArray`` of ``shape`` / ``dtype`` (``"fp16"``,
    ``"bf16"``, ``"fp32"`` ...) over a DeviceBuffer allocated in ``stream``'s order.

    Exporting it (``__dlpack__(stream=consumer)``) makes the consumer's stream wait for the
    work queued on ``stream`` so far (an event, no host sync); the buffer is freed, in
    ``stream``'s order, when the array and every export of it are gone.
    """
    from pyhipattn.dlpack import DLPackArray
    from pyhipattn.dlpack.structs import ITEMSIZE
    from pyhipattn.runtime.streams import sync_hook

    b = _backend(backend)
    count = 1
    for d in shape:
        count *= int(d)
    buf = DeviceBuffer(count * ITEMSIZE[dtype], device, stream, b)
    return DLPackArray(buf, shape, dtype, device=(b.dlpack_device_type, device), sync=sync_hook(stream, device, b))


def copy_to_host(ptr: int, nbytes: int, stream: int, backend: Backend | None = None) -> bytes:
    """Copy ``nbytes`` at device address ``ptr`` to host bytes, waiting for ``stream`` (tests, debugging)."""
    b = _backend(backend)
    out = ctypes.create_string_buffer(nbytes)
    b.memcpy_dtoh(ctypes.addressof(out), ptr, nbytes, stream)
    b.stream_synchronize(stream)
    return out.raw


def copy_from_host(ptr: int, data: bytes, stream: int, backend: Backend | None = None) -> None:
    """Copy ``data`` to device address ``ptr``, waiting for ``stream`` (tests, debugging)."""
    b = _backend(backend)
    src = ctypes.create_string_buffer(bytes(data), len(data))
    b.memcpy_htod(ptr, ctypes.addressof(src), len(data), stream)
    b.stream_synchronize(stream)
