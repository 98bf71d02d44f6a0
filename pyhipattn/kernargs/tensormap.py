"""CUDA tensor maps (``CUtensorMap``, 128 bytes) made on the CPU, without a driver call.

``cuTensorMapEncodeTiled`` needs a CUDA context and costs ~8.5 us a call from Python (H100 host, 2026-11-27); a
plan wants its maps as plain bytes, made once, with only the global address bound per call (it sits raw in bytes
0-7, so a plan's pointer slot can bind it like any other device address).  :func:`encode_tile_map` writes the map
for the one shape the hopper kernels use: rank 4 (dims innermost first: head dim, sequence, heads, batch), 16-bit
elements, a box of ``box_cols`` x ``box_rows`` x 1 x 1, 128-byte swizzle, no L2 promotion, zero fill out of bounds,
element strides 1.  Its field layout was read from the driver's own maps (notes/hopper.md, calls tm and tm2,
driver 13000: one field at a time, then 2967 random maps compared byte for byte, 0 different);
``tests/gpu/test_tensormap_gpu.py`` repeats that comparison wherever a GPU and cuda-bindings are present.

Fields (little-endian): bytes 0-7 the address; 8-11 flags (rank - 1 at bit 4, PTX's element-type code at bit 7,
swizzle mode at bit 13); 12-23 the byte strides of dims 1-3 shifted right by 4; 32-47 dims - 1; byte 55 the box's
dim 0 - 1, byte 56 its rows - 1; 64-67 the box's bytes; 72-75 the 128-byte swizzle's 1024; the rest zero.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

__all__ = ["TENSOR_MAP_BYTES", "ELEMENT_TYPES", "encode_tile_map"]

TENSOR_MAP_BYTES = 128
#: PTX's tensor-map element-type codes (``tensormap.replace ... elemtype``) of the 16-bit types this encoder writes.
ELEMENT_TYPES = {"bf16": 10, "fp16": 6, "u16": 1}

_MAP = struct.Struct("<QI3I8x4I7xBB7xI4xI52x")
_RANK = 4
_SWIZZLE_128B = 3
_SWIZZLE_ATOM = 1024
_MAX_STRIDE = 1 << 36        # the stride fields read so far are 32 bits of stride >> 4 (the driver takes more)


def encode_tile_map(address: int, dtype: str, dims: Sequence[int], strides: Sequence[int], box_rows: int,
                    box_cols: int = 64) -> bytes:
    """The 128-byte ``CUtensorMap`` that ``cuTensorMapEncodeTiled`` makes for a rank-4 map of 16-bit elements.

    address: the tensor's device address (16-byte aligned; 0 for a map whose address a plan binds later).
    dtype: ``"bf16"``, ``"fp16"`` or ``"u16"``.  dims: 4 sizes, innermost first, e.g. (D, seq, heads, batch).
    strides: 3 byte strides of dims 1, 2, 3 (multiples of 16, below 64 GiB).  box_rows: 1-256 rows of dim 1;
    box_cols: the box's dim-0 width, whose bytes must be 128 (the 128-byte swizzle): 64 elements.
    Raises ValueError naming the argument, the value and what is accepted.
    """
    if not isinstance(address, int) or address < 0 or address >= 1 << 64 or address % 16:
        raise ValueError(f"address: {address!r} is not a 16-byte aligned 64-bit device address")
    if dtype not in ELEMENT_TYPES:
        raise ValueError(f"dtype: {dtype!r}; accepted: {', '.join(ELEMENT_TYPES)}")
    if len(dims) != _RANK or any(not isinstance(d, int) or not 1 <= d <= 1 << 32 for d in dims):
        raise ValueError(f"dims: {tuple(dims)!r}; accepted: {_RANK} ints in 1 .. 2**32")
    if len(strides) != _RANK - 1 or any(not isinstance(s, int) or s <= 0 or s % 16 or s >= _MAX_STRIDE
                                         for s in strides):
        raise ValueError(f"strides: {tuple(strides)!r}; accepted: {_RANK - 1} byte strides, multiples of 16, "
                         f"below {_MAX_STRIDE} (64 GiB)")
    if box_cols * 2 != 128:
        raise ValueError(f"box_cols: {box_cols!r}; accepted: 64 (128 bytes of 16-bit elements, the 128-byte swizzle)")
    if not isinstance(box_rows, int) or not 1 <= box_rows <= 256:
        raise ValueError(f"box_rows: {box_rows!r}; accepted: 1 .. 256")
    flags = ((_RANK - 1) << 4) | (ELEMENT_TYPES[dtype] << 7) | (_SWIZZLE_128B << 13)
    return _MAP.pack(address, flags, *(s >> 4 for s in strides), *(d - 1 for d in dims), box_cols - 1, box_rows - 1,
                     box_cols * box_rows * 2, _SWIZZLE_ATOM)
