"""Which framework an array belongs to, fast views of torch and CuPy arrays, and handing
our outputs back to a framework.

Nothing here imports torch, CuPy or JAX to *recognise* their arrays: the framework is read
from the module names in ``type(obj).__mro__`` (once per type), and a framework's own
attributes are only read from ``sys.modules`` once one of its arrays has been seen.

Fast paths read the same facts ``__dlpack__`` would export (pointer, shape, strides,
dtype, device) straight from the array, for about 1 us instead of torch's 23 us export
(notes/interop.md).  They make no stream handshake: the caller must queue its kernels on the
framework's *current* stream (``torch.cuda.current_stream()``,
``cupy.cuda.get_current_stream()``), which orders them after the work that produced the
array.  An array a fast path cannot describe returns ``None`` and takes the DLPack path.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable

from pyhipattn.dlpack.structs import CPU, CUDA, ROCM, SUPPORTED_DTYPES
from pyhipattn.dlpack.tensorview import TensorView

FRAMEWORKS = ("torch", "cupy", "jax", "numpy")
_ROOTS = {"torch": "torch", "cupy": "cupy", "jax": "jax", "jaxlib": "jax", "numpy": "numpy"}

#: numpy / CuPy / ml_dtypes dtype name -> pyhipattn dtype name
_NUMPY_NAMES = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "float64": "fp64",
                "int8": "int8", "uint8": "uint8", "int32": "int32", "int64": "int64",
                "bool": "bool"}

FastPath = Callable[[Any, str], "TensorView | None"]
_BY_TYPE: dict[type, tuple[str, FastPath | None]] = {}


def framework_of(obj: object) -> str:
    """``'torch' | 'cupy' | 'jax' | 'numpy'`` for their arrays (and subclasses), else ``'dlpack'``."""
    return classify(type(obj))[0]


def classify(tp: type) -> tuple[str, FastPath | None]:
    """(framework, fast path or None) for arrays of type ``tp``; cached per type."""
    try:
        return _BY_TYPE[tp]
    except KeyError:
        pass
    name = "dlpack"
    for cls in tp.__mro__:
        name = _ROOTS.get(getattr(cls, "__module__", "").partition(".")[0], "dlpack")
        if name != "dlpack":
            break
    entry = (name, _FAST_PATHS.get(name))
    _BY_TYPE[tp] = entry
    return entry


def unsupported_dtype(argname: str, dtype: object) -> TypeError:
    return TypeError(f"{argname} has dtype {dtype}, which pyhipattn does not support "
                     f"(supported: {SUPPORTED_DTYPES})")


# -- torch ------------------------------------------------------------------------------

_new_view = tuple.__new__         # TensorView(...) without NamedTuple's keyword handling
_torch_dtypes: dict[Any, str] = {}
_torch_gpu = [CUDA]               # kDLROCM on ROCm builds of torch; set with _torch_dtypes


def _load_torch_facts() -> dict[Any, str]:
    torch = sys.modules["torch"]
    _torch_gpu[0] = ROCM if getattr(torch.version, "hip", None) else CUDA
    _torch_dtypes.update({getattr(torch, t): n for t, n in _NUMPY_NAMES.items()})
    return _torch_dtypes


def torch_view(t: Any, argname: str) -> TensorView | None:
    """View of a strided torch tensor on CPU or CUDA/ROCm without calling ``__dlpack__``."""
    try:
        dtype = (_torch_dtypes or _load_torch_facts())[t.dtype]
    except KeyError:
        raise unsupported_dtype(argname, t.dtype) from None
    if t.is_cuda:
        device_type, device_id = _torch_gpu[0], t.get_device()
    elif t.is_cpu:
        device_type, device_id = CPU, 0
    else:
        return None            # meta, xpu, mps, ...: let DLPack say what it is
    if t.is_neg():
        # Its memory holds -t; torch's own DLPack export hands out that memory unchanged.
        raise ValueError(f"{argname} is a lazily negated torch view (is_neg() is True); "
                         f"pass {argname}.resolve_neg()")
    try:
        ptr = t.data_ptr()     # raises for sparse and other unstrided layouts
    except RuntimeError:
        return None
    return _new_view(TensorView, (ptr, tuple(t.shape), t.stride(), dtype, device_type,
                                  device_id, t, "torch", False))


# -- CuPy -------------------------------------------------------------------------------

class _CupyFacts:
    gpu_device_type: int | None = None

    @classmethod
    def load(cls) -> int:
        cupy = sys.modules["cupy"]
        cls.gpu_device_type = ROCM if cupy.cuda.runtime.is_hip else CUDA
        return cls.gpu_device_type


def cupy_view(a: Any, argname: str) -> TensorView | None:
    """View of a CuPy ndarray (strides converted from bytes to elements)."""
    device_type = _CupyFacts.gpu_device_type or _CupyFacts.load()
    dtype = _NUMPY_NAMES.get(a.dtype.name)
    if dtype is None:
        raise unsupported_dtype(argname, a.dtype)
    itemsize = a.itemsize
    strides = a.strides
    if any(s % itemsize for s in strides):
        return None
    return TensorView(a.data.ptr, a.shape, tuple(s // itemsize for s in strides), dtype,
                      device_type, a.device.id, a, "cupy")


# -- numpy (host memory: the emulator's arrays; ml_dtypes' bfloat16, which numpy's DLPack
#    export refuses) ----------------------------------------------------------------------

def numpy_view(a: Any, argname: str) -> TensorView | None:
    """View of a numpy ndarray from its array interface (strides converted to elements); other
    dtypes go over DLPack, which names them in its error."""
    dtype = _NUMPY_NAMES.get(a.dtype.name)
    if dtype is None:
        return None
    itemsize = a.itemsize
    strides = a.strides
    if any(s % itemsize for s in strides):
        return None
    return TensorView(a.ctypes.data, a.shape, tuple(s // itemsize for s in strides), dtype, CPU, 0, a, "numpy",
                      not a.flags.writeable)


_FAST_PATHS: dict[str, FastPath] = {"torch": torch_view, "cupy": cupy_view, "numpy": numpy_view}


# -- handing arrays back ----------------------------------------------------------------

_FROM_DLPACK = {"torch": ("torch", "from_dlpack"), "cupy": ("cupy", "from_dlpack"),
                "jax": ("jax.dlpack", "from_dlpack"), "numpy": ("numpy", "from_dlpack")}


def to_framework(array: object, like: str | object) -> object:
    """Hand ``array`` (anything with ``__dlpack__``, e.g. a DLPackArray) to a framework,
    zero-copy, through that framework's own ``from_dlpack``.

    ``like`` is a framework name (``"torch" | "cupy" | "jax" | "numpy"``) or an array of
    that framework (typically the caller's input).  The framework passes its current stream
    to ``array.__dlpack__``, so the result is safe to use on that stream.
    """
    name = like if isinstance(like, str) else framework_of(like)
    try:
        module, function = _FROM_DLPACK[name]
    except KeyError:
        wanted = ", ".join(FRAMEWORKS)
        raise ValueError(f"like={like!r} names no supported framework; pass one of {wanted} "
                         "or an array of one of them") from None
    return getattr(importlib.import_module(module), function)(array)
