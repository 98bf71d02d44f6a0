"""Consume arrays: ``view(obj)`` -> TensorView, by a framework fast path or over DLPack.

The DLPack path follows the Python specification: ask ``__dlpack_device__()``, then
``__dlpack__(stream=..., max_version=(1, 0))`` (falling back to the pre-1.0 signature on
TypeError), check the capsule, rename it ``used_dltensor[_versioned]`` and keep the
managed tensor in a ManagedTensorOwner whose finalizer calls the producer's deleter once.
"""

from __future__ import annotations

from typing import Any

from pyhipattn.dlpack import capsule as _capsule
from pyhipattn.dlpack.frameworks import classify
from pyhipattn.dlpack.structs import (
    CPU, CUDA, DTYPE_OF_CODE, FLAG_READ_ONLY, GPU_DEVICE_TYPES, MAJOR_VERSION, ROCM,
    SUPPORTED_DTYPES, VERSION, DLManagedTensor, DLManagedTensorVersioned, DLTensor,
    compact_strides, device_name,
)
from pyhipattn.dlpack.tensorview import TensorView

#: Called with every host (CPU) TensorView pyhipattn makes; the emulator registers the memory
#: such views span as device memory (``pyhipattn.emulate.backend.expose_view``).
_host_view_listeners: list = []


def add_host_view_listener(fn) -> None:
    """Call ``fn(view)`` for every CPU TensorView from now on (once per distinct ``fn``)."""
    if fn not in _host_view_listeners:
        _host_view_listeners.append(fn)


_DTYPE_CODE_NAMES = {0: "int", 1: "uint", 2: "float", 3: "opaque handle", 4: "bfloat",
                     5: "complex", 6: "bool"}


def dlpack_stream(stream: int | None, device_type: int, argname: str = "stream") -> int | None:
    """The ``stream=`` value to pass to ``__dlpack__`` of an array on ``device_type``.

    ``stream`` is a pyhipattn stream handle: ``None`` (no handshake: the producer's default),
    ``-1`` (the producer must not synchronise), ``0`` (the default stream) or a driver
    stream handle.  CUDA's DLPack reserves 0: the default stream is spelled 1 (legacy) or
    2 (per-thread), so our 0 becomes 1.  On ROCm 0 is the default stream and 1 and 2 are
    invalid.  Arrays not on a GPU take no stream (``None``).
    """
    if device_type not in GPU_DEVICE_TYPES or stream is None:
        return None
    if type(stream) is not int:
        raise TypeError(f"{argname} must be an int stream handle or None, "
                        f"not {type(stream).__name__}")
    if stream < -1:
        raise ValueError(f"{argname}={stream} is not a stream handle (use -1 for no "
                         "synchronisation, 0 for the default stream, or a stream handle)")
    if device_type == CUDA:
        return 1 if stream == 0 else stream
    if device_type == ROCM and stream in (1, 2):
        raise ValueError(f"{argname}={stream} is not valid on ROCm: DLPack reserves 1 and 2 "
                         "for CUDA's default streams; pass 0 for ROCm's default stream")
    return stream


def view(obj: Any, *, stream: int | None = None, platform_device_type: int | None = None,
         argname: str = "tensor") -> TensorView:
    """A zero-copy TensorView of ``obj`` (torch, CuPy, JAX, numpy or any ``__dlpack__`` array).

    torch tensors and CuPy arrays take a fast path that never calls ``__dlpack__`` and so
    makes no stream handshake: launch on the framework's current stream.  Everything else
    goes over DLPack with ``stream`` (see ``dlpack_stream``), which makes the producer
    order its pending work before that stream.  With ``platform_device_type`` (2 CUDA or
    10 ROCm) an array on another device type is refused.  ``argname`` names ``obj`` in
    error messages.

    Raises TypeError for objects without DLPack and for unsupported dtypes, ValueError for
    arrays on the wrong device or that their producer refuses to export.
    """
    framework, fast = classify(type(obj))
    result = fast(obj, argname) if fast is not None else None
    if result is None:
        result = _dlpack_view(obj, framework, stream, platform_device_type, argname)
    elif platform_device_type is not None and result.device_type != platform_device_type:
        raise _wrong_device(argname, result.device_type, platform_device_type)
    if result.device_type == CPU and _host_view_listeners:
        for fn in _host_view_listeners:
            fn(result)
    return result


def _wrong_device(argname: str, device_type: int, platform: int) -> ValueError:
    return ValueError(f"{argname} is on {device_name(device_type)} memory; pyhipattn runs on "
                      f"{device_name(platform)}: move it to the GPU first")


def _refused(argname: str, obj: object, error: Exception) -> ValueError:
    return ValueError(f"{argname} ({type(obj).__name__}) refused the DLPack export: "
                      f"{type(error).__name__}: {error}")


