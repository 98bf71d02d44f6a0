"""Kernel arguments: struct layouts from C headers, fast packing, checks against metadata.

One module per job: ``values`` (field kinds, value -> bytes rules), ``layouts`` (StructLayout,
``triton_layout``), ``headers`` (C headers -> layouts), ``packing`` (``Packer`` for a layout,
``ArgPacker`` from metadata), ``checks`` (``check_layout``; ``check_params``: several structs, one
parameter each), ``tensormap`` (CUDA tensor maps made on the CPU: ``encode_tile_map``).  Import the names from here.

A kernel family declares its kernarg struct once, in a C header that the kernel source
includes and that :func:`layout_from_header` reads through cffi (ABI mode: no compiler).  The
convention for that header is written down in ``kernels/src/common/pyhipattn_kernargs.h``:
plain C between ``// pyhipattn:begin`` and ``// pyhipattn:end`` lines, fixed-width fields.

Three ways to build the kernarg bytes that a launch passes through ``extra``:

- ``layout.packer().pack(...)``: from a declared :class:`StructLayout`, after
  :func:`check_layout` has compared it with the code object's metadata.  One precompiled
  ``struct.Struct``; this is the per-call path.
- :func:`pack_by_names`: from the metadata's own argument names (AITER's ASM kernels).
- :func:`pack_positional`: from the metadata's offsets and sizes alone (the generic
  ``module["name"].launch(grid, block, *args)`` door, Triton cubins with unnamed params).

Pointer fields take an int address, None (null), or an array object exposing its device
address (``data_ptr()``, ``.data.ptr`` / ``.ptr``, ``__cuda_array_interface__``).
"""

from .checks import check_layout, check_params
from .headers import KernargHeader, layout_from_header, read_header
from .layouts import Field, StructLayout, triton_layout
from .packing import ArgPacker, Packer, arg_packer, kernarg_buffer_size, pack_by_names, pack_positional
from .tensormap import encode_tile_map
from .values import KINDS, address_of

__all__ = [
    "Field", "StructLayout", "KernargHeader", "Packer", "ArgPacker",
    "read_header", "layout_from_header", "check_layout", "check_params", "triton_layout",
    "kernarg_buffer_size", "arg_packer", "pack_by_names", "pack_positional", "address_of", "KINDS", "encode_tile_map",
]
