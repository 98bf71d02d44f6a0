"""DLPack in and out: zero-copy exchange with PyTorch, CuPy, JAX and numpy.

Consume: ``view(q, stream=s, argname="q") -> TensorView`` (ptr, shape, strides in elements,
dtype, device); torch and CuPy arrays take a fast path that skips ``__dlpack__``.
Produce: ``DLPackArray(buffer, shape, dtype, device=...)`` implements ``__dlpack__`` and
``__dlpack_device__``; ``to_framework(out, like=q)`` hands it to the caller's framework.
"""

from __future__ import annotations

from pyhipattn.dlpack.consume import ManagedTensorOwner, consume_capsule, dlpack_stream, view
from pyhipattn.dlpack.frameworks import FRAMEWORKS, framework_of, to_framework
from pyhipattn.dlpack.produce import Buffer, DLPackArray, SyncHook, live_exports
from pyhipattn.dlpack.structs import (
    CPU, CUDA, CUDA_HOST, DTYPES, ROCM, DLDataType, DLDevice, DLManagedTensor,
    DLManagedTensorVersioned, DLPackVersion, DLTensor,
)
from pyhipattn.dlpack.tensorview import TensorView

__all__ = [
    "CPU", "CUDA", "CUDA_HOST", "DTYPES", "FRAMEWORKS", "ROCM", "Buffer", "DLDataType",
    "DLDevice", "DLManagedTensor", "DLManagedTensorVersioned", "DLPackArray", "DLPackVersion",
    "DLTensor", "ManagedTensorOwner", "SyncHook", "TensorView", "consume_capsule",
    "dlpack_stream", "framework_of", "live_exports", "to_framework", "view",
]
