"""The DLPack C ABI as ctypes structures, plus the enum values and dtypes pyhipattn uses.

Layout follows ``dlpack.h`` v1.1 (dmlc/dlpack ``include/dlpack/dlpack.h``); on 64-bit
platforms ``DLTensor`` is 48 bytes, ``DLManagedTensor`` 64 and ``DLManagedTensorVersioned``
80 (``tests/test_dlpack.py`` checks sizes and offsets).  The deleter field is typed
``void (*)(void *)``, which is ABI-identical to the header's ``void (*)(DLManagedTensor*)``.
"""

from __future__ import annotations

import ctypes
from typing import Final

# DLDeviceType (the subset pyhipattn meets)
CPU: Final = 1
CUDA: Final = 2
CUDA_HOST: Final = 3
ROCM: Final = 10
ROCM_HOST: Final = 11
DEVICE_TYPE_NAMES: Final = {CPU: "CPU", CUDA: "CUDA", CUDA_HOST: "CUDAHost", ROCM: "ROCm",
                            ROCM_HOST: "ROCmHost"}
GPU_DEVICE_TYPES: Final = frozenset({CUDA, ROCM})

# DLDataTypeCode
INT: Final = 0
UINT: Final = 1
FLOAT: Final = 2
BFLOAT: Final = 4
BOOL: Final = 6

# DLManagedTensorVersioned.flags
FLAG_READ_ONLY: Final = 1 << 0
FLAG_IS_COPIED: Final = 1 << 1
FLAG_IS_SUBBYTE_TYPE_PADDED: Final = 1 << 2

#: The DLPack version this module reads and writes (``DLPACK_MAJOR_VERSION``).
MAJOR_VERSION: Final = 1
#: What we export in ``DLManagedTensorVersioned.version`` and ask consumers for.
VERSION: Final = (1, 0)

#: pyhipattn dtype name -> (DLDataTypeCode, bits); lanes are always 1.
DTYPES: Final[dict[str, tuple[int, int]]] = {
    "bf16": (BFLOAT, 16),
    "fp16": (FLOAT, 16),
    "fp32": (FLOAT, 32),
    "fp64": (FLOAT, 64),
    "int8": (INT, 8),
    "uint8": (UINT, 8),
    "int32": (INT, 32),
    "int64": (INT, 64),
    "bool": (BOOL, 8),
}
DTYPE_OF_CODE: Final[dict[tuple[int, int, int], str]] = {
    (code, bits, 1): name for name, (code, bits) in DTYPES.items()}
ITEMSIZE: Final[dict[str, int]] = {name: bits // 8 for name, (_, bits) in DTYPES.items()}
SUPPORTED_DTYPES: Final = ", ".join(DTYPES)

#: ``void (*deleter)(DLManagedTensor[Versioned] *self)``
Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),   # in elements; may be NULL (compact)
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    """Legacy (pre-1.0) managed tensor, capsule name ``dltensor``."""

    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", Deleter),
    ]


class DLManagedTensorVersioned(ctypes.Structure):
    """DLPack >= 1.0 managed tensor, capsule name ``dltensor_versioned``."""

    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", Deleter),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


def compact_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides in elements for ``shape`` (what a NULL ``strides`` means)."""
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * max(shape[i + 1], 1)
    return tuple(strides)


def device_name(device_type: int) -> str:
    """``'CUDA (2)'``: a device type as error messages spell it."""
    return f"{DEVICE_TYPE_NAMES.get(device_type, 'device type')} ({device_type})"
