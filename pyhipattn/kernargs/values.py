"""Field kinds and how a Python value becomes a field's bytes: the layer every kernarg module
shares (no layouts, no headers, no metadata here)."""

from __future__ import annotations

import numbers
import operator
import struct
from collections.abc import Sequence
from typing import Any

# kind -> (struct code, size).  Every kind is naturally aligned (alignment == size).
KINDS: dict[str, tuple[str, int]] = {
    "i8": ("b", 1), "u8": ("B", 1), "i16": ("h", 2), "u16": ("H", 2),
    "i32": ("i", 4), "u32": ("I", 4), "i64": ("q", 8), "u64": ("Q", 8),
    "f16": ("e", 2), "f32": ("f", 4), "f64": ("d", 8), "ptr": ("Q", 8),
}
_FLOAT_KINDS = frozenset({"f16", "f32", "f64"})

# C type names allowed in a header (after cffi resolves typedefs) -> kind.
_C_KINDS = {
    "int8_t": "i8", "uint8_t": "u8", "int16_t": "i16", "uint16_t": "u16",
    "int32_t": "i32", "uint32_t": "u32", "int64_t": "i64", "uint64_t": "u64",
    "int": "i32", "unsigned int": "u32", "float": "f32", "double": "f64",
}

# What struct raises for a value that does not fit (OverflowError: a float beyond f32/f16).
_PACK_ERRORS = (struct.error, OverflowError)

_POINTER_HELP = ("an int address, None (null), or an array with data_ptr() (torch), .data.ptr / .ptr (cupy) "
                 "or __cuda_array_interface__")


def address_of(obj: object, what: str = "pointer") -> int:
    """The device address an argument stands for.

    Accepts an int, None (null), or an object with ``data_ptr()`` (torch), ``.data.ptr`` or
    ``.ptr`` (cupy arrays and memory pointers) or ``__cuda_array_interface__``.  Raises
    TypeError naming ``what`` for anything else (a host numpy array, a float, a bool ...).
    """
    if obj.__class__ is int:
        return obj  # type: ignore[return-value]
    address = _address_or_none(obj)
    if address is None:
        raise TypeError(f"{what} must be a device pointer: {_POINTER_HELP}; got {_describe(obj)}")
    return address


def _address_or_none(obj: object) -> int | None:
    if obj is None:
        return 0
    if isinstance(obj, bool):
        return None
    data_ptr = getattr(obj, "data_ptr", None)
    if callable(data_ptr):
        return int(data_ptr())
    for ptr in (getattr(getattr(obj, "data", None), "ptr", None), getattr(obj, "ptr", None)):
        if isinstance(ptr, int) and not isinstance(ptr, bool):
            return ptr
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return int(cai["data"][0])
    if isinstance(obj, numbers.Integral):  # numpy integers
        return operator.index(obj)
    return None


def _describe(value: object) -> str:
    text = repr(value)
    return f"{text if len(text) <= 40 else text[:37] + '...'} ({type(value).__name__})"


def _bad_value(what: str, kind: str, value: object) -> Exception:
    """The exception for a value that ``struct`` refused for a field of ``kind``."""
    if kind == "ptr":
        if isinstance(value, int) and not isinstance(value, bool):
            return ValueError(f"{what} (ptr) must be an address in [0, 2**64); got {value}")
        return TypeError(f"{what} must be a device pointer: {_POINTER_HELP}; got {_describe(value)}")
    if kind in _FLOAT_KINDS:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return ValueError(f"{what} ({kind}) is out of range for {kind}: {value!r}")
        return TypeError(f"{what} ({kind}) must be a float or an int; got {_describe(value)}")
    bits = 8 * KINDS[kind][1]
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if kind[0] == "i" else (0, (1 << bits) - 1)
    if isinstance(value, numbers.Integral):
        return ValueError(f"{what} ({kind}) must be an int in [{lo}, {hi}]; got {operator.index(value)}")
    return TypeError(f"{what} ({kind}) must be an int in [{lo}, {hi}]; got {_describe(value)}")


def _round_up(n: int, align: int) -> int:
    return -(-n // align) * align if align > 1 else n


def _struct_format(pieces: Sequence[tuple[int, str, int]], total: int) -> str:
    """A little-endian ``struct`` format for ``(offset, code, size)`` pieces, gaps as pad bytes."""
    fmt, end = ["<"], 0
    for offset, code, size in pieces:
        if offset > end:
            fmt.append(f"{offset - end}x")
        fmt.append(code)
        end = offset + size
    if total > end:
        fmt.append(f"{total - end}x")
    return "".join(fmt)


def _getter(keys: Sequence[str]) -> Any:
    """``mapping -> tuple of mapping[k] for k in keys`` at C speed (raises KeyError)."""
    if len(keys) < 2:  # itemgetter returns a bare value for one key, and needs at least one
        return lambda mapping: tuple(mapping[k] for k in keys)
    return operator.itemgetter(*keys)


def _count_error(who: str, names: Sequence[str], got: int) -> TypeError:
    return TypeError(f"{who} takes {len(names)} arguments ({', '.join(names)}), got {got}")
