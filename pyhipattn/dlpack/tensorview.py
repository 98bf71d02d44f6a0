"""TensorView: what pyhipattn needs to know about an input array, as plain data."""

from __future__ import annotations

from typing import NamedTuple

from pyhipattn.dlpack.structs import ITEMSIZE, compact_strides


class TensorView(NamedTuple):
    """A zero-copy view of someone else's array.

    ``ptr`` is the address of element ``[0, ..., 0]`` (DLPack ``data + byte_offset``);
    ``shape`` and ``strides`` are plain tuples, strides in *elements*; ``dtype`` is one of
    ``bf16 fp16 fp32 fp64 int8 uint8 int32 int64 bool``; ``device_type`` is a DLPack device
    type (1 CPU, 2 CUDA, 10 ROCm).  ``owner`` keeps the memory alive: the original array
    (fast paths) or the consumed DLPack managed tensor, whose producer deleter runs once
    when the last reference to it goes.  Keep the view (or its owner) for as long as
    kernels may read ``ptr``.
    """

    ptr: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: str
    device_type: int
    device_id: int
    owner: object
    framework: str        # "torch" | "cupy" | "jax" | "numpy" | "dlpack"
    readonly: bool = False

    def __repr__(self) -> str:
        return (f"TensorView(ptr={self.ptr:#x}, shape={self.shape}, strides={self.strides}, "
                f"dtype={self.dtype!r}, device=({self.device_type}, {self.device_id}), "
                f"framework={self.framework!r}, owner={type(self.owner).__name__}"
                f"{', readonly' if self.readonly else ''})")

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def itemsize(self) -> int:
        return ITEMSIZE[self.dtype]

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def is_contiguous(self) -> bool:
        """True when the elements are packed in row-major order (size-1 dims ignored)."""
        if self.numel == 0:
            return True
        return all(d == 1 or s == c for d, s, c in
                   zip(self.shape, self.strides, compact_strides(self.shape)))