def _dlpack_view(obj: Any, framework: str, stream: int | None, platform: int | None,
                 argname: str) -> TensorView:
    if not hasattr(obj, "__dlpack__") or not hasattr(obj, "__dlpack_device__"):
        raise TypeError(f"{argname} is a {type(obj).__module__}.{type(obj).__qualname__}; "
                        "pass an array with __dlpack__ (torch, cupy, jax, numpy)")
    try:
        device_type = int(obj.__dlpack_device__()[0])
    except Exception as e:
        raise _refused(argname, obj, e) from e
    if platform is not None and device_type != platform:
        raise _wrong_device(argname, device_type, platform)
    kwargs = {}
    sync = dlpack_stream(stream, device_type, f"stream (for {argname})")
    if sync is not None:
        kwargs["stream"] = sync
    try:
        try:
            capsule = obj.__dlpack__(max_version=VERSION, **kwargs)
        except TypeError:
            capsule = obj.__dlpack__(**kwargs)        # a producer older than DLPack 1.0
    except Exception as e:
        raise _refused(argname, obj, e) from e
    return consume_capsule(capsule, framework=framework, argname=argname)


def consume_capsule(capsule: object, *, framework: str = "dlpack",
                    argname: str = "tensor") -> TensorView:
    """Take ownership of a ``dltensor`` / ``dltensor_versioned`` capsule and view it.

    On success the capsule is renamed ``used_*`` and the producer's deleter runs once, when
    the returned view's ``owner`` is released.  On failure the capsule is left untouched,
    so its own destructor gives the tensor back to the producer.
    """
    if _capsule.is_valid(capsule, _capsule.VERSIONED):
        name, used, struct = _capsule.VERSIONED, _capsule.USED_VERSIONED, DLManagedTensorVersioned
    elif _capsule.is_valid(capsule, _capsule.LEGACY):
        name, used, struct = _capsule.LEGACY, _capsule.USED_LEGACY, DLManagedTensor
    else:
        raise TypeError(f"{argname}.__dlpack__() returned {type(capsule).__name__}, not an "
                        "unused 'dltensor' or 'dltensor_versioned' capsule")
    address = _capsule.get_pointer(capsule, name)
    managed: Any = struct.from_address(address)
    readonly = False
    if struct is DLManagedTensorVersioned:
        if managed.version.major != MAJOR_VERSION:
            raise ValueError(f"{argname} was exported with DLPack {managed.version.major}."
                             f"{managed.version.minor}; pyhipattn reads DLPack "
                             f"{MAJOR_VERSION}.x")
        readonly = bool(managed.flags & FLAG_READ_ONLY)
    ptr, shape, strides, dtype, device_type, device_id = _read_tensor(managed.dl_tensor, argname)
    deleter = managed.deleter
    _capsule.set_name(capsule, used)                 # from here on, we own the tensor
    owner = ManagedTensorOwner(address, deleter)
    return TensorView(ptr, shape, strides, dtype, device_type, device_id, owner, framework,
                      readonly)


def _read_tensor(t: DLTensor, argname: str) -> tuple[int, tuple[int, ...], tuple[int, ...],
                                                     str, int, int]:
    code, bits, lanes = t.dtype.code, t.dtype.bits, t.dtype.lanes
    dtype = DTYPE_OF_CODE.get((code, bits, lanes))
    if dtype is None:
        kind = _DTYPE_CODE_NAMES.get(code, f"code {code}")
        lanes_note = f" x{lanes} lanes" if lanes != 1 else ""
        raise TypeError(f"{argname} has dtype {kind}{bits}{lanes_note} (DLPack code {code}), "
                        f"which pyhipattn does not support (supported: {SUPPORTED_DTYPES})")
    ndim = t.ndim
    shape = tuple(t.shape[:ndim]) if ndim else ()
    strides = tuple(t.strides[:ndim]) if ndim and t.strides else compact_strides(shape)
    ptr = (t.data or 0) + t.byte_offset
    return ptr, shape, strides, dtype, t.device.device_type, t.device.device_id


class ManagedTensorOwner:
    """Owns one consumed DLManagedTensor[Versioned]; calls the producer's deleter exactly
    once, when this object is released.  ``address`` is the managed struct's address."""

    __slots__ = ("address", "_deleter", "__weakref__")

    def __init__(self, address: int, deleter: Any) -> None:
        self.address = address
        self._deleter = deleter if deleter else None     # a NULL function pointer is falsy

    def __repr__(self) -> str:
        return f"<ManagedTensorOwner of DLManagedTensor at {self.address:#x}>"

    def __del__(self) -> None:
        deleter, self._deleter = self._deleter, None
        if deleter is not None:
            deleter(self.address)
