"""Produce arrays: DLPackArray exports a buffer we own to torch, CuPy, JAX or numpy.

Every export allocates a DLManagedTensor[Versioned] plus its shape and strides arrays and
keeps them, together with the DLPackArray (and so the buffer), in ``_LIVE`` keyed by the
struct's address.  Whoever ends the export removes that entry, exactly once:

- the consumer, by calling the struct's ``deleter`` after renaming the capsule ``used_*``;
- or the capsule's own destructor, when the capsule is dropped without being consumed.

Both are ctypes callbacks.  They acquire the GIL themselves (consumers may call the
deleter from any thread), never raise on their own, and use only objects they hold in their closures,
because the consumer may release its array during interpreter teardown, after this
module's globals have been cleared.  The callback objects themselves are given a
reference that is never released, so C code can always call them.
"""

from __future__ import annotations

import ctypes
import math
from typing import Any, Callable, Protocol, Sequence

from pyhipattn.dlpack import capsule as _capsule
from pyhipattn.dlpack.structs import (
    CPU, CUDA, CUDA_HOST, DTYPES, ITEMSIZE, ROCM, ROCM_HOST, SUPPORTED_DTYPES, VERSION,
    Deleter, DLDataType, DLDevice, DLManagedTensor, DLManagedTensorVersioned,
    compact_strides, device_name,
)

_DEVICE_TYPES = (CPU, CUDA, CUDA_HOST, ROCM, ROCM_HOST)
_INT64_ARRAYS: dict[int, type] = {}


class Buffer(Protocol):
    """What DLPackArray needs of its memory: an address and a size; released when dropped
    (e.g. ``pyhipattn.runtime.memory.DeviceBuffer``)."""

    ptr: int
    nbytes: int


#: ``sync(consumer_stream)``: make ``consumer_stream`` wait for the work that produced the
#: data (record an event on the producer stream, ``StreamWaitEvent`` on the consumer's),
#: or do nothing when they are the same stream.  Supplied by the runtime.  The stream
#: arrives as the driver handle: DLPack's CUDA 1 / 2 are the driver's CU_STREAM_LEGACY /
#: CU_STREAM_PER_THREAD, and a consumer passing None gets 1 (CUDA) or 0 (ROCm).
SyncHook = Callable[[int], None]

# struct address -> (managed struct, shape array, strides array, DLPackArray)
_LIVE: dict[int, tuple[Any, Any, Any, "DLPackArray"]] = {}


def _make_callbacks(live: dict) -> tuple[Any, Any]:
    """The deleter and the capsule destructor, closed over everything they use."""
    pop = live.pop
    is_valid_at, get_pointer_at = _capsule.is_valid_at, _capsule.get_pointer_at
    fetch, restore = _capsule.err_fetch, _capsule.err_restore
    names = (_capsule.LEGACY, _capsule.VERSIONED)
    catch_all, void_p = BaseException, ctypes.c_void_p
    cells = (void_p(), void_p(), void_p())
    cell_addresses = tuple(void_p(ctypes.addressof(c)) for c in cells)

    def guarded(work: Callable[[int | None], None]) -> Callable[[int | None], None]:
        # C consumers may drop a capsule or call the deleter on an error path, with their
        # exception still set; any Python call would trip over it.  Park it first, and
        # hand it back at the end (ctypes then reports it as unraisable: it cannot carry an
        # exception out of a callback).
        def callback(address: int | None) -> None:
            fetch(*cell_addresses)
            pending = (cells[0].value, cells[1].value, cells[2].value)
            try:
                work(address)
            except catch_all:
                pass
            if pending[0]:
                restore(void_p(pending[0]), void_p(pending[1]), void_p(pending[2]))
        return callback

    def release(address: int | None) -> None:
        pop(address, None)

    def destroy_capsule(capsule_address: int | None) -> None:
        # Runs for every capsule we made; only an unconsumed one still has its first name.
        for name in names:
            if is_valid_at(capsule_address, name):
                release(get_pointer_at(capsule_address, name))
                return

    deleter = _capsule.keep_forever(Deleter(guarded(release)))
    destructor = _capsule.keep_forever(_capsule.Destructor(guarded(destroy_capsule)))
    return deleter, destructor


_DELETER, _CAPSULE_DESTRUCTOR = _make_callbacks(_LIVE)
_DESTRUCTOR_ADDRESS = ctypes.cast(_CAPSULE_DESTRUCTOR, ctypes.c_void_p).value


def live_exports() -> int:
    """How many exported tensors no consumer has released yet (for tests and leak checks)."""
    return len(_LIVE)


