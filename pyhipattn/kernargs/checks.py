"""A declared kernarg layout checked against a code object's metadata."""

from __future__ import annotations

from collections.abc import Sequence

from ..codeobj.model import KernelInfo
from ..errors import KernargMismatchError
from .layouts import StructLayout
from .values import _round_up

def check_layout(layout: StructLayout, kernel: KernelInfo) -> None:
    """Raise KernargMismatchError unless ``layout`` is what ``kernel``'s metadata expects.

    Field ``i`` is compared with explicit argument ``i`` (offset and size); a kernel taking the
    struct by value shows one argument of the struct's size.  The struct's size must equal the
    explicit arguments' end rounded up to the struct's alignment.  The message lists every
    difference; names the metadata gives that differ from the struct's follow as notes (AITER
    names args ``R``, ``Q`` ... which need not match C field names).
    """
    args = kernel.explicit_args
    problems: list[str] = []
    notes: list[str] = []
    by_value = len(args) == 1 and len(layout.fields) != 1
    if by_value:
        if (args[0].offset, args[0].size) != (0, layout.size):
            problems.append(f"kernel takes one argument at offset {args[0].offset} of {args[0].size} bytes "
                            f"(a struct by value?), the struct is {layout.size} bytes")
    else:
        for i in range(max(len(layout.fields), len(args))):
            f = layout.fields[i] if i < len(layout.fields) else None
            a = args[i] if i < len(args) else None
            ours = f"offset {f.offset} size {f.size}" if f else "no field"
            theirs = f"offset {a.offset} size {a.size}" if a else "no argument"
            if f is None or a is None or (f.offset, f.size) != (a.offset, a.size):
                what = f"field {i} {f.name!r}" if f else f"argument {i}{f' {a.name!r}' if a and a.name else ''}"
                problems.append(f"{what}: struct has {ours}, metadata has {theirs}")
            elif a.name is not None and a.name != f.name:
                notes.append(f"argument {i} is named {a.name!r} in the metadata, {f.name!r} in the struct")
    metadata_size = _round_up(kernel.explicit_kernarg_size, layout.align)
    if metadata_size != layout.size:
        problems.append(f"total size: struct is {layout.size} bytes, the metadata's explicit arguments take "
                        f"{metadata_size} (end {kernel.explicit_kernarg_size}, rounded up to {layout.align})")
    if problems:
        lines = [f"struct {layout.name} ({layout.source or 'no source'}) does not match kernel {kernel.name} "
                 f"({kernel.arch}):", *problems, *(f"note: {n}" for n in notes)]
        raise KernargMismatchError("\n  ".join(lines))


def check_params(params: Sequence[StructLayout], kernel: KernelInfo) -> tuple[int, ...]:
    """Check that ``kernel`` takes exactly the structs ``params`` by value, one parameter each, in order, and return
    their byte offsets in the kernarg buffer (the metadata's).

    Parameter 0 must sit at offset 0; parameter ``i`` must have its struct's size and start at or after the end of
    parameter ``i - 1``, at a multiple of 16 and of its struct's alignment as declared (the metadata places the padding:
    nvcc puts an over-aligned parameter, e.g. an ``alignas(64)`` one, where its constant-bank address is aligned, so
    its offset is not a plain round-up); the explicit arguments must end where the last struct does.  One parameter is
    :func:`check_layout`'s by-value case.  Raises KernargMismatchError listing every difference; ValueError for an
    empty ``params``.
    """
    if not params:
        raise ValueError("params: empty; accepted: one or more StructLayouts, the kernel's parameters in order")
    args = kernel.explicit_args
    problems: list[str] = []
    end = 0
    for i in range(max(len(params), len(args))):
        lay = params[i] if i < len(params) else None
        arg = args[i] if i < len(args) else None
        if lay is None or arg is None:
            ours = f"struct {lay.name} of {lay.size} bytes" if lay else "no parameter"
            theirs = f"offset {arg.offset} size {arg.size}" if arg else "no argument"
            problems.append(f"parameter {i}: declared {ours}, metadata has {theirs}")
            continue
        step = max(16, lay.align) if i else 1
        if arg.size != lay.size or arg.offset < end or arg.offset % step or (i == 0 and arg.offset != 0):
            where = "offset 0" if i == 0 else f"an offset >= {end}, a multiple of {step}"
            problems.append(f"parameter {i}: struct {lay.name} wants {where} and {lay.size} bytes, metadata has "
                            f"offset {arg.offset} size {arg.size}")
        end = arg.offset + arg.size
    if args and len(args) == len(params) and kernel.explicit_kernarg_size != end:
        problems.append(f"total size: the last struct ends at {end}, the metadata's explicit arguments at "
                        f"{kernel.explicit_kernarg_size}")
    if problems:
        names = ", ".join(lay.name for lay in params)
        lines = [f"parameters {names} do not match kernel {kernel.name} ({kernel.arch}):", *problems]
        raise KernargMismatchError("\n  ".join(lines))
    return tuple(a.offset for a in args)