class DLPackArray:
    """An array over a buffer we own, exported zero-copy through ``__dlpack__``.

    ``buffer`` has ``.ptr`` and ``.nbytes`` and frees its memory when dropped; the array and
    every unreleased export keep it alive.  ``shape`` and ``strides`` (in elements; default
    row-major) describe the elements starting ``offset`` bytes into the buffer.  ``device``
    is a DLPack ``(device_type, device_id)``: ``(2, i)`` CUDA, ``(10, i)`` ROCm, ``(1, 0)``
    host memory.  ``sync`` (default: ``buffer.sync`` if it has one) is called with the
    consumer's stream when a consumer asks for one; see SyncHook.
    """

    __slots__ = ("buffer", "shape", "strides", "dtype", "device", "offset", "_sync",
                 "__weakref__")

    def __init__(self, buffer: Buffer, shape: Sequence[int], dtype: str, *,
                 strides: Sequence[int] | None = None, device: tuple[int, int] = (CPU, 0),
                 offset: int = 0, sync: SyncHook | None = None) -> None:
        if dtype not in DTYPES:
            raise TypeError(f"dtype {dtype!r} is not supported (supported: {SUPPORTED_DTYPES})")
        self.shape = tuple(int(d) for d in shape)
        if any(d < 0 for d in self.shape):
            raise ValueError(f"shape {self.shape} has a negative dimension")
        self.strides = compact_strides(self.shape) if strides is None else \
            tuple(int(s) for s in strides)
        if len(self.strides) != len(self.shape) or any(s < 0 for s in self.strides):
            raise ValueError(f"strides {self.strides} must be {len(self.shape)} non-negative "
                             f"element counts for shape {self.shape}")
        device_type, device_id = (int(v) for v in device)
        if device_type not in _DEVICE_TYPES:
            raise ValueError(f"device {tuple(device)} is not one of the device types "
                             f"{_DEVICE_TYPES} (CPU, CUDA, CUDAHost, ROCm, ROCmHost)")
        self.dtype = dtype
        self.device = (device_type, device_id)
        self.offset = int(offset)
        self.buffer = buffer
        self._sync = sync if sync is not None else getattr(buffer, "sync", None)
        if self.offset < 0 or self.offset + self.span_bytes > buffer.nbytes:
            raise ValueError(f"shape {self.shape} with strides {self.strides} at offset "
                             f"{self.offset} needs {self.offset + self.span_bytes} bytes; "
                             f"the buffer has {buffer.nbytes}")

    @property
    def ptr(self) -> int:
        """Address of element ``[0, ..., 0]``."""
        return self.buffer.ptr + self.offset

    @property
    def itemsize(self) -> int:
        return ITEMSIZE[self.dtype]

    @property
    def span_bytes(self) -> int:
        """Bytes from the first element to the end of the last one (0 when empty)."""
        if math.prod(self.shape) == 0:
            return 0
        last = sum((d - 1) * s for d, s in zip(self.shape, self.strides))
        return (last + 1) * self.itemsize

    def __repr__(self) -> str:
        return (f"DLPackArray(shape={self.shape}, dtype={self.dtype!r}, "
                f"strides={self.strides}, device={self.device}, ptr={self.ptr:#x})")

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device

    def __dlpack__(self, *, stream: int | None = None,
                   max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None,
                   copy: bool | None = None) -> object:
        """A DLPack capsule of this array: ``dltensor_versioned`` when the consumer passes
        ``max_version >= (1, 0)``, else the legacy ``dltensor`` (what JAX asks for).
        Makes ``stream`` wait for our pending work first (see SyncHook)."""
        if dl_device is not None and tuple(int(v) for v in dl_device) != self.device:
            raise BufferError(f"cannot export to {tuple(dl_device)}: the array lives on "
                              f"{self.device} and DLPackArray does not copy")
        if copy:
            raise BufferError("DLPackArray exports without copying; copy=True is not supported")
        consumer = self._consumer_stream(stream)
        if consumer is not None and self._sync is not None:
            self._sync(consumer)
        versioned = max_version is not None and int(max_version[0]) >= 1
        return _export(self, versioned)

    def _consumer_stream(self, stream: int | None) -> int | None:
        """The stream a consumer will use (None: no synchronisation wanted or possible)."""
        device_type = self.device[0]
        if stream is not None and type(stream) is not int:
            raise TypeError(f"stream must be an int or None, not {type(stream).__name__}")
        if device_type not in (CUDA, ROCM):
            if stream not in (None, -1):
                raise BufferError(f"stream={stream} given for {device_name(device_type)} "
                                  "memory; host arrays take stream=None")
            return None
        if stream == -1:
            return None
        if stream is not None and stream < -1:
            raise ValueError(f"stream={stream} is not a stream handle")
        if device_type == CUDA:
            if stream == 0:
                raise ValueError("stream=0 is not allowed on CUDA by DLPack: pass 1 for the "
                                 "legacy default stream or 2 for the per-thread default")
            return 1 if stream is None else stream
        if stream in (1, 2):
            raise ValueError(f"stream={stream} is not allowed on ROCm by DLPack: pass 0 for "
                             "the default stream or a stream handle")
        return 0 if stream is None else stream


def _int64_array(values: tuple[int, ...]) -> Any:
    n = len(values)
    cls = _INT64_ARRAYS.get(n)
    if cls is None:
        cls = _INT64_ARRAYS[n] = ctypes.c_int64 * max(n, 1)
    return cls(*values)


def _export(array: DLPackArray, versioned: bool) -> object:
    managed: Any = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    shape, strides = _int64_array(array.shape), _int64_array(array.strides)
    t = managed.dl_tensor
    t.data = array.ptr
    t.device = DLDevice(*array.device)
    t.ndim = len(array.shape)
    t.dtype = DLDataType(*DTYPES[array.dtype], 1)
    t.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    t.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    t.byte_offset = 0              # PyTorch ignores byte_offset on import: fold it into data
    managed.deleter = _DELETER
    if versioned:
        managed.version.major, managed.version.minor = VERSION
        managed.flags = 0
    address = ctypes.addressof(managed)
    _LIVE[address] = (managed, shape, strides, array)
    name = _capsule.VERSIONED if versioned else _capsule.LEGACY
    try:
        return _capsule.new(address, name, _DESTRUCTOR_ADDRESS)
    except BaseException:
        _LIVE.pop(address, None)
        raise
